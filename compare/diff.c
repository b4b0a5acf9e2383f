/* gputrace diff: two diagnoses side by side, family by family (diff.h). */
#define _GNU_SOURCE
#include "compare/diff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/xalloc.h"
#include "rules/fix.h"
#include "rules/fix_json.h"
#include "render/printable.h"
#include "render/render.h"

/* ---- views */

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void set_str(json_t *o, const char *key, const char *v)
{
	json_object_set_new(o, key, v ? gt_json_text(v) : json_null());
}

/* "pip nvidia-cudnn-cu13 9.19.0.56", or NULL. */
static json_t *package_text(json_t *pkg)
{
	char buf[512];

	if (!json_is_object(pkg))
		return json_null();
	snprintf(buf, sizeof(buf), "%s %s %s", str(pkg, "manager") ? str(pkg, "manager") : "?",
		 str(pkg, "name") ? str(pkg, "name") : "?", str(pkg, "version") ? str(pkg, "version") : "?");
	return json_string(buf);
}

static bool has_lib(json_t *libs, const char *component, const char *path)
{
	size_t i;
	json_t *l;

	json_array_foreach(libs, i, l)
		if (strcmp(str(l, "component"), component) == 0 && path && str(l, "path") &&
		    strcmp(str(l, "path"), path) == 0)
			return true;
	return false;
}

static void add_lib(json_t *libs, json_t *src, const char *rule)
{
	json_t *l;

	if (!str(src, "component") || has_lib(libs, str(src, "component"), str(src, "path")))
		return;
	l = json_object();
	set_str(l, "family", str(src, "family"));
	set_str(l, "component", str(src, "component"));
	set_str(l, "path", str(src, "path"));
	set_str(l, "version", str(src, "version"));
	set_str(l, "rule", rule);
	json_object_set_new(l, "package", package_text(json_object_get(src, "package")));
	set_str(l, "requester", str(src, "requester"));
	json_array_append_new(libs, l);
}

static json_t *user_env(json_t *env)
{
	json_t *out = json_object(), *v;
	const char *key;
	char *list;

	json_object_foreach(env, key, v) {
		if (!json_is_string(v) || strstr(key, "_hex"))
			continue;
		if (strcmp(key, "LD_PRELOAD") == 0 || strcmp(key, "LD_AUDIT") == 0) {
			list = gt_list_without_tracer(json_string_value(v));
			if (list)
				json_object_set_new(out, key, gt_json_text(list));
			free(list);
			continue;
		}
		json_object_set_new(out, key, json_incref(v));
	}
	return out;
}

static void add_host(json_t *hosts, const char *h)
{
	size_t i;
	json_t *v;

	if (!h)
		return;
	json_array_foreach(hosts, i, v)
		if (strcmp(json_string_value(v), h) == 0)
			return;
	json_array_append_new(hosts, gt_json_text(h));
}

/* A finding's fix read as this gputrace reads fixes (rules/fix_json.h) and
 * written again: what retry would apply. A kind of edit it does not know
 * (a newer gputrace's) is said on stderr and left out; a fix it cannot
 * read refuses the input (err), never half-read. */
static bool fix_view(json_t *f, const char *source, json_t *x, char *err, size_t errcap)
{
	json_t *fd = json_object_get(f, "fix_data");
	struct gt_fix fix;
	char skipped[512], why[512];
	const char *id = str(f, "id") ? str(f, "id") : "?";

	if (!fd)
		return true;
	if (!gt_fix_from_json(fd, &fix, skipped, sizeof(skipped), why, sizeof(why))) {
		snprintf(err, errcap, "%s: finding %s: fix_data: %s", source, id, why);
		return false;
	}
	if (skipped[0])
		fprintf(stderr, "gputrace: %s: finding %s: fix_data: %s: not known to this gputrace (a newer one's?), "
			"left out\n", gt_printable(source), gt_printable(id), gt_printable(skipped));
	if (fix.n)
		json_object_set_new(x, "fix_data", gt_fix_to_json(&fix));
	gt_fix_free(&fix);
	return true;
}

