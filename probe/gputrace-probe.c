/* gputrace-probe: the C half of `gputrace doctor`. Loads the CUDA libraries
 * the way a framework does and checks the chain layer by layer, one
 * machine-readable line per step, so the doctor can explain the first failure.
 *
 * Output (stdout, tab-separated, one line each, in this order):
 *   step<TAB>NAME<TAB>STATUS<TAB>MS<TAB>DETAIL
 *   lib<TAB>COMPONENT<TAB>PATH      after each library that loaded
 * NAME: driver_load driver_version runtime_load runtime_version device_count
 * device (one per device) malloc_256mib cublas_create sgemm cudnn_load
 * cudnn_version cudnn_create. STATUS: ok, FAILED or skipped. MS: the step's
 * wall time in milliseconds, 3 decimals. COMPONENT: driver, cudart, cublas,
 * cudnn (common/family.c's names). DETAIL never holds a tab or a newline:
 *   load ok          the name or variable it was loaded by
 *   versions         "13.0"; cudnn_version "9.19.0, built for CUDA 13.1,
 *                    runtime 13.0" (FAILED when the two majors differ)
 *   device_count     "1"
 *   device           "0: NVIDIA H200, compute 9.0, 143771 MiB total, N MiB free"
 *   sgemm            "52.3 TFLOP/s (10 runs in 26.3 ms)"
 *   FAILED call      "35 cudaErrorInsufficientDriver" (number, then its name)
 *   FAILED load      dlerror() of every name tried, joined by "; "
 *   skipped          the reason, e.g. "driver not loaded"
 *
 * Libraries: libcuda.so.1; libcudart.so.13, .12, .11.0; libcublas.so.13, .12,
 * .11; libcudnn.so.9, .8 — dlopen()ed RTLD_NOW|RTLD_GLOBAL by name, first that
 * loads wins. GPUTRACE_PROBE_CUDA, _CUDART, _CUBLAS, _CUDNN, when set, name
 * the file to load instead (absolute path only: the doctor points them at the
 * copies its scan found when a name is not on the default search path).
 * cuBLAS has no load step of its own: cublas_create loads it, and a load
 * failure is that step's FAILED even when there is no device.
 *
 * Calls go through the global scope (dlsym(RTLD_DEFAULT)), as a linked
 * framework's would, so that gputrace's hooks see them; whether a function
 * exists, and which file a library is, are asked of the library's own handle.
 *
 * Missing functions: a function every real release has (cuDriverGetVersion,
 * cudaMalloc, cublasCreate_v2, cudnnCreate...) missing makes its step FAILED
 * "function missing: NAME" — the file is not what its name claims. The extras
 * (cudaGetDeviceProperties, cudaDeviceGetAttribute, cudaMemGetInfo,
 * cudaMemset, cudaDeviceSynchronize, cublasSgemm_v2) may be absent from
 * partial libraries such as gputrace's test fakes: the step is "skipped" with
 * "not in this library: NAME", and a device line shows what it could get.
 *
 * Prerequisites: the GPU steps (device, malloc_256mib, the handle of
 * cublas_create, sgemm) need a device count above 0, and are skipped with the
 * reason of the first missing layer. cudnn_create runs whenever cuDNN loaded:
 * its own status is part of the diagnosis (1001 without a driver).
 *
 * Exit status: 0 when no step FAILED, else 1.
 *
 * gputrace-probe --ask-version COMPONENT FILE is another job: one library's
 * answer to its own version function, for gputrace scan --ask
 * (probe/ask_version.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gputrace/status_names.h"
#include "probe/ask_version.h"

#define MIB (1024UL * 1024UL)
#define SGEMM_N 4096
#define SGEMM_RUNS 10
#define DETAIL_MAX 2048

/* Attribute numbers of cudaDeviceAttr (driver_types.h, stable since CUDA 3). */
#define ATTR_CC_MAJOR 75
#define ATTR_CC_MINOR 76
#define CUBLAS_OP_N 0

typedef int (*int_out_fn)(int *);
typedef int (*int_in_fn)(int);
typedef int (*void_fn)(void);
typedef int (*props_fn)(void *, int);
typedef int (*attr_fn)(int *, int, int);
typedef int (*meminfo_fn)(size_t *, size_t *);
typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);
typedef int (*memset_fn)(void *, int, size_t);
typedef int (*handle_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef size_t (*size_fn)(void);
typedef void (*errstr_fn)(char *, size_t);
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
			const float *, int, const float *, float *, int);

