#!/bin/bash
# Times `gputrace report --json DIR` over many generated traces of one
# PyTorch-sized process (bench/gen_traces.py): wall time, median of R runs,
# and peak memory (GNU time's %M, max RSS in KiB), for COUNTS identical
# traces, plus one set of 1,000 with ODD odd ranks.  Not a test: it prints a
# table and asserts nothing.  See bench/README.md.
#
#   bench/merge_1000.sh                  # R=5 COUNTS="100 1000 2000" ODD=10
#   BUILD=build-rel R=5 COUNTS="1000" bench/merge_1000.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-rel}
R=${R:-5}
COUNTS=${COUNTS:-100 1000 2000}
ODD=${ODD:-10}
PYTHON=${PYTHON:-/usr/bin/python3}
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
	echo "merge_1000: $TIME is missing (Debian: apt-get install time)" >&2
	exit 1
fi

# The release build: no sanitizers, in the report either.
make -s BUILD="$BUILD" SAN= all fixtures >/dev/null
GT=$BUILD/gputrace
WORK=$(mktemp -d /tmp/gt-merge-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Templates, traced here: the framework (import torch, when it imports) and
# the fixtures' torchlike program (CUDA libraries, cuDNN 9 sub-libraries,
# API calls).  The generated process is their splice.
"$GT" -q -o "$WORK/tpl-cuda" -- "$BUILD/fixtures/scenarios/sc_torchlike" >/dev/null
CUDA_TPL=$(ls "$WORK"/tpl-cuda/*.jsonl)
if "$PYTHON" -c "import torch" 2>/dev/null; then
	"$GT" -q -o "$WORK/tpl-torch" -- "$PYTHON" -c "import torch"
	TPL=$(ls "$WORK"/tpl-torch/*.jsonl)
	EXTRA=$CUDA_TPL
	what="import torch + sc_torchlike"
else
	TPL=$CUDA_TPL
	EXTRA=
	what="sc_torchlike only (no torch here)"
fi

now_ns() { date +%s%N; }

# measure DIR: prints "median_ms min_ms max_ms peak_kib status"
measure() {
	local dir=$1 i t0 t1 ms=() rc peak
	"$GT" report --json "$dir" >/dev/null || true	# warm the page cache
	for ((i = 0; i < R; i++)); do
		t0=$(now_ns)
		rc=0
		"$GT" report --json "$dir" >/dev/null || rc=$?
		t1=$(now_ns)
		ms+=($(((t1 - t0) / 1000)))
	done
	peak=$({ "$TIME" -f %M "$GT" report --json "$dir" 2>&1 >/dev/null || true; } | tail -1)
	printf '%s\n' "${ms[@]}" | sort -n | awk -v rc="$rc" -v peak="$peak" '
		{ v[NR] = $1 }
		END { printf "%.1f %.1f %.1f %s %s\n", v[int((NR + 1) / 2)] / 1000, v[1] / 1000, v[NR] / 1000, peak, rc }'
}

echo "gputrace report --json over N generated traces ($what), $GT, median of $R runs"
lines=$(wc -l <"$TPL")
[ -n "$EXTRA" ] && lines=$((lines + $(wc -l <"$EXTRA")))
echo "one trace: about $lines lines"
printf '%-22s %10s %10s %10s %12s %10s %6s\n' traces "total MB" "median ms" "min ms" "max ms" "peak KiB" exit
run_set() {
	local n=$1 odd=$2 dir="$WORK/n$1-odd$2" mb label
	"$PYTHON" bench/gen_traces.py -n "$n" --odd "$odd" "$dir" "$TPL" $EXTRA
	mb=$(du -sm "$dir" | cut -f1)
	read -r med mn mx peak rc < <(measure "$dir")
	label="$n identical"
	[ "$odd" -gt 0 ] && label="$n, $odd odd"
	printf '%-22s %10s %10s %10s %12s %10s %6s\n' "$label" "$mb" "$med" "$mn" "$mx" "$peak" "$rc"
	if [ "$odd" -gt 0 ]; then
		"$GT" report --json "$dir" | "$PYTHON" -c '
import json, sys
o = json.load(sys.stdin)
d = [f for f in o["findings"] if f["id"] == "divergent-processes"]
print("  groups: %s; divergent-processes: %s" % (
    [g["count"] for g in o.get("groups", [])],
    d[0]["summary"] if d else "none"))'
	fi
	rm -rf "$dir"
}
for n in $COUNTS; do
	run_set "$n" 0
done
[ "$ODD" -gt 0 ] && run_set 1000 "$ODD"
