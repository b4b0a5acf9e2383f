/* gputrace scan: the command line, the text and JSON output, and --for, the
 * loader's choices for one consumer file, done on paper (resolve.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resolve.h"
#include "rules.h"
#include "scan.h"

#define MAX_FOR_NAMES 256
#define MAX_DEPTH 6

/* One name the consumer needs, and the loader's answer. */
struct for_item {
	struct gt_resolution res;
	int depth;
};

struct for_run {
	const char *consumer;
	struct gt_resolve_env env;
	struct for_item items[MAX_FOR_NAMES];
	size_t n;
};

static bool already_resolved(const struct for_run *fr, const char *name)
{
	size_t i;

	for (i = 0; i < fr->n; i++)
		if (strcmp(fr->items[i].res.name, name) == 0)
			return true;
	return false;
}

static const char *winner_of(const struct for_item *it)
{
	return it->res.winner >= 0 ? it->res.cand[it->res.winner].path : NULL;
}

static void resolve_needed(struct for_run *fr, const char *requester, int depth);

/* Resolves one name asked by requester (loaded by the consumer), and goes on
 * into what the winner needs. */
static const struct for_item *resolve_one(struct for_run *fr, const char *name, const char *requester, int depth)
{
	const char *loaders[1] = { fr->consumer };
	struct for_item *it;

	if (fr->n >= MAX_FOR_NAMES || already_resolved(fr, name))
		return NULL;
	it = &fr->items[fr->n++];
	it->depth = depth;
	if (!gt_resolve(name, requester, strcmp(requester, fr->consumer) ? loaders : NULL,
			strcmp(requester, fr->consumer) ? 1 : 0, &fr->env, &it->res))
		abort();
	if (winner_of(it) && depth < MAX_DEPTH)
		resolve_needed(fr, winner_of(it), depth + 1);
	return it;
}

/* cuDNN loads its sub-libraries by name, the most specific name first:
 * libcudnn_graph.so.9.19.0, .9.19, .9 (as the traces of real runs show). */
static void cudnn_sublibraries(struct for_run *fr, const char *cudnn, const char *version, int depth)
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
			const struct for_item *it;

			if (j && strcmp(names[j], names[j - 1]) == 0)
				continue;
			it = resolve_one(fr, names[j], cudnn, depth);
			if (it && winner_of(it))
				break;
		}
	}
}

static void resolve_needed(struct for_run *fr, const char *requester, int depth)
{
	struct gt_family_info fi;
	struct gt_elf_info elf;
	char real[PATH_MAX];
	size_t i;

	if (!gt_elf_read(requester, &elf))
		return;
	for (i = 0; i < elf.nneeded; i++)
		if (gt_classify(elf.needed[i], &fi))
			resolve_one(fr, elf.needed[i], requester, depth);
	/* The runtime loads the driver by name when it starts: that search too. */
	if (gt_classify(requester, &fi) && strcmp(fi.component, "cudart") == 0)
		resolve_one(fr, "libcuda.so.1", requester, depth + 1);
	if (gt_classify(requester, &fi) && strcmp(fi.component, "cudnn") == 0 && realpath(requester, real)) {
		struct gt_family_info rfi;
		struct gt_package pkg;
		const char *v = gt_classify(real, &rfi) && strchr(rfi.version, '.') ? rfi.version :
				gt_package_of(requester, &pkg) ? pkg.version : fi.version;

		cudnn_sublibraries(fr, requester, v, depth);
	}
	gt_elf_free(&elf);
}

static void print_for(FILE *f, const struct for_run *fr)
{
	size_t i, k;

	fprintf(f, "\nfor %s, the loader would take:\n", fr->consumer);
	for (i = 0; i < fr->n; i++) {
		const struct for_item *it = &fr->items[i];
		const struct gt_resolution *r = &it->res;

		if (r->winner < 0) {
			/* cuDNN's longer names are expected to miss; say only the real misses */
			if (!strstr(r->name, "libcudnn_") || !strchr(strchr(r->name, '.') + 4, '.'))
				fprintf(f, "%*s%s: NOT FOUND (%zu places tried)\n", 2 * it->depth + 2, "",
					r->name, r->ncand);
			continue;
		}
		fprintf(f, "%*s%s -> %s [%s]\n", 2 * it->depth + 2, "", r->name, r->cand[r->winner].path,
			r->cand[r->winner].rule);
		for (k = 0; k < r->nshadowed; k++)
			fprintf(f, "%*s  shadows %s\n", 2 * it->depth + 2, "", r->shadowed[k]);
	}
}

