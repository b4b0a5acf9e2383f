/* Versions of loaded CUDA-family libraries, in their own words: each library's
 * version call, asked on that exact library (its link map as the dlsym handle),
 * at a safe moment: after the program's own call into it returned, or at exit.
 * Never from loader callbacks, and never a call that could load something:
 * cuDNN 9's cudnnGetVersion loads libcudnn_graph, so it is only asked once the
 * program made cuDNN do that itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/family.h"
#include "common/jline.h"
#include "gputrace/trace_format.h"
#include "preload/preload.h"

#define MAX_VERSIONED 64
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

enum answer_kind {
	INT_OUT,       /* int f(int *out), status returned */
	SIZE_RETURN,   /* size_t f(void) */
	CUBLAS_PROP,   /* cublasGetProperty(type, int *out) for 0,1,2 */
};

/* Which call speaks for which component (see common/family.c). */
static const struct version_call {
	const char *component;
	const char *fn;
	enum answer_kind kind;
	bool needs_driver;  /* would load libcuda.so.1 if it is not loaded yet */
} version_calls[] = {
	{ "cudart", "cudaRuntimeGetVersion", INT_OUT, false },
	{ "cudart", "cudaDriverGetVersion", INT_OUT, true },
	{ "cudnn", "cudnnGetVersion", SIZE_RETURN, false },
	{ "cudnn", "cudnnGetCudartVersion", SIZE_RETURN, false },
	/* cuDNN 9's graph library exports the version calls its front forwards
	 * to: asked on the graph library itself, the answer is its own. */
	{ "cudnn_graph", "cudnnGetVersion", SIZE_RETURN, false },
	{ "cudnn_graph", "cudnnGetCudartVersion", SIZE_RETURN, false },
	{ "cublas", "cublasGetProperty", CUBLAS_PROP, false },
	{ "cublas", "cublasGetCudartVersion", SIZE_RETURN, false },
	{ "cublasLt", "cublasLtGetVersion", SIZE_RETURN, false },
	{ "cublasLt", "cublasLtGetCudartVersion", SIZE_RETURN, false },
	{ "cuda", "cuDriverGetVersion", INT_OUT, false },
	{ "nccl", "ncclGetVersion", INT_OUT, false },
};

static const void *versioned[MAX_VERSIONED];
static int n_versioned;

static bool already_versioned(const void *map)
{
	int i, n = __atomic_load_n(&n_versioned, __ATOMIC_ACQUIRE);

	for (i = 0; i < n && i < MAX_VERSIONED; i++)
		if (versioned[i] == map)
			return true;
	return false;
}

/* Claims the library; false if another thread got there first or no room. */
static bool claim(const void *map)
{
	int i;

	if (already_versioned(map))
		return false;
	i = __atomic_fetch_add(&n_versioned, 1, __ATOMIC_ACQ_REL);
	if (i >= MAX_VERSIONED)
		return false;
	versioned[i] = map;
	return true;
}

static void write_version(const char *lib, const char *fn, long long value, int status, int prop)
{
	char buf[PATH_MAX + 512];
	struct jline j;

	if (!preload_tracing())
		return;
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_VERSION));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_str(&j, GT_K_LIB, lib);
	jl_str(&j, GT_K_FN, fn);
	if (prop >= 0)
		jl_int(&j, GT_K_PROPERTY, prop);  /* 0 major, 1 minor, 2 patch */
	jl_int(&j, GT_K_STATUS, status);
	if (status == 0)
		jl_int(&j, GT_K_VALUE, value);
	preload_write(buf, jl_end(&j));
}

static void ask(struct link_map *map, void *handle, const struct version_call *c)
{
	void *f = preload_dlsym(handle, c->fn);
	int out = 0, status, prop;

	if (!f)
		return;
	switch (c->kind) {
	case INT_OUT:
		status = ((int (*)(int *))f)(&out);
		write_version(map->l_name, c->fn, out, status, -1);
		break;
	case SIZE_RETURN:
		write_version(map->l_name, c->fn, (long long)((size_t (*)(void))f)(), 0, -1);
		break;
	case CUBLAS_PROP:
		for (prop = 0; prop < 3; prop++) {
			status = ((int (*)(int, int *))f)(prop, &out);
			write_version(map->l_name, c->fn, out, status, prop);
		}
		break;
	}
}

/* Is a library of `component` in the link map of `any`? */
static bool component_loaded(const struct link_map *any, const char *component)
{
	struct gt_family_info fi;
	const struct link_map *m;

	while (any->l_prev)
		any = any->l_prev;
	for (m = any; m; m = m->l_next)
		if (m->l_name && gt_classify(m->l_name, &fi) && strcmp(fi.component, component) == 0)
			return true;
	return false;
}