static json_t *findings_view(json_t *findings, const char *source, char *err, size_t errcap)
{
	json_t *out = json_array(), *f, *x;
	size_t i;

	json_array_foreach(findings, i, f) {
		x = json_object();
		set_str(x, "id", str(f, "id"));
		set_str(x, "severity", str(f, "severity"));
		set_str(x, "summary", str(f, "summary"));
		json_array_append_new(out, x);
		if (!fix_view(f, source, x, err, errcap)) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static int status_of_findings(json_t *findings)
{
	size_t i;
	json_t *f;

	json_array_foreach(findings, i, f)
		if (str(f, "severity") && strcmp(str(f, "severity"), "error") == 0)
			return 1;
	return 0;
}

/* The process the others descend from: its parent is not among them. */
static json_t *root_process(json_t *procs)
{
	size_t i, k;
	json_t *p, *q;

	json_array_foreach(procs, i, p) {
		json_array_foreach(procs, k, q)
			if (json_integer_value(json_object_get(q, "pid")) ==
			    json_integer_value(json_object_get(p, "ppid")) &&
			    !strcmp(str(q, "host") ? str(q, "host") : "", str(p, "host") ? str(p, "host") : ""))
				break;
		if (k == json_array_size(procs))
			return p;
	}
	return json_array_get(procs, 0);
}

static json_t *view_of_report_json(json_t *doc, const char *source, char *err, size_t errcap)
{
	json_t *findings = findings_view(json_object_get(doc, "findings"), source, err, errcap);
	json_t *v, *libs, *hosts, *procs, *p, *l, *root;
	size_t i, k;
	char label[1024];

	if (!findings)
		return NULL;
	v = json_object();
	libs = json_array();
	hosts = json_array();

	procs = json_object_get(doc, "processes");
	json_array_foreach(procs, i, p) {
		add_host(hosts, str(p, "host"));
		json_array_foreach(json_object_get(p, "libraries"), k, l)
			add_lib(libs, l, str(l, "found_by"));
	}
	root = root_process(procs);
	if (json_array_size(procs) == 1)
		snprintf(label, sizeof(label), "pid %lld on %s", json_integer_value(json_object_get(root, "pid")),
			 str(root, "host") ? str(root, "host") : "?");
	else
		snprintf(label, sizeof(label), "%zu processes on %zu host%s", json_array_size(procs),
			 json_array_size(hosts), json_array_size(hosts) == 1 ? "" : "s");
	set_str(v, "source", source);
	json_object_set_new(v, "kind", json_string("report"));
	json_object_set_new(v, "label", json_string(label));
	json_object_set_new(v, "hosts", hosts);
	json_object_set_new(v, "libraries", libs);
	json_object_set_new(v, "findings", findings);
	json_object_set_new(v, "env", user_env(root ? json_object_get(root, "env") : NULL));
	json_object_set_new(v, "status", json_integer(status_of_findings(json_object_get(doc, "findings"))));
	return v;
}

static json_t *view_of_scan_json(json_t *doc, const char *source, char *err, size_t errcap)
{
	json_t *findings = findings_view(json_object_get(doc, "findings"), source, err, errcap);
	json_t *v, *libs, *hosts, *c;
	const char *host = str(doc, "host");
	char label[512];
	size_t i;

	if (!findings)
		return NULL;
	v = json_object();
	libs = json_array();
	hosts = json_array();

	json_array_foreach(json_object_get(doc, "copies"), i, c)
		add_lib(libs, c, str(c, "where"));
	add_host(hosts, host);
	snprintf(label, sizeof(label), "scan of %s", host ? host : "a host");
	set_str(v, "source", source);
	json_object_set_new(v, "kind", json_string("scan"));
	json_object_set_new(v, "label", json_string(label));
	json_object_set_new(v, "hosts", hosts);
	json_object_set_new(v, "libraries", libs);
	json_object_set_new(v, "findings", findings);
	json_object_set_new(v, "env", user_env(json_object_get(doc, "env")));
	json_object_set_new(v, "status", json_integer(status_of_findings(json_object_get(doc, "findings"))));
	return v;
}

json_t *gt_view_of_scan_text(const char *text, size_t len, const char *source)
{
	json_t *doc = json_loadb(text, len, 0, NULL), *v;
	char err[1024];

	/* this gputrace's own scan: it reads back whole */
	if (!doc || !(v = view_of_scan_json(doc, source, err, sizeof(err))))
		abort();
	json_decref(doc);
	return v;
}

json_t *gt_view_of_report(const struct gt_report *r, const char *source)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *doc, *v = NULL;
	char err[1024];

	if (!f)
		abort();
	gt_render_json(f, r);
	fclose(f);
	doc = json_loadb(buf, len, 0, NULL);
	free(buf);
	if (doc)
		v = view_of_report_json(doc, source, err, sizeof(err));
	json_decref(doc);
	return v;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool load_traces(const char *path, json_t *views, char *err, size_t errcap)
{
	char *paths[1] = { (char *)path };
	struct gt_report r;
	json_t *v;

	if (!gt_report_load(&r, paths, 1, err, errcap)) {
		gt_report_free(&r);
		return false;
	}
	gt_report_analyse(&r);
	v = gt_view_of_report(&r, path);
	gt_report_free(&r);
	if (!v) {
		snprintf(err, errcap, "%s: the report could not be made", path);
		return false;
	}
	json_array_append_new(views, v);
	return true;
}

/* The report and scan documents are version 1. A later version may mean
 * something else by the same keys: refused, never half-read. A document
 * without "version" is taken as 1 (hand-written or cut-down inputs). */
#define GT_VIEW_VERSION 1

static bool version_known(json_t *doc, const char *path, const char *format, char *err, size_t errcap)
{
	json_t *v = json_object_get(doc, "version");
	char shown[64];

	if (!v || (json_is_integer(v) && json_integer_value(v) == GT_VIEW_VERSION))
		return true;
	if (json_is_integer(v))
		snprintf(shown, sizeof(shown), "%lld", (long long)json_integer_value(v));
	else
		snprintf(shown, sizeof(shown), "that is not a number");
	snprintf(err, errcap, "%s: %s version %s is not supported (this gputrace reads version %d)",
		 path, format, shown, GT_VIEW_VERSION);
	return false;
}

static bool load_json_file(const char *path, json_t *views, char *err, size_t errcap)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je), *v;
	const char *format;
	bool ok;

	if (!doc) {
		snprintf(err, errcap, "%s: not a gputrace JSON file: %s (line %d)", path, je.text, je.line);
		return false;
	}
	format = str(doc, "format");
	ok = format && (!strcmp(format, "gputrace-report") || !strcmp(format, "gputrace-scan"));
	if (ok && !version_known(doc, path, format, err, errcap)) {
		json_decref(doc);
		return false;
	}
	if (ok) {
		v = strcmp(format, "gputrace-report") == 0 ? view_of_report_json(doc, path, err, errcap) :
							      view_of_scan_json(doc, path, err, errcap);
		ok = v != NULL;
		if (ok)
			json_array_append_new(views, v);
	} else
		snprintf(err, errcap, "%s: not the JSON of gputrace report --json or scan --json (no \"format\" "
			 "of gputrace-report or gputrace-scan)", path);
	json_decref(doc);
	return ok;
}

