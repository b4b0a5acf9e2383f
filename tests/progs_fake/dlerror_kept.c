/* A program that reads dlerror() after its own failed dlsym, with a CUDA
 * call in between (the hook's first call asks the loader for the next
 * definition, and the runtime its version): traced, it must read the same
 * message as bare. The runtime is started first, so that its own dlopen of
 * the driver is over before the failed dlsym. Linked against the fake
 * libcudart. */
#include <dlfcn.h>
#include <stdio.h>

int cudaMalloc(void **ptr, size_t size);
int cudaFree(void *ptr);
int cudaGetDeviceCount(int *count);

int main(void)
{
	void *p = NULL, *missing;
	const char *err;
	int n = 0;

	cudaGetDeviceCount(&n);
	missing = dlsym(RTLD_DEFAULT, "gputrace_test_no_such_symbol");
	cudaMalloc(&p, 4096);
	cudaFree(p);
	err = dlerror();
	printf("missing=%p dlerror=%s\n", missing, err ? err : "(none)");
	printf("again=%s\n", dlerror() ? "set" : "(none)");
	return 0;
}
