#!/usr/bin/env bash
# GPU-machine check of the doctor's device_code step and of scan --arch /
# scan --ask on the H200's real libraries (issues 16 and 18). Carry build-gpu/.
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
WHEEL=/opt/torch/.venv/lib/python3.12/site-packages/nvidia
TORCH_LIB=/opt/torch/.venv/lib/python3.12/site-packages/torch/lib
run() {
	local name=$1
	shift
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	local rc=$?
	t1=$(date +%s.%N)
	printf '### %s: exit %s in %.2f s: %s\n' "$name" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$*"
	head -c 6000 "$OUT/$name.out"
	head -c 1000 "$OUT/$name.err"
}
run doctor "$GT" doctor --color=never
run doctor_json "$GT" doctor --json
grep -o '"name": *"device_code"[^}]*' "$OUT/doctor_json.out" | head -3
run arch_wheel "$GT" scan --arch sm_90 --color=never "$WHEEL" "$TORCH_LIB"
run arch_system "$GT" scan --arch sm_90 --color=never /usr/local/cuda/lib64 /lib/x86_64-linux-gnu
run arch_old "$GT" scan --arch sm_61 --color=never "$WHEEL"
run ask_wheel "$GT" scan --ask --color=never "$WHEEL"
