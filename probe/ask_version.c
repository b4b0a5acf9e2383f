/* gputrace-probe --ask-version (ask_version.h). Only functions that need no
 * handle, no device and no driver are called: the version queries each
 * library documents for use before anything is initialised. */
#define _GNU_SOURCE
#include "probe/ask_version.h"

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a function gives its version. */
enum shape {
	INT_OUT_RUNTIME,  /* int f(int *): 13000 -> 13.0 */
	SIZE_CUDNN,       /* size_t f(void): 91900 -> 9.19.0, 8907 -> 8.9.7 */
	PROPERTY,         /* int f(int type, int *): major 0, minor 1, patch 2 (libraryPropertyType) */
	TWO_INTS,         /* int f(int *major, int *minor) */
	INT_OUT_NCCL,     /* int f(int *): 22809 -> 2.28.9 (2.9 on), 2708 -> 2.7.8 */
};

static const struct {
	const char *component, *fn;
	enum shape shape;
} known[] = {
	{ "cudart", "cudaRuntimeGetVersion", INT_OUT_RUNTIME },
	{ "cudnn", "cudnnGetVersion", SIZE_CUDNN },
	{ "cudnn_graph", "cudnnGetVersion", SIZE_CUDNN },
	{ "cublas", "cublasGetProperty", PROPERTY },
	{ "cublasLt", "cublasLtGetProperty", PROPERTY },
	{ "cufft", "cufftGetProperty", PROPERTY },
	{ "curand", "curandGetProperty", PROPERTY },
	{ "cusparse", "cusparseGetProperty", PROPERTY },
	{ "cusolver", "cusolverGetProperty", PROPERTY },
	{ "nvrtc", "nvrtcVersion", TWO_INTS },
	{ "nvJitLink", "nvJitLinkVersion", TWO_INTS },
	{ "nccl", "ncclGetVersion", INT_OUT_NCCL },
};

static int fail(const char *fmt, const char *a, const char *b)
{
	printf("error\t");
	printf(fmt, a, b);
	putchar('\n');
	return 1;
}

/* True when fn is defined in the file at path itself, not in a library it
 * pulled in (dlsym on a handle searches its dependencies too). */
static bool own_function(void *fn, const char *path, char *where, size_t cap)
{
	char a[PATH_MAX], b[PATH_MAX];
	Dl_info info;

	if (!dladdr(fn, &info) || !info.dli_fname)
		return false;
	snprintf(where, cap, "%s", info.dli_fname);
	return realpath(info.dli_fname, a) && realpath(path, b) && strcmp(a, b) == 0;
}

static int call(void *fn, enum shape shape, char *out, size_t cap)
{
	int a = 0, b = 0, c = 0, r;

	switch (shape) {
	case INT_OUT_RUNTIME:
		if ((r = ((int (*)(int *))fn)(&a)))
			return r;
		snprintf(out, cap, "%d.%d", a / 1000, a % 1000 / 10);
		return 0;
	case SIZE_CUDNN: {
		size_t v = ((size_t (*)(void))fn)();

		if (v >= 90000)
			snprintf(out, cap, "%zu.%zu.%zu", v / 10000, v % 10000 / 100, v % 100);
		else
			snprintf(out, cap, "%zu.%zu.%zu", v / 1000, v % 1000 / 100, v % 100);
		return v ? 0 : -1;
	}
	case PROPERTY: {
		int (*get)(int, int *) = (int (*)(int, int *))fn;

		if ((r = get(0, &a)) || (r = get(1, &b)) || (r = get(2, &c)))
			return r;
		snprintf(out, cap, "%d.%d.%d", a, b, c);
		return 0;
	}
	case TWO_INTS:
		if ((r = ((int (*)(int *, int *))fn)(&a, &b)))
			return r;
		snprintf(out, cap, "%d.%d", a, b);
		return 0;
	case INT_OUT_NCCL:
		if ((r = ((int (*)(int *))fn)(&a)))
			return r;
		if (a >= 20900)
			snprintf(out, cap, "%d.%d.%d", a / 10000, a % 10000 / 100, a % 100);
		else
			snprintf(out, cap, "%d.%d.%d", a / 1000, a % 1000 / 100, a % 100);
		return 0;
	}
	return -1;
}

static int find_graph(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	if (base && strncmp(base, "/libcudnn_graph.so", 18) == 0) {
		snprintf(data, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

int probe_ask_version(const char *component, const char *path)
{
	char version[64], where[PATH_MAX] = "", graph[PATH_MAX] = "", status[16];
	void *h, *fn;
	size_t i;
	int r;

	for (i = 0; i < sizeof(known) / sizeof(known[0]) && strcmp(known[i].component, component); i++)
		;
	if (i == sizeof(known) / sizeof(known[0])) {
		printf("none\tno version function is known for %s\n", component);
		return PROBE_ASK_NOTHING;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return fail("cannot load it: %s%s", dlerror(), "");
	fn = dlsym(h, known[i].fn);
	if (!fn)
		return fail("%s is not in this library%s", known[i].fn, "");
	if (!own_function(fn, path, where, sizeof(where)))
		return fail("%s is not this file's own (it comes from %s)", known[i].fn, where);
	fflush(stdout);
	r = call(fn, known[i].shape, version, sizeof(version));
	if (r) {
		snprintf(status, sizeof(status), "%d", r);
		return fail("%s returned %s", known[i].fn, status);
	}
	/* cuDNN 9's front answers for the graph library it loaded */
	if (strcmp(component, "cudnn") == 0 && dl_iterate_phdr(find_graph, graph))
		printf("from\t%s\n", graph);
	printf("version\t%s\n", version);
	return 0;
}
