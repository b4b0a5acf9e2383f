#!/usr/bin/env bash
# import torch bare / library alone / gputrace -q -o (and o_before with
# BEFORE=OTHER_BUILD), user-space instructions of every process counted by the
# CPU (bench/arm_instructions.py), the arms as tests/gpu/cost29.sh runs them
# (each makes and removes a folder, each starts through env), OMP_NUM_THREADS=1.
# For a host whose times drift too much to tell 1% (bench/README.md section
# 19). B: the build (build-gpu), PY: the python with torch (python3), ROUNDS
# (16); the counts go to OUT/instructions.json. DRY=1 runs each arm once and
# prints its status (for a machine without the counter).
set -u
cd "$(dirname "$0")/.."
B=${B:-$PWD/build-gpu}
OUT=${OUT:-/tmp/gpu-out}
PY=${PY:-python3}
mkdir -p "$OUT"
export OMP_NUM_THREADS=1
imp="$PY -c 'import torch'"
arms=("bare=d=\$(mktemp -d); env $imp; rm -rf \$d"
      "lib=d=\$(mktemp -d); env GPUTRACE_DIR=\$d LD_AUDIT=$B/libgputrace.so LD_PRELOAD=$B/libgputrace.so $imp; rm -rf \$d"
      "o=d=\$(mktemp -d); env $B/gputrace -q -o \$d/t -- $imp; rm -rf \$d")
[ -n "${BEFORE:-}" ] && arms+=("o_before=d=\$(mktemp -d); env $BEFORE/gputrace -q -o \$d/t -- $imp; rm -rf \$d")
if [ -n "${DRY:-}" ]; then
	for a in "${arms[@]}"; do
		sh -c "${a#*=}" >/dev/null 2>&1
		echo "${a%%=*}: exit $? ($a)"
	done
	exit 0
fi
echo "tree: $(cat "$B/HEAD.txt" 2>/dev/null || git log -1 --format=%h)"
python3 bench/arm_instructions.py --rounds "${ROUNDS:-16}" --json "$OUT/instructions.json" "${arms[@]}"
