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
# threads make the count vary). ~2 minutes an arm here.
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
valgrind --tool=callgrind --callgrind-out-file="$T/bare.%p" "$PY" -c 'import torch' >/dev/null 2>&1
bare=$(total "$T"/bare.*)
printf '%-40s %15s instructions\n' "bare" "$bare"
for b in "$@"; do
	b=$(cd "$b" && pwd)
	n=$(echo "$b" | tr / _)
	mkdir -p "$T/d$n"
	GPUTRACE_DIR="$T/d$n" LD_AUDIT=$b/libgputrace.so LD_PRELOAD=$b/libgputrace.so \
		valgrind --tool=callgrind --callgrind-out-file="$T/lib$n.%p" "$PY" -c 'import torch' >/dev/null 2>&1
	lib=$(total "$T"/lib"$n".*)
	valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$T/o$n.%p" \
		"$b/gputrace" -q -o "$T/o$n" -- "$PY" -c 'import torch' >/dev/null 2>&1 || true
	o=$(total "$T"/o"$n".*)
	awk -v n="$b" -v bare="$bare" -v lib="$lib" -v o="$o" 'BEGIN {
		printf "%-40s %15.0f instructions, %+.0f (%.4f)\n", n " library alone", lib, lib - bare, lib / bare
		printf "%-40s %15.0f instructions, %+.0f (%.4f)\n", n " -o", o, o - bare, o / bare }'
done
