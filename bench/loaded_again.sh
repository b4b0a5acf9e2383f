#!/bin/sh
# One dlopen of a file already loaded, under a new name, with COUNT libraries
# loaded (issue 29: within 1.2x bare with 3,000 loaded): bench/loaded_again.c
# timed inside the program (median of TIMES such dlopens a run), R paired
# rounds, bare against `gputrace -q -o DIR --` (and BEFORE's gputrace, another
# build, in the same rounds), medians.
#   R=7 COUNT=3000 TIMES=20 BUILD=build BEFORE=OLD/build sh bench/loaded_again.sh
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
R=${R:-7}
COUNT=${COUNT:-3000}
TIMES=${TIMES:-20}
PYTHON=${PYTHON:-/usr/bin/python3}
MAKE=${MAKE:-make}
LIBS=$BUILD/bench/load300

$MAKE -s BUILD="$BUILD" all >/dev/null
$MAKE -s BUILD="$BUILD" "$BUILD/bench/loaded_again" >/dev/null
LIBS="$LIBS" COUNT="$COUNT" sh bench/gen_load_libs.sh
echo "host: $(uname -srm), $(nproc --all) CPU(s); $(date -u +%Y-%m-%dT%H:%MZ)"
"$PYTHON" bench/paired.py --metric ms_per_op --rounds "$R" --gputrace "$BUILD/gputrace" \
	${BEFORE:+--also "before=$BEFORE/gputrace"} ${V:+-v} \
	--label "loaded_again: one dlopen of an already-loaded file, $COUNT loaded (ms, median of $TIMES a run)" \
	-- "$(cd "$LIBS/.." && pwd)/loaded_again" "$(cd "$LIBS" && pwd)" "$COUNT" "$TIMES"
