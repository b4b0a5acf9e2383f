/* gputrace scan's output: the copies a host holds, the findings, and with
 * --for the loader's choices, as text or as one JSON object. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/fold.h"
#include "render/render_scan.h"
#include "render/printable.h"
#include "rules/fix_command.h"
#include "common/trace_file.h"
#include "common/family.h"

/* Whether any object the program would load is a CUDA library. */
static bool loads_cuda(const struct host_scan_for *fr)
{
	struct gt_family_info fi;

	for (size_t i = 1; i < fr->nobjects; i++)
		if (fr->objects[i].path && gt_classify(fr->objects[i].path, &fi))
			return true;
	return false;
}

/* How many CUDA library names the program (or its libraries) asks for that
 * the loader would not find: a program that needs libcudart.so.10.1 where
 * no copy is needs CUDA, though it would load none (issue 30). */
static size_t cuda_names_missed(const struct host_scan_for *fr)
{
	struct gt_family_info fi;
	size_t i, n = 0;

	for (i = 0; i < fr->n; i++)
		n += !fr->items[i].again && fr->items[i].res.winner < 0 && fr->items[i].res.name &&
		     !gt_scan_for_expected_miss(&fr->items[i].res) && gt_classify(fr->items[i].res.name, &fi);
	return n;
}

static const char *how_name(enum host_for_how how)
{
	return how == HOST_FOR_PRELOAD ? "preload" : how == HOST_FOR_DLOPEN ? "dlopen" : "needed";
}

/* One line per search, indented by the requester's depth; names answered by
 * an object already loaded are the loader's silence, and ours. */
static void print_for(FILE *f, const struct host_scan_for *fr)
{
	size_t i, k;

	if (fr->objects[0].elf.verdict != HOST_LOAD_USABLE)
		fprintf(f, "%s: not a program this host's loader runs (%s)\n", gt_printable(fr->consumer),
			fr->objects[0].elf.reason ? fr->objects[0].elf.reason : "another ELF class or machine");
	if (fr->n)
		fprintf(f, "for %s%s, the loader would take:\n", gt_printable(fr->consumer),
			fr->secure ? " (set-user-ID or set-group-ID: secure mode)" : "");
	for (i = 0; i < fr->n; i++) {
		const struct host_scan_for_item *it = &fr->items[i];
		const struct host_resolution *r = &it->res;
		const char *tag = it->how == HOST_FOR_PRELOAD ? " (LD_PRELOAD)" : it->how == HOST_FOR_DLOPEN ? " (dlopen)" : "";

		if (it->again)
			continue;
		if (r->winner < 0) {
			/* cuDNN's longer names are expected to miss; say only the real misses */
			if (r->stop_reason)
				fprintf(f, "%*s%s: ERROR %s: %s%s\n", 2 * it->depth + 2, "", gt_printable(r->name),
					gt_printable(r->ncand ? r->cand[r->ncand - 1].path : r->name), r->stop_reason, tag);
			else if (!gt_scan_for_expected_miss(r))
				fprintf(f, "%*s%s: NOT FOUND (%zu places tried)%s\n", 2 * it->depth + 2, "",
					gt_printable(r->name), r->ncand, tag);
			continue;
		}
		fprintf(f, "%*s%s -> %s [%s]%s\n", 2 * it->depth + 2, "", gt_printable(r->name),
			gt_printable(r->cand[r->winner].path), gt_rule_name(r->cand[r->winner].rule), tag);
		for (k = 0; k < r->nshadowed; k++)
			fprintf(f, "%*s  shadows %s\n", 2 * it->depth + 2, "", gt_printable(r->shadowed[k]));
	}
	if (!loads_cuda(fr) && cuda_names_missed(fr) == 1)
		fprintf(f, "%s would load no CUDA library: the loader does not find the one it asks for "
			"(NOT FOUND above)\n", gt_printable(fr->consumer));
	else if (!loads_cuda(fr) && cuda_names_missed(fr))
		fprintf(f, "%s would load no CUDA library: the loader finds none of the %zu it asks for "
			"(NOT FOUND above)\n", gt_printable(fr->consumer), cuda_names_missed(fr));
	else if (!loads_cuda(fr)) {
		size_t listed = 0;

		for (i = 1; i < fr->nobjects; i++)
			listed += fr->objects[i].listed && fr->objects[i].path;
		fprintf(f, "%s needs no CUDA library: none of the %zu objects it would load, direct or "
			"through its libraries, is one\n", gt_printable(fr->consumer), listed);
	}
}

