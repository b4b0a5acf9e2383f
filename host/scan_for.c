/* gputrace scan --for: the loader's work for one program, on paper
 * (scan_for.h): glibc 2.36's dl_main (preloads), _dl_map_object_deps (the
 * breadth-first walk) and _dl_map_object (names already loaded, the RPATH
 * chain of first loaders), with host_resolve_chain for each search. */
#define _GNU_SOURCE
#include "common/xalloc.h"
#include "host/scan_for.h"

#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/family.h"
#include "host/package.h"

#if defined(__x86_64__)
#define RTLD_DEFAULT_PATH "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define RTLD_DEFAULT_PATH "/lib/ld-linux-aarch64.so.1"
#endif
#define PRELOAD_FILE "/etc/ld.so.preload"
#define MAX_CHAIN 4096

/* ---- objects ---- */

static void add_name(struct host_scan_for_object *o, const char *name)
{
	for (size_t i = 0; i < o->nnames; i++)
		if (strcmp(o->names[i], name) == 0)
			return;
	o->names = gt_xrealloc(o->names, (o->nnames + 1) * sizeof(*o->names));
	o->names[o->nnames++] = gt_xstrdup(name);
}

static long new_object(struct host_scan_for *fr, const char *path, const char *name, long loader,
		       enum host_for_how how)
{
	struct host_scan_for_object *o;

	fr->objects = gt_xrealloc(fr->objects, (fr->nobjects + 1) * sizeof(*fr->objects));
	o = &fr->objects[fr->nobjects];
	memset(o, 0, sizeof(*o));
	o->path = path ? gt_xstrdup(path) : NULL;
	o->name = gt_xstrdup(name);
	o->loader = loader;
	o->depth = loader >= 0 ? fr->objects[loader].depth + 1 : 0;
	o->how = how;
	if (name[0])
		add_name(o, name);
	if (path && loader >= 0)
		host_elf_load_read(path, true, &o->elf);
	if (o->elf.soname)
		add_name(o, o->elf.soname);
	return (long)fr->nobjects++;
}

/* _dl_name_match_p, then the SONAME: the object already loaded under name. */
static long loaded_as(const struct host_scan_for *fr, const char *name)
{
	for (size_t i = 0; i < fr->nobjects; i++) {
		const struct host_scan_for_object *o = &fr->objects[i];

		if (o->path && i > 0 && strcmp(o->path, name) == 0)
			return (long)i;
		for (size_t k = 0; k < o->nnames; k++)
			if (strcmp(o->names[k], name) == 0)
				return (long)i;
	}
	return -1;
}

/* The object already loaded from the same file (the loader compares device
 * and inode after it opened one), or -1. */
static long same_file(const struct host_scan_for *fr, const char *path)
{
	struct stat st, ost;

	if (stat(path, &st) != 0)
		return -1;
	for (size_t i = 0; i < fr->nobjects; i++) {
		const struct host_scan_for_object *o = &fr->objects[i];

		if (o->path && o->elf.ino ? o->elf.ino == st.st_ino && o->elf.dev == st.st_dev :
		    o->path && stat(o->path, &ost) == 0 && ost.st_ino == st.st_ino && ost.st_dev == st.st_dev)
			return (long)i;
	}
	return -1;
}

/* ---- one request ---- */

/* The requester and its first loaders up to the program: the RPATH chain. */
static size_t chain_of(const struct host_scan_for *fr, long requester, struct host_search_object *chain)
{
	size_t n = 0;

	for (long i = requester; i >= 0 && n < MAX_CHAIN; i = fr->objects[i].loader) {
		const struct host_scan_for_object *o = &fr->objects[i];

		chain[n++] = (struct host_search_object){ .path = o->path, .rpath = o->elf.rpath,
							   .runpath = o->elf.runpath, .is_main = i == 0,
							   .nodeflib = (o->elf.flags_1 & DF_1_NODEFLIB) != 0 };
	}
	return n;
}

static struct host_scan_for_item *new_item(struct host_scan_for *fr, long requester, enum host_for_how how)
{
	struct host_scan_for_item *it;

	fr->items = gt_xrealloc(fr->items, (fr->n + 1) * sizeof(*fr->items));
	it = &fr->items[fr->n++];
	memset(it, 0, sizeof(*it));
	it->depth = fr->objects[requester].depth;
	it->how = how;
	it->object = -1;
	return it;
}

/* A name answered by an object already loaded (or already missing). */
static void answered_by(struct host_scan_for *fr, struct host_scan_for_item *it, const char *name, long requester,
			long obj)
{
	const struct host_scan_for_object *o = &fr->objects[obj];

	it->again = true;
	it->object = obj;
	it->res.name = gt_xstrdup(name);
	it->res.requester = gt_xstrdup(fr->objects[requester].path);
	it->res.winner = -1;
	if (!o->path)
		return;
	it->res.cand = gt_xcalloc(1, sizeof(*it->res.cand));
	it->res.cand[0] = (struct host_candidate){ .path = gt_xstrdup(o->path), .exists = true, .usable = true,
						   .rule = o->how == HOST_FOR_PRELOAD ? GT_RULE_PRELOAD :
										 GT_RULE_ALREADY_LOADED };
	it->res.ncand = 1;
	it->res.winner = 0;
}

