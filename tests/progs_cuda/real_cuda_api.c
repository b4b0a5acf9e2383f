/* Test program, linked against the real libcudart and libcudnn: the calls a
 * framework makes first. Prints each answer; exits 0 whatever they say. */
#include <stddef.h>
#include <stdio.h>

/* Declared here so that no CUDA header is needed to build. */
int cudaRuntimeGetVersion(int *version);
int cudaGetDeviceCount(int *count);
int cudaMalloc(void **ptr, size_t size);
int cudnnCreate(void **handle);
size_t cudnnGetVersion(void);

int main(void)
{
	void *ptr = NULL, *handle = NULL;
	int version = 0, count = -1, r;

	r = cudaRuntimeGetVersion(&version);
	printf("cudaRuntimeGetVersion=%d version=%d\n", r, version);
	r = cudaGetDeviceCount(&count);
	printf("cudaGetDeviceCount=%d count=%d\n", r, count);
	r = cudaMalloc(&ptr, 1 << 20);
	printf("cudaMalloc=%d\n", r);
	printf("cudnnGetVersion=%zu\n", cudnnGetVersion());
	r = cudnnCreate(&handle);
	printf("cudnnCreate=%d\n", r);
	return 0;
}
