#!/bin/sh
# Making the index of a site's pip RECORDs, two versions of host/list_index.c
# (issue 29; bench/README.md section 24): what the first diagnosis after a
# pip install pays, and every diagnosis where the cache folder cannot be
# written. The site is made like the H200's venv (results/gpu-s50 call 2:
# 197 dist-info folders, 68,923 paths, an index of 1,121,619 bytes): torch's
# RECORD of 20,000 lines, a few big ones, 190 small ones; one line in 500
# quoted (a comma in the path), one in 400 starting "./". Each version is
# built with bench/pip_index.c (-O2), the two run in pairs, alternating which
# goes first, each round into an empty cache folder; then the two index
# files are compared byte for byte, and, where valgrind is, one round of
# each counted by callgrind.
#   sh bench/pip_index.sh OLD_REVISION [ROUNDS]     (21; the new one: the working tree)
# SITE=DIR measures a real site-packages folder instead (the H200's venv).
set -eu
cd "$(dirname "$0")/.."
OLD=${1:?usage: pip_index.sh OLD_REVISION [ROUNDS]}
R=${2:-21}
PY=${PY:-/usr/bin/python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
S=${SITE:-$T/site-packages}
[ -n "${SITE:-}" ] || mkdir -p "$S"
[ -n "${SITE:-}" ] || awk -v S="$S" 'function pkg(name, ver, lines, top,    d, i, f) {
		d = S "/" name "-" ver ".dist-info"
		system("mkdir -p \"" d "\"")
		f = d "/RECORD"
		for (i = 0; i < lines; i++) {
			n++
			if (n % 500 == 0)
				printf "\"%s/odd,name_%d.py\",sha256=%043d,%d\n", top, i, n, 100 + i > f
			else if (n % 400 == 0)
				printf "./%s/sub_%d/module_%d.py,sha256=%043d,%d\n", top, i % 37, i, n, 100 + i > f
			else
				printf "%s/sub_%d/module_name_%d.py,sha256=%043d,%d\n", top, i % 37, i, n, 100 + i > f
		}
		printf "%s-%s.dist-info/RECORD,,\n", name, ver > f
		close(f)
	}
	BEGIN {
		pkg("torch", "2.11.0", 20000, "torch")
		pkg("jaxlib", "0.8.1", 4000, "jaxlib"); pkg("jax", "0.8.1", 1500, "jax")
		pkg("triton", "3.5.0", 2500, "triton"); pkg("cupy_cuda13x", "13.6.0", 3000, "cupy")
		pkg("numpy", "2.3.4", 1500, "numpy"); pkg("onnxruntime_gpu", "1.23.2", 800, "onnxruntime")
		for (k = 0; k < 190; k++)
			pkg("package_" k, "1.0." k, 185, "package_" k)
	}'
# Installed a while ago, as a real wheel is (a list changed in the last
# seconds is not trusted: host/list_index.h); the site folder itself too.
[ -n "${SITE:-}" ] || find "$S" -exec touch -d '1 hour ago' {} +
mkdir -p "$T/old/host"
git show "$OLD:host/list_index.c" >"$T/old/host/list_index.c"
git show "$OLD:host/list_index.h" >"$T/old/host/list_index.h"
cc -O2 -I"$T/old" -o "$T/old_index" bench/pip_index.c "$T/old/host/list_index.c"
cc -O2 -I. -o "$T/new_index" bench/pip_index.c host/list_index.c
echo "site: $S: $(ls -d "$S"/*.dist-info | wc -l) dist-info folders, $(cat "$S"/*.dist-info/RECORD | wc -l) RECORD lines, $(cat "$S"/*.dist-info/RECORD | wc -c) bytes"
i=0
while [ $i -lt "$R" ]; do
	for v in $([ $((i % 2)) = 0 ] && echo old new || echo new old); do
		rm -rf "$T/keep_$v"
		echo "$("$T/${v}_index" "$S" 1 "$T/keep_$v")" >>"$T/$v.us"
	done
	i=$((i + 1))
done
"$PY" - "$T/old.us" "$T/new.us" "$OLD" <<'PYEOF'
import statistics, sys
old = [float(x) for x in open(sys.argv[1])]
new = [float(x) for x in open(sys.argv[2])]
d = [b - a for a, b in zip(old, new)]
q = statistics.quantiles(d, n=4, method="inclusive")
print("%d pairs; CPU to make the index: %s %.0f us, new %.0f us (medians); paired new - old %+.0f us, middle half [%+.0f, %+.0f]"
      % (len(d), sys.argv[3], statistics.median(old), statistics.median(new), statistics.median(d), q[0], q[2]))
PYEOF
set -- "$T"/keep_old/pip-*.idx "$T"/keep_new/pip-*.idx
if [ $# = 2 ] && [ -f "$1" ] && cmp -s "$1" "$2"; then
	echo "index files: the same bytes ($(wc -c <"$2") bytes)"
else
	echo "index files DIFFER"
	exit 1
fi
if command -v valgrind >/dev/null; then
	for v in old new; do
		rm -rf "$T/cg_$v"
		valgrind --tool=callgrind --callgrind-out-file="$T/$v.cg" "$T/${v}_index" "$S" 1 "$T/cg_$v" >/dev/null 2>&1
		echo "$v: $(grep '^summary:' "$T/$v.cg" | cut -d' ' -f2) instructions (callgrind, the whole program, one round)"
	done
fi
