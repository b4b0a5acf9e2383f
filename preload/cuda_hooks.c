/* The CUDA entry points the preload half intercepts, by defining them: the
 * loader binds callers to these, each calls the next definition first and then
 * records what it answered. Results and errno are never changed (invariant 2);
 * hot calls (allocations, cudaSetDevice) are only counted (invariant 4). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/jline.h"
#include "preload/api_stats.h"
#include "gputrace/status_names.h"
#include "gputrace/trace_format.h"
#include "preload/preload.h"

#define CALL_EVENTS_PER_STATUS 8  /* rare calls: the first few are written */
#define ALLOC_FAIL_EVENTS 32      /* failed allocations written one by one */

/* The definitions found after ours in the global scope, resolved on first use. */
static void *next_defs[GT_FN_COUNT];

void *preload_handle_of_loaded(const void *addr)
{
	Dl_info info;

	if (!dladdr(addr, &info) || !info.dli_fname || info.dli_fname[0] != '/')
		return NULL;
	return preload_dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

static bool inside_us(const void *addr)
{
	Dl_info mine, theirs;

	return addr && dladdr((const void *)inside_us, &mine) && dladdr(addr, &theirs) &&
	       mine.dli_fbase == theirs.dli_fbase;
}

static void *lookup_in(const char *path, const char *name)
{
	void *h = preload_dlopen(path, RTLD_LAZY | RTLD_NOLOAD), *p = NULL;

	if (h) {
		p = preload_dlsym(h, name);
		preload_dlclose(h);
	}
	return inside_us(p) ? NULL : p;
}

/* The last resort: the first loaded object, in load order, that defines it. */
static void *lookup_in_link_map(const char *name)
{
	struct link_map *m = NULL;
	Dl_info info;
	void *p = NULL;

	if (!dladdr1((const void *)lookup_in_link_map, &info, (void **)&m, RTLD_DL_LINKMAP) || !m)
		return NULL;
	while (m->l_prev)
		m = m->l_prev;
	for (; m && !p; m = m->l_next)
		if (m->l_name && m->l_name[0] == '/')
			p = lookup_in(m->l_name, name);
	return p;
}

/* The definition the caller would have got without us. The global scope comes
 * first for every caller, so the next one there is right when it exists. If
 * the library was loaded RTLD_LOCAL, only the caller's own scope has it; and
 * when the caller reached us by a tail call, the return address is in our own
 * code, so the link map in load order is all that is left. Not cached: these
 * answers depend on the caller. */
static void *find_real_function(enum gt_hooked_fn fn, const void *caller)
{
	Dl_info info;
	void *p;
	int saved = errno;

	p = preload_dlsym(RTLD_NEXT, gt_hooked_name(fn));
	if (p) {
		__atomic_store_n(&next_defs[fn], p, __ATOMIC_RELEASE);
		goto out;
	}
	if (!inside_us(caller) && dladdr(caller, &info) && info.dli_fname && info.dli_fname[0] == '/')
		p = lookup_in(info.dli_fname, gt_hooked_name(fn));
	if (!p)
		p = lookup_in_link_map(gt_hooked_name(fn));
out:
	errno = saved;  /* dlsym and dlopen may set it */
	return p;
}

static inline void *real_function(enum gt_hooked_fn fn, const void *caller)
{
	void *p = __atomic_load_n(&next_defs[fn], __ATOMIC_ACQUIRE);

	return p ? p : find_real_function(fn, caller);
}

void *preload_real_function(enum gt_hooked_fn fn, const void *caller)
{
	return real_function(fn, caller);
}

/* What a hook answers when no real definition exists anywhere (a caller found
 * ours through dlsym(RTLD_DEFAULT)): each API's "not initialized". */
static int missing_status(enum gt_hooked_fn fn)
{
	switch (fn) {
	case GT_FN_cudnnCreate:
		return 1001;  /* CUDNN_STATUS_NOT_INITIALIZED (9.x) */
	case GT_FN_cublasCreate_v2:
	case GT_FN_cublasLtCreate:
		return 1;     /* CUBLAS_STATUS_NOT_INITIALIZED */
	case GT_FN_ncclCommInitRank:
	case GT_FN_ncclCommInitRankConfig:
		return 2;     /* ncclSystemError */
	default:
		return 3;     /* cudaErrorInitializationError, CUDA_ERROR_NOT_INITIALIZED */
	}
}

static const char *lib_path_of(const void *addr)
{
	Dl_info info;

	return dladdr(addr, &info) && info.dli_fname ? info.dli_fname : NULL;
}

/* The first few calls of a rare function, each status, get a line of their own. */
static void write_call(enum gt_hooked_fn fn, int status, const void *real, const char *reason,
		       long long value, bool has_value)
{
	char buf[1536];
	struct jline j;

	if (!preload_tracing())
		return;
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_CALL));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_TID, gt_trace_tid(&preload_trace));
	jl_str(&j, GT_K_FN, gt_hooked_name(fn));
	jl_int(&j, GT_K_STATUS, status);
	jl_str(&j, GT_K_STATUS_NAME, preload_status_name(fn, status));
	if (has_value)
		jl_int(&j, GT_K_VALUE, value);
	jl_str(&j, GT_K_REASON, reason);
	jl_str(&j, GT_K_LIB, lib_path_of(real));
	preload_write(buf, jl_end(&j));
}

