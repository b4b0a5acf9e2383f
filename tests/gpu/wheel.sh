#!/usr/bin/env bash
# GPU-machine run of issue 31 part 1 (the Python package) on real PyTorch 2.11
# (pip cuDNN 9.19) in the machine's python3 (/opt/torch/.venv), which gets the
# wheel with pip install --no-index (the machine is discarded afterwards):
#   here:  make wheel BUILD=build-gpu          (build-gpu/dist/gputrace-*.whl; carry build-gpu/dist)
#   there: bash tests/gpu/wheel.sh             (from the repository root; logs under $OUT)
# Cases (PASS/FAIL lines, exit 1 on any FAIL):
#  - install:  pip install --no-index of the wheel into that venv; the venv's gputrace runs
#  - trace:    python -m gputrace -- python3 conv.py: exit 0, the same stdout as bare, a report
#  - script:   python -m gputrace conv.py (the script form): exit status passed on
#  - check:    gputrace.check() after a conv: libtorch_cuda.so and the wheel's libcudnn.so.9
#              (version 9.19, its pip package) among the libraries, no error; HTML saved
#  - mixed:    the same with the system cuDNN 9.14 first on LD_LIBRARY_PATH: check() says
#              mixed-versions (the run still computes, as measured before)
set -u
cd "$(dirname "$0")/../.."
PY=${PY:-python3}
OUT=${OUT:-/tmp/gpu-out}
SYSCUDNN_DIR=${SYSCUDNN_DIR:-/lib/x86_64-linux-gnu}
W=$(mktemp -d /tmp/gt-wheel.XXXXXX)
mkdir -p "$OUT"
fails=0 passes=0
WHL=${WHL:-$(ls build-gpu/dist/gputrace-*.whl 2>/dev/null | head -1)}

verdict() {  # NAME OK(0/1) DETAIL
	if [ "$2" = 0 ]; then echo "PASS $1: $3"; passes=$((passes + 1)); else echo "FAIL $1: $3"; fails=$((fails + 1)); fi
}

cat >"$W/conv.py" <<'PY'
import torch
torch.manual_seed(0)
x = torch.randn(8, 3, 64, 64, device="cuda")
m = torch.nn.Conv2d(3, 16, 3).cuda()
print(f"{m(x).sum().item():.4f}")
PY

cat >"$W/check.py" <<'PY'
import json, sys, torch, gputrace
torch.manual_seed(0)
x = torch.randn(8, 3, 64, 64, device="cuda")
print(f"{torch.nn.Conv2d(3, 16, 3).cuda()(x).sum().item():.4f}", file=sys.stderr)
r = gputrace.check()
print(r, file=sys.stderr)
with open(sys.argv[1], "w") as f:
    f.write(r._repr_html_())
print(json.dumps({"verdict": r.verdict, "findings": [f.id for f in r.findings],
                  "libraries": [[l.path, l.family, l.version, l.package] for l in r.libraries]}))
PY

echo "== $(date -u) $(uname -r) glibc $(ldd --version | head -1)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "wheel: $WHL"
if [ -z "$WHL" ]; then
	verdict install 1 "no build-gpu/dist/gputrace-*.whl (make wheel BUILD=build-gpu here, carry build-gpu/dist)"
	exit 1
fi

# install
$PY -m pip install --no-index --no-deps --force-reinstall "$WHL" >"$OUT/wheel-pip.log" 2>&1
rc=$?
ver=$($PY -m gputrace --version 2>&1)
verdict install $([ $rc = 0 ] && [ -n "$ver" ] && echo 0 || echo 1) "pip exit $rc; python -m gputrace --version: $ver"

# trace
bare=$($PY "$W/conv.py" 2>"$OUT/wheel-bare.err")
traced=$($PY -m gputrace --color=never -o "$W/trace" -- $PY "$W/conv.py" 2>"$OUT/wheel-trace.err")
rc=$?
cp "$W/trace/report.txt" "$OUT/wheel-trace-report.txt" 2>/dev/null
verdict trace $([ $rc = 0 ] && [ "$bare" = "$traced" ] && [ -s "$W/trace/report.txt" ] && echo 0 || echo 1) \
	"exit $rc, stdout bare '$bare' traced '$traced'; $(head -1 "$W/trace/report.txt" 2>/dev/null)"

# script
printf 'import sys\nsys.exit(7)\n' >"$W/exit7.py"
$PY -m gputrace -q -o "$W/trace7" "$W/exit7.py"
rc=$?
verdict script $([ $rc = 7 ] && echo 0 || echo 1) "python -m gputrace exit7.py: exit $rc"

# check, healthy and mixed
for c in check mixed; do
	env=()
	[ $c = mixed ] && env=(LD_LIBRARY_PATH="$SYSCUDNN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
	env "${env[@]}" $PY "$W/check.py" "$OUT/wheel-$c.html" >"$OUT/wheel-$c.json" 2>"$OUT/wheel-$c.err"
	rc=$?
	cat "$OUT/wheel-$c.err"
	got=$($PY - "$OUT/wheel-$c.json" "$c" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
libs = r["libraries"]
torch_cuda = [l for l in libs if "/libtorch_cuda.so" in l[0]]
cudnn = [l for l in libs if l[0].endswith("/libcudnn.so.9") or "/libcudnn.so.9." in l[0]]
cudnn_ok = any((l[2] or "").startswith("9.19") and "nvidia-cudnn" in (l[3] or "") for l in cudnn)
if sys.argv[2] == "check":
    ok = torch_cuda and cudnn_ok and r["verdict"] != "error"
else:
    ok = "mixed-versions" in r["findings"]
print("0" if ok else "1", "verdict", r["verdict"], "findings", r["findings"], "libraries", len(libs),
      "cudnn", cudnn)
PY
)
	verdict $c "${got%% *}" "exit $rc; ${got#* }"
done

echo "== $passes passed, $fails failed"
[ $fails = 0 ]
