/* gputrace-probe: loads the CUDA libraries the way a framework does (by their
 * usual names, through the loader's normal search) and asks each one what it
 * can answer, one line per step. Run under gputrace (`make doctor`) so every
 * answer comes with the file it came from and the rule that found it. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef int (*int_out_fn)(int *);
typedef size_t (*size_fn)(void);
typedef int (*handle_fn)(void **);

static int failures;

static void *load_first(const char *what, const char *const *names)
{
	void *h;
	int i;

	for (i = 0; names[i]; i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
		if (h) {
			printf("ok       %-8s loaded %s\n", what, names[i]);
			return h;
		}
	}
	printf("FAILED   %-8s none of %s... could be loaded: %s\n", what, names[0], dlerror());
	failures++;
	return NULL;
}

static void ask_int(void *h, const char *what, const char *fn)
{
	int_out_fn f = h ? (int_out_fn)dlsym(h, fn) : NULL;
	int v = 0, r;

	if (!f) {
		printf("skipped  %-8s %s (library not loaded)\n", what, fn);
		return;
	}
	r = f(&v);
	printf("%-8s %-8s %s = %d (status %d)\n", r ? "FAILED" : "ok", what, fn, v, r);
	failures += r != 0;
}

int main(void)
{
	static const char *const driver[] = { "libcuda.so.1", NULL };
	static const char *const cudart[] = { "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", NULL };
	static const char *const cudnn[] = { "libcudnn.so.9", "libcudnn.so.8", NULL };
	void *drv = load_first("driver", driver), *rt = load_first("runtime", cudart);
	void *dnn = load_first("cudnn", cudnn), *handle = NULL;
	size_fn version;
	handle_fn create;
	int r;

	ask_int(drv, "driver", "cuDriverGetVersion");
	ask_int(rt, "runtime", "cudaRuntimeGetVersion");
	ask_int(rt, "runtime", "cudaGetDeviceCount");
	version = dnn ? (size_fn)dlsym(dnn, "cudnnGetVersion") : NULL;
	if (version)
		printf("ok       cudnn    cudnnGetVersion = %zu\n", version());
	create = dnn ? (handle_fn)dlsym(dnn, "cudnnCreate") : NULL;
	if (create) {
		r = create(&handle);
		printf("%-8s cudnn    cudnnCreate = %d\n", r ? "FAILED" : "ok", r);
		failures += r != 0;
	}
	return failures ? 1 : 0;
}
