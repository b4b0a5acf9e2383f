/* The findings of gputrace scan, over the set of copies a host holds:
 * duplicate-library, shadowed-library, driver-stub, mixed-versions, and the
 * files the loader would refuse (broken-symlink, wrong-architecture); and over
 * --for's choices, a folder on LD_LIBRARY_PATH that shadows the consumer's own
 * copy (shadowed-library). */
#define _GNU_SOURCE
#include "rules/scan_rules.h"

#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "facts/facts.h"
#include "rules/driver_stack.h"

/* Places a program with no RPATH/RUNPATH of its own gets libraries from. */
static bool default_search(const struct host_copy *c)
{
	return strcmp(c->where, HOST_WHERE_LD_SO_CACHE) == 0 || strcmp(c->where, HOST_WHERE_LD_LIBRARY_PATH) == 0 ||
	       strcmp(c->where, HOST_WHERE_LD_SO_CONF) == 0 || strcmp(c->where, "default") == 0 || c->in_cache;
}

/* The name the loader knows a copy by: its SONAME, else its file name. */
static const char *load_name(const struct host_copy *c)
{
	const char *base = strrchr(c->path, '/');

	return c->elf.ok && c->elf.soname ? c->elf.soname : (base ? base + 1 : c->path);
}

static json_t *copy_evidence(struct gt_finding *f, const struct host_copy *c, const char *fmt_what)
{
	json_t *e = gt_evidence_add(f, "%s %s %s [%s]%s%s%s%s%s%s", fmt_what, c->path, c->version,
				    host_where_label(c->where),
				    c->has_package ? " " : "", c->has_package ? c->package.manager : "",
				    c->has_package ? ":" : "", c->has_package ? c->package.name : "",
				    c->has_package ? " " : "", c->has_package ? c->package.version : "");
	gt_evidence_str(e, "path", c->path);
	gt_evidence_str(e, "real_path", c->real_path);
	gt_evidence_str(e, "version", c->version);
	gt_evidence_str(e, "where", c->where);
	gt_evidence_str(e, "component", c->fi.component);
	if (c->has_package) {
		gt_evidence_str(e, "package", c->package.name);
		gt_evidence_str(e, "package_version", c->package.version);
	}
	return e;
}

/* The path and each link target, as an array (the JSON's "chain"). */
json_t *gt_scan_chain_json(const struct host_copy *c)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < c->nlinks; i++)
		json_array_append_new(arr, gt_json_text(c->links[i]));
	return arr;
}

static bool same_file(const struct host_copy *a, const struct host_copy *b)
{
	return a->real_path && b->real_path && strcmp(a->real_path, b->real_path) == 0;
}

/* The names of the per-name findings a rule added, in the order added,
 * for merge_by_folders. */
struct per_name {
	const char *v[4096];
	size_t n;
};

static void note_name(struct per_name *names, const char *name)
{
	if (names->n < sizeof(names->v) / sizeof(names->v[0]))
		names->v[names->n++] = name;
}

/* Two files under one SONAME: which one a program gets depends on its search. */
static void duplicates(const struct host_scan *s, struct gt_findings *out, struct per_name *names)
{
	struct gt_finding *f;
	size_t i, k, j;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *a = &s->copies[i];
		bool visible = default_search(a), first = true;

		if (!a->real_path || !a->elf.ok)
			continue;
		for (j = 0; j < i; j++)  /* each name once, from its first copy */
			if (s->copies[j].real_path && strcmp(load_name(&s->copies[j]), load_name(a)) == 0)
				break;
		if (j < i)
			continue;
		f = NULL;
		for (k = i + 1; k < s->ncopies; k++) {
			const struct host_copy *b = &s->copies[k];
			bool already = false;

			if (!b->real_path || strcmp(load_name(a), load_name(b)) != 0 || same_file(a, b))
				continue;
			for (j = i + 1; j < k; j++)
				already |= same_file(&s->copies[j], b) && strcmp(load_name(&s->copies[j]), load_name(b)) == 0;
			if (already)
				continue;
			visible |= default_search(b);
			if (!f) {
				f = gt_finding_add(out, GT_F_DUPLICATE_LIBRARY, GT_SEV_INFO, NULL,
						   "Know which copy each program gets: gputrace scan --for PROGRAM "
						   "shows it; remove copies that nothing should load.",
						   "%s: several copies on this host", load_name(a));
				note_name(names, load_name(a));
				copy_evidence(f, a, "copy");
				first = false;
			}
			copy_evidence(f, b, "copy");
		}
		/* Two copies the default search can both reach are a real hazard. */
		if (f && visible && !first)
			f->severity = GT_SEV_WARNING;
	}
}