/* The scans of a folder (*.scan.json, regular files only), sorted; their
 * count, -1 on error. */
static int list_scans(const char *dir, char ***out)
{
	return gt_list_files(dir, ".scan.json", out);
}

bool gt_folder_has_scans(const char *dir)
{
	char **list;
	int n = list_scans(dir, &list), i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return n > 0;
}

bool gt_view_load_scans(const char *path, json_t *views, char *err, size_t errcap)
{
	struct stat st;
	char **scans;
	int n, i;
	bool ok = true;

	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
		return load_json_file(path, views, err, errcap);
	n = list_scans(path, &scans);
	if (n < 0)
		snprintf(err, errcap, "%s: cannot list: %s", path, strerror(errno));
	for (i = 0; i < n; i++) {
		if (ok)
			ok = load_json_file(scans[i], views, err, errcap);
		free(scans[i]);
	}
	free(scans);
	return ok && n >= 0;
}

bool gt_view_load(const char *path, json_t *views, char *err, size_t errcap)
{
	struct stat st;
	char **scans, **traces;
	int n, ntraces, i;
	bool ok = true;

	if (stat(path, &st) != 0) {
		snprintf(err, errcap, "%s: cannot read: %s", path, strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode))
		return ends_with(path, ".jsonl") ? load_traces(path, views, err, errcap) :
						   load_json_file(path, views, err, errcap);
	ntraces = gt_list_traces(path, &traces);
	gt_free_list(traces, ntraces);
	if (ntraces > 0)
		return load_traces(path, views, err, errcap);
	n = list_scans(path, &scans);
	if (n <= 0) {
		snprintf(err, errcap, "%s: no trace files (*.jsonl) and no scans (*.scan.json) in this folder",
			 path);
		ok = false;
	}
	for (i = 0; i < n; i++) {
		if (ok)
			ok = load_json_file(scans[i], views, err, errcap);
		free(scans[i]);
	}
	free(scans);
	return ok;
}

