#!/usr/bin/env bash
# The external scheduler's measurements of BENCHMARKS.md ("Bring your own
# scheduler"): the Python EASY over the decision protocol on SDSC-SP2
# against the built-in easy (3 runs each), its decision requests with and
# without wake, the learning environment's steps per second on one core,
# and BenchmarkProtocol. Usage: scripts/protocol-bench.sh [GRIDSCHED_BINARY]
# (default: built into a temporary folder). Prints what it measured, with
# the load average before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
TRACES=${GRIDSCHED_TRACES:-../shared/traces}
T="$TRACES/SDSC-SP2-1998-4.2-cln.swf.gz"
G=${1:-}
if [ -z "$G" ]; then
	G=$(mktemp -d /tmp/gridsched-bench.XXXXXX)/gridsched
	go build -o "$G" ./cmd/gridsched
fi
export GRIDSCHED_BIN=$G
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load $(load); commit $(git rev-parse --short HEAD)"
for _ in 1 2 3; do
	/usr/bin/time -f "built-in easy, SDSC-SP2: wall %e s, user %U s, sys %S s" "$G" simulate --workload "$T" --policy easy --quiet >/dev/null
	/usr/bin/time -f "python/examples/easy.py over the protocol, SDSC-SP2: wall %e s, user %U s, sys %S s (both processes)" \
		"$G" simulate --workload "$T" --policy external --scheduler "python3 python/examples/easy.py" --quiet >/dev/null
done
"$G" simulate --workload "$T" --policy external --scheduler "python3 python/benchmarks/easy_decisions.py" --scheduler-stderr /dev/stderr --quiet >/dev/null
"$G" simulate --workload "$T" --policy external --scheduler "python3 python/benchmarks/easy_decisions.py --every-instant" --scheduler-stderr /dev/stderr --quiet >/dev/null
echo "# load $(load)"
for bf in "" --backfill; do
	taskset -c 0 python3 python/benchmarks/env_steps.py 100000 $bf
done
echo "# load $(load)"
go test ./external -run '^$' -bench Protocol -benchtime 3x -count 3 | grep -E '^(Benchmark|cpu:)'
echo "# load $(load)"
