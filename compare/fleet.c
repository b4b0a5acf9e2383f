/* Fleets: many hosts' scans (or many runs) grouped by what they hold, the odd
 * ones named against the largest group; and the Prometheus textfile (diff.h). */
#define _GNU_SOURCE
#include "compare/diff.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "render/printable.h"

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What makes two views the same: their libraries (family, component,
 * version, path, rule), sorted, as one string. */
static char *signature(json_t *view)
{
	json_t *libs = json_object_get(view, "libraries"), *l;
	size_t n = json_array_size(libs), i, len = 1;
	char **lines = gt_xcalloc(n ? n : 1, sizeof(*lines)), *out;

	json_array_foreach(libs, i, l) {
		lines[i] = gt_xasprintf("%s|%s|%s|%s|%s\n", str(l, "family"), str(l, "component"),
					str(l, "version") ? str(l, "version") : "", str(l, "path") ? str(l, "path") : "",
					str(l, "rule") ? str(l, "rule") : "");
		len += strlen(lines[i]);
	}
	qsort(lines, n, sizeof(*lines), by_string);
	out = gt_xmalloc(len);
	out[0] = 0;
	for (i = 0; i < n; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	return out;
}

static void add_hosts(json_t *to, json_t *view)
{
	size_t i;
	json_t *h;

	json_array_foreach(json_object_get(view, "hosts"), i, h)
		json_array_append(to, h);
}

/* The components in which the odd group's libraries differ from the
 * majority's, each with both sides. */
static json_t *differences(json_t *odd, json_t *major)
{
	json_t *d = gt_diff(major, odd), *out = json_array(), *fam, *c;
	size_t i, k;

	json_array_foreach(json_object_get(d, "families"), i, fam)
		json_array_foreach(json_object_get(fam, "components"), k, c)
			if (json_array_size(json_object_get(c, "differs"))) {
				json_t *o = json_object();

				json_object_set(o, "family", json_object_get(fam, "family"));
				json_object_set(o, "component", json_object_get(c, "component"));
				json_object_set(o, "differs", json_object_get(c, "differs"));
				json_object_set(o, "this", json_object_get(c, "b"));
				json_object_set(o, "others", json_object_get(c, "a"));
				json_array_append_new(out, o);
			}
	json_decref(d);
	return out;
}

static int by_size(const void *a, const void *b)
{
	size_t x = json_array_size(json_object_get(*(json_t *const *)a, "members"));
	size_t y = json_array_size(json_object_get(*(json_t *const *)b, "members"));

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Each input in short: where from, whose, its status and findings. */
static json_t *inputs_of(json_t *views)
{
	static const char *const keys[] = { "source", "kind", "label", "hosts", "status", "findings" };
	json_t *arr = json_array(), *v;
	size_t i, k;

	json_array_foreach(views, i, v) {
		json_t *o = json_object();

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			json_object_set(o, keys[k], json_object_get(v, keys[k]));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *gt_fleet(json_t *views)
{
	size_t n = json_array_size(views), ng = 0, i, k;
	json_t **groups = gt_xcalloc(n ? n : 1, sizeof(*groups)), *out = json_object(), *arr = json_array();
	char **sigs = gt_xcalloc(n ? n : 1, sizeof(*sigs));
	json_t *v;

	json_array_foreach(views, i, v) {
		char *sig = signature(v);

		for (k = 0; k < ng && strcmp(sigs[k], sig) != 0; k++)
			;
		if (k == ng) {
			groups[ng] = json_object();
			json_object_set_new(groups[ng], "members", json_array());
			json_object_set_new(groups[ng], "hosts", json_array());
			json_object_set(groups[ng], "view", v);
			sigs[ng++] = sig;
		} else {
			free(sig);
		}
		json_array_append_new(json_object_get(groups[k], "members"), json_incref(json_object_get(v, "source")));
		add_hosts(json_object_get(groups[k], "hosts"), v);
	}
	/* The largest first; a tie keeps the order the inputs came in. */
	for (i = 1; i < ng; i++)
		for (k = i; k > 0 && by_size(&groups[k - 1], &groups[k]) > 0; k--) {
			json_t *t = groups[k];

			groups[k] = groups[k - 1];
			groups[k - 1] = t;
		}
	for (i = 0; i < ng; i++) {
		json_object_set_new(groups[i], "count", json_integer((json_int_t)json_array_size(
							   json_object_get(groups[i], "members"))));
		if (i > 0)
			json_object_set_new(groups[i], "differences",
					    differences(json_object_get(groups[i], "view"),
							json_object_get(groups[0], "view")));
	}
	for (i = 0; i < ng; i++) {
		json_object_del(groups[i], "view");
		json_array_append_new(arr, groups[i]);
		free(sigs[i]);
	}
	free(groups);
	free(sigs);
	json_object_set_new(out, "format", json_string("gputrace-fleet"));
	json_object_set_new(out, "version", json_integer(1));
	json_object_set_new(out, "count", json_integer((json_int_t)n));
	json_object_set_new(out, "groups", arr);
	json_object_set_new(out, "inputs", inputs_of(views));
	return out;
}

int gt_fleet_status(json_t *fleet)
{
	return json_array_size(json_object_get(fleet, "groups")) > 1;
}

int gt_fleet_inputs_status(json_t *fleet)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(fleet, "inputs"), i, v)
		if (json_integer_value(json_object_get(v, "status")) == 1)
			return 1;
	return 0;
}

/* "host gpu17" / "hosts a, b and c" / "3 hosts: a, b, c ..." */
static void say_who(FILE *f, json_t *g)
{
	json_t *hosts = json_object_get(g, "hosts"), *members = json_object_get(g, "members"), *h;
	json_t *names = json_array_size(hosts) ? hosts : members;
	size_t n = json_array_size(names), i;

	fprintf(f, "%s ", n == 1 ? (json_array_size(hosts) ? "host" : "run") : (json_array_size(hosts) ? "hosts" : "runs"));
	json_array_foreach(names, i, h) {
		if (i == 6) {
			fprintf(f, " and %zu more", n - 6);
			break;
		}
		fprintf(f, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", gt_printable(json_string_value(h)));
	}
}

static bool listed_same(json_t *libs, json_t *l)
{
	size_t i;
	json_t *x;

	json_array_foreach(libs, i, x)
		if (json_equal(json_object_get(x, "path"), json_object_get(l, "path")) &&
		    json_equal(json_object_get(x, "version"), json_object_get(l, "version")) &&
		    json_equal(json_object_get(x, "rule"), json_object_get(l, "rule")))
			return true;
	return false;
}

/* The copies of libs that the other side does not have as they are. */
static void say_libs(FILE *f, json_t *libs, json_t *other)
{
	size_t i, shown = 0;
	json_t *l;

	json_array_foreach(libs, i, l) {
		const char *path = str(l, "path");
		char dir[4096];

		if (listed_same(other, l))
			continue;

		gt_folder_of(path ? path : "?", dir, sizeof(dir));
		fprintf(f, "%s%s in %s [%s]", shown++ ? ", " : "", str(l, "version") ? str(l, "version") : "?",
			gt_printable(dir), str(l, "rule") ? str(l, "rule") : "?");
		if (str(l, "package"))
			fprintf(f, " (%s)", gt_printable(str(l, "package")));
	}
	if (!shown)
		fprintf(f, "none");
}

void gt_render_fleet_text(FILE *f, json_t *fleet)
{
	json_t *groups = json_object_get(fleet, "groups"), *g, *major = json_array_get(groups, 0), *d;
	size_t i, k, others = (size_t)json_integer_value(json_object_get(major, "count"));

	fprintf(f, "gputrace: %lld inputs in %zu group%s of identical CUDA libraries\n",
		json_integer_value(json_object_get(fleet, "count")), json_array_size(groups),
		json_array_size(groups) == 1 ? "" : "s");
	json_array_foreach(groups, i, g) {
		fprintf(f, "  %lld: ", json_integer_value(json_object_get(g, "count")));
		say_who(f, g);
		fputc('\n', f);
	}
	json_array_foreach(groups, i, g) {
		if (i == 0)
			continue;
		json_array_foreach(json_object_get(g, "differences"), k, d) {
			say_who(f, g);
			fprintf(f, ": %s ", str(d, "component"));
			say_libs(f, json_object_get(d, "this"), json_object_get(d, "others"));
			fprintf(f, "; %zu other%s: ", others, others == 1 ? "" : "s");
			say_libs(f, json_object_get(d, "others"), json_object_get(d, "this"));
			fputc('\n', f);
		}
	}
	if (json_array_size(groups) <= 1)
		fprintf(f, "all the same\n");
	json_array_foreach(json_object_get(fleet, "inputs"), i, g)
		json_array_foreach(json_object_get(g, "findings"), k, d)
			fprintf(f, "%s: %s %s: %s\n", gt_printable(str(g, "label")), str(d, "severity"), str(d, "id"),
				gt_printable(str(d, "summary")));
}

/* ---- Prometheus: the text exposition format, as node_exporter's
 * textfile collector reads it */

static void label(FILE *f, const char *name, const char *value, bool first)
{
	const char *s;

	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (s = value ? value : ""; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static const char *first_host(json_t *v)
{
	const char *h = json_string_value(json_array_get(json_object_get(v, "hosts"), 0));

	return h ? h : "";
}

void gt_render_prometheus(FILE *f, json_t *views)
{
	json_t *v, *x, *fleet = gt_fleet(views), *g, *counts = json_object();
	const char *name;
	size_t i, k;

	fputs("# HELP gputrace_cuda_library A CUDA library file the host holds (scan) or a run loaded "
	      "(report): 1 per copy.\n# TYPE gputrace_cuda_library gauge\n", f);
	json_array_foreach(views, i, v)
		json_array_foreach(json_object_get(v, "libraries"), k, x) {
			fputs("gputrace_cuda_library{", f);
			label(f, "host", first_host(v), true);
			label(f, "family", str(x, "family"), false);
			label(f, "component", str(x, "component"), false);
			label(f, "version", str(x, "version"), false);
			label(f, "path", str(x, "path"), false);
			label(f, "rule", str(x, "rule"), false);
			fputs("} 1\n", f);
		}
	fputs("# HELP gputrace_finding Findings of gputrace of this id and severity on the host.\n"
	      "# TYPE gputrace_finding gauge\n", f);
	/* One series per label set: findings of one id on one host are counted. */
	json_array_foreach(views, i, v)
		json_array_foreach(json_object_get(v, "findings"), k, x) {
			char *key = gt_xasprintf("%s\037%s\037%s", first_host(v), str(x, "id"), str(x, "severity"));
			json_int_t n = json_integer_value(json_object_get(counts, key));

			json_object_set_new(counts, key, json_integer(n + 1));
			free(key);
		}
	json_object_foreach(counts, name, x) {
		char *copy = gt_xstrdup(name), *id = strchr(copy, '\037'), *sev;

		*id++ = 0;
		sev = strchr(id, '\037');
		*sev++ = 0;
		fputs("gputrace_finding{", f);
		label(f, "host", copy, true);
		label(f, "id", id, false);
		label(f, "severity", sev, false);
		fprintf(f, "} %lld\n", (long long)json_integer_value(x));
		free(copy);
	}
	json_decref(counts);
	fputs("# HELP gputrace_fleet_odd 1 when the host's CUDA libraries differ from the largest group's.\n"
	      "# TYPE gputrace_fleet_odd gauge\n", f);
	json_array_foreach(json_object_get(fleet, "groups"), i, g)
		json_array_foreach(json_object_get(g, "hosts"), k, x) {
			fputs("gputrace_fleet_odd{", f);
			label(f, "host", json_string_value(x), true);
			fprintf(f, "} %d\n", i > 0);
		}
	json_decref(fleet);
}