/* The first call of each hot function asks its library for its version. */
static bool first_calls[GT_FN_COUNT];

static void first_call_of(enum gt_hooked_fn fn, const void *real)
{
	int saved;

	if (__atomic_load_n(&first_calls[fn], __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&first_calls[fn], true, __ATOMIC_ACQ_REL))
		return;
	saved = errno;
	preload_versions_of_library_at(real);
	preload_rearm_if_loaded();
	errno = saved;
}

/* Bookkeeping after a rare call, with the guard up. It writes, so errno is
 * kept here; the hot paths touch memory only and need not. */
static void after_call(enum gt_hooked_fn fn, int status, const void *real, unsigned long long bytes,
		       const char *reason, long long value, bool has_value)
{
	unsigned long long n;
	int saved = errno;

	preload_arm_flush(fn);
	if (gt_hooked_is_hot(fn)) {
		preload_stats_count_hot(fn, status, bytes);
		first_call_of(fn, real);
		if (status == 0)
			preload_stats_fast_ready(fn);
		goto out;
	}
	n = preload_stats_count(fn, status, bytes);
	if (n >= 1 && n <= CALL_EVENTS_PER_STATUS)
		write_call(fn, status, real, reason, value, has_value);
	if (n == 1)
		preload_versions_of_library_at(real);
	if (n >= 1 && n <= CALL_EVENTS_PER_STATUS)
		preload_rearm_if_loaded();
out:
	errno = saved;
}

void preload_record_failed_call(enum gt_hooked_fn fn, int status, const void *real)
{
	after_call(fn, status, real, 0, NULL, 0, false);
}

int preload_missing_status(enum gt_hooked_fn fn)
{
	return missing_status(fn);
}

static void after_alloc(enum gt_hooked_fn fn, int status, const void *real, void **ptr, size_t size)
{
	unsigned long long n;
	char buf[512];
	struct jline j;
	int saved;

	preload_arm_flush(fn);
	preload_stats_count_hot(fn, status, size);
	first_call_of(fn, real);
	if (status == 0 && ptr) {
		preload_stats_alloc((uintptr_t)*ptr, size);
		preload_stats_fast_ready(fn);
		return;
	}
	n = preload_stats_alloc_failed();
	saved = errno;
	if (n > ALLOC_FAIL_EVENTS || !preload_tracing())
		goto out;
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_ALLOC_FAIL));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_TID, gt_trace_tid(&preload_trace));
	jl_str(&j, GT_K_FN, gt_hooked_name(fn));
	jl_uint(&j, GT_K_SIZE, size);
	jl_int(&j, GT_K_STATUS, status);
	jl_str(&j, GT_K_STATUS_NAME, preload_status_name(fn, status));
	jl_uint(&j, GT_K_NTH, n);
	preload_write(buf, jl_end(&j));
out:
	errno = saved;
}

/* The real functions' types, as the CUDA headers declare them (handles and
 * streams are pointers, statuses are ints). */

/* ncclUniqueId is a 128-byte struct passed by value: same layout here. */
struct gt_nccl_unique_id {
	char internal[128];
};

/* The real functions' types, as the CUDA headers declare them (handles and
 * streams are pointers, statuses are ints). */