/* A copy in an LD_LIBRARY_PATH folder hides the ld.so.cache one from every
 * program whose own RUNPATH does not name it first. */
static void shadowed(const struct host_scan *s, struct gt_findings *out, struct per_name *names)
{
	const struct host_ldcache_entry *ce;
	struct gt_finding *f;
	char fix[2 * PATH_MAX];
	size_t i, k;

	for (i = 0; s->have_cache && i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];

		/* the loader skips what it cannot load: only a loadable copy hides another */
		if (strcmp(c->where, HOST_WHERE_LD_LIBRARY_PATH) != 0 || !c->real_path || !c->elf.ok ||
		    c->elf.elf_class != ELFCLASS64 || c->elf.machine != EM_X86_64)
			continue;
		ce = host_ldcache_lookup(&s->cache, load_name(c));
		if (!ce)
			continue;
		for (k = 0; k < s->ncopies; k++)
			if (strcmp(s->copies[k].path, ce->path) == 0 && same_file(&s->copies[k], c))
				break;
		if (k < s->ncopies)
			continue;
		snprintf(fix, sizeof(fix), "Remove the folder of %s from LD_LIBRARY_PATH, unless every "
			 "program should get that copy instead of %s.", c->path, ce->path);
		f = gt_finding_add(out, GT_F_SHADOWED_LIBRARY, GT_SEV_WARNING, NULL, fix,
				   "LD_LIBRARY_PATH's %s hides %s from ld.so.cache", c->path, ce->path);
		note_name(names, load_name(c));
		copy_evidence(f, c, "found first:");
		gt_evidence_str(gt_evidence_add(f, "ld.so.cache names %s for %s", ce->path, load_name(c)),
				"shadowed", ce->path);
	}
}

static void stubs(const struct host_scan *s, struct gt_findings *out)
{
	struct gt_finding *f;
	size_t i;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];

		if (!c->stub || !default_search(c))
			continue;
		f = gt_finding_add(out, GT_F_DRIVER_STUB, GT_SEV_ERROR, NULL,
				   "Remove the stubs folder from LD_LIBRARY_PATH and /etc/ld.so.conf.d/, run "
				   "ldconfig; the stub is for linking only, programs need the driver's libcuda.so.1.",
				   "the CUDA driver stub %s is where programs look for libcuda.so.1 [%s]",
				   c->path, host_where_label(c->where));
		copy_evidence(f, c, "stub:");
	}
}

static void folder_of(const char *path, char *out, size_t cap)
{
	char *slash;

	snprintf(out, cap, "%s", path);
	slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(out, cap, ".");
}

/* cuDNN or cuBLAS parts of different versions in one folder: one finding per
 * folder and family. */
static void mixed(const struct host_scan *s, struct gt_findings *out)
{
	char dir_i[PATH_MAX], dir_k[PATH_MAX], vi[32], vk[32];
	struct gt_finding *f;
	size_t i, k, j;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *a = &s->copies[i];
		bool done = false;

		if (strcmp(a->fi.family, "cudnn") && strcmp(a->fi.family, "cublas"))
			continue;
		folder_of(a->path, dir_i, sizeof(dir_i));
		for (j = 0; j < i && !done; j++) {  /* this folder and family judged already? */
			folder_of(s->copies[j].path, dir_k, sizeof(dir_k));
			done = strcmp(s->copies[j].fi.family, a->fi.family) == 0 && strcmp(dir_i, dir_k) == 0;
		}
		if (done)
			continue;
		gt_version_key(a->version, vi, sizeof(vi));
		for (k = i + 1; k < s->ncopies; k++) {
			const struct host_copy *b = &s->copies[k];

			folder_of(b->path, dir_k, sizeof(dir_k));
			gt_version_key(b->version, vk, sizeof(vk));
			if (strcmp(a->fi.family, b->fi.family) || strcmp(dir_i, dir_k) || !strchr(vi, '.') ||
			    !strchr(vk, '.') || gt_version_major(vi) != gt_version_major(vk) || strcmp(vi, vk) == 0)
				continue;
			f = gt_finding_add(out, GT_F_MIXED_VERSIONS, GT_SEV_ERROR, NULL,
					   "Reinstall the library so that all its parts come from one release, "
					   "and remove the stale files of the other.",
					   "%s parts of versions %s and %s side by side in %s", a->fi.family, vi, vk,
					   dir_i);
			copy_evidence(f, a, "part:");
			copy_evidence(f, b, "part:");
			break;
		}
	}
}

