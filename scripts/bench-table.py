#!/usr/bin/env python3
"""Markdown table from scripts/cpu-bench.sh output (issue 19, BENCHMARKS.md).

  scripts/bench-table.py LABEL JOBS.tsv FILE...

Reads lines "BenchmarkCPU/WORKLOAD/POLICY/LABEL 1 NS ns/op BYTES peak-B"
(WORKLOAD may hold slashes; POLICY is the last part but one), keeps those
of LABEL, and prints one row per WORKLOAD/POLICY with the median CPU time,
jobs per CPU second, peak resident bytes per job and, where the files
hold a WORKLOAD/parse row (a parse-only pass over the same file), the
ratio of the run to it. JOBS.tsv maps WORKLOAD to the number of jobs
simulated (tab separated)."""
import statistics
import sys


def main():
    label, jobs_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    jobs = {}
    for line in open(jobs_path):
        if line.strip() and not line.startswith("#"):
            w, n = line.split("\t")
            jobs[w] = int(n)
    runs = {}
    for path in files:
        for line in open(path):
            f = line.split()
            if len(f) < 6 or not f[0].startswith("BenchmarkCPU/"):
                continue
            parts = f[0][len("BenchmarkCPU/"):].split("/")
            if parts[-1] != label and parts[-2] != "parse":
                continue
            if parts[-2] == "parse":
                key = ("/".join(parts[:-2]), "parse")
            else:
                key = ("/".join(parts[:-2]), parts[-2])
            runs.setdefault(key, []).append((float(f[2]) / 1e9, float(f[4])))
    print("| workload | jobs | policy | CPU time | jobs/s | peak bytes/job | × parse-only |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for (w, pol), rs in runs.items():
        if pol == "parse":
            continue
        t = statistics.median(r[0] for r in rs)
        m = statistics.median(r[1] for r in rs)
        n = jobs.get(w)
        ratio = ""
        if (w, "parse") in runs:
            p = statistics.median(r[0] for r in runs[(w, "parse")])
            ratio = f"{t / p:.1f}× ({p:.2f} s)" if p > 0 else ""
        print(f"| {w} | {n:,} | {pol} | {t:.2f} s | {n / t / 1e3:,.0f} k | {m / n:,.0f} | {ratio} |" if n else
              f"| {w} | ? | {pol} | {t:.2f} s | | | {ratio} |")


main()
