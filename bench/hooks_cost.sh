#!/bin/sh
# What gputrace adds to each hooked CUDA call, at 1 and at 8 threads (issue
# 29: at most +10 ns at both). bench/malloc_loop makes cudaMalloc+cudaFree
# pairs against the fake libcudart, bare and under `gputrace -q -o DIR --`
# (and under a BEFORE build's gputrace, the same rounds), in R rotating rounds
# after one warm-up, and prints the medians of:
#   cpu_ns_per_call  each thread's CPU time in its loop, a call (the figure
#                    that counts on a shared machine: it leaves out the time a
#                    thread waited for a CPU, and keeps every stall on a line
#                    another CPU wrote)
#   ns_per_call      each thread's wall time in its loop, a call (with more
#                    threads than CPUs, or other load, it includes the other
#                    threads' turns: 8 threads on 2 CPUs about 4x)
#   loop_ns          release of the threads to the last one's end
# with the middle half of the per-round differences, then one 8 x 1,000,000
# run whose trace must count exactly 8,000,000 cudaMalloc and as many cudaFree.
#   R=21 N1=5000000 N8=1000000 BUILD=build BEFORE=OLD/gputrace bench/hooks_cost.sh
# The load average is printed before and after each part (/proc/loadavg).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
R=${R:-21}
N1=${N1:-5000000}
N8=${N8:-1000000}
PYTHON=${PYTHON:-/usr/bin/python3}
MAKE=${MAKE:-make}
GPUTRACE=${GPUTRACE:-$BUILD/gputrace}
BEFORE=${BEFORE:-}

$MAKE -s BUILD="$BUILD" all fixtures >/dev/null
$MAKE -s BUILD="$BUILD" "$BUILD/bench/malloc_loop" >/dev/null

# The fake cudart dlopen()s libcuda.so.1 by name: the fake driver.
LD_LIBRARY_PATH="$(cd "$BUILD/fixtures/driver" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

# COMMIT=... names the commit of a tree that is no git checkout (git archive).
if [ -z "${COMMIT:-}" ]; then
	if COMMIT=$(git rev-parse --short HEAD 2>/dev/null); then
		git diff --quiet -- preload || COMMIT="$COMMIT, preload/ changed since"
	else
		COMMIT="? (not a git checkout)"
	fi
fi
echo "host: $(uname -srm), $(nproc --all) CPU(s); $(date -u +%Y-%m-%dT%H:%MZ); commit $COMMIT"
echo "after: $GPUTRACE${BEFORE:+; before: $BEFORE}"

part() {
	threads=$1 pairs=$2
	echo
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	# shellcheck disable=SC2086  # $also is empty or one option
	"$PYTHON" bench/paired.py --metric cpu_ns_per_call --extra ns_per_call --extra loop_ns \
		--rounds "$R" --gputrace "$GPUTRACE" ${BEFORE:+--also "before=$BEFORE"} \
		--label "malloc_loop $threads thread(s) x $pairs pairs, $(nproc --all) CPU(s)" \
		-- "$BUILD/bench/malloc_loop" "$pairs" "$threads"
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
part 1 "$N1"
part 8 "$N8"
echo
"$PYTHON" bench/paired.py --metric cpu_ns_per_call --rounds 1 --warmup 0 --calls \
	--gputrace "$GPUTRACE" \
	--label "malloc_loop 8 threads x 1000000 pairs (exact counts: want 8000000 cudaMalloc + 8000000 cudaFree)" \
	-- "$BUILD/bench/malloc_loop" 1000000 8
