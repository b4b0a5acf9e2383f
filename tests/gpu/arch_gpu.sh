#!/usr/bin/env bash
# GPU-machine runs of issue 18 (kernel images against the device), in one
# call, on the H200 (sm_90). Carry build-gpu/, built here with nvcc 13.0:
#   make BUILD=build-gpu SAN= JANSSON_LIBS=-l:libjansson.a \
#        ELF_LIBS="-l:libelf.a -l:libz.a" all gpu-progs
# which adds build-gpu/gpu/launch_sm80 (-gencode arch=compute_80,code=sm_80),
# build-gpu/gpu/launch_sm80_ptx80 (code=[sm_80,compute_80]), both linked to
# the shared CUDA runtime, and build-gpu/gpu/fatbin_read (host/fatbin.c).
# Cases:
#   sm80      fails its launch with 209: the report must name no-kernel-image
#             (error) with sm_80 carried, sm_90 needed, and the 209 caused by it
#   sm80_ptx  runs by JIT: no-kernel-image at info level only
#   conv      torch healthy run (import torch + one Conv2d): no finding at all
#   libtorch_cuda.so: our reader against cuobjdump --list-elf / --list-ptx,
#             the same sorted lists, with the wall time of each
# Logs under $OUT (arch.log, *.report.json, the traces).
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
FR=$PWD/build-gpu/gpu/fatbin_read
OUT=${OUT:-/tmp/gpu-out}
W=/tmp/gt-arch
rm -rf "$W"; mkdir -p "$W" "$OUT"
CUOBJDUMP=/usr/local/cuda/bin/cuobjdump
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)
TORCH_LIB=${TORCH_LIB:-/opt/torch/.venv/lib/python3.12/site-packages/torch/lib}
LIBTORCH=$TORCH_LIB/libtorch_cuda.so
# The launch programs need libcudart.so.13: the toolkit's (RUNPATH), else torch's wheel.
CUDART_WHEEL=$(ls -d "$TORCH_LIB"/../../nvidia/cu13/lib "$TORCH_LIB"/../../nvidia/cuda_runtime/lib 2>/dev/null | head -1)

timed() {  # label, output file, command...: runs it, prints the wall time
	local label=$1 out=$2 t0 t1; shift 2
	t0=$(date +%s.%N); "$@" >"$out" 2>&1; t1=$(date +%s.%N)
	python3 -c "import sys; print('%s: %.3f s wall' % (sys.argv[1], float(sys.argv[3]) - float(sys.argv[2])))" "$label" "$t0" "$t1"
}

summary() {  # report.json: every finding's id, severity, summary, and the 209 evidence
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("findings:", [(f["id"], f["severity"]) for f in d["findings"]])
for f in d["findings"]:
    if f["id"] == "no-kernel-image":
        print("  summary:", f["summary"])
        for e in f["evidence"]:
            print("  -", e["what"][:300])
PY
}