/* In secure mode a preloaded object must carry the set-user-ID bit. */
static bool secure_preload_refused(const struct host_scan_for *fr, const struct host_resolution *r)
{
	struct stat st;

	return fr->secure && r->winner >= 0 &&
	       (stat(r->cand[r->winner].path, &st) != 0 || !(st.st_mode & S_ISUID));
}

/* The loader's _dl_map_object for name, asked by requester: the item, and
 * the object that answers it (a new one when the search found a new file). */
static const struct host_scan_for_item *request(struct host_scan_for *fr, const char *name, long requester,
						enum host_for_how how)
{
	struct host_search_object chain[64], *big = NULL, *c = chain;
	struct host_scan_for_item *it;
	long known = loaded_as(fr, name), obj;
	size_t n;

	it = new_item(fr, requester, how);
	if (known >= 0) {
		if (how != HOST_FOR_PRELOAD)
			fr->objects[known].listed = true;
		answered_by(fr, it, name, requester, known);
		return it;
	}
	if (fr->objects[requester].depth >= 63)
		c = big = gt_xcalloc(MAX_CHAIN, sizeof(*big));
	n = chain_of(fr, requester, c);
	host_resolve_chain(name, c, n, &fr->env, &it->res);
	free(big);
	if (how == HOST_FOR_PRELOAD && secure_preload_refused(fr, &it->res)) {
		it->res.winner = -1;
		return it;
	}
	if (it->res.winner < 0) {
		if (it->res.stop_reason && fr->fatal < 0)
			fr->fatal = (long)(it - fr->items);
		/* the loader lists a missing name once: later requests find it "not found" */
		it->object = new_object(fr, NULL, name, requester, how);
		fr->objects[it->object].listed = how != HOST_FOR_PRELOAD;
		return it;
	}
	obj = same_file(fr, it->res.cand[it->res.winner].path);
	if (obj < 0)
		obj = new_object(fr, it->res.cand[it->res.winner].path, name, requester, how);
	else
		add_name(&fr->objects[obj], name);
	fr->objects[obj].listed = true;
	it = &fr->items[fr->n - 1];
	it->object = obj;
	return it;
}

/* ---- the walk ---- */

/* The DT_NEEDED names of objects[from ..], breadth-first: every object's
 * names in order, each new object queued behind the ones already there. */
static void walk_needed(struct host_scan_for *fr, size_t from, enum host_for_how how)
{
	for (size_t q = from; q < fr->nobjects; q++) {
		if (!fr->objects[q].path || fr->objects[q].rtld)
			continue;
		for (size_t k = 0; k < fr->objects[q].elf.nneeded; k++) {
			char *name = gt_xstrdup(fr->objects[q].elf.needed[k]);

			request(fr, name, (long)q, how);
			free(name);
		}
	}
}

/* The loader itself, loaded before anything: it answers to PT_INTERP's path
 * (or the built-in one) and to its SONAME, so libc's need of it is no search. */
static void add_rtld(struct host_scan_for *fr)
{
	const char *interp = fr->objects[0].elf.interp ? fr->objects[0].elf.interp : RTLD_DEFAULT_PATH;
	long i = new_object(fr, interp, interp, -1, HOST_FOR_NEEDED);
	struct host_scan_for_object *o = &fr->objects[i];

	o->rtld = true;
	o->depth = 1;
	host_elf_load_read(interp, true, &o->elf);
	if (o->elf.soname)
		add_name(o, o->elf.soname);
}

/* One preload list: names between separators, in order. */
static void preload_list(struct host_scan_for *fr, const char *list, const char *separators)
{
	char *copy = gt_xstrdup(list), *save = NULL, *name;

	for (name = strtok_r(copy, separators, &save); name; name = strtok_r(NULL, separators, &save)) {
		/* secure mode: only names without a slash (dso_name_valid_for_suid) */
		if (fr->secure && strchr(name, '/'))
			continue;
		request(fr, name, 0, HOST_FOR_PRELOAD);
	}
	free(copy);
}

static void preloads(struct host_scan_for *fr)
{
	const char *env = getenv("LD_PRELOAD");
	char buf[8192];
	size_t len;
	FILE *f;

	if (env && *env)
		preload_list(fr, env, " :");
	f = fopen(PRELOAD_FILE, "re");
	if (!f)
		return;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	fclose(f);
	preload_list(fr, buf, " \t\n:");
}

/* ---- what CUDA loads by name ---- */