/* What the loader refuses, grouped by folder and kind: one stale folder of
 * dangling links (a package removed under its links) is one cause. */
enum refusal { BROKEN_LINK, NOT_ELF, OTHER_MACHINE };

struct refused_group {
	enum refusal kind;
	char dir[PATH_MAX];
	size_t at;          /* its finding, by index (out->v grows) */
	size_t n;
	char *names;        /* "a, b (32-bit, machine 3), ..." for the summary */
};

static const enum gt_finding_id refusal_id[] = { GT_F_BROKEN_SYMLINK, GT_F_WRONG_ARCHITECTURE,
						 GT_F_WRONG_ARCHITECTURE };
static const char *const refusal_fix[] = {
	"Remove the link or point it at the file it was meant for.",
	"Remove the file or move it out of the loader's folders.",
	"The loader skips it on this machine: remove it, or install the x86-64 build.",
};

static void add_name(struct refused_group *g, const char *name)
{
	char *more = g->names ? gt_xasprintf("%s, %s", g->names, name) : gt_xstrdup(name);

	free(g->names);
	g->names = more;
}

/* The finding of c's folder and kind, opened with the one-file summary; a
 * second file turns the summary into the folder's count and names. */
static struct gt_finding *refusal_finding(struct refused_group **groups, size_t *ngroups, enum refusal kind,
					  const struct host_copy *c, const char *label, const char *one,
					  struct gt_findings *out)
{
	static const char *const many[] = { "broken links", "files that are not loadable libraries",
					     "libraries for another machine than x86-64" };
	char dir[PATH_MAX];
	struct refused_group *g = NULL;
	struct gt_finding *f;
	size_t i;

	gt_folder_of(c->path, dir, sizeof(dir));
	for (i = 0; i < *ngroups && !g; i++)
		if ((*groups)[i].kind == kind && strcmp((*groups)[i].dir, dir) == 0)
			g = &(*groups)[i];
	if (!g) {
		*groups = gt_xrealloc(*groups, (*ngroups + 1) * sizeof(**groups));
		g = &(*groups)[(*ngroups)++];
		memset(g, 0, sizeof(*g));
		g->kind = kind;
		snprintf(g->dir, sizeof(g->dir), "%s", dir);
		gt_finding_add(out, refusal_id[kind], GT_SEV_WARNING, NULL, refusal_fix[kind], "%s", one);
		g->at = out->n - 1;
	}
	f = &out->v[g->at];
	add_name(g, label);
	if (++g->n > 1) {
		free(f->summary);
		f->summary = gt_xasprintf("%zu %s in %s: %s", g->n, many[kind], g->dir, g->names);
	}
	return f;
}

static void refused(const struct host_scan *s, struct gt_findings *out)
{
	struct refused_group *groups = NULL;
	size_t ngroups = 0, i;
	struct gt_finding *f;
	char one[2 * PATH_MAX + 512], label[PATH_MAX + 64];

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];
		const char *base = gt_base_name(c->path);

		if (!c->real_path) {
			snprintf(one, sizeof(one), "%s is a broken link: %s", c->path, c->chain);
			f = refusal_finding(&groups, &ngroups, BROKEN_LINK, c, base, one, out);
			json_object_set_new(copy_evidence(f, c, "link:"), "chain", gt_scan_chain_json(c));
		} else if (!c->elf.ok) {
			/* Named like a library, not one: in the loader's folders it
			 * ends a search (the loader gives up on an invalid ELF file). */
			snprintf(one, sizeof(one), "%s is not a loadable library: %s", c->path, c->elf.error);
			f = refusal_finding(&groups, &ngroups, NOT_ELF, c, base, one, out);
			copy_evidence(f, c, "file:");
		} else if (c->elf.ok && (c->elf.elf_class != ELFCLASS64 || c->elf.machine != EM_X86_64) &&
			   default_search(c)) {
			snprintf(one, sizeof(one), "%s is a %d-bit library for machine %d, not x86-64", c->path,
				 c->elf.elf_class == ELFCLASS32 ? 32 : 64, c->elf.machine);
			snprintf(label, sizeof(label), "%s (%d-bit, machine %d)", base,
				 c->elf.elf_class == ELFCLASS32 ? 32 : 64, c->elf.machine);
			f = refusal_finding(&groups, &ngroups, OTHER_MACHINE, c, label, one, out);
			copy_evidence(f, c, "file:");
		}
	}
	for (i = 0; i < ngroups; i++)
		free(groups[i].names);
	free(groups);
}