static json_t *for_json(const struct for_run *fr)
{
	json_t *o = json_object(), *arr = json_array();
	size_t i, k;

	gt_evidence_str(o, "consumer", fr->consumer);
	for (i = 0; i < fr->n; i++) {
		const struct gt_resolution *r = &fr->items[i].res;
		json_t *x = json_object(), *sh = json_array(), *tried = json_array();

		gt_evidence_str(x, "name", r->name);
		gt_evidence_str(x, "requester", r->requester);
		json_object_set_new(x, "path", json_null());
		if (r->winner >= 0) {
			gt_evidence_str(x, "path", r->cand[r->winner].path);
			json_object_set_new(x, "rule", json_string(r->cand[r->winner].rule));
		}
		for (k = 0; k < r->ncand; k++) {
			json_t *t = json_object();

			gt_evidence_str(t, "path", r->cand[k].path);
			json_object_set_new(t, "rule", json_string(r->cand[k].rule));
			json_array_append_new(tried, t);
		}
		for (k = 0; k < r->nshadowed; k++)
			json_array_append_new(sh, json_string(r->shadowed[k]));
		json_object_set_new(x, "tried", tried);
		json_object_set_new(x, "shadows", sh);
		json_array_append_new(arr, x);
	}
	json_object_set_new(o, "resolutions", arr);
	return o;
}

/* With --for: LD_LIBRARY_PATH beating a copy in the consumer's own search
 * path is the leftover-library case of the report, seen before the crash. */
static void for_findings(struct gt_scan *s, const struct for_run *fr)
{
	struct gt_finding *f;
	size_t i, k;

	for (i = 0; i < fr->n; i++) {
		const struct gt_resolution *r = &fr->items[i].res;

		if (r->winner < 0 || !r->nshadowed || strcmp(r->cand[r->winner].rule, "ld_library_path"))
			continue;
		f = gt_finding_add(&s->findings, "shadowed-library", GT_SEV_WARNING, NULL,
				   "Remove that folder from LD_LIBRARY_PATH for this program, or delete the "
				   "stale copy.",
				   "for %s, %s comes from LD_LIBRARY_PATH: %s", fr->consumer, r->name,
				   r->cand[r->winner].path);
		for (k = 0; k < r->nshadowed; k++)
			gt_evidence_str(gt_evidence_add(f, "%s wins over %s", r->cand[r->winner].path,
							r->shadowed[k]), "shadowed", r->shadowed[k]);
	}
}

static void print_copy(FILE *f, const struct gt_copy *c)
{
	fprintf(f, "  %-30s %-12s %s", c->fi.component, c->version[0] ? c->version : "?", c->chain);
	fprintf(f, " [%s%s]", c->where, c->in_cache && strcmp(c->where, "ld.so.cache") ? ", ld.so.cache" : "");
	if (c->has_package)
		fprintf(f, " %s:%s %s", c->package.manager, c->package.name, c->package.version);
	if (c->stub)
		fprintf(f, " (stub)");
	fputc('\n', f);
}

static int by_component(const void *a, const void *b)
{
	const struct gt_copy *x = *(const struct gt_copy *const *)a, *y = *(const struct gt_copy *const *)b;
	int c = strcmp(x->fi.family, y->fi.family);

	if (!c)
		c = strcmp(x->fi.component, y->fi.component);
	return c ? c : strcmp(x->path, y->path);
}

static void print_text(FILE *f, const struct gt_scan *s)
{
	const struct gt_copy **sorted = calloc(s->ncopies ? s->ncopies : 1, sizeof(*sorted));
	size_t i;
	json_t *e;
	size_t k;

	if (!sorted)
		abort();
	fprintf(f, "gputrace scan: %zu CUDA library files in %zu folders%s\n", s->ncopies, s->nfolders,
		s->have_cache ? "" : " (no readable ld.so.cache)");
	for (i = 0; i < s->ncopies; i++)
		sorted[i] = &s->copies[i];
	qsort(sorted, s->ncopies, sizeof(*sorted), by_component);
	for (i = 0; i < s->ncopies; i++)
		print_copy(f, sorted[i]);
	free(sorted);
	for (i = 0; i < s->findings.n; i++) {
		const struct gt_finding *x = &s->findings.v[i];

		fprintf(f, "%-7s  %s: %s\n", gt_severity_name(x->severity), x->id, x->summary);
		json_array_foreach(x->evidence, k, e)
			fprintf(f, "         - %s\n", json_string_value(json_object_get(e, "what")));
		fprintf(f, "         fix: %s\n", x->fix);
	}
	for (i = 0; i < s->nproblems; i++)
		fprintf(f, "note: %s\n", s->problems[i]);
}

