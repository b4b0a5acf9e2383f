#!/usr/bin/env bash
# import torch bare / library alone / gputrace -q -o (and o_before with
# BEFORE=OTHER/gputrace), tests/gpu/cost29.sh's torch part, in batches of RT
# rounds (15) until LIMIT seconds (470) have passed, each batch's figures
# written when it ends (a time limit then loses one batch only); then all
# rounds pooled (bench/arms.py --pool). CPUS=3,7,11 runs a round's arms at
# once on those CPUs (the H200 host); PIN="taskset -c 1" runs them one after
# another on one CPU (the 2-CPU build VM). Logs under OUT (/tmp/gpu-out):
# batches.txt, torch-pooled.txt, tree.txt and batches.tgz (each batch's
# folder: a device call returns a few files only). Build first (cost29.sh).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
echo "tree: $(cat "${B:-build-gpu}/HEAD.txt" 2>/dev/null || git log -1 --format=%h)" > "$OUT/tree.txt"
uptime >> "$OUT/tree.txt"
echo "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}" >> "$OUT/tree.txt"
# QUIET_MS=2300: four bare imports first (after one untimed), pinned to the
# first of CPUS as the batches' arms are; where their median is slower, or
# they spread by more than QUIET_SPREAD percent (8) of it, the VM is not quiet
# enough to tell 1% (bench/results/gpu-s42 call 3 and gpu-s43 call 1: bare
# 3.2-5.7 s, middle halves +-400 ms) and the batches are not run (exit 3),
# which spares the device time for a fresher VM. Pinned imports are far
# steadier there than unpinned ones (gpu-s44: 3,145-3,220 ms pinned,
# 3,142-4,823 ms unpinned, one VM). 8%: gpu-s42's quiet VM spread by 6%
# over 150 rounds, and gpu-s44 call 1's (2,170-2,316 ms) was turned away at 5%.
if [ -n "${QUIET_MS:-}" ]; then
	pin_q=${CPUS:+taskset -c ${CPUS%%,*}}
	# one import first, not timed: a fresh VM's page cache is cold
	$pin_q python3 -c 'import torch' >/dev/null 2>&1
	times=$(for k in 1 2 3 4; do
		t0=$(date +%s%N)
		$pin_q python3 -c 'import torch' >/dev/null 2>&1
		echo $(( ($(date +%s%N) - t0) / 1000000 ))
	done | sort -n | tr '\n' ' ')
	set -- $times
	q=$(( ($2 + $3) / 2 ))
	spread=$(( ($4 - $1) * 100 / q ))
	echo "bare import torch${pin_q:+ ($pin_q)}, median of 4: $q ms ($times; spread $spread%; QUIET_MS $QUIET_MS; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2))" | tee -a "$OUT/tree.txt"
	# STEADY_SPREAD=1 also takes a slow VM whose four imports spread by at
	# most that percent (gpu-s52: 4,676-4,707 ms, 0%): whether such a VM,
	# unlike gpu-s49 call 8's (4%), is steady enough over the batches too.
	if [ "$q" -le "$QUIET_MS" ] && [ "$spread" -le "${QUIET_SPREAD:-8}" ]; then
		echo "quiet: batches"
	elif [ -n "${STEADY_SPREAD:-}" ] && [ "$spread" -le "$STEADY_SPREAD" ]; then
		echo "slow but steady (spread <= $STEADY_SPREAD%): batches" | tee -a "$OUT/tree.txt"
	else
		echo "not quiet: no batches"; exit 3
	fi
fi
start=$(date +%s)
i=0
while [ $(( $(date +%s) - start )) -lt "${LIMIT:-470}" ]; do
	i=$((i + 1))
	mkdir -p "$OUT/b$i"
	OUT=$OUT/b$i BEFORE=${BEFORE:-} TOGETHER=${CPUS:-} PIN=${PIN:-} ONLY=torch RT=${RT:-15} bash tests/gpu/cost29.sh > "$OUT/b$i/run.log" 2>&1
	[ -s "$OUT/b$i/torch-import.json" ] || { echo "batch $i failed: $OUT/b$i/run.log"; tail -5 "$OUT/b$i/torch-import.txt"; break; }
	echo "batch $i done at $(( $(date +%s) - start )) s: $(grep -h 'cpu.*1 + median' "$OUT/b$i/torch-import.txt" | sed 's/.*= //' | tr '\n' ' ')" | tee -a "$OUT/batches.txt"
done
uptime >> "$OUT/tree.txt"
python3 bench/arms.py --pool "$OUT"/b*/torch-import.json | tee "$OUT/torch-pooled.txt"
# The device call returns a few files only: the batches' own go in one archive.
tar czf "$OUT/batches.tgz" -C "$OUT" $(cd "$OUT" && ls -d b*/) && rm -rf "$OUT"/b*/