/* The objects the loader would list at start (ld.so --list): each once, in
 * its order, with the name it was first asked by. */
static json_t *objects_json(const struct host_scan_for *fr)
{
	json_t *arr = json_array();

	for (size_t i = 1; i < fr->nobjects; i++) {
		const struct host_scan_for_object *o = &fr->objects[i];
		json_t *x;

		if (!o->listed)
			continue;
		x = json_object();
		gt_evidence_str(x, "name", o->name);
		json_object_set_new(x, "path", json_null());
		gt_evidence_str(x, "path", o->path);
		json_object_set_new(x, "requester", json_null());
		if (o->loader >= 0)
			gt_evidence_str(x, "requester", fr->objects[o->loader].path);
		json_object_set_new(x, "how", json_string(how_name(o->how)));
		json_object_set_new(x, "rtld", json_boolean(o->rtld));
		json_array_append_new(arr, x);
	}
	return arr;
}

static json_t *for_json(const struct host_scan_for *fr)
{
	json_t *o = json_object(), *arr = json_array();
	size_t i, k;

	gt_evidence_str(o, "consumer", fr->consumer);
	json_object_set_new(o, "secure", json_boolean(fr->secure));
	for (i = 0; i < fr->n; i++) {
		const struct host_resolution *r = &fr->items[i].res;
		json_t *x = json_object(), *sh = json_array(), *tried = json_array();

		gt_evidence_str(x, "name", r->name);
		gt_evidence_str(x, "requester", r->requester);
		json_object_set_new(x, "how", json_string(how_name(fr->items[i].how)));
		json_object_set_new(x, "path", json_null());
		if (r->winner >= 0) {
			gt_evidence_str(x, "path", r->cand[r->winner].path);
			json_object_set_new(x, "rule", json_string(gt_rule_name(r->cand[r->winner].rule)));
		}
		json_object_set_new(x, "error", r->stop_reason ? json_string(r->stop_reason) : json_null());
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
	json_object_set_new(o, "objects", objects_json(fr));
	return o;
}

/* The name a link shows: its file name in the real file's folder, else its path. */
static const char *link_label(const struct host_copy *link, const struct host_copy *file)
{
	const char *a = strrchr(link->path, '/'), *b = file->real_path ? strrchr(file->real_path, '/') : NULL;

	if (a && b && a - link->path == b - file->real_path && strncmp(link->path, file->real_path, (size_t)(a - link->path)) == 0)
		return a + 1;
	return link->path;
}

static bool same_real(const struct host_copy *a, const struct host_copy *b)
{
	return a->real_path && b->real_path && strcmp(a->real_path, b->real_path) == 0;
}

/* One line per real file: its path, version and place, then the names
 * (links) that lead to it; sorted[i..n) holds every copy, file by file. */
static void print_file(FILE *f, const struct host_copy *const *copies, size_t n)
{
	const struct host_copy *c = copies[0];
	size_t i;

	for (i = 0; i < n; i++)  /* the file itself speaks for the group when it was found */
		if (copies[i]->real_path && strcmp(copies[i]->path, copies[i]->real_path) == 0)
			c = copies[i];
	fprintf(f, "  %-30s %-12s %s", gt_printable(c->fi.component), gt_printable(c->version[0] ? c->version : "?"),
		gt_printable(c->real_path ? c->real_path : c->chain));
	fprintf(f, " [%s%s]", host_where_label(c->where),
		c->in_cache && strcmp(c->where, HOST_WHERE_LD_SO_CACHE) ? ", ld.so.cache" : "");
	for (i = 0; i < n; i++)
		if (copies[i] != c)
			fprintf(f, "%s%s", i == 0 || (i == 1 && copies[0] == c) ? " <- " : ", ",
				gt_printable(link_label(copies[i], c)));
	if (c->has_package)
		fprintf(f, " %s:%s %s", c->package.manager, gt_printable(c->package.name),
			gt_printable(c->package.version));
	if (strcmp(c->version_source, "embedded") == 0)
		fprintf(f, " (version read from the file)");
	else if (strcmp(c->version_source, "asked") == 0)
		fprintf(f, " (version asked of the library)");
	if (c->ask_error[0])
		fprintf(f, " (--ask: %s)", gt_printable(c->ask_error));
	if (c->stub)
		fprintf(f, " (stub)");
	fputc('\n', f);
}

/* How many real files the copies are (a broken link counts as its own). */
static size_t count_files(const struct host_scan *s)
{
	size_t i, k, n = 0;

	for (i = 0; i < s->ncopies; i++) {
		for (k = 0; k < i && !same_real(&s->copies[k], &s->copies[i]); k++)
			;
		n += k == i;
	}
	return n;
}

static int by_component(const void *a, const void *b)
{
	const struct host_copy *x = *(const struct host_copy *const *)a, *y = *(const struct host_copy *const *)b;
	int c = strcmp(x->fi.family, y->fi.family);

	if (!c)
		c = strcmp(x->fi.component, y->fi.component);
	if (!c)  /* a file's names together */
		c = strcmp(x->real_path ? x->real_path : x->path, y->real_path ? y->real_path : y->path);
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

/* --for's verdict: the worst severity of the findings about the predicted
 * set (fs->v[for_from..]), "ok" when none is a warning or an error. */
static const char *for_verdict(const struct gt_findings *fs, size_t for_from)
{
	enum gt_severity worst = GT_SEV_INFO;
	size_t i;

	for (i = for_from; i < fs->n; i++)
		if (fs->v[i].severity > worst)
			worst = fs->v[i].severity;
	return worst == GT_SEV_INFO ? "ok" : gt_severity_name(worst);
}

/* The ids of the findings from fs->v[from..] at severity sev, each once. */
static void ids_at(FILE *f, const struct gt_findings *fs, size_t from, enum gt_severity sev)
{
	size_t i, k, shown = 0;

	for (i = from; i < fs->n; i++) {
		for (k = from; k < i && (fs->v[k].id != fs->v[i].id || fs->v[k].severity != sev); k++)
			;
		if (fs->v[i].severity == sev && k == i)
			fprintf(f, "%s%s", shown++ ? ", " : "", gt_finding_name(fs->v[i].id));
	}
}

/* The verdict in words, what a newcomer reads first (issue 30): never "ok"
 * nor a bare "0 files" when something is missing. With --for, about the set
 * the loader would take (the findings from for_from on); else the host's. */
static void verdict_words(FILE *f, const struct host_scan *s, const struct gt_findings *fs,
			  const struct host_scan_for *fr, size_t from)
{
	enum gt_severity worst = GT_SEV_INFO;
	size_t i;

	for (i = from; i < fs->n; i++)
		if (fs->v[i].severity > worst)
			worst = fs->v[i].severity;
	if (worst != GT_SEV_INFO) {
		fprintf(f, "%s (", worst == GT_SEV_ERROR ? "NOT OK" : fr ? "would run, with warnings" :
			"with warnings");
		ids_at(f, fs, from, worst);
		fputc(')', f);
	} else if (fr && !loads_cuda(fr))
		fprintf(f, "needs no CUDA library");
	else if (fr)
		fprintf(f, "all clear: every CUDA library it asks for is found, no conflict");
	else if (!count_files(s))
		fprintf(f, "no CUDA library file found");
	else
		fprintf(f, "all clear");
}

static void scan_lines(FILE *f, const struct host_scan *s, const struct gt_findings *fs,
		       const struct host_scan_for *fr, size_t for_from, const struct gt_scan_arch *arch,
		       bool color)
{
	const struct host_copy **sorted = calloc(s->ncopies ? s->ncopies : 1, sizeof(*sorted));
	char cmd[16384];
	size_t i;
	json_t *e;
	size_t k;

	if (!sorted)
		abort();
	size_t nerr = 0, nwarn = 0, start;

	for (i = 0; i < fs->n; i++) {
		nerr += fs->v[i].severity == GT_SEV_ERROR;
		nwarn += fs->v[i].severity == GT_SEV_WARNING;
	}
	if (fr)  /* the question asked comes first, and its answer in words */
		fprintf(f, "gputrace scan --for %s: ", gt_printable(fr->consumer));
	else
		fprintf(f, "gputrace scan: ");
	verdict_words(f, s, fs, fr, fr ? for_from : 0);
	if (s->cache_only)  /* --for alone: the loader's work, no folder walked */
		fprintf(f, "; the loader on paper%s; %zu finding%s (%zu error%s, %zu warning%s)\n",
			s->have_cache ? "" : " (no readable ld.so.cache)", fs->n, fs->n == 1 ? "" : "s", nerr,
			nerr == 1 ? "" : "s", nwarn, nwarn == 1 ? "" : "s");
	else
		fprintf(f, "; %zu CUDA library files (%zu names) in %zu folders%s; %zu finding%s "
			"(%zu error%s, %zu warning%s)\n", count_files(s), s->ncopies, s->nfolders,
			s->have_cache ? "" : " (no readable ld.so.cache)", fs->n, fs->n == 1 ? "" : "s", nerr,
			nerr == 1 ? "" : "s", nwarn, nwarn == 1 ? "" : "s");
	if (s->kmod[0])
		fprintf(f, "NVIDIA kernel module %s%s%s\n", s->kmod, s->gpus[0] ? "; GPUs: " : "",
			gt_printable(s->gpus));
	/* With --for, the consumer's tree is the answer, with --arch the files
	 * against it: the host's listing is what a plain scan prints. */
	bool listing = !fr && !arch;

	for (i = 0; i < s->ncopies && listing; i++)
		sorted[i] = &s->copies[i];
	if (listing)
		qsort(sorted, s->ncopies, sizeof(*sorted), by_component);
	for (i = start = 0; i < s->ncopies && listing; i++)
		if (i + 1 == s->ncopies || !same_real(sorted[i], sorted[i + 1])) {
			print_file(f, sorted + start, i + 1 - start);
			start = i + 1;
		}
	free(sorted);
	if (arch)
		gt_render_scan_arch_text(f, arch);
	if (fr) {
		print_for(f, fr);
		fprintf(f, "verdict for %s: %s (%zu finding%s about what it would load)\n", gt_printable(fr->consumer),
			strcmp(for_verdict(fs, for_from), "ok") ? for_verdict(fs, for_from) :
			loads_cuda(fr) ? "all clear" : "needs no CUDA library", fs->n - for_from,
			fs->n - for_from == 1 ? "" : "s");
	}
	for (i = 0; i < fs->n; i++) {
		const struct gt_finding *x = &fs->v[i];

		fprintf(f, "%s%-7s%s  %s: %s\n", severity_color(x->severity, color), gt_severity_name(x->severity),
			color ? RESET : "", gt_finding_name(x->id), gt_printable(x->summary));
		json_array_foreach(x->evidence, k, e)
			fprintf(f, "         - %s\n", gt_printable(json_string_value(json_object_get(e, "what"))));
		fprintf(f, "         fix: %s\n", gt_printable(x->fix));
		/* as the report says it (issue 30): the command, or why none */
		if (gt_fix_paste(x->id, x->evidence, &x->fix_data, x->proc, cmd, sizeof(cmd)))
			fprintf(f, "         run: %s\n", cmd);
		else if (cmd[0])
			fprintf(f, "         no command: %s\n", gt_printable(cmd));
	}
}

/* Folded to 100 columns, paths without `..` (render/fold.h, issue 30). */
void gt_render_scan_text(FILE *f, const struct host_scan *s, const struct gt_findings *fs,
			 const struct host_scan_for *fr, size_t for_from, const struct gt_scan_arch *arch,
			 bool color)
{
	struct gt_fold out;

	scan_lines(gt_fold_open(&out), s, fs, fr, for_from, arch, color);
	gt_fold_close(&out, f);
}

static json_t *copy_json(const struct host_copy *c)
{
	json_t *o = json_object();

	gt_evidence_str(o, "path", c->path);
	json_object_set_new(o, "real_path", json_null());
	gt_evidence_str(o, "real_path", c->real_path);
	json_object_set_new(o, "chain", gt_scan_chain_json(c));
	json_object_set_new(o, "where", json_string(c->where));
	json_object_set_new(o, "family", json_string(c->fi.family));
	json_object_set_new(o, "component", json_string(c->fi.component));
	json_object_set_new(o, "version", c->version[0] ? json_string(c->version) : json_null());
	json_object_set_new(o, "version_source", json_string(c->version_source));
	if (c->ask_error[0])
		gt_evidence_str(o, "ask_error", c->ask_error);
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
			 const struct host_scan_for *fr, size_t for_from, const struct gt_scan_arch *arch)
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
	json_object_set_new(root, "files", json_integer((json_int_t)count_files(s)));
	json_object_set_new(root, "folders", json_integer((json_int_t)s->nfolders));
	for (i = 0; i < s->ncopies; i++)
		json_array_append_new(copies, copy_json(&s->copies[i]));
	for (i = 0; i < s->nproblems; i++)
		json_array_append_new(probs, gt_json_text(s->problems[i]));
	json_object_set_new(root, "copies", copies);
	json_object_set_new(root, "findings", gt_findings_json(fs));
	json_object_set_new(root, "notes", probs);
	if (fr) {
		json_t *fo = for_json(fr);

		json_object_set_new(fo, "verdict", json_string(for_verdict(fs, for_from)));
		json_object_set_new(root, "for", fo);
	}
	if (arch)
		json_object_set_new(root, "arch", gt_scan_arch_json(arch));
	json_dumpf(root, f, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(root);
}

