#!/bin/sh
# Loader-side cost of gputrace: a program that dlopen()s 300 tiny libraries by
# bare name, each found through its RUNPATH (a search per library, as a
# framework's start-up does), and calls the one function of each.  Generates
# the libraries (once) under $BUILD/bench/load300/, builds bench/load_many.c,
# then R paired rounds (default 21) of whole-process wall time, bare vs
# `gputrace -q -o DIR -- load_many`, alternating the order; prints the
# medians, the overhead in ms and %, and the trace's size and line count.
#   R=21 COUNT=300 BUILD=build PYTHON=/usr/bin/python3 bench/load300.sh
# Aim (issue): within 2% of the bare wall time.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
R=${R:-21}
COUNT=${COUNT:-300}
PYTHON=${PYTHON:-/usr/bin/python3}
MAKE=${MAKE:-make}
GPUTRACE=${GPUTRACE:-$BUILD/gputrace}
LIBS=$BUILD/bench/load300

$MAKE -s BUILD="$BUILD" all >/dev/null
$MAKE -s BUILD="$BUILD" "$BUILD/bench/load_many" >/dev/null

LIBS="$LIBS" COUNT="$COUNT" sh bench/gen_load_libs.sh

echo "host: $(uname -srm), $(nproc --all) CPU(s); $(date -u +%Y-%m-%dT%H:%MZ)"
"$PYTHON" bench/paired.py --metric wall --rounds "$R" --gputrace "$GPUTRACE" ${V:+-v} --decompose --same-output \
	--label "load_many: dlopen $COUNT libraries by name through RUNPATH (whole-process wall time)" \
	-- "$BUILD/bench/load_many" "$COUNT"