static const char *winner_of(const struct host_scan_for_item *it)
{
	return it->res.winner >= 0 ? it->res.cand[it->res.winner].path : NULL;
}

/* cuDNN loads its sub-libraries by name, the most specific name first:
 * libcudnn_graph.so.9.19.0, .9.19, .9 (as the traces of real runs show). */
static void cudnn_sublibraries(struct host_scan_for *fr, long cudnn, const char *version)
{
	static const char *const subs9[] = { "graph", "engines_precompiled", "engines_runtime_compiled",
					     "heuristic", "ops", "cnn", "adv", NULL };
	static const char *const subs8[] = { "ops_infer", "ops_train", "cnn_infer", "cnn_train",
					     "adv_infer", "adv_train", NULL };
	const char *const *subs = gt_version_major(version) >= 9 ? subs9 : subs8;
	char v[32], names[3][128];
	const char *dot;
	int k, j;

	gt_version_key(version, v, sizeof(v));
	for (k = 0; subs[k]; k++) {
		snprintf(names[0], sizeof(names[0]), "libcudnn_%s.so.%s", subs[k], v);
		dot = strrchr(v, '.');
		snprintf(names[1], sizeof(names[1]), "libcudnn_%s.so.%.*s", subs[k],
			 dot ? (int)(dot - v) : (int)strlen(v), v);
		snprintf(names[2], sizeof(names[2]), "libcudnn_%s.so.%d", subs[k], gt_version_major(v));
		for (j = 0; j < 3; j++) {
			if (j && strcmp(names[j], names[j - 1]) == 0)
				continue;
			if (winner_of(request(fr, names[j], cudnn, HOST_FOR_DLOPEN)))
				break;
		}
	}
}

/* The runtime loads the driver by name when it starts; cuDNN its parts. */
static void cuda_dlopens(struct host_scan_for *fr, long obj)
{
	const char *path = fr->objects[obj].path;
	struct gt_family_info fi, rfi;
	struct host_package pkg;
	char real[PATH_MAX];
	const char *v;

	if (!path || !gt_classify(path, &fi))
		return;
	if (strcmp(fi.component, "cudart") == 0)
		request(fr, "libcuda.so.1", obj, HOST_FOR_DLOPEN);
	if (strcmp(fi.component, "cudnn") != 0 || !realpath(path, real))
		return;
	v = gt_classify(real, &rfi) && strchr(rfi.version, '.') ? rfi.version :
	    host_package_of(path, &pkg) ? pkg.version : fi.version;
	cudnn_sublibraries(fr, obj, v);
}

/* ---- the program ---- */

/* A set-user-ID (set-group-ID) program runs in secure mode when it changes
 * this user's (group's) identity: the kernel's AT_SECURE. */
static bool runs_secure(const struct host_elf_load *prog)
{
	return ((prog->mode & S_ISUID) && prog->uid != getuid()) ||
	       ((prog->mode & S_ISGID) && (prog->mode & S_IXGRP) && prog->gid != getgid());
}

struct host_scan_for *host_scan_for_run(const char *consumer, const struct host_scan *s)
{
	struct host_scan_for *fr = gt_xcalloc(1, sizeof(*fr));
	struct host_scan_for_object *prog;
	size_t startup, i;
	long p;

	fr->consumer = consumer;
	fr->fatal = -1;
	p = new_object(fr, consumer, "", -1, HOST_FOR_NEEDED);
	prog = &fr->objects[p];
	host_elf_load_program(consumer, &prog->elf);
	if (prog->elf.soname)
		add_name(prog, prog->elf.soname);
	fr->secure = runs_secure(&prog->elf);
	fr->env.ld_library_path = getenv("LD_LIBRARY_PATH");
	fr->env.cache = s->have_cache ? &s->cache : NULL;
	fr->env.secure = fr->secure;
	/* the shadowed copies matter only where LD_LIBRARY_PATH can win */
	fr->env.winner_only = !fr->env.ld_library_path || !*fr->env.ld_library_path || fr->secure;
	add_rtld(fr);
	preloads(fr);
	walk_needed(fr, 0, HOST_FOR_NEEDED);
	startup = fr->nobjects;
	for (i = 0; i < startup; i++) {
		size_t before = fr->nobjects;

		cuda_dlopens(fr, (long)i);
		walk_needed(fr, before, HOST_FOR_DLOPEN);
	}
	return fr;
}

void host_scan_for_free(struct host_scan_for *fr)
{
	size_t i;

	for (i = 0; fr && i < fr->n; i++)
		host_resolution_free(&fr->items[i].res);
	for (i = 0; fr && i < fr->nobjects; i++) {
		struct host_scan_for_object *o = &fr->objects[i];

		free(o->path);
		free(o->name);
		host_free_strings(o->names, o->nnames);
		host_elf_load_free(&o->elf);
	}
	if (fr) {
		free(fr->items);
		free(fr->objects);
	}
	free(fr);
}
