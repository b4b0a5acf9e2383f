#!/usr/bin/env bash
# Instructions executed by `python3 -c 'import torch'` bare, with the library
# alone (LD_AUDIT + LD_PRELOAD) and under `gputrace -q -o DIR` (the launcher,
# the program and the diagnosis child: every process), counted by
# valgrind's callgrind. A count does not drift with the VM's speed as a time
# does: where a 1% difference drowns in run-to-run noise (bench/results/
# gpu-s42), the count still shows what each build adds, exactly, run after
# run. It is not a time (cache misses, system calls and page faults cost
# without instructions): the times stay in cost29.sh and torch_batches.sh.
#   sh bench/torch_instructions.sh BUILD [BUILD...]     (each BUILD/gputrace, BUILD/libgputrace.so)
# PY (/usr/bin/python3); OMP_NUM_THREADS=1 is set for every arm (its spinning
# threads make the count vary). ~2 minutes an arm here. VG is the valgrind
# command (valgrind): on the H200, which has none, a copy carried in the
# build folder, called as valgrind.bin itself, since Debian's valgrind script
# sets LD_LIBRARY_PATH and GLIBCXX_FORCE_NEW for the program it runs:
#   VG="env VALGRIND_LIB=build-gpu/vg build-gpu/vg/valgrind.bin"
# PAR=1 runs the arms at once (a count does not depend on what else runs);
# KEEP=DIR keeps the callgrind files there (for callgrind_annotate).
set -eu
PY=${PY:-/usr/bin/python3}
export OMP_NUM_THREADS=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
total() {  # sum of the "summary:" lines of callgrind files (shell arithmetic: mawk's %d stops at 2^31)
	s=0
	for v in $(grep -h '^summary:' "$@" | cut -d' ' -f2); do
		s=$((s + v))
	done
	echo "$s"
}
VG=${VG:-valgrind}
# One run of each build's -o first, not counted (WARM=0: none): the steady
# state a user's second run meets. The diagnosis child keeps an index of the
# site's pip RECORDs (and of dpkg's lists) in ~/.cache/gputrace; the first
# run after an install makes it: 127 M instructions of the H200 child's 140 M
# on a fresh VM (results/gpu-s50 call 2); with it made, the child counted
# 13.9 M (call 3): the index is mapped, not made.
if [ "${WARM:-1}" != 0 ]; then
	"$PY" -c 'import torch' >/dev/null 2>&1 || true
	for b in "$@"; do
		"$b/gputrace" -q -o "$T/warm$(echo "$b" | tr / _)" -- "$PY" -c 'import torch' >/dev/null 2>&1 || true
	done
fi
arm_bare() {
	$VG --tool=callgrind --callgrind-out-file="$T/bare.%p" "$PY" -c 'import torch' >/dev/null 2>&1
}
arm_lib() {  # build folder (absolute), its name in $T
	mkdir -p "$T/d$2"
	GPUTRACE_DIR="$T/d$2" LD_AUDIT=$1/libgputrace.so LD_PRELOAD=$1/libgputrace.so \
		$VG --tool=callgrind --callgrind-out-file="$T/lib$2.%p" "$PY" -c 'import torch' >/dev/null 2>&1
}
arm_o() {
	$VG --tool=callgrind --trace-children=yes --callgrind-out-file="$T/o$2.%p" \
		"$1/gputrace" -q -o "$T/o$2" -- "$PY" -c 'import torch' >/dev/null 2>&1 || true
}
if [ -n "${PAR:-}" ]; then
	arm_bare &
	pids=$!
	for b in "$@"; do
		b=$(cd "$b" && pwd)
		arm_lib "$b" "$(echo "$b" | tr / _)" &
		pids="$pids $!"
		arm_o "$b" "$(echo "$b" | tr / _)" &
	done
	# an arm that fails (valgrind stopped by an instruction it does not know)
	# counts only part of the import: no figure then
	for p in $pids; do
		wait "$p" || { echo "an arm failed (status $?): no figures" >&2; exit 1; }
	done
	wait
else
	arm_bare
fi
bare=$(total "$T"/bare.*)
printf '%-40s %15s instructions\n' "bare" "$bare"
for b in "$@"; do
	b=$(cd "$b" && pwd)
	n=$(echo "$b" | tr / _)
	[ -n "${PAR:-}" ] || { arm_lib "$b" "$n"; arm_o "$b" "$n"; }
	lib=$(total "$T"/lib"$n".*)
	o=$(total "$T"/o"$n".*)
	awk -v n="$b" -v bare="$bare" -v lib="$lib" -v o="$o" 'BEGIN {
		printf "%-40s %15.0f instructions, %+.0f (%.4f)\n", n " library alone", lib, lib - bare, lib / bare
		printf "%-40s %15.0f instructions, %+.0f (%.4f)\n", n " -o", o, o - bare, o / bare }'
done
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	find "$T" -maxdepth 1 -type f -exec cp {} "$KEEP"/ \;
fi
