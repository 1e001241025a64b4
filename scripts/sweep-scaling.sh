#!/usr/bin/env bash
# Target 5 of issue 19: how a sweep of 1,000 small runs scales from 1 to 2
# workers (BenchmarkSweepScaling in package experiment).
#
#   scripts/sweep-scaling.sh REPS LABEL=TESTBINARY [LABEL=TESTBINARY ...]
#
# TESTBINARY is `go test -c -o FILE ./experiment` of the code to measure.
# Runs workers-1 and workers-2 of every binary REPS times, interleaved
# (so the machine's load drifts over both sides alike), and prints
# benchstat lines, the label as the last name element, plus the load
# average before each round as a comment:
#   BenchmarkSweepScaling/workers-1/LABEL 1 <ns> ns/op <r> runs/s <c> cpu-s/op
set -euo pipefail
reps=$1
shift
for ((r = 0; r < reps; r++)); do
	echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
	for lb in "$@"; do
		label=${lb%%=*} bin=${lb#*=}
		for w in 1 2; do
			"$bin" -test.run '^$' -test.bench "^BenchmarkSweepScaling\$/^workers-$w\$" -test.benchtime 1x |
				awk -v l="$label" '/^BenchmarkSweepScaling/ { sub(/-[0-9]+$/, "", $1); $1 = $1 "/" l; print }'
		done
	done
done
