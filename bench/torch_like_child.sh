#!/bin/sh
# The end-of-run diagnosis child of a torch-like run, two builds (bench/
# README.md section 21): bench/torch_like_searches.sh's layout plus a
# torch-2.11.0.dist-info whose RECORD names ~16,000 files (~1.9 MB, as big as
# torch 2.11's) and whose METADATA pins two NVIDIA wheels, so that the
# framework question reads what it reads on the H200. Each build traces the
# same program (bench/torch_like_searches.sh's main) ROUNDS times in pairs
# (bench/diag_pairs.sh: the child's CPU time, medians, the middle half of the
# paired differences); then one traced run of each under callgrind, with the
# cache folders the pairs filled (the child's instructions).
#   sh bench/torch_like_child.sh DIR OLD_BUILD NEW_BUILD [ROUNDS]
set -eu
D=${1:?usage: torch_like_child.sh DIR OLD NEW [ROUNDS]}
OLD=$(cd "${2:?}" && pwd)
NEW=$(cd "${3:?}" && pwd)
R=${4:-25}
PY=${PY:-/usr/bin/python3}
sh "$(dirname "$0")/torch_like_searches.sh" "$D" "$OLD" >/dev/null
S=$D/site-packages
DI=$S/torch-2.11.0.dist-info
mkdir -p "$DI"
printf 'Metadata-Version: 2.4\nName: torch\nVersion: 2.11.0\n%s\n%s\n\n' \
	'Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == "Linux"' \
	'Requires-Dist: nvidia-nccl-cu13==2.28.9; platform_system == "Linux"' >"$DI/METADATA"
echo pip >"$DI/INSTALLER"
printf "__version__ = '2.11.0'\ncuda: Optional[str] = '13.0'\n" >"$S/torch/version.py"
{
	for f in "$S"/torch/lib/*.so; do
		echo "torch/lib/${f##*/},sha256=x,1000"
	done
	awk 'BEGIN { for (i = 0; i < 16000; i++)
		printf "torch/include/ATen/ops/file_%d_generated_operator_header.h,sha256=%043d,%d\n", i, i, 1000 + i }'
	echo "torch-2.11.0.dist-info/RECORD,,"
} >"$DI/RECORD"
# Installed a while ago, as a real wheel is: a list changed in the last
# seconds is read to confirm every time (host/list_index.h).
touch -d '1 hour ago' "$DI"/* "$S/torch/version.py"
sleep 3
rm -rf "$D/cache"
CACHES=$D/cache sh "$(dirname "$0")/diag_pairs.sh" "$OLD" "$NEW" "$R" "$PY" "$D/main" \
	"$S/torch/lib/libtorch_global_deps.so" "$S/torch/lib/libtorch_python.so"
for arm in old new; do
	b=$OLD; [ "$arm" = new ] && b=$NEW
	rm -rf "$D/cg-$arm" && mkdir "$D/cg-$arm"
	XDG_CACHE_HOME=$D/cache/$arm valgrind --tool=callgrind --trace-children=yes \
		--callgrind-out-file="$D/cg-$arm/o.%p" "$b/gputrace" -q -o "$D/cg-$arm/t" -- "$D/main" \
		"$S/torch/lib/libtorch_global_deps.so" "$S/torch/lib/libtorch_python.so" >/dev/null 2>&1
	# the child: the larger of the launcher's two files (the program's is not gputrace)
	child=$(grep -l '^cmd: .*gputrace' "$D/cg-$arm"/o.* | while read -r f; do
		echo "$(sed -n 's/^summary: //p' "$f") $f"; done | sort -n | tail -1 | cut -d' ' -f1)
	printf '%-4s %s: the diagnosis child %s instructions\n' "$arm" "$b" "$child"
done
