/* The kernel side of the NVIDIA driver, as /proc/driver/nvidia shows it: the
 * loaded kernel module's version and the GPUs' model names. Read by the
 * library for the trace header (a few small files, no driver call, nothing
 * loaded) and by the command for scan and doctor. */
#ifndef GPUTRACE_NVIDIA_DRIVER_H
#define GPUTRACE_NVIDIA_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#define GT_NVIDIA_PROC "/proc/driver/nvidia"

/* The module version in the text of /proc/driver/nvidia/version, e.g.
 * "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release
 * Build ..." -> "580.159.04". False when the text names none. */
bool gt_parse_kmod_version(const char *text, char *out, size_t cap);
/* The value of the "Model:" line of a gpus/<bus>/information file. */
bool gt_parse_gpu_model(const char *text, char *out, size_t cap);
/* Reads GT_NVIDIA_PROC/version; false when there is no module (no driver,
 * or a container without it). */
bool gt_read_kmod_version(char *out, size_t cap);
/* Calls fn for the model of each GPU the module lists (at most `max`). */
void gt_read_gpu_models(void (*fn)(const char *model, void *data), void *data, int max);

#endif
