#!/usr/bin/env bash
# GPU-machine check of issue 28 part B (scan --arch judges every file that
# uses CUDA): real PyTorch 2.11 (CUDA 13.0 wheels) in /opt/torch/.venv.
#   bash tests/gpu/longtail_b.sh      (from the repository root, build-gpu/ carried:
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" all)
# Cases (PASS/FAIL lines, exit 1 on any FAIL; outputs under $OUT):
#  - sm90:  scan --arch sm_90 of torch/lib judges libtorch_cuda.so (no CUDA library
#           name: a consumer carrying device code) as runnable (sass or jit), exit 0
#  - sm50:  scan --arch sm_50 (an architecture CUDA 13 dropped) says libtorch_cuda.so
#           cannot run (fit "none") and exits 1
#  - gpu:   the H200's own architecture from nvidia-smi, judged like sm90
set -u
cd "$(dirname "$0")/../.."
GT=${GT:-$PWD/build-gpu/gputrace}
PY=${PY:-/opt/torch/.venv/bin/python}
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
fails=0 passes=0

TORCHLIB=${TORCHLIB:-$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)}
if [ -z "$TORCHLIB" ] || [ ! -e "$TORCHLIB/libtorch_cuda.so" ]; then
	echo "FAIL setup: no libtorch_cuda.so under '$TORCHLIB' (PY=$PY)"
	exit 1
fi

# fit of libtorch_cuda.so in scan --json --arch $1: prints "<exit> <fit>"
judge() {
	"$GT" scan --json --arch "$1" "$TORCHLIB" > "$OUT/longtail_b-$1.json" 2> "$OUT/longtail_b-$1.err"
	rc=$?
	fit=$(/usr/bin/python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["arch"]
print(next((f["fit"] for f in a["files"] if f["path"].endswith("/libtorch_cuda.so")), "absent"))' \
		"$OUT/longtail_b-$1.json" 2>/dev/null || echo unreadable)
	echo "$rc $fit"
}

check() {  # name, got, want-regex
	if echo "$2" | grep -Eq "$3"; then
		echo "PASS $1: $2"; passes=$((passes + 1))
	else
		echo "FAIL $1: got '$2', want /$3/"; fails=$((fails + 1))
	fi
}

check sm90 "$(judge sm_90)" '^0 (sass|jit)$'
check sm50 "$(judge sm_50)" '^1 none$'
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ')
if [ -n "$cap" ]; then
	check "gpu-$cap" "$(judge "$cap")" '^0 (sass|jit)$'
fi
"$GT" scan --arch sm_90 "$TORCHLIB" > "$OUT/longtail_b-sm_90.txt" 2>&1
grep -E "libtorch_cuda.so|on paper" "$OUT/longtail_b-sm_90.txt" | head -5
echo "longtail_b: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
