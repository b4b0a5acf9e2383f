#!/bin/sh
# Builds the Debian package twice, each time from a clean build folder, with
# the same SOURCE_DATE_EPOCH, and checks the two are the same bytes (issue
# 30: the package is reproducible). Slow (two release builds): `make
# check-deb-repro`, not part of make check or .ci/run. Needs dpkg-dev.
set -eu
cd "$(dirname "$0")/.."
say() { echo "deb-repro: $*"; }
command -v dpkg-deb >/dev/null 2>&1 || { say "SKIPPED: no dpkg-deb"; exit 0; }
deb="gputrace_$(cat VERSION)_$(dpkg --print-architecture).deb"
first=$(mktemp)
trap 'rm -f "$first"' EXIT
make -s deb >/dev/null
cp "$deb" "$first"
sleep 1   # a clock that leaked into the package would now differ
make -s deb >/dev/null
a=$(sha256sum <"$first" | cut -d' ' -f1)
b=$(sha256sum <"$deb" | cut -d' ' -f1)
say "first  $a"
say "second $b"
if [ "$a" != "$b" ]; then
	command -v diffoscope >/dev/null 2>&1 && diffoscope "$first" "$deb" || true
	say "FAILED: two builds of $deb differ"
	exit 1
fi
say "ok: $deb is the same bytes twice"
