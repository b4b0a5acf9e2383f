/* The scan's word on the host itself: is there an NVIDIA GPU, a driver for
 * it (kernel module and libcuda.so.1 where the loader looks) and the
 * driver's device nodes? Each missing piece has another fix, so the finding
 * says which one it is (evidence "cause") and which paths were looked at. */
#define _GNU_SOURCE
#include "rules/scan_rules.h"

#include <stdio.h>
#include <string.h>

#include "common/nvidia_driver.h"

/* A libcuda.so.1 a program with no RPATH of its own would get: not a stub,
 * in a place of the loader's own configuration. */
static const struct host_copy *loadable_libcuda(const struct host_scan *s)
{
	size_t i;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];
		const char *base = strrchr(c->path, '/');

		if (c->stub || strstr(c->path, "/stubs/") || !c->real_path)
			continue;
		if (strcmp(base ? base + 1 : c->path, "libcuda.so.1") != 0)
			continue;
		if (c->in_cache || strcmp(c->where, HOST_WHERE_LD_SO_CACHE) == 0 ||
		    strcmp(c->where, HOST_WHERE_LD_LIBRARY_PATH) == 0 ||
		    strcmp(c->where, HOST_WHERE_LD_SO_CONF) == 0 || strcmp(c->where, "default") == 0)
			return c;
	}
	return NULL;
}

static void say_path(struct gt_finding *f, const char *what, const char *path, bool there)
{
	json_t *e = gt_evidence_add(f, "%s: %s (%s)", what, path, there ? "present" : "absent");

	gt_evidence_str(e, "path", path);
	json_object_set_new(e, "present", json_boolean(there));
}

/* Everything looked at, present or not: the user sees what was checked. */
static void host_evidence(struct gt_finding *f, const char *cause, const struct host_gpu_presence *g,
			  const struct host_copy *cuda)
{
	json_t *e = gt_evidence_add(f, "PCI devices: %d under %s, NVIDIA display device (vendor %s): %s",
				    g->npci, g->pci_dir, HOST_GPU_NVIDIA_VENDOR,
				    g->nvidia_pci[0] ? g->nvidia_pci : "none");

	gt_evidence_str(e, "cause", cause);
	gt_evidence_str(e, "path", g->pci_dir);
	if (g->nvidia_pci[0])
		gt_evidence_str(e, "device", g->nvidia_pci);
	e = gt_evidence_add(f, "kernel module: %s %s", g->proc_version, g->kmod[0] ? g->kmod : "(absent)");
	gt_evidence_str(e, "path", g->proc_version);
	if (g->kmod[0])
		gt_evidence_str(e, "kernel_module", g->kmod);
	e = gt_evidence_add(f, "libcuda.so.1 where the loader looks (ld.so.cache, LD_LIBRARY_PATH, ld.so.conf, "
			    "default folders): %s", cuda ? cuda->path : "none");
	if (cuda)
		gt_evidence_str(e, "libcuda", cuda->path);
	say_path(f, "device node", g->dev_ctl, g->has_ctl);
	say_path(f, "device node", g->dev_gpu0, g->has_gpu0);
	say_path(f, "WSL GPU node", g->dev_dxg, g->has_dxg);
}

void gt_scan_judge_host(const struct host_scan *s, const struct host_gpu_presence *g, struct gt_findings *out)
{
	const struct host_copy *cuda = loadable_libcuda(s);
	/* WSL shows its GPU as /dev/dxg, with no NVIDIA PCI device and no
	 * /proc/driver/nvidia: the Windows driver serves it. */
	bool gpu = g->nvidia_pci[0] || g->has_dxg, kernel = g->kmod[0] || g->has_dxg;
	bool nodes = g->has_dxg || (g->has_ctl && g->has_gpu0);
	struct gt_finding *f;

	if (!gpu) {
		f = gt_finding_add(out, GT_F_NO_DEVICE, GT_SEV_ERROR, NULL,
				   "Run on a machine with an NVIDIA GPU, or pass the GPU through to this VM or "
				   "container; CUDA programs cannot use a GPU here.",
				   "no NVIDIA GPU on this host: no PCI device of vendor %s%s", HOST_GPU_NVIDIA_VENDOR,
				   kernel || cuda ? "" : ", and no driver");
		host_evidence(f, "no-gpu", g, cuda);
	} else if (!kernel || !cuda) {
		f = gt_finding_add(out, GT_F_DRIVER_MISSING, GT_SEV_ERROR, NULL,
				   "Install the NVIDIA driver (e.g. apt install nvidia-driver-580, or the "
				   "distribution's package) and reboot or load the module; in a container, run it "
				   "with the NVIDIA Container Toolkit (docker run --gpus all).",
				   "no NVIDIA driver: %s", !kernel && !cuda ? "no kernel module and no libcuda.so.1" :
				   !kernel ? "no kernel module (nothing in " GT_NVIDIA_PROC ")" :
				   "no libcuda.so.1 where the loader looks");
		host_evidence(f, "no-driver", g, cuda);
	} else if (!nodes) {
		f = gt_finding_add(out, GT_F_NO_DEVICE, GT_SEV_ERROR, NULL,
				   "Create the device nodes (nvidia-modprobe -c 0 -u, or nvidia-smi as root); in a "
				   "container, start it with --gpus all (NVIDIA Container Toolkit) or pass "
				   "/dev/nvidiactl and /dev/nvidia0.",
				   "no NVIDIA device node: %s%s%s", g->has_ctl ? "" : g->dev_ctl,
				   !g->has_ctl && !g->has_gpu0 ? " and " : "", g->has_gpu0 ? "" : g->dev_gpu0);
		host_evidence(f, "no-device-node", g, cuda);
	}
}
