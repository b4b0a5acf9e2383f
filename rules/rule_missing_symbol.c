/* missing-symbol: a load the loader undid because a library needs a symbol
 * its provider lacks (libcusparse.so.12 needs __nvJitLinkComplete_12_4 from
 * libnvJitLink.so.12, and an older toolkit's copy came first). Names the
 * symbol, the provider that lacks it with how it was found, and the copy on
 * disk that has it. The proof is the files' symbol tables
 * (facts/symbol_check.h); read/failed_load.h says which loads failed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "read/failed_load.h"
#include "rules/rules.h"

static const struct gt_failed_object *object_at(const struct gt_proc_model *m, const char *path)
{
	size_t i, k;

	for (i = 0; i < m->nfailed; i++)
		for (k = 0; k < m->failed[i].nobjects; k++)
			if (strcmp(m->failed[i].objects[k].obj->path, path) == 0)
				return &m->failed[i].objects[k];
	return NULL;
}

/* The provider loaded by the process, not undone with the load. */
static const struct gt_object *loaded_object(const struct gt_process *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (strcmp(p->objects[i].path, path) == 0)
			return &p->objects[i];
	return NULL;
}

/* How the fix reads: the mechanism that put the lacking copy first. */
static void write_fix(const struct gt_symbol_gap *g, enum gt_rule rule, char *fix, size_t cap)
{
	char bad[4096], good[4096];

	gt_folder_of(g->provider, bad, sizeof(bad));
	if (g->good_copy)
		gt_folder_of(g->good_copy, good, sizeof(good));
	if (rule == GT_RULE_LD_LIBRARY_PATH && g->good_copy)
		snprintf(fix, cap, "Remove %s from LD_LIBRARY_PATH (its older %s comes first there), or put %s "
			 "before it: %s has %s.", bad, gt_base_name(g->provider), good, g->good_copy, g->symbol);
	else if (rule == GT_RULE_LD_LIBRARY_PATH)
		snprintf(fix, cap, "Remove %s from LD_LIBRARY_PATH (its %s lacks %s), or install a %s that "
			 "defines it.", bad, gt_base_name(g->provider), g->symbol, gt_base_name(g->provider));
	else if (g->good_copy)
		snprintf(fix, cap, "Make the loader take %s, which has %s, instead of %s (found by %s): "
			 "put %s first on LD_LIBRARY_PATH, or remove the older copy.", g->good_copy, g->symbol,
			 g->provider, gt_rule_name(rule), good);
	else
		snprintf(fix, cap, "Install the %s that %s was built against (one that defines %s), or a %s "
			 "matching the %s you have.", gt_base_name(g->provider), gt_base_name(g->consumer), g->symbol,
			 gt_base_name(g->consumer), gt_base_name(g->provider));
}

static void lib_evidence(json_t *e, const struct gt_failed_object *fo, const struct gt_object *ob)
{
	gt_evidence_str(e, "path", ob->path);
	if (fo && fo->version[0])
		gt_evidence_str(e, "version", fo->version);
	gt_evidence_str(e, "rule", gt_rule_name_or_null(fo ? fo->found_by : ob->rule));
	gt_evidence_str(e, "requester", ob->requester);
}

static void report_gap(const struct gt_proc_model *m, const struct gt_failed_load *fl, const struct gt_symbol_gap *g,
		       struct gt_findings *out)
{
	const struct gt_failed_object *prov = object_at(m, g->provider), *cons = object_at(m, g->consumer);
	const struct gt_object *pob = prov ? prov->obj : loaded_object(m->proc, g->provider);
	enum gt_rule rule = prov ? prov->found_by : pob ? pob->rule : GT_RULE_UNKNOWN;
	char fix[12288], ver[256] = "";
	struct gt_finding *f;
	json_t *e;

	if (g->version)
		snprintf(ver, sizeof(ver), ", version %s", g->version);
	write_fix(g, rule, fix, sizeof(fix));
	f = gt_finding_add(out, GT_F_MISSING_SYMBOL, GT_SEV_ERROR, m, fix,
			   "%s: undefined symbol: %s%s: %s lacks it", gt_base_name(g->consumer), g->symbol, ver,
			   g->provider);
	if (rule == GT_RULE_LD_LIBRARY_PATH) {
		char bad[4096];

		gt_folder_of(g->provider, bad, sizeof(bad));
		gt_fix_list_remove(f, "LD_LIBRARY_PATH", bad);
	}
	if (fl->at_startup)
		e = gt_evidence_add(f, "the loader gave up starting %s (exit 127): %s needs %s%s", fl->name,
				    gt_base_name(g->consumer), g->symbol, ver);
	else
		e = gt_evidence_add(f, "the load of %s was undone by the loader: %s needs %s%s", fl->name,
				    gt_base_name(g->consumer), g->symbol, ver);
	gt_evidence_str(e, "symbol", g->symbol);
	gt_evidence_str(e, "symbol_version", g->version);
	gt_evidence_str(e, "name", fl->name);
	if (cons)
		lib_evidence(gt_evidence_add(f, "consumer: %s", g->consumer), cons, cons->obj);
	if (pob) {
		e = gt_evidence_add(f, "provider: %s [%s], which does not define %s", g->provider,
				    gt_rule_name(rule), g->symbol);
		lib_evidence(e, prov, pob);
		gt_evidence_str(e, "role", "provider");
	}
	if (g->good_copy) {
		e = gt_evidence_add(f, "a copy that has it: %s", g->good_copy);
		gt_evidence_str(e, "good_copy", g->good_copy);
	}
}

void rule_missing_symbol(const struct gt_proc_model *m, struct gt_findings *out)
{
	size_t i, k;

	for (i = 0; i < m->nfailed; i++)
		for (k = 0; k < m->failed[i].ngaps; k++)
			report_gap(m, &m->failed[i], &m->failed[i].gaps[k], out);
}
