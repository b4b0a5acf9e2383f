/* duplicate-library: two different files of the same library are mapped in
 * one process: each caller gets whichever it bound to, and the two disagree. */
#include <stdio.h>
#include <string.h>

#include "report/rules.h"

void rule_duplicate_library(const struct gt_proc_model *m, struct gt_findings *out)
{
	struct gt_finding *f;
	size_t i, k;
	json_t *e;

	for (i = 0; i < m->nlibs; i++) {
		for (k = i + 1; k < m->nlibs; k++) {
			const struct gt_lib *a = &m->libs[i], *b = &m->libs[k];

			if (strcmp(a->fi.component, b->fi.component) != 0 || !a->real_path[0] ||
			    strcmp(a->real_path, b->real_path) == 0)
				continue;
			f = gt_finding_add(out, "duplicate-library", GT_SEV_WARNING, m,
					   "Make every part of the program load one copy: remove one of "
					   "the two folders from LD_LIBRARY_PATH, or load the library by "
					   "one path.",
					   "two copies of %s are loaded: %s and %s", a->fi.component,
					   a->obj->path, b->obj->path);
			e = gt_evidence_add(f, "%s %s [%s]", a->obj->path, a->version, a->found_by != GT_RULE_NONE ? gt_rule_name(a->found_by) : "?");
			gt_evidence_lib(e, a);
			e = gt_evidence_add(f, "%s %s [%s]", b->obj->path, b->version, b->found_by != GT_RULE_NONE ? gt_rule_name(b->found_by) : "?");
			gt_evidence_lib(e, b);
			break;
		}
	}
}
