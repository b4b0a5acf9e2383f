/* missing-symbol: a load the loader undid because a library needs a symbol
 * its provider lacks (libcusparse.so.12 needs __nvJitLinkComplete_12_4 from
 * libnvJitLink.so.12, and an older toolkit's copy came first). Names the
 * symbol, the provider that lacks it with how it was found, and the copy on
 * disk that has it. The proof is the files' symbol tables
 * (facts/symbol_check.h); read/failed_load.h says which loads failed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "host/framework.h"
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

/* The GCC release whose libstdc++ first defines a GLIBCXX_3.4.N node (GCC's
 * own table, libstdc++ manual "ABI Policy"): what a conda env's older
 * libstdc++ must be brought up to. NULL when not known. */
static const char *gcc_of_glibcxx(const char *version)
{
	static const char *const gcc[] = { "5", "6", "7", "7.2", "8", "9", "9.2", "9.3", "11", "12", "13",
					   "13.2", "14", "15" };
	int n;

	if (!version || sscanf(version, "GLIBCXX_3.4.%d", &n) != 1 || n < 21 || n > 34)
		return NULL;
	return gcc[n - 21];
}

/* The C++ runtime of a conda env lacks a version the consumer was built
 * for: the env's package is updated (the usual fix in the threads), never the
 * system's. True when the fix was written. */
static bool write_libstdcxx_fix(const struct gt_proc_model *m, const struct gt_symbol_gap *g, char *fix, size_t cap)
{
	const char *gcc = gcc_of_glibcxx(g->version);
	struct host_package pk;
	char good[4096 + 128] = "";

	if (!gcc || strncmp(gt_base_name(g->provider), "libstdc++.so", 12) != 0)
		return false;
	if (g->good_copy)
		snprintf(good, sizeof(good), " (%s on this host defines it)", g->good_copy);
	if (gt_facts_package(m->facts, g->provider, &pk) && strcmp(pk.manager, "conda") == 0)
		snprintf(fix, cap, "%s needs %s, the libstdc++ of GCC %s or newer%s; the one taken is %s's %s %s. "
			 "Update it in that env: conda install -c conda-forge '%s>=%s'.", gt_base_name(g->consumer),
			 g->version, gcc, good, pk.manager, pk.name, pk.version, pk.name, gcc);
	else
		snprintf(fix, cap, "%s needs %s, the libstdc++ of GCC %s or newer%s; %s is older. Install a "
			 "newer libstdc++ where that copy comes from, or a build of %s made with an older GCC.",
			 gt_base_name(g->consumer), g->version, gcc, good, g->provider, gt_base_name(g->consumer));
	return true;
}

/* The wheel a framework that owns the consumer pins for the provider's
 * family (torch 2.2's "Requires-Dist: nvidia-nccl-cu12==2.19.3" for the
 * libnccl.so.2 libtorch_cuda.so needs): the release the consumer was built
 * against, which the fix can name (vllm-project/vllm#4195: "you installed
 * pytorch 2.2, but has nvidia-nccl-cu12==2.18"). */
static bool declared_pin(const struct gt_proc_model *m, const struct gt_symbol_gap *g, struct host_need *out)
{
	struct gt_family_info fi;
	struct host_needs needs;
	bool found = false;
	size_t i;

	if (!gt_classify(g->provider, &fi) || !gt_facts_framework_needs(m->facts, g->consumer, &needs))
		return false;
	for (i = 0; i < needs.n && !found; i++)
		if (strcmp(needs.v[i].family, fi.family) == 0 && needs.v[i].distribution[0]) {
			*out = needs.v[i];
			found = true;
		}
	host_needs_free(&needs);
	return found;
}

