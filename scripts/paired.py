#!/usr/bin/env python3
"""Paired comparisons from an experiment's runs.csv (the result store's
per-run export): for every setting of the other parameters, the mean of
metric under param=BETTER and param=WORSE with 95% CIs, and the relative
effect (BETTER - WORSE) / WORSE computed per replication (the runs of one
replication share random numbers) with its 95% CI; each point is a win, a
loss or a tie (the effect's CI contains 0) from the paper's side. With
--regime the point is named by the WORSE configuration's mean wait W
against its mean run time R = response - wait: scarce (W >= R), ample
(W <= 0.05 R), between otherwise.

  scripts/paired.py results/X/runs.csv --param node_select --better u \
      --worse random --metric makespan --lower-is-better --regime

  scripts/paired.py results/X/runs.csv --list makespan,mean_response

lists every configuration's means ± 95% CI half-widths instead (with
--regime, each configuration's regime too). With --better '*' every other
value of param is compared with --worse (e.g. each unstable count against
the all-stable platform).

With --verdict X (a numeric parameter, e.g. platform.nodes) it also prints
the verdict of a "better when ample" claim from the paired points, by the
rule of the claims checker (experiment/claims.go, expect:
better-when-ample): each series (one setting of the parameters other than
X, ordered by X) must read losses or ties, then only wins to its end,
(L|T)* W+; agrees when every series does, disagrees when a series ends in
a loss or nothing wins, partly otherwise, no difference detected when
nothing wins or loses. With --by P the verdict is given per value of P
(e.g. workload.trace) as well as overall. The checker compares unpaired
means (the difference of the means against its CI); this uses the paired
relative effect, so its wins and ties can differ where CIs are close.

Effects whose 95% CI half-width rounds to 0.00% are printed with four
decimals, so that a "loss" of 16 ppm reads as one.

Prints a Markdown table. Standard library only. Self-test of the verdict
rule and the number format: python3 -m doctest scripts/paired.py
"""
import argparse
import csv
import math
import sys

# Student t quantiles t(0.975, df) for df = 1..30; normal beyond.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042]

META = {"config_index", "config_id", "replication", "seed"}


def ci(xs):
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan")
    m = sum(xs) / n
    if n < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    t = T975[n - 2] if n - 1 <= len(T975) else 1.96
    return m, t * sd / math.sqrt(n)


def fmt(x):
    if math.isnan(x):
        return "–"
    a = abs(x)
    if a >= 1e5:
        return "%.3e" % x
    if a >= 100:
        return "%.0f" % x
    if a >= 1:
        return "%.3g" % x
    return "%.3f" % x


def nrange(ns):
    """The range of the pair counts n ("0" when nothing paired).

    >>> nrange([]), nrange([30]), nrange([30, 100])
    ('0', '30', '30–100')
    """
    if not ns:
        return "0"
    return "%d" % min(ns) if len(set(ns)) == 1 else "%d–%d" % (min(ns), max(ns))


def fmt_effect(mr, hr):
    """The relative effect and its CI half-width in percent: two decimals,
    four where the half-width rounds to 0.00% at two decimals but not at
    four (a 16 ppm effect with a 15 ppm half-width).

    >>> fmt_effect(0.000016, 0.000015)
    '+0.0016% ± 0.0015%'
    >>> fmt_effect(-0.0035, 1e-18)  # identical in every replication
    '-0.35% ± 0.00%'
    >>> fmt_effect(0.0123, 0.0045)
    '+1.23% ± 0.45%'
    """
    if math.isnan(hr):
        return "%+.2f%%" % (100 * mr)
    if round(100 * hr, 2) == 0 and round(100 * hr, 4) != 0:
        return "%+.4f%% ± %.4f%%" % (100 * mr, 100 * hr)
    return "%+.2f%% ± %.2f%%" % (100 * mr, 100 * hr)


