/* What the device is, and kernel launches that failed: the report's
 * no-kernel-image finding needs the device's compute capability, and the
 * program asks for it itself (cudaGetDeviceProperties, cudaDeviceGetAttribute,
 * cuDeviceGetAttribute, cuDeviceGetName). These hooks call the real function,
 * and only look at what it wrote back: the first answer per device becomes a
 * "device" line; nothing else is ever written, so a program that asks a
 * million times pays a compare and an atomic load. Launches and
 * cudaGetLastError are the hottest calls there are: they are recorded only
 * when they fail (a 209 cudaErrorNoKernelImageForDevice is what the report
 * looks for), successes cost a compare. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/jline.h"
#include "gputrace/trace_format.h"
#include "preload/preload.h"

/* cudaDeviceProp: name[256] first in every version; major and minor at 360
 * and 364 since CUDA 10 (uuid and luid came before them then; CUDA 13 dropped
 * clockRate but kept the offsets through alignment of totalConstMem). Checked
 * against the CUDA 13.0 header in tests/progs_cuda/device_prop_offsets.c. */
#define PROP_NAME_LEN 256
#define PROP_MAJOR_OFFSET 360
#define PROP_MINOR_OFFSET 364
/* cudaDevAttrComputeCapabilityMajor/Minor; the driver API's are the same numbers. */
#define ATTR_CC_MAJOR 75
#define ATTR_CC_MINOR 76
#define MAX_DEVICES 64
#define NO_KERNEL_IMAGE 209

enum answer { ANSWER_PROPS, ANSWER_MAJOR, ANSWER_MINOR, ANSWER_NAME, ANSWER_COUNT };

static bool answered[ANSWER_COUNT][MAX_DEVICES];

/* True the first time only, from any thread. */
static bool first_answer(enum answer a, int device)
{
	if (device < 0 || device >= MAX_DEVICES || __atomic_load_n(&answered[a][device], __ATOMIC_RELAXED))
		return false;
	return !__atomic_exchange_n(&answered[a][device], true, __ATOMIC_ACQ_REL);
}

static bool plausible_cc(int major, int minor)
{
	return major >= 1 && major <= 30 && minor >= 0 && minor <= 9;
}

/* One "device" line; name NULL and cc -1 when the call did not say. */
static void write_device(enum gt_hooked_fn fn, int device, const char *name, int major, int minor)
{
	char buf[1024];
	struct jline j;
	int saved = errno;

	if (!preload_tracing())
		goto out;
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_DEVICE));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_TID, gt_trace_tid(&preload_trace));
	jl_str(&j, GT_K_FN, gt_hooked_name(fn));
	jl_int(&j, GT_K_DEVICE, device);
	if (name)
		jl_str(&j, GT_K_NAME, name);
	if (major >= 0)
		jl_int(&j, GT_K_CC_MAJOR, major);
	if (minor >= 0)
		jl_int(&j, GT_K_CC_MINOR, minor);
	preload_write(buf, jl_end(&j));
out:
	errno = saved;
}

static void record_props(enum gt_hooked_fn fn, const unsigned char *prop, int device)
{
	char name[PROP_NAME_LEN];
	int major, minor;

	if (!prop || !first_answer(ANSWER_PROPS, device))
		return;
	memcpy(name, prop, sizeof(name));
	name[sizeof(name) - 1] = 0;
	memcpy(&major, prop + PROP_MAJOR_OFFSET, sizeof(major));
	memcpy(&minor, prop + PROP_MINOR_OFFSET, sizeof(minor));
	if (!plausible_cc(major, minor))
		major = minor = -1;
	write_device(fn, device, name, major, minor);
}

static void record_attribute(enum gt_hooked_fn fn, const int *value, int attr, int device)
{
	enum answer a = attr == ATTR_CC_MAJOR ? ANSWER_MAJOR : ANSWER_MINOR;

	if (!value || !first_answer(a, device))
		return;
	write_device(fn, device, NULL, a == ANSWER_MAJOR ? *value : -1, a == ANSWER_MINOR ? *value : -1);
}

static void record_name(const char *name, int len, int device)
{
	char copy[PROP_NAME_LEN];
	size_t n;

	if (!name || len <= 0 || !first_answer(ANSWER_NAME, device))
		return;
	n = strnlen(name, (size_t)len < sizeof(copy) ? (size_t)len : sizeof(copy) - 1);
	memcpy(copy, name, n);
	copy[n] = 0;
	write_device(GT_FN_cuDeviceGetName, device, copy, -1, -1);
}

/* The guard of every recording: tracing ready, not inside our own code. */
#define RECORD(stmt)                                      \
	do {                                              \
		int outer_ = preload_in_hook;             \
		if (!preload_ready || outer_)             \
			break;                            \
		preload_in_hook = 1;                      \
		stmt;                                     \
		preload_in_hook = outer_;                 \
	} while (0)

