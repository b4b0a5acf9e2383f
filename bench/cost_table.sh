#!/bin/sh
# Every row of the cost table (issue 14) from one run of this script: each
# workload is one paired run of all its arms (bare, the floor, gputrace -q,
# gputrace -q -o DIR; with BEFORE=DIR also an older build's -q and -o, paired
# in the same rounds), each arm's median, min and max, and its ratio to the
# bare run and to the floor (bench/cost.py). Then the per-call cost of the hot
# hooks (bench/malloc_overhead.sh, paired), `scan --for` against ldd (paired)
# and the peak RSS that tracing adds to `import torch` (Debian python3-torch).
#   R=41 RT=11 BUILD=build-rel [BEFORE=build-before] bench/cost_table.sh | tee bench/results/cost-table.txt
# A benchmark, not a test: nothing here asserts a time.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-rel}
R=${R:-41}
RT=${RT:-11}
PYTHON=${PYTHON:-/usr/bin/python3}
MAKE=${MAKE:-make}

$MAKE -s BUILD="$BUILD" SAN= all fixtures >/dev/null
$MAKE -s BUILD="$BUILD" SAN= bench-programs >/dev/null

arms() {
	set -- --floor "$BUILD/bench/floor_audit.so" --cmd "now=$BUILD/gputrace" --out-dir "now=$BUILD/gputrace"
	if [ -n "${BEFORE:-}" ]; then
		set -- "$@" --cmd "before=$BEFORE/gputrace" --out-dir "before=$BEFORE/gputrace"
	fi
	printf '%s\n' "$@"
}
cost() {
	rounds=$1 label=$2
	shift 2
	# shellcheck disable=SC2046
	"$PYTHON" bench/cost.py --rounds "$rounds" --label "$label" $(arms) -- "$@"
	echo
}

echo "host: $(uname -srm), $(nproc --all) CPU(s); $(date -u +%Y-%m-%dT%H:%MZ); gputrace $(git rev-parse --short HEAD 2>/dev/null || echo '?')${BEFORE:+, before: $BEFORE}"
echo "arms: q = gputrace -q -- CMD, o = gputrace -q -o DIR -- CMD (the exit diagnosis written); /floor = ratio to the do-nothing audit module"
echo

cost "$R" "300-library fixture: dlopen of 300 libraries through RUNPATH (bench/load_many 300)" \
	"$BUILD/bench/load_many" 300

if [ -e /usr/local/cuda-13.0/lib64/libcudnn.so.9 ] || ldconfig -p | grep -q 'libcudnn.so.9 '; then
	cost "$R" "dlopen real cuDNN 9 + cuBLAS 13, cudnnCreate (bench/cudnn_create)" "$BUILD/bench/cudnn_create"
else
	echo "== real cuDNN: skipped, no libcudnn.so.9 on this host"; echo
fi

if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	cost "$RT" "import torch (Debian python3-torch, CPU): the RSS row" /usr/bin/python3 -c 'import torch'
else
	echo "== import torch: skipped, /usr/bin/python3 cannot import torch"; echo
fi

echo "== hot hooks: cudaMalloc+cudaFree against the fake libcudart (bench/malloc_overhead.sh: 1 thread, one per CPU, exact 8-thread counts)"
BUILD="$BUILD" R="${RM:-11}" PYTHON="$PYTHON" sh bench/malloc_overhead.sh 2>&1 | sed 's/^/  /'
if [ -n "${BEFORE:-}" ]; then
	echo "  -- the same with the older build's gputrace ($BEFORE), against the same bare program"
	BUILD="$BUILD" GPUTRACE="$BEFORE/gputrace" R="${RM:-11}" PYTHON="$PYTHON" sh bench/malloc_overhead.sh 2>&1 |
		sed 's/^/  /'
fi
echo "  -- 8 threads x 1000000 pairs on $(nproc --all) CPUs, ${RM:-11} paired rounds"
LD_LIBRARY_PATH="$(cd "$BUILD/fixtures/driver" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	"$PYTHON" bench/paired.py --metric ns_per_call --rounds "${RM:-11}" --gputrace "$BUILD/gputrace" \
	--label "malloc_loop 8 threads x 1000000 pairs" -- "$BUILD/bench/malloc_loop" 1000000 8 2>&1 | sed 's/^/  /'
echo

echo "== scan --for libcudnn.so.9 against ldd of the file it resolves (paired rounds, ms wall)"
"$PYTHON" - "$BUILD/gputrace" "$R" "${BEFORE:+$BEFORE/gputrace}" <<'PY'
import os, statistics, subprocess, sys, time
gputrace, rounds = sys.argv[1], int(sys.argv[2])
before = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
target = None
for line in subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout.splitlines():
    if "libcudnn.so.9 " in line and "=>" in line:
        target = line.split("=>")[1].strip()
        break
if not target:
    print("  skipped: no libcudnn.so.9 in ld.so.cache")
    sys.exit(0)
cmds = {"scan --for": [gputrace, "scan", "--for", target], "ldd": ["ldd", target]}
if before:
    cmds["before"] = [before, "scan", "--for", target]
libtree = "/usr/bin/libtree"
if os.access(libtree, os.X_OK):
    cmds["libtree"] = [libtree, target]
times = {k: [] for k in cmds}
names = list(cmds)
for r in range(rounds + 1):
    for i in range(len(names)):
        k = names[(i + r) % len(names)]
        t0 = time.perf_counter()
        subprocess.run(cmds[k], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r:
            times[k].append((time.perf_counter() - t0) * 1e3)
print(f"  target {target}; rounds: {rounds} (+1 warm-up)")
for k in names:
    v = times[k]
    ratio = statistics.median(a / b for a, b in zip(v, times["ldd"]))
    print(f"  {k:12s} {statistics.median(v):8.2f} ms  [{min(v):.2f} .. {max(v):.2f}]  /ldd {ratio:.2f}")
PY