static const char *driver_copy_problem(const struct host_scan *s, const struct host_copy *c)
{
	bool compat = gt_driver_is_compat(c->path, c->real_path, c->has_package ? c->package.name : NULL);

	return gt_driver_copy_problem(compat, c->version, s->kmod, s->gpus);
}

/* Is any name of this file where programs look? */
static bool any_name_searched(const struct host_scan *s, const struct host_copy *c)
{
	size_t i;

	for (i = 0; i < s->ncopies; i++)
		if ((&s->copies[i] == c || same_file(&s->copies[i], c)) && default_search(&s->copies[i]))
			return true;
	return false;
}

/* Each user-space driver copy (libcuda, libnvidia-ml) against the loaded
 * kernel module: an error where programs look for it by default, a warning
 * elsewhere (it breaks whatever puts it on the search path). */
static void driver_copies(const struct host_scan *s, struct gt_findings *out)
{
	char dir[PATH_MAX], fix[PATH_MAX + 512];
	struct gt_finding *f;
	const char *why;
	size_t i;

	if (!s->kmod[0])
		return;
	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];
		size_t k;

		/* One finding per file: libcuda.so, .so.1 and .so.580.95.05 are one. */
		for (k = 0; k < i && !same_file(&s->copies[k], c); k++)
			;
		if (k < i)
			continue;
		/* Link-time stubs (libcuda's, and the toolkit's libnvidia-ml in
		 * stubs/, versioned by its cuda-nvml-dev package) are no driver. */
		if (c->stub || strstr(c->path, "/stubs/") ||
		    !(strcmp(c->fi.component, "cuda") == 0 || strcmp(c->fi.family, "nvml") == 0) ||
		    !strchr(c->version, '.') || !(why = driver_copy_problem(s, c)))
			continue;
		gt_folder_of(c->path, dir, sizeof(dir));
		/* A stale file in the loader's own folder is replaced, never its
		 * folder taken out of the loader's configuration (issue 28). */
		if (gt_system_lib_folder(dir))
			snprintf(fix, sizeof(fix), "Replace it: reinstall the driver's user-space package at the kernel "
				 "module's release (%s)%s%s; %s is the system's own library folder and stays in the "
				 "loader's configuration. Or reboot, when the module is the one left behind by a driver "
				 "upgrade.", s->kmod, c->has_package ? ", here " : "",
				 c->has_package ? c->package.name : "", dir);
		else
			snprintf(fix, sizeof(fix), "Use the host's driver libraries at the kernel module's release; keep "
				 "this copy off LD_LIBRARY_PATH and out of ld.so.conf.");
		f = gt_finding_add(out, GT_F_DRIVER_MISMATCH, any_name_searched(s, c) ? GT_SEV_ERROR : GT_SEV_WARNING, NULL,
				   fix, "%s %s is not usable with the kernel module %s: %s [%s]", c->path, c->version,
				   s->kmod, why, host_where_label(c->where));
		copy_evidence(f, c, "driver copy:");
		gt_evidence_str(gt_evidence_add(f, "the kernel module is %s%s%s", s->kmod, s->gpus[0] ? ", GPUs: " : "",
						s->gpus), "kernel_module", s->kmod);
	}
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The folders a finding's evidence names (its "path" and "shadowed" keys),
 * sorted, each once, joined by ", ": the cause the finding points at. */
static char *folders_of(const struct gt_finding *f)
{
	const char *keys[] = { "path", "shadowed" };
	char *dirs[256], *joined = NULL;
	size_t i, k, n = 0, len = 1;
	json_t *e;

	json_array_foreach(f->evidence, i, e)
		for (k = 0; k < 2 && n < 256; k++) {
			const char *v = json_string_value(json_object_get(e, keys[k]));
			char d[PATH_MAX];

			if (!v)
				continue;
			folder_of(v, d, sizeof(d));
			dirs[n++] = gt_xstrdup(d);
		}
	qsort(dirs, n, sizeof(dirs[0]), by_string);
	joined = gt_xcalloc(1, 1);
	for (i = 0; i < n; i++) {
		if (i && strcmp(dirs[i], dirs[i - 1]) == 0)
			continue;
		len += strlen(dirs[i]) + 2;
		joined = gt_xrealloc(joined, len);
		if (*joined)
			strcat(joined, ", ");
		strcat(joined, dirs[i]);
	}
	for (i = 0; i < n; i++)
		free(dirs[i]);
	return joined;
}

