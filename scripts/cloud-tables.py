#!/usr/bin/env python3
"""Seed 003 tables for docs/cloud.md, generated from result stores' exports.

Usage: scripts/cloud-tables.py DIR [DIR...]
Each DIR holds one experiment's aggregate.csv (as `gridsched run` or
`gridsched reproduce` write it: results/reproduce-paper/cloud-gang-cpe, ...);
the experiment is told by the folder's name (cloud-gang-cpe, -q25, -q50,
-q75, -pool, -monitor, -rules, -params; a suffix after the name is allowed).
The paper's numbers come from the spec's `references:` in
experiment/catalog. Prints Markdown on stdout; nothing is typed by hand.
"""
import csv, math, os, re, sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(d):
    rows = list(csv.DictReader(open(os.path.join(d, "aggregate.csv"))))
    for r in rows:
        r["mean"] = float(r["mean"]) if r["mean"] else math.nan
        r["hw"] = float(r["ci95_halfwidth"]) if r["ci95_halfwidth"] else math.nan
        r["n"] = int(r["n"])
    return rows


def refs(name):
    """The paper's table-1 values from the spec's references (a light YAML read)."""
    out = {}
    pat = re.compile(r"q: ([\d.]+), workload.params.lambda: ([\d.]+), cloud.migration: ([\w-]+), cloud.xfactor: (\d+)\}, metric: cpe, value: ([-\d.e]+)")
    for line in open(os.path.join(ROOT, "experiment", "catalog", name + ".yaml")):
        m = pat.search(line)
        if m:
            out[(float(m[1]), float(m[2]), m[3], int(m[4]))] = float(m[5])
    return out


def f(x, d=4):
    return "—" if x is None or math.isnan(x) else f"{x:+.{d}f}"


def verdict(mean, hw, paper):
    if math.isnan(mean):
        return "no data"
    if abs(mean) <= hw:
        return "tie (CI spans 0)"
    if (mean > 0) != (paper > 0):
        return "opposite sign"
    r = abs(mean) / abs(paper) if paper else math.inf
    return "agrees" if 1 / 3 <= r <= 3 else f"same sign, {r:.2g}× the size"


