/* mixed-versions: the parts of one copy of a library family came from installs
 * of different versions: cuDNN's main library and its sub-libraries, or cuBLAS
 * and cuBLASLt. cuDNN 9 loads its sub-libraries by name, so a system copy on
 * LD_LIBRARY_PATH wins over the ones next to it; the graph library's answer
 * then disagrees with the front's release, which is how this shows in the
 * field. Two complete copies side by side, each consistent, are not mixed:
 * that is duplicate-library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"

/* The version a part claims, compared on three fields: the file name or the
 * package when they say more than a major, else the answer it gave. */
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

/* A part of the copy: its own, or the graph library its front got by
 * SONAME from another copy (model.h, borrowed). */
/* The parts of a copy in load order, the one it borrowed at its place: *n of
 * them (malloc'd). A copy's own list, not a walk of every library for every
 * copy (issue 29: 20,000 copies). */
static const struct gt_lib **parts_of(const struct gt_proc_model *m, size_t copy, size_t *n)
{
	const struct gt_copy *c = &m->copies[copy];
	const struct gt_lib **v = calloc(c->nparts + 1, sizeof(*v));
	size_t i, k = 0;
	bool placed = !c->borrowed;

	if (!v)
		abort();
	for (i = 0; i < c->nparts; i++) {
		if (!placed && c->borrowed < &m->libs[c->parts[i]]) {
			v[k++] = c->borrowed;
			placed = true;
		}
		v[k++] = &m->libs[c->parts[i]];
	}
	if (!placed)
		v[k++] = c->borrowed;
	*n = k;
	return v;
}

/* The part whose version the others are held to: the copy's main library
 * when it states one, else its first part that does. */
static const struct gt_lib *reference_part(const struct gt_proc_model *m, size_t copy)
{
	const struct gt_copy *c = &m->copies[copy];
	const struct gt_lib *first = NULL;
	char v[32];
	size_t i;

	for (i = 0; i < c->nparts; i++) {  /* the reference is one of its own */
		const struct gt_lib *l = &m->libs[c->parts[i]];

		part_version(l, v, sizeof(v));
		if (!strchr(v, '.'))
			continue;  /* a bare major says nothing here */
		if (strcmp(l->fi.component, l->fi.family) == 0)
			return l;
		if (!first)
			first = l;
	}
	return first;
}

/* Does this part disagree with the reference, by its version or its answer? */
static bool odd_part(const struct gt_lib *l, const char *ref)
{
	char v[32], api[32];

	part_version(l, v, sizeof(v));
	if (strchr(v, '.') && strcmp(v, ref) != 0)
		return true;
	gt_version_key(l->api_version, api, sizeof(api));
	return api[0] && strchr(api, '.') && strcmp(api, ref) != 0;
}

/* One clause per folder the odd parts came from: how they got there (the
 * mechanism, not a guess) and what undoes it. */
static size_t fix_clause(const struct gt_lib *l, bool borrowed, const char *dir, char *out, size_t cap)
{
	char mech[1024];

	if (borrowed)
		return (size_t)snprintf(out, cap, " the front got %s by its SONAME %s, which another copy "
					"had loaded first: load one cuDNN in the process, or put the front's own "
					"folder first on LD_LIBRARY_PATH;", l->obj->path,
					l->obj->soname ? l->obj->soname : "");
	if (l->found_by == GT_RULE_LD_LIBRARY_PATH)
		return (size_t)snprintf(out, cap, " remove %s from LD_LIBRARY_PATH (the parts found "
					"through it are marked [ld_library_path] above);", dir);
	if (l->found_by == GT_RULE_PRELOAD)
		return (size_t)snprintf(out, cap, " take %s out of LD_PRELOAD;", l->obj->path);
	gt_lib_mechanism(l, mech, sizeof(mech));
	return (size_t)snprintf(out, cap, " %s came from %s through %s: remove the stale copy there "
				"or install the matching release;", l->fi.component, dir, mech);
}

