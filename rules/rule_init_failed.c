/* init-failed: a library's create call failed (cudnnCreate 1001, cublasCreate,
 * cuInit, ncclCommInitRank). It is a symptom: it points at the cause found
 * by the other rules when there is one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "rules/rules.h"

static const char *const creators[] = { "cudnnCreate", "cublasCreate_v2", "cublasLtCreate",
					"cuInit", "ncclCommInitRank", "ncclCommInitRankConfig", NULL };
static const enum gt_finding_id causes[] = { GT_F_DRIVER_MISSING, GT_F_DRIVER_STUB, GT_F_DRIVER_TOO_OLD,
					     GT_F_DRIVER_MISMATCH, GT_F_NO_DEVICE,
					     GT_F_MIXED_VERSIONS, GT_F_CUDA_MAJOR_MISMATCH, GT_F_LIBRARY_NOT_FOUND,
					     GT_F_FRAMEWORK_MISMATCH, GT_F_SHADOWED_LIBRARY, GT_F_COUNT };

/* A cause of this id for the process, at error level: a shadowing is a
 * cause only when it changed the version (rule_shadowed_library says). */
static bool cause_found(const struct gt_findings *out, enum gt_finding_id id, const struct gt_proc_model *m)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		if (out->v[i].proc == m && out->v[i].id == id && out->v[i].severity == GT_SEV_ERROR)
			return true;
	return false;
}

void rule_init_failed(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_call *c;
	struct gt_finding *f;
	json_t *e;
	int k, j;

	for (k = 0; creators[k]; k++) {
		const char *reason;

		c = gt_failed_call(m->proc, creators[k]);
		if (!c)
			continue;
		/* cudnnGetErrorString's text is the status name again: no news */
		reason = c->reason && (!c->status_name || strcmp(c->reason, c->status_name)) ? c->reason : NULL;
		f = gt_finding_add(out, GT_F_INIT_FAILED, GT_SEV_ERROR, m,
				   "Fix what it is caused by (above); this error is how that shows.",
				   "%s returned %d %s%s%s%s", c->fn, c->status,
				   c->status_name ? c->status_name : "", reason ? " (\"" : "",
				   reason ? reason : "", reason ? "\")" : "");
		for (j = 0; causes[j] != GT_F_COUNT && f->ncaused < GT_MAX_CAUSES; j++)
			if (cause_found(out, causes[j], m))
				f->caused_by[f->ncaused++] = causes[j];
		if (!f->ncaused) {
			free(f->fix);
			f->fix = gt_xstrdup("No cause was found in the trace: check the library's own log "
					"(CUDNN_LOGERR_DBG=1 CUDNN_LOGDEST_DBG=stderr for cuDNN) and nvidia-smi.");
		}
		e = gt_evidence_add(f, "%s returned %d %s", c->fn, c->status, c->status_name ? c->status_name : "");
		gt_evidence_str(e, "fn", c->fn);
		gt_evidence_int(e, "status", c->status);
		gt_evidence_str(e, "status_name", c->status_name);
		gt_evidence_str(e, "reason", c->reason);
		gt_evidence_str(e, "path", c->lib);
	}
}