/* One finding per cause: the per-name findings of one rule, added from
 * out->v[start] on, that point at the same folders (one stale folder hides
 * or doubles ten cuDNN parts) become one, whose first evidence lists the
 * names. */
static void merge_by_folders(struct gt_findings *out, size_t start, const struct per_name *names,
			     const char *what)
{
	size_t n = out->n - start, i, j, kept = start;
	char **sig = gt_xcalloc(n ? n : 1, sizeof(*sig));
	bool *gone = gt_xcalloc(n ? n : 1, sizeof(*gone));

	if (names->n != n) {  /* more names than note_name keeps: leave them as they are */
		free(sig);
		free(gone);
		return;
	}
	for (i = 0; i < n; i++)
		sig[i] = folders_of(&out->v[start + i]);
	for (i = 0; i < n; i++) {
		struct gt_finding *f = &out->v[start + i];
		json_t *list, *ev;
		size_t count = 1;

		if (gone[i])
			continue;
		list = json_array();
		json_array_append_new(list, json_string(names->v[i]));
		for (j = i + 1; j < n; j++) {
			struct gt_finding *g = &out->v[start + j];

			if (gone[j] || strcmp(sig[i], sig[j]) != 0)
				continue;
			gone[j] = true;
			count++;
			json_array_append_new(list, json_string(names->v[j]));
			json_array_extend(f->evidence, g->evidence);
			if (g->severity > f->severity)
				f->severity = g->severity;
			free(g->summary);
			free(g->fix);
			json_decref(g->evidence);
		}
		if (count > 1) {
			free(f->summary);
			if (asprintf(&f->summary, "%zu libraries, %s and %zu more: %s %s", count, names->v[i],
				     count - 1, what, sig[i]) < 0)
				abort();
			ev = gt_evidence_add(f, "names: %zu, all with their files in %s", count, sig[i]);
			json_object_set_new(ev, "names", list);
			/* the list first: the copies' items follow */
			json_array_insert(f->evidence, 0, ev);
			json_array_remove(f->evidence, json_array_size(f->evidence) - 1);
		} else {
			json_decref(list);
		}
		out->v[kept++] = *f;
	}
	out->n = kept;
	for (i = 0; i < n; i++)
		free(sig[i]);
	free(sig);
	free(gone);
}

void gt_scan_judge(const struct host_scan *s, struct gt_findings *out)
{
	static struct per_name names;
	size_t start;

	stubs(s, out);
	driver_copies(s, out);
	mixed(s, out);
	start = out->n;
	names.n = 0;
	shadowed(s, out, &names);
	merge_by_folders(out, start, &names, "LD_LIBRARY_PATH hides ld.so.cache's copies, in");
	start = out->n;
	names.n = 0;
	duplicates(s, out, &names);
	merge_by_folders(out, start, &names, "several copies on this host, in");
	refused(s, out);
}

/* Whether an object of --for's graph is a CUDA library or needs one by name. */
static bool touches_cuda(const struct host_scan_for_object *o)
{
	struct gt_family_info fi;

	if (o->path && gt_classify(o->path, &fi))
		return true;
	for (size_t k = 0; k < o->elf.nneeded; k++)
		if (gt_classify(o->elf.needed[k], &fi))
			return true;
	return false;
}

/* The predicted set of --for for the symbol check: the consumer, the CUDA
 * libraries and the objects that need one, each once (the symbols of libc
 * and the like cannot be missing from a CUDA provider, and reading them
 * costs more than the whole walk). malloc'd; 0 when none touches CUDA. */
static size_t predicted_scope(const struct host_scan_for *fr, const char ***scope)
{
	size_t i, n = 0;

	*scope = gt_xcalloc(fr->nobjects + 1, sizeof(**scope));
	for (i = 0; i < fr->nobjects && !touches_cuda(&fr->objects[i]); i++)
		;
	if (i == fr->nobjects)
		return 0;
	(*scope)[n++] = fr->consumer;
	for (i = 1; i < fr->nobjects; i++)
		if (fr->objects[i].path && !fr->objects[i].rtld && touches_cuda(&fr->objects[i]))
			(*scope)[n++] = fr->objects[i].path;
	return n;
}

static struct gt_finding *symbol_gap_finding(const struct gt_symbol_gap *g, size_t more, struct gt_findings *out)
{
	char others[64] = "";
	char fix[8192], ver[256] = "";
	struct gt_finding *f;
	json_t *e;

