/* Loads the loader undid, and searches cut off by the process's death (see
 * failed_load.h). */
#define _GNU_SOURCE
#include "read/failed_load.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/family.h"
#include "common/xalloc.h"
#include "host/elf_info.h"
#include "host/package.h"

/* ---- a search the process died in ---- */

/* The program's last search, if nothing concluded it and the process did
 * not exit cleanly: the loader's exit 127, a crash right after a dlopen. */
static struct gt_search *open_last_search(struct gt_process *p)
{
	struct gt_search *s = p->nsearches ? &p->searches[p->nsearches - 1] : NULL;

	return s && !s->result && !s->ours && !p->clean_end ? s : NULL;
}

/* Concludes it as not found when the loader's search, done on paper with
 * the process's environment, finds nothing either: the tries are the
 * paper's. If the paper finds a file, the trace cannot say, and the search
 * is left open. */
static void conclude_cut_off(struct gt_process *p, struct gt_host_facts *facts)
{
	struct gt_search *s = open_last_search(p);
	const char *loaders[1] = { p->exe };
	bool by_program;
	struct host_resolution r;
	size_t i;

	if (!s || !s->requester)
		return;
	by_program = p->exe && strcmp(s->requester, p->exe) == 0;
	gt_facts_resolve(facts, s->name, s->requester, by_program ? NULL : loaders, by_program ? 0 : 1,
			 gt_process_env(p, "LD_LIBRARY_PATH"), &r);
	if (r.winner < 0 && !r.stop_reason) {
		s->cut_off = true;
		s->result = gt_xstrdup(GT_RESULT_NOT_FOUND);
		s->tries = gt_xcalloc(r.ncand ? r.ncand : 1, sizeof(*s->tries));
		for (i = 0; i < r.ncand; i++) {
			s->tries[i].path = gt_xstrdup(r.cand[i].path);
			s->tries[i].rule = r.cand[i].rule;
		}
		s->ntries = r.ncand;
	}
	host_resolution_free(&r);
}

/* ---- a run of closes that was an undone load ---- */

static bool in_list(char **v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return true;
	return false;
}

/* A DT_NEEDED of the object at path that the trace's search did not find:
 * the load of that object cannot have succeeded. */
static bool not_found_by(const struct gt_process *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nsearches; i++)
		if (!p->searches[i].ours && p->searches[i].result && p->searches[i].requester &&
		    strcmp(p->searches[i].result, GT_RESULT_NOT_FOUND) == 0 &&
		    strcmp(p->searches[i].requester, path) == 0)
			return true;
	return false;
}

static const struct gt_search *needed_not_found(const struct gt_process *p, struct gt_host_facts *facts,
					       const char *path)
{
	struct host_elf_info info = { 0 };
	const struct gt_search *found = NULL;
	size_t i;

	if (!not_found_by(p, path) || !gt_facts_elf(facts, path, &info)) {
		host_elf_free(&info);
		return NULL;
	}
	for (i = 0; i < p->nsearches && !found; i++) {
		const struct gt_search *s = &p->searches[i];

		if (!s->ours && s->result && strcmp(s->result, GT_RESULT_NOT_FOUND) == 0 && s->requester &&
		    strcmp(s->requester, path) == 0 && in_list(info.needed, info.nneeded, s->name))
			found = s;
	}
	host_elf_free(&info);
	return found;
}

static void scope_add(struct gt_failed_load *fl, const char *path)
{
	if (!path || path[0] != '/')
		return;
	fl->scope = gt_xrealloc(fl->scope, (fl->nscope + 1) * sizeof(*fl->scope));
	fl->scope[fl->nscope++] = path;
}

/* Objects that could bind the symbols of burst b's objects: those mapped in
 * its namespace up to its last one and not unmapped before it. */
static void build_scope(const struct gt_process *p, unsigned long b, struct gt_failed_load *fl)
{
	size_t i, last = 0;
	long ns = -1;

	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].close_burst == b) {
			last = i;
			ns = p->objects[i].ns;
		}
	for (i = 0; i <= last && ns >= 0; i++) {
		const struct gt_object *ob = &p->objects[i];

		if (ob->ns == ns && (!ob->close_burst || ob->close_burst >= b))
			scope_add(fl, ob->path);
	}
}

