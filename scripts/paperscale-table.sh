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
