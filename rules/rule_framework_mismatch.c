/* framework-mismatch: a framework declares, in files of its installation,
 * what it was built for (torch's METADATA pins nvidia-cudnn-cu13==9.19.0.56,
 * TensorFlow's build_info.py says cudnn_version '8', ...), and a library it
 * uses falls short: every part of the loaded cuDNN can agree with itself
 * while the framework was compiled against another release ("Loaded runtime
 * CuDNN library: 8.0.5 but source was compiled with: 8.1.0"). Only a need
 * that is violated is said: a satisfied or an unknown one (a version too
 * short to tell, a copy the framework does not use) says nothing. */
#include <stdio.h>
#include <string.h>

#include "host/elf_info.h"
#include "host/framework.h"
#include "rules/rules.h"

static bool under(const char *path, const char *root)
{
	size_t n = strlen(root);

	return path && strncmp(path, root, n) == 0 && path[n] == '/';
}

/* The first object of the namespace loaded under this SONAME: the one a
 * DT_NEEDED of that name binds to. */
static const struct gt_object *first_with_soname(const struct gt_process *p, const char *soname, long ns)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (!p->objects[i].closed && p->objects[i].ns == ns && p->objects[i].soname &&
		    strcmp(p->objects[i].soname, soname) == 0)
			return &p->objects[i];
	return NULL;
}

/* Does one of the framework's loaded files (under root) name a part of the
 * copy in its DT_NEEDED? A name that matches an object already loaded
 * (torch 2.x preloads its cuDNN by path, then libtorch_cuda.so needs
 * libcudnn.so.9) binds to it without a search the trace could show. */
static bool needed_by_framework(const struct gt_proc_model *m, size_t copy, const char *root)
{
	const struct gt_process *p = m->proc;
	struct host_elf_info info;
	const struct gt_object *to;
	bool used = false;
	size_t i, k, j;

	for (i = 0; i < p->nobjects && !used; i++) {
		const struct gt_object *ob = &p->objects[i];

		if (ob->closed || !under(ob->path, root))
			continue;
		gt_facts_elf(m->facts, ob->path, &info);
		for (k = 0; k < info.nneeded && !used; k++) {
			to = first_with_soname(p, info.needed[k], ob->ns);
			for (j = 0; to && j < m->nlibs && !used; j++)
				used = m->libs[j].copy == copy && m->libs[j].obj == to;
		}
		host_elf_free(&info);
	}
	return used;
}

/* Does the framework (its files under root) use this copy: did one of them
 * ask for a part, search and find one, or need one by its SONAME? */
static bool copy_used_by(const struct gt_proc_model *m, size_t copy, const char *root)
{
	const struct gt_process *p = m->proc;
	size_t i, k;

	for (i = 0; i < m->nlibs; i++)
		if (m->libs[i].copy == copy && under(m->libs[i].obj->requester, root))
			return true;
	for (k = 0; k < p->nsearches; k++) {
		const struct gt_search *s = &p->searches[k];

		if (s->ours || !s->path || !under(s->requester, root))
			continue;
		for (i = 0; i < m->nlibs; i++)
			if (m->libs[i].copy == copy && strcmp(m->libs[i].obj->path, s->path) == 0)
				return true;
	}
	return needed_by_framework(m, copy, root);
}

/* The parts a need speaks of: for the CUDA runtime, libcudart itself (not
 * libcudadevrt); for the others, every part of the family. */
static bool concerned(const struct gt_lib *l, const struct host_need *need)
{
	if (strcmp(l->fi.family, need->family) != 0)
		return false;
	return strcmp(need->family, "cudart") != 0 || strcmp(l->fi.component, "cudart") == 0;
}

static void write_fix(const struct gt_lib *l, const struct host_need *need, char *fix, size_t cap)
{
	char dir[4096];

	gt_folder_of(l->obj->path, dir, sizeof(dir));
	if (l->found_by == GT_RULE_LD_LIBRARY_PATH)
		snprintf(fix, cap, "Remove %s from LD_LIBRARY_PATH, so that %s loads the %s it was built for (%s).",
			 dir, need->framework, need->family, need->spec);
	else if (l->found_by == GT_RULE_PRELOAD)
		snprintf(fix, cap, "Take %s out of LD_PRELOAD, so that %s loads the %s it was built for (%s).",
			 l->obj->path, need->framework, need->family, need->spec);
	else if (need->distribution[0])
		snprintf(fix, cap, "Install the release %s declares: pip install '%s%s' (or remove the stale "
			 "copy in %s).", need->framework, need->distribution, need->spec, dir);
	else
		snprintf(fix, cap, "Load a %s that satisfies %s (%s, as %s says), or install the build of %s "
			 "made for the %s in %s.", need->family, need->spec, need->what, need->declared_by,
			 need->framework, need->family, dir);
}

/* The same fix as data, where it is a change retry can make (an installer
 * command is named, never run). */