static void describe_object(struct gt_host_facts *facts, const struct gt_object *ob, struct gt_failed_object *fo)
{
	struct gt_family_info fi, rfi;
	struct host_package pkg;
	struct host_elf_info info = { 0 };
	char real[PATH_MAX];

	memset(fo, 0, sizeof(*fo));
	fo->obj = ob;
	fo->found_by = ob->rule;
	if ((fo->found_by == GT_RULE_RPATH || fo->found_by == GT_RULE_RUNPATH) && ob->requester &&
	    gt_facts_elf(facts, ob->requester, &info))
		fo->found_by = info.runpath ? GT_RULE_RUNPATH : GT_RULE_RPATH;
	host_elf_free(&info);
	if (!gt_classify(ob->path, &fi))
		return;
	fo->family = fi.family;
	if (gt_facts_real_path(facts, ob->path, real, sizeof(real)) && gt_classify(real, &rfi) &&
	    strchr(rfi.version, '.'))
		snprintf(fo->version, sizeof(fo->version), "%s", rfi.version);
	else if (gt_facts_package(facts, ob->path, &pkg))
		snprintf(fo->version, sizeof(fo->version), "%s", pkg.version);
	else
		snprintf(fo->version, sizeof(fo->version), "%s", fi.version);
}

/* The objects of burst b, in load order; the first is what was asked for. */
static void take_objects(const struct gt_process *p, struct gt_host_facts *facts, unsigned long b,
			 struct gt_failed_load *fl)
{
	size_t i;

	for (i = 0; i < p->nobjects; i++) {
		if (p->objects[i].close_burst != b)
			continue;
		fl->objects = gt_xrealloc(fl->objects, (fl->nobjects + 1) * sizeof(*fl->objects));
		describe_object(facts, &p->objects[i], &fl->objects[fl->nobjects++]);
	}
	fl->name = fl->objects[0].obj->name ? fl->objects[0].obj->name : fl->objects[0].obj->path;
	fl->requester = fl->objects[0].obj->requester;
}

static void free_load(struct gt_failed_load *fl)
{
	gt_symbol_gaps_free(fl->gaps, fl->ngaps);
	free(fl->scope);
	free(fl->objects);
}

/* Could burst b be a dlopen the loader undid? The loader maps, relocates
 * and, on failure, unmaps one dlopen's new objects under its load lock, so
 * those objects are the newest ones mapped, and all of them go: an object
 * mapped after the burst's first one and still there after it says the
 * burst was a dlclose (a CUDA library closed at exit, after the framework
 * loaded others: 2.2 ms of symbol tables for every import torch on the
 * H200, bench/README.md section 17). Only a load that cannot have been
 * undone is left out: none is judged undone that was not before. */
static bool closes_newest(const struct gt_process *p, unsigned long b)
{
	size_t i, first = p->nobjects, mapped = 0;

	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].close_burst == b) {
			if (first == p->nobjects)
				first = i;
			if (p->objects[i].mapped_at_close > mapped)
				mapped = p->objects[i].mapped_at_close;
		}
	for (i = first; i < mapped && i < p->nobjects; i++)
		if (p->objects[i].close_burst != b && !p->objects[i].from_linkmap)
			return false;
	return true;
}

/* Only a CUDA library, a plug-in or an object that needs one is judged (its
 * versioned needs of any file, a CUDA library's unversioned ones), and only
 * one with a DT_NEEDED that was not found lacks a dependency: other runs of closes are plain dlcloses, and
 * reading every symbol table of the scope for each would make a program that
 * loads and unloads a library in a loop quadratic. */
static bool worth_judging(const struct gt_process *p, struct gt_host_facts *facts, unsigned long b)
{
	struct host_elf_info info = { 0 };
	struct gt_family_info fi;
	bool worth = false, readable;
	size_t i, k;

	for (i = 0; i < p->nobjects && !worth; i++) {
		if (p->objects[i].close_burst != b)
			continue;
		readable = gt_facts_elf(facts, p->objects[i].path, &info);
		/* A CUDA library or plug-in itself (a TensorRT plug-in, libtorch_cuda.so),
		 * or a consumer of one. */
		worth = gt_classify_any(p->objects[i].path, &fi);
		for (k = 0; readable && k < info.nneeded && !worth; k++)
			worth = gt_classify_any(info.needed[k], &fi);
		host_elf_free(&info);
		worth = worth || (readable && needed_not_found(p, facts, p->objects[i].path));
	}
	return worth;
}

/* The symbols the consumers (among fl's scope) need that the scope lacks,
 * into fl->gaps: a question of facts about the files. */
static void symbol_gaps(const struct gt_process *p, struct gt_host_facts *facts, struct gt_failed_load *fl,
			const char *const *consumers, size_t nconsumers, bool load_failed)
{
	struct gt_sym_question q = {
		.scope = fl->scope,
		.nscope = fl->nscope,
		.consumers = consumers,
		.nconsumers = nconsumers,
		.load_failed = load_failed,
		.ld_library_path = gt_process_env(p, "LD_LIBRARY_PATH"),
	};

	gt_facts_symbol_gaps(facts, &q, &fl->gaps, &fl->ngaps);
}

