/* driver-missing: no libcuda.so.1 could be loaded. The runtime then answers
 * 35 ("driver version is insufficient") and cuDNN 1001, which hide the cause. */
#include <string.h>

#include "rules/rules.h"

static const char fix[] =
	"Install the NVIDIA driver (it provides libcuda.so.1). In a container, start it with "
	"the NVIDIA runtime (docker run --gpus all). If the driver is installed in a folder the "
	"loader does not search, add that folder to /etc/ld.so.conf.d/ and run ldconfig.";

/* What the traced host has of an NVIDIA GPU: "no GPU", "no driver" and "no
 * device node" are three causes with three fixes (PCI vendor 0x10de, the
 * kernel module, /dev/nvidia* or WSL's /dev/dxg). */
static void presence_evidence(const struct gt_proc_model *m, struct gt_finding *f)
{
	struct host_gpu_presence g;
	json_t *e;

	if (!gt_facts_gpu_presence(m->facts, &g))
		return;
	if (g.has_dxg)
		e = gt_evidence_add(f, "this host is WSL (%s exists): the driver comes from Windows, in "
				    "/usr/lib/wsl/lib", g.dev_dxg);
	else if (!g.nvidia_pci[0])
		e = gt_evidence_add(f, "this host shows no NVIDIA GPU: none of the %d PCI devices in %s has vendor "
				    "%s (a machine or container without a GPU)", g.npci, g.pci_dir,
				    HOST_GPU_NVIDIA_VENDOR);
	else if (!g.kmod[0])
		e = gt_evidence_add(f, "an NVIDIA GPU is on the PCI bus (%s), but no NVIDIA kernel module is "
				    "loaded: the driver is not installed", g.nvidia_pci);
	else if (!g.has_ctl)
		e = gt_evidence_add(f, "an NVIDIA GPU (%s) and kernel module %s are there, but %s is not: a "
				    "container started without the GPU (docker run --gpus all)", g.nvidia_pci, g.kmod,
				    g.dev_ctl);
	else
		e = gt_evidence_add(f, "an NVIDIA GPU (%s), kernel module %s and %s are there: only the "
				    "user-space driver (libcuda.so.1) is missing or not on the loader's path",
				    g.nvidia_pci, g.kmod, g.dev_ctl);
	gt_evidence_str(e, "nvidia_pci", g.nvidia_pci);
	gt_evidence_str(e, "kernel_module", g.kmod);
	gt_evidence_str(e, "device_node", g.has_ctl ? g.dev_ctl : g.has_dxg ? g.dev_dxg : NULL);
}

void rule_driver_missing(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	const struct gt_search *s = gt_failed_search(p, "libcuda.so.1");
	struct gt_finding *f;
	json_t *e;

	if (gt_model_find(m, "cuda"))
		return;
	if (!s && !gt_called_with(p, "cudaGetDeviceCount", 35) && !gt_called_with(p, "cudaMalloc", 35))
		return;
	f = gt_finding_add(out, GT_F_DRIVER_MISSING, GT_SEV_ERROR, m, fix,
			   "no CUDA driver: libcuda.so.1 could not be loaded%s",
			   s ? "" : " (the runtime answered 35)");
	if (s) {
		e = gt_evidence_add(f, "%s searched for libcuda.so.1 in %zu places (%zu paths, with the hwcaps "
				    "subfolders) and found none", s->requester ? s->requester : "the program",
				    gt_search_places(s), s->ntries);
		gt_evidence_str(e, "name", "libcuda.so.1");
		gt_evidence_str(e, "requester", s->requester);
		gt_evidence_tries(e, s);
	}
	if (gt_called_with(p, "cudaGetDeviceCount", 35) || gt_called_with(p, "cudaMalloc", 35)) {
		const char *fn = gt_called_with(p, "cudaGetDeviceCount", 35) ? "cudaGetDeviceCount" : "cudaMalloc";

		e = gt_evidence_add(f, "%s returned 35 cudaErrorInsufficientDriver, and no libcuda.so.1 "
				    "is loaded", fn);
		gt_evidence_str(e, "fn", fn);
		gt_evidence_int(e, "status", 35);
		gt_evidence_str(e, "status_name", "cudaErrorInsufficientDriver");
	}
	presence_evidence(m, f);
}
