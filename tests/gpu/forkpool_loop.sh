#!/usr/bin/env bash
# The forkpool hang of session 38, run again and again (issue 29's "no hang"):
# a fork Pool after CUDA init whose task uses CUDA (tests/gpu/longtail.sh's
# forkpool case), traced N times with a time limit, bare N/2 times beside it.
# Before 4e44a3a the traced run hung in 6 of 17 runs on the H200: the pool's
# SIGTERM reached a worker inside _exit's end of trace and gputrace's signal
# note waited for the trim without bound. A hang prints the process tree's
# states and wait channels. Usage (GPU machine, build-gpu carried):
#   RUNS=12 bash tests/gpu/forkpool_loop.sh      -> $OUT/forkpool_loop.txt
set -u
cd "$(dirname "$0")/../.."
FORKPOOL=$PWD/tests/gpu/forkpool.py
GT=${GT:-$PWD/build-gpu/gputrace}
PY=${PY:-python3}
OUT=${OUT:-/tmp/gpu-out}
RUNS=${RUNS:-12}
LIMIT=${LIMIT:-25}
W=$(mktemp -d /tmp/gt-forkpool.XXXXXX)
mkdir -p "$OUT"

dump_tree() {  # every process below $1: state, wait channel, signal masks
	local p
	for p in $(ps -o pid= --ppid "$1") ; do
		printf '  pid %s %s state %s wchan %s\n' "$p" "$(cat /proc/$p/comm 2>/dev/null)" \
			"$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" "$(cat /proc/$p/wchan 2>/dev/null)"
		grep -E '^(SigBlk|SigCgt)' /proc/$p/status 2>/dev/null | tr '\n' ' '; echo
		dump_tree "$p"
	done
}

hung=0 bare_hung=0 statuses=""
{
for i in $(seq 1 "$RUNS"); do
	"$GT" -q -o "$W/o$i" -- "$PY" "$FORKPOOL" >"$W/out$i" 2>&1 &
	pid=$! waited=0
	while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$LIMIT" ]; do sleep 1; waited=$((waited + 1)); done
	if kill -0 "$pid" 2>/dev/null; then
		hung=$((hung + 1)); echo "traced run $i: HUNG after $LIMIT s"; dump_tree "$pid"
		pkill -KILL -P "$pid"; kill -KILL "$pid"; wait "$pid" 2>/dev/null
		statuses="$statuses hung"
	else
		wait "$pid"; rc=$?; echo "traced run $i: exit $rc after ${waited}s"; statuses="$statuses $rc"
	fi
	if [ $((i % 2)) = 0 ]; then
		timeout -k 5 "$LIMIT" "$PY" "$FORKPOOL" >"$W/bare$i" 2>&1; rc=$?
		[ "$rc" = 124 ] && bare_hung=$((bare_hung + 1))
		echo "bare run $i: exit $rc"
	fi
done
echo "traced: $hung of $RUNS hung; statuses:$statuses"
echo "bare: $bare_hung of $((RUNS / 2)) hung"
"$GT" report "$W/o1" 2>&1 | grep -E 'fork-after-init|gputrace report' | head -3
} 2>&1 | tee "$OUT/forkpool_loop.txt"