enum step_status { STEP_OK, STEP_FAILED, STEP_SKIPPED };

struct lib {
	const char *component;	/* family name, as common/family.c says it */
	const char *env;	/* variable naming a file to use instead */
	const char *anchor;	/* a function whose dladdr names the file */
	const char *names[4];
	void *h;
};

enum { LIB_DRIVER, LIB_CUDART, LIB_CUBLAS, LIB_CUDNN, LIB_COUNT };

static struct lib libs[LIB_COUNT] = {
	[LIB_DRIVER] = { "driver", "GPUTRACE_PROBE_CUDA", "cuDriverGetVersion",
			 { "libcuda.so.1" }, NULL },
	[LIB_CUDART] = { "cudart", "GPUTRACE_PROBE_CUDART", "cudaRuntimeGetVersion",
			 { "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0" }, NULL },
	[LIB_CUBLAS] = { "cublas", "GPUTRACE_PROBE_CUBLAS", "cublasCreate_v2",
			 { "libcublas.so.13", "libcublas.so.12", "libcublas.so.11" }, NULL },
	[LIB_CUDNN] = { "cudnn", "GPUTRACE_PROBE_CUDNN", "cudnnGetVersion",
			{ "libcudnn.so.9", "libcudnn.so.8" }, NULL },
};

static struct {
	int failures;
	int runtime_version;	/* 0: unknown */
	int device_count_ok;
	int n_devices;
	int malloc_ok;
	void *cublas;		/* the handle, when cublas_create succeeded */
} probe;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Tabs and newlines would break the line format; dlerror() can hold either. */
static void flatten(char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\n' || *s == '\r')
			*s = ' ';
}

static double step_start;

static void step_begin(void)
{
	step_start = now_ms();
}

