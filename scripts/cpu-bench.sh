#!/usr/bin/env bash
# CPU time (user + sys) and peak RSS of whole gridsched runs, in benchstat's
# format, for machines too loaded for wall-clock times (issue 19).
#
#   scripts/cpu-bench.sh REPS NAME LABEL=BINARY [LABEL=BINARY ...] -- ARGS...
#
# runs every BINARY with ARGS, REPS times, interleaved (a, b, a, b, ...),
# with GOMAXPROCS=1, and prints one line per run:
#   BenchmarkCPU/NAME/LABEL 1 <ns> ns/op <bytes> peak-B
# Collect the lines of several calls in a file per label and compare them
# with benchstat, or read them directly.
set -euo pipefail
reps=$1 name=$2
shift 2
bins=()
while [ "$1" != "--" ]; do bins+=("$1"); shift; done
shift
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for ((r = 0; r < reps; r++)); do
	for lb in "${bins[@]}"; do
		label=${lb%%=*} bin=${lb#*=}
		GOMAXPROCS=1 /usr/bin/time -o "$tmp" -f "%U %S %M" "$bin" "$@" >/dev/null
		read -r u s m <"$tmp"
		awk -v n="$name" -v l="$label" -v u="$u" -v s="$s" -v m="$m" \
			'BEGIN { printf "BenchmarkCPU/%s/%s 1 %.0f ns/op %d peak-B\n", n, l, (u + s) * 1e9, m * 1024 }'
	done
done
