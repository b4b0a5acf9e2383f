/* shadowed-library: a library came through LD_LIBRARY_PATH (or the cache or
 * the default folders) while its requester ships a copy in its own RUNPATH:
 * the leftover libcudnn.so.8 of an old toolkit hides the bundled one. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "host/elf_info.h"
#include "host/package.h"
#include "report/rules.h"

/* The version of the copy that was never tried, from its real file name,
 * else from its own distribution's package; "" when neither says more than
 * a major. */
static void version_on_disk(const char *path, char *out, size_t cap)
{
	struct gt_family_info fi;
	struct host_package pk;
	char real[PATH_MAX];

	out[0] = 0;
	if (realpath(path, real) && gt_classify(real, &fi) && strchr(fi.version, '.'))
		snprintf(out, cap, "%s", fi.version);
	else if (gt_classify(path, &fi) && host_package_of(path, &pk) && gt_package_speaks_for(&pk, &fi) &&
		 strchr(pk.version, '.'))
		snprintf(out, cap, "%s", pk.version);
}

/* A shadowing that changed the release, in a process that failed, is the
 * cause of that failure: an error, which init-failed points at. The same
 * release shadowed, or a run that went well, stays a warning. */
static void judge(struct gt_finding *f, const struct gt_proc_model *m, const struct gt_lib *l,
		  const char *shadowed_version)
{
	char *plain;

	if (!shadowed_version[0] || !strchr(l->version, '.') || gt_same_release(l->version, shadowed_version) ||
	    !gt_model_failed(m) || f->severity == GT_SEV_ERROR)
		return;
	plain = f->summary;
	f->severity = GT_SEV_ERROR;
	f->summary = gt_xasprintf("%s, with another release (%s %s instead of %s), in a process that failed",
				  plain, l->fi.component, l->version, shadowed_version);
	free(plain);
}

/* The copy of `name` in the requester's own RUNPATH/RPATH folders, if any. */
static bool bundled_copy(const struct gt_lib *l, char *out, size_t cap)
{
	struct host_elf_info info;
	const char *list;
	char **dirs = NULL, real[PATH_MAX];
	size_t n = 0, i;
	bool found = false;

	if (!l->obj->requester || !l->obj->name || !host_elf_read(l->obj->requester, &info))
		return false;
	list = info.runpath ? info.runpath : info.rpath;
	if (list)
		n = host_expand_search_path(list, l->obj->requester, false, &dirs);
	for (i = 0; i < n && !found; i++) {
		snprintf(out, cap, "%s/%s", dirs[i], l->obj->name);
		found = access(out, F_OK) == 0 && realpath(out, real) && strcmp(real, l->real_path) != 0;
	}
	host_free_strings(dirs, n);
	host_elf_free(&info);
	return found;
}

static bool searched_early(enum gt_rule rule)
{
	return rule == GT_RULE_LD_LIBRARY_PATH || rule == GT_RULE_LD_SO_CACHE || rule == GT_RULE_DEFAULT;
}

/* One finding per folder that shadows and requester that is shadowed: cuDNN 9
 * loses all its sub-libraries to one folder on LD_LIBRARY_PATH at once. */
static struct gt_finding *finding_for(struct gt_findings *out, const struct gt_proc_model *m,
				      const struct gt_lib *l, const char *dir)
{
	char fix[2 * PATH_MAX + 512];
	size_t i;

	for (i = 0; i < out->n; i++) {
		struct gt_finding *f = &out->v[i];
		json_t *e0 = json_array_get(f->evidence, 0);
		char d0[PATH_MAX];

		if (f->proc != m || strcmp(f->id, "shadowed-library") != 0 || !e0)
			continue;
		gt_folder_of(json_string_value(json_object_get(e0, "path")), d0, sizeof(d0));
		if (strcmp(d0, dir) == 0 &&
		    strcmp(json_string_value(json_object_get(e0, "requester")), l->obj->requester) == 0)
			return f;
	}
	snprintf(fix, sizeof(fix),
		 "Remove %s from LD_LIBRARY_PATH (or delete the stale copies there) so that %s gets "
		 "the libraries it ships with, from its own RUNPATH.", dir, l->obj->requester);
	return gt_finding_add(out, "shadowed-library", GT_SEV_WARNING, m, fix,
			      "%s [%s] shadows the copies next to %s", dir, gt_rule_name(l->found_by), l->obj->requester);
}

void rule_shadowed_library(const struct gt_proc_model *m, struct gt_findings *out)
{
	char copy[PATH_MAX + 256], dir[PATH_MAX], shadowed_version[64];
	struct gt_finding *f;
	size_t i;
	json_t *e;

	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *l = &m->libs[i];

		if (!searched_early(l->found_by) || !l->real_path[0] || !bundled_copy(l, copy, sizeof(copy)))
			continue;
		gt_folder_of(l->obj->path, dir, sizeof(dir));
		f = finding_for(out, m, l, dir);
		if (l->found_by == GT_RULE_LD_LIBRARY_PATH)
			gt_fix_list_remove(f, "LD_LIBRARY_PATH", dir);
		e = gt_evidence_add(f, "%s %s was found by %s at %s; the copy next to its requester, %s, "
				    "was never tried", l->obj->name, l->version, gt_rule_name(l->found_by), l->obj->path, copy);
		gt_evidence_lib(e, l);
		gt_evidence_str(e, "shadowed", copy);
		version_on_disk(copy, shadowed_version, sizeof(shadowed_version));
		if (shadowed_version[0])
			gt_evidence_str(e, "shadowed_version", shadowed_version);
		judge(f, m, l, shadowed_version);
	}
}
