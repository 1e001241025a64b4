#!/usr/bin/env bash
# The paper-scale reproduction's CPU time, per experiment (issue 30):
#
#   scripts/paperscale-cpu.sh BINARY OUT [NAME...]   run, then print the table
#   scripts/paperscale-cpu.sh --table OUT            print the table of earlier runs
#
# runs `BINARY reproduce NAME --out OUT --quiet` once per built-in experiment (every one
# `BINARY experiments list` prints, or the NAMEs), each as its own process under
# /usr/bin/time -v with its log in OUT/logs/NAME.log, so each experiment's CPU time
# (user + sys) is measured whole; then scripts/measured-runs.py turns the logs and the
# stores they wrote (OUT/NAME/store.db) into a Markdown table: runs, CPU, wall time, the
# share of a core the run got, peak RSS. A name that prefixes other experiments' names
# with a dash (policy-catalogue, easy-unstable-fig89) makes reproduce run them too, so
# such names run after the others: their family members' stores are then finished and
# only re-read for the report. An experiment whose log exists is not run again (remove
# the log to re-measure it; an experiment without a log starts afresh, its partial store
# removed, so every logged CPU time is a whole run). Run it with `nice -n 5` on a shared
# machine; CPU time, not wall time, is the number to compare.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "--table" ]; then
	out=$(cd "$2" && pwd)
	exec python3 "$here/measured-runs.py" "$out"/logs/*.log
fi
if [ $# -lt 2 ]; then
	echo "usage: $0 BINARY OUT [NAME...] | $0 --table OUT" >&2
	exit 2
fi
bin=$(realpath "$1")
mkdir -p "$2/logs"
out=$(cd "$2" && pwd)
shift 2
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	mapfile -t names < <("$bin" experiments list | awk '{ print $1 }')
fi
# Family names last (see above).
first=() last=()
for n in "${names[@]}"; do
	family=
	for m in "${names[@]}"; do
		[[ $m == "$n"-* ]] && family=1
	done
	if [ -n "$family" ]; then last+=("$n"); else first+=("$n"); fi
done
names=("${first[@]}" "${last[@]}")
for n in "${names[@]}"; do
	log="$out/logs/$n.log"
	[ -s "$log" ] && continue
	# A run stopped part-way left a store that reproduce would resume: its CPU time
	# would then be only the rest. Start such an experiment afresh.
	rm -rf -- "${out:?}/$n" "$out/logs/$n.out" "$log.tmp"
	/usr/bin/time -v -o "$log.tmp" "$bin" reproduce "$n" --out "$out" --quiet >"$out/logs/$n.out" 2>&1
	mv "$log.tmp" "$log"
done
python3 "$here/measured-runs.py" "$out"/logs/*.log
