#!/usr/bin/env bash
# Several GPU scripts in one device call (the GPU time of a session is short):
#   OUT=$OUT bash tests/gpu/session_gpu.sh writer arch retry html copies stack
# Each part runs with OUT=$OUT/<part> and a time limit of its own (LIMIT_<part>
# seconds, default 240), its output in $OUT/<part>.log, what it wrote in
# $OUT/<part>.tgz; a summary line per part.
# Carry build-gpu/ (see tests/gpu/copies_gpu.sh; `gpu-progs` for arch).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
script_of() {
	case $1 in
	writer) echo tests/gpu/writer_gpu.sh ;;
	arch) echo tests/gpu/arch_gpu.sh ;;
	retry) echo tests/gpu/retry_gpu.sh ;;
	html) echo tests/gpu/html_gpu.sh ;;
	copies) echo tests/gpu/copies_gpu.sh ;;
	stack) echo tests/gpu/stack_gpu.sh ;;
	scandoctor) echo tests/gpu/scan_doctor_s4_gpu.sh ;;
	*) echo "" ;;
	esac
}
nvidia-smi -L 2>&1 | head -2 | tee "$OUT/machine.txt"
for part in "$@"; do
	s=$(script_of "$part")
	if [ -z "$s" ] || [ ! -f "$s" ]; then
		echo "== $part: no such part" | tee -a "$OUT/summary.txt"
		continue
	fi
	lim_var=LIMIT_$part
	lim=${!lim_var:-240}
	mkdir -p "$OUT/$part"
	t0=$(date +%s)
	OUT=$OUT/$part timeout -k 5 "$lim" bash "$s" >"$OUT/$part.log" 2>&1
	rc=$?
	echo "== $part: exit $rc in $(( $(date +%s) - t0 )) s" | tee -a "$OUT/summary.txt"
	tail -n 25 "$OUT/$part.log"
	# One archive per part: the device hands back only a few files.
	tar czf "$OUT/$part.tgz" -C "$OUT" "$part" && rm -rf "${OUT:?}/$part"
done
