#!/usr/bin/env bash
# Issue 8 on the two-GPU machine: gputrace over a torchrun NCCL job, bare and
# traced, then with one rank's environment changed. Logs and reports in $OUT.
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
W=/tmp/gt-2gpu
rm -rf "$W"; mkdir -p "$W" "$OUT"
LOG=$OUT/two_gpus.log
export OMP_NUM_THREADS=1
TR="python3 -m torch.distributed.run --standalone --nproc_per_node=2"
say() { printf '\n### %s\n' "$*" | tee -a "$LOG"; }
timed() {  # name, command...: runs it, prints exit status and wall time
	local name=$1 t0=$EPOCHREALTIME rc
	shift
	"$@" >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	echo "$name: exit $rc, $(python3 -c "print(round($EPOCHREALTIME - $t0, 2))") s" | tee -a "$LOG"
	grep -E '^rank' "$W/$name.out" | sort | tee -a "$LOG"
	cat "$W/$name.err" >>"$LOG"
}

say machine
{ nvidia-smi -L; python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'; } 2>&1 | tee -a "$LOG"

say "same job: bare, then traced (twice each, wall time)"
for i in 1 2; do
	timed bare$i $TR tests/gpu/ddp_tiny.py
	timed traced$i "$GT" -q -o "$W/ddp$i" -- $TR tests/gpu/ddp_tiny.py
done
cmp -s <(sort "$W/bare1.out") <(sort "$W/traced1.out") && echo "ranks' output identical bare and traced" | tee -a "$LOG"
say "report of the traced job"
"$GT" report "$W/ddp1" 2>&1 | tee "$W/ddp1.report" | cut -c1-200 | grep -vE '^    (nvrtc|cupti|cufft|curand|cusparse|cusolver|nvJitLink|nvidia-ml|nvrtc-builtins) ' | head -60
"$GT" report --json "$W/ddp1" >"$OUT/ddp.report.json"; echo "report exit $?" | tee -a "$LOG"
python3 tests/gpu/summarize.py "$W/ddp1" >"$W/ddp1.summary"; cat "$W/ddp1.summary" >>"$LOG"
grep -E '^==|nccl|cudnnCreate|total cudaMalloc|alloc peak' "$W/ddp1.summary" | cut -c1-200 | tee -a "$LOG"

say "rank 1 with the system cuDNN first on LD_LIBRARY_PATH"
timed odd_bare $TR --no-python tests/gpu/rank_env.sh python3 tests/gpu/ddp_tiny.py
timed odd_traced "$GT" -q -o "$W/odd" -- $TR --no-python tests/gpu/rank_env.sh python3 tests/gpu/ddp_tiny.py
"$GT" report "$W/odd" 2>&1 | tee "$W/odd.report" | cut -c1-220 | grep -vE '^    ' | head -60
"$GT" report --json "$W/odd" >"$OUT/odd.report.json"; echo "report exit $?" | tee -a "$LOG"
cat "$W"/*.report >>"$LOG"
tar czf "$OUT/traces.tgz" -C "$W" .
