#!/usr/bin/env bash
# Issue 29's cost figures where there are CPUs to spare (the H200 host, 16
# CPUs: 8 threads without oversubscription, which the 2-CPU build VM cannot
# give). Built beforehand, here or carried:
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a \
#        ELF_LIBS="-l:libelf.a -l:libz.a" all fixtures
# Runs (logs under $OUT):
#   hooks-1.txt, hooks-8.txt  malloc_loop against the fake runtime, 1 thread x
#                             10M pairs and 8 threads x 1M pairs, 11 paired rounds
#                             (aim: +<= 10 ns a call at 1 and at 8 threads): each
#                             thread's CPU time a call (cpu_ns_per_call) and its
#                             wall time a call (ns_per_call), medians of the
#                             per-round differences; with 16 CPUs the 8 threads
#                             run side by side, so both should agree
#   hooks-counts.txt          one traced 8 x 1M run: the calls lines must count
#                             exactly 8,000,000 cudaMalloc and cudaFree
#   loaded-again.txt          one dlopen of an already-loaded file, 3,000 loaded,
#                             7 paired rounds (aim: <= 1.2x bare)
#   torch-import.txt          python3 -c 'import torch' bare, with the library
#                             alone, and gputrace -q -o DIR, 11 rotating rounds
#                             (aim: -o / bare <= 1.01, library alone within noise)
#   diagnosis-child.txt       the diagnosis child of gputrace -q -o DIR -- import torch,
#                             as the launcher measured it (aim <= 10 ms), RD runs
#   diagnosis-profile.txt     the same runs' phases and questions (GPUTRACE_FACTS_PROFILE)
#   report-torch.txt          the end-of-run diagnosis of one traced import torch
#                             (aim <= 10 ms): live (asking the host, as at the
#                             end of a run), recorded (a later report, reading
#                             the facts file) and the process start alone
# B=DIR names another build folder (default build-gpu); R, N1, N8 the rounds
# and pairs (11, 10000000, 1000000), smaller for a quick try; RT the rounds of
# import torch (R). ONLY="hooks again torch diag report" (the default: all) picks parts; BEFORE=PATH/gputrace adds another build's
# traced arm to the hooks' rounds (paired.py --also) and an o_before arm to import
# torch's (TOGETHER then needs a fourth CPU). The fake runtime of the
# build must be 993b109's or later (a counter per thread): the older one made
# bare 8-thread calls wait for one shared line (144 ns a call at 8 threads).
set -u
cd "$(dirname "$0")/../.."
B=${B:-build-gpu}
R=${R:-11}
N1=${N1:-10000000}
N8=${N8:-1000000}
OUT=${OUT:-/tmp/gpu-out}
PY=${PY:-python3}
mkdir -p "$OUT"
for p in "$B/gputrace" "$B/libgputrace.so" "$B/fixtures/driver"; do
	[ -e "$p" ] || { echo "cost29.sh: $p missing: build first (see the top of this file)" >&2; exit 1; }
done
B=$(cd "$B" && pwd)
CC=${CC:-cc}
mkdir -p "$B/bench"
echo "host: $(uname -srm), $(nproc --all) CPUs; $(date -u +%Y-%m-%dT%H:%MZ); $(git log -1 --format=%h 2>/dev/null)" | tee "$OUT/host.txt"
want() { case " ${ONLY:-hooks again torch diag report} " in *" $1 "*) return 0;; esac; return 1; }

if want hooks; then
$CC -O2 -pthread -o "$B/bench/malloc_loop" bench/malloc_loop.c -L"$B/fixtures/cuda-13/lib64" \
	-l:libcudart.so.13 -Wl,-rpath,"$B/fixtures/cuda-13/lib64" || exit 1
ALSO=${BEFORE:+--also=before=$BEFORE}
LD_LIBRARY_PATH="$B/fixtures/driver" "$PY" bench/paired.py --metric cpu_ns_per_call \
	--extra ns_per_call --rounds "$R" $ALSO \
	--gputrace "$B/gputrace" --label "malloc_loop 10M pairs, 1 thread" \
	-- "$B/bench/malloc_loop" "$N1" 1 >"$OUT/hooks-1.txt" 2>&1
LD_LIBRARY_PATH="$B/fixtures/driver" "$PY" bench/paired.py --metric cpu_ns_per_call \
	--extra ns_per_call --extra loop_ns $ALSO \
	--rounds "$R" --gputrace "$B/gputrace" --label "malloc_loop 8 threads x 1M pairs" \
	-- "$B/bench/malloc_loop" "$N8" 8 >"$OUT/hooks-8.txt" 2>&1
LD_LIBRARY_PATH="$B/fixtures/driver" "$PY" bench/paired.py --metric cpu_ns_per_call --rounds 1 \
	--warmup 0 --calls --gputrace "$B/gputrace" --label "8 x 1M pairs: exact counts" \
	-- "$B/bench/malloc_loop" 1000000 8 >"$OUT/hooks-counts.txt" 2>&1
tail -n +1 "$OUT"/hooks-1.txt "$OUT"/hooks-8.txt "$OUT"/hooks-counts.txt | grep -v "^command\|^rounds"
fi
if want again; then
$CC -O2 -o "$B/bench/loaded_again" bench/loaded_again.c -ldl || exit 1
LIBS="$B/bench/load300" COUNT=3000 CC=$CC sh bench/gen_load_libs.sh || exit 1
"$PY" bench/paired.py --metric ms_per_op --rounds "$R" --gputrace "$B/gputrace" \
	--label "loaded_again: 3,000 loaded" \
	-- "$B/bench/loaded_again" "$B/bench/load300" 3000 20 >"$OUT/loaded-again.txt" 2>&1