/* ---- two views */

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The libraries of a view of one component, or of one family (component NULL). */
static json_t *libs_of(json_t *view, const char *family, const char *component)
{
	json_t *out = json_array(), *l;
	size_t i;

	json_array_foreach(json_object_get(view, "libraries"), i, l)
		if (same(str(l, "family"), family) && (!component || same(str(l, "component"), component)))
			json_array_append(out, l);
	return out;
}

static void add_name(json_t *names, const char *s)
{
	size_t i;
	json_t *v;

	if (!s)
		return;
	json_array_foreach(names, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return;
	json_array_append_new(names, json_string(s));
}

/* The names of key over the libraries of both views, in first-seen order. */
static json_t *names_of(json_t *a, json_t *b, const char *key, const char *family)
{
	json_t *names = json_array(), *l, *views[2] = { a, b };
	size_t i;
	int k;

	for (k = 0; k < 2; k++)
		json_array_foreach(json_object_get(views[k], "libraries"), i, l)
			if (!family || same(str(l, "family"), family))
				add_name(names, str(l, key));
	return names;
}

static bool one_has(json_t *set, json_t *l, const char *key)
{
	size_t i;
	json_t *x;

	json_array_foreach(set, i, x)
		if (same(str(x, "path"), str(l, "path")) && same(str(x, key), str(l, key)))
			return true;
	return false;
}

/* The fields in which the copies of a component differ between the sides. */
static json_t *differing_fields(json_t *la, json_t *lb, bool *lib_differs)
{
	static const char *const keys[] = { "path", "version", "rule", "package", "requester" };
	json_t *fields = json_array();
	size_t i, k;
	json_t *x;

	if (json_array_size(la) == 1 && json_array_size(lb) == 1) {
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!same(str(json_array_get(la, 0), keys[k]), str(json_array_get(lb, 0), keys[k])))
				json_array_append_new(fields, json_string(keys[k]));
	} else {
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			bool differs = json_array_size(la) != json_array_size(lb);

			json_array_foreach(la, i, x)
				differs |= !one_has(lb, x, keys[k]);
			if (differs)
				json_array_append_new(fields, json_string(keys[k]));
		}
	}
	json_array_foreach(fields, i, x)
		if (!strcmp(json_string_value(x), "path") || !strcmp(json_string_value(x), "version"))
			*lib_differs = true;
	return fields;
}

