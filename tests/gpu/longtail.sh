#!/usr/bin/env bash
# GPU-machine runs of issue 28 part A (the long tail, in-process halves), in
# one call: real PyTorch 2.11 (pip cuDNN 9.19, NCCL wheel) in /opt/torch/.venv,
# the system cuDNN 9.14 in /lib/x86_64-linux-gnu, JAX and CuPy of the same venv.
#   bash tests/gpu/longtail.sh        (from the repository root, build-gpu/ carried:
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" all)
# Each case runs bare, then traced; exit statuses and stdout are compared, the
# report's findings shown, and what the case must give checked (PASS/FAIL
# lines, a summary, exit 1 on any FAIL). Logs and reports under $OUT.
#  - healthy:        torch conv: all clear (no finding at all)
#  - forkpool:       a fork Pool after CUDA init whose task uses CUDA: fork-after-init, start method fork
#  - dataloader:     a DataLoader (fork) whose dataset makes CUDA tensors: fork-after-init
#  - cudnn_first:    the system cuDNN 9.14 loaded (by path, as a second framework
#                    bundling it does) before import torch: already-loaded naming it
#  - nccl_first:     the same with another libnccl.so.2 of the host, when there is one
#  - jax_cupy_first: jax and cupy used before torch, sharing the venv's wheels: no
#                    already-loaded, no error
set -u
cd "$(dirname "$0")/../.."
FORKPOOL=$PWD/tests/gpu/forkpool.py
GT=${GT:-$PWD/build-gpu/gputrace}
PY=${PY:-python3}
OUT=${OUT:-/tmp/gpu-out}
W=$(mktemp -d /tmp/gt-longtail.XXXXXX)
mkdir -p "$OUT"
SYSCUDNN=${SYSCUDNN:-/lib/x86_64-linux-gnu/libcudnn.so.9.14.0}
export XLA_PYTHON_CLIENT_PREALLOCATE=false
fails=0 passes=0

CONV='import torch
torch.manual_seed(0)
x = torch.randn(8, 3, 64, 64, device="cuda")
m = torch.nn.Conv2d(3, 16, 3).cuda()
print(f"{m(x).sum().item():.4f}")
print("cudnn.version()", torch.backends.cudnn.version())'


