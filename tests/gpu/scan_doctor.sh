#!/usr/bin/env bash
# Issues 5 and 6 on the GPU machine: gputrace scan of the host (the wheel's
# cuDNN 9.19 and dpkg's 9.14), --for torch's libtorch_cuda.so, then gputrace
# doctor with its wall time. Full outputs in $OUT.
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
SITE=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
echo "### scan (site-packages: $SITE)"
t0=$EPOCHREALTIME
"$GT" scan >"$OUT/scan.txt" 2>&1
echo "scan exit $?, $(python3 -c "print(round($EPOCHREALTIME - $t0, 2))") s"
head -1 "$OUT/scan.txt"
grep -E '^  cudnn |^  cudnn_graph |^  cudart |^  cuda |^(error|warning|info) ' "$OUT/scan.txt" | cut -c1-230 | head -30
"$GT" scan --json >"$OUT/scan.json" 2>&1
echo "### scan --for libtorch_cuda.so"
"$GT" scan --for "$SITE/torch/lib/libtorch_cuda.so" >"$OUT/scan_for.txt" 2>&1
echo "exit $?"
sed -n '/^for /,$p' "$OUT/scan_for.txt" | cut -c1-200 | head -45
echo "### doctor"
t0=$EPOCHREALTIME
"$GT" doctor >"$OUT/doctor.txt" 2>&1
rc=$?
echo "doctor exit $rc, wall $(python3 -c "print(round($EPOCHREALTIME - $t0, 2))") s"
cut -c1-200 "$OUT/doctor.txt" | head -45
"$GT" doctor --json >"$OUT/doctor.json" 2>&1
