// Asks for the device's name and compute capability, launches one kernel and
// reports what the launch returned: exit 0 when it ran, 1 when it failed
// (209 cudaErrorNoKernelImageForDevice when the file has no image for the
// device). Built with one -gencode set per test (Makefile, launch_*).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void gt_scale(float *a, float b)
{
	if (a)
		a[threadIdx.x] *= b;
}

int main()
{
	cudaDeviceProp prop;
	int major = -1, minor = -1;
	cudaError_t e = cudaGetDeviceProperties(&prop, 0);

	if (e != cudaSuccess) {
		std::printf("cudaGetDeviceProperties: %d %s\n", (int)e, cudaGetErrorString(e));
		return 1;
	}
	cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
	cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
	std::printf("device 0: %s, compute %d.%d\n", prop.name, major, minor);
	gt_scale<<<1, 32>>>(nullptr, 2.0f);
	e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	std::printf("launch: %d %s\n", (int)e, cudaGetErrorString(e));
	return e == cudaSuccess ? 0 : 1;
}
