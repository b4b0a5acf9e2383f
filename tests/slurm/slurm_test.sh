#!/bin/sh
# A real scheduler: a one-node Slurm (Debian's slurm-wlm and munge; slurmctld
# and slurmd on this host, as root, with a config folder of this test's own in
# a temporary folder, on ports of its own), then
#   srun -n 4 gputrace -q -o DIR -- wrapper   (task 2 gets the system cuDNN
#                                             through LD_LIBRARY_PATH)
#   srun gputrace scan --json -o DIR
#   gputrace report DIR                       must name task 2, the odd one.
# Usage: sh tests/slurm/slurm_test.sh BUILD   (make check-slurm)
# Skips (exit 0, a line starting "check-slurm: SKIPPED") only where the daemons
# cannot be had or cannot start; everything it started is stopped on any exit.
set -u
BUILD=$(cd "${1:?usage: slurm_test.sh BUILD}" && pwd)
GT=$BUILD/gputrace
FIX=$BUILD/fixtures
say() { echo "check-slurm: $*"; }
skip() { say "SKIPPED: $*"; exit 0; }
fail() { say "FAILED: $*"; [ -n "${T:-}" ] && tail -n 20 "$T"/*.log 2>/dev/null; exit 1; }

for b in slurmctld slurmd srun scontrol munged; do
	command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || skip "$b is not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root here (run make check-slurm as root)"
[ -x "$GT" ] && [ -d "$FIX/scenarios" ] || fail "build $BUILD first (make all fixtures)"
PATH=$PATH:/usr/sbin

T=$(mktemp -d /tmp/gt-slurm.XXXXXX)
chmod 755 "$T"
pids=""
cleanup() {
	# only what this test started, by its pid
	for p in $pids; do kill "$p" 2>/dev/null; done
	sleep 0.5
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# ---- munge, with its own key and socket
mkdir -p "$T/munge"
chmod 700 "$T/munge"
if command -v mungekey >/dev/null 2>&1 || [ -x /usr/sbin/mungekey ]; then
	mungekey -c -k "$T/munge/munge.key" >/dev/null 2>&1 || dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
else
	dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
fi
chmod 400 "$T/munge/munge.key"
munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.sock" \
	--pid-file="$T/munge/munged.pid" --log-file="$T/munge.log" --seed-file="$T/munge/seed" \
	>"$T/munged.out.log" 2>&1 || skip "munged does not start here: $(tail -n 1 "$T/munge.log" 2>/dev/null)"
pids="$pids $(cat "$T/munge/munged.pid" 2>/dev/null)"

# ---- slurm.conf of this test alone
node=$(hostname -s)
cpus=$(nproc)
# the node as it is (slurmd refuses a node said to have more); four tasks
# share its CPUs through srun --overcommit
base=$(( 20000 + $$ % 20000 ))
mkdir -p "$T/state" "$T/spool"
cat >"$T/slurm.conf" <<EOF
ClusterName=gtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
SlurmctldPort=$base
SlurmdPort=$((base + 1))
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=10
InactiveLimit=0
KillWait=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=gt Nodes=$node Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$T/slurm.conf"

slurmctld -D -f "$SLURM_CONF" >"$T/slurmctld.out.log" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" -N "$node" >"$T/slurmd.out.log" 2>&1 &
pids="$pids $!"

# the node is up within a few seconds where the daemons can run at all
up=""
for _ in $(seq 1 30); do
	state=$(timeout 5 sinfo -h -n "$node" -o %t 2>/dev/null | head -n 1)
	case $state in idle*|mix*|alloc*) up=1; break ;; esac
	for p in $pids; do kill -0 "$p" 2>/dev/null || skip "a Slurm daemon exited at start: $(tail -n 2 "$T"/slurm*.log 2>/dev/null | tr '\n' ' ')"; done
	sleep 0.5
done
[ -n "$up" ] || skip "the node did not come up in 15 s (state '${state:-none}'): $(tail -n 2 "$T/slurmd.log" 2>/dev/null | tr '\n' ' ')"
say "slurmctld and slurmd are up (node $node, ports $base and $((base + 1)))"

# ---- four tasks, task 2 with the system cuDNN first on LD_LIBRARY_PATH
cat >"$T/task.sh" <<EOF
#!/bin/sh
if [ "\$SLURM_PROCID" = 2 ]; then
	LD_LIBRARY_PATH=$FIX/system/lib:$FIX/driver
else
	LD_LIBRARY_PATH=$FIX/driver
fi
export LD_LIBRARY_PATH
exec $FIX/scenarios/sc_torchlike
EOF
chmod 755 "$T/task.sh"
DIR=$T/traces
mkdir -p "$DIR"
export ASAN_OPTIONS=verify_asan_link_order=0
timeout 60 srun -n 4 --overcommit -t 1 "$GT" -q -o "$DIR" -- "$T/task.sh" >"$T/srun.log" 2>&1 ||
	fail "srun -n 4 gputrace failed: $(tail -n 5 "$T/srun.log" | tr '\n' ' ')"
n=$(ls "$DIR"/*.jsonl 2>/dev/null | wc -l)
[ "$n" -ge 4 ] || fail "$n traces in $DIR, not one per task"
timeout 60 srun -n 1 -t 1 "$GT" scan --json -o "$DIR" "$FIX/system" "$FIX/site-packages" >"$T/srun-scan.log" 2>&1
[ -f "$DIR/$(hostname).scan.json" ] || [ -n "$(ls "$DIR"/*.scan.json 2>/dev/null)" ] ||
	fail "srun gputrace scan --json -o DIR wrote no scan: $(tail -n 5 "$T/srun-scan.log" | tr '\n' ' ')"

# ---- the report names the odd task
"$GT" report "$DIR" >"$T/report.txt" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "gputrace report DIR exited $rc, not 1: $(cat "$T/report.txt")"
grep -q "divergent-processes" "$T/report.txt" || fail "no divergent-processes: $(cat "$T/report.txt")"
grep -q "rank 2 " "$T/report.txt" || grep -q "rank 2:" "$T/report.txt" ||
	fail "the report does not name rank 2: $(cat "$T/report.txt")"
grep -q "inputs in 1 group" "$T/report.txt" || fail "the host's scan is not in the report: $(cat "$T/report.txt")"
"$GT" report --json "$DIR" >"$T/report.json" 2>/dev/null
/usr/bin/python3 - "$T/report.json" <<'EOF' || fail "the JSON does not name rank 2 alone as divergent"
import json, sys
o = json.load(open(sys.argv[1]))
div = [f for f in o["findings"] if f["id"] == "divergent-processes"]
assert div and div[0]["ranks"] == [2], div
assert sorted(p["rank"] for p in o["processes"]) == [0, 1, 2, 3]
assert o["fleet"]["count"] == 1
EOF
say "OK: srun -n 4 traced 4 tasks; gputrace report names rank 2 ($(grep -m1 divergent-processes "$T/report.txt" | sed 's/^ *//'))"
