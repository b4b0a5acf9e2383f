/* Which device code of a file a device can run: SASS as it is, or PTX the
 * driver compiles at start-up (JIT), by NVIDIA's compatibility rules
 * (CUDA C++ Programming Guide, "Binary Compatibility", "PTX Compatibility";
 * CUDA 12.9's family-specific targets):
 *   sm_XY    runs on X.Z for Z >= Y (same major)
 *   sm_XYf   the same: the family is the major, from minor Y up
 *   sm_XYa   runs on X.Y only
 *   compute_XY   JIT on any capability >= X.Y
 *   compute_XYf  JIT on X.Z for Z >= Y
 *   compute_XYa  JIT on X.Y only */
#ifndef GPUTRACE_ARCH_FIT_H
#define GPUTRACE_ARCH_FIT_H

#include <stdbool.h>

#include "host/fatbin.h"

enum gt_fit {
	GT_FIT_NO_CODE,   /* no SASS or PTX at all: nothing to judge */
	GT_FIT_SASS,      /* a SASS image runs as it is */
	GT_FIT_JIT,       /* no SASS, but PTX the driver can compile */
	GT_FIT_NONE,      /* neither: its kernels fail with 209 */
};

bool gt_image_runs_on(const struct host_fatbin_image *im, int major, int minor);
/* The file's code against a device. Images only in __nv_relfatbin are
 * counted only when the file has no other images (they are input to a
 * later device link, not what a loaded library runs). *via: the image it
 * runs (the highest that fits), or NULL. */
enum gt_fit gt_fatbin_fit(const struct host_fatbin *fb, int major, int minor,
			  const struct host_fatbin_image **via);
/* The CUDA release a PTX ISA version came with (host_fatbin_image.ptx_isa
 * 87 -> 12080), as cuDriverGetVersion writes it: the oldest driver that
 * compiles that PTX, whatever minor-version compatibility lets it run.
 * -1 for a version the table does not know. */
long gt_ptx_isa_cuda(int isa);
/* When the device (major.minor) would run fb only through PTX and every such
 * PTX image needs a newer CUDA than driver_cuda (13000), the CUDA the newest
 * of them (the one gt_fatbin_fit names) needs: the driver answers 222 (cudaErrorUnsupportedPtxVersion,
 * CUDA_ERROR_UNSUPPORTED_PTX_VERSION) for its kernels. Else -1. Call only
 * where gt_fatbin_fit gave GT_FIT_JIT. */
long gt_fatbin_ptx_too_new(const struct host_fatbin *fb, int major, int minor, long driver_cuda);
/* Does every PTX image the device would compile say a PTX ISA version the
 * table knows? */
bool gt_fatbin_ptx_known(const struct host_fatbin *fb, int major, int minor);
/* "sm_90", "sm_90a", "compute_90", "90", "9.0" -> 9, 0. False for anything else. */
bool gt_parse_arch(const char *s, int *major, int *minor);

#endif
