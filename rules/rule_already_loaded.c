/* already-loaded: first loaded wins. A DT_NEEDED name that an object already
 * in the namespace answers to (its SONAME) is bound to that object with no
 * search (the trace's no_search lines), so the package that loaded its copy
 * first decides which NCCL, cuDNN or cuBLAS a later framework runs on: cupy
 * imported before torch gives torch cupy's NCCL. The copy it got is judged
 * against the copy its own search would find (on paper). The same release,
 * or a newer one of the same major, says nothing (two frameworks sharing
 * consistent copies is fine). An older release is a warning, and an error
 * where the process failed for no reason the driver or the device gives.
 * Whatever the versions say, it is an error where the requester's framework
 * declares a release the copy does not meet, where the requester needs
 * symbols the copy lacks, or where the two copies are built for different
 * CUDA majors. A copy LD_PRELOAD put in first is shadowed-library's. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "facts/symbol_check.h"
#include "host/framework.h"
#include "rules/rules.h"
#include "rules/shown_path.h"

/* The object a no_search line names: the open one at that path mapped
 * before the line, else any (the model's index of paths: a walk of every
 * object for every line cost a fifth of the diagnosis of import torch). */
static const struct gt_object *object_at(const struct gt_proc_model *m, const char *path)
{
	const struct gt_object *any = NULL;
	size_t i, n;
	const size_t *at = gt_model_objects_at(m, path, &n);

	for (i = 0; i < n; i++) {
		const struct gt_object *ob = &m->proc->objects[at[i]];

		if (ob->from_linkmap)
			continue;
		if (!ob->closed)
			return ob;
		any = any ? any : ob;
	}
	return any;
}

/* The CUDA major a pip or conda package is built for, from its name
 * (nvidia-nccl-cu12, cupy-cuda11x, jax-cuda12-plugin): -1 when it says none. */
static int package_cuda_major(const struct host_package *pk)
{
	const char *s;

	for (s = pk->name; (s = strstr(s, "cu")) != NULL; s += 2) {
		const char *d = s + 2;

		if (strncmp(d, "da", 2) == 0)
			d += 2;
		if (d[0] >= '1' && d[0] <= '9' && d[1] >= '0' && d[1] <= '9' &&
		    (d[2] == 0 || d[2] == 'x' || d[2] == '-' || d[2] == '_'))
			return (d[0] - '0') * 10 + (d[1] - '0');
	}
	return -1;
}

/* Who put a file there, as a fix names it: its package ("cupy-cuda12x 13.3.0"), else its folder.
 * Python's own ctypes module is no package of the user's: a ctypes.CDLL call of the program. */
static void owner_of(struct gt_host_facts *facts, const char *path, char *out, size_t cap)
{
	struct host_package pk;
	char dir[PATH_MAX];

	if (gt_is_ctypes(path))
		snprintf(out, cap, "a ctypes.CDLL call of the program");
	else if (path && gt_facts_package(facts, path, &pk) && pk.name[0])
		snprintf(out, cap, "%s %s", pk.name, pk.version);
	else if (path && path[0] == '/') {
		gt_folder_of(path, dir, sizeof(dir));
		snprintf(out, cap, "%.*s", (int)(cap - 1), dir);
	} else
		snprintf(out, cap, "the program");
}

/* The symbols requester needs that no object the process held defines,
 * blamed on the copy it got (facts/symbol_check.h): a proof that the copy
 * cannot serve it. */
static size_t symbol_gaps(const struct gt_proc_model *m, const struct gt_object *req, const char *got,
			  char *first, size_t cap)
{
	const struct gt_process *p = m->proc;
	const char **scope = gt_xcalloc(p->nobjects + 1, sizeof(*scope));
	struct gt_symbol_gap *gaps = NULL;
	size_t n = 0, ngaps = 0, i, blamed = 0;
	const char *consumer = req->path;
	struct gt_sym_question q = { .consumers = &consumer, .nconsumers = 1,
				     .ld_library_path = gt_process_env(p, "LD_LIBRARY_PATH") };

	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && p->objects[i].path[0] == '/' &&
		    (!p->objects[i].closed || &p->objects[i] == req))
			scope[n++] = p->objects[i].path;
	q.scope = scope;
	q.nscope = n;
	gt_facts_symbol_gaps(m->facts, &q, &gaps, &ngaps);
	first[0] = 0;
	for (i = 0; i < ngaps; i++)
		if (gaps[i].provider && gt_facts_same_file(m->facts, gaps[i].provider, got) && blamed++ == 0)
			snprintf(first, cap, "%s%s%s", gaps[i].symbol, gaps[i].version ? "@" : "",
				 gaps[i].version ? gaps[i].version : "");
	gt_symbol_gaps_free(gaps, ngaps);
	free(scope);
	return blamed;
}

