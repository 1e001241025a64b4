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
#                                      nothing.
# (The reproduction tables under docs/reproduction/ come from `gridsched verdicts`.)
set -eu
cd "$(dirname "$0")/.."
GS=${GRIDSCHED:-go run ./cmd/gridsched}
# figure file name (without .png) and the README's name for it
FIGS="reservations-exp1-ap:seed000
hierarchical-fig2-makespan:seed001
easy-unstable-fig89-mean_qos-trace-SDSC-BLUE-2000-4-2-cln-first1250:seed002
cloud-gang-cpe-cpe-policy-cloud-ljfs:seed003
seed004-fig5-stretch:seed004"
# figure 3 of seed 000 (AP against resNumber), figure 2 of seed 001 (makespan by
# dispatcher), figure 9 of seed 002 (QoS rate, classic against improved node
# selection, SDSC-BLUE panel), table 1 of seed 003 (CPE, with the paper's
# numbers), figure 5 of seed 004 (inter-arrival times against the stretch s).
if [ $# -ge 1 ]; then
	STORES=$1
	for e in reservations-exp1 hierarchical-fig2 easy-unstable-fig89 cloud-gang-cpe; do
		if [ ! -f "$STORES/$e/store.db" ]; then
			echo "$STORES/$e/store.db: no result store (want one folder per experiment, as reproduce writes them)" >&2
			exit 1
		fi
	done
	DRAWN=$(mktemp -d)
	trap 'rm -rf "$DRAWN"' EXIT
	$GS report "$STORES/reservations-exp1/store.db" "$STORES/hierarchical-fig2/store.db" \
		"$STORES/easy-unstable-fig89/store.db" "$STORES/cloud-gang-cpe/store.db" \
		--grid-model --format png --out "$DRAWN" >/dev/null
	SRC=$DRAWN/figures
else
	OUT=${OUT:-results/reproduce-quick}
	$GS reproduce --quick --quiet --out "$OUT"
	SRC=$OUT/figures
fi
mkdir -p docs/figures
echo "$FIGS" | while IFS=: read -r from to; do
	cp "$SRC/$from.png" "docs/figures/$to.png"
	echo "docs/figures/$to.png <- $from"
done