#define REAL(fn, type)                                                                 \
	type real = (type)preload_real_function(GT_FN_##fn, __builtin_return_address(0)); \
	int status;                                                                    \
	if (!real)                                                                     \
		return preload_missing_status(GT_FN_##fn)

typedef int (*props_fn)(void *, int);
typedef int (*attr_fn)(int *, int, int);
typedef int (*name_fn)(char *, int, int);

GT_EXPORT int cudaGetDeviceProperties(void *prop, int device)
{
	REAL(cudaGetDeviceProperties, props_fn);
	status = real(prop, device);
	if (status == 0)
		RECORD(record_props(GT_FN_cudaGetDeviceProperties, prop, device));
	return status;
}

/* The name CUDA 12's headers give cudaGetDeviceProperties. */
GT_EXPORT int cudaGetDeviceProperties_v2(void *prop, int device)
{
	REAL(cudaGetDeviceProperties_v2, props_fn);
	status = real(prop, device);
	if (status == 0)
		RECORD(record_props(GT_FN_cudaGetDeviceProperties_v2, prop, device));
	return status;
}

GT_EXPORT int cudaDeviceGetAttribute(int *value, int attr, int device)
{
	REAL(cudaDeviceGetAttribute, attr_fn);
	status = real(value, attr, device);
	if (status == 0 && (attr == ATTR_CC_MAJOR || attr == ATTR_CC_MINOR))
		RECORD(record_attribute(GT_FN_cudaDeviceGetAttribute, value, attr, device));
	return status;
}

GT_EXPORT int cuDeviceGetAttribute(int *value, int attr, int device)
{
	REAL(cuDeviceGetAttribute, attr_fn);
	status = real(value, attr, device);
	if (status == 0 && (attr == ATTR_CC_MAJOR || attr == ATTR_CC_MINOR))
		RECORD(record_attribute(GT_FN_cuDeviceGetAttribute, value, attr, device));
	return status;
}

GT_EXPORT int cuDeviceGetName(char *name, int len, int device)
{
	REAL(cuDeviceGetName, name_fn);
	status = real(name, len, device);
	if (status == 0)
		RECORD(record_name(name, len, device));
	return status;
}

/* dim3 as the CUDA headers declare it: passed by value, same layout. */
struct gt_dim3 {
	unsigned int x, y, z;
};

typedef int (*launch_fn)(const void *, struct gt_dim3, struct gt_dim3, void **, size_t, void *);
typedef int (*launch_ex_fn)(const void *, const void *, void **);
typedef int (*get_kernel_fn)(void **, const void *);
typedef int (*last_error_fn)(void);

#define LAUNCH_HOOK(fn)                                                                       \
	GT_EXPORT int fn(const void *kernel, struct gt_dim3 grid, struct gt_dim3 block, void **args, \
			 size_t shared, void *stream)                                                \
	{                                                                                     \
		REAL(fn, launch_fn);                                                          \
		status = real(kernel, grid, block, args, shared, stream);                     \
		if (status != 0)                                                              \
			RECORD(preload_record_failed_call(GT_FN_##fn, status, (void *)real)); \
		return status;                                                                \
	}

LAUNCH_HOOK(cudaLaunchKernel)
/* What nvcc 13's <<<>>> calls (crt/host_runtime.h), and with per-thread default streams. */
LAUNCH_HOOK(__cudaLaunchKernel)
LAUNCH_HOOK(__cudaLaunchKernel_ptsz)

GT_EXPORT int cudaLaunchKernelExC(const void *config, const void *kernel, void **args)
{
	REAL(cudaLaunchKernelExC, launch_ex_fn);
	status = real(config, kernel, args);
	if (status != 0)
		RECORD(preload_record_failed_call(GT_FN_cudaLaunchKernelExC, status, (void *)real));
	return status;
}

/* nvcc 13's launch code asks once per kernel for its handle: with lazy
 * loading, the module is loaded here, and a missing image can show here. */
GT_EXPORT int __cudaGetKernel(void **handle, const void *kernel)
{
	REAL(__cudaGetKernel, get_kernel_fn);
	status = real(handle, kernel);
	if (status != 0)
		RECORD(preload_record_failed_call(GT_FN___cudaGetKernel, status, (void *)real));
	return status;
}

/* Programs clear expected errors through it, so only the one this hook is
 * for is recorded: anything else would make a healthy run look failed. */
GT_EXPORT int cudaGetLastError(void)
{
	REAL(cudaGetLastError, last_error_fn);
	status = real();
	if (status == NO_KERNEL_IMAGE)
		RECORD(preload_record_failed_call(GT_FN_cudaGetLastError, status, (void *)real));
	return status;
}
