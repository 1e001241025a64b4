#!/usr/bin/env python3
"""Compare the runs two `gridsched reproduce` output folders hold.

    scripts/compare-stores.py OLD NEW

Reads every OLD/NAME/store.db and NEW/NAME/store.db (read-only), matches runs by
(experiment, parameters, replication, seed) and compares every metric both record,
exactly (as stored). An old run with no exact match is then matched with the new
runs of its experiment, replication and seed whose parameters include all of its own
(a parameter added since, at its default): it agrees if one of them agrees in every
metric both record. Prints the runs in common, how many agree, the runs matched by
included parameters and how many agree, and each experiment whose runs differ or that
has no run in common. Exit status 1 if any matched run differs. Used to show that a change left results unchanged across code versions whose
output folders differ in layout (the stores' runs table has been stable).
"""
import glob
import json
import os
import sqlite3
import sys


def load(folder):
    runs = {}
    for path in sorted(glob.glob(os.path.join(folder, "*", "store.db"))):
        name = os.path.basename(os.path.dirname(path))
        db = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
        try:
            for params, rep, seed, metrics in db.execute(
                    "select params, replication, seed, metrics from runs"):
                runs[(name, params, rep, seed)] = json.loads(metrics)
        finally:
            db.close()
    return runs


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare-stores.py OLD NEW")
    old, new = load(sys.argv[1]), load(sys.argv[2])
    common = sorted(set(old) & set(new))
    differ = {}
    for key in common:
        a, b = old[key], new[key]
        bad = sorted(m for m in set(a) & set(b) if a[m] != b[m])
        if bad:
            differ.setdefault(key[0], []).append(bad)
    exact, exact_bad = len(common), sum(map(len, differ.values()))
    # Old runs without an exact match, against new runs with more parameters.
    by = {}
    for (name, params, rep, seed), metrics in new.items():
        by.setdefault((name, rep, seed), []).append((json.loads(params), metrics))
    wider = wider_ok = 0
    for key in sorted(set(old) - set(new)):
        name, params, rep, seed = key
        p, a = json.loads(params), old[key]
        cands = [m for q, m in by.get((name, rep, seed), [])
                 if all(k in q and q[k] == v for k, v in p.items())]
        if not cands:
            continue
        wider += 1
        if any(all(a[m] == b[m] for m in set(a) & set(b)) for b in cands):
            wider_ok += 1
            common.append(key)
        else:
            differ.setdefault(name, []).append(["(matched by included parameters)"])
    names = sorted({k[0] for k in common})
    print(f"runs: {len(old)} old, {len(new)} new, {exact} in common, {exact - exact_bad} agree "
          f"in every metric both record")
    print(f"old runs matched by included parameters: {wider}, {wider_ok} agree")
    print(f"experiments with runs in common, either way ({len(names)}): " + ", ".join(names))
    for name, bad in sorted(differ.items()):
        print(f"DIFFERS {name}: {len(bad)} runs, e.g. metrics {bad[0]}")
    for name in sorted({k[0] for k in old} - set(names)):
        print(f"no run in common (old folder): {name}")
    for name in sorted({k[0] for k in new} - set(names)):
        print(f"no run in common (new folder): {name}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