typedef int (*cudaMalloc_fn)(void **, size_t);
typedef int (*cudaMallocAsync_fn)(void **, size_t, void *);
typedef int (*cudaMallocManaged_fn)(void **, size_t, unsigned int);
typedef int (*cudaFree_fn)(void *);
typedef int (*cudaFreeAsync_fn)(void *, void *);
typedef int (*cudaSetDevice_fn)(int);
typedef int (*cudaGetDeviceCount_fn)(int *);
typedef int (*cudnnCreate_fn)(void **);
typedef int (*cublasCreate_v2_fn)(void **);
typedef int (*cublasLtCreate_fn)(void **);
typedef int (*cuInit_fn)(unsigned int);
typedef int (*ncclCommInitRankConfig_fn)(void **, int, struct gt_nccl_unique_id, int, void *);
typedef int (*ncclCommInitRank_fn)(void **, int, struct gt_nccl_unique_id, int);

/* Every hook has this shape: find the real function, call it, and record only
 * when tracing is on and we are not inside our own code. */
#define HOOK_PROLOGUE(fn)                                                        \
	fn##_fn real = (fn##_fn)real_function(GT_FN_##fn, __builtin_return_address(0)); \
	int status;                                                              \
	if (!real)                                                               \
		return missing_status(GT_FN_##fn)

/* errno is the caller's: whatever may change it (writes, version calls)
 * saves and restores it where it happens, off the hot path. */
#define HOOK_RECORD(stmt)                                 \
	do {                                              \
		if (!preload_ready || preload_in_hook)    \
			break;                            \
		preload_in_hook = 1;                      \
		stmt;                                     \
		preload_in_hook = 0;                      \
	} while (0)

/* A hot call that succeeded, after this thread's first of that function, is
 * counted in the thread's own block and nothing more (api_stats.c,
 * preload_stats_fast_*). The first went the slow way, which armed the exit
 * flush and asked the library's version: those are once a process, so a
 * later call has nothing left to do but count. The slow way is a function of
 * its own, reached by a tail call, so that the hook itself keeps few
 * registers (gcc saves every register the slow way needs at the entry of
 * the function that holds it). */
static __attribute__((noinline)) int slow_hot_alloc(enum gt_hooked_fn fn, int status, void *real,
						    void **ptr, size_t size)
{
	preload_in_hook = 1;
	after_alloc(fn, status, real, ptr, size);
	preload_in_hook = 0;
	return status;
}

static inline __attribute__((always_inline)) int after_hot_alloc(enum gt_hooked_fn fn, int status,
								 void *real, void **ptr, size_t size)
{
	if (!preload_ready || preload_in_hook || preload_stats_fast_alloc(fn, status, ptr, size))
		return status;
	return slow_hot_alloc(fn, status, real, ptr, size);
}

static __attribute__((noinline)) int slow_hot_free(enum gt_hooked_fn fn, int status, void *real, void *ptr)
{
	preload_in_hook = 1;
	preload_stats_count_hot(fn, status, 0);
	first_call_of(fn, real);
	if (status == 0) {
		preload_stats_free((uintptr_t)ptr);
		preload_stats_fast_ready(fn);
	}
	preload_in_hook = 0;
	return status;
}

static inline __attribute__((always_inline)) int after_hot_free(enum gt_hooked_fn fn, int status,
								void *real, void *ptr)
{
	if (!preload_ready || preload_in_hook || preload_stats_fast_free(fn, status, (uintptr_t)ptr))
		return status;
	return slow_hot_free(fn, status, real, ptr);
}

GT_EXPORT int cudaMalloc(void **ptr, size_t size)
{
	HOOK_PROLOGUE(cudaMalloc);
	status = real(ptr, size);
	return after_hot_alloc(GT_FN_cudaMalloc, status, (void *)real, ptr, size);
}

GT_EXPORT int cudaMallocAsync(void **ptr, size_t size, void *stream)
{
	HOOK_PROLOGUE(cudaMallocAsync);
	status = real(ptr, size, stream);
	return after_hot_alloc(GT_FN_cudaMallocAsync, status, (void *)real, ptr, size);
}

GT_EXPORT int cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	HOOK_PROLOGUE(cudaMallocManaged);
	status = real(ptr, size, flags);
	return after_hot_alloc(GT_FN_cudaMallocManaged, status, (void *)real, ptr, size);
}

GT_EXPORT int cudaFree(void *ptr)
{
	HOOK_PROLOGUE(cudaFree);
	status = real(ptr);
	return after_hot_free(GT_FN_cudaFree, status, (void *)real, ptr);
}

GT_EXPORT int cudaFreeAsync(void *ptr, void *stream)
{
	HOOK_PROLOGUE(cudaFreeAsync);
	status = real(ptr, stream);
	return after_hot_free(GT_FN_cudaFreeAsync, status, (void *)real, ptr);
}