def cpe_table(d):
    rows = load(d)
    ref = refs("cloud-gang-cpe")
    cell = {}
    for r in rows:
        if r["metric"] == "cpe":
            cell[(float(r["workload.params.q"]), float(r["workload.params.lambda"]), r["cloud.migration"], int(float(r["cloud.xfactor"])))] = r
    cols = [("first-fit", 10), ("best-fit", 10), ("first-fit", 20), ("best-fit", 20)]
    print("| q | λ | " + " | ".join(f"{m}, X = {x}" for m, x in cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    counts = defaultdict(int)
    n = None
    for key in sorted({(k[0], k[1]) for k in ref}):
        if not any((key[0], key[1], m, x) in cell for m, x in cols):
            continue  # a run of part of the table
        out = []
        for m, x in cols:
            k = (key[0], key[1], m, x)
            p = ref[k]
            r = cell.get(k)
            if r is None:
                out.append(f"— / {p:+.4f}")
                continue
            n = r["n"]
            v = verdict(r["mean"], r["hw"], p)
            counts[v.split(",")[0]] += 1
            out.append(f"{f(r['mean'])} ± {r['hw']:.4f} / {p:+.4f} ({v})")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(out) + " |")
    print()
    print(f"Cells: {sum(counts.values())}; " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + f" (replications per cell: {n}).")
    neg = sum(1 for v in ref.values() if v < 0)
    ours = [r for r in cell.values()]
    print(f"Paper: {neg} of {len(ref)} cells negative (AFCFS the more cost-efficient). Ours: "
          f"{sum(1 for r in ours if r['mean'] + r['hw'] < 0)} negative beyond the CI, "
          f"{sum(1 for r in ours if r['mean'] - r['hw'] > 0)} positive beyond the CI, "
          f"{sum(1 for r in ours if abs(r['mean']) <= r['hw'])} ties; largest |CPE| "
          f"{max(abs(r['mean']) for r in ours):.4f} (paper {max(abs(v) for v in ref.values()):.4f}).")


def series(rows, metric):
    s = defaultdict(dict)
    for r in rows:
        if r["metric"] != metric:
            continue
        key = tuple((k, r[k]) for k in sorted(r) if k.startswith("cloud.") or k == "policy")
        s[key][float(r["workload.params.lambda"])] = r
    return s


def figs(d, q):
    rows = load(d)
    print(f"**q = {q}** — mean response time (h) at the lowest and highest λ, and the trend:")
    print()
    print("| series | RT at λ_min | RT at λ_max | change | verdict (paper: rises) |")
    print("|---|---:|---:|---:|---|")
    for key, pts in sorted(series(rows, "mean_response").items()):
        lo, hi = pts[min(pts)], pts[max(pts)]
        diff = hi["mean"] - lo["mean"]
        hw = math.hypot(hi["hw"], lo["hw"])
        v = "rises" if diff > hw else "falls" if diff < -hw else "flat (within CIs)"
        name = ", ".join(f"{k.split('.')[-1]} {val}" for k, val in key)
        print(f"| {name} | {lo['mean']:.3f} ± {lo['hw']:.3f} | {hi['mean']:.3f} ± {hi['hw']:.3f} | {diff / lo['mean'] * 100:+.1f}% | {v} |")
    print()
    print("Migrations, XFactor 20 against 10 (paper: fewer, up to −40% for p = 0.5 and 0.75):")
    print()
    print("| series | λ | X = 10 | X = 20 | change | verdict |")
    print("|---|---:|---:|---:|---:|---|")
    mig = [r for r in rows if r["metric"] == "migrations"]
    by = {}
    for r in mig:
        by[(r["policy"], r["cloud.migration"], float(r["workload.params.lambda"]), int(float(r["cloud.xfactor"])))] = r
    for (pol, m, lam, x), a in sorted(by.items()):
        if x != 10 or (pol, m, lam, 20) not in by:
            continue
        b = by[(pol, m, lam, 20)]
        diff = b["mean"] - a["mean"]
        hw = math.hypot(a["hw"], b["hw"])
        v = "fewer" if diff < -hw else "more" if diff > hw else "tie"
        print(f"| {pol}, {m} | {lam} | {a['mean']:.0f} ± {a['hw']:.0f} | {b['mean']:.0f} ± {b['hw']:.0f} | {diff / a['mean'] * 100:+.1f}% | {v} |")
    print()


def precision(d):
    rows = load(d)
    worst = defaultdict(float)
    absw = defaultdict(float)
    for r in rows:
        if r["n"] >= 2 and not math.isnan(r["hw"]):
            if r["metric"].startswith("cpe"):
                # Near zero by design: a relative width means nothing.
                absw[r["metric"]] = max(absw[r["metric"]], r["hw"])
            elif r["mean"]:
                worst[r["metric"]] = max(worst[r["metric"]], r["hw"] / abs(r["mean"]))
    reps = sorted({r["n"] for r in rows})
    print(f"Precision in {os.path.basename(d)} (replications {reps[0]}–{reps[-1]}): the largest 95% CI half-width relative to the mean, per metric: "
          + ", ".join(f"{m} {v * 100:.1f}%" for m, v in sorted(worst.items()))
          + "".join(f"; {m}: largest absolute half-width {v:.4f}" for m, v in sorted(absw.items())) + ".")
    print()


def sweep(d, metrics):
    rows = load(d)
    keys = [k for k in rows[0] if k.startswith(("cloud.", "workload.params.")) or k == "policy"]
    vary = [k for k in keys if len({r[k] for r in rows}) > 1]
    tab = defaultdict(dict)
    for r in rows:
        tab[tuple(r[k] for k in vary)][r["metric"]] = r
    print("| " + " | ".join(k.split(".")[-1] for k in vary) + " | " + " | ".join(metrics) + " |")
    print("|" + "---|" * len(vary) + "---:|" * len(metrics))
    for key in sorted(tab, key=lambda k: tuple(float(x) if re.fullmatch(r"[-\d.e]+", x) else x for x in k)):
        cells = []
        for m in metrics:
            r = tab[key].get(m)
            if r is None or math.isnan(r["mean"]):
                cells.append("—")
            elif abs(r["mean"]) < 1:
                cells.append(f"{r['mean']:+.4f} ± {r['hw']:.4f}")
            else:
                cells.append(f"{r['mean']:.4g} ± {r['hw']:.2g}")
        print("| " + " | ".join(key) + " | " + " | ".join(cells) + " |")
    print()


def xfactor_effect(d):
    """XFactor 20 against 10, per monitor reading: migrations and mean response."""
    rows = load(d)
    by = {}
    for r in rows:
        by[(r["cloud.monitor"], int(r["cloud.monitor_limit"]), r["workload.params.q"], int(float(r["cloud.xfactor"])), r["metric"])] = r
    print("XFactor 20 against 10 (paper: up to −40% migrations, response times as good; CIs treated as independent):")
    print()
    print("| monitor | limit | q | migrations X = 10 → 20 | change | mean response change |")
    print("|---|---:|---|---:|---:|---:|")
    for (mon, lim, q, x, m), a in sorted(by.items()):
        if x != 10 or m != "migrations":
            continue
        b = by[(mon, lim, q, 20, m)]
        ra, rb = by[(mon, lim, q, 10, "mean_response")], by[(mon, lim, q, 20, "mean_response")]
        diff, hw = b["mean"] - a["mean"], math.hypot(a["hw"], b["hw"])
        v = " (tie)" if abs(diff) <= hw else ""
        rd, rhw = rb["mean"] - ra["mean"], math.hypot(ra["hw"], rb["hw"])
        rv = " (tie)" if abs(rd) <= rhw else ""
        print(f"| {mon} | {lim} | {q} | {a['mean']:.0f} → {b['mean']:.0f} | {diff / a['mean'] * 100:+.1f}%{v} | {rd / ra['mean'] * 100:+.1f}%{rv} |")
    print()


for d in sys.argv[1:]:
    name = os.path.basename(os.path.normpath(d))
    print(f"<!-- generated by scripts/cloud-tables.py from {name}/aggregate.csv -->")
    print()
    if "cpe" in name:
        cpe_table(d)
        print()
        precision(d)
    elif re.search(r"q(25|50|75)", name):
        figs(d, {"25": 0.25, "50": 0.5, "75": 0.75}[re.search(r"q(25|50|75)", name)[1]])
        precision(d)
    elif "pool" in name:
        sweep(d, ["mean_response", "cpe", "cpe_lt", "cpe_rt", "migrations", "max_vms", "vms_leased"])
    elif "monitor" in name:
        sweep(d, ["migrations", "tasks_migrated", "mean_response", "mean_bsld", "starved"])
        xfactor_effect(d)
    elif "rules" in name:
        sweep(d, ["mean_response", "mean_bsld", "lease_time", "cost", "migrations", "vms_leased", "starved_dispatcher", "paused_dispatcher", "cpe"])
    else:
        sweep(d, ["mean_response", "migrations", "lease_time", "max_vms", "cpe"])