static json_t *families_diff(json_t *a, json_t *b, bool *lib_differs)
{
	json_t *out = json_array(), *fams = names_of(a, b, "family", NULL), *fam, *comps, *comp;
	size_t i, k;

	json_array_foreach(fams, i, fam) {
		const char *family = json_string_value(fam);
		json_t *fo = json_object(), *carr = json_array();
		bool fam_same = true;

		comps = names_of(a, b, "component", family);
		json_array_foreach(comps, k, comp) {
			json_t *co = json_object(), *la = libs_of(a, family, json_string_value(comp));
			json_t *lb = libs_of(b, family, json_string_value(comp)), *fields;

			fields = differing_fields(la, lb, lib_differs);
			fam_same &= json_array_size(fields) == 0;
			json_object_set(co, "component", comp);
			json_object_set_new(co, "a", la);
			json_object_set_new(co, "b", lb);
			json_object_set_new(co, "differs", fields);
			json_array_append_new(carr, co);
		}
		json_decref(comps);
		json_object_set(fo, "family", fam);
		json_object_set_new(fo, "same", json_boolean(fam_same));
		json_object_set_new(fo, "components", carr);
		json_array_append_new(out, fo);
	}
	json_decref(fams);
	return out;
}

static bool has_finding(json_t *view, const char *id)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(view, "findings"), i, f)
		if (same(str(f, "id"), id))
			return true;
	return false;
}

/* Findings by id: those of one side that the other has none of. */
static json_t *only_in(json_t *x, json_t *y)
{
	json_t *out = json_array(), *f;
	size_t i;

	json_array_foreach(json_object_get(x, "findings"), i, f)
		if (!has_finding(y, str(f, "id")))
			json_array_append(out, f);
	return out;
}

static json_t *kept(json_t *a, json_t *b)
{
	json_t *out = json_array(), *f;
	size_t i;

	json_array_foreach(json_object_get(a, "findings"), i, f)
		if (has_finding(b, str(f, "id")))
			add_name(out, str(f, "id"));
	return out;
}

static json_t *env_diff(json_t *a, json_t *b)
{
	json_t *out = json_array(), *names = json_array(), *v, *ea = json_object_get(a, "env");
	json_t *eb = json_object_get(b, "env");
	const char *key;
	size_t i;

	json_object_foreach(ea, key, v)
		add_name(names, key);
	json_object_foreach(eb, key, v)
		add_name(names, key);
	json_array_foreach(names, i, v) {
		const char *name = json_string_value(v);
		json_t *o = json_object();

		json_object_set(o, "name", v);
		set_str(o, "a", str(ea, name));
		set_str(o, "b", str(eb, name));
		json_object_set_new(o, "same", json_boolean(same(str(ea, name), str(eb, name))));
		json_array_append_new(out, o);
	}
	json_decref(names);
	return out;
}

static json_t *side(json_t *view)
{
	json_t *o = json_object();

	json_object_set(o, "source", json_object_get(view, "source"));
	json_object_set(o, "kind", json_object_get(view, "kind"));
	json_object_set(o, "label", json_object_get(view, "label"));
	json_object_set(o, "hosts", json_object_get(view, "hosts"));
	json_object_set(o, "status", json_object_get(view, "status"));
	return o;
}

json_t *gt_diff(json_t *a, json_t *b)
{
	json_t *d = json_object(), *fd = json_object();
	bool lib_differs = false;

	json_object_set_new(d, "format", json_string("gputrace-diff"));
	json_object_set_new(d, "version", json_integer(1));
	json_object_set_new(d, "a", side(a));
	json_object_set_new(d, "b", side(b));
	json_object_set_new(d, "families", families_diff(a, b, &lib_differs));
	json_object_set_new(fd, "vanished", only_in(a, b));
	json_object_set_new(fd, "appeared", only_in(b, a));
	json_object_set_new(fd, "kept", kept(a, b));
	json_object_set_new(d, "findings", fd);
	json_object_set_new(d, "env", env_diff(a, b));
	json_object_set_new(d, "libraries_differ", json_boolean(lib_differs));
	return d;
}

/* ---- in words */

static void say_lib(FILE *f, json_t *l)
{
	fprintf(f, "%s %s [%s]", gt_printable(str(l, "path") ? str(l, "path") : "?"),
		str(l, "version") ? str(l, "version") : "?", str(l, "rule") ? str(l, "rule") : "?");
	if (str(l, "package"))
		fprintf(f, " %s", gt_printable(str(l, "package")));
}

