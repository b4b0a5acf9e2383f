/* driver-too-old: the driver supports an older CUDA than the runtime that was
 * loaded; the runtime answers 35, "driver version is insufficient". */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rules/driver_stack.h"
#include "rules/rules.h"

/* "13.0.96" -> 13000, as cudaRuntimeGetVersion says it ("13", a wheel's
 * libcudart.so.13 with no package record: 13000); from the file's name,
 * else its package. -1 if neither says. */
static long cuda_of_runtime_file(const struct gt_lib *rt)
{
	int major = -1, minor = 0;

	if (!rt || sscanf(rt->version, "%d.%d", &major, &minor) < 1 || major <= 0 || minor < 0)
		return -1;
	return major * 1000L + minor * 10L;
}

void rule_driver_too_old(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	const struct gt_lib *drv = gt_model_find(m, "cuda"), *rt = gt_model_find(m, "cudart");
	long long dv = gt_driver_version_answer(p), rv = gt_version_answer(p, "cudaRuntimeGetVersion");
	char dvs[32] = "?", rvs[32] = "?", fix[512];
	bool from_files = false;
	struct gt_finding *f;
	json_t *e;

	if (!drv || strstr(drv->obj->path, "/stubs/"))
		return;
	/* Nothing asked: the files' versions, and only a major the driver does
	 * not serve (a newer minor of the same major runs: minor version
	 * compatibility). */
	if (dv <= 0 && rv <= 0 && !gt_called_with(p, "cudaGetDeviceCount", 35)) {
		dv = gt_cuda_of_driver(drv->version);
		rv = cuda_of_runtime_file(rt);
		if (!(dv > 0 && rv > 0 && dv / 1000 < rv / 1000))
			return;
		from_files = true;
	}
	if (!(dv > 0 && rv > 0 && dv < rv) && !gt_called_with(p, "cudaGetDeviceCount", 35))
		return;
	if (dv > 0)
		gt_format_cudart_version((long)dv, dvs, sizeof(dvs));
	if (rv > 0)
		gt_format_cudart_version((long)rv, rvs, sizeof(rvs));
	snprintf(fix, sizeof(fix),
		 "Upgrade the NVIDIA driver to one that supports CUDA %s (the driver is newer than "
		 "the runtime it serves, never older), or install a build of the framework for CUDA %s "
		 "or older.", rvs, dvs);
	f = gt_finding_add(out, GT_F_DRIVER_TOO_OLD, GT_SEV_ERROR, m, fix,
			   "the driver supports CUDA %s, the runtime loaded is CUDA %s", dvs, rvs);
	e = gt_evidence_add(f, "driver %s (%s) supports CUDA %s", drv->obj->path, drv->version, dvs);
	gt_evidence_lib(e, drv);
	gt_evidence_str(e, "cuda_version", dvs);
	if (rt) {
		e = gt_evidence_add(f, "runtime %s is CUDA %s", rt->obj->path, rvs);
		gt_evidence_lib(e, rt);
	}
	if (from_files)
		gt_evidence_add(f, "from the files' own versions (neither library was asked): driver "
				"%s, runtime %s", drv->version, rt ? rt->version : "?");
	if (gt_called_with(p, "cudaGetDeviceCount", 35)) {
		e = gt_evidence_add(f, "cudaGetDeviceCount returned 35 cudaErrorInsufficientDriver");
		gt_evidence_int(e, "status", 35);
	}
}
