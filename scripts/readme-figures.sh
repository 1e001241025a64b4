#!/bin/sh
# Regenerates the README's figures, one per seed paper: docs/figures/seedNNN.png
# (PNG at 300 dpi, 3.5 in wide: one column of a paper).
#
#   scripts/readme-figures.sh          quick scale: runs `gridsched reproduce --quick`
#                                      (minutes; it resumes whatever an earlier call
#                                      finished) into ${OUT:-results/reproduce-quick}
#                                      and copies one figure per seed.
#   scripts/readme-figures.sh STORES   from the result stores in the folder STORES, one
#                                      sub-folder per experiment as `reproduce` writes
#                                      them (for example a paper-scale reproduction):
#                                      draws them with `gridsched report` and runs
#                                      nothing; a seed whose store is not there keeps
#                                      its figure.
# (The reproduction tables under docs/reproduction/ come from `gridsched verdicts`.)
set -eu
cd "$(dirname "$0")/.."
GS=${GRIDSCHED:-go run ./cmd/gridsched}
# figure file name (without .png) and the README's name for it
FIGS="reservations-exp1-ap:seed000
hierarchical-fig2-makespan:seed001
easy-unstable-fig89-blue-mean_qos-skip-0:seed002
cloud-gang-table1-cpe:seed003
seed004-fig5-stretch:seed004"
# figure 3 of seed 000 (AP against resNumber), figure 2 of seed 001 (makespan by
# dispatcher), figure 9 of seed 002 (QoS rate, classic against improved node
# selection, SDSC-BLUE panel), table 1 of seed 003 (CPE, with the paper's
# numbers), figure 5 of seed 004 (inter-arrival times against the stretch s).
if [ $# -ge 1 ]; then
	STORES=$1
	# the stores of the experiments drawn; a seed whose store is missing
	# keeps its figure (the seeds' paper-scale stores come one by one)
	set --
	for e in reservations-exp1 hierarchical-fig2 easy-unstable-fig89-blue cloud-gang-table1; do
		if [ -f "$STORES/$e/store.db" ]; then
			set -- "$@" "$STORES/$e/store.db"
		else
			echo "$STORES/$e/store.db: no result store; its figure is kept" >&2
		fi
	done
	if [ $# -eq 0 ]; then
		echo "$STORES: none of the result stores (want one folder per experiment, as reproduce writes them)" >&2
		exit 1
	fi
	DRAWN=$(mktemp -d)
	trap 'rm -rf "$DRAWN"' EXIT
	$GS report "$@" --grid-model --format png --out "$DRAWN" >/dev/null
	SRC=$DRAWN/figures
else
	OUT=${OUT:-results/reproduce-quick}
	$GS reproduce --quick --quiet --out "$OUT"
	SRC=$OUT/figures
fi
mkdir -p docs/figures
echo "$FIGS" | while IFS=: read -r from to; do
	if [ -f "$SRC/$from.png" ]; then
		cp "$SRC/$from.png" "docs/figures/$to.png"
		echo "docs/figures/$to.png <- $from"
	fi
done