__attribute__((format(printf, 3, 4)))
static void step(const char *name, enum step_status st, const char *fmt, ...)
{
	static const char *const words[] = { "ok", "FAILED", "skipped" };
	char detail[DETAIL_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	flatten(detail);
	printf("step\t%s\t%s\t%.3f\t%s\n", name, words[st], now_ms() - step_start, detail);
	probe.failures += st == STEP_FAILED;
}

/* "35 cudaErrorInsufficientDriver", or the bare number when it has no name. */
static const char *status_text(enum gt_status_api api, long code)
{
	static char buf[128];
	const char *n = gt_status_name(api, code);

	snprintf(buf, sizeof(buf), "%ld %s", code, n ? n : "(unnamed status)");
	return buf;
}

/* The library's own definition, or NULL: decides whether a function exists. */
static void *own_sym(const struct lib *l, const char *name)
{
	return l->h ? dlsym(l->h, name) : NULL;
}

/* What a linked caller would bind to (gputrace's hook when it traces us). */
static void *call_sym(const struct lib *l, const char *name)
{
	void *own = own_sym(l, name), *global;

	if (!own)
		return NULL;
	global = dlsym(RTLD_DEFAULT, name);
	return global ? global : own;
}

static void print_lib_path(const struct lib *l)
{
	struct link_map *lm = NULL;
	void *fn = own_sym(l, l->anchor);
	const char *path = NULL;
	char buf[4096];
	Dl_info info;

	if (fn && dladdr(fn, &info) && info.dli_fname && info.dli_fname[0])
		path = info.dli_fname;
	else if (dlinfo(l->h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
		path = lm->l_name;
	/* a relative LD_LIBRARY_PATH gives relative names: the doctor wants files */
	if (path && path[0] != '/' && getcwd(buf, sizeof(buf)))
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "/%s", path);
	else
		snprintf(buf, sizeof(buf), "%s", path ? path : "?");
	flatten(buf);
	printf("lib\t%s\t%s\n", l->component, buf);
}

/* Loads `l` by the variable's path or by its names; on failure `err` holds
 * why. `how` gets what it was loaded by. */
static int lib_load(struct lib *l, char *err, size_t cap, const char **how)
{
	const char *path = getenv(l->env), *e;
	size_t used = 0;
	int i;

	err[0] = '\0';
	if (path && *path) {
		*how = l->env;
		if (path[0] != '/') {
			snprintf(err, cap, "%s=%s is not an absolute path", l->env, path);
			return -1;
		}
		l->h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
		if (!l->h)
			snprintf(err, cap, "%s", (e = dlerror()) ? e : "dlopen failed");
		return l->h ? 0 : -1;
	}
	for (i = 0; l->names[i] && !l->h; i++) {
		*how = l->names[i];
		l->h = dlopen(l->names[i], RTLD_NOW | RTLD_GLOBAL);
		if (!l->h && used < cap) {
			e = dlerror();
			used += snprintf(err + used, cap - used, "%s%s", used ? "; " : "",
					 e ? e : l->names[i]);
		}
	}
	return l->h ? 0 : -1;
}

/* The load step of `l`; 0 when it loaded. */
static int load_step(const char *name, struct lib *l)
{
	char err[DETAIL_MAX];
	const char *how = "";

	step_begin();
	if (lib_load(l, err, sizeof(err), &how)) {
		step(name, STEP_FAILED, "%s", err);
		return -1;
	}
	step(name, STEP_OK, "%s", how);
	print_lib_path(l);
	return 0;
}

/* 13000 -> "13.0", 12090 -> "12.9": CUDA's major*1000 + minor*10. */
static const char *cuda_version_text(long v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%ld.%ld", v / 1000, (v % 1000) / 10);
	return buf;
}

/* A version query step: fn(&v) into *out, text "13.0". */
static void version_step(const char *name, struct lib *l, const char *fn_name,
			 enum gt_status_api api, const char *not_loaded, int *out)
{
	int_out_fn fn = (int_out_fn)call_sym(l, fn_name);
	char text[32];
	int v = 0, r;

	step_begin();
	if (!l->h) {
		step(name, STEP_SKIPPED, "%s", not_loaded);
		return;
	}
	if (!fn) {
		step(name, STEP_FAILED, "function missing: %s", fn_name);
		return;
	}
	r = fn(&v);
	if (r) {
		step(name, STEP_FAILED, "%s", status_text(api, r));
		return;
	}
	if (out)
		*out = v;
	step(name, STEP_OK, "%s", cuda_version_text(v, text, sizeof(text)));
}

static void check_driver(void)
{
	load_step("driver_load", &libs[LIB_DRIVER]);
	version_step("driver_version", &libs[LIB_DRIVER], "cuDriverGetVersion", GT_API_CU,
		     "driver not loaded", NULL);
}

static void check_runtime(void)
{
	struct lib *rt = &libs[LIB_CUDART];
	int_out_fn count;
	int n = 0, r;

	load_step("runtime_load", rt);
	version_step("runtime_version", rt, "cudaRuntimeGetVersion", GT_API_CUDART,
		     "runtime not loaded", &probe.runtime_version);
	step_begin();
	count = (int_out_fn)call_sym(rt, "cudaGetDeviceCount");
	if (!rt->h) {
		step("device_count", STEP_SKIPPED, "runtime not loaded");
		return;
	}
	if (!count) {
		step("device_count", STEP_FAILED, "function missing: cudaGetDeviceCount");
		return;
	}
	r = count(&n);
	if (r)
		step("device_count", STEP_FAILED, "%s", status_text(GT_API_CUDART, r));
	else if (n <= 0)
		step("device_count", STEP_FAILED, "0 devices, yet cudaGetDeviceCount succeeded");
	else
		step("device_count", STEP_OK, "%d", n);
	probe.device_count_ok = !r && n > 0;
	probe.n_devices = probe.device_count_ok ? n : 0;
}

/* NULL when the GPU steps can run, else why not: the lowest missing layer. */
static const char *no_gpu_reason(void)
{
	if (probe.device_count_ok)
		return NULL;
	if (!libs[LIB_CUDART].h)
		return "runtime not loaded";
	if (!libs[LIB_DRIVER].h)
		return "driver not loaded";
	return "no device: device_count failed";
}

/* Appends ", " fmt to buf. */
__attribute__((format(printf, 3, 4)))
static void append(char *buf, size_t cap, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 2 >= cap)
		return;
	if (used)
		used += snprintf(buf + used, cap - used, ", ");
	va_start(ap, fmt);
	vsnprintf(buf + used, cap - used, fmt, ap);
	va_end(ap);
}

/* One device line. The name is cudaDeviceProp's first field (char[256]) in
 * every version; the struct's size is not, hence the generous buffer. */
static void device_step(int dev)
{
	struct lib *rt = &libs[LIB_CUDART];
	union { char name[4096]; long double align; } props;
	props_fn get_props = (props_fn)call_sym(rt, "cudaGetDeviceProperties");
	attr_fn attr = (attr_fn)call_sym(rt, "cudaDeviceGetAttribute");
	meminfo_fn meminfo = (meminfo_fn)call_sym(rt, "cudaMemGetInfo");
	int_in_fn set_device = (int_in_fn)call_sym(rt, "cudaSetDevice");
	char got[512] = "", lacking[256] = "";
	size_t free_b = 0, total_b = 0;
	int major = 0, minor = 0, r;

	step_begin();
	if (get_props) {
		memset(&props, 0, sizeof(props));
		if ((r = get_props(&props, dev)))
			goto failed;
		props.name[255] = '\0';
		append(got, sizeof(got), "%s", props.name);
	} else {
		append(lacking, sizeof(lacking), "cudaGetDeviceProperties");
	}
	if (attr) {
		if ((r = attr(&major, ATTR_CC_MAJOR, dev)) || (r = attr(&minor, ATTR_CC_MINOR, dev)))
			goto failed;
		append(got, sizeof(got), "compute %d.%d", major, minor);
	} else {
		append(lacking, sizeof(lacking), "cudaDeviceGetAttribute");
	}
	if (meminfo && !set_device) {
		step("device", STEP_FAILED, "%d: function missing: cudaSetDevice", dev);
		return;
	}
	if (meminfo) {
		if ((r = set_device(dev)) || (r = meminfo(&free_b, &total_b)))
			goto failed;
		append(got, sizeof(got), "%zu MiB total, %zu MiB free", total_b / MIB, free_b / MIB);
	} else {
		append(lacking, sizeof(lacking), "cudaMemGetInfo");
	}
	if (!got[0])
		step("device", STEP_SKIPPED, "%d: not in this library: %s", dev, lacking);
	else
		step("device", STEP_OK, "%d: %s%s%s", dev, got,
		     lacking[0] ? "; not in this library: " : "", lacking);
	return;
failed:
	step("device", STEP_FAILED, "%d: %s", dev, status_text(GT_API_CUDART, r));
}

static void check_devices(void)
{
	const char *why = no_gpu_reason();
	int i;

	if (why) {
		step_begin();
		step("device", STEP_SKIPPED, "%s", why);
		return;
	}
	for (i = 0; i < probe.n_devices; i++)
		device_step(i);
}

static void check_malloc(void)
{
	struct lib *rt = &libs[LIB_CUDART];
	malloc_fn dmalloc = (malloc_fn)call_sym(rt, "cudaMalloc");
	free_fn dfree = (free_fn)call_sym(rt, "cudaFree");
	const char *why = no_gpu_reason();
	void *p = NULL;
	int r;

	step_begin();
	if (why) {
		step("malloc_256mib", STEP_SKIPPED, "%s", why);
		return;
	}
	if (!dmalloc || !dfree) {
		step("malloc_256mib", STEP_FAILED, "function missing: %s",
		     dmalloc ? "cudaFree" : "cudaMalloc");
		return;
	}
	if ((r = dmalloc(&p, 256 * MIB)) || (r = dfree(p))) {
		step("malloc_256mib", STEP_FAILED, "%s", status_text(GT_API_CUDART, r));
		return;
	}
	probe.malloc_ok = 1;
	step("malloc_256mib", STEP_OK, "256 MiB allocated and freed");
}

static void check_cublas(void)
{
	struct lib *bl = &libs[LIB_CUBLAS];
	const char *why = no_gpu_reason();
	char err[DETAIL_MAX];
	const char *how = "";
	handle_fn create;
	int r;

	step_begin();
	if (lib_load(bl, err, sizeof(err), &how)) {
		step("cublas_create", STEP_FAILED, "%s", err);
		return;
	}
	create = (handle_fn)call_sym(bl, "cublasCreate_v2");
	if (!create)
		step("cublas_create", STEP_FAILED, "function missing: cublasCreate_v2");
	else if (why)
		step("cublas_create", STEP_SKIPPED, "%s (%s loaded)", why, how);
	else if ((r = create(&probe.cublas)))
		step("cublas_create", STEP_FAILED, "%s", status_text(GT_API_CUBLAS, r));
	else
		step("cublas_create", STEP_OK, "handle created (%s)", how);
	print_lib_path(bl);
}

/* Everything SGEMM needs; NULL members say what this library lacks. */
struct sgemm_fns {
	malloc_fn dmalloc;
	free_fn dfree;
	memset_fn dmemset;
	void_fn sync;
	sgemm_fn sgemm;
};

static int sgemm_once(const struct sgemm_fns *f, float *bufs[3])
{
	const float alpha = 1.0f, beta = 0.0f;
	const int n = SGEMM_N;

	return f->sgemm(probe.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, bufs[0], n,
			bufs[1], n, &beta, bufs[2], n);
}

/* One warm-up, then SGEMM_RUNS timed between two synchronisations. Returns
 * the status; *cublas_failed says whether it is cuBLAS's or cudart's. */
static int sgemm_runs(const struct sgemm_fns *f, float *bufs[3], double *ms, int *cublas_failed)
{
	double t0;
	int i, r;

	if ((r = sgemm_once(f, bufs)))
		goto cublas;
	if ((r = f->sync()))
		return r;
	t0 = now_ms();
	for (i = 0; i < SGEMM_RUNS; i++)
		if ((r = sgemm_once(f, bufs)))
			goto cublas;
	r = f->sync();
	*ms = now_ms() - t0;
	return r;
cublas:
	*cublas_failed = 1;
	return r;
}

/* Allocates and zeroes the three matrices, runs, frees. */
static int sgemm_run(const struct sgemm_fns *f, double *ms, int *cublas_failed)
{
	const size_t bytes = (size_t)SGEMM_N * SGEMM_N * sizeof(float);
	float *bufs[3] = { NULL, NULL, NULL };
	int i, r = 0;

	*cublas_failed = 0;
	for (i = 0; i < 3 && !r; i++)
		if (!(r = f->dmalloc((void **)&bufs[i], bytes)))
			r = f->dmemset(bufs[i], 0, bytes);
	if (r)
		goto out;
	r = sgemm_runs(f, bufs, ms, cublas_failed);
out:
	for (i = 0; i < 3; i++)
		if (bufs[i])
			f->dfree(bufs[i]);
	return r;
}

static void check_sgemm(void)
{
	struct lib *rt = &libs[LIB_CUDART], *bl = &libs[LIB_CUBLAS];
	struct sgemm_fns f = {
		(malloc_fn)call_sym(rt, "cudaMalloc"), (free_fn)call_sym(rt, "cudaFree"),
		(memset_fn)call_sym(rt, "cudaMemset"), (void_fn)call_sym(rt, "cudaDeviceSynchronize"),
		(sgemm_fn)call_sym(bl, "cublasSgemm_v2"),
	};
	const char *why = no_gpu_reason();
	char lacking[128] = "";
	int r, cublas_failed;
	double ms = 0, tflops;

	step_begin();
	if (!why && !probe.malloc_ok)
		why = "malloc_256mib failed";
	if (!why && !probe.cublas)
		why = "cublas_create did not succeed";
	if (why) {
		step("sgemm", STEP_SKIPPED, "%s", why);
		return;
	}
	if (!f.sgemm)
		append(lacking, sizeof(lacking), "cublasSgemm_v2");
	if (!f.dmemset)
		append(lacking, sizeof(lacking), "cudaMemset");
	if (!f.sync)
		append(lacking, sizeof(lacking), "cudaDeviceSynchronize");
	if (lacking[0]) {
		step("sgemm", STEP_SKIPPED, "not in this library: %s", lacking);
		return;
	}
	r = sgemm_run(&f, &ms, &cublas_failed);
	if (r) {
		step("sgemm", STEP_FAILED, "%s",
		     status_text(cublas_failed ? GT_API_CUBLAS : GT_API_CUDART, r));
		return;
	}
	tflops = 2.0 * SGEMM_N * SGEMM_N * (double)SGEMM_N * SGEMM_RUNS / (ms / 1e3) / 1e12;
	step("sgemm", STEP_OK, "%.1f TFLOP/s (%d runs in %.1f ms)", tflops, SGEMM_RUNS, ms);
}

/* 91900 -> "9.19.0" (9 and later); 8907 -> "8.9.7" (8 and earlier). */
static const char *cudnn_version_text(size_t v, char *buf, size_t cap)
{
	if (v >= 10000)
		snprintf(buf, cap, "%zu.%zu.%zu", v / 10000, v % 10000 / 100, v % 100);
	else
		snprintf(buf, cap, "%zu.%zu.%zu", v / 1000, v % 1000 / 100, v % 100);
	return buf;
}

/* Returns cudnnGetVersion()'s answer, 0 when unknown. */
static size_t check_cudnn_version(void)
{
	struct lib *dnn = &libs[LIB_CUDNN];
	size_fn version = (size_fn)call_sym(dnn, "cudnnGetVersion");
	size_fn built_for = (size_fn)call_sym(dnn, "cudnnGetCudartVersion");
	char v[32], b[32], rt[32] = "unknown (runtime not loaded)";
	size_t ver, cudart;

	step_begin();
	if (!dnn->h) {
		step("cudnn_version", STEP_SKIPPED, "cuDNN not loaded");
		return 0;
	}
	if (!version || !built_for) {
		step("cudnn_version", STEP_FAILED, "function missing: %s",
		     version ? "cudnnGetCudartVersion" : "cudnnGetVersion");
		return 0;
	}
	ver = version();
	cudart = built_for();
	cudnn_version_text(ver, v, sizeof(v));
	cuda_version_text((long)cudart, b, sizeof(b));
	if (probe.runtime_version)
		cuda_version_text(probe.runtime_version, rt, sizeof(rt));
	if (probe.runtime_version && (long)cudart / 1000 != probe.runtime_version / 1000)
		step("cudnn_version", STEP_FAILED,
		     "%s, built for CUDA %s, runtime %s: different major versions", v, b, rt);
	else
		step("cudnn_version", STEP_OK, "%s, built for CUDA %s, runtime %s", v, b, rt);
	return ver;
}

/* cudnnGetLastErrorString may repeat the status name we already print. */
static const char *without_prefix(const char *msg, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n && strncmp(msg, name, n) == 0 && msg[n] == ':')
		for (msg += n + 1; *msg == ' '; msg++)
			;
	return msg;
}

