/* divergent-processes: among the ranks of one job, some loaded other CUDA
 * libraries, other versions or copies, or got other API outcomes than the
 * majority: the one host with a different library that makes a job hang or
 * crash. Runs over the groups of identical processes, after the per-process
 * rules. Without ranks, processes of one program that loaded CUDA libraries
 * are compared on libraries alone, and only when a strict majority exists. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/group.h"
#include "rules/rules.h"

static size_t ranked(const struct gt_group *g)
{
	size_t i, n = 0;

	for (i = 0; i < g->nmembers; i++)
		n += g->members[i].rank >= 0;
	return n;
}

static const struct gt_lib *find_lib(const struct gt_proc_model *m, const char *component, size_t nth)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (strcmp(m->libs[i].fi.component, component) == 0 && nth-- == 0)
			return &m->libs[i];
	return NULL;
}

static json_t *side(const struct gt_lib *l)
{
	json_t *o = json_object();

	if (l) {
		gt_evidence_str(o, "version", l->version);
		gt_evidence_str(o, "path", l->obj->path);
		gt_evidence_str(o, "rule", gt_rule_name_or_null(l->found_by));
	}
	return o;
}

/* Libraries that differ, component by component, in both directions. */
static int diff_libs(struct gt_finding *f, const struct gt_proc_model *maj, const struct gt_proc_model *min,
		     char *first, size_t cap)
{
	const struct gt_proc_model *sides[2] = { maj, min };
	int n = 0, s;
	size_t i;

	for (s = 0; s < 2; s++) {
		for (i = 0; i < sides[s]->nlibs; i++) {
			const char *c = sides[s]->libs[i].fi.component;
			const struct gt_lib *a = find_lib(maj, c, 0), *b = find_lib(min, c, 0);
			json_t *e;

			/* Each component once: from the majority's side, or the minority's if new. */
			/* 13.0 (an answer) and 13.0.96 (a file name) are one release. */
			if ((s == 1 && a) || (a && b && (strcmp(a->version, b->version) == 0 || gt_same_release(a->version, b->version)) &&
					      strcmp(a->obj->path, b->obj->path) == 0))
				continue;
			if (s == 0 && &sides[s]->libs[i] != a)
				continue;
			e = gt_evidence_add(f, "%s: %s %s on the majority, %s %s here", c, a ? a->version : "(none)",
					    a ? a->obj->path : "", b ? b->version : "(none)", b ? b->obj->path : "");
			gt_evidence_str(e, "component", c);
			json_object_set_new(e, "majority", side(a));
			json_object_set_new(e, "minority", side(b));
			if (!n++)
				snprintf(first, cap, "%s %s instead of %s", c, b ? b->version : "missing",
					 a ? a->version : "none");
		}
	}
	return n;
}

static int status_of(const struct gt_process *p, const char *fn)
{
	size_t i;

	for (i = 0; i < p->ntotals; i++)
		if (strcmp(p->totals[i].fn, fn) == 0 && p->totals[i].status != 0)
			return p->totals[i].status;
	for (i = 0; i < p->ntotals; i++)
		if (strcmp(p->totals[i].fn, fn) == 0)
			return 0;
	return -1;
}

/* API outcomes that differ: a function that failed on one side only. */
static int diff_api(struct gt_finding *f, const struct gt_process *maj, const struct gt_process *min)
{
	int n = 0, a, b;
	size_t i;

	for (i = 0; i < min->ntotals; i++) {
		a = status_of(maj, min->totals[i].fn);
		b = status_of(min, min->totals[i].fn);
		if (a == b || (i > 0 && strcmp(min->totals[i - 1].fn, min->totals[i].fn) == 0)) {
			continue;
		}
		gt_evidence_int(gt_evidence_add(f, "%s returned %d here, %d on the majority", min->totals[i].fn, b, a),
				"minority_status", b);
		gt_evidence_str(json_array_get(f->evidence, json_array_size(f->evidence) - 1), "fn",
				min->totals[i].fn);
		gt_evidence_int(json_array_get(f->evidence, json_array_size(f->evidence) - 1),
				"majority_status", a);
		n++;
	}
	return n;
}