run_prog() {  # name, program
	local name=$1 prog=$2 llp=
	printf '\n### %s: %s\n' "$name" "$prog"
	ldd "$prog" | grep -q 'libcudart.so.13 => not found' && llp=$CUDART_WHEEL
	LD_LIBRARY_PATH=${llp:+$llp:}${LD_LIBRARY_PATH:-} "$prog" >"$W/$name.bare.out" 2>&1; echo "bare exit $?"
	cat "$W/$name.bare.out"
	LD_LIBRARY_PATH=${llp:+$llp:}${LD_LIBRARY_PATH:-} "$GT" -q -o "$W/$name" -- "$prog" >"$W/$name.traced.out" 2>&1
	echo "traced exit $?"
	cmp -s "$W/$name.bare.out" "$W/$name.traced.out" && echo "output identical" || cat "$W/$name.traced.out"
	grep -h '"ev":"device"\|"status":209' "$W/$name"/*.jsonl | cut -c1-240
	"$GT" report "$W/$name" | cut -c1-400; echo "report exit ${PIPESTATUS[0]}"
	"$GT" report --json "$W/$name" >"$OUT/$name.report.json" 2>/dev/null
	summary "$OUT/$name.report.json"
}

{
	nvidia-smi --query-gpu=name,compute_cap --format=csv
	run_prog sm80 build-gpu/gpu/launch_sm80
	run_prog sm80_ptx build-gpu/gpu/launch_sm80_ptx80
	# a second run of the JIT case (its cache is warm now): the same finding
	run_prog sm80_ptx_again build-gpu/gpu/launch_sm80_ptx80

	printf '\n### conv: torch healthy run\n'
	"$GT" -q -o "$W/conv" -- python3 bench/torch_conv.py >"$W/conv.out" 2>&1; echo "traced exit $?"
	tail -2 "$W/conv.out"
	grep -h '"ev":"device"' "$W/conv"/*.jsonl | head -4 | cut -c1-240
	"$GT" report "$W/conv" | grep -vE '^    ' | cut -c1-300; echo "report exit ${PIPESTATUS[0]}"
	"$GT" report --json "$W/conv" >"$OUT/conv.report.json" 2>/dev/null
	summary "$OUT/conv.report.json"
	python3 -c 'import torch; print("torch.cuda.get_arch_list():", torch.cuda.get_arch_list())'

	printf '\n### libtorch_cuda.so: %s (%s bytes)\n' "$LIBTORCH" "$(stat -c %s "$LIBTORCH")"
	readelf -SW "$LIBTORCH" | grep -E 'nv_fatbin|nvFatBin|relfatbin'
	echo "-- ours (cold page cache unless the lines above read it):"
	timed "ours --sass" "$W/ours.sass" "$FR" --sass "$LIBTORCH"
	"$FR" --ptx "$LIBTORCH" >"$W/ours.ptx"
	"$FR" -r 11 "$LIBTORCH"
	echo "-- cuobjdump:"
	timed "cuobjdump --list-elf" "$W/cuobjdump.elf" "$CUOBJDUMP" --list-elf "$LIBTORCH"
	timed "cuobjdump --list-ptx" "$W/cuobjdump.ptx" "$CUOBJDUMP" --list-ptx "$LIBTORCH"
	timed "ours --sass, again" "$W/ours.sass" "$FR" --sass "$LIBTORCH"
	grep -o 'sm_[0-9]*[af]\?' "$W/cuobjdump.elf" | sort -u >"$W/theirs.sass"
	grep -o 'sm_[0-9]*[af]\?' "$W/cuobjdump.ptx" | sed 's/^sm_/compute_/' | sort -u >"$W/theirs.ptx"
	echo "cuobjdump ELF entries: $(grep -c 'ELF file' "$W/cuobjdump.elf"), PTX entries: $(grep -c 'PTX file' "$W/cuobjdump.ptx")"
	echo "SASS ours:   $(tr '\n' ' ' <"$W/ours.sass")"
	echo "SASS theirs: $(tr '\n' ' ' <"$W/theirs.sass")"
	echo "PTX ours:    $(tr '\n' ' ' <"$W/ours.ptx")"
	echo "PTX theirs:  $(tr '\n' ' ' <"$W/theirs.ptx")"
	cmp -s "$W/ours.sass" "$W/theirs.sass" && cmp -s "$W/ours.ptx" "$W/theirs.ptx" && echo "LISTS IDENTICAL" || echo "LISTS DIFFER"
	for l in "$TORCH_LIB"/libc10_cuda.so "$TORCH_LIB"/../../nvidia/*/lib/*.so*; do
		[ -f "$l" ] && "$FR" -r 3 "$l" | sed -n '1p;3,4p'
	done
} 2>&1 | tee "$OUT/arch.log"
tar czf "$OUT/arch-traces.tgz" -C "$W" .