tail -n +1 "$OUT"/loaded-again.txt | grep -v "^command\|^rounds"
fi
LIB=$B/libgputrace.so
if want torch; then
# PIN="taskset -c 3" runs every arm on one CPU: import torch starts
# threads whose spinning spread the unpinned CPU times over ~1.8 s a run
# (bench/results/gpu-s40/call1: 4 runs pinned 2.83-3.00 s CPU, unpinned
# 4.69-5.70 s); what gputrace adds does not depend on the CPU count.
# Every arm then starts through the same `taskset -c N env`, the library's
# variables set by env, so that only python3 is audited.
# TOGETHER="3,7,11" runs the three arms of a round at once, each on one of
# those CPUs (arms.py --together; the CPUs rotate among the arms), so that
# the VM's drift over seconds slows all three alike; PIN is then not used.
P=${PIN:+$PIN env }
[ -n "${TOGETHER:-}" ] && P=""
# Every arm makes and removes a folder and starts through env, bare too:
# mktemp, rm and env are three processes (~3 ms of CPU on the build VM)
# that the traced arms alone paid until session 42, counted as gputrace's.
E=${P:-env }
"$PY" bench/arms.py --rounds "${RT:-$R}" ${TOGETHER:+--together "$TOGETHER"} --json "$OUT/torch-import.json" \
	"bare=d=\$(mktemp -d); $E$PY -c 'import torch'; rm -rf \$d" \
	"lib=d=\$(mktemp -d); ${E}GPUTRACE_DIR=\$d LD_AUDIT=$LIB LD_PRELOAD=$LIB $PY -c 'import torch'; rm -rf \$d" \
	"o=d=\$(mktemp -d); $E$B/gputrace -q -o \$d/t -- $PY -c 'import torch'; rm -rf \$d" \
	${BEFORE:+"o_before=d=\$(mktemp -d); $E$BEFORE -q -o \$d/t -- $PY -c 'import torch'; rm -rf \$d"} \
	>"$OUT/torch-import.txt" 2>&1
tail -n +1 "$OUT"/torch-import.txt
fi
if want diag; then
# The end-of-run diagnosis as users pay it: the forked child of
# `gputrace -q -o DIR -- python3 -c 'import torch'`, its CPU and wall time
# as the launcher reaped it (GPUTRACE_FACTS_PROFILE=1), RD runs (11).
# Every profile line (the phases and the questions' sections too) goes to
# diagnosis-profile.txt, each run's lines after a "== run N" line.
for i in $(seq "${RD:-11}"); do
	d=$(mktemp -d)
	echo "== run $i" >>"$OUT/diagnosis-profile.txt"
	GPUTRACE_FACTS_PROFILE=1 $B/gputrace -q -o "$d/t" -- "$PY" -c 'import torch' 2>&1 |
		grep 'facts profile' | tee -a "$OUT/diagnosis-profile.txt" | grep 'diagnosis child'
	rm -rf "$d"
done >"$OUT/diagnosis-child.txt"
"$PY" - "$OUT/diagnosis-child.txt" "$OUT/diagnosis-profile.txt" <<'PYEOF' | tee -a "$OUT/diagnosis-child.txt"
import collections, re, statistics, sys
v = [tuple(map(float, m)) for m in re.findall(r"child ([0-9.]+) ms CPU, ([0-9.]+) ms wall", open(sys.argv[1]).read())]
print("diagnosis child of import torch, %d runs: CPU median %.1f ms [min %.1f, max %.1f], wall median %.1f ms"
      % (len(v), statistics.median(c for c, _ in v), min(c for c, _ in v), max(c for c, _ in v),
         statistics.median(w for _, w in v)))
parts = collections.defaultdict(list)
for line in open(sys.argv[2]):
    m = re.search(r"profile: (phase \S+|\S+ +\d+ asked) +([0-9.]+) ms", line)
    if m:
        parts[re.sub(r" +", " ", m.group(1))].append(float(m.group(2)))
for k, xs in parts.items():
    print("  %-26s median %7.3f ms [%.3f-%.3f], %d runs" % (k, statistics.median(xs), min(xs), max(xs), len(xs)))
PYEOF
fi
if want report; then
# The end-of-run diagnosis is what `gputrace PROGRAM` runs after the program
# ended: read the traces, ask this host about their files, write
# gputrace-facts.json, render. live = that work (the facts file removed
# first); recorded = a later `gputrace report` of the folder, which reads
# the facts file instead of the host; floor = the same binary starting and
# exiting. Every arm runs the same rm.
T=$(mktemp -d)
$B/gputrace -q -o "$T/t" -- "$PY" -c 'import torch'
cp -r "$T/t" "$T/live"
"$PY" bench/arms.py --rounds "$R" \
	"floor=rm -f $T/none; $B/gputrace --version" \
	"live=rm -f $T/live/gputrace-facts.json; $B/gputrace report --save-facts $T/live" \
	"live_nodpkg=rm -f $T/live/gputrace-facts.json; GPUTRACE_DPKG_ROOT=/nonexistent $B/gputrace report --save-facts $T/live" \
	"recorded=rm -f $T/none; $B/gputrace report $T/t" >"$OUT/report-torch.txt" 2>&1
wc -l "$T"/t/*.jsonl >>"$OUT/report-torch.txt"
rm -rf "$T"
tail -n +1 "$OUT"/report-torch.txt
fi
