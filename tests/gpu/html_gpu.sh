#!/usr/bin/env bash
# GPU-machine run of issue 17 (the HTML report's picture): real PyTorch 2.11
# with its pip cuDNN 9.19, LD_LIBRARY_PATH=/lib/x86_64-linux-gnu putting the
# system cuDNN 9.14 parts in front (mixed cuDNN), one convolution. The HTML
# report is made here, where the files the report reads (the wheels' records,
# torch's METADATA, the libraries themselves) are: a report of the copied
# trace on another host lacks what those say. It needs a build with Graphviz,
# build-gpu-html/ (its libgvc and two layout plugins next to it, found through
# the command's own RPATH, GVBINDIR naming the plugins; see the lead's notes
# made by tools/gpu-html-build.sh). The screenshot is taken on the build host:
#   /usr/bin/python3 tools/html-screenshot.py <fetched>/mixed.html doc/report-mixed-cudnn.png
# Carry build-gpu/, built without Graphviz (this machine has no libgvc):
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" all
# LD_LIBRARY_PATH is set for the traced program only (env inside the command),
# never for gputrace itself.
set -u
cd "$(dirname "$0")/../.."
GT=$PWD/build-gpu/gputrace
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
rm -rf "$OUT/mixed"
PROG='import torch; torch.backends.cudnn.version(); x=torch.randn(1,3,32,32,device="cuda"); torch.nn.functional.conv2d(x, torch.randn(8,3,3,3,device="cuda"))'

env LD_LIBRARY_PATH=/lib/x86_64-linux-gnu python3 -c "$PROG" >"$OUT/bare.out" 2>"$OUT/bare.err"
echo "bare exit $?"
"$GT" -o "$OUT/mixed" -- env LD_LIBRARY_PATH=/lib/x86_64-linux-gnu python3 -c "$PROG" \
	>"$OUT/traced.out" 2>"$OUT/traced.err"
echo "traced exit $?"
tail -n 3 "$OUT/bare.err" | cut -c1-240
ls -la "$OUT/mixed"
"$GT" report "$OUT/mixed" >"$OUT/report.txt" 2>&1; echo "report exit $?"
"$GT" report --json "$OUT/mixed" >"$OUT/report.json" 2>/dev/null
"$GT" report --dot "$OUT/mixed" >"$OUT/mixed.dot" 2>&1; echo "report --dot exit $?"
if [ -x build-gpu-html/gputrace ]; then
	GVBINDIR=$PWD/build-gpu-html/gvlib/graphviz build-gpu-html/gputrace report --html "$OUT/mixed.html" \
		"$OUT/mixed"
	echo "report --html exit $? ($(stat -c %s "$OUT/mixed.html" 2>/dev/null) bytes)"
fi
cut -c1-240 "$OUT/report.txt" | head -40
python3 - "$OUT/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("findings:", [(f["id"], f["severity"]) for f in d["findings"]])
for p in d["processes"]:
    for l in p["libraries"]:
        if l["family"] == "cudnn":
            print("  %-34s %-10s %-16s %s" % (l["component"], l["version"], l["found_by"], l["path"]))
PY