static void write_fix(const struct gt_proc_model *m, size_t copy, const char *ref, char *fix, size_t cap)
{
	char seen[8][1024], dir[1024];
	size_t i, k, n, nseen = 0, len;
	const struct gt_lib **parts = parts_of(m, copy, &n);

	len = (size_t)snprintf(fix, cap, "Load every part from one install (parts of one library must "
				     "come from one release):");
	for (i = 0; i < n && len < cap; i++) {
		const struct gt_lib *l = parts[i];

		if (!odd_part(l, ref))
			continue;
		gt_folder_of(l->obj->path, dir, sizeof(dir));
		for (k = 0; k < nseen && strcmp(seen[k], dir) != 0; k++)
			;
		if (k < nseen)
			continue;
		if (nseen == 8)
			break;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", dir);
		len += fix_clause(l, l->copy != copy, dir, fix + len, cap - len);
	}
	free(parts);
	if (len < cap && fix[len - 1] == ';')
		fix[len - 1] = '.';
}

/* The same clauses as data, where they are a change of environment. */
static void add_fix_data(struct gt_finding *f, const struct gt_proc_model *m, size_t copy, const char *ref)
{
	const struct gt_copy *c = &m->copies[copy];
	char dir[1024];
	size_t i;

	/* its own parts only: the fix of a borrowed one is the other copy's */
	for (i = 0; i < c->nparts; i++) {
		const struct gt_lib *l = &m->libs[c->parts[i]];

		if (!odd_part(l, ref))
			continue;
		gt_folder_of(l->obj->path, dir, sizeof(dir));
		if (l->found_by == GT_RULE_LD_LIBRARY_PATH)
			gt_fix_list_remove(&f->fix_data, "LD_LIBRARY_PATH", dir);
		else if (l->found_by == GT_RULE_PRELOAD)
			gt_fix_preload_remove(&f->fix_data, m, l->obj->path);
	}
}

static void check_copy(const struct gt_proc_model *m, size_t copy, struct gt_findings *out)
{
	const struct gt_copy *c = &m->copies[copy];
	const struct gt_lib *refl = reference_part(m, copy), **parts;
	char ref[32], v[32], fix[4096];
	const char *source;
	struct gt_finding *f;
	bool mixed = false;
	size_t i, n;
	json_t *e;

	if (!refl)
		return;
	part_version(refl, ref, sizeof(ref));
	parts = parts_of(m, copy, &n);
	for (i = 0; i < n && !mixed; i++)
		mixed = odd_part(parts[i], ref);
	if (!mixed) {
		free(parts);
		return;
	}
	write_fix(m, copy, ref, fix, sizeof(fix));
	if (c->family_copies > 1)
		f = gt_finding_add(out, GT_F_MIXED_VERSIONS, GT_SEV_ERROR, m, fix,
				   "%s parts of different versions in one copy (copy %d of %zu)", c->family,
				   c->number, (size_t)c->family_copies);
	else
		f = gt_finding_add(out, GT_F_MIXED_VERSIONS, GT_SEV_ERROR, m, fix,
				   "%s parts of different versions in one process", c->family);
	add_fix_data(f, m, copy, ref);
	for (i = 0; i < n; i++) {
		const struct gt_lib *l = parts[i];

		source = part_version(l, v, sizeof(v));
		e = gt_evidence_add(f, "%s %s from %s [%s]%s%s%s", l->fi.component, v[0] ? v : "?",
				    l->obj->path, l->found_by != GT_RULE_NONE ? gt_rule_name(l->found_by) : "?",
				    l->api_version[0] ? ", answers " : "", l->api_version,
				    l->copy != copy ? ", already loaded under the SONAME its front asked for last" : "");
		gt_evidence_lib(e, l);
		gt_evidence_str(e, "version", v);
		gt_evidence_str(e, "version_source", source);
		if (l->api_version[0])
			gt_evidence_str(e, "api_version", l->api_version);
	}
	free(parts);
}

void rule_mixed_versions(const struct gt_proc_model *m, struct gt_findings *out)
{
	size_t k;

	for (k = 0; k < m->ncopies; k++)
		if (strcmp(m->copies[k].family, "cudnn") == 0 || strcmp(m->copies[k].family, "cublas") == 0)
			check_copy(m, k, out);
}
