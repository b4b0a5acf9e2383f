// Test program built by nvcc with its default, the static CUDA runtime: the
// runtime lives inside this executable, no libcudart is loaded.
#include <cstdio>

__global__ void touch(int *p) { *p = 1; }

int main()
{
	int *p = nullptr, version = 0;
	cudaError_t e = cudaMalloc(&p, 4);

	cudaRuntimeGetVersion(&version);
	std::printf("cudaMalloc=%d runtime=%d\n", (int)e, version);
	return 0;
}