	if (g->version)
		snprintf(ver, sizeof(ver), ", version %s", g->version);
	if (g->good_copy)
		snprintf(fix, sizeof(fix), "Make the loader take %s, which has %s: remove the folder of %s from "
			 "LD_LIBRARY_PATH, or put the good copy's folder first.", g->good_copy, g->symbol, g->provider);
	else
		snprintf(fix, sizeof(fix), "Install the %s that %s was built against (one that defines %s).",
			 strrchr(g->provider, '/') + 1, strrchr(g->consumer, '/') + 1, g->symbol);
	if (more)
		snprintf(others, sizeof(others), " and %zu more", more);
	f = gt_finding_add(out, GT_F_MISSING_SYMBOL, GT_SEV_ERROR, NULL, fix,
			   "%s would fail to load: undefined symbol: %s%s%s: %s lacks %s",
			   strrchr(g->consumer, '/') + 1, g->symbol, ver, others, g->provider, more ? "them" : "it");
	e = gt_evidence_add(f, "%s needs %s%s", g->consumer, g->symbol, ver);
	gt_evidence_str(e, "symbol", g->symbol);
	gt_evidence_str(e, "symbol_version", g->version);
	gt_evidence_str(e, "consumer", g->consumer);
	e = gt_evidence_add(f, "provider the loader would take: %s, which does not define it", g->provider);
	gt_evidence_str(e, "path", g->provider);
	gt_evidence_str(e, "role", "provider");
	if (g->good_copy)
		gt_evidence_str(gt_evidence_add(f, "a copy that has it: %s", g->good_copy), "good_copy", g->good_copy);
	return f;
}

/* A symbol more of one consumer and provider, on the finding of the first. */
static void more_symbol(struct gt_finding *f, const struct gt_symbol_gap *g)
{
	json_t *e = gt_evidence_add(f, "%s needs %s%s%s too", g->consumer, g->symbol, g->version ? ", version " : "",
				    g->version ? g->version : "");

	gt_evidence_str(e, "symbol", g->symbol);
	gt_evidence_str(e, "symbol_version", g->version);
	gt_evidence_str(e, "consumer", g->consumer);
}


static bool same_pair(const struct gt_symbol_gap *a, const struct gt_symbol_gap *b)
{
	return strcmp(a->consumer, b->consumer) == 0 && strcmp(a->provider, b->provider) == 0;
}

/* The report's missing-symbol check, on paper: what each predicted object
 * needs from a predicted CUDA provider that lacks it. */
static void missing_symbols(const struct host_scan_for *fr, struct gt_findings *out)
{
	struct gt_sym_question q = { .ld_library_path = fr->env.ld_library_path };
	struct gt_symbol_gap *gaps = NULL;
	const char **scope;
	size_t i, ngaps = 0;

	q.nscope = q.nconsumers = predicted_scope(fr, &scope);
	q.scope = q.consumers = scope;
	if (q.nscope > 1)
		gt_facts_symbol_gaps(gt_facts_here(), &q, &gaps, &ngaps);
	free(scope);
	/* One finding per consumer and provider: a stale provider lacks
	 * hundreds of symbols, and that is one cause. */
	for (i = 0; i < ngaps; i++) {
		size_t k, more = 0, shown = 0;
		struct gt_finding *f;

		if (!gaps[i].symbol)
			continue;
		for (k = i + 1; k < ngaps; k++)
			more += gaps[k].symbol && same_pair(&gaps[i], &gaps[k]);
		f = symbol_gap_finding(&gaps[i], more, out);
		for (k = i + 1; k < ngaps; k++) {
			if (!gaps[k].symbol || !same_pair(&gaps[i], &gaps[k]))
				continue;
			if (shown++ < 16)  /* the first ones: enough to recognise the release */
				more_symbol(f, &gaps[k]);
			free(gaps[k].symbol);
			gaps[k].symbol = NULL;
		}
	}
	gt_symbol_gaps_free(gaps, ngaps);
}

static void e_part(struct gt_finding *f, const char *path, const struct gt_family_info *fi)
{
	json_t *e = gt_evidence_add(f, "the loader would take %s: %s %s", path, fi->component, fi->version);

	gt_evidence_str(e, "path", path);
	gt_evidence_str(e, "component", fi->component);
	gt_evidence_str(e, "version", fi->version);
}

/* A predicted winner's family and fullest version: from its real file's
 * name, else from what the file carries. */
