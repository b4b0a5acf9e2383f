/* gputrace scan's output: the copies a host holds, the findings, and with
 * --for the loader's choices, as text or as one JSON object. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/scan_report.h"
#include "report/printable.h"
#include "common/trace_file.h"

static void print_for(FILE *f, const struct host_scan_for *fr)
{
	size_t i, k;

	if (!fr->n) {
		fprintf(f, "%s needs no CUDA library: none of its DT_NEEDED, direct or through its "
			"libraries, is one\n", gt_printable(fr->consumer));
		return;
	}
	fprintf(f, "for %s, the loader would take:\n", gt_printable(fr->consumer));
	for (i = 0; i < fr->n; i++) {
		const struct host_scan_for_item *it = &fr->items[i];
		const struct host_resolution *r = &it->res;

		if (r->winner < 0) {
			/* cuDNN's longer names are expected to miss; say only the real misses */
			if (!strstr(r->name, "libcudnn_") || !strchr(strchr(r->name, '.') + 4, '.'))
				fprintf(f, "%*s%s: NOT FOUND (%zu places tried)\n", 2 * it->depth + 2, "",
					gt_printable(r->name), r->ncand);
			continue;
		}
		fprintf(f, "%*s%s -> %s [%s]\n", 2 * it->depth + 2, "", gt_printable(r->name),
			gt_printable(r->cand[r->winner].path),
			gt_rule_name(r->cand[r->winner].rule));
		for (k = 0; k < r->nshadowed; k++)
			fprintf(f, "%*s  shadows %s\n", 2 * it->depth + 2, "", gt_printable(r->shadowed[k]));
	}
}

static json_t *for_json(const struct host_scan_for *fr)
{
	json_t *o = json_object(), *arr = json_array();
	size_t i, k;

	gt_evidence_str(o, "consumer", fr->consumer);
	for (i = 0; i < fr->n; i++) {
		const struct host_resolution *r = &fr->items[i].res;
		json_t *x = json_object(), *sh = json_array(), *tried = json_array();

		gt_evidence_str(x, "name", r->name);
		gt_evidence_str(x, "requester", r->requester);
		json_object_set_new(x, "path", json_null());
		if (r->winner >= 0) {
			gt_evidence_str(x, "path", r->cand[r->winner].path);
			json_object_set_new(x, "rule", json_string(gt_rule_name(r->cand[r->winner].rule)));
		}
		for (k = 0; k < r->ncand; k++) {
			json_t *t = json_object();

			gt_evidence_str(t, "path", r->cand[k].path);
			json_object_set_new(t, "rule", json_string(gt_rule_name(r->cand[k].rule)));
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

static void print_copy(FILE *f, const struct host_copy *c)
{
	fprintf(f, "  %-30s %-12s %s", gt_printable(c->fi.component), gt_printable(c->version[0] ? c->version : "?"),
		gt_printable(c->chain));
	fprintf(f, " [%s%s]", c->where, c->in_cache && strcmp(c->where, "ld.so.cache") ? ", ld.so.cache" : "");
	if (c->has_package)
		fprintf(f, " %s:%s %s", c->package.manager, gt_printable(c->package.name),
			gt_printable(c->package.version));
	if (c->stub)
		fprintf(f, " (stub)");
	fputc('\n', f);
}

static int by_component(const void *a, const void *b)
{
	const struct host_copy *x = *(const struct host_copy *const *)a, *y = *(const struct host_copy *const *)b;
	int c = strcmp(x->fi.family, y->fi.family);

	if (!c)
		c = strcmp(x->fi.component, y->fi.component);
	return c ? c : strcmp(x->path, y->path);
}

#define RED "\033[31m"
#define YELLOW "\033[33m"
#define RESET "\033[0m"

static const char *severity_color(enum gt_severity sev, bool color)
{
	if (!color)
		return "";
	return sev == GT_SEV_ERROR ? RED : sev == GT_SEV_WARNING ? YELLOW : "";
}

void gt_render_scan_text(FILE *f, const struct host_scan *s, const struct gt_findings *fs,
			 const struct host_scan_for *fr, bool color)
{
	const struct host_copy **sorted = calloc(s->ncopies ? s->ncopies : 1, sizeof(*sorted));
	size_t i;
	json_t *e;
	size_t k;

	if (!sorted)
		abort();
	fprintf(f, "gputrace scan: %zu CUDA library files in %zu folders%s\n", s->ncopies, s->nfolders,
		s->have_cache ? "" : " (no readable ld.so.cache)");
	if (s->kmod[0])
		fprintf(f, "NVIDIA kernel module %s%s%s\n", s->kmod, s->gpus[0] ? "; GPUs: " : "",
			gt_printable(s->gpus));
	/* With --for, the consumer's tree is the answer: the host's listing is
	 * what a plain scan prints. */
	for (i = 0; i < s->ncopies && !fr; i++)
		sorted[i] = &s->copies[i];
	if (!fr)
		qsort(sorted, s->ncopies, sizeof(*sorted), by_component);
	for (i = 0; i < s->ncopies && !fr; i++)
		print_copy(f, sorted[i]);
	free(sorted);
	if (fr)
		print_for(f, fr);
	for (i = 0; i < fs->n; i++) {
		const struct gt_finding *x = &fs->v[i];

		fprintf(f, "%s%-7s%s  %s: %s\n", severity_color(x->severity, color), gt_severity_name(x->severity),
			color ? RESET : "", x->id, gt_printable(x->summary));
		json_array_foreach(x->evidence, k, e)
			fprintf(f, "         - %s\n", gt_printable(json_string_value(json_object_get(e, "what"))));
		fprintf(f, "         fix: %s\n", gt_printable(x->fix));
	}
}

static json_t *copy_json(const struct host_copy *c)
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

/* The variables that steer where the loader and the installers look. */
static json_t *scan_env_json(void)
{
	static const char *const vars[] = { "LD_LIBRARY_PATH", "LD_PRELOAD", "CUDA_VISIBLE_DEVICES",
					    "CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "VIRTUAL_ENV" };
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			gt_evidence_str(o, vars[i], getenv(vars[i]));
	return o;
}

void gt_render_scan_json(FILE *f, const struct host_scan *s, const struct gt_findings *fs,
			 const struct host_scan_for *fr)
{
	json_t *root = json_object(), *copies = json_array(), *probs = json_array();
	char host[256];
	size_t i;

	json_object_set_new(root, "format", json_string("gputrace-scan"));
	json_object_set_new(root, "version", json_integer(1));
	/* Whose scan, under which environment: scans of many hosts are compared
	 * (gputrace report DIR, gputrace diff). */
	gt_host_name(host, sizeof(host));
	json_object_set_new(root, "host", gt_json_text(host));
	json_object_set_new(root, "env", scan_env_json());
	json_object_set_new(root, "kernel_module", s->kmod[0] ? json_string(s->kmod) : json_null());
	json_object_set_new(root, "gpus", json_string(s->gpus));
	for (i = 0; i < s->ncopies; i++)
		json_array_append_new(copies, copy_json(&s->copies[i]));
	for (i = 0; i < s->nproblems; i++)
		json_array_append_new(probs, gt_json_text(s->problems[i]));
	json_object_set_new(root, "copies", copies);
	json_object_set_new(root, "findings", gt_findings_json(fs));
	json_object_set_new(root, "notes", probs);
	if (fr)
		json_object_set_new(root, "for", for_json(fr));
	json_dumpf(root, f, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(root);
}

