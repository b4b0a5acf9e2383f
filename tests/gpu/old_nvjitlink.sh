#!/usr/bin/env bash
# Builds, in folder $1, an "older" libnvJitLink.so.13 for the GPU machine's
# torch wheels: the version node libcusparse needs (libnvJitLink.so.13), and
# every symbol libcusparse needs from it but the last one, as an older
# toolkit's copy lacks a newer symbol. The shape of "libcusparse.so.12:
# undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12".
set -eu
D=$1
SP=/opt/torch/.venv/lib/python3.12/site-packages
CUSPARSE=$(ls "$SP"/nvidia/cu13/lib/libcusparse.so.* | head -1)
mkdir -p "$D"
NEEDED=$(nm -D --undefined-only "$CUSPARSE" | awk '/@libnvJitLink/ {print $2}' | sed 's/@.*//' | sort -u)
DROP=$(printf '%s\n' $NEEDED | tail -1)
: >"$D/jit.c"
KEEP=""
for s in $NEEDED; do
	[ "$s" = "$DROP" ] && continue
	echo "int $s(void) { return 0; }" >>"$D/jit.c"
	KEEP="$KEEP $s;"
done
echo "libnvJitLink.so.13 { global: $KEEP local: *; };" >"$D/jit.map"
gcc -shared -fPIC -o "$D/libnvJitLink.so.13" "$D/jit.c" -Wl,--version-script="$D/jit.map" -Wl,-soname,libnvJitLink.so.13
echo "older libnvJitLink.so.13 in $D: $(printf '%s\n' $NEEDED | wc -l) symbols needed by $(basename "$CUSPARSE"), without $DROP"