static bool winner_version(const char *path, struct gt_family_info *fi)
{
	char real[PATH_MAX], v[sizeof(fi->version)];
	struct gt_host_facts *here;

	/* the name the loader took says the family already: nothing more to ask for libc */
	if (!gt_classify(path, fi))
		return false;
	here = gt_facts_here();
	if (!gt_facts_real_path(here, path, real, sizeof(real)) || !gt_classify(real, fi))
		return false;
	if (!strchr(fi->version, '.') && gt_facts_embedded_version(here, real, fi->component, v, sizeof(v)))
		snprintf(fi->version, sizeof(fi->version), "%s", v);
	return true;
}

/* The report's version rules on the predicted set: parts of one cuDNN or
 * cuBLAS from different releases (mixed-versions), two majors of the CUDA
 * runtime (cuda-major-mismatch). One finding per family. */
static void predicted_versions(const struct host_scan_for *fr, struct gt_findings *out)
{
	struct gt_family_info a, b;
	char ka[32], kb[32], fam_done[8][16];
	size_t i, k, ndone = 0, d;

	for (i = 0; i < fr->n; i++) {
		const struct host_resolution *ri = &fr->items[i].res;

		if (ri->winner < 0 || !winner_version(ri->cand[ri->winner].path, &a))
			continue;
		for (d = 0; d < ndone && strcmp(fam_done[d], a.family); d++)
			;
		if (d < ndone)
			continue;
		gt_version_key(a.version, ka, sizeof(ka));
		for (k = i + 1; k < fr->n; k++) {
			const struct host_resolution *rk = &fr->items[k].res;
			bool mixed_release, majors;
			struct gt_finding *f;

			if (rk->winner < 0 || !winner_version(rk->cand[rk->winner].path, &b) ||
			    strcmp(a.family, b.family) || !*ka)
				continue;
			gt_version_key(b.version, kb, sizeof(kb));
			majors = strcmp(a.family, "cudart") == 0 && gt_version_major(ka) >= 0 &&
				 gt_version_major(kb) >= 0 && gt_version_major(ka) != gt_version_major(kb);
			mixed_release = (strcmp(a.family, "cudnn") == 0 || strcmp(a.family, "cublas") == 0) &&
					strchr(ka, '.') && strchr(kb, '.') && !gt_same_release(ka, kb);
			if (!majors && !mixed_release)
				continue;
			f = gt_finding_add(out, majors ? GT_F_CUDA_MAJOR_MISMATCH : GT_F_MIXED_VERSIONS, GT_SEV_ERROR, NULL,
					   "Make the loader take one release for every part: remove the stale "
					   "copy's folder from LD_LIBRARY_PATH, or reinstall the library.",
					   "for %s, the loader would take %s %s and %s %s", fr->consumer, a.component,
					   ka, b.component, kb);
			e_part(f, ri->cand[ri->winner].path, &a);
			e_part(f, rk->cand[rk->winner].path, &b);
			if (ndone < 8)
				snprintf(fam_done[ndone++], sizeof(fam_done[0]), "%s", a.family);
			break;
		}
	}
}

bool gt_scan_for_expected_miss(const struct host_resolution *r)
{
	const char *so = strstr(r->name, ".so.");

	return strncmp(r->name, "libcudnn_", 9) == 0 && so && strchr(so + 4, '.');
}

/* Where the loader looked for a missing name: a line per place (each once)
 * and, on the requester's item, the "tried" list in the loader's order. */
static void tried_evidence(struct gt_finding *f, json_t *on, const struct host_resolution *r)
{
	json_t *tried = json_array();
	size_t k, j;

	for (k = 0; k < r->ncand; k++) {
		json_t *t = json_object();

		gt_evidence_str(t, "path", r->cand[k].path);
		json_object_set_new(t, "rule", json_string(gt_rule_name(r->cand[k].rule)));
		json_array_append_new(tried, t);
		for (j = 0; j < k && strcmp(r->cand[j].path, r->cand[k].path); j++)
			;
		if (j == k)
			gt_evidence_add(f, "tried %s [%s]", r->cand[k].path, gt_rule_name(r->cand[k].rule));
	}
	json_object_set_new(on, "tried", tried);
}

/* A name the consumer needs, anywhere in what it loads, that the loader would
 * not find (or would refuse, in its words): the program (or the runtime, for
 * libcuda.so.1) fails to start or to reach the GPU, so the verdict cannot be
 * ok. cuDNN's sub-libraries are loaded when first used, and a preload the
 * loader cannot find is ignored with a message: warnings. A name missing for
 * several requesters is one finding (the loader searches it once). */
