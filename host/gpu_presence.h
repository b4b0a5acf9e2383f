/* Is there an NVIDIA GPU, a kernel driver and the driver's device nodes on
 * this host? Read from /sys, /proc and /dev (under GPUTRACE_SYSROOT when it
 * is set, so that tests build a fake tree); judges nothing (the scan's rules
 * tell "no GPU", "no driver" and "no device node" apart). */
#ifndef GPUTRACE_HOST_GPU_PRESENCE_H
#define GPUTRACE_HOST_GPU_PRESENCE_H

#include <limits.h>
#include <stdbool.h>

#define HOST_GPU_NVIDIA_VENDOR "0x10de"

struct host_gpu_presence {
	char sysroot[PATH_MAX];     /* "" for the real host */
	char pci_dir[PATH_MAX];     /* the folder of PCI devices looked at */
	int npci;                   /* PCI devices seen there */
	char nvidia_pci[PATH_MAX];  /* the first NVIDIA display device's folder, "" if none */
	char proc_version[PATH_MAX];/* the kernel module's version file looked at */
	char kmod[64];              /* its version, "" when there is no module */
	char dev_ctl[PATH_MAX];     /* /dev/nvidiactl */
	char dev_gpu0[PATH_MAX];    /* /dev/nvidia0 */
	char dev_dxg[PATH_MAX];     /* /dev/dxg: WSL's GPU, no PCI device of its own */
	bool has_ctl, has_gpu0, has_dxg;
};

void host_gpu_presence_read(struct host_gpu_presence *g);

#endif
