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
--regime, each configuration's regime too).

Prints a Markdown table. Standard library only.
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
        for cid, rs in seen.items():
            cells = [rs[0][p].rsplit("/", 1)[-1] for p in params]
            for m in ms:
                mean, hw = ci([float(r[m]) for r in rs if r[m] != ""])
                cells.append("%s ± %s" % (fmt(mean), fmt(hw)))
            if a.regime:
                cells.append(regime([r for r in rs]))
            print("| " + " | ".join(cells) + " |")
        print("\n(n = %d replications per configuration; ± = 95%% CI half-width)" % len(rs))
        return
    if not (a.param and a.better and a.worse and a.metric):
        sys.exit("need --param, --better, --worse and --metric (or --list)")
    if a.param not in params:
        sys.exit("%s: no parameter %r (have %s)" % (a.runs, a.param, ", ".join(params)))
    others = [p for p in params if p != a.param]
    groups = {}
    order = []
    for r in rows:
        key = tuple(r[p] for p in others)
        if key not in groups:
            groups[key] = {}
            order.append(key)
        groups[key].setdefault(r[a.param], {})[r["replication"]] = r

    def num(r, m):
        v = r.get(m, "")
        return float(v) if v not in ("", None) else float("nan")

    head = ["setting"]
    if a.regime:
        head += ["mean wait (%s)" % a.worse, "mean response (%s)" % a.worse, "regime"]
    head += ["%s %s" % (a.metric, a.worse), "%s %s" % (a.metric, a.better), "relative effect", "point"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    ns = set()
    for key in order:
        g = groups[key]
        if a.better not in g or a.worse not in g:
            continue
        b, w = g[a.better], g[a.worse]
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
        line = [setting]
        if a.regime:
            wait, _ = ci([num(w[k], "mean_wait") for k in reps])
            resp, _ = ci([num(w[k], "mean_response") for k in reps])
            line += [fmt(wait), fmt(resp), regime([w[k] for k in reps])]
        line += ["%s ± %s" % (fmt(mw), fmt(hw)), "%s ± %s" % (fmt(mb), fmt(hb)),
                 "%+.2f%% ± %.2f%%" % (100 * mr, 100 * hr) if not math.isnan(hr) else "%+.2f%%" % (100 * mr), point]
        print("| " + " | ".join(line) + " |")
    nr = "%d" % min(ns) if len(ns) == 1 else "%d–%d" % (min(ns), max(ns))
    print("\n(n = %s replications per point; ± = 95%% CI half-width; relative effect = (%s − %s) / %s per replication)"
          % (nr, a.better, a.worse, a.worse))


if __name__ == "__main__":
    main()
