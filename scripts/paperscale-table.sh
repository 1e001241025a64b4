#!/usr/bin/env bash
# Issue 19, target 6: the paper-scale reproduction table of BENCHMARKS.md
# from the lines TestPaperScaleEstimate (package experiment) prints:
#   scripts/paperscale-table.sh bench/issue19-s5-paperscale.tsv
# Wall time on this machine's 2 cores is estimated as CPU / 2 (two
# workers, both cores busy); the total is in hours.
set -euo pipefail
awk -F'\t' '
NR == 1 { next }
/^#/ { next }
{
	frac = 100 * $4 / $3
	wall = $6 / 2
	tot += $6; totw += wall; totmin += $7
	est = sprintf("%.0f s", $6)
	if ($6 != $7) est = sprintf("%.0f–%.0f s", $7, $6)
	w = (wall >= 3600) ? sprintf("%.1f h", wall / 3600) : (wall >= 60) ? sprintf("%.0f min", wall / 60) : sprintf("%.0f s", wall)
	rows[NR] = sprintf("| %s | %d | %d | %d (%.1f %%) | %.3f s | %s | %s |", $1, $2, $3, $4, frac, $5, est, w)
	n = NR
}
END {
	print "| experiment | configurations | runs (paper scale) | sampled runs | CPU per run | CPU, estimated | wall on 2 cores, estimated |"
	print "|---|---:|---:|---:|---:|---:|---:|"
	for (i = 2; i <= n; i++) if (i in rows) print rows[i]
	printf("| **all** | | | | | %.1f–%.1f h | %.1f h |\n", totmin / 3600, tot / 3600, totw / 3600)
}' "$1"

# With a second argument (lines "NAME W s wall U user S sys M KB" from
# /usr/bin/time around whole `gridsched reproduce NAME` runs), a table
# checking the estimates against whole runs.
if [ $# -ge 2 ]; then
	echo
	echo "| experiment | CPU, estimated | CPU of the whole run | whole / estimated | wall of the whole run (load) |"
	echo "|---|---:|---:|---:|---:|"
	awk -F'\t' 'FNR == NR { if (FNR > 1 && $1 !~ /^#/) { lo[$1] = $7; hi[$1] = $6 }; next }
	/^# / { load[$2] = $NF; next }
	$3 == "s" && $4 == "wall" {
		cpu = $5 + $7
		est = (lo[$1] == hi[$1]) ? sprintf("%.0f s", hi[$1]) : sprintf("%.0f–%.0f s", lo[$1], hi[$1])
		r = (lo[$1] == hi[$1]) ? sprintf("%.1f×", cpu / hi[$1]) : sprintf("%.1f–%.1f×", cpu / hi[$1], cpu / lo[$1])
		l = ($1 in load) ? load[$1] : "14"
		printf("| %s | %s | %.0f s | %s | %.0f s (%s) |\n", $1, est, cpu, r, $2, l)
	}' "$1" FS=' ' "$2"
fi