cat >"$W/dataloader.py" <<'PY'
import torch
from torch.utils.data import DataLoader, Dataset
class OnGpu(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return torch.full((2,), float(i), device="cuda")   # pytorch/pytorch#77159
if __name__ == "__main__":
    torch.zeros(1, device="cuda")   # CUDA initialised before the workers fork
    for batch in DataLoader(OnGpu(), batch_size=2, num_workers=2, multiprocessing_context="fork"):
        print(batch.sum().item())
PY

# name, env assignment or "", then python's arguments
run_case() {
	local name=$1 envset=$2; shift 2
	printf '\n### %s\n' "$name"
	timeout 100 env $envset "$PY" "$@" >"$W/$name.bare.out" 2>"$W/$name.bare.err"; local brc=$?
	timeout 100 env $envset "$GT" -q -o "$W/$name" -- "$PY" "$@" >"$W/$name.traced.out" 2>"$W/$name.traced.err"; local trc=$?
	echo "bare exit $brc, traced exit $trc"
	[ "$brc" = "$trc" ] || echo "FAIL $name: exit status differs (bare $brc, traced $trc)"
	cmp -s "$W/$name.bare.out" "$W/$name.traced.out" && echo "stdout identical" ||
		{ echo "stdout differs:"; head -3 "$W/$name.bare.out" "$W/$name.traced.out"; }
	tail -n 3 "$W/$name.bare.err" | cut -c1-240
	"$GT" report "$W/$name" >"$OUT/$name.report.txt" 2>&1; echo "report exit $?" >>"$OUT/$name.report.txt"
	"$GT" report --json "$W/$name" >"$OUT/$name.report.json" 2>"$OUT/$name.report.err"
	grep -vE '^      (cudnn_|nvrtc|cufft|curand|cusparse|cusolver|cupti|nvJitLink|nvidia-ml)' "$OUT/$name.report.txt" |
		cut -c1-200 | head -60
	cp "$W/$name".*.out "$W/$name".*.err "$OUT/" 2>/dev/null
	tar -C "$W" -czf "$OUT/$name.traces.tgz" "$name" 2>/dev/null
}

# name, then checks: +ID (must be there), -ID (must not), =clear (no finding),
# noerror (no error-level finding), path:ID:TEXT (a finding ID whose JSON names TEXT),
# start:fork (a fork-after-init with start_method fork)
check() {
	local name=$1; shift
	"$PY" - "$OUT/$name.report.json" "$name" "$@" <<'PY'
import json, sys
path, name, checks = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    d = json.load(open(path))
except Exception as e:
    print("FAIL %s: no report (%s)" % (name, e)); sys.exit(1)
fs = d.get("findings", [])
print("findings:", [(f["id"], f["severity"]) for f in fs])
for f in fs:
    if f["id"] in ("already-loaded", "fork-after-init"):
        print("  %s %s: %s" % (f["severity"], f["id"], f["summary"]))
        for e in f["evidence"]:
            print("    - " + e.get("what", "")[:300])
        print("    fix: " + f.get("fix", "")[:300])
bad = []
for c in checks:
    if c.startswith("+") and not any(f["id"] == c[1:] for f in fs):
        bad.append("no %s" % c[1:])
    elif c.startswith("-") and any(f["id"] == c[1:] for f in fs):
        bad.append("unexpected %s" % c[1:])
    elif c == "=clear" and fs:
        bad.append("not all clear")
    elif c == "noerror" and any(f["severity"] == "error" for f in fs):
        bad.append("an error finding")
    elif c.startswith("path:"):
        _, fid, text = c.split(":", 2)
        if not any(f["id"] == fid and text in json.dumps(f) for f in fs):
            bad.append("no %s naming %s" % (fid, text))
    elif c == "start:fork":
        if not any(f["id"] == "fork-after-init" and
                   any(e.get("start_method") == "fork" for e in f["evidence"]) for f in fs):
            bad.append("fork-after-init without start_method fork")
print(("FAIL %s: %s" % (name, "; ".join(bad))) if bad else "PASS %s" % name)
sys.exit(1 if bad else 0)
PY
	if [ $? = 0 ]; then passes=$((passes + 1)); else fails=$((fails + 1)); fi
}

{
	nvidia-smi -L
	"$PY" -c 'import torch, sys; print("torch", torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), sys.executable)'
	ls -l "$SYSCUDNN" 2>&1

	run_case healthy "" -c "$CONV"
	check healthy =clear

	run_case forkpool "" "$FORKPOOL"
	check forkpool +fork-after-init start:fork -already-loaded

	run_case dataloader "" "$W/dataloader.py"
	check dataloader +fork-after-init start:fork -already-loaded

	if [ -e "$SYSCUDNN" ]; then
		run_case cudnn_first "" -c "import ctypes; ctypes.CDLL('$SYSCUDNN')
$CONV"
		check cudnn_first +already-loaded "path:already-loaded:$(basename "$SYSCUDNN")"
	else
		echo "SKIP cudnn_first: no $SYSCUDNN"
	fi

	# another NCCL of the host than the venv's, if any (not the wheel torch uses)
	OTHERNCCL=$(find /usr/lib /usr/local /lib /opt -name 'libnccl.so.2*' -type f 2>/dev/null |
		grep -v '/opt/torch/.venv/' | head -1)
	if [ -n "$OTHERNCCL" ]; then
		run_case nccl_first "" -c "import ctypes; ctypes.CDLL('$OTHERNCCL')
$CONV"
		check nccl_first "path:already-loaded:$(basename "$OTHERNCCL")"
	else
		echo "SKIP nccl_first: no libnccl.so.2 outside the venv"
	fi

	run_case jax_cupy_first "" -c "import jax, jax.numpy as jnp
print(float(jnp.ones(4).sum()))
import cupy
print(float(cupy.ones(4).sum()))
$CONV"
	check jax_cupy_first -already-loaded noerror

	printf '\n%d passed, %d failed (logs in %s)\n' "$passes" "$fails" "$OUT"
} 2>&1 | tee "$OUT/longtail.log"
grep -q '^FAIL ' "$OUT/longtail.log" && exit 1
exit 0