/* One finding per copy taken this way: every requester it served is evidence. */
static struct gt_finding *finding_for(struct gt_findings *out, const struct gt_proc_model *m,
				      const struct gt_lib *got, const char *first_owner, const char *req_owner,
				      const struct gt_object *req, const char *name, const char *own,
				      const char *own_version)
{
	char fix[8 * PATH_MAX], got_shown[PATH_MAX];
	size_t i;

	for (i = 0; i < out->n; i++) {
		struct gt_finding *f = &out->v[i];
		const char *p0 = json_string_value(json_object_get(json_array_get(f->evidence, 0), "path"));

		if (f->proc == m && f->id == GT_F_ALREADY_LOADED && p0 && strcmp(p0, got->obj->path) == 0)
			return f;
	}
	gt_shown_path(m->facts, got->obj->path, got_shown, sizeof(got_shown));
	snprintf(fix, sizeof(fix),
		 "Load %s before %s (in Python: import it first), so that %s finds its own %s%s%s at %s; or "
		 "remove the copy %s brought (%s) if nothing else needs it, or make both the same release.",
		 req_owner, first_owner, gt_base_name(req->path), name, own_version[0] ? " " : "", own_version, own,
		 first_owner, got_shown);
	return gt_finding_add(out, GT_F_ALREADY_LOADED, GT_SEV_WARNING, m, fix,
			      "%s needs %s, and got %s%s%s that %s had loaded first (no search), not its own %s%s%s",
			      gt_base_name(req->path), name, got_shown, strchr(got->version, '.') ? " " : "",
			      strchr(got->version, '.') ? got->version : "", first_owner, own,
			      own_version[0] ? " " : "", own_version);
}

/* Raises f to an error, saying why, once. */
static void make_error(struct gt_finding *f, const char *why)
{
	char *plain;

	if (f->severity == GT_SEV_ERROR)
		return;
	f->severity = GT_SEV_ERROR;
	plain = f->summary;
	f->summary = gt_xasprintf("%s: %s", plain, why);
	free(plain);
}

/* Does version meet ">=floor"? */
static enum host_verdict at_least(const char *version, const char *floor)
{
	char spec[80];

	snprintf(spec, sizeof(spec), ">=%s", floor);
	return host_version_satisfies(spec, version);
}

/* Why the copy cannot serve the requester, if a proof says so: the
 * framework's declared release, the CUDA major, the symbols it needs. */
struct verdict {
	char why[3][512];
	size_t n;
	int major_got, major_own;
	char symbol[256];
};

static void add_why(struct verdict *v, const char *fmt, const char *a, const char *b)
{
	if (v->n < 3)
		snprintf(v->why[v->n++], sizeof(v->why[0]), fmt, a, b);
}

static void find_proofs(const struct gt_proc_model *m, const struct gt_lib *got, const struct gt_object *req,
			const char *own, struct verdict *v)
{
	struct host_package pk_got, pk_own;
	char a[192], b[192];
	size_t gaps;

	memset(v, 0, sizeof(*v));
	v->major_got = v->major_own = -1;
	if (gt_facts_package(m->facts, got->obj->path, &pk_got))
		v->major_got = package_cuda_major(&pk_got);
	if (gt_facts_package(m->facts, own, &pk_own))
		v->major_own = package_cuda_major(&pk_own);
	if (gt_declared_otherwise(m->facts, req->path, got))
		add_why(v, "%s %s is a release its framework does not declare", got->fi.component, got->version);
	if (v->major_got >= 0 && v->major_own >= 0 && v->major_got != v->major_own) {
		snprintf(a, sizeof(a), "%d (%s)", v->major_got, pk_got.name);
		snprintf(b, sizeof(b), "%d (%s)", v->major_own, pk_own.name);
		add_why(v, "that copy is built for CUDA %s, its own for CUDA %s", a, b);
	}
	gaps = symbol_gaps(m, req, got->obj->path, v->symbol, sizeof(v->symbol));
	if (gaps) {
		snprintf(a, sizeof(a), "%zu symbol%s", gaps, gaps == 1 ? "" : "s");
		add_why(v, "it lacks %s it needs (%s)", a, v->symbol);
	}
}

/* The copy `got` met req's DT_NEEDED name without a search; own is what
 * req's search finds on paper. */