static void say_side(FILE *f, const char *mark, json_t *libs)
{
	size_t i;
	json_t *l;

	if (!json_array_size(libs)) {
		fprintf(f, "      %s (not loaded)\n", mark);
		return;
	}
	json_array_foreach(libs, i, l) {
		fprintf(f, "      %s ", mark);
		say_lib(f, l);
		if (str(l, "requester"))
			fprintf(f, " for %s", gt_printable(gt_base_name(str(l, "requester"))));
		fputc('\n', f);
	}
}

static void say_findings(FILE *f, json_t *arr, const char *how)
{
	size_t i;
	json_t *x;

	json_array_foreach(arr, i, x)
		fprintf(f, "  %s %s (%s): %s\n", how, str(x, "id"), str(x, "severity") ? str(x, "severity") : "?",
			gt_printable(str(x, "summary") ? str(x, "summary") : ""));
}

static void say_fields(FILE *f, json_t *fields)
{
	size_t i;
	json_t *x;

	json_array_foreach(fields, i, x)
		fprintf(f, "%s%s", i ? ", " : "", json_string_value(x));
}

void gt_render_diff_text(FILE *f, json_t *d)
{
	json_t *a = json_object_get(d, "a"), *b = json_object_get(d, "b"), *fam, *c, *e;
	json_t *fd = json_object_get(d, "findings");
	size_t i, k;

	fprintf(f, "gputrace diff\n  a: %s (%s)\n  b: %s (%s)\n", gt_printable(str(a, "source")),
		gt_printable(str(a, "label")), gt_printable(str(b, "source")), gt_printable(str(b, "label")));
	json_array_foreach(json_object_get(d, "families"), i, fam) {
		if (json_is_true(json_object_get(fam, "same"))) {
			fprintf(f, "%s: the same\n", str(fam, "family"));
			continue;
		}
		fprintf(f, "%s: differs\n", str(fam, "family"));
		json_array_foreach(json_object_get(fam, "components"), k, c) {
			if (!json_array_size(json_object_get(c, "differs")))
				continue;
			fprintf(f, "  %s (", str(c, "component"));
			say_fields(f, json_object_get(c, "differs"));
			fprintf(f, ")\n");
			say_side(f, "a:", json_object_get(c, "a"));
			say_side(f, "b:", json_object_get(c, "b"));
		}
	}
	if (!json_array_size(json_object_get(d, "families")))
		fprintf(f, "no CUDA library on either side\n");
	fprintf(f, "findings:\n");
	say_findings(f, json_object_get(fd, "vanished"), "- gone in b:");
	say_findings(f, json_object_get(fd, "appeared"), "+ new in b:");
	json_array_foreach(json_object_get(fd, "kept"), i, e)
		fprintf(f, "  = in both: %s\n", json_string_value(e));
	if (!json_array_size(json_object_get(fd, "vanished")) && !json_array_size(json_object_get(fd, "appeared")) &&
	    !json_array_size(json_object_get(fd, "kept")))
		fprintf(f, "  none on either side\n");
	fprintf(f, "environment:\n");
	json_array_foreach(json_object_get(d, "env"), i, e) {
		fprintf(f, "  %s %s\n", json_is_true(json_object_get(e, "same")) ? "=" : "!", str(e, "name"));
		fprintf(f, "      a: %s\n", str(e, "a") ? gt_printable(str(e, "a")) : "(unset)");
		if (!json_is_true(json_object_get(e, "same")))
			fprintf(f, "      b: %s\n", str(e, "b") ? gt_printable(str(e, "b")) : "(unset)");
	}
	if (!json_array_size(json_object_get(d, "env")))
		fprintf(f, "  nothing that steers loading is set on either side\n");
	fprintf(f, "%s\n", json_is_true(json_object_get(d, "libraries_differ")) ?
		"a CUDA library differs" : "the same CUDA libraries");
}
