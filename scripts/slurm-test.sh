#!/usr/bin/env bash
# Integration test of the Slurm scale-out (issue 4): install and start a
# single-node Slurm on localhost (Debian's slurmctld, slurmd, slurm-client,
# munge; no systemd: daemons started directly and stopped by pid file),
# submit a small sweep as an array job with 'gridsched slurm --submit',
# and check that the merged results equal a single-machine run of the same
# spec, byte for byte. The work folder's path and the spec's name hold a
# space and shell characters, which the generated scripts must pass
# through intact (issue 25). Needs root (it installs packages and writes
# /etc/slurm/slurm.conf). Settings: ../shared/reference/slurm.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=$(mktemp -d "/tmp/gridsched slurm;\$(x).XXXXXX")
STARTED=()

cleanup() {
	for pidfile in "${STARTED[@]}"; do
		if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
	done
}
trap cleanup EXIT

say() { echo "slurm-test: $*"; }

if ! command -v slurmctld >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
	say "installing slurmctld slurmd slurm-client munge"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
fi

# munge
mkdir -p /run/munge
chown munge:munge /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	runuser -u munge -- /usr/sbin/munged
	STARTED+=(/run/munge/munged.pid)
	for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi
munge -n | unmunge >/dev/null

# slurm.conf for this one machine
HOST=$(hostname -s)
CPUS=$(nproc)
MEM=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
mkdir -p /etc/slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
chown slurm:slurm /var/lib/slurm/slurmctld /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=gridsched-test
SlurmctldHost=${HOST}(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=slurm
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
NodeName=${HOST} NodeAddr=127.0.0.1 CPUs=${CPUS} RealMemory=${MEM} State=UNKNOWN
PartitionName=debug Nodes=${HOST} Default=YES MaxTime=INFINITE State=UP
CONF

if ! { [ -f /run/slurmctld.pid ] && kill -0 "$(cat /run/slurmctld.pid)" 2>/dev/null; }; then
	slurmctld
	STARTED+=(/run/slurmctld.pid)
fi
if ! { [ -f /run/slurmd.pid ] && kill -0 "$(cat /run/slurmd.pid)" 2>/dev/null; }; then
	slurmd
	STARTED+=(/run/slurmd.pid)
fi
for _ in $(seq 120); do
	state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
	[ "$state" = idle ] || [ "$state" = mixed ] && break
	sleep 0.5
done
say "node state: ${state:-none}"
[ "$state" = idle ] || [ "$state" = mixed ] || { say "slurm did not come up"; tail -20 /var/log/slurm/*.log; exit 1; }

# The sweep
go build -o "$WORK/gridsched" ./cmd/gridsched
# The Python EASY over the decision protocol runs in the array tasks too
# (its runs equal easy's): a copy of the package beside the spec, whose
# command names its file relative to the spec's folder.
cp -r "$ROOT/python" "$WORK/python"
cat > "$WORK/spec.yaml" <<'SPEC'
name: "slurm test $(touch PWNED)"
workload:
  model: lublin
  params: {nodes: 64}
  jobs: 3000
platform: {nodes: 64}
policies: [fcfs, easy, conservative, external]
external: {command: "python3 python/examples/easy.py"}
grid:
  workload.params.arrival_scale: [0.8, 1.2]
replications: {count: 4}
seed: 11
metrics: [mean_wait, mean_bsld, utilization]
SPEC
"$WORK/gridsched" run "$WORK/spec.yaml" --out "$WORK/single" --quiet
"$WORK/gridsched" slurm "$WORK/spec.yaml" --shards 3 --out "$WORK/slurm" --binary "$WORK/gridsched" --submit | tee "$WORK/submit.log"
ids=$(awk '/submitted array job/ { print $4, $8 }' "$WORK/submit.log" | tr -d ';')
[ -n "$ids" ] || { say "no job ids"; exit 1; }
for _ in $(seq 600); do
	left=0
	for id in $ids; do
		if [ -n "$(squeue -h -j "$id" 2>/dev/null)" ]; then left=1; fi
	done
	[ $left = 0 ] && break
	sleep 0.5
done
[ $left = 0 ] || { say "jobs did not finish: $(squeue)"; exit 1; }
ls "$WORK/slurm"
for f in runs.csv aggregate.csv; do
	if ! cmp "$WORK/single/$f" "$WORK/slurm/merged/$f"; then
		say "$f of the Slurm run differs from the single-machine run"
		cat "$WORK"/slurm/slurm-*.log || true
		exit 1
	fi
done
if find "$WORK" "$ROOT" -maxdepth 2 -name PWNED 2>/dev/null | grep -q .; then
	say "a generated script ran a command from the spec's name"
	exit 1
fi
say "3 array tasks + merge on Slurm equal the single-machine run ($(($(wc -l < "$WORK/single/runs.csv") - 1)) runs)"
# The external scheduler's runs have easy's metrics (same replication seeds, same jobs).
python3 - "$WORK/slurm/merged/runs.csv" <<'CHECK' || { say "external runs differ from easy's"; exit 1; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
skip = {"config_index", "config_id", "policy"}
by = {(r["policy"], r["workload.params.arrival_scale"], r["replication"]): {k: v for k, v in r.items() if k not in skip} for r in rows}
ext = [k for k in by if k[0] == "external"]
bad = [k for k in ext if by[k] != by[("easy",) + k[1:]]]
print("%d external runs, %d differ from easy's" % (len(ext), len(bad)))
sys.exit(1 if bad or not ext else 0)
CHECK
say "the external scheduler's runs equal easy's"
say "PASS"
