/* cuda-major-mismatch: two CUDA majors in one process: libcudart 11 and 12
 * side by side, or a library built for a CUDA major other than the runtime's. */
#include <stdio.h>
#include <string.h>

#include "rules/rules.h"

static void two_runtimes(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_lib *a = NULL, *b = NULL;
	struct gt_finding *f;
	json_t *e;
	size_t i;

	for (i = 0; i < m->nlibs && !b; i++) {
		const struct gt_lib *l = &m->libs[i];

		/* A runtime whose version is unknown (libcudart.so, no answer, no
		 * package) is no evidence of another major. */
		if (strcmp(l->fi.component, "cudart") != 0 || gt_version_major(l->version) < 0)
			continue;
		if (!a)
			a = l;
		else if (gt_version_major(l->version) != gt_version_major(a->version))
			b = l;
	}
	if (!b)
		return;
	f = gt_finding_add(out, GT_F_CUDA_MAJOR_MISMATCH, GT_SEV_ERROR, m,
			   "Use one CUDA major in the process: every framework and library must be "
			   "built for the same CUDA; remove the other toolkit's folder from "
			   "LD_LIBRARY_PATH or install matching builds.",
			   "CUDA runtimes %s and %s are both loaded", a->version, b->version);
	e = gt_evidence_add(f, "libcudart %s from %s", a->version, a->obj->path);
	gt_evidence_lib(e, a);
	e = gt_evidence_add(f, "libcudart %s from %s", b->version, b->obj->path);
	gt_evidence_lib(e, b);
}

/* cuDNN and cuBLAS say which CUDA they were built for. */
static void built_for_other(const struct gt_proc_model *m, struct gt_findings *out)
{
	static const char *const calls[] = { "cudnnGetCudartVersion", "cublasGetCudartVersion",
					     "cublasLtGetCudartVersion", NULL };
	const struct gt_lib *rt = gt_model_find(m, "cudart");
	long long want;
	char built[32];
	struct gt_finding *f;
	json_t *e;
	int k;

	if (!rt || gt_version_major(rt->version) < 0 || gt_findings_find(out, GT_F_CUDA_MAJOR_MISMATCH, m))
		return;
	for (k = 0; calls[k]; k++) {
		want = gt_version_answer(m->proc, calls[k]);
		if (want <= 0 || want / 1000 == gt_version_major(rt->version))
			continue;
		gt_format_cudart_version((long)want, built, sizeof(built));
		f = gt_finding_add(out, GT_F_CUDA_MAJOR_MISMATCH, GT_SEV_ERROR, m,
				   "Install the build of the library for the loaded CUDA major, or load "
				   "the runtime it was built for.",
				   "a library was built for CUDA %s, the runtime loaded is %s", built, rt->version);
		e = gt_evidence_add(f, "%s answers %lld (CUDA %s)", calls[k], want, built);
		gt_evidence_str(e, "version", built);
		e = gt_evidence_add(f, "libcudart %s from %s", rt->version, rt->obj->path);
		gt_evidence_lib(e, rt);
		return;
	}
}

void rule_cuda_major_mismatch(const struct gt_proc_model *m, struct gt_findings *out)
{
	two_runtimes(m, out);
	built_for_other(m, out);
}
