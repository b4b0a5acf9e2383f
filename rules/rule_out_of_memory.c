/* out-of-memory: a device allocation failed for lack of memory; the failing
 * size and what this process already held tell whose memory it was. */
#include <stdio.h>

#include "rules/rules.h"

void rule_out_of_memory(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	const struct gt_alloc_fail *a = NULL;
	struct gt_finding *f;
	size_t i;
	json_t *e;

	for (i = 0; i < p->nalloc_fails && !a; i++)
		if (p->alloc_fails[i].status == 2)  /* cudaErrorMemoryAllocation */
			a = &p->alloc_fails[i];
	if (!a)
		return;
	f = gt_finding_add(out, GT_F_OUT_OF_MEMORY, GT_SEV_ERROR, m,
			   "Lower the batch size or the model size; check with nvidia-smi whether other "
			   "processes hold GPU memory; with PyTorch, "
			   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation.",
			   "%s of %llu bytes failed: out of device memory (this process held %lld bytes at "
			   "its peak)", a->fn, a->size, p->peak_bytes);
	e = gt_evidence_add(f, "%s(%llu bytes) returned 2 cudaErrorMemoryAllocation", a->fn, a->size);
	gt_evidence_int(e, "size", (long long)a->size);
	gt_evidence_int(e, "status", a->status);
	gt_evidence_str(e, "status_name", a->status_name);
	e = gt_evidence_add(f, "device memory held by this process: peak %lld bytes, %lld at the end, "
			    "%llu failed allocations", p->peak_bytes, p->held_bytes, p->failed_allocs);
	gt_evidence_int(e, "peak_bytes", p->peak_bytes);
	gt_evidence_int(e, "failed", (long long)p->failed_allocs);
}
