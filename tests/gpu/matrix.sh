#!/usr/bin/env bash
# The framework matrix of issue 34 on the GPU machine, in one call: every
# framework of the venv alone (torch, jax, cupy, numba-cuda, triton,
# onnxruntime), in pairs and in both orders, one GPU op each
# (tests/gpu/frameworks.py), bare and under gputrace. Per case: the exit
# status (or signal) of both, whether stdout is identical, the report's exit
# status and its error and warning findings. Healthy cases must give 0 errors;
# a case that fails bare must fail the same way traced.
#
# Carry build-gpu/, built here:
#   make BUILD=build-gpu SAN= JANSSON_LIBS=-l:libjansson.a \
#        ELF_LIBS="-l:libelf.a -l:libz.a" all
# Then on the GPU machine: bash tests/gpu/matrix.sh   (MATRIX="torch cupy,torch" for a subset)
# The log lands in $OUT/matrix.log, one JSON line per case in $OUT/matrix.jsonl.
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
W=/tmp/gt-matrix
rm -rf "$W"; mkdir -p "$W" "$OUT"
LOG=$OUT/matrix.log
: >"$LOG"; : >"$OUT/matrix.jsonl"
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
PY=${PY:-python3}

singles="torch jax cupy numba triton onnxruntime"
pairs="torch,jax jax,torch torch,cupy cupy,torch jax,cupy cupy,jax torch,onnxruntime onnxruntime,torch
cupy,numba torch,triton triton,jax torch,jax,cupy cupy,jax,torch jax,cupy,torch"
cases=${MATRIX:-$singles $pairs}

{ nvidia-smi -L; $PY -c 'import sys; print(sys.version.split()[0])'; uname -r; } >>"$LOG" 2>&1

status_of() {  # a shell status, as "exit N" or "signal N"
	if [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then echo "signal $(($1 - 128))"; else echo "exit $1"; fi
}

for c in $cases; do
	names=${c//,/ }
	d=$W/$c
	mkdir -p "$d"
	# shellcheck disable=SC2086
	$PY tests/gpu/frameworks.py $names >"$d/bare.out" 2>"$d/bare.err"
	bare=$?
	# shellcheck disable=SC2086
	"$GT" -q -o "$d/traces" -- $PY tests/gpu/frameworks.py $names >"$d/traced.out" 2>"$d/traced.err"
	traced=$?
	same=no; cmp -s "$d/bare.out" "$d/traced.out" && same=yes
	"$GT" report --json "$d/traces" >"$d/report.json" 2>"$d/report.err"
	rrc=$?
	"$GT" report "$d/traces" >"$d/report.txt" 2>&1
	summary=$($PY - "$d/report.json" "$c" "$bare" "$traced" "$same" "$rrc" <<'EOF'
import json, sys
path, case, bare, traced, same, rrc = sys.argv[1:]
try:
    doc = json.load(open(path))
except Exception as e:
    doc = {"findings": [], "processes": [], "error": str(e)}
sev = lambda s: sorted({f["id"] for f in doc["findings"] if f["severity"] == s})
line = {"case": case, "bare": int(bare), "traced": int(traced), "stdout_same": same == "yes",
        "report_exit": int(rrc), "processes": len(doc.get("processes", [])),
        "errors": sev("error"), "warnings": sev("warning"), "info": sev("info")}
print(json.dumps(line))
EOF
)
	echo "$summary" >>"$OUT/matrix.jsonl"
	printf '%-24s bare %-9s traced %-9s stdout %-3s report %s  %s\n' "$c" "$(status_of $bare)" \
		"$(status_of $traced)" "$same" "$rrc" \
		"$(echo "$summary" | $PY -c 'import json,sys; d=json.load(sys.stdin); print("errors", d["errors"], "warnings", d["warnings"], "info", d["info"])')" |
		tee -a "$LOG"
	{ echo "---- $c: bare stdout/stderr tail"; tail -n 3 "$d/bare.out" "$d/bare.err"
	  echo "---- $c: traced stdout/stderr tail"; tail -n 3 "$d/traced.out" "$d/traced.err"
	  echo "---- $c: report"; cut -c1-240 "$d/report.txt" | head -n 40; } >>"$LOG" 2>&1
done
