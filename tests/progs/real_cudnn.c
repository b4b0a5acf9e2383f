/* Test program: dlopen the real libcudnn.so.9 by name, ask its version and call
 * cudnnCreate, printing what it answered. Used on hosts with real cuDNN. */
#include <dlfcn.h>
#include <stdio.h>

typedef size_t (*get_version_fn)(void);
typedef int (*create_fn)(void **);

int main(void)
{
	void *h = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_GLOBAL), *handle = NULL;
	get_version_fn get_version;
	create_fn create;

	if (!h) {
		printf("dlopen libcudnn.so.9 failed: %s\n", dlerror());
		return 3;
	}
	get_version = (get_version_fn)dlsym(h, "cudnnGetVersion");
	create = (create_fn)dlsym(h, "cudnnCreate");
	if (!get_version || !create) {
		printf("cudnn symbols missing\n");
		return 4;
	}
	printf("cudnnGetVersion=%zu\n", get_version());
	printf("cudnnCreate=%d\n", create(&handle));
	return 0;
}