static void write_fix_data(struct gt_finding *f, const struct gt_proc_model *m, const struct gt_lib *l,
			   const struct host_need *need)
{
	char dir[4096], cmd[1024];

	gt_folder_of(l->obj->path, dir, sizeof(dir));
	if (l->found_by == GT_RULE_LD_LIBRARY_PATH) {
		gt_fix_list_remove(&f->fix_data, "LD_LIBRARY_PATH", dir);
	} else if (l->found_by == GT_RULE_PRELOAD) {
		gt_fix_preload_remove(&f->fix_data, m, l->obj->path);
	} else if (need->distribution[0]) {
		/* in the environment that declares it: its own pip, or a venv */
		snprintf(cmd, sizeof(cmd), "%s%s", need->distribution, need->spec);
		gt_fix_pip_install(&f->fix_data, m->proc, need->declared_by, cmd, NULL, NULL);
	}
}

static struct gt_finding *open_finding(const struct gt_proc_model *m, const struct host_need *need,
				       const struct gt_lib *l, struct gt_findings *out)
{
	char fix[16384];
	struct gt_finding *f;
	json_t *e;

	write_fix(l, need, fix, sizeof(fix));
	f = gt_finding_add(out, GT_F_FRAMEWORK_MISMATCH, GT_SEV_ERROR, m, fix,
			   "%s needs %s %s (%s), but %s %s is loaded from %s [%s]", need->framework, need->family,
			   need->spec, need->what, l->fi.component, l->version, l->obj->path,
			   l->found_by != GT_RULE_NONE ? gt_rule_name(l->found_by) : "?");
	e = gt_evidence_add(f, "%s declares %s", need->declared_by, need->what);
	gt_evidence_str(e, "declared_by", need->declared_by);
	gt_evidence_str(e, "declaration", need->what);
	gt_evidence_str(e, "framework", need->framework);
	gt_evidence_str(e, "family", need->family);
	gt_evidence_str(e, "spec", need->spec);
	if (need->distribution[0])
		gt_evidence_str(e, "distribution", need->distribution);
	write_fix_data(f, m, l, need);
	return f;
}

static void add_short_part(struct gt_finding *f, const struct gt_lib *l, const struct host_need *need)
{
	json_t *e = gt_evidence_add(f, "%s %s (%s) from %s [%s]%s%s%s%s does not satisfy %s", l->fi.component,
				    l->version, l->version_source, l->obj->path,
				    l->found_by != GT_RULE_NONE ? gt_rule_name(l->found_by) : "?",
				    l->has_package ? ", package " : "", l->has_package ? l->package.name : "",
				    l->has_package ? " " : "", l->has_package ? l->package.version : "", need->spec);

	gt_evidence_lib(e, l);
	gt_evidence_str(e, "version", l->version);
	gt_evidence_str(e, "version_source", l->version_source);
	if (l->has_package) {
		gt_evidence_str(e, "package", l->package.name);
		gt_evidence_str(e, "package_version", l->package.version);
	}
}

/* One finding per need and copy, with every part that falls short. */
static void check_need(const struct gt_proc_model *m, const struct host_needs *needs, const struct host_need *need,
		       struct gt_findings *out)
{
	size_t k, i;

	for (k = 0; k < m->ncopies; k++) {
		struct gt_finding *f = NULL;

		if (strcmp(m->copies[k].family, need->family) != 0 || !copy_used_by(m, k, needs->root))
			continue;
		for (i = 0; i < m->nlibs; i++) {
			const struct gt_lib *l = &m->libs[i];

			if (l->copy != k || !concerned(l, need) ||
			    host_version_satisfies(need->spec, l->version) != HOST_UNMET)
				continue;
			if (!f)
				f = open_finding(m, need, l, out);
			add_short_part(f, l, need);
		}
	}
}

/* Each framework install once, however many of its libraries are loaded:
 * the first of its libraries with an answer speaks for it. */
static bool root_seen(char seen[][4096], size_t nseen, const char *root)
{
	size_t i;

	for (i = 0; i < nseen; i++)
		if (strcmp(seen[i], root) == 0)
			return true;
	return false;
}

void rule_framework_mismatch(const struct gt_proc_model *m, struct gt_findings *out)
{
	static char seen[16][4096];
	const struct gt_process *p = m->proc;
	struct gt_family_info fi;
	struct host_needs needs;
	char root[4096];
	size_t i, k, nseen = 0;

	for (i = 0; i < p->nobjects; i++) {
		const struct gt_object *ob = &p->objects[i];

		/* The root from the path's words before asking (the answer's
		 * root is the same): an import torch loads 51 files of its
		 * install on the H200, and each question is a package lookup
		 * (bench/README.md section 17). */
		if (!ob->path || ob->closed || gt_classify(ob->path, &fi) ||
		    !host_framework_root(ob->path, root, sizeof(root)) || root_seen(seen, nseen, root) ||
		    !gt_facts_framework_needs(m->facts, ob->path, &needs))
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", root);
		for (k = 0; k < needs.n; k++)
			check_need(m, &needs, &needs.v[k], out);
		host_needs_free(&needs);
	}
}
