/* Trace reader: JSON Lines from libgputrace.so into struct gt_process. */
#define _GNU_SOURCE
#include "report/trace_read.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputrace/trace_format.h"

/* A line longer than this is not something libgputrace.so writes. */
#define MAX_LINE (1 << 20)

static char *xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		abort();
	return d;
}

static void *grow(void *arr, size_t n, size_t size)
{
	/* Doubling at powers of two keeps appends linear. */
	if (n && (n & (n - 1)))
		return arr;
	arr = realloc(arr, (n ? 2 * n : 4) * size);
	if (!arr)
		abort();
	return arr;
}

/* A string field, preferring the exact bytes of "<key>_hex" when present. */
static char *field(json_t *o, const char *key)
{
	char hexkey[64];
	json_t *v;

	snprintf(hexkey, sizeof(hexkey), "%s" GT_HEX_SUFFIX, key);
	v = json_object_get(o, hexkey);
	if (json_is_string(v)) {
		const char *h = json_string_value(v);
		size_t n = strlen(h) / 2, i;
		char *out = malloc(n + 1);
		unsigned int b;

		if (!out)
			abort();
		for (i = 0; i < n && sscanf(h + 2 * i, "%2x", &b) == 1; i++)
			out[i] = (char)b;
		out[i] = 0;
		return out;
	}
	v = json_object_get(o, key);
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static struct gt_search *find_search(struct gt_process *p, unsigned long seq)
{
	size_t i;

	for (i = p->nsearches; i-- > 0;)
		if (p->searches[i].seq == seq)
			return &p->searches[i];
	return NULL;
}

/* The identity of the process: from the header of its latest program image,
 * since after an exec (a shell wrapper, mpirun's fork stage) the program that
 * ran is the last one. */
static void take_identity(struct gt_process *p, json_t *o)
{
	json_t *argv = json_object_get(o, "argv"), *v, *rank = json_object_get(o, "rank");
	json_t *size = json_object_get(o, "world_size");
	size_t i;

	free(p->exe);
	free(p->host);
	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	p->argv = NULL;
	p->argc = 0;
	json_decref(p->env);
	p->env = json_incref(json_object_get(o, "env"));
	p->pid = (long)json_integer_value(json_object_get(o, GT_K_PID));
	p->ppid = (long)json_integer_value(json_object_get(o, "ppid"));
	p->rank = json_is_integer(rank) ? (long)json_integer_value(rank) : -1;
	p->world_size = json_is_integer(size) ? (long)json_integer_value(size) : -1;
	p->host = field(o, "host");
	p->exe = field(o, "exe");
	json_array_foreach(argv, i, v) {
		p->argv = grow(p->argv, p->argc, sizeof(char *));
		p->argv[p->argc++] = xstrdup(json_string_value(v));
	}
}

static void on_header(struct gt_process *p, json_t *o, bool *seen_header)
{
	const char *src = json_string_value(json_object_get(o, GT_K_SOURCE));
	const char *image = json_string_value(json_object_get(o, "image"));
	bool new_image = !*seen_header || (image && strcmp(image, p->image) != 0);

	/* Both halves write a header per image; a new image id is an exec. */
	if (new_image) {
		p->images++;
		p->clean_end = false;  /* the end line belongs to the last image */
		take_identity(p, o);
	}
	if (image)
		snprintf(p->image, sizeof(p->image), "%s", image);
	if (src && strcmp(src, "audit") == 0)
		p->audit_seen = true;
	/* Either half may open a fork child's file first; the preload half's
	 * header says "fork". Only the first image counts. */
	if (p->images == 1 && json_is_true(json_object_get(o, "fork")))
		p->forked = true;
	*seen_header = true;
}

static void on_search(struct gt_process *p, json_t *o)
{
	struct gt_search *s;

	p->searches = grow(p->searches, p->nsearches, sizeof(*s));
	s = &p->searches[p->nsearches++];
	memset(s, 0, sizeof(*s));
	s->seq = (unsigned long)json_integer_value(json_object_get(o, GT_K_SEQ));
	s->ours = p->in_queries;
	s->name = field(o, GT_K_NAME);
	s->requester = field(o, GT_K_REQUESTER);
}

/* The candidates of a search come with its conclusion (open or search_end). */
static void take_tries(struct gt_search *s, json_t *o)
{
	json_t *tries = json_object_get(o, GT_K_TRIES), *t;
	size_t i;

	json_array_foreach(tries, i, t) {
		s->tries = grow(s->tries, s->ntries, sizeof(*s->tries));
		s->tries[s->ntries].path = field(t, GT_K_PATH);
		s->tries[s->ntries++].rule = field(t, GT_K_RULE);
	}
}

static struct gt_object *add_object(struct gt_process *p, json_t *o)
{
	struct gt_object *ob;

	p->objects = grow(p->objects, p->nobjects, sizeof(*ob));
	ob = &p->objects[p->nobjects++];
	memset(ob, 0, sizeof(*ob));
	ob->path = field(o, GT_K_PATH);
	ob->ns = (long)json_integer_value(json_object_get(o, GT_K_NS));
	return ob;
}

static void on_open(struct gt_process *p, json_t *o)
{
	struct gt_object *ob = add_object(p, o);
	json_t *seq = json_object_get(o, GT_K_SEARCH);
	struct gt_search *s = json_is_integer(seq) ? find_search(p, (unsigned long)json_integer_value(seq)) : NULL;

	ob->soname = field(o, GT_K_SONAME);
	ob->cudart_static = json_is_true(json_object_get(o, "cudart_static"));
	ob->main = json_is_true(json_object_get(o, "main"));
	ob->name = field(o, GT_K_NAME);
	ob->rule = field(o, GT_K_RULE);
	if (s) {
		take_tries(s, o);
		ob->requester = xstrdup(s->requester);
		free(s->result);
		s->result = xstrdup("found");
		s->path = xstrdup(ob->path);
	}
}

static void on_search_end(struct gt_process *p, json_t *o)
{
	struct gt_search *s = find_search(p, (unsigned long)json_integer_value(json_object_get(o, GT_K_SEARCH)));

	if (!s)
		return;
	free(s->result);
	s->result = field(o, GT_K_RESULT);
	s->path = field(o, GT_K_PATH);
	take_tries(s, o);
}

static void on_close(struct gt_process *p, json_t *o)
{
	char *path = field(o, GT_K_PATH);
	size_t i;

	for (i = p->nobjects; path && i-- > 0;)
		if (!p->objects[i].closed && p->objects[i].path && strcmp(p->objects[i].path, path) == 0) {
			p->objects[i].closed = true;
			break;
		}
	free(path);
}

/* The exit listing adds what the audit half did not see (LD_PRELOAD alone). */
static void on_linkmap(struct gt_process *p, json_t *o)
{
	char *path = field(o, GT_K_PATH);
	size_t i;

	for (i = 0; path && i < p->nobjects; i++)
		if (p->objects[i].path && strcmp(p->objects[i].path, path) == 0 && !p->objects[i].closed)
			goto out;
	if (path)
		add_object(p, o)->from_linkmap = true;
out:
	free(path);
}

static int int_of(json_t *o, const char *key)
{
	return (int)json_integer_value(json_object_get(o, key));
}

static void on_call(struct gt_process *p, json_t *o)
{
	struct gt_call *c;

	p->calls = grow(p->calls, p->ncalls, sizeof(*c));
	c = &p->calls[p->ncalls++];
	c->fn = field(o, GT_K_FN);
	c->status = int_of(o, GT_K_STATUS);
	c->status_name = field(o, GT_K_STATUS_NAME);
	c->reason = field(o, "reason");
	c->lib = field(o, GT_K_LIB);
	c->has_value = json_is_integer(json_object_get(o, "value"));
	c->value = json_integer_value(json_object_get(o, "value"));
}

static void on_totals(struct gt_process *p, json_t *o)
{
	struct gt_total *t;

	p->totals = grow(p->totals, p->ntotals, sizeof(*t));
	t = &p->totals[p->ntotals++];
	t->fn = field(o, GT_K_FN);
	t->status = int_of(o, GT_K_STATUS);
	t->status_name = field(o, GT_K_STATUS_NAME);
	t->count = (unsigned long long)json_integer_value(json_object_get(o, GT_K_COUNT));
	t->bytes = (unsigned long long)json_integer_value(json_object_get(o, GT_K_BYTES));
}

static void on_alloc_fail(struct gt_process *p, json_t *o)
{
	struct gt_alloc_fail *a;

	p->alloc_fails = grow(p->alloc_fails, p->nalloc_fails, sizeof(*a));
	a = &p->alloc_fails[p->nalloc_fails++];
	a->fn = field(o, GT_K_FN);
	a->size = (unsigned long long)json_integer_value(json_object_get(o, GT_K_SIZE));
	a->status = int_of(o, GT_K_STATUS);
	a->status_name = field(o, GT_K_STATUS_NAME);
}

static void on_version(struct gt_process *p, json_t *o)
{
	struct gt_version *v;

	p->versions = grow(p->versions, p->nversions, sizeof(*v));
	v = &p->versions[p->nversions++];
	v->lib = field(o, GT_K_LIB);
	v->fn = field(o, GT_K_FN);
	v->property = json_is_integer(json_object_get(o, "property")) ? int_of(o, "property") : -1;
	v->status = int_of(o, GT_K_STATUS);
	v->value = json_integer_value(json_object_get(o, "value"));
}

static void on_allocs(struct gt_process *p, json_t *o)
{
	p->has_allocs = true;
	p->peak_bytes = json_integer_value(json_object_get(o, "peak_bytes"));
	p->held_bytes = json_integer_value(json_object_get(o, "held_bytes"));
	p->failed_allocs = (unsigned long long)json_integer_value(json_object_get(o, "failed"));
	p->partial |= json_is_true(json_object_get(o, GT_K_PARTIAL));
}

static void on_note(struct gt_process *p, json_t *o)
{
	const char *what = json_string_value(json_object_get(o, "what"));

	if (!what)
		return;
	if (strcmp(what, "gputrace_queries_begin") == 0)
		p->in_queries = true;
	else if (strcmp(what, "gputrace_queries_end") == 0)
		p->in_queries = false;
	else if (strcmp(what, "fatal_signal") == 0)
		p->fatal_signal = int_of(o, "signal");
}

/* Written by the launcher after the process it started ended. */
static void on_reaped(struct gt_process *p, json_t *o)
{
	p->reaped = true;
	p->exit_status = int_of(o, "exit_status");
	p->reaped_signal = int_of(o, "signal");
}

static bool on_line(struct gt_process *p, json_t *o, bool *seen_header, const char **why)
{
	const char *ev = json_string_value(json_object_get(o, GT_K_EV));

	if (!ev) {
		*why = "no \"ev\" key";
		return false;
	}
	if (!*seen_header && strcmp(ev, "header") != 0) {
		*why = "the first line is not a gputrace header";
		return false;
	}
	if (strcmp(ev, "header") == 0) {
		const char *fmt = json_string_value(json_object_get(o, "format"));
		json_int_t ver = json_integer_value(json_object_get(o, "version"));

		if (!fmt || strcmp(fmt, GT_FORMAT_NAME) != 0) {
			*why = "not a gputrace trace (format)";
			return false;
		}
		if (ver != GT_FORMAT_VERSION) {
			*why = "trace format version not supported by this gputrace";
			return false;
		}
		on_header(p, o, seen_header);
	} else if (strcmp(ev, "search") == 0) {
		on_search(p, o);
	} else if (strcmp(ev, "open") == 0) {
		on_open(p, o);
	} else if (strcmp(ev, "search_end") == 0) {
		on_search_end(p, o);
	} else if (strcmp(ev, "close") == 0) {
		on_close(p, o);
	} else if (strcmp(ev, "linkmap") == 0) {
		on_linkmap(p, o);
	} else if (strcmp(ev, "end") == 0) {
		p->clean_end = true;
	} else if (strcmp(ev, "call") == 0) {
		on_call(p, o);
	} else if (strcmp(ev, "calls") == 0) {
		on_totals(p, o);
	} else if (strcmp(ev, "alloc_fail") == 0) {
		on_alloc_fail(p, o);
	} else if (strcmp(ev, "version") == 0) {
		on_version(p, o);
	} else if (strcmp(ev, "allocs") == 0) {
		on_allocs(p, o);
	} else if (strcmp(ev, "note") == 0) {
		on_note(p, o);
	} else if (strcmp(ev, "reaped") == 0) {
		on_reaped(p, o);
	}
	/* Unknown events are skipped: newer writers may add kinds. */
	return true;
}

bool gt_read_trace(const char *path, struct gt_process *p, char *err, size_t errcap)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	bool seen_header = false, ok = false;
	const char *why = NULL;

	memset(p, 0, sizeof(*p));
	p->file = xstrdup(path);
	if (!f) {
		snprintf(err, errcap, "%s: %s", path, strerror(errno));
		return false;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		json_error_t jerr;
		json_t *o;

		lineno++;
		if (n > MAX_LINE) {
			why = "line too long";
			goto bad;
		}
		if (line[n - 1] != '\n') {
			/* Every line is written whole with one write(2), so even a
			 * killed process leaves none half-written: this file was cut. */
			why = "truncated: the last line is cut off";
			goto bad;
		}
		o = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
		if (!json_is_object(o)) {
			json_decref(o);
			why = "not a JSON object";
			goto bad;
		}
		ok = on_line(p, o, &seen_header, &why);
		json_decref(o);
		if (!ok)
			goto bad;
	}
	if (!seen_header) {
		snprintf(err, errcap, "%s: empty or not a gputrace trace", path);
		ok = false;
		goto out;
	}
	ok = true;
	goto out;
bad:
	snprintf(err, errcap, "%s:%ld: %s", path, lineno, why);
	ok = false;
out:
	free(line);
	fclose(f);
	return ok;
}