/* How the fix reads: the mechanism that put the lacking copy first. */
static void write_fix(const struct gt_proc_model *m, const struct gt_symbol_gap *g, enum gt_rule rule,
		      const struct host_need *pin, char *fix, size_t cap)
{
	char bad[4096], good[4096];

	if (write_libstdcxx_fix(m, g, fix, cap))
		return;
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
	else if (pin)
		snprintf(fix, cap, "Install the release %s declares (%s): pip install '%s%s'. The %s taken lacks %s.",
			 pin->framework, pin->what, pin->distribution, pin->spec, gt_base_name(g->provider), g->symbol);
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

/* The copy that has it, as the real file, its folder and its package. */
static void good_copy_evidence(const struct gt_proc_model *m, struct gt_finding *f, const struct gt_symbol_gap *g)
{
	char real[4096] = "", folder[4096];
	struct host_package pk;
	bool has_pk = gt_facts_package(m->facts, g->good_copy, &pk);
	json_t *e;

	if (!gt_facts_real_path(m->facts, g->good_copy, real, sizeof(real)))
		snprintf(real, sizeof(real), "%s", g->good_copy);
	gt_folder_of(real, folder, sizeof(folder));
	e = gt_evidence_add(f, "a copy that has it: %s%s%s%s%s%s", g->good_copy, strcmp(real, g->good_copy) ? " -> " : "",
			    strcmp(real, g->good_copy) ? real : "", has_pk ? " (package " : "", has_pk ? pk.name : "",
			    has_pk ? ")" : "");
	gt_evidence_str(e, "good_copy", g->good_copy);
	gt_evidence_str(e, "real_path", real);
	gt_evidence_str(e, "folder", folder);
	if (has_pk)
		gt_evidence_str(e, "package", pk.name);
}

static void report_gap(const struct gt_proc_model *m, const struct gt_failed_load *fl, const struct gt_symbol_gap *g,
		       struct gt_findings *out)
{
	const struct gt_failed_object *prov = object_at(m, g->provider), *cons = object_at(m, g->consumer);
	const struct gt_object *pob = prov ? prov->obj : loaded_object(m->proc, g->provider);
	enum gt_rule rule = prov ? prov->found_by : pob ? pob->rule : GT_RULE_UNKNOWN;
	char fix[12288], ver[256] = "", cmd[300];
	struct host_need pin;
	bool pinned = declared_pin(m, g, &pin);
	struct gt_finding *f;
	json_t *e;

	if (g->version)
		snprintf(ver, sizeof(ver), ", version %s", g->version);
	write_fix(m, g, rule, pinned ? &pin : NULL, fix, sizeof(fix));
	/* The loader's own words: a version node the provider lacks is checked
	 * before any symbol. */
	if (g->no_version_node)
		f = gt_finding_add(out, GT_F_MISSING_SYMBOL, GT_SEV_ERROR, m, fix,
				   "%s: version `%s' not found (required by %s)", g->provider, g->version,
				   gt_base_name(g->consumer));
	else
		f = gt_finding_add(out, GT_F_MISSING_SYMBOL, GT_SEV_ERROR, m, fix,
				   "%s: undefined symbol: %s%s: %s lacks it", gt_base_name(g->consumer), g->symbol,
				   ver, g->provider);
	if (rule == GT_RULE_LD_LIBRARY_PATH) {
		char bad[4096];

		gt_folder_of(g->provider, bad, sizeof(bad));
		gt_fix_list_remove(&f->fix_data, "LD_LIBRARY_PATH", bad);
	} else if (pinned && !g->good_copy) {
		/* the command the fix names, in the environment that declares it */
		snprintf(cmd, sizeof(cmd), "%s%s", pin.distribution, pin.spec);
		gt_fix_pip_install(&f->fix_data, m->proc, pin.declared_by, cmd, NULL, NULL);
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
	if (g->good_copy)
		good_copy_evidence(m, f, g);
}

void rule_missing_symbol(const struct gt_proc_model *m, struct gt_findings *out)
{
	size_t i, k;

	for (i = 0; i < m->nfailed; i++)
		for (k = 0; k < m->failed[i].ngaps; k++)
			report_gap(m, &m->failed[i], &m->failed[i].gaps[k], out);
}
