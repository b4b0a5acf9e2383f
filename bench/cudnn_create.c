/* The real-library workload of bench/cost.py: dlopen the real cuDNN 9 and
 * cuBLAS by name (as a framework does at its first convolution), then
 * cudnnCreate, which loads cuDNN's sub-libraries (without a GPU it returns
 * 1001; the loads are the same). Exit status 0 when both libraries loaded. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*create_fn)(void **);

int main(void)
{
	void *dnn = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_GLOBAL);
	void *blas = dlopen("libcublas.so.13", RTLD_NOW | RTLD_GLOBAL), *handle = NULL;
	create_fn create = dnn ? (create_fn)dlsym(dnn, "cudnnCreate") : NULL;

	if (!dnn || !blas || !create)
		return 3;
	printf("cudnnCreate=%d\n", create(&handle));
	return 0;
}
