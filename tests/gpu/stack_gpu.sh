#!/usr/bin/env bash
# GPU-machine runs of issue 21 (the driver stack) and issue 12 (real-world
# failures), in one call. Carry build-gpu/ (make BUILD=build-gpu SAN=
# JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" all).
#  - compat: /usr/local/cuda/compat (cuda-compat-13-0, libcuda.so.580.95.05)
#    first on LD_LIBRARY_PATH, kernel module 580.159.04: error 803;
#  - the healthy run; scan (the usual places, and the compat folder); doctor;
#  - the system cuDNN 9.14 first on LD_LIBRARY_PATH (torch pins 9.19.0.56);
#  - an older libnvJitLink (built here from a version script) first on the
#    path: the loader rolls back libcusparse's load (undefined symbol).
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
W=/tmp/gt-stack
rm -rf "$W"; mkdir -p "$W" "$OUT"
SP=/opt/torch/.venv/lib/python3.12/site-packages

run_case() {  # name, env assignment or "", then python3's arguments
	local name=$1 envset=$2; shift 2
	printf '\n### %s\n' "$name"
	env $envset python3 "$@" >"$W/$name.bare.out" 2>"$W/$name.bare.err"; local brc=$?
	env $envset "$GT" -q -o "$W/$name" -- python3 "$@" >"$W/$name.traced.out" 2>"$W/$name.traced.err"; local trc=$?
	echo "bare exit $brc, traced exit $trc"
	cmp -s "$W/$name.bare.out" "$W/$name.traced.out" && echo "stdout identical" || echo "stdout differs"
	grep -E "Error|error" "$W/$name.bare.err" | tail -n 2 | cut -c1-240
	"$GT" report "$W/$name" >"$W/$name.report" 2>&1; echo "report exit $?" >>"$W/$name.report"
	"$GT" report --json "$W/$name" >"$OUT/$name.report.json" 2>/dev/null
	grep -vE '^      ?(cudnn_|nvrtc|cufft|curand|cusparse|cusolver|cupti|nvJitLink|nvidia-ml|cublas|nccl)' "$W/$name.report" | cut -c1-300 | head -40
}

{
	nvidia-smi -L; cat /proc/driver/nvidia/version | head -1
	ls -la /usr/local/cuda/compat/ 2>&1 | head
	TOUCH='import torch; print(torch.zeros(1).cuda().sum().item())'
	run_case healthy "" -c "$TOUCH"
	run_case compat "LD_LIBRARY_PATH=/usr/local/cuda/compat:${LD_LIBRARY_PATH:-}" -c "$TOUCH"
	printf '\n### scan (usual places)\n'
	"$GT" scan >"$W/scan.txt" 2>&1; echo "scan exit $?"; head -2 "$W/scan.txt"; grep -A4 "driver-mismatch" "$W/scan.txt" | cut -c1-300 | head -20
	printf '\n### scan /usr/local/cuda/compat\n'
	"$GT" scan --json /usr/local/cuda/compat >"$OUT/scan_compat.json" 2>"$W/scan_compat.err"; echo "scan exit $?"
	python3 -c "import json; d=json.load(open('$OUT/scan_compat.json')); print('kernel_module', d['kernel_module'], d['gpus']); [print(f['severity'], f['id'], f['summary']) for f in d['findings']]"
	printf '\n### doctor\n'
	"$GT" doctor --python python3 >"$W/doctor.txt" 2>&1; echo "doctor exit $?"; head -6 "$W/doctor.txt" | cut -c1-200
	grep -h "Requires-Dist: nvidia-cudnn" $SP/torch-*.dist-info/METADATA | head -2
	CONV='import torch
torch.manual_seed(0)
x = torch.randn(8, 3, 64, 64, device="cuda")
m = torch.nn.Conv2d(3, 16, 3).cuda()
print(f"{m(x).sum().item():.4f}")'
	run_case conv_llp "LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" -c "$CONV"
	if [ -x tests/gpu/old_nvjitlink.sh ]; then
		printf '\n### older libnvJitLink first on LD_LIBRARY_PATH\n'
		bash tests/gpu/old_nvjitlink.sh "$W/oldjit" && \
		run_case nvjitlink "LD_LIBRARY_PATH=$W/oldjit:${LD_LIBRARY_PATH:-}" -c 'import torch; print(torch.zeros(4, device="cuda").to_sparse().sum().item())'
		# torch 2.11 preloads its own nvJitLink by path, so the older copy is
		# never used above; a program that loads cuSPARSE by name gets it.
		run_case nvjitlink_direct "LD_LIBRARY_PATH=$W/oldjit:${LD_LIBRARY_PATH:-}" -c "import ctypes; ctypes.CDLL('$SP/nvidia/cu13/lib/libcusparse.so.12')"
	fi
} 2>&1 | tee "$OUT/stack.log"
tar czf "$OUT/stack-traces.tgz" -C "$W" .
