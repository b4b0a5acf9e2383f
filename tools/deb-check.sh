#!/bin/sh
# Builds the Debian package, installs it with apt, runs the installed
# /usr/bin/gputrace (doctor, and a traced fixture program with its report),
# removes the package and checks that its files are gone. Root; .ci/run runs
# it after `make check`.
set -eu
cd "$(dirname "$0")/.."
say() { echo "deb-check: $*"; }
fail() { say "FAILED: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (apt-get install)"
# The fixture program it traces: FIXTURES=DIR names a fixtures folder built
# already (.ci/run passes make check's), else they are built into build/
# (which may have been cleaned since make check).
jobs=$(nproc)
if [ -z "${FIXTURES:-}" ]; then
	FIXTURES=build/fixtures
	make -s -j"$jobs" fixtures
fi
[ -x "$FIXTURES/scenarios/sc_runpath" ] || fail "no fixture program $FIXTURES/scenarios/sc_runpath"
# DEB_OBJECTS=DIR (.ci/run: make check's wheel build, same flags): the
# package is linked from those objects (the Makefile's deb target); WERROR
# is passed on so that the flags, and so the objects, are the same.
make -s -j"$jobs" deb ${DEB_OBJECTS:+DEB_OBJECTS="$DEB_OBJECTS"} ${WERROR:+WERROR="$WERROR"}
deb=$(ls gputrace_"$(cat VERSION)"_*.deb)
if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error "$deb"
fi
# dpkg-shlibdeps works the dependencies out from the binaries: the package
# is built without libgvc (report --svg and --html run Graphviz's dot), so
# Graphviz is Recommended, not a dependency; libgputrace.so must add none.
depends=$(dpkg-deb -f "$deb" Depends)
say "Depends: $depends"
echo "$depends" | grep -q 'libgvc' && fail "Depends names libgvc: the package must not need it"
dpkg-deb -f "$deb" Recommends | grep -qw graphviz || fail "Recommends lacks graphviz"
readelf -d build/deb/root/usr/lib/gputrace/libgputrace.so | grep NEEDED | grep -vq 'libc\.so\.6' &&
	fail "libgputrace.so needs more than libc: $(readelf -d build/deb/root/usr/lib/gputrace/libgputrace.so | grep NEEDED)"
export DEBIAN_FRONTEND=noninteractive
# man-db's trigger rebuilds the whole manual index after each install and
# removal (8 and 4 s of CI's 8 minutes); the index is not what is checked
# here (the page's file is, by dpkg -L): it is switched off for these two
# apt runs as man-db itself does (its auto-update flag file), and put back.
mandb_flag=/var/lib/man-db/auto-update
if [ -e "$mandb_flag.gputrace-deb-check" ] && [ ! -e "$mandb_flag" ]; then
	mv "$mandb_flag.gputrace-deb-check" "$mandb_flag"  # a run killed before its trap
fi
if [ -e "$mandb_flag" ]; then
	mv "$mandb_flag" "$mandb_flag.gputrace-deb-check"
	trap 'mv "$mandb_flag.gputrace-deb-check" "$mandb_flag"' EXIT
fi
apt-get install -y --no-install-recommends "./$deb"
files=$(dpkg -L gputrace | while read -r f; do [ -f "$f" ] && echo "$f"; done)
[ "$(command -v gputrace)" = /usr/bin/gputrace ] || fail "gputrace is not /usr/bin/gputrace"
/usr/bin/gputrace --version | grep -qx "gputrace $(cat VERSION)" || fail "--version"

# The doctor exits 1 where a step fails (no GPU here): it must have run its steps.
set +e
/usr/bin/gputrace doctor --color=never >build/deb/doctor.txt 2>&1
rc=$?
set -e
cat build/deb/doctor.txt
[ "$rc" -le 1 ] || fail "doctor exited $rc"
grep -q '^gputrace doctor: the GPU chain, layer by layer' build/deb/doctor.txt || fail "doctor printed no steps"
grep -qE '^  (ok|FAILED|skipped) +driver +driver_load ' build/deb/doctor.txt || fail "doctor ran no probe step"

# A fixture traced by the installed command (library from /usr/lib/gputrace).
out=$(mktemp -d)
env -u LD_LIBRARY_PATH -u GPUTRACE_LIB /usr/bin/gputrace -q -o "$out/t" -- \
	sh -c 'echo "$LD_AUDIT" >"$0"; exec "$1"' "$out/audit" "$FIXTURES/scenarios/sc_runpath"
grep -qx /usr/lib/gputrace/libgputrace.so "$out/audit" || fail "LD_AUDIT was $(cat "$out/audit")"
grep -q '"path":"[^"]*/d_runpath/libsc_leaf.so"' "$out"/t/*.jsonl || fail "the trace misses the fixture's library"
/usr/bin/gputrace report "$out/t" --json >"$out/report.json"
/usr/bin/python3 - "$out/report.json" <<'PY' || fail "the report of the installed command is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
(p,) = d["processes"]
assert p["exe"].endswith("/sc_runpath") and p["ended"], p
assert not [f for f in d["findings"] if f["severity"] == "error"], d["findings"]
PY
# The installed command lays the graph out with Graphviz's dot when it is
# there (the Recommends), and says what to install when it is not.
if command -v dot >/dev/null 2>&1; then
	/usr/bin/gputrace report --svg "$out/t" >"$out/graph.svg" || fail "report --svg of the installed command"
	grep -q '<svg' "$out/graph.svg" || fail "report --svg printed no SVG"
	/usr/bin/gputrace report --html "$out/report.html" "$out/t" || fail "report --html of the installed command"
else
	set +e
	/usr/bin/gputrace report --svg "$out/t" >/dev/null 2>"$out/svg.err"
	rc=$?
	set -e
	[ "$rc" -eq 125 ] && grep -q 'install graphviz' "$out/svg.err" || fail "report --svg without dot: $rc"
fi
# The JSON Schemas, where their $id says.
grep -q '"\$id": "file:///usr/share/gputrace/schema/report.schema.json"' \
	/usr/share/gputrace/schema/report.schema.json || fail "the report schema is not installed with its \$id"
rm -rf "$out"

apt-get remove -y gputrace
for f in $files; do
	[ ! -e "$f" ] || fail "$f is still there after apt-get remove"
done
say "passed: $deb installed, ran, removed ($(echo "$files" | wc -l) files gone)"
