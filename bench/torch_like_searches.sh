#!/bin/sh
# The paper loader's searches of a torch-like wheel layout, counted: what the
# diagnosis child's `resolve` questions cost (bench/README.md section 20).
# bench/wheel_layout.sh's site-packages (torch's six RPATH folders, the CUDA
# 13 names in nvidia/*/lib), plus libtorch_global_deps.so, libtorch_cuda.so,
# libtorch.so, libtorch_python.so, libtorch_cpu.so, libc10_cuda.so in
# torch/lib with that RPATH list, as torch 2.11's wheel has them; DIR/main
# dlopens libtorch_global_deps.so (RTLD_GLOBAL, as torch/__init__.py does)
# and then libtorch_python.so, whose chain finds the CUDA libraries already
# loaded: the already-loaded rule asks where each would be found on paper
# (14 searches, the H200's import torch asks 19). The run is traced once with
# the first build; each build then reports that trace with its facts file
# taken away (so it asks the host again), under callgrind.
#   sh bench/torch_like_searches.sh DIR BUILD [BUILD...]
set -eu
D=${1:?usage: torch_like_searches.sh DIR BUILD [BUILD...]}
shift
CC=${CC:-cc}
sh "$(dirname "$0")/wheel_layout.sh" "$D" >/dev/null
S=$D/site-packages
# shellcheck disable=SC2016
RP='$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/nvshmem/lib:$ORIGIN/../../nvidia/nccl/lib:$ORIGIN/../../nvidia/cusparselt/lib:$ORIGIN/../../nvidia/cu13/lib:$ORIGIN'
torch_lib() {
	out=$1
	shift
	# shellcheck disable=SC2068
	$CC -shared -fPIC -o "$S/torch/lib/$out" "$D/l.c" -Wl,--disable-new-dtags -Wl,-rpath,"$RP" -Wl,--no-as-needed \
		-L"$S/nvidia/cu13/lib" -L"$S/nvidia/cudnn/lib" -L"$S/nvidia/nccl/lib" -L"$S/torch/lib" $@
}
torch_lib libtorch_global_deps.so -l:libcudart.so.13 -l:libcublas.so.13 -l:libcublasLt.so.13 -l:libcufft.so.12 \
	-l:libcurand.so.10 -l:libcusparse.so.12 -l:libcudnn.so.9 -l:libnccl.so.2 -l:libnvrtc.so.13 -l:libcupti.so.13
torch_lib libc10.so
torch_lib libc10_cuda.so -l:libcudart.so.13 -lc10
torch_lib libtorch_cpu.so -l:libcudart.so.13 -l:libcupti.so.13 -lc10
torch_lib libtorch_nvshmem.so -l:libcudart.so.13
rm -f "$S/torch/lib/libtorch_cuda.so"  # wheel_layout.sh's, made again with the chain's libraries
torch_lib libtorch_cuda.so -l:libcudart.so.13 -l:libcublas.so.13 -l:libcublasLt.so.13 -l:libcufft.so.12 \
	-l:libcurand.so.10 -l:libcusparse.so.12 -l:libcudnn.so.9 -l:libnccl.so.2 -l:libcusolver.so.12 \
	-ltorch_cpu -lc10_cuda -ltorch_nvshmem
torch_lib libtorch.so -ltorch_cuda -ltorch_cpu
torch_lib libtorch_python.so -ltorch -l:libcudart.so.13 -l:libcudnn.so.9
cat >"$D/main.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	if (argc < 3 || !dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) || !dlopen(argv[2], RTLD_NOW)) {
		puts(argc < 3 ? "usage: main GLOBAL_DEPS PYTHON_LIB" : dlerror());
		return 1;
	}
	return 0;
}
C
$CC -o "$D/main" "$D/main.c"
first=$(cd "$1" && pwd)
rm -rf "$D/trace"
"$first/gputrace" -q -o "$D/trace" -- "$D/main" "$S/torch/lib/libtorch_global_deps.so" \
	"$S/torch/lib/libtorch_python.so"
for b in "$@"; do
	b=$(cd "$b" && pwd)
	n=$(echo "$b" | tr / _)
	rm -rf "$D/t$n"
	mkdir "$D/t$n"
	cp "$D"/trace/*.jsonl "$D/t$n/"
	asked=$(GPUTRACE_FACTS_PROFILE=1 "$b/gputrace" report "$D/t$n" 2>&1 >/dev/null | sed -n 's/.*resolve  *\([0-9]*\) asked.*/\1/p')
	valgrind --tool=callgrind --callgrind-out-file="$D/cg$n" "$b/gputrace" report "$D/t$n" >"$D/report$n.txt" 2>/dev/null || true
	printf '%-40s %12s instructions, %s resolve questions\n' "$b" "$(sed -n 's/^summary: //p' "$D/cg$n")" "${asked:-0}"
done