/* Our own calls may make the library search (cuDNN 9 looks for its graph
 * library by its longer names each time): the notes let the report tell
 * those searches from the program's. */
static void note_queries(const char *what)
{
	char buf[128];
	struct jline j;

	if (!preload_tracing())
		return;
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_NOTE));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_str(&j, GT_K_WHAT, what);
	jl_int(&j, GT_K_TID, gt_trace_tid(&preload_trace));
	preload_write(buf, jl_end(&j));
}

/* cuDNN 9's front forwards its version calls to the graph library it loads,
 * loading it first if it has not: asking the front could map a library (the
 * graph library of a second copy that was never used), and its answer would
 * be the graph library's anyway. cuDNN 9 fronts are not asked; their graph
 * libraries are, directly. cuDNN 8's front answers for itself. */
static bool is_cudnn9_front(const char *path)
{
	struct gt_family_info fi;

	return gt_classify(path, &fi) && strcmp(fi.component, "cudnn") == 0 && fi.version[0] != '8';
}

static void ask_library(struct link_map *map)
{
	struct gt_family_info fi;
	size_t i;
	bool driver;

	void *handle;

	if (!map->l_name || map->l_name[0] != '/' || !gt_classify(map->l_name, &fi))
		return;
	if (is_cudnn9_front(map->l_name))
		return;
	if (!claim(map))
		return;
	/* Only a dlopen handle searches from that object: RTLD_NOLOAD maps nothing. */
	handle = preload_dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!handle)
		return;
	driver = component_loaded(map, "cuda");
	note_queries(GT_NOTE_QUERIES_BEGIN);
	for (i = 0; i < sizeof(version_calls) / sizeof(version_calls[0]); i++)
		if (strcmp(version_calls[i].component, fi.component) == 0 &&
		    (driver || !version_calls[i].needs_driver))
			ask(map, handle, &version_calls[i]);
	note_queries(GT_NOTE_QUERIES_END);
	preload_dlclose(handle);
}

/* Every loaded library of a component not asked yet. */
static void ask_component(struct link_map *any, const char *component)
{
	struct gt_family_info fi;
	struct link_map *m;

	while (any->l_prev)
		any = any->l_prev;
	for (m = any; m; m = m->l_next)
		if (m->l_name && gt_classify(m->l_name, &fi) && strcmp(fi.component, component) == 0 &&
		    !already_versioned(m))
			ask_library(m);
}

void preload_versions_of_library_at(const void *fn_addr)
{
	struct link_map *map = NULL;
	Dl_info info;

	if (!fn_addr || !dladdr1(fn_addr, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
		return;
	/* After the program's call into a cuDNN 9 front, its graph library is
	 * loaded: the graph libraries answer for themselves. */
	if (map->l_name && is_cudnn9_front(map->l_name))
		ask_component(map, "cudnn_graph");
	else if (!already_versioned(map))
		ask_library(map);
}

/* The CUDA-family objects loaded when gputrace registered its exit handler:
 * their own exit handlers were registered before it and run after it, so
 * they are alive when it runs. An object is known by its link map and load
 * address together (a map freed by dlclose may be reused for another). */
#define MAX_ALIVE 256
static struct alive {
	const struct link_map *map;
	uintptr_t base;
} alive[MAX_ALIVE];
static int n_alive;

static int marking;  /* one thread marks at a time; another skips */

bool preload_versions_mark_alive(void)
{
	struct gt_family_info fi;
	struct link_map *m;
	int n = 0, before;

	if (__atomic_exchange_n(&marking, 1, __ATOMIC_ACQUIRE))
		return false;
	before = __atomic_load_n(&n_alive, __ATOMIC_ACQUIRE);
	for (m = preload_link_map_head(); m && n < MAX_ALIVE; m = m->l_next)
		if (m->l_name && gt_classify(m->l_name, &fi)) {
			alive[n].map = m;
			alive[n].base = (uintptr_t)m->l_addr;
			n++;
		}
	__atomic_store_n(&n_alive, n, __ATOMIC_RELEASE);
	__atomic_store_n(&marking, 0, __ATOMIC_RELEASE);
	return n > before;
}

static bool was_alive(const struct link_map *m)
{
	int i, n = __atomic_load_n(&n_alive, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (alive[i].map == m && alive[i].base == (uintptr_t)m->l_addr)
			return true;
	return false;
}

void preload_versions_of_alive(void)
{
	struct gt_family_info fi;
	struct link_map *m;

	for (m = preload_link_map_head(); m; m = m->l_next)
		if (m->l_name && was_alive(m) && gt_classify(m->l_name, &fi) && !already_versioned(m))
			ask_library(m);
}
