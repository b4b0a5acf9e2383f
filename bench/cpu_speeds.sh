#!/usr/bin/env bash
# How fast `python3 -c 'import torch'` runs pinned to each CPU of this
# machine, PASSES (2) passes over all CPUs, one import at a time; prints a
# line per CPU (its times in ms) and, last, "fastest: A,B,C" (the three CPUs
# whose slowest import was fastest) and "slowest of those: N ms".
# Why: the H200's VMs are mostly of a slow, drifting kind (bare import torch
# 3.0-4.7 s where the quiet ones took 2.0-2.3 s; bench/results/gpu-s46,
# gpu-s47). If the slowness belongs to some virtual CPUs only (their host
# threads shared with another guest), bench/torch_batches.sh can pin its arms
# to the fast ones (CPUS=A,B,C). OMP_NUM_THREADS=1 as in the batches.
set -u
PY=${PY:-python3}
export OMP_NUM_THREADS=1
ncpu=$(getconf _NPROCESSORS_ONLN)  # not nproc: it honours OMP_NUM_THREADS
$PY -c 'import torch' >/dev/null 2>&1  # the page cache warm first
declare -A times
for pass in $(seq "${PASSES:-2}"); do
	for c in $(seq 0 $((ncpu - 1))); do
		t0=$(date +%s%N)
		taskset -c "$c" "$PY" -c 'import torch' >/dev/null 2>&1
		times[$c]="${times[$c]:-} $(( ($(date +%s%N) - t0) / 1000000 ))"
	done
done
for c in $(seq 0 $((ncpu - 1))); do
	worst=$(echo ${times[$c]} | tr ' ' '\n' | sort -n | tail -1)
	echo "cpu $c:${times[$c]} (slowest $worst)" >&2
	echo "$worst $c"
done | sort -n | head -3 |
	awk '{ cpus = cpus (NR > 1 ? "," : "") $2; w = $1 }
	     END { print "fastest: " cpus; print "slowest of those: " w " ms" }'