GT_EXPORT int cudaSetDevice(int device)
{
	HOOK_PROLOGUE(cudaSetDevice);
	status = real(device);
	if (preload_ready && !preload_in_hook && preload_stats_fast_count(GT_FN_cudaSetDevice, status, 0))
		return status;
	HOOK_RECORD(after_call(GT_FN_cudaSetDevice, status, (void *)real, 0, NULL, device, true));
	return status;
}

GT_EXPORT int cudaGetDeviceCount(int *count)
{
	HOOK_PROLOGUE(cudaGetDeviceCount);
	status = real(count);
	HOOK_RECORD(after_call(GT_FN_cudaGetDeviceCount, status, (void *)real, 0, NULL,
			       status == 0 && count ? *count : 0, status == 0 && count));
	return status;
}

/* cuDNN's own words for a failed cudnnCreate. cudnnGetErrorString names the
 * code and changes nothing. cudnnGetLastErrorString (9.x) names the cause, but
 * reading it clears it (measured: a second read is empty), so a program that
 * reads it after us would get nothing; and at exit its storage is already
 * destroyed. So it is read only when asked for, GPUTRACE_CUDNN_REASON=1
 * (gputrace-trace(5) says what that costs). */
static const char *cudnn_reason(const void *real, int status, char *buf, size_t cap)
{
	const char *(*error_string)(int);
	void (*last_error)(char *, size_t);
	const char *reason = NULL, *opt = getenv("GPUTRACE_CUDNN_REASON");
	void *h = preload_handle_of_loaded(real);

	buf[0] = 0;
	if (!h)
		return NULL;
	last_error = (void (*)(char *, size_t))preload_dlsym(h, "cudnnGetLastErrorString");
	if (last_error && opt && strcmp(opt, "1") == 0)
		last_error(buf, cap);
	if (buf[0]) {
		reason = buf;
	} else {
		error_string = (const char *(*)(int))preload_dlsym(h, "cudnnGetErrorString");
		reason = error_string ? error_string(status) : NULL;
	}
	preload_dlclose(h);
	return reason;
}

GT_EXPORT int cudnnCreate(void **handle)
{
	char reason[1024];

	HOOK_PROLOGUE(cudnnCreate);
	status = real(handle);
	HOOK_RECORD({
		int saved = errno;  /* dlopen and dlsym may set it */
		const char *why = status ? cudnn_reason((void *)real, status, reason, sizeof(reason)) : NULL;

		after_call(GT_FN_cudnnCreate, status, (void *)real, 0, why, 0, false);
		errno = saved;
	});
	return status;
}

GT_EXPORT int cublasCreate_v2(void **handle)
{
	HOOK_PROLOGUE(cublasCreate_v2);
	status = real(handle);
	HOOK_RECORD(after_call(GT_FN_cublasCreate_v2, status, (void *)real, 0, NULL, 0, false));
	return status;
}

GT_EXPORT int cublasLtCreate(void **handle)
{
	HOOK_PROLOGUE(cublasLtCreate);
	status = real(handle);
	HOOK_RECORD(after_call(GT_FN_cublasLtCreate, status, (void *)real, 0, NULL, 0, false));
	return status;
}

GT_EXPORT int cuInit(unsigned int flags)
{
	HOOK_PROLOGUE(cuInit);
	status = real(flags);
	HOOK_RECORD(after_call(GT_FN_cuInit, status, (void *)real, 0, NULL, 0, false));
	return status;
}

GT_EXPORT int ncclCommInitRank(void **comm, int nranks, struct gt_nccl_unique_id id, int rank)
{
	HOOK_PROLOGUE(ncclCommInitRank);
	status = real(comm, nranks, id, rank);
	HOOK_RECORD(after_call(GT_FN_ncclCommInitRank, status, (void *)real, 0, NULL, rank, true));
	return status;
}

/* PyTorch creates its communicators with the Config variant (NCCL >= 2.14). */
GT_EXPORT int ncclCommInitRankConfig(void **comm, int nranks, struct gt_nccl_unique_id id, int rank,
				     void *config)
{
	HOOK_PROLOGUE(ncclCommInitRankConfig);
	status = real(comm, nranks, id, rank, config);
	HOOK_RECORD(after_call(GT_FN_ncclCommInitRankConfig, status, (void *)real, 0, NULL, rank, true));
	return status;
}