static void not_found(const struct host_scan_for *fr, bool beyond_cuda, struct gt_findings *out)
{
	struct gt_family_info fi;
	struct gt_finding *f;
	json_t *e;
	size_t i;

	for (i = 0; i < fr->n; i++) {
		const struct host_scan_for_item *it = &fr->items[i];
		const struct host_resolution *r = &it->res;
		bool driver = strcmp(r->name, "libcuda.so.1") == 0, sub = strncmp(r->name, "libcudnn_", 9) == 0;
		bool preload = it->how == HOST_FOR_PRELOAD, warn = sub || preload;
		const char *bad = r->stop_reason && r->ncand ? r->cand[r->ncand - 1].path : NULL;

		if (it->again || r->winner >= 0 || gt_scan_for_expected_miss(r))
			continue;
		/* the trace's rules judge a CUDA name the loader did not find */
		if (beyond_cuda && !bad && gt_classify(r->name, &fi))
			continue;
		if (bad)
			f = gt_finding_add(out, GT_F_LIBRARY_NOT_FOUND, warn ? GT_SEV_WARNING : GT_SEV_ERROR, NULL,
					   "Replace the broken file (reinstall the package that owns it), or put a "
					   "good copy in a folder searched before it.",
					   "for %s, %s (needed by %s) would stop the loader: %s: %s", fr->consumer,
					   r->name, r->requester, bad, r->stop_reason);
		else
			f = gt_finding_add(out, GT_F_LIBRARY_NOT_FOUND, warn ? GT_SEV_WARNING : GT_SEV_ERROR, NULL,
					   driver ? "Install the NVIDIA driver: libcuda.so.1 comes with it, never with the "
						    "toolkit (in a container: docker run --gpus all)." :
					   preload ? "Fix LD_PRELOAD: the loader ignores this name, with an error message." :
						     "Install the library, or add the folder that holds it to LD_LIBRARY_PATH "
						     "for this program.",
					   "for %s, %s is not found (%s %s%s; %zu places tried)", fr->consumer, r->name,
					   driver ? "the CUDA runtime" : sub ? "cuDNN" : preload ? "LD_PRELOAD of" : "needed by",
					   r->requester, driver ? " loads it at start" : sub ? " loads it when used" : "",
					   r->ncand);
		e = gt_evidence_add(f, "%s is asked for by %s", r->name, r->requester);
		gt_evidence_str(e, "name", r->name);
		gt_evidence_str(e, "requester", r->requester);
		if (bad)
			gt_evidence_str(gt_evidence_add(f, "the loader's error: %s: %s", bad, r->stop_reason),
					"reason", r->stop_reason);
		tried_evidence(f, e, r);
		for (size_t k = i + 1; k < fr->n; k++)
			if (fr->items[k].again && fr->items[k].object == it->object && fr->items[k].res.winner < 0)
				gt_evidence_str(gt_evidence_add(f, "%s is asked for by %s too", r->name,
								fr->items[k].res.requester),
						"requester", fr->items[k].res.requester);
	}
}

/* With --for: LD_LIBRARY_PATH beating a copy in the consumer's own search
 * path is the leftover-library case of the report, seen before the crash;
 * and a provider that lacks a symbol the consumer needs. */
void gt_scan_for_judge_loader(const struct host_scan_for *fr, struct gt_findings *out)
{
	not_found(fr, true, out);
}

void gt_scan_for_judge(const struct host_scan_for *fr, struct gt_findings *out)
{
	not_found(fr, false, out);
	missing_symbols(fr, out);
	predicted_versions(fr, out);
	struct gt_finding *f;
	size_t i, k;

	for (i = 0; i < fr->n; i++) {
		const struct host_resolution *r = &fr->items[i].res;

		if (r->winner < 0 || !r->nshadowed || r->cand[r->winner].rule != GT_RULE_LD_LIBRARY_PATH)
			continue;
		f = gt_finding_add(out, GT_F_SHADOWED_LIBRARY, GT_SEV_WARNING, NULL,
				   "Remove that folder from LD_LIBRARY_PATH for this program, or delete the "
				   "stale copy.",
				   "for %s, %s comes from LD_LIBRARY_PATH: %s", fr->consumer, r->name,
				   r->cand[r->winner].path);
		for (k = 0; k < r->nshadowed; k++)
			gt_evidence_str(gt_evidence_add(f, "%s wins over %s", r->cand[r->winner].path,
							r->shadowed[k]), "shadowed", r->shadowed[k]);
	}
}

int gt_scan_status(const struct gt_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->v[i].severity == GT_SEV_ERROR)
			return 1;
	return 0;
}
