#!/bin/sh
# Cost gputrace adds to each intercepted call: R paired rounds (default 11) of
# bench/malloc_loop 10000000 (cudaMalloc+cudaFree pairs against the fake
# libcudart, timed inside the loop) bare and under `gputrace -q -o DIR --`,
# alternating which goes first.  Prints the median in-loop ns/call of each,
# the median per-round difference (= ns added per intercepted call) and the
# trace size of the 10-million-pair run; the same with MT threads (default:
# one per CPU) x NMT pairs (default 1000000); then one run with 8 threads x
# 1,000,000 pairs and the trace's "calls" lines, which must count exactly
# 8,000,000 cudaMalloc and 8,000,000 cudaFree.
#   R=11 N=10000000 MT=$(nproc) NMT=1000000 BUILD=build PYTHON=/usr/bin/python3 bench/malloc_overhead.sh
# Aim (issue): added cost <= 25 ns per call, trace of 10 million calls < 64 KiB.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
R=${R:-11}
N=${N:-10000000}
PYTHON=${PYTHON:-/usr/bin/python3}
MAKE=${MAKE:-make}
GPUTRACE=${GPUTRACE:-$BUILD/gputrace}
MT=${MT:-$(nproc)}
NMT=${NMT:-1000000}

$MAKE -s BUILD="$BUILD" all fixtures >/dev/null
$MAKE -s BUILD="$BUILD" "$BUILD/bench/malloc_loop" >/dev/null

# The fake cudart dlopen()s libcuda.so.1 by name: the fake driver.
LD_LIBRARY_PATH="$(cd "$BUILD/fixtures/driver" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

echo "host: $(uname -srm), $(nproc) CPU(s); $(date -u +%Y-%m-%dT%H:%MZ)"
"$PYTHON" bench/paired.py --metric ns_per_call --rounds "$R" --gputrace "$GPUTRACE" \
	--label "malloc_loop $N pairs, 1 thread (in-loop ns per single call; pair = 2 calls)" \
	-- "$BUILD/bench/malloc_loop" "$N" 1
echo
# The same with as many threads as CPUs (no oversubscription): the hooks'
# shared counters are contended here.
"$PYTHON" bench/paired.py --metric ns_per_call --rounds "$R" --gputrace "$GPUTRACE" \
	--label "malloc_loop $MT threads x $NMT pairs (threads = CPUs; in-loop ns per call, mean over threads)" \
	-- "$BUILD/bench/malloc_loop" "$NMT" "$MT"
echo
"$PYTHON" bench/paired.py --metric ns_per_call --rounds 1 --warmup 0 --calls \
	--gputrace "$GPUTRACE" \
	--label "malloc_loop 8 threads x 1000000 pairs (exact counts: want 8000000 cudaMalloc + 8000000 cudaFree)" \
	-- "$BUILD/bench/malloc_loop" 1000000 8
