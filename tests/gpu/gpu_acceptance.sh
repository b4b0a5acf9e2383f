#!/usr/bin/env bash
# The GPU-machine runs of issues 2 and 3, in one call: real PyTorch (torch 2.11,
# CUDA 13.0, cuDNN 9.19 wheels; a system cuDNN 9.14 in /lib/x86_64-linux-gnu).
# Carry build-gpu/ (make BUILD=build-gpu SAN= JANSSON_LIBS=-l:libjansson.a).
# The full log and the traces land in $OUT; stdout keeps the lines that matter.
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
W=/tmp/gt-gpu
rm -rf "$W"; mkdir -p "$W" "$OUT"
LOG=$OUT/gpu.log
CONV='import torch
torch.manual_seed(0)
x = torch.randn(8, 3, 64, 64, device="cuda")
m = torch.nn.Conv2d(3, 16, 3).cuda()
print(f"{m(x).sum().item():.4f}")'
KEY='open |call |alloc_fail|ver |total|alloc peak|ended|note|miss  libcuda|==|\[another'

section() { printf '\n### %s\n' "$*" | tee -a "$LOG"; }
run_pair() {  # name, env assignment or "", then the python code
	local name=$1 envset=$2 code=$3
	section "$name: bare"
	env $envset python3 -c "$code" >"$W/$name.bare.out" 2>"$W/$name.bare.err"
	echo "exit $?" | tee -a "$LOG"; tail -n 3 "$W/$name.bare.out" "$W/$name.bare.err" | tee -a "$LOG"
	section "$name: traced"
	local t0=$EPOCHREALTIME
	env $envset "$GT" -o "$W/$name" -- python3 -c "$code" >"$W/$name.traced.out" 2>"$W/$name.traced.err"
	local rc=$?
	echo "exit $rc ($(python3 -c "print(round($EPOCHREALTIME - $t0, 2))") s)" | tee -a "$LOG"
	tail -n 3 "$W/$name.traced.out" | tee -a "$LOG"
	cat "$W/$name.traced.err" >>"$LOG"
	cmp -s "$W/$name.bare.out" "$W/$name.traced.out" && echo "stdout identical to the bare run" | tee -a "$LOG"
	python3 tests/gpu/summarize.py "$W/$name" >"$W/$name.summary"
	cat "$W/$name.summary" >>"$LOG"
	if [ -n "${GPU_SUMMARY:-}" ]; then
		grep -E "$KEY" "$W/$name.summary" | grep -vE 'libnvrtc|libcufft|libcurand|libcusparse|libcusolver' | head -${4:-60}
	fi
	# The diagnosis, as users read it.
	"$GT" report "$W/$name" >"$W/$name.report" 2>&1
	echo "report exit $?" >>"$W/$name.report"
	"$GT" report --json "$W/$name" >"$OUT/$name.report.json" 2>&1
	tee -a "$LOG" <"$W/$name.report" | cut -c1-230 | head -${4:-60}
}

section machine
{ nvidia-smi -L; python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
  ls /lib/x86_64-linux-gnu/ | grep -E '^libcudnn(_graph)?\.so' ; uname -r; ldd --version | head -1; } 2>&1 | tee -a "$LOG"

PARTS=${GPU_PARTS:-conv llp nodev bench}
case " $PARTS " in *" conv "*) run_pair conv "" "$CONV" 60 ;; esac
# The system cuDNN 9.14 first on LD_LIBRARY_PATH, in front of what is there.
case " $PARTS " in *" llp "*) run_pair conv_llp "LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" \
	"$CONV
print(\"cudnn.version()\", torch.backends.cudnn.version())" 60 ;; esac
case " $PARTS " in *" nodev "*) run_pair nodev "CUDA_VISIBLE_DEVICES=" \
	'import torch; print(torch.cuda.is_available(), torch.cuda.device_count())' 20 ;; esac

if [ -x bench/torch_overhead.sh ] && case " $PARTS " in *" bench "*) true ;; *) false ;; esac; then
	section "overhead: paired runs, bare vs traced"
	R=${R:-7} GPUTRACE=$GT bench/torch_overhead.sh 2>&1 | tee -a "$LOG" | tail -8
fi
tar czf "$OUT/traces.tgz" -C "$W" .
