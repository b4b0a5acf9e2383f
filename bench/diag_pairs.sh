#!/bin/sh
# The end-of-run diagnosis of `gputrace -q -o DIR -- PY -c 'import torch'`
# (or of COMMAND, given after PY), two builds in paired rounds (old, new, old, new ...): the CPU time of the
# launcher's diagnosis child as it reaped it (GPUTRACE_FACTS_PROFILE=1),
# medians and the middle half of the paired differences (bench/README.md
# section 17). Each build keeps its own cache folder (XDG_CACHE_HOME), so
# that two builds whose cache files differ in format (the list index's
# format 2, 079c715) do not make each other's again on every run; one round
# first, not counted, fills both. CACHES=DIR keeps them (DIR/old, DIR/new).
#   sh bench/diag_pairs.sh OLD_BUILD NEW_BUILD [ROUNDS] [PY [COMMAND...]]
# shellcheck disable=SC2016
set -u
OLD=$1 NEW=$2 R=${3:-11} PY=${4:-/usr/bin/python3}
shift $(($# < 4 ? $# : 4))
[ $# -gt 0 ] || set -- "$PY" -c 'import torch'
T=$(mktemp)
C=${CACHES:-$(mktemp -d)}
for i in $(seq 0 "$R"); do
	for arm in old new; do
		b=$OLD; [ "$arm" = new ] && b=$NEW
		d=$(mktemp -d)
		XDG_CACHE_HOME=$C/$arm GPUTRACE_FACTS_PROFILE=1 "$b/gputrace" -q -o "$d/t" -- "$@" 2>&1 |
			grep 'diagnosis child' | sed "s/^/$arm /" | { [ "$i" = 0 ] && cat >/dev/null || cat; }
		rm -rf "$d"
	done
done >"$T"
[ -n "${CACHES:-}" ] || rm -rf "$C"
"$PY" - "$T" "$R" <<'PYEOF'
import re, statistics, sys
v = {"old": [], "new": []}
for line in open(sys.argv[1]):
    m = re.match(r"(old|new) .*child ([0-9.]+) ms CPU", line)
    if m:
        v[m.group(1)].append(float(m.group(2)))
d = [n - o for o, n in zip(v["old"], v["new"])]
q = statistics.quantiles(d, n=4)
print("%s rounds; old median %.2f ms [%.2f-%.2f]; new median %.2f ms [%.2f-%.2f]; "
      "new - old: median %.2f ms, middle half [%.2f, %.2f]"
      % (sys.argv[2], statistics.median(v["old"]), min(v["old"]), max(v["old"]), statistics.median(v["new"]),
         min(v["new"]), max(v["new"]), statistics.median(d), q[0], q[2]))
PYEOF
rm -f "$T"
