/* driver-stub: libcuda.so.1 came from the toolkit's stubs/ folder, a copy made
 * for linking only; every call answers CUDA_ERROR_STUB_LIBRARY (34). */
#include <stdio.h>
#include <string.h>

#include "rules/rules.h"

void rule_driver_stub(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_lib *l = gt_model_find(m, "cuda");
	struct gt_finding *f;
	char fix[4096 + 256], dir[4096];
	json_t *e;

	if (!l || (!strstr(l->obj->path, "/stubs/") && !gt_called_with(m->proc, "cuInit", 34) &&
		   !gt_called_with(m->proc, "cudaGetDeviceCount", 34)))
		return;
	snprintf(fix, sizeof(fix),
		 "Remove the stubs folder of %s from LD_LIBRARY_PATH (and from /etc/ld.so.conf.d/); "
		 "the stub is for linking only. The real libcuda.so.1 comes with the NVIDIA driver.",
		 l->obj->path);
	f = gt_finding_add(out, GT_F_DRIVER_STUB, GT_SEV_ERROR, m, fix,
			   "libcuda.so.1 is the toolkit's stub, not the driver: %s", l->obj->path);
	if (l->found_by == GT_RULE_LD_LIBRARY_PATH) {
		gt_folder_of(l->obj->path, dir, sizeof(dir));
		gt_fix_list_remove(&f->fix_data, "LD_LIBRARY_PATH", dir);
	}
	e = gt_evidence_add(f, "libcuda.so.1 was loaded from %s", l->obj->path);
	gt_evidence_lib(e, l);
	if (gt_called_with(m->proc, "cudaGetDeviceCount", 34)) {
		e = gt_evidence_add(f, "cudaGetDeviceCount returned 34 cudaErrorStubLibrary");
		gt_evidence_int(e, "status", 34);
	}
}
