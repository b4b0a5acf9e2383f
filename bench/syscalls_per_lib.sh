#!/bin/sh
# System calls libgputrace.so adds per loaded library (issue 29: at most 0.2 in
# steady state): bench/load_many under strace -c, bare and with the library
# alone, at SMALL and LARGE libraries, R paired rounds, medians
# (bench/syscalls_per_lib.py says how the figures are made).
#   R=5 SMALL=300 LARGE=900 BUILD=build sh bench/syscalls_per_lib.sh
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
R=${R:-5}
SMALL=${SMALL:-300}
LARGE=${LARGE:-900}
PYTHON=${PYTHON:-/usr/bin/python3}
MAKE=${MAKE:-make}

$MAKE -s BUILD="$BUILD" "$BUILD/libgputrace.so" >/dev/null
$MAKE -s BUILD="$BUILD" "$BUILD/bench/load_many" >/dev/null
LIBS="$BUILD/bench/load300" COUNT="$LARGE" sh bench/gen_load_libs.sh
echo "host: $(uname -srm), $(nproc) CPU(s); $(date -u +%Y-%m-%dT%H:%MZ)${COMMIT:+; $COMMIT}"
"$PYTHON" bench/syscalls_per_lib.py --lib "$BUILD/libgputrace.so" --prog "$BUILD/bench/load_many" \
	--small "$SMALL" --large "$LARGE" --rounds "$R"
