/* shadowed-library: a library came through LD_LIBRARY_PATH (or the cache or
 * the default folders) while its requester ships a copy in its own RUNPATH:
 * the leftover libcudnn.so.8 of an old toolkit hides the bundled one.
 * Or LD_PRELOAD put a copy in first (itself, or what it needed): a SONAME
 * already loaded is taken as it is, so the loader never searches for the
 * DT_NEEDED of a later requester, and the copy that requester's own
 * RPATH/RUNPATH would give it is found only on paper (host/resolve.c). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "host/elf_info.h"
#include "host/framework.h"
#include "host/package.h"
#include "host/resolve.h"
#include "read/failed_load.h"
#include "rules/rules.h"
#include "rules/shown_path.h"

/* The version of the copy that was never tried, from its real file name,
 * else from its own distribution's package; "" when neither says more than
 * a major. */
void gt_version_on_disk(struct gt_host_facts *facts, const char *path, char *out, size_t cap)
{
	struct gt_family_info fi;
	struct host_package pk;
	char real[PATH_MAX];

	out[0] = 0;
	if (gt_facts_real_path(facts, path, real, sizeof(real)) && gt_classify(real, &fi) && strchr(fi.version, '.'))
		snprintf(out, cap, "%s", fi.version);
	else if (gt_classify(path, &fi) && gt_facts_package(facts, path, &pk) && gt_package_speaks_for(&pk, &fi) &&
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
static bool bundled_copy(struct gt_host_facts *facts, const struct gt_lib *l, char *out, size_t cap)
{
	struct host_elf_info info;
	const char *list;
	char **dirs = NULL, real[PATH_MAX];
	size_t n = 0, i;
	bool found = false;

	if (!l->obj->requester || !l->obj->name)
		return false;
	gt_facts_elf(facts, l->obj->requester, &info);
	list = info.runpath ? info.runpath : info.rpath;
	if (list)
		n = gt_facts_search_path(facts, list, l->obj->requester, false, &dirs);
	for (i = 0; i < n && !found; i++) {
		snprintf(out, cap, "%s/%s", dirs[i], l->obj->name);
		found = gt_facts_exists(facts, out) && gt_facts_real_path(facts, out, real, sizeof(real)) &&
			strcmp(real, l->real_path) != 0;
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
				      const struct gt_lib *l, const char *dir, const char *copy_dir)
{
	char fix[5 * PATH_MAX + 512], requester[PATH_MAX];
	size_t i;

	for (i = 0; i < out->n; i++) {
		struct gt_finding *f = &out->v[i];
		json_t *e0 = json_array_get(f->evidence, 0);
		char d0[PATH_MAX];

		if (f->proc != m || f->id != GT_F_SHADOWED_LIBRARY || !e0)
			continue;
		gt_folder_of(json_string_value(json_object_get(e0, "path")), d0, sizeof(d0));
		if (strcmp(d0, dir) == 0 &&
		    strcmp(json_string_value(json_object_get(e0, "requester")), l->obj->requester) == 0)
			return f;
	}
	gt_shown_path(m->facts, l->obj->requester, requester, sizeof(requester));
	/* Only a copy LD_LIBRARY_PATH brought in is fixed by changing it: one
	 * from ld.so.cache or the default folders is in a system folder, which
	 * no fix takes out of the loader's configuration. */
	if (l->found_by == GT_RULE_LD_LIBRARY_PATH)
		snprintf(fix, sizeof(fix),
			 "Remove %s from LD_LIBRARY_PATH (or delete the stale copies there) so that %s gets "
			 "the libraries it ships with, from its own RUNPATH.", dir, requester);
	else
		snprintf(fix, sizeof(fix),
			 "The loader took these from %s before the copies %s ships with in %s: uninstall "
			 "or delete the stale copies in %s (the package that put them there, if any, is in "
			 "the evidence), or put %s on LD_LIBRARY_PATH so that it comes first.",
			 l->found_by == GT_RULE_LD_SO_CACHE ? "ld.so.cache" : "the loader's default folders",
			 requester, copy_dir, dir, copy_dir);
	return gt_finding_add(out, GT_F_SHADOWED_LIBRARY, GT_SEV_WARNING, m, fix,
			      "%s [%s] shadows the copies next to %s", dir, gt_rule_name(l->found_by), requester);
}

/* ---- a copy LD_PRELOAD put in first ---- */

/* What the loader would give requester for name without the preload, on
 * paper: its RPATH chain (the objects that loaded it, up to the program),
 * the process's LD_LIBRARY_PATH, its RUNPATH, this host's cache. */
bool gt_paper_winner(const struct gt_proc_model *m, const struct gt_object *requester, const char *name,
			 char *out, size_t cap, enum gt_rule *rule)
{
	const struct gt_process *p = m->proc;
	const char *loaders[32];
	const struct gt_object *ob = requester;
	struct host_resolution r;
	size_t n = 0, i;
	bool found;

	while (!ob->main && ob->requester && n < sizeof(loaders) / sizeof(loaders[0])) {
		loaders[n++] = ob->requester;
		for (i = 0; i < p->nobjects && (!p->objects[i].path ||
						strcmp(p->objects[i].path, ob->requester) != 0); i++)
			;
		if (i == p->nobjects || &p->objects[i] == ob)
			break;
		ob = &p->objects[i];
	}
	gt_facts_resolve(m->facts, name, requester->path, loaders, requester->main ? 0 : n,
			 gt_process_env(p, "LD_LIBRARY_PATH"), &r);
	found = r.winner >= 0;
	if (found) {
		snprintf(out, cap, "%s", r.cand[r.winner].path);
		*rule = r.cand[r.winner].rule;
	}
	host_resolution_free(&r);
	return found;
}

static bool needs(struct gt_host_facts *facts, const char *path, const char *soname)
{
	struct host_elf_info info;
	bool yes = false;
	size_t k;

	gt_facts_elf(facts, path, &info);
	for (k = 0; k < info.nneeded && !yes; k++)
		yes = strcmp(info.needed[k], soname) == 0;
	host_elf_free(&info);
	return yes;
}

/* A framework beside the requester declares a release the preloaded copy
 * does not meet (and so, the one it would have had). */
bool gt_declared_otherwise(struct gt_host_facts *facts, const char *requester, const struct gt_lib *l)
{
	struct host_needs decl;
	bool unmet = false;
	size_t k;

	if (!gt_facts_framework_needs(facts, requester, &decl))
		return false;
	for (k = 0; k < decl.n && !unmet; k++)
		unmet = strcmp(decl.v[k].family, l->fi.family) == 0 &&
			host_version_satisfies(decl.v[k].spec, l->version) == HOST_UNMET;
	host_needs_free(&decl);
	return unmet;
}

/* A failure the driver or the device explains is not the preload's. */
bool gt_failure_explained(const struct gt_findings *out, const struct gt_proc_model *m)
{
	static const enum gt_finding_id causes[] = { GT_F_DRIVER_MISSING, GT_F_DRIVER_STUB, GT_F_DRIVER_TOO_OLD,
						     GT_F_DRIVER_MISMATCH, GT_F_NO_DEVICE };
	size_t i, k;

	for (i = 0; i < out->n; i++)
		for (k = 0; k < sizeof(causes) / sizeof(causes[0]); k++)
			if (out->v[i].proc == m && out->v[i].severity == GT_SEV_ERROR &&
			    out->v[i].id == causes[k])
				return true;
	return false;
}

/* Another release in place of the requester's own is an error where the
 * run failed (for no reason the driver or device gives) or a framework
 * there declares a release the preloaded copy does not meet; else a
 * warning: the run went well on the preloaded copy. */
static void judge_preload(struct gt_finding *f, const struct gt_findings *out, const struct gt_proc_model *m,
			  const struct gt_lib *l, const char *requester, const char *shadowed_version)
{
	const char *why = NULL;
	char *plain;

	if (f->severity == GT_SEV_ERROR || !shadowed_version[0] || !strchr(l->version, '.') ||
	    gt_same_release(l->version, shadowed_version))
		return;
	if (gt_declared_otherwise(m->facts, requester, l))
		why = "a release its framework does not declare";
	else if (gt_model_failed(m) && !gt_failure_explained(out, m))
		why = "in a process that failed";
	if (!why)
		return;
	f->severity = GT_SEV_ERROR;
	plain = f->summary;
	f->summary = gt_xasprintf("%s: another release (%s %s instead of %s), %s", plain, l->fi.component,
				  l->version, shadowed_version, why);
	free(plain);
}

static struct gt_finding *preload_finding_for(struct gt_findings *out, const struct gt_proc_model *m,
					      const struct gt_lib *l, const char *root, const char *requester,
					      const char *copy, const char *copy_version, enum gt_rule rule)
{
	char fix[3 * PATH_MAX + 512];
	size_t i;

	for (i = 0; i < out->n; i++) {
		struct gt_finding *f = &out->v[i];
		json_t *e0 = json_array_get(f->evidence, 0);
		const char *r0 = json_string_value(json_object_get(e0, "preloaded"));

		/* One finding per preload entry: every requester it shadowed a
		 * copy for is evidence of that one cause (torch's libtorch_cuda
		 * and libtorch_python both need libcudnn.so.9). */
		if (f->proc == m && f->id == GT_F_SHADOWED_LIBRARY && r0 && strcmp(r0, root) == 0)
			return f;
	}
	snprintf(fix, sizeof(fix),
		 "Take %s out of LD_PRELOAD (look in shell profiles and launcher scripts), so that %s "
		 "loads the copy it finds itself, %s.", root, requester, copy);
	return gt_finding_add(out, GT_F_SHADOWED_LIBRARY, GT_SEV_WARNING, m, fix,
			      "%s %s [preload] shadows %s%s%s, the copy %s would load through its %s (on paper)",
			      l->obj->path, l->version, copy, copy_version[0] ? " " : "", copy_version,
			      gt_base_name(requester), gt_rule_name(rule));
}

static bool already_said(const struct gt_finding *f, const char *path, const char *requester)
{
	size_t i;

	for (i = 0; i < json_array_size(f->evidence); i++) {
		json_t *e = json_array_get(f->evidence, i);
		const char *said = json_string_value(json_object_get(e, "path"));
		const char *by = json_string_value(json_object_get(e, "shadowed_requester"));

		if (said && by && strcmp(said, path) == 0 && strcmp(by, requester) == 0)
			return true;
	}
	return false;
}

/* The preloaded l (or a library the preload needed) in place of the copy
 * requester's DT_NEEDED would find. */
static void preload_shadows(const struct gt_proc_model *m, const struct gt_lib *l, const char *root,
			    const struct gt_object *requester, struct gt_findings *out)
{
	char copy[PATH_MAX], real[PATH_MAX], shadowed_version[64], shown[PATH_MAX];
	enum gt_rule rule = GT_RULE_NONE;
	struct gt_finding *f;
	json_t *e;

	if (!gt_paper_winner(m, requester, l->obj->soname, copy, sizeof(copy), &rule) ||
	    !gt_facts_real_path(m->facts, copy, real, sizeof(real)) || strcmp(real, l->real_path) == 0)
		return;
	gt_version_on_disk(m->facts, copy, shadowed_version, sizeof(shadowed_version));
	gt_shown_path(m->facts, copy, shown, sizeof(shown));
	f = preload_finding_for(out, m, l, root, requester->path, shown, shadowed_version, rule);
	if (already_said(f, l->obj->path, requester->path))
		return;
	gt_fix_preload_remove(&f->fix_data, m, root);
	e = gt_evidence_add(f, "%s %s, %s%s, was loaded before %s needed %s, so the loader took it "
			    "without a search; on paper, that DT_NEEDED finds %s%s%s through %s",
			    l->obj->soname, l->version, strcmp(root, l->obj->path) == 0 ? "from LD_PRELOAD" :
			    "needed by LD_PRELOAD's ", strcmp(root, l->obj->path) == 0 ? "" : root,
			    gt_base_name(requester->path), l->obj->soname, shown, shadowed_version[0] ? " " : "",
			    shadowed_version, gt_rule_name(rule));
	gt_evidence_lib(e, l);
	gt_evidence_str(e, "preloaded", root);
	gt_evidence_str(e, "soname", l->obj->soname);
	gt_evidence_str(e, "shadowed", shown);
	if (shadowed_version[0])
		gt_evidence_str(e, "shadowed_version", shadowed_version);
	gt_evidence_str(e, "shadowed_requester", requester->path);
	gt_evidence_str(e, "shadowed_rule", gt_rule_name(rule));
	judge_preload(f, out, m, l, requester->path, shadowed_version);
}

/* Every object that needs a preloaded library by its SONAME, but those the
 * preload brought in itself: their needs were met as the user chose. */
static void rule_preload_shadowed(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	size_t i, k;

	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *l = &m->libs[i];
		const char *root = gt_model_preloaded_root(m, l);

		if (!root || !l->obj->soname || !l->real_path[0])
			continue;
		for (k = 0; k < p->nobjects; k++) {
			const struct gt_object *ob = &p->objects[k];

			if (ob != l->obj && ob->path && ob->path[0] == '/' && !gt_object_preloaded_root(m, ob) &&
			    needs(m->facts, ob->path, l->obj->soname))
				preload_shadows(m, l, root, ob, out);
		}
	}
}

void rule_shadowed_library(const struct gt_proc_model *m, struct gt_findings *out)
{
	char copy[PATH_MAX + 256], dir[PATH_MAX], shadowed_version[64], shown[PATH_MAX], copy_dir[PATH_MAX];
	struct gt_finding *f;
	size_t i;
	json_t *e;

	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *l = &m->libs[i];

		if (!searched_early(l->found_by) || !l->real_path[0] || !bundled_copy(m->facts, l, copy, sizeof(copy)))
			continue;
		gt_folder_of(l->obj->path, dir, sizeof(dir));
		gt_shown_path(m->facts, copy, shown, sizeof(shown));
		gt_folder_of(shown, copy_dir, sizeof(copy_dir));
		f = finding_for(out, m, l, dir, copy_dir);
		if (l->found_by == GT_RULE_LD_LIBRARY_PATH)
			gt_fix_list_remove(&f->fix_data, "LD_LIBRARY_PATH", dir);
		e = gt_evidence_add(f, "%s %s was found by %s at %s; the copy next to its requester, %s, "
				    "was never tried", l->obj->name, l->version, gt_rule_name(l->found_by), l->obj->path, shown);
		gt_evidence_lib(e, l);
		gt_evidence_str(e, "shadowed", shown);
		gt_version_on_disk(m->facts, copy, shadowed_version, sizeof(shadowed_version));
		if (shadowed_version[0])
			gt_evidence_str(e, "shadowed_version", shadowed_version);
		judge(f, m, l, shadowed_version);
	}
	rule_preload_shadowed(m, out);
}
