#!/bin/sh
# A pip-wheel-like layout for timing the loader's search on paper (bench/
# README.md section 16): DIR/site-packages/torch/lib/libtorch_cuda.so with
# torch's six RPATH folders ($ORIGIN/../../nvidia/{cudnn,nvshmem,nccl,
# cusparselt,cu13}/lib and $ORIGIN), 12 CUDA-named libraries in them, 40
# other files in nvidia/cu13/lib, and DIR/prog, which needs libtorch_cuda.so.
# Then, for example:
#   sh bench/wheel_layout.sh /tmp/wl
#   python3 bench/arms.py --rounds 21 "a=OLD/gputrace scan --for /tmp/wl/prog" "b=NEW/gputrace scan --for /tmp/wl/prog"
set -eu
D=${1:?usage: wheel_layout.sh DIR}
S=$D/site-packages
CC=${CC:-cc}
rm -rf "$D"
mkdir -p "$S/torch/lib" "$S/nvidia/cudnn/lib" "$S/nvidia/nvshmem/lib" "$S/nvidia/nccl/lib" \
	"$S/nvidia/cusparselt/lib" "$S/nvidia/cu13/lib"
echo 'int f(void){return 0;}' >"$D/l.c"
echo 'int f(void); int main(void){return f();}' >"$D/m.c"
names="cudart.so.13 cublas.so.13 cublasLt.so.13 cufft.so.12 curand.so.10 cusparse.so.12 cusolver.so.12 nvrtc.so.13 cupti.so.13 nvJitLink.so.13"
libs=""
for n in $names; do
	$CC -shared -fPIC -o "$S/nvidia/cu13/lib/lib$n" -Wl,-soname,"lib$n" "$D/l.c"
	libs="$libs -l:lib$n"
done
$CC -shared -fPIC -o "$S/nvidia/cudnn/lib/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 "$D/l.c"
$CC -shared -fPIC -o "$S/nvidia/nccl/lib/libnccl.so.2" -Wl,-soname,libnccl.so.2 "$D/l.c"
for i in $(seq 40); do
	cp "$S/nvidia/cu13/lib/libcudart.so.13" "$S/nvidia/cu13/lib/libextra$i.so"
done
# shellcheck disable=SC2016,SC2086
$CC -shared -fPIC -o "$S/torch/lib/libtorch_cuda.so" "$D/l.c" -Wl,--disable-new-dtags \
	-Wl,-rpath,'$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/nvshmem/lib:$ORIGIN/../../nvidia/nccl/lib:$ORIGIN/../../nvidia/cusparselt/lib:$ORIGIN/../../nvidia/cu13/lib:$ORIGIN' \
	-Wl,--no-as-needed -L"$S/nvidia/cu13/lib" -L"$S/nvidia/cudnn/lib" -L"$S/nvidia/nccl/lib" $libs \
	-l:libcudnn.so.9 -l:libnccl.so.2
$CC -o "$D/prog" "$D/m.c" -L"$S/torch/lib" -ltorch_cuda -Wl,-rpath,"$S/torch/lib"
"$D/prog"
echo "wheel_layout: $D/prog needs $(ldd "$D/prog" | grep -c '=>') libraries"
