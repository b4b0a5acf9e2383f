#!/usr/bin/env bash
# GPU-machine runs of issue 27 (one diagnosis engine): facts gathered once,
# and scan --for judged by the trace's rules. Carry build-gpu/, built with
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a \
#        ELF_LIBS="-l:libelf.a -l:libz.a" all
# Run from the repository root: bash tests/gpu/facts.sh (logs under $OUT).
#   portable   torch's conv traced healthy and with the system cuDNN 9.14
#              first on LD_LIBRARY_PATH (mixed); each folder reported where
#              it ran, then copied and reported with the wheels' nvidia/
#              folder hidden (a private mount namespace, a tmpfs over it):
#              the same findings, every answer from gputrace-facts.json
#   paper      scan --for libtorch_cuda.so, healthy and with the system
#              cuDNN first: the finding ids of the trace of the same layout
#              (the issue's example: mixed-versions, an error, not six
#              warnings and exit 0)
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
PY=${PY:-python3}
W=/tmp/gt-facts
SYSTEM_CUDNN=${SYSTEM_CUDNN:-/lib/x86_64-linux-gnu}
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee "$OUT/facts.log") 2>&1
SITE=$($PY -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')
TORCH_CUDA=$SITE/torch/lib/libtorch_cuda.so
echo "site-packages: $SITE"
cat >"$W/conv.py" <<'PY'
import torch
x = torch.randn(8, 3, 64, 64, device="cuda")
c = torch.nn.Conv2d(3, 8, 3).cuda()
torch.backends.cudnn.enabled = True
print("conv", tuple(c(x).shape), "cudnn", torch.backends.cudnn.version())
PY
ids() { $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted({f["id"]+":"+f["severity"] for f in d["findings"]}), d.get("facts"))' "$1"; }
for case in healthy mixed; do
  echo "== portable: $case"
  if [ $case = mixed ]; then export LD_LIBRARY_PATH=$SYSTEM_CUDNN; else unset LD_LIBRARY_PATH; fi
  $GT -q -o "$W/$case" -- $PY "$W/conv.py"; echo "exit $?"
  unset LD_LIBRARY_PATH
  ls "$W/$case"
  $GT report --json "$W/$case" > "$W/$case.here.json"; echo "report here: exit $?"
  ids "$W/$case.here.json"
  cp -r "$W/$case" "$W/$case.copy"
  # the copy read where the wheels' libraries and the system cuDNN are gone
  unshare -m sh -c "mount -t tmpfs none '$SITE/nvidia' && mount -t tmpfs none '$SITE/torch/lib' && \
    ls '$SITE/nvidia' | wc -l >&2 && '$GT' report --json '$W/$case.copy'" > "$W/$case.elsewhere.json"
  echo "report elsewhere: exit $?"
  ids "$W/$case.elsewhere.json"
  $PY - "$W/$case.here.json" "$W/$case.elsewhere.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda d: json.dumps({k: v for k, v in d.items() if k != "facts"}, sort_keys=True).replace(".copy", "")
print("same report elsewhere:", strip(a) == strip(b), "| facts elsewhere:", b["facts"])
PY
  $GT report "$W/$case" | head -12
done
for case in healthy mixed; do
  echo "== paper: scan --for libtorch_cuda.so ($case)"
  if [ $case = mixed ]; then export LD_LIBRARY_PATH=$SYSTEM_CUDNN; else unset LD_LIBRARY_PATH; fi
  /usr/bin/time -f "scan --for: %e s" $GT scan --json --for "$TORCH_CUDA" > "$W/$case.scan.json"; echo "exit $?"
  $GT scan --for "$TORCH_CUDA" | grep -E "verdict|error|warning" | head -8
  unset LD_LIBRARY_PATH
  $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print("scan ids:", sorted({f["id"]+":"+f["severity"] for f in d["findings"] if "for" in json.dumps(f) or True}), "verdict:", d.get("for",{}).get("verdict"))' "$W/$case.scan.json"
  echo "trace ids:"; ids "$W/$case.here.json"
done
