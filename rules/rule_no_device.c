/* no-device: the driver is there but shows this process no GPU (100): often
 * CUDA_VISIBLE_DEVICES, or a container started without GPUs. */
#include <stdio.h>

#include "rules/rules.h"

void rule_no_device(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	const char *cvd = gt_process_env(p, "CUDA_VISIBLE_DEVICES");
	const char *fn = gt_called_with(p, "cudaGetDeviceCount", 100) ? "cudaGetDeviceCount" :
			 gt_called_with(p, "cuInit", 100) ? "cuInit" :
			 gt_called_with(p, "cudaSetDevice", 100) ? "cudaSetDevice" : NULL;
	struct gt_finding *f;
	char fix[512];
	json_t *e;

	if (!fn)
		return;
	if (cvd)
		snprintf(fix, sizeof(fix),
			 "CUDA_VISIBLE_DEVICES is set to \"%s\": set it to devices that exist, e.g. "
			 "CUDA_VISIBLE_DEVICES=0 (nvidia-smi -L lists them), or unset it.", cvd);
	else
		snprintf(fix, sizeof(fix),
			 "Check that the machine has a GPU the driver sees (nvidia-smi -L); in a container, "
			 "start it with GPUs (docker run --gpus all).");
	f = gt_finding_add(out, GT_F_NO_DEVICE, GT_SEV_ERROR, m, fix,
			   "the CUDA driver shows this process no GPU%s", cvd ? " (CUDA_VISIBLE_DEVICES is set)" : "");
	e = gt_evidence_add(f, "%s returned 100 (no CUDA-capable device)", fn);
	gt_evidence_int(e, "status", 100);
	gt_evidence_str(e, "status_name", "cudaErrorNoDevice");
	/* The first GPU, as CUDA_VISIBLE_DEVICES names it: a set variable that
	 * hides them all, or names one that is not there. */
	if (cvd)
		gt_fix_set(&f->fix_data, "CUDA_VISIBLE_DEVICES", "0");
	if (cvd) {
		e = gt_evidence_add(f, "CUDA_VISIBLE_DEVICES=\"%s\"", cvd);
		gt_evidence_str(e, "env", "CUDA_VISIBLE_DEVICES");
		gt_evidence_str(e, "value", cvd);
	}
}
