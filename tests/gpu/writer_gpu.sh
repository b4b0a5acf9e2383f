#!/usr/bin/env bash
# GPU-machine run of the mapped trace writer (issue 14): real PyTorch traced
# with build-gpu/ (make BUILD=build-gpu SAN= JANSSON_LIBS=-l:libjansson.a
# ELF_LIBS="-l:libelf.a -l:libz.a"): the acceptance runs (healthy conv, the
# system cuDNN first on LD_LIBRARY_PATH, no visible device), how each trace
# was written, the audit callbacks' own time per import (GPUTRACE_SELF_TIME),
# and R paired rounds of import torch + one Conv2d, bare vs traced.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
GPU_PARTS="conv llp nodev" bash tests/gpu/gpu_acceptance.sh >"$OUT/acceptance.out" 2>&1
echo "acceptance exit $?"
grep -E '^### |^exit|report exit|all clear|error  |warning  ' "$OUT/gpu.log" | cut -c1-200 | head -30
W=/tmp/gt-gpu
echo "== writer of each trace"
for f in "$W"/*/*.jsonl; do
	printf '%s: %s, %s bytes, NUL bytes: %s\n' "${f#$W/}" \
		"$(grep -o '"writer":"[a-z]*"' "$f" | sort | uniq -c | tr '\n' ' ')" "$(stat -c %s "$f")" \
		"$(tr -cd '\0' <"$f" | wc -c)"
done
{
	echo "== audit callbacks' own time (GPUTRACE_SELF_TIME=1), 5 traced runs of bench/torch_conv.py"
	for i in 1 2 3 4 5; do
		rm -rf "$W/self$i"
		GPUTRACE_SELF_TIME=1 build-gpu/gputrace -q -o "$W/self$i" -- python3 bench/torch_conv.py >/dev/null
		grep -h '"what":"self_time"' "$W/self$i"/*.jsonl
	done
	echo "== paired rounds"
	R=${R:-15} BUDGET=${BUDGET:-300} GPUTRACE=$PWD/build-gpu/gputrace sh bench/torch_overhead.sh
} 2>&1 | tee "$OUT/torch_overhead_after.txt" | tail -16
