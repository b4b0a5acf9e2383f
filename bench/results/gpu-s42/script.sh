#!/usr/bin/env bash
# Session 42: import torch bare / library alone / gputrace -q -o, on a fresh VM,
# nothing else running: batches of RT rounds (arms together on CPUs 3,7,11,
# rotating) until LIMIT seconds have passed, each batch's JSON written when it
# ends; then all rounds pooled (bench/arms.py --pool).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
echo "tree: $(cat build-gpu/HEAD.txt)" > "$OUT/tree.txt"
uptime >> "$OUT/tree.txt"
echo "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}" >> "$OUT/tree.txt"
start=$(date +%s)
i=0
while [ $(( $(date +%s) - start )) -lt "${LIMIT:-470}" ]; do
	i=$((i + 1))
	mkdir -p "$OUT/b$i"
	OUT=$OUT/b$i BEFORE=${BEFORE:-} TOGETHER=${CPUS:-3,7,11} ONLY=torch RT=${RT:-15} bash tests/gpu/cost29.sh > "$OUT/b$i/run.log" 2>&1
	[ -s "$OUT/b$i/torch-import.json" ] || { echo "batch $i failed: $OUT/b$i/run.log"; tail -5 "$OUT/b$i/torch-import.txt"; break; }
	echo "batch $i done at $(( $(date +%s) - start )) s: $(grep -h 'cpu.*1 + median' "$OUT/b$i/torch-import.txt" | sed 's/.*= //' | tr '\n' ' ')" | tee -a "$OUT/batches.txt"
done
uptime >> "$OUT/tree.txt"
python3 bench/arms.py --pool "$OUT"/b*/torch-import.json | tee "$OUT/torch-pooled.txt"
# The device call returns a few files only: the batches' own go in one archive.
tar czf "$OUT/batches.tgz" -C "$OUT" $(cd "$OUT" && ls -d b*/) && rm -rf "$OUT"/b*/