void gt_process_free(struct gt_process *p)
{
	size_t i, k;

	for (i = 0; i < p->nobjects; i++) {
		free(p->objects[i].path);
		free(p->objects[i].soname);
		free(p->objects[i].name);
		free(p->objects[i].requester);
		free(p->objects[i].rule);
	}
	for (i = 0; i < p->nsearches; i++) {
		struct gt_search *s = &p->searches[i];

		for (k = 0; k < s->ntries; k++) {
			free(s->tries[k].path);
			free(s->tries[k].rule);
		}
		free(s->tries);
		free(s->name);
		free(s->requester);
		free(s->result);
		free(s->path);
	}
	for (i = 0; i < p->ncalls; i++) {
		free(p->calls[i].fn);
		free(p->calls[i].status_name);
		free(p->calls[i].reason);
		free(p->calls[i].lib);
	}
	for (i = 0; i < p->ntotals; i++) {
		free(p->totals[i].fn);
		free(p->totals[i].status_name);
	}
	for (i = 0; i < p->nalloc_fails; i++) {
		free(p->alloc_fails[i].fn);
		free(p->alloc_fails[i].status_name);
	}
	for (i = 0; i < p->nversions; i++) {
		free(p->versions[i].lib);
		free(p->versions[i].fn);
	}
	free(p->calls);
	free(p->totals);
	free(p->alloc_fails);
	free(p->versions);
	json_decref(p->env);
	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->objects);
	free(p->searches);
	free(p->file);
	free(p->host);
	free(p->exe);
	memset(p, 0, sizeof(*p));
}

const char *gt_process_env(const struct gt_process *p, const char *name)
{
	return json_string_value(json_object_get(p->env, name));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int gt_list_traces(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **list = NULL;
	int n = 0;

	*out = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		char *full;

		if (len < 7 || strcmp(e->d_name + len - 6, ".jsonl") != 0)
			continue;
		if (asprintf(&full, "%s/%s", dir, e->d_name) < 0)
			abort();
		list = grow(list, (size_t)n, sizeof(char *));
		list[n++] = full;
	}
	closedir(d);
	if (n)
		qsort(list, (size_t)n, sizeof(char *), by_name);
	*out = list;
	return n;
}

void gt_free_list(char **list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}
