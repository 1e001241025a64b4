#!/bin/sh
# Regenerates the README's figures (one per seed paper) from the quick
# reproduction: docs/figures/seedNNN.png. Runs `gridsched reproduce --quick`
# (a few minutes; it resumes whatever an earlier call finished) into
# ${OUT:-results/reproduce-quick} and copies one figure per seed.
set -eu
cd "$(dirname "$0")/.."
OUT=${OUT:-results/reproduce-quick}
${GRIDSCHED:-go run ./cmd/gridsched} reproduce --quick --quiet --out "$OUT"
mkdir -p docs/figures
fig() { cp "$OUT/figures/$1.png" "docs/figures/$2.png"; echo "docs/figures/$2.png <- $1"; }
fig reservations-exp1-ap seed000                                   # figure 3: AP against resNumber
fig hierarchical-fig2-makespan seed001                             # figure 2: makespan by dispatcher
fig easy-unstable-fig89-blue-mean_qos-skip-0-instability-u_update-all seed002  # figure 9: QoS rate, classic vs improved selection (SDSC-BLUE, first window, u updated on all machines)
fig cloud-gang-table1-cpe seed003                                    # table 1: CPE, with the paper's numbers (quick: q = 0.5, ALF 1, default monitor)
fig seed004-fig5-stretch seed004                                   # figure 5: inter-arrival times, stretch s
# The reproduction tables (generated from the same stores) for docs/.
mkdir -p docs/reproduction
for f in "$OUT"/reproduction-seed*.md; do cp "$f" docs/reproduction/; echo "docs/reproduction/$(basename "$f")"; done
