#!/bin/sh
# Generates COUNT one-function libraries for bench/load_many.c (once):
# $LIBS/libbench300_NNN.so defines int bench300_fn_NNN(int x) { return x + NNN; }.
#   LIBS=build/bench/load300 COUNT=300 CC=cc sh bench/gen_load_libs.sh
set -eu
: "${LIBS:?}" "${COUNT:?}"
if [ -e "$LIBS/.done.$COUNT" ]; then
	exit 0
fi
mkdir -p "$LIBS/src"
i=0
while [ $i -lt "$COUNT" ]; do
	n=$(printf '%03d' $i)
	[ -e "$LIBS/libbench300_$n.so" ] ||
		printf 'int bench300_fn_%s(int x);\nint bench300_fn_%s(int x) { return x + %d; }\n' \
			"$n" "$n" $i >"$LIBS/src/libbench300_$n.c"
	i=$((i + 1))
done
CC=${CC:-cc}
export CC LIBS
ls "$LIBS/src" | sed -n 's/\.c$//p' | xargs -r -P "$(nproc)" -n 16 sh -c '
	for b; do
		$CC -O2 -fPIC -shared -Wl,-soname,$b.so -o "$LIBS/$b.so" "$LIBS/src/$b.c" || exit 1
		rm -f "$LIBS/src/$b.c"
	done' sh
touch "$LIBS/.done.$COUNT"