static json_t *copy_json(const struct gt_copy *c)
{
	json_t *o = json_object();

	gt_evidence_str(o, "path", c->path);
	json_object_set_new(o, "real_path", json_null());
	gt_evidence_str(o, "real_path", c->real_path);
	gt_evidence_str(o, "chain", c->chain);
	json_object_set_new(o, "where", json_string(c->where));
	json_object_set_new(o, "family", json_string(c->fi.family));
	json_object_set_new(o, "component", json_string(c->fi.component));
	json_object_set_new(o, "version", c->version[0] ? json_string(c->version) : json_null());
	json_object_set_new(o, "version_source", json_string(c->version_source));
	json_object_set_new(o, "soname", json_null());
	gt_evidence_str(o, "soname", c->elf.ok ? c->elf.soname : NULL);
	if (c->elf.ok) {
		json_object_set_new(o, "elf_class", json_integer(c->elf.elf_class == 1 ? 32 : 64));
		json_object_set_new(o, "machine", json_integer(c->elf.machine));
	}
	json_object_set_new(o, "stub", json_boolean(c->stub));
	json_object_set_new(o, "in_ld_so_cache", json_boolean(c->in_cache));
	if (c->has_package) {
		json_t *p = json_object();

		json_object_set_new(p, "manager", json_string(c->package.manager));
		json_object_set_new(p, "name", json_string(c->package.name));
		json_object_set_new(p, "version", json_string(c->package.version));
		json_object_set_new(o, "package", p);
	} else {
		json_object_set_new(o, "package", json_null());
	}
	return o;
}

static void print_json(FILE *f, const struct gt_scan *s, const struct for_run *fr)
{
	json_t *root = json_object(), *copies = json_array(), *probs = json_array();
	size_t i;

	json_object_set_new(root, "format", json_string("gputrace-scan"));
	json_object_set_new(root, "version", json_integer(1));
	for (i = 0; i < s->ncopies; i++)
		json_array_append_new(copies, copy_json(&s->copies[i]));
	for (i = 0; i < s->nproblems; i++)
		json_array_append_new(probs, gt_json_text(s->problems[i]));
	json_object_set_new(root, "copies", copies);
	json_object_set_new(root, "findings", gt_findings_json(&s->findings));
	json_object_set_new(root, "notes", probs);
	if (fr)
		json_object_set_new(root, "for", for_json(fr));
	json_dumpf(root, f, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(root);
}

static int scan_status(const struct gt_scan *s)
{
	size_t i;

	for (i = 0; i < s->findings.n; i++)
		if (s->findings.v[i].severity == GT_SEV_ERROR)
			return 1;
	return 0;
}

int scan_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "for", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct for_run *fr = NULL;
	const char *consumer = NULL;
	struct gt_elf_info probe;
	struct gt_scan s;
	bool json = false;
	int c, status;
	size_t i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+jf:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			puts("usage: gputrace scan [--json] [--for FILE] [ROOT...]");
			return 0;
		}
		if (c == 'j')
			json = true;
		else if (c == 'f')
			consumer = optarg;
		else
			return 2;
	}
	if (consumer && !gt_elf_read(consumer, &probe)) {
		fprintf(stderr, "gputrace scan: %s: %s\n", consumer, probe.error);
		gt_elf_free(&probe);
		return 2;
	}
	if (consumer)
		gt_elf_free(&probe);
	gt_scan_run(&s, argv + optind, argc - optind);
	if (consumer) {
		fr = calloc(1, sizeof(*fr));
		if (!fr)
			abort();
		fr->consumer = consumer;
		fr->env.ld_library_path = getenv("LD_LIBRARY_PATH");
		fr->env.cache = s.have_cache ? &s.cache : NULL;
		resolve_needed(fr, consumer, 0);
		for_findings(&s, fr);
	}
	if (json) {
		print_json(stdout, &s, fr);
	} else {
		print_text(stdout, &s);
		if (fr)
			print_for(stdout, fr);
	}
	status = scan_status(&s);
	for (i = 0; fr && i < fr->n; i++)
		gt_resolution_free(&fr->items[i].res);
	free(fr);
	gt_scan_free(&s);
	return status;
}
