#!/usr/bin/env bash
# GPU-machine run of issue 30 (a newcomer's first hour): the five commands on
# the H200 with the torch venv (/opt/torch/.venv) and the system cuDNN 9.14,
# as a newcomer types them, plus the broken case of the issue (the system
# cuDNN first on LD_LIBRARY_PATH). Carry build-gpu/, built with
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a \
#        ELF_LIBS="-l:libelf.a -l:libz.a" all
# Run from the repository root: bash tests/gpu/newcomer.sh (logs under $OUT).
# What to look at: every line of every output <= 100 columns (counted at the
# end: "wide lines: N" must be 0 but for lone paths), the verdict on each
# first line, the run: lines (paste-able), no gputrace line on the program's
# stdout (stdout files), and that the doctor run with python3 on PATH (the
# system's, without torch) names /opt/torch/.venv/bin/python on its second
# line.
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
VENV=${VENV:-/opt/torch/.venv}
SYSTEM_CUDNN=${SYSTEM_CUDNN:-/lib/x86_64-linux-gnu}
W=/tmp/gt-newcomer
rm -rf "$W"; mkdir -p "$W" "$OUT"
cd "$W"
PROG='import torch; x = torch.randn(1, 3, 16, 16, device="cuda"); print(torch.nn.functional.conv2d(x, torch.randn(4, 3, 3, 3, device="cuda")).sum().item() != 0)'
run() {   # name, then the command: stdout and stderr apart, the status
	local name=$1; shift
	echo "== $name: $*"
	"$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
	echo "exit $?" >"$OUT/$name.status"
	cat "$OUT/$name.stdout" "$OUT/$name.stderr" | head -60
}
run trace "$GT" -o "$W/run" -- "$VENV/bin/python" -c "$PROG"
run report "$GT" report "$W/run"
run scan "$GT" scan
run scan_for "$GT" scan --for "$VENV"/lib/python3*/site-packages/torch/lib/libtorch_cuda.so
run doctor_path "$GT" doctor
run doctor_venv "$GT" doctor --python "$VENV/bin/python"
run mixed env LD_LIBRARY_PATH="$SYSTEM_CUDNN" "$GT" -o "$W/mixed" -- "$VENV/bin/python" -c "$PROG"
run mixed_retry "$GT" retry --yes "$W/mixed"
echo "== wide lines (more than 100 columns and more than one word):"
for f in "$OUT"/*.stdout "$OUT"/*.stderr; do
	awk -v F="$(basename "$f")" 'length > 100 && NF > 1 { print F ": " $0 }' "$f"
done | tee "$OUT/wide.txt"
echo "wide lines: $(wc -l <"$OUT/wide.txt")"
grep -l gputrace "$OUT/trace.stdout" "$OUT/mixed.stdout" && echo "FAILED: gputrace lines on the program's stdout"
echo "== doctor's first lines (python3 on PATH)"; head -3 "$OUT/doctor_path.stdout"
