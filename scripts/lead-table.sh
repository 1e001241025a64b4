#!/usr/bin/env bash
# The measurements behind BENCHMARKS.md's lead table (issue 19), in one go:
#
#   scripts/lead-table.sh GRIDSCHED_BINARY LABEL REPS > bench/FILE.txt
#   scripts/bench-table.py LABEL bench/jobs.tsv bench/FILE.txt
#
# For every shared trace: a parse-only pass (`workload stats --parse-only`),
# EASY and conservative without output; SDSC-SP2 and SDSC-BLUE decompressed
# to plain SWF (and a copy with requested time = run time, `.exact.swf`)
# under FCFS and EASY with --out; the built-in 1M-job workload under EASY
# with and without --out; conservative on 100,000 overloaded built-in jobs.
# CPU time (user + sys) with GOMAXPROCS=1, REPS interleaved runs each
# (scripts/cpu-bench.sh). The fixtures and outputs go to a temporary folder.
set -euo pipefail
bin=$1 label=$2 reps=$3
traces=${GRIDSCHED_TRACES:-../shared/traces}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cb() { "$here/cpu-bench.sh" "$reps" "$1" "$label=$bin" -- "${@:2}"; }
for f in CEA-Curie-2011-2.1-cln HPC2N-2002-2.2-cln LANL-CM5-1994-4.1-cln LLNL-Atlas-2006-2.1-cln \
	LPC-EGEE-2004-1.2-cln OSC-Clust-2000-3.1-cln SDSC-BLUE-2000-4.2-cln SDSC-DS-2004-2.1-cln \
	SDSC-Par-1996-3.1-cln SDSC-SP2-1998-4.2-cln; do
	p=$traces/$f.swf.gz
	cb "$f/parse" workload stats --parse-only "$p"
	cb "$f/easy" simulate --workload "$p" --policy easy
	cb "$f/conservative" simulate --workload "$p" --policy conservative
done
for f in SDSC-SP2-1998-4.2-cln SDSC-BLUE-2000-4.2-cln; do
	gzip -dc "$traces/$f.swf.gz" >"$tmp/$f.swf"
	awk '/^;/ || NF < 18 { print; next } { $9 = $4; print }' "$tmp/$f.swf" >"$tmp/$f.exact.swf"
	for v in "$f.swf" "$f.exact.swf"; do
		cb "$v/parse" workload stats --parse-only "$tmp/$v"
		for pol in fcfs easy; do
			cb "$v/$pol-out" simulate --workload "$tmp/$v" --policy "$pol" --out "$tmp/out-$pol"
			rm -rf "$tmp/out-$pol"
		done
	done
done
cb builtin1M/easy simulate --jobs 1000000 --nodes 1024 --load 0.8
cb builtin1M+out/easy simulate --jobs 1000000 --nodes 1024 --load 0.8 --out "$tmp/out1M"
cb builtin100k-load1.03/conservative simulate --jobs 100000 --nodes 1024 --load 1.03 --policy conservative
