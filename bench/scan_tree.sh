#!/bin/sh
# Cost of `gputrace scan` on a big tree (issue 5, acceptance 3): a generated
# tree of 100,000 files, 2,000 of them shared objects (bench/gen_tree.py),
# scanned warm on one core.  Also times `libtree` (Debian package libtree) on
# one consumer of the tree, and `gputrace scan --for` on that same consumer,
# with and without the tree as ROOT.
#   R=5 TREE=/tmp/gputrace-scan-tree FILES=100000 LIBS=2000 CPU=0 bench/scan_tree.sh
# Each figure: one untimed warm-up run (page cache warm), then the median,
# min and max of R (5) runs of whole-process wall time under `taskset -c CPU`.
# Aim (issue): the scan of the tree in at most 1 s warm on one core.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-rel}
R=${R:-5}
CPU=${CPU:-0}
FILES=${FILES:-100000}
LIBS=${LIBS:-2000}
TREE=${TREE:-${TMPDIR:-/tmp}/gputrace-scan-tree}
PYTHON=${PYTHON:-/usr/bin/python3}
MAKE=${MAKE:-make}
GPUTRACE=${GPUTRACE:-$BUILD/gputrace}

# The release build: no sanitizers (only the command is needed here).
if [ "$BUILD" = build-rel ] || [ -n "${SAN+x}" ]; then
	$MAKE -s BUILD="$BUILD" SAN= "$BUILD/gputrace" >/dev/null
else
	$MAKE -s BUILD="$BUILD" "$BUILD/gputrace" >/dev/null
fi
"$PYTHON" bench/gen_tree.py --files "$FILES" --libs "$LIBS" "$TREE" >/dev/null
CONSUMER=$(cat "$TREE/CONSUMER")

if ! command -v libtree >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get install -y libtree >/dev/null 2>&1 || true
	fi
fi

echo "host: $(uname -srm), $(nproc) CPU(s); $(date -u +%Y-%m-%dT%H:%MZ); timed on CPU $CPU"
echo "tree: $TREE: $(find "$TREE" \( -type f -o -type l \) ! -name .done | wc -l) files," \
	"$(find "$TREE" -type d | wc -l) folders; consumer $CONSUMER"
"$GPUTRACE" scan "$TREE" | head -1

# median/min/max of R runs of a command, after one warm-up run
timeit() {
	label=$1
	shift
	"$PYTHON" - "$R" "$CPU" "$label" "$@" <<'EOF'
import statistics, subprocess, sys, time
r, cpu, label, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
cmd = ["taskset", "-c", cpu, *argv]
def once():
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - t, p.returncode
once()
runs = [once() for _ in range(r)]
ms = [t * 1000 for t, _ in runs]
print("%-44s median %8.1f ms   min %8.1f   max %8.1f   (exit %s, %d runs)"
      % (label, statistics.median(ms), min(ms), max(ms), sorted({c for _, c in runs}), r))
EOF
}

timeit "gputrace scan TREE" "$GPUTRACE" scan "$TREE"
timeit "gputrace scan --json TREE" "$GPUTRACE" scan --json "$TREE"
timeit "gputrace scan --for CONSUMER TREE" "$GPUTRACE" scan --for "$CONSUMER" "$TREE"
timeit "gputrace scan --for CONSUMER (host places)" "$GPUTRACE" scan --for "$CONSUMER"
timeit "gputrace scan (host places, no ROOT)" "$GPUTRACE" scan
if command -v libtree >/dev/null 2>&1; then
	timeit "libtree CONSUMER" libtree "$CONSUMER"
	timeit "libtree -p CONSUMER" libtree -p "$CONSUMER"
else
	echo "libtree: not installed (Debian: apt-get install -y libtree); skipped"
fi
