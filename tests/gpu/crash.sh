#!/usr/bin/env bash
# GPU-machine runs of issue 32 (where it died): a torch process that crashes
# on purpose inside a CUDA library's call path, bare and under gputrace.
# Carry build-gpu/, built with
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a \
#        ELF_LIBS="-l:libelf.a -l:libz.a" all
# Run from the repository root: bash tests/gpu/crash.sh (logs under $OUT).
# Cases (each: bare and traced exit status, stderr compared, the traced
# report's crashed finding, the crash line):
#   cublas        torch initialises cuBLAS (a matmul), then ctypes calls
#                 cublasGetVersion_v2(handle, (int *)16) of the libcublas torch
#                 loaded: SIGSEGV inside libcublas.so.13, called from libffi
#                 and _ctypes; the report must name libcublas.so.13, its folder
#                 and its pip package (nvidia-cublas)
#   cudnn         torch runs one Conv2d (cuDNN loaded), then
#                 cudnnGetProperty(0, (int *)16) of torch's libcudnn.so.9:
#                 SIGSEGV in the cuDNN 9 front or the graph library it
#                 forwards to; named with the wheel's package
#   cudnn_mixed   the same with the system cuDNN 9.14 first on LD_LIBRARY_PATH
#                 (the graph library from the system, the front from the
#                 wheel): where the frames cross the two releases, the report
#                 must say so and point at mixed-versions
#   faulthandler  cublas under python3 -X faulthandler: the program's handler
#                 wins, the dump is the bare run's (addresses aside), the
#                 report falls back to the last libraries loaded
#   healthy       the matmul and the Conv2d alone: exit 0, no crashed finding
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
PY=${PY:-python3}
W=/tmp/gt-crash
SYSTEM_CUDNN=${SYSTEM_CUDNN:-/lib/x86_64-linux-gnu}
rm -rf "$W"; mkdir -p "$W" "$OUT"
LOG=$OUT/crash.log
exec > >(tee "$LOG") 2>&1

cat >"$W/crash.py" <<'PY'
import ctypes, sys
import torch

def loaded(stem):
    """The path of the first mapped file whose name starts with stem."""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if path.rsplit("/", 1)[-1].startswith(stem):
                return path
    raise SystemExit("%s is not loaded" % stem)

what = sys.argv[1]
a = torch.randn(64, 64, device="cuda")
(a @ a).sum().item()
x = torch.randn(1, 3, 16, 16, device="cuda")
torch.nn.functional.conv2d(x, torch.randn(4, 3, 3, 3, device="cuda")).sum().item()
torch.cuda.synchronize()
if what == "healthy":
    print("healthy run done")
    sys.exit(0)
bad = ctypes.c_void_p(16)
if what == "cublas":
    lib = ctypes.CDLL(loaded("libcublas.so"))
    handle = ctypes.c_void_p()
    print("cublasCreate_v2:", lib.cublasCreate_v2(ctypes.byref(handle)), flush=True)
    print("calling cublasGetVersion_v2 with a bad pointer", flush=True)
    lib.cublasGetVersion_v2(handle, bad)
elif what == "cudnn":
    lib = ctypes.CDLL(loaded("libcudnn.so.9"))
    print("calling cudnnGetProperty with a bad pointer", flush=True)
    lib.cudnnGetProperty(0, bad)
print("not crashed?")
PY

summary() {  # report.json
	"$PY" - "$1" <<'PYS'
import json, sys
d = json.load(open(sys.argv[1]))
print("findings:", [(f["id"], f["severity"]) for f in d["findings"]])
for f in d["findings"]:
    if f["id"] == "crashed":
        print("  summary:", f["summary"])
        print("  caused_by:", f.get("caused_by"))
        for e in f["evidence"]:
            print("  -", e["what"][:400])
            if e.get("role") == "crashed":
                print("    crashed: path=%s symbol=%s package=%s %s version=%s" % (
                    e.get("path"), e.get("symbol"), e.get("package"), e.get("package_version"), e.get("version")))
        print("  fix:", f["fix"])
PYS
}

run_case() {  # name, extra LD_LIBRARY_PATH ('' for none), python args...
	local name=$1 llp=$2; shift 2
	local env=(env)
	[ -n "$llp" ] && env+=("LD_LIBRARY_PATH=$llp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
	printf '\n### %s\n' "$name"
	"${env[@]}" "$PY" "$@" >"$W/$name.bare.out" 2>"$W/$name.bare.err"; echo "bare exit $?"
	"${env[@]}" "$GT" -q -o "$W/$name" -- "$PY" "$@" >"$W/$name.traced.out" 2>"$W/$name.traced.err"
	echo "traced exit $?"
	cmp -s "$W/$name.bare.out" "$W/$name.traced.out" && echo "stdout identical" || {
		echo "stdout differs:"; diff "$W/$name.bare.out" "$W/$name.traced.out" | head -20; }
	sed -E 's/0x[0-9a-f]+/0x?/g' "$W/$name.bare.err" >"$W/$name.bare.err.n"
	sed -E 's/0x[0-9a-f]+/0x?/g' "$W/$name.traced.err" >"$W/$name.traced.err.n"
	cmp -s "$W/$name.bare.err.n" "$W/$name.traced.err.n" && echo "stderr identical (addresses aside)" || {
		echo "stderr differs:"; diff "$W/$name.bare.err.n" "$W/$name.traced.err.n" | head -20; }
	tail -5 "$W/$name.bare.err"
	cat "$W/$name"/*.jsonl | tr -d '\000' | grep '"ev":"crash"' | cut -c1-1500
	"$GT" report --json "$W/$name" >"$W/$name.report.json"; echo "report exit $?"
	summary "$W/$name.report.json"
	"$GT" report "$W/$name" >"$W/$name.report.txt"
	sed -n '/crashed:/,/fix:/p' "$W/$name.report.txt"
	cp -r "$W/$name" "$W/$name".*.json "$W/$name".*.txt "$W/$name".*.out "$W/$name".*.err "$OUT/" 2>/dev/null
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
ls "$SYSTEM_CUDNN"/libcudnn_graph.so.9* 2>/dev/null
readelf -d build-gpu/libgputrace.so | grep NEEDED

run_case healthy "" "$W/crash.py" healthy
run_case cublas "" "$W/crash.py" cublas
run_case cudnn "" "$W/crash.py" cudnn
run_case cudnn_mixed "$SYSTEM_CUDNN" "$W/crash.py" cudnn
run_case faulthandler "" -X faulthandler "$W/crash.py" cublas
echo "logs in $OUT"
