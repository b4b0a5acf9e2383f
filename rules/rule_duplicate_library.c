/* duplicate-library: two copies of one library family are mapped in one
 * process (two frameworks, each with its own cuDNN). Judged by risk:
 *  - each copy private to the code that loaded it (RTLD_LOCAL, or another
 *    link-map namespace): each caller binds to its own copy, a warning;
 *  - one copy in the global scope (LD_PRELOAD, a DT_NEEDED of the program,
 *    RTLD_GLOBAL): the loader looks there first for every object of the
 *    namespace, so the other copy's users can bind to it, an error.
 * One finding per family, with one line of evidence per copy. */
#include <stdio.h>
#include <string.h>

#include "rules/rules.h"

/* The part that stands for a copy: its main library, else its first part. */
static const struct gt_lib *face_of(const struct gt_proc_model *m, size_t copy)
{
	const struct gt_copy *c = &m->copies[copy];
	size_t i;

	for (i = 0; i < c->nparts; i++)
		if (strcmp(m->libs[c->parts[i]].fi.component, m->libs[c->parts[i]].fi.family) == 0)
			return &m->libs[c->parts[i]];
	return &m->libs[c->first];
}

/* The global copy whose symbols can bind calls of another copy of the same
 * namespace, or -1. */
static long binding_copy(const struct gt_proc_model *m, const char *family)
{
	size_t a, b;

	for (a = 0; a < m->ncopies; a++) {
		if (!m->copies[a].global || strcmp(m->copies[a].family, family) != 0)
			continue;
		for (b = 0; b < m->ncopies; b++)
			if (b != a && strcmp(m->copies[b].family, family) == 0 && m->copies[b].ns == m->copies[a].ns)
				return (long)a;
	}
	return -1;
}

static void scope_words(const struct gt_proc_model *m, const struct gt_copy *c, char *out, size_t cap)
{
	char mech[1024];

	if (!c->global) {
		snprintf(out, cap, c->ns ? "private (namespace %ld)" : "private to its users (not in the "
			 "global scope)", c->ns);
		return;
	}
	if (c->global_part->found_by == GT_RULE_PRELOAD)
		snprintf(out, cap, "in the global scope (LD_PRELOAD)");
	else if (gt_model_preloaded_root(m, c->global_part))
		snprintf(out, cap, "in the global scope (needed by %s, which LD_PRELOAD put there)",
			 gt_model_preloaded_root(m, c->global_part));
	else if (c->global_part->obj->startup)
		snprintf(out, cap, "in the global scope (loaded with the program at start-up)");
	else {
		gt_lib_mechanism(c->global_part, mech, sizeof(mech));
		snprintf(out, cap, "in the global scope (RTLD_GLOBAL, through %s)", mech);
	}
}

static void add_copy_evidence(struct gt_finding *f, const struct gt_proc_model *m, size_t copy)
{
	const struct gt_copy *c = &m->copies[copy];
	const struct gt_lib *l = face_of(m, copy);
	char scope[1200], mech[1024], pkg[256] = "";
	const char *req = l->obj->requester ? gt_base_name(l->obj->requester) : NULL;
	/* "used by" only when it says more than the mechanism already does */
	bool users = c->users[0] && !(req && strcmp(req, c->users) == 0);
	json_t *e;

	scope_words(m, c, scope, sizeof(scope));
	gt_lib_mechanism(l, mech, sizeof(mech));
	if (l->has_package)
		snprintf(pkg, sizeof(pkg), ", %s:%s %s", l->package.manager, l->package.name, l->package.version);
	e = gt_evidence_add(f, "copy %d: %s %s, %zu part%s in %s%s, loaded through %s%s%s; %s", c->number,
			    l->fi.component, l->version[0] ? l->version : "?", c->nparts, c->nparts == 1 ? "" : "s",
			    c->folder, pkg, mech, users ? ", used by " : "", users ? c->users : "", scope);
	gt_evidence_lib(e, l);
	gt_evidence_int(e, "copy", c->number);
	gt_evidence_str(e, "scope", c->global ? "global" : "local");
	gt_evidence_int(e, "ns", c->ns);
	if (c->users[0])
		gt_evidence_str(e, "users", c->users);
}

static void write_fix(const struct gt_proc_model *m, long binding, char *fix, size_t cap)
{
	const struct gt_copy *c;
	const char *root;
	char mech[1024];
	size_t k;

	for (k = 0; k < m->ncopies; k++)
		if (m->copies[k].borrowed) {
			snprintf(fix, cap, "The copies are not independent: copy %d's front got copy %d's %s by "
				 "its SONAME (see mixed-versions). Load one install for the whole process.",
				 m->copies[k].number, m->copies[m->copies[k].borrowed->copy].number,
				 m->copies[k].borrowed->obj->path);
			return;
		}
	if (binding < 0) {
		snprintf(fix, cap, "Each copy is private to the code that loaded it, so each framework "
			 "gets its own; if one of them fails, make both use one install (one folder, "
			 "one release).");
		return;
	}
	c = &m->copies[binding];
	gt_lib_mechanism(c->global_part, mech, sizeof(mech));
	root = gt_model_preloaded_root(m, c->global_part);
	if (root)
		snprintf(fix, cap, "Take %s out of LD_PRELOAD: a preloaded copy (and what it needs) binds "
			 "the calls of every other library of the process, so code built for the other "
			 "copy runs against it.", root);
	else
		snprintf(fix, cap, "Copy %d (%s) is in the global scope, through %s: its symbols bind the "
			 "other copy's calls. Load one install for the whole process, or load the "
			 "extra copy RTLD_LOCAL.", c->number, c->folder, mech);
}

static void check_family(const struct gt_proc_model *m, const char *family, struct gt_findings *out)
{
	size_t n = gt_model_copies_of(m, family), k, shown = 0;
	const char *what = NULL;
	long binding;
	char fix[8192], names[1024] = "";
	size_t len = 0;
	struct gt_finding *f;

	if (n < 2)
		return;
	for (k = 0; k < m->ncopies && len < sizeof(names); k++) {
		if (strcmp(m->copies[k].family, family) != 0)
			continue;
		shown++;
		if (!what)
			what = face_of(m, k)->fi.component;
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
					shown == 1 ? "" : shown == n ? " and " : ", ", face_of(m, k)->obj->path);
	}
	binding = binding_copy(m, family);
	write_fix(m, binding, fix, sizeof(fix));
	if (n == 2)
		f = gt_finding_add(out, GT_F_DUPLICATE_LIBRARY, binding >= 0 ? GT_SEV_ERROR : GT_SEV_WARNING, m,
				   fix, "two copies of %s are loaded: %s", what, names);
	else
		f = gt_finding_add(out, GT_F_DUPLICATE_LIBRARY, binding >= 0 ? GT_SEV_ERROR : GT_SEV_WARNING, m,
				   fix, "%zu copies of %s are loaded: %s", n, what, names);
	for (k = 0; k < m->ncopies; k++)
		if (strcmp(m->copies[k].family, family) == 0)
			add_copy_evidence(f, m, k);
	if (binding >= 0)
		gt_fix_preload_remove(&f->fix_data, m, gt_model_preloaded_root(m, m->copies[binding].global_part));
}

void rule_duplicate_library(const struct gt_proc_model *m, struct gt_findings *out)
{
	size_t k, i;

	/* Each family once, in the order its first copy was loaded. */
	for (k = 0; k < m->ncopies; k++) {
		for (i = 0; i < k && strcmp(m->copies[i].family, m->copies[k].family) != 0; i++)
			;
		if (i == k)
			check_family(m, m->copies[k].family, out);
	}
}