/* The ranks and hosts of a group, as arrays in an evidence item. */
static void add_who(json_t *e, const struct gt_group *g)
{
	json_t *ranks = json_array(), *hosts = json_array();
	size_t i, k;

	for (i = 0; i < g->nmembers; i++) {
		if (g->members[i].rank >= 0)
			json_array_append_new(ranks, json_integer(g->members[i].rank));
		for (k = 0; k < i && strcmp(g->members[k].host, g->members[i].host) != 0; k++)
			;
		if (k == i)
			json_array_append_new(hosts, json_string(g->members[i].host));
	}
	json_object_set_new(e, "ranks", ranks);
	json_object_set_new(e, "hosts", hosts);
}

static void compare(const struct gt_group *maj, const struct gt_group *min, size_t population, bool with_api,
		    struct gt_findings *out)
{
	char who[1024], majority[1024], first[256] = "other API outcomes";
	struct gt_finding *f;
	size_t before = out->n;

	gt_describe_members(min, who, sizeof(who));
	gt_describe_members(maj, majority, sizeof(majority));
	f = gt_finding_add(out, GT_F_DIVERGENT_PROCESSES, GT_SEV_ERROR, &min->model,
			   "Make every rank load the same files: compare the environment of the odd "
			   "ranks (LD_LIBRARY_PATH, CONDA_PREFIX, the host's installs) with the majority's, "
			   "and install the same versions on every host.",
			   "%s differ%s from the other %zu", who, min->nmembers == 1 ? "s" : "",
			   population - min->nmembers);
	if (!diff_libs(f, &maj->model, &min->model, first, sizeof(first)) &&
	    !(with_api && diff_api(f, maj->model.proc, min->model.proc))) {
		/* Only a difference that is no CUDA library nor outcome: not ours to report. */
		gt_findings_free_last(out, before);
		return;
	}
	free(f->summary);
	if (asprintf(&f->summary, "%s: %s (the majority, %s, has the other)", who, first, majority) < 0)
		abort();
	add_who(gt_evidence_add(f, "the odd one%s: %s", min->nmembers == 1 ? "" : "s", who), min);
	add_who(gt_evidence_add(f, "the majority: %s", majority), maj);
}

static void divergence_by_rank(struct gt_group *const *groups, size_t ngroups, struct gt_findings *out)
{
	const struct gt_group *maj = NULL;
	size_t i, population = 0;

	for (i = 0; i < ngroups; i++) {
		population += ranked(groups[i]);
		if (ranked(groups[i]) && (!maj || ranked(groups[i]) > ranked(maj)))
			maj = groups[i];
	}
	if (!maj || ranked(maj) == population)
		return;
	for (i = 0; i < ngroups; i++)
		if (groups[i] != maj && ranked(groups[i]) && groups[i]->model.nlibs + maj->model.nlibs)
			compare(maj, groups[i], population, true, out);
}

/* The same program with the same arguments: copies of one worker. A parent
 * and the pool workers it spawned run one program but are not peers (the
 * workers load what their tasks need), so they are never compared. */
static bool same_command(const struct gt_process *a, const struct gt_process *b)
{
	size_t i;

	if (!a->exe || !b->exe || strcmp(a->exe, b->exe) != 0 || a->argc != b->argc)
		return false;
	for (i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i] ? a->argv[i] : "", b->argv[i] ? b->argv[i] : "") != 0)
			return false;
	return true;
}

/* No ranks: processes of one command with CUDA libraries, strict majority. */
static void divergence_by_program(struct gt_group *const *groups, size_t ngroups, struct gt_findings *out)
{
	size_t i, k, population;
	const struct gt_group *maj;

	for (i = 0; i < ngroups; i++) {
		const struct gt_group *g = groups[i];

		if (ranked(g) || !g->model.nlibs || !g->proc.exe)
			continue;
		population = 0;
		maj = g;
		for (k = 0; k < ngroups; k++) {
			const struct gt_group *o = groups[k];

			if (ranked(o) || !o->model.nlibs || !same_command(&o->proc, &g->proc))
				continue;
			population += o->nmembers;
			if (o->nmembers > maj->nmembers)
				maj = o;
		}
		/* Judge each program once, from its majority group, which must be more than half. */
		if (maj != g || 2 * maj->nmembers <= population)
			continue;
		for (k = 0; k < ngroups; k++) {
			const struct gt_group *o = groups[k];

			if (o != maj && !ranked(o) && o->model.nlibs && same_command(&o->proc, &maj->proc))
				compare(maj, o, population, false, out);
		}
	}
}

void rule_divergent_processes(struct gt_group *const *groups, size_t ngroups, struct gt_findings *out)
{
	divergence_by_rank(groups, ngroups, out);
	divergence_by_program(groups, ngroups, out);
}
