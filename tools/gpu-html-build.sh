#!/bin/sh
# A gputrace command with Graphviz for a host that has none (the GPU machine,
# where `report --html` must run so that the report reads that host's files):
# build-gpu-html/gputrace, jansson and libelf static, libgvc and what it needs
# copied into build-gpu-html/gvlib/ and found through the command's own RPATH
# ($ORIGIN/gvlib, DT_RPATH so that it also serves libgvc's own needs), the two
# plugins a dot layout to SVG uses in gvlib/graphviz/ with their config, for
# GVBINDIR. Only for running `gputrace report`; never put on LD_LIBRARY_PATH.
#   sh tools/gpu-html-build.sh && GVBINDIR=$PWD/build-gpu-html/gvlib/graphviz build-gpu-html/gputrace report --html F DIR
set -eu
cd "$(dirname "$0")/.."
B=build-gpu-html
make -s -j2 BUILD=$B SAN= JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" \
	LDFLAGS='-Wl,--disable-new-dtags -Wl,-rpath,\$$ORIGIN/gvlib' $B/gputrace
mkdir -p $B/gvlib/graphviz
for l in libgvc.so.6 libcgraph.so.6 libcdt.so.5 libpathplan.so.4 libexpat.so.1 libltdl.so.7 libz.so.1; do
	cp -L "/lib/x86_64-linux-gnu/$l" $B/gvlib/
done
cp -L /usr/lib/x86_64-linux-gnu/graphviz/libgvplugin_core.so.6 \
	/usr/lib/x86_64-linux-gnu/graphviz/libgvplugin_dot_layout.so.6 $B/gvlib/graphviz/
# The plugins' config, written by dot itself for this folder.
(cd $B/gvlib/graphviz && GVBINDIR=$PWD dot -c)
readelf -d $B/gputrace | grep -q 'RPATH.*\$ORIGIN/gvlib'
echo "$B: $(du -sh $B | cut -f1)"
