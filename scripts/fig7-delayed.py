#!/usr/bin/env python3
"""Seed 002, figure 7's mechanism: which jobs the published instability
process delays, as the unstable tenth's stability p changes.

Builds figure 7's platform (96 nodes of PES processors, MIPS 377; 10 nodes
unstable with stability p and delay 5, the other 86 stable), runs
`gridsched simulate` on SDSC-Par-1996 under EASY with node selection u
(whole nodes, overrun extend, the published process) for every p given and
for p = 1 (every node stable: each job's execution time is its length), and
counts the jobs whose execution time exceeds 1.5 times their stable length
(delayed; the smallest delay is d = 5, six-fold): overall, among the long
jobs (the top decile of stable length), among the jobs that ran on one of
the unstable nodes, and among the long jobs that did. Prints a Markdown
table, one row per p and seed. Standard library only.

Which 10 nodes are unstable matters, because u breaks ties by the lower
node index: the experiment (easy-unstable-fig7) draws them per replication
from the run's seed; here they are drawn per seed by Python's random
(random.Random(seed).sample), the same in every p of a seed, so the
distribution matches the experiment's but not its draws. --first puts
them at indices 0-9 instead (the review's probe: u meets them first).

  scripts/fig7-delayed.py GRIDSCHED [--pes 4] [--p 0,0.9] [--seeds 5] [--first]

GRIDSCHED is the binary (go build -o gs ./cmd/gridsched); the traces come
from GRIDSCHED_TRACES (default ../shared/traces). The runs go to a
temporary folder that is removed at the end.
(First written as the session-6 review's probe, probes/review16/delayed.py.)
"""
import argparse
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile

NODES, UNSTABLE = 96, 10  # figure 7: the unstable tenth of 96 nodes


def platform(path, pes, p, unstable):
    """Writes the platform: node i unstable (stability p, delay 5) when i
    is in unstable, stable otherwise; one group per node keeps the order."""
    with open(path, "w") as f:
        f.write("name: fig7-%gpe-p%g\ngroups:\n" % (pes, p))
        for i in range(NODES):
            q = p if i in unstable else 1
            f.write("  - {count: 1, prefix: n%02d-, pes: %d, mips: 377, stability: %g, delay: 5}\n" % (i, pes, q))


def simulate(gs, trace, plat, seed, out):
    cmd = [gs, "simulate", "--workload", trace, "--platform", plat, "--instability", "published",
           "--node-select", "u", "--whole-nodes", "--overrun", "extend", "--seed", str(seed), "--quiet", "--out", out]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "jobs.csv"), newline="") as f:
        return {r["job_id"]: r for r in csv.DictReader(f)}


def nodes(s):
    out = []
    for part in s.split():
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def share(k, n):
    return "%d / %d (%.1f%%)" % (k, n, 100.0 * k / n) if n else "0 / 0"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gridsched")
    ap.add_argument("--pes", type=int, default=4)
    ap.add_argument("--p", default="0,0.9")
    ap.add_argument("--seeds", default="5", help="comma-separated run seeds")
    ap.add_argument("--first", action="store_true", help="the unstable nodes at indices 0-9 instead of drawn per seed")
    a = ap.parse_args()
    traces = os.environ.get("GRIDSCHED_TRACES", "../shared/traces")
    trace = os.path.join(traces, "SDSC-Par-1996-3.1-cln.swf.gz")
    if not os.path.exists(trace):
        sys.exit("%s: no such trace (set GRIDSCHED_TRACES)" % trace)
    tmp = tempfile.mkdtemp(prefix="fig7-delayed-")
    try:
        print("| p | seed | makespan (s) | jobs delayed | long jobs delayed | jobs on unstable nodes delayed | long jobs on unstable nodes delayed |")
        print("|---|---|---|---|---|---|---|")
        for seed in [int(s) for s in a.seeds.split(",")]:
            unstable = set(range(UNSTABLE)) if a.first else set(random.Random(seed).sample(range(NODES), UNSTABLE))
            platform(os.path.join(tmp, "p1.yaml"), a.pes, 1, unstable)
            base = simulate(a.gridsched, trace, os.path.join(tmp, "p1.yaml"), seed, os.path.join(tmp, "p1-%d" % seed))
            lens = sorted(float(r["execution_time"]) for r in base.values())
            cut = lens[int(0.9 * len(lens))]
            for p in [float(x) for x in a.p.split(",")]:
                plat = os.path.join(tmp, "p%g.yaml" % p)
                platform(plat, a.pes, p, unstable)
                run = simulate(a.gridsched, trace, plat, seed, os.path.join(tmp, "p%g-%d" % (p, seed)))
                tot = dl = lg = lgd = on = ond = lgon = lgond = 0
                end = 0.0
                for k, r in run.items():
                    length = float(base[k]["execution_time"])
                    d = length > 0 and float(r["execution_time"]) > 1.5 * length
                    u = any(n in unstable for n in nodes(r["allocated_resources"]))
                    end = max(end, float(r["finish_time"]))
                    tot += 1
                    dl += d
                    if length >= cut:
                        lg += 1
                        lgd += d
                        if u:
                            lgon += 1
                            lgond += d
                    if u:
                        on += 1
                        ond += d
                print("| %g | %d | %.4g | %s | %s | %s | %s |" % (p, seed, end, share(dl, tot), share(lgd, lg), share(ond, on), share(lgond, lgon)))
        print("\n(%d-PE nodes, unstable nodes %s; long = stable length >= the top decile's bound; delayed = execution time > 1.5 x stable length)"
              % (a.pes, "at indices 0-9" if a.first else "drawn per seed"))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
