#!/usr/bin/env bash
# Conservative backfilling against EASY on every shared trace (issue 30, target 2):
#
#   scripts/cons-easy-bench.sh GRIDSCHED_BINARY REPS
#
# For each trace (the shared .swf.gz files, without output, GOMAXPROCS=1), REPS rounds of
# an EASY run then a conservative run, each timed as CPU time (user + sys; /usr/bin/time
# counts in 10 ms steps); prints per trace the median CPU time of each policy and the
# ratio of the medians, measured in the same interleaved series.
set -euo pipefail
bin=$1 reps=$2
traces=${GRIDSCHED_TRACES:-../shared/traces}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cpu() { GOMAXPROCS=1 /usr/bin/time -o "$tmp" -f "%U %S" "$bin" "$@" >/dev/null && awk '{ print $1 + $2 }' "$tmp"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '| trace | EASY CPU (median of %d) | conservative CPU | conservative / EASY |\n|---|---:|---:|---:|\n' "$reps"
for f in CEA-Curie-2011-2.1-cln HPC2N-2002-2.2-cln LANL-CM5-1994-4.1-cln LLNL-Atlas-2006-2.1-cln \
	LPC-EGEE-2004-1.2-cln OSC-Clust-2000-3.1-cln SDSC-BLUE-2000-4.2-cln SDSC-DS-2004-2.1-cln \
	SDSC-Par-1996-3.1-cln SDSC-SP2-1998-4.2-cln; do
	e=() c=()
	for ((r = 0; r < reps; r++)); do
		e+=("$(cpu simulate --workload "$traces/$f.swf.gz" --policy easy --quiet)")
		c+=("$(cpu simulate --workload "$traces/$f.swf.gz" --policy conservative --quiet)")
	done
	me=$(printf '%s\n' "${e[@]}" | median) mc=$(printf '%s\n' "${c[@]}" | median)
	awk -v f="$f" -v e="$me" -v c="$mc" 'BEGIN { printf "| %s | %.2f s | %.2f s | %.2f× |\n", f, e, c, c / e }'
done
