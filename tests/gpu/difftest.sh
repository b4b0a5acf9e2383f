#!/usr/bin/env bash
# GPU-machine run of issue 33's acceptance: scan --for against ldd
# (LD_TRACE_LOADED_OBJECTS=1 ld.so FILE) over every dynamic ELF file of the
# torch venv's site-packages: torch, the nvidia wheels, jax and jaxlib, cupy.
# Build first (on the GPU machine, or carry build-gpu/):
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a \
#        ELF_LIBS="-l:libelf.a -l:libz.a" all
# Run from the repository root:  bash tests/gpu/difftest.sh
# Writes $OUT/difftest.txt (agreement, every disagreement with its cause),
# $OUT/difftest.json (every record) and $OUT/host.txt (the loader's view of
# this CPU and the trees' sizes).
set -u
cd "$(dirname "$0")/../.."
GT=${GT:-$PWD/build-gpu/gputrace}
OUT=${OUT:-/tmp/gpu-out}
SP=${SITE_PACKAGES:-/opt/torch/.venv/lib/python3.12/site-packages}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
mkdir -p "$OUT"
if [ ! -x "$GT" ]; then
	echo "difftest.sh: $GT missing: build it first (see the top of this file)" | tee "$OUT/difftest.txt"
	exit 2
fi
TREES=()
for t in "$SP"/torch "$SP"/nvidia "$SP"/jax "$SP"/jaxlib "$SP"/jax_plugins "$SP"/jax_cuda*_plugin \
	 "$SP"/jax_cuda*_pjrt "$SP"/cupy "$SP"/cupy_backends "$SP"/cupy*.libs; do
	[ -d "$t" ] && TREES+=("$t")
done
{
	echo "site-packages: $SP"
	/lib64/ld-linux-x86-64.so.2 --help | sed -n '/Subdirectories of glibc-hwcaps/,$p'
	for t in "${TREES[@]}"; do echo "tree $t: $(find "$t" -type f | wc -l) files"; done
	"$GT" --version
} > "$OUT/host.txt" 2>&1
# LD_LIBRARY_PATH as the venv's users have it on this machine: unset, so both
# sides see the same environment (the test's own).
env -u LD_LIBRARY_PATH -u LD_PRELOAD "$PY" tests/difftest/difftest.py --gputrace "$GT" \
	--json "$OUT/difftest.json" "${TREES[@]}" > "$OUT/difftest.txt" 2>&1
rc=$?
# The CUDA judgement over the whole graph: torch's _C reaches libcudart only
# through libtorch_python and libtorch_cuda (issue 33 item 1).
C_EXT=$(ls "$SP"/torch/_C.cpython-*.so 2>/dev/null | head -1)
if [ -n "$C_EXT" ]; then
	env -u LD_LIBRARY_PATH -u LD_PRELOAD "$GT" scan --for "$C_EXT" > "$OUT/scan_for_C.txt" 2>&1
	echo "scan --for $C_EXT: exit $?" >> "$OUT/scan_for_C.txt"
	env -u LD_LIBRARY_PATH -u LD_PRELOAD "$GT" scan --for "$C_EXT" --json > "$OUT/scan_for_C.json" 2>/dev/null
	grep -Eq 'libcudart\.so\.[0-9]+ -> ' "$OUT/scan_for_C.txt" && echo "_C reaches libcudart: yes" ||
		{ echo "_C reaches libcudart: NO"; rc=1; }
fi
head -3 "$OUT/difftest.txt"
grep -c '^DIFFERS' "$OUT/difftest.txt"
tail -1 "$OUT/difftest.txt"
exit $rc