static void judge_one(const struct gt_proc_model *m, const struct gt_no_search *ns, const struct gt_lib *got,
		      const struct gt_object *req, const char *own, enum gt_rule own_rule, struct gt_findings *out)
{
	char own_version[64], first_owner[PATH_MAX], req_owner[PATH_MAX], shown[PATH_MAX], target[PATH_MAX];
	char shown_link[2 * PATH_MAX + 8], got_shown[PATH_MAX];
	bool known, other_release, older;
	struct verdict v;
	struct gt_finding *f;
	size_t k;
	json_t *e;

	gt_version_on_disk(m->facts, own, own_version, sizeof(own_version));
	/* Versions that give a major only ("2" of libnccl.so.2) cannot tell
	 * releases apart: then only a proof below speaks. */
	known = strchr(got->version, '.') && strchr(own_version, '.');
	other_release = known && !gt_same_release(got->version, own_version);
	/* A newer release of the same major serves what the older was built
	 * for (cuDNN, NCCL and cuBLAS keep their ABI within a major): only an
	 * older one can fall short of what the requester was built against. */
	older = other_release && gt_version_major(got->version) == gt_version_major(own_version) &&
		at_least(got->version, own_version) == HOST_UNMET;
	if (other_release && gt_version_major(got->version) != gt_version_major(own_version))
		older = true;
	find_proofs(m, got, req, own, &v);
	if (!older && !v.n)
		return;
	owner_of(m->facts, got->obj->requester && got->obj->requester[0] == '/' ? got->obj->requester : got->obj->path,
		 first_owner, sizeof(first_owner));
	owner_of(m->facts, req->path, req_owner, sizeof(req_owner));
	gt_shown_path(m->facts, own, shown, sizeof(shown));
	gt_shown_link_target(m->facts, own, shown, target, sizeof(target));
	snprintf(shown_link, sizeof(shown_link), "%s%s%s", shown, target[0] ? " -> " : "", target);
	f = finding_for(out, m, got, first_owner, req_owner, req, ns->name, shown_link, own_version);
	gt_shown_path(m->facts, got->obj->path, got_shown, sizeof(got_shown));
	e = gt_evidence_add(f, "%s %s was loaded first, for %s (%s); then %s needed %s and the loader took it "
			    "without a search", got_shown, got->version,
			    got->obj->requester ? got->obj->requester : "the program", first_owner,
			    req->path, ns->name);
	gt_evidence_lib(e, got);
	gt_evidence_str(e, "first_requester", got->obj->requester);
	gt_evidence_str(e, "requester", req->path);
	gt_evidence_str(e, "name", ns->name);
	e = gt_evidence_add(f, "on paper, %s's own search for %s finds %s%s%s through %s", gt_base_name(req->path),
			    ns->name, shown_link, own_version[0] ? " " : "", own_version, gt_rule_name(own_rule));
	gt_evidence_str(e, "own_copy", shown);
	if (target[0] && gt_facts_real_path(m->facts, own, target, sizeof(target)))
		gt_evidence_str(e, "own_real_path", target);
	if (own_version[0])
		gt_evidence_str(e, "own_version", own_version);
	gt_evidence_str(e, "own_rule", gt_rule_name(own_rule));
	for (k = 0; k < v.n; k++) {
		e = gt_evidence_add(f, "%s", v.why[k]);
		if (v.symbol[0] && strstr(v.why[k], v.symbol))
			gt_evidence_str(e, "symbol", v.symbol);
		make_error(f, v.why[k]);
	}
	if (!v.n && older && gt_model_failed(m) && !gt_failure_explained(out, m))
		make_error(f, "an older release, in a process that failed");
}

void rule_already_loaded(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	char own[PATH_MAX];
	enum gt_rule own_rule;
	size_t i;

	for (i = 0; i < p->nno_searches; i++) {
		const struct gt_no_search *ns = &p->no_searches[i];
		const struct gt_object *by = ns->ours ? NULL : object_at(m, ns->path);
		const struct gt_object *req = by ? object_at(m, ns->requester) : NULL;
		const struct gt_lib *got = by ? gt_lib_of_object(m, by) : NULL, *asker;

		if (!got || !req || req->path[0] != '/' || !got->real_path[0] || gt_object_preloaded_root(m, by))
			continue;
		/* A part of the same copy asking for its own front is that copy's business. */
		asker = gt_lib_of_object(m, req);
		if (asker && asker->copy == got->copy)
			continue;
		own_rule = GT_RULE_NONE;
		if (!gt_paper_winner(m, req, ns->name, own, sizeof(own), &own_rule) ||
		    gt_facts_same_file(m->facts, own, got->obj->path))
			continue;
		judge_one(m, ns, got, req, own, own_rule, out);
	}
}
