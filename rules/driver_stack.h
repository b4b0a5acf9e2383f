/* Whether a user-space driver copy (libcuda, libnvidia-ml) can serve the
 * loaded kernel module: the one judgement the report's driver-mismatch and
 * the scan's share. */
#ifndef GPUTRACE_DRIVER_STACK_H
#define GPUTRACE_DRIVER_STACK_H

#include <stdbool.h>

/* A forward-compatibility copy: in a .../compat/ folder (real path or as
 * loaded), or from a cuda-compat-* package (package may be NULL). */
bool gt_driver_is_compat(const char *path, const char *real_path, const char *package);

/* Why a copy of this version cannot serve kernel module kmod on these GPUs
 * (their models, ", " between; may be NULL), or NULL when it can: the same
 * release, or a forward-compatibility copy newer than the module on a GPU
 * that supports it (not GeForce or TITAN). */
const char *gt_driver_copy_problem(bool compat, const char *version, const char *kmod, const char *gpus);

/* The loader's own folders: never to be taken out of its configuration,
 * whatever stale file they hold (issue 28); a stale driver there is
 * replaced by its package instead. */
bool gt_system_lib_folder(const char *dir);

/* The CUDA a driver of this version serves ("580.65.06" -> 13000, as
 * cuDriverGetVersion says it), by its branch: for a process that never
 * asked. -1 for no version, or a branch older than the table. */
long gt_cuda_of_driver(const char *version);

#endif