/* Did Python ask for this load: the interpreter (an import: python3.12,
 * or libpython3.12.so where it is built shared) or ctypes
 * (_ctypes.cpython-312-x86_64-linux-gnu.so)? Such a load is RTLD_NOW:
 * ctypes always adds it, and import takes sys.getdlopenflags(), RTLD_NOW
 * unless a program changes it; and Python never unloads what it loaded
 * (an extension module stays, a ctypes handle is closed only through
 * _ctypes.dlclose, which no framework calls). So a run of closes of such a
 * load is the loader undoing it, and a reference its objects left unbound
 * is why (pytorch's "undefined symbol: ncclCommRegister" on import,
 * vllm-project/vllm#4195). */
static bool requested_by_python(const char *requester)
{
	const char *base = requester ? strrchr(requester, '/') : NULL;

	if (!base)
		return false;
	base++;
	if (strncmp(base, "python", 6) == 0)
		return base[6 + strspn(base + 6, "0123456789.")] == 0;
	return (strncmp(base, "libpython", 9) == 0 && strstr(base, ".so")) ||
	       (strncmp(base, "_ctypes.", 8) == 0 && strstr(base, ".so"));
}

/* Burst b, if the proof says its load failed. */
static bool judge_burst(const struct gt_process *p, struct gt_host_facts *facts, unsigned long b,
			struct gt_failed_load *fl)
{
	const char **consumers;
	size_t i;

	memset(fl, 0, sizeof(*fl));
	if (!closes_newest(p, b) || !worth_judging(p, facts, b))
		return false;
	take_objects(p, facts, b, fl);
	if (!fl->nobjects)
		return false;
	build_scope(p, b, fl);
	consumers = gt_xcalloc(fl->nobjects, sizeof(*consumers));
	for (i = 0; i < fl->nobjects; i++) {
		if (!fl->missing)
			fl->missing = needed_not_found(p, facts, fl->objects[i].obj->path);
		consumers[i] = fl->objects[i].obj->path ? fl->objects[i].obj->path : "";
	}
	symbol_gaps(p, facts, fl, consumers, fl->nobjects, requested_by_python(fl->requester));
	free(consumers);
	if (fl->ngaps || fl->missing)
		return true;
	free_load(fl);
	return false;
}

/* A start-up the loader gave up on: the audit half saw objects mapped, the
 * main namespace never reached its first consistent state (no
 * startup_loaded note), and the process ended without exiting normally (the
 * loader's "symbol lookup error", exit 127). Judged like an undone load:
 * on proof from the symbol tables, over every object mapped so far. */
static bool judge_startup(const struct gt_process *p, struct gt_host_facts *facts, struct gt_failed_load *fl)
{
	size_t i;

	memset(fl, 0, sizeof(*fl));
	if (!p->audit_seen || p->startup_seen || p->clean_end || p->images != 1 ||
	    (p->reaped && p->exit_status != 127))
		return false;
	for (i = 0; i < p->nobjects; i++) {
		const struct gt_object *ob = &p->objects[i];

		if (ob->ns != 0 || ob->closed || !ob->path || ob->path[0] != '/' ||
		    strstr(ob->path, "/libgputrace"))  /* ours, in every traced process */
			continue;
		scope_add(fl, ob->path);
		fl->objects = gt_xrealloc(fl->objects, (fl->nobjects + 1) * sizeof(*fl->objects));
		describe_object(facts, ob, &fl->objects[fl->nobjects++]);
	}
	if (!fl->nobjects) {
		free_load(fl);
		return false;
	}
	fl->name = p->exe ? p->exe : fl->objects[0].obj->path;
	fl->requester = NULL;
	/* Known to have failed only when its status says the loader gave up:
	 * a process that died otherwise at start-up may not have mapped all. */
	fl->at_startup = true;
	/* On paper (scan --for) the question is whether it would start: a
	 * reference nothing defines would stop it, now or at its first call. */
	symbol_gaps(p, facts, fl, fl->scope, fl->nscope, (p->reaped && p->exit_status == 127) || p->paper);
	if (fl->ngaps)
		return true;
	free_load(fl);
	return false;
}

/* One more undone load at the end of *v. */
static void add_load(struct gt_failed_load **v, size_t *n, const struct gt_failed_load *fl)
{
	*v = gt_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = *fl;
}

size_t gt_failed_loads_build(struct gt_process *p, struct gt_host_facts *facts, struct gt_failed_load **out)
{
	unsigned long b, bursts = 0;
	struct gt_failed_load fl;
	size_t i, n = 0;

	conclude_cut_off(p, facts);
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].close_burst > bursts)
			bursts = p->objects[i].close_burst;
	for (b = 1; b <= bursts; b++) {
		if (judge_burst(p, facts, b, &fl))
			add_load(out, &n, &fl);
	}
	if (judge_startup(p, facts, &fl))
		add_load(out, &n, &fl);
	return n;
}

void gt_failed_loads_free(struct gt_failed_load *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free_load(&v[i]);
	free(v);
}
