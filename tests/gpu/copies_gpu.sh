#!/usr/bin/env bash
# GPU-machine runs of issue 13 (several copies in one process), in one call:
# real PyTorch 2.11 with the pip cuDNN 9.19, and the system cuDNN 9.14 in
# /lib/x86_64-linux-gnu. Carry build-gpu/ (make BUILD=build-gpu SAN=
# JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" all).
# Each case runs bare, then traced; the exit statuses and first lines of
# output are compared, and the report's findings and per-file versions shown.
set -u
cd "$(dirname "$0")/../.."
FORKPOOL=$PWD/tests/gpu/forkpool.py
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
W=/tmp/gt-copies
rm -rf "$W"; mkdir -p "$W" "$OUT"
SYSCUDNN=/lib/x86_64-linux-gnu/libcudnn.so.9.14.0
CONV='import torch
torch.manual_seed(0)
x = torch.randn(8, 3, 64, 64, device="cuda")
m = torch.nn.Conv2d(3, 16, 3).cuda()
print(f"{m(x).sum().item():.4f}")
print("cudnn.version()", torch.backends.cudnn.version())'
cat >"$W/spawnpool.py" <<PY
import multiprocessing as mp
import torch
def f(i):
    return i * i
if __name__ == "__main__":
    x = torch.zeros(1, device="cuda")
    with mp.get_context("spawn").Pool(2) as p:   # terminated at the end of the block
        print(p.map(f, range(4)))
PY

# name, env assignment or "", then python3's arguments
run_case() {
	local name=$1 envset=$2; shift 2
	printf '\n### %s\n' "$name"
	env $envset python3 "$@" >"$W/$name.bare.out" 2>"$W/$name.bare.err"; local brc=$?
	env $envset "$GT" -q -o "$W/$name" -- python3 "$@" >"$W/$name.traced.out" 2>"$W/$name.traced.err"; local trc=$?
	echo "bare exit $brc, traced exit $trc"
	cmp -s "$W/$name.bare.out" "$W/$name.traced.out" && echo "stdout identical" || { echo "stdout differs:"; head -3 "$W/$name.bare.out" "$W/$name.traced.out"; }
	tail -n 2 "$W/$name.bare.err" | cut -c1-200
	"$GT" report "$W/$name" >"$W/$name.report" 2>&1; echo "report exit $?" >>"$W/$name.report"
	"$GT" report --json "$W/$name" >"$OUT/$name.report.json" 2>/dev/null
	grep -vE '^      (cudnn_|nvrtc|cufft|curand|cusparse|cusolver|cupti|nvJitLink|nvidia-ml)' "$W/$name.report" | cut -c1-260 | head -40
	python3 - "$OUT/$name.report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("findings:", [(f["id"], f["severity"]) for f in d["findings"]])
for p in d["processes"]:
    for l in p["libraries"]:
        if l["family"] == "cudnn":
            print("  pid %s copy %s %-30s %-10s %s %s %s" % (p["pid"], l.get("copy"), l["component"], l["version"],
                  l["found_by"], json.dumps(l["versions"]), l["path"]))
PY
}

{
	nvidia-smi -L
	run_case conv "" -c "$CONV"
	run_case conv_llp "LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" -c "$CONV"
	run_case ctypes "" -c "$CONV
import ctypes; ctypes.CDLL('$SYSCUDNN'); print('second cuDNN loaded')"
	run_case preload "LD_PRELOAD=$SYSCUDNN" -c "$CONV"
	run_case forkpool "" "$FORKPOOL"
	run_case spawnpool "" "$W/spawnpool.py"
	printf '\n### sigint: Ctrl-C (SIGINT from timeout) during a CUDA run\n'
	timeout -s INT 25 "$GT" -q -o "$W/sigint" -- python3 -c 'import torch, time
x = torch.zeros(1, device="cuda"); print("ready", flush=True); time.sleep(120)' >"$W/sigint.out" 2>&1
	echo "traced exit $?"; tail -2 "$W/sigint.out"
	"$GT" report "$W/sigint" | grep -vE '^    ' | cut -c1-200
} 2>&1 | tee "$OUT/copies.log"
tar czf "$OUT/copies-traces.tgz" -C "$W" .
