#!/usr/bin/env bash
# GPU-machine runs of issue 19 (diff, fixes as data, --try-fixes), in one call:
# real PyTorch 2.11 with the pip cuDNN 9.19, the system cuDNN 9.14 in
# /lib/x86_64-linux-gnu. Carry build-gpu/ (make BUILD=build-gpu SAN=
# JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" all).
#   1. healthy: gputrace -o OUT/healthy -- python3 conv.py
#   2. gputrace -o OUT/try --try-fixes -- env LD_LIBRARY_PATH=/lib/x86_64-linux-gnu python3 conv.py
#      (LD_LIBRARY_PATH set by env(1) inside the command, so it reaches the
#      traced python3 only; retry changes python3's own recorded environment)
#      must show the mixed cuDNN, then "fixed: all clear" with the fix applied
#   3. gputrace diff OUT/healthy OUT/try, and OUT/try against OUT/try/retry-1
#   4. gputrace retry --yes --json OUT/try (the same fix, as data)
# Everything it writes is under $OUT; a summary is in $OUT/retry_gpu.txt.
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
rm -rf "$OUT/healthy" "$OUT/try" "$OUT/retry-again"
cat >"$OUT/conv.py" <<'PY'
import torch
torch.manual_seed(0)
x = torch.randn(8, 3, 64, 64, device="cuda")
m = torch.nn.Conv2d(3, 16, 3).cuda()
print(f"{m(x).sum().item():.4f}")
print("cudnn.version()", torch.backends.cudnn.version())
PY
S=$OUT/retry_gpu.txt
{
echo "### 1. healthy"
"$GT" -o "$OUT/healthy" -- python3 "$OUT/conv.py"; echo "exit $?"
echo
echo "### 2. --try-fixes with LD_LIBRARY_PATH=/lib/x86_64-linux-gnu (through env inside the command)"
"$GT" -o "$OUT/try" --try-fixes -- env LD_LIBRARY_PATH=/lib/x86_64-linux-gnu python3 "$OUT/conv.py"; echo "exit $?"
echo
echo "### the first run's findings and their fix_data"
"$GT" report --json "$OUT/try" >"$OUT/try.report.json"
python3 - "$OUT/try.report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    print(f["id"], f["severity"], json.dumps(f.get("fix_data")))
for p in d["processes"][:1]:
    print("recorded env:", json.dumps(p.get("env")), "cwd:", p.get("cwd"), "argv:", p["argv"])
PY
echo
echo "### 3a. gputrace diff healthy try"
"$GT" diff "$OUT/healthy" "$OUT/try"; echo "diff exit $?"
"$GT" diff --json "$OUT/healthy" "$OUT/try" >"$OUT/diff-healthy-try.json"; echo "diff --json exit $?"
echo
echo "### 3b. gputrace diff try try/retry-1"
"$GT" diff "$OUT/try" "$OUT/try/retry-1"; echo "diff exit $?"
echo
echo "### 3c. gputrace diff healthy try/retry-1 (should be the same libraries)"
"$GT" diff "$OUT/healthy" "$OUT/try/retry-1"; echo "diff exit $?"
echo
echo "### 4. gputrace retry --yes --json try -o retry-again"
"$GT" retry --yes --json -o "$OUT/retry-again" "$OUT/try" >"$OUT/retry.json"; echo "retry exit $?"
python3 - "$OUT/retry.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    print(r.get("fix"), "gone:", r.get("gone"), "still:", r.get("still"), "new:", r.get("new"),
          "exit", r.get("exit"), "was", r.get("was"), "all_clear", r.get("all_clear"))
PY
} >"$S" 2>&1
cat "$S"