static void check_cudnn_create(size_t version)
{
	struct lib *dnn = &libs[LIB_CUDNN];
	handle_fn create = (handle_fn)call_sym(dnn, "cudnnCreate");
	destroy_fn destroy = (destroy_fn)call_sym(dnn, "cudnnDestroy");
	errstr_fn last_error = (errstr_fn)call_sym(dnn, "cudnnGetLastErrorString");
	enum gt_status_api api = gt_cudnn_api_for_version((long)version);
	const char *name, *text;
	char msg[512] = "";
	void *h = NULL;
	int r;

	step_begin();
	if (!dnn->h) {
		step("cudnn_create", STEP_SKIPPED, "cuDNN not loaded");
		return;
	}
	if (!create) {
		step("cudnn_create", STEP_FAILED, "function missing: cudnnCreate");
		return;
	}
	r = create(&h);
	if (!r) {
		if (destroy)
			destroy(h);
		step("cudnn_create", STEP_OK, "handle created");
		return;
	}
	name = gt_status_name(api, r);
	text = status_text(api, r);
	if (last_error)
		last_error(msg, sizeof(msg));
	msg[sizeof(msg) - 1] = '\0';
	step("cudnn_create", STEP_FAILED, "%s%s%s", text, msg[0] ? ": " : "",
	     without_prefix(msg, name));
}

static void check_cudnn(void)
{
	load_step("cudnn_load", &libs[LIB_CUDNN]);
	check_cudnn_create(check_cudnn_version());
}

static void release_cublas(void)
{
	destroy_fn destroy = (destroy_fn)call_sym(&libs[LIB_CUBLAS], "cublasDestroy_v2");

	if (probe.cublas && destroy)
		destroy(probe.cublas);
	probe.cublas = NULL;
}

int main(int argc, char **argv)
{
	/* line-buffered: a crash in a library keeps the steps before it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "--ask-version") == 0)
		return probe_ask_version(argv[2], argv[3]);
	check_driver();
	check_runtime();
	check_devices();
	check_malloc();
	check_cublas();
	check_sgemm();
	release_cublas();
	check_cudnn();
	return probe.failures ? 1 : 0;
}