def verdict(patterns):
    """The claims checker's better-when-ample verdict (experiment/claims.go)
    from the series' patterns of W, T and L along x.

    >>> verdict(["TTWW", "LTWW"])
    'agrees'
    >>> verdict(["TTTTLTTT", "LLTTTTTT"])  # figure 8 on SDSC-BLUE: ties when ample are not wins
    'disagrees'
    >>> verdict(["TTWTTT", "WTTTTT"])  # wins while scarce, ties when ample
    'partly'
    >>> verdict(["WWWTTWWW"])  # ties between wins
    'partly'
    >>> verdict(["TTTT", "TT"])
    'no difference detected'
    >>> verdict(["TTW", "TWL"])  # a series that ends in a loss
    'disagrees'
    """
    wins = sum(p.count("W") for p in patterns)
    losses = sum(p.count("L") for p in patterns)
    good = sum(1 for p in patterns if p.lstrip("LT") != "" and p.lstrip("LT").strip("W") == "")
    if not patterns or wins + losses == 0:
        return "no difference detected"
    if good == len(patterns):
        return "agrees"
    if any(p.endswith("L") for p in patterns) or wins == 0:
        return "disagrees"
    return "partly"


def print_verdicts(points, others, x, by):
    """Prints the better-when-ample verdict of the paired points, overall
    and per value of by: each series is one setting of the parameters
    other than x and by's, ordered by x."""
    series = {}
    order = []
    for setting, point in points:
        if point not in ("win", "loss", "tie"):
            continue
        key = tuple((p, setting[p]) for p in others if p != x)
        if key not in series:
            series[key] = []
            order.append(key)
        series[key].append((float(setting[x]), point[0].upper()))
    groups = [("all series", order)]
    if by:
        vals = []
        for k in order:
            v = dict(k)[by]
            if v not in vals:
                vals.append(v)
        groups += [("%s=%s" % (by, v.rsplit("/", 1)[-1]), [k for k in order if dict(k)[by] == v]) for v in vals]
    print("\nVerdict (better when ample, along %s; rule of experiment/claims.go on the paired points):\n" % x)
    print("| series | along %s | verdict |" % x)
    print("|---|---|---|")
    for name, keys in groups:
        pats = []
        for k in keys:
            pts = sorted(series[k])
            pats.append("".join(c for _, c in pts))
        desc = "; ".join("%s: %s" % (", ".join("%s=%s" % (p, v.rsplit("/", 1)[-1]) for p, v in k if p != by or name == "all series"), pat)
                         for k, pat in zip(keys, pats))
        print("| %s | %s | %s |" % (name, desc, verdict(pats)))


