/* mixed-versions: the parts of one library family came from installs of
 * different versions: cuDNN's main library and its sub-libraries, or cuBLAS
 * and cuBLASLt. cuDNN 9 loads its sub-libraries by name, so a system copy on
 * LD_LIBRARY_PATH wins over the ones next to it; cudnnGetVersion then answers
 * for the sub-library it got, which is how this shows in the field. */
#include <stdio.h>
#include <string.h>

#include "report/rules.h"

/* The version a part claims, compared on three fields: the file name or the
 * package when they say more than a major, else the library's own answer. */
static const char *part_version(const struct gt_lib *l, char *out, size_t cap)
{
	const char *v = l->api_version, *source = "api";

	if (strchr(l->file_version, '.')) {
		v = l->file_version;
		source = "file";
	} else if (l->package_version[0]) {
		v = l->package_version;
		source = "package";
	}
	gt_version_key(v, out, cap);
	return source;
}

static void check_family(const struct gt_proc_model *m, const char *family, struct gt_findings *out)
{
	char first[32] = "", v[32], api[32];
	const char *source;
	const struct gt_lib *a = NULL, *b = NULL;
	struct gt_finding *f;
	size_t i;
	json_t *e;

	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *l = &m->libs[i];

		if (strcmp(l->fi.family, family) != 0)
			continue;
		part_version(l, v, sizeof(v));
		if (!strchr(v, '.'))
			continue;  /* a bare major says nothing here */
		if (!a) {
			a = l;
			snprintf(first, sizeof(first), "%s", v);
		} else if (!b && strcmp(v, first) != 0) {
			b = l;
		}
		/* cuDNN answers for its graph library: a disagreement with the file is evidence too. */
		gt_version_key(l->api_version, api, sizeof(api));
		if (!b && api[0] && strchr(api, '.') && strcmp(api, v) != 0)
			b = l;
	}
	if (!a || !b)
		return;
	f = gt_finding_add(out, "mixed-versions", GT_SEV_ERROR, m,
			   "Load every part from one install: remove the folder of the other copy from "
			   "LD_LIBRARY_PATH (the parts found through it are marked [ld_library_path] "
			   "above), or remove the stale copy. Parts of one library must come from one "
			   "release.",
			   "%s parts of different versions in one process", family);
	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *l = &m->libs[i];

		if (strcmp(l->fi.family, family) != 0)
			continue;
		source = part_version(l, v, sizeof(v));
		e = gt_evidence_add(f, "%s %s from %s [%s]%s%s", l->fi.component, v[0] ? v : "?",
				    l->obj->path, l->found_by != GT_RULE_NONE ? gt_rule_name(l->found_by) : "?",
				    l->api_version[0] ? ", answers " : "", l->api_version);
		gt_evidence_lib(e, l);
		gt_evidence_str(e, "version", v);
		gt_evidence_str(e, "version_source", source);
		if (l->api_version[0])
			gt_evidence_str(e, "api_version", l->api_version);
	}
}

void rule_mixed_versions(const struct gt_proc_model *m, struct gt_findings *out)
{
	check_family(m, "cudnn", out);
	check_family(m, "cublas", out);
}