def regime(rs):
    """scarce (mean wait W >= mean run time R = response - wait), ample
    (W <= 0.05 R) or between, from the runs' means."""
    wait, _ = ci([float(r["mean_wait"]) for r in rs if r.get("mean_wait", "") != ""])
    resp, _ = ci([float(r["mean_response"]) for r in rs if r.get("mean_response", "") != ""])
    run = resp - wait
    if math.isnan(wait) or math.isnan(run):
        return "–"
    return "scarce" if wait >= run else ("ample" if wait <= 0.05 * run else "between")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs")
    ap.add_argument("--param")
    ap.add_argument("--better")
    ap.add_argument("--worse")
    ap.add_argument("--metric")
    ap.add_argument("--list", help="comma-separated metrics: list every configuration")
    ap.add_argument("--lower-is-better", action="store_true")
    ap.add_argument("--regime", action="store_true")
    ap.add_argument("--verdict", metavar="X", help="numeric parameter along which to give the better-when-ample verdict of the paired points")
    ap.add_argument("--by", default="", help="with --verdict: also give the verdict per value of this parameter")
    ap.add_argument("--sort", default="", help="comma-separated parameters to order the rows by: numerically where the values are numbers, else by first appearance (default: the order of first appearance, e.g. of concatenated exports)")
    ap.add_argument("--show", default="", help="comma-separated parameters to name the setting by (default: all others); paths are shown by their base name")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.runs, newline="")))
    if not rows:
        sys.exit("%s: no runs" % a.runs)
    metric_cols = set()
    # Parameter columns: those between config_id and replication.
    cols = list(rows[0].keys())
    params = cols[cols.index("config_id") + 1:cols.index("replication")]
    if a.list:
        ms = a.list.split(",")
        extra = ["regime"] if a.regime else []
        print("| " + " | ".join(params + ms + extra) + " |")
        print("|" + "---|" * (len(params) + len(ms) + len(extra)))
        seen = {}
        for r in rows:
            seen.setdefault(r["config_id"], []).append(r)
        ns = set()
        for cid, rs in seen.items():
            ns.add(len(rs))
            cells = [rs[0][p].rsplit("/", 1)[-1] for p in params]
            for m in ms:
                mean, hw = ci([float(r[m]) for r in rs if r[m] != ""])
                cells.append("%s ± %s" % (fmt(mean), fmt(hw)))
            if a.regime:
                cells.append(regime([r for r in rs]))
            print("| " + " | ".join(cells) + " |")
        print("\n(n = %s replications per configuration; ± = 95%% CI half-width)" % nrange(ns))
        return
    if not (a.param and a.better and a.worse and a.metric):
        sys.exit("need --param, --better, --worse and --metric (or --list)")
    if a.param not in params:
        sys.exit("%s: no parameter %r (have %s)" % (a.runs, a.param, ", ".join(params)))
    others = [p for p in params if p != a.param]
    if a.verdict and a.verdict not in others:
        sys.exit("--verdict: %r is not a parameter other than %s (have %s)" % (a.verdict, a.param, ", ".join(others)))
    if a.by and a.by not in others:
        sys.exit("--by: %r is not a parameter other than %s (have %s)" % (a.by, a.param, ", ".join(others)))
    if a.better == "*" and a.verdict:
        sys.exit("--verdict needs one --better value, not *")
    groups = {}
    order = []
    values = []
    for r in rows:
        if r[a.param] not in values:
            values.append(r[a.param])
        key = tuple(r[p] for p in others)
        if key not in groups:
            groups[key] = {}
            order.append(key)
        groups[key].setdefault(r[a.param], {})[r["replication"]] = r

    def num(r, m):
        v = r.get(m, "")
        return float(v) if v not in ("", None) else float("nan")

    if a.sort:
        keys = a.sort.split(",")
        for p in keys:
            if p not in others:
                sys.exit("--sort: %r is not a parameter other than %s (have %s)" % (p, a.param, ", ".join(others)))
        first = {}
        for k in order:
            for p, v in zip(others, k):
                first.setdefault((p, v), len(first))

        def rank(k):
            out = []
            for p in keys:
                v = k[others.index(p)]
                try:
                    out.append((0, float(v)))
                except ValueError:
                    out.append((1, first[(p, v)]))
            return out
        order.sort(key=rank)

    head = ["setting"]
    if a.regime:
        head += ["mean wait (%s)" % a.worse, "mean response (%s)" % a.worse, "regime"]
    bettervals = [v for v in values if v != a.worse] if a.better == "*" else [a.better]
    head += ["%s %s" % (a.metric, a.worse), "%s %s" % (a.metric, a.better if a.better != "*" else "(" + a.param + ")"), "relative effect", "point"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    ns = set()
    points = []
    for key, bv in [(k, v) for k in order for v in bettervals]:
        g = groups[key]
        if bv not in g or a.worse not in g:
            continue
        b, w = g[bv], g[a.worse]
        reps = sorted(set(b) & set(w), key=int)
        ns.add(len(reps))
        bm = [num(b[k], a.metric) for k in reps]
        wm = [num(w[k], a.metric) for k in reps]
        rel = [(x - y) / y for x, y in zip(bm, wm) if y != 0 and not math.isnan(x) and not math.isnan(y)]
        mb, hb = ci(bm)
        mw, hw = ci(wm)
        mr, hr = ci(rel)
        sign = -1 if a.lower_is_better else 1
        if math.isnan(hr):
            point = "n = 1"
        elif mr * sign - hr > 0:
            point = "win"
        elif mr * sign + hr < 0:
            point = "loss"
        else:
            point = "tie"
        shown = a.show.split(",") if a.show else others
        setting = ", ".join("%s=%s" % (p, v.rsplit("/", 1)[-1]) for p, v in zip(others, key) if p in shown)
        if a.better == "*":
            setting = ", ".join(x for x in [setting, "%s=%s" % (a.param, bv)] if x)
        line = [setting]
        if a.regime:
            wait, _ = ci([num(w[k], "mean_wait") for k in reps])
            resp, _ = ci([num(w[k], "mean_response") for k in reps])
            line += [fmt(wait), fmt(resp), regime([w[k] for k in reps])]
        line += ["%s ± %s" % (fmt(mw), fmt(hw)), "%s ± %s" % (fmt(mb), fmt(hb)), fmt_effect(mr, hr), point]
        print("| " + " | ".join(line) + " |")
        points.append((dict(zip(others, key)), point))
    print("\n(n = %s replications per point; ± = 95%% CI half-width; relative effect = (%s − %s) / %s per replication)"
          % (nrange(ns), a.better if a.better != "*" else a.param, a.worse, a.worse))
    if a.verdict:
        print_verdicts(points, others, a.verdict, a.by)


if __name__ == "__main__":
    main()
