/* Trace reader: JSON Lines from libgputrace.so into struct gt_process. */
#define _GNU_SOURCE
#include "read/trace_read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputrace/trace_format.h"
#include "common/hex.h"
#include "common/xalloc.h"
#include "read/json_line.h"

/* A line longer than this is not something libgputrace.so writes. */
#define MAX_LINE (1 << 20)

static void *grow(void *arr, size_t n, size_t size)
{
	/* Doubling at powers of two keeps appends linear. */
	if (n && (n & (n - 1)))
		return arr;
	arr = gt_xrealloc(arr, (n ? 2 * n : 4) * size);
	return arr;
}

/* The exact bytes a "<key>_hex" value spells (common/hex.h), or NULL where
 * it spells none: the plain value is read then. A NUL byte, which the writer
 * never spells (its values are C strings), ends the string there. */
static char *hex_bytes(const char *h)
{
	size_t n = h ? strlen(h) : 0;
	char *out;

	if (!h)
		return NULL;
	out = gt_xmalloc(n / 2 + 1);
	if (!gt_hex_read(h, n, out)) {
		free(out);
		return NULL;
	}
	out[n / 2] = 0;
	return out;
}

/* A string field of a header, preferring the exact bytes of "<key>_hex". */
static char *header_field(json_t *o, const char *key)
{
	char hexkey[64], *b;
	json_t *v;

	snprintf(hexkey, sizeof(hexkey), "%s" GT_HEX_SUFFIX, key);
	if ((b = hex_bytes(json_string_value(json_object_get(o, hexkey)))))
		return b;
	v = json_object_get(o, key);
	return json_is_string(v) ? gt_xstrdup(json_string_value(v)) : NULL;
}

/* A string field of an event line, the same way. */
static char *field(const struct gt_jv *o, const char *key)
{
	const struct gt_jv *plain, *hex;
	const char *v;
	char *b;

	gt_jv_get_both(o, key, GT_HEX_SUFFIX, &plain, &hex);
	if ((b = hex_bytes(gt_jv_str(hex))))
		return b;
	v = gt_jv_str(plain);
	return v ? gt_xstrdup(v) : NULL;
}

/* The "rule" of a line, named by the contract's table. */
/* A line's t_us (microseconds since the epoch); 0 when it has none. */
static unsigned long long time_of(const struct gt_jv *o)
{
	long long t = gt_jv_int(gt_jv_get(o, GT_K_TIME, NULL));

	return t > 0 ? (unsigned long long)t : 0;
}

static enum gt_rule rule_field(const struct gt_jv *o)
{
	const char *v = gt_jv_str(gt_jv_get(o, GT_K_RULE, NULL));

	return v ? gt_rule_from_name(v) : GT_RULE_NONE;
}

/* Who wrote a header: the one reading of it, for a full parse and for a
 * trace that only joins a known group (gt_read_identity). */
static void identity_of(json_t *o, struct gt_identity *id)
{
	json_t *rank = json_object_get(o, GT_K_RANK), *size = json_object_get(o, GT_K_WORLD_SIZE);

	id->pid = (long)json_integer_value(json_object_get(o, GT_K_PID));
	id->ppid = (long)json_integer_value(json_object_get(o, GT_K_PPID));
	id->rank = json_is_integer(rank) ? (long)json_integer_value(rank) : -1;
	id->world_size = json_is_integer(size) ? (long)json_integer_value(size) : -1;
	id->host = header_field(o, GT_K_HOST);
}

/* A header checked: this format, this version. */
static bool header_ok(json_t *o, const char **why)
{
	const char *fmt = json_string_value(json_object_get(o, GT_K_FORMAT));

	if (!fmt || strcmp(fmt, GT_FORMAT_NAME) != 0) {
		*why = "not a gputrace trace (format)";
		return false;
	}
	if (json_integer_value(json_object_get(o, GT_K_VERSION)) != GT_FORMAT_VERSION) {
		*why = "trace format version not supported by this gputrace";
		return false;
	}
	return true;
}

/* argv[0] and argv[1], space between (a script's interpreter and the
 * script): enough to name a helper process; malloc'd, NULL without argv. */
char *gt_command_words(char *const *argv, size_t argc)
{
	size_t n = argc > 1 ? 2 : argc, len = 0, i;
	char *out;

	if (!n)
		return NULL;
	for (i = 0; i < n; i++)
		len += strlen(argv[i] ? argv[i] : "") + 1;
	out = gt_xmalloc(len + 1);
	out[0] = 0;
	for (i = 0; i < n; i++)
		strcat(strcat(out, i ? " " : ""), argv[i] ? argv[i] : "");
	return out;
}

static char *command_words(json_t *argv)
{
	char *words[2] = { NULL, NULL };
	size_t n = json_array_size(argv) > 1 ? 2 : json_array_size(argv), i;

	for (i = 0; i < n; i++)
		words[i] = (char *)json_string_value(json_array_get(argv, i));
	return gt_command_words(words, n);
}

bool gt_read_identity(const char *header_line, struct gt_identity *id)
{
	json_t *h = json_loads(header_line, 0, NULL);

	const char *why = NULL;

	memset(id, 0, sizeof(*id));
	if (!json_is_object(h) || gt_event_from_name(json_string_value(json_object_get(h, GT_K_EV))) !=
	    GT_EV_HEADER || !header_ok(h, &why)) {
		json_decref(h);
		return false;
	}
	identity_of(h, id);
	id->command = command_words(json_object_get(h, GT_K_ARGV));
	json_decref(h);
	return true;
}

/* The identity of the process: from the header of its latest program image,
 * since after an exec (a shell wrapper, mpirun's fork stage) the program that
 * ran is the last one. */
static void take_identity(struct gt_process *p, json_t *o)
{
	json_t *argv = json_object_get(o, GT_K_ARGV), *v;
	struct gt_identity id;
	size_t i;

	free(p->exe);
	free(p->cwd);
	free(p->host);
	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	p->argv = NULL;
	p->argc = 0;
	json_decref(p->env);
	p->env = json_incref(json_object_get(o, GT_K_ENV));
	identity_of(o, &id);
	p->pid = id.pid;
	p->ppid = id.ppid;
	p->rank = id.rank;
	p->world_size = id.world_size;
	p->host = id.host;
	p->exe = header_field(o, GT_K_EXE);
	p->cwd = header_field(o, GT_K_CWD);
	p->start_ticks = (unsigned long long)json_integer_value(json_object_get(o, GT_K_START_TICKS));
	/* The writer puts strings only (escaped where they are not UTF-8); any
	 * other element is damage, kept as "" so that the others keep their
	 * places and no reader of argv meets a NULL (the fuzzer's: a header
	 * whose argv[0] was an object crashed the DOT graph's label). */
	json_array_foreach(argv, i, v) {
		const char *arg = json_string_value(v);

		p->argv = grow(p->argv, p->argc, sizeof(char *));
		p->argv[p->argc++] = gt_xstrdup(arg ? arg : "");
	}
}

/* The reader's own state while it goes through one file; none of it is
 * part of what the file says. */
/* A hash index from a key to the latest record that has it, so that the
 * reader stays linear however many lines a trace has (a search concluded,
 * an object closed or listed again is found without a walk). It holds
 * record numbers; the caller compares the keys. */
struct index {
	size_t *slot;         /* record number + 1; 0: empty */
	size_t cap, n;
};

static uint64_t hash_bytes(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static uint64_t hash_number(unsigned long v)
{
	return (uint64_t)v * 0x9E3779B97F4A7C15ULL;
}

/* The reader's own state while it goes through one file; none of it is
 * part of what the file says. */
struct reading {
	bool seen_header;
	bool in_queries;      /* inside gputrace's own version calls */
	long queries_tid;     /* on this thread (0: the note did not say) */
	char image[24];       /* the image id of the last header */
	struct index searches;  /* by seq */
	struct index paths;     /* objects, by path: the latest */
	size_t *older;          /* per object: the one before it with its path, + 1 */
	bool last_was_close;    /* the line before was a close */
	unsigned long bursts;   /* runs of close lines so far */
};

/* The slot where key's record is, or the empty slot where it would go. */
static size_t *index_slot(struct gt_process *p, struct index *ix, uint64_t h,
			  bool (*same)(const struct gt_process *, size_t, const void *), const void *key)
{
	size_t i = (size_t)h & (ix->cap - 1);

	while (ix->slot[i] && !same(p, ix->slot[i] - 1, key))
		i = (i + 1) & (ix->cap - 1);
	return &ix->slot[i];
}

static void index_grow(struct gt_process *p, struct index *ix, uint64_t (*hash_of)(const struct gt_process *, size_t))
{
	size_t old_cap = ix->cap, *old = ix->slot, i;

	ix->cap = old_cap ? 2 * old_cap : 64;
	ix->slot = gt_xcalloc(ix->cap, sizeof(*ix->slot));
	for (i = 0; i < old_cap; i++) {
		size_t k;

		if (!old[i])
			continue;
		for (k = (size_t)hash_of(p, old[i] - 1) & (ix->cap - 1); ix->slot[k]; k = (k + 1) & (ix->cap - 1))
			;
		ix->slot[k] = old[i];
	}
	free(old);
}

static bool same_seq(const struct gt_process *p, size_t rec, const void *key)
{
	return p->searches[rec].seq == *(const unsigned long *)key;
}

static uint64_t seq_hash_of(const struct gt_process *p, size_t rec)
{
	return hash_number(p->searches[rec].seq);
}

static bool same_path(const struct gt_process *p, size_t rec, const void *key)
{
	return strcmp(p->objects[rec].path, key) == 0;
}

static uint64_t path_hash_of(const struct gt_process *p, size_t rec)
{
	return hash_bytes(p->objects[rec].path);
}

/* The latest search numbered seq, or NULL. */
static struct gt_search *find_search(struct gt_process *p, struct reading *rd, unsigned long seq)
{
	size_t *slot;

	if (!rd->searches.cap)
		return NULL;
	slot = index_slot(p, &rd->searches, hash_number(seq), same_seq, &seq);
	return *slot ? &p->searches[*slot - 1] : NULL;
}

static void index_search(struct gt_process *p, struct reading *rd, size_t rec)
{
	unsigned long seq = p->searches[rec].seq;

	size_t *slot;

	if (2 * (rd->searches.n + 1) > rd->searches.cap)
		index_grow(p, &rd->searches, seq_hash_of);
	slot = index_slot(p, &rd->searches, hash_number(seq), same_seq, &seq);
	rd->searches.n += !*slot;
	*slot = rec + 1;
}

/* The latest object mapped at path and not closed since, or NULL. */
static struct gt_object *find_open_object(struct gt_process *p, struct reading *rd, const char *path)
{
	size_t rec;

	if (!rd->paths.cap)
		return NULL;
	for (rec = *index_slot(p, &rd->paths, hash_bytes(path), same_path, path); rec; rec = rd->older[rec - 1])
		if (!p->objects[rec - 1].closed)
			return &p->objects[rec - 1];
	return NULL;
}

static void index_object(struct gt_process *p, struct reading *rd, size_t rec)
{
	const char *path = p->objects[rec].path;
	size_t *slot;

	rd->older = grow(rd->older, rec, sizeof(*rd->older));
	rd->older[rec] = 0;
	if (!path)
		return;
	if (2 * (rd->paths.n + 1) > rd->paths.cap)
		index_grow(p, &rd->paths, path_hash_of);
	slot = index_slot(p, &rd->paths, hash_bytes(path), same_path, path);
	rd->paths.n += !*slot;
	rd->older[rec] = *slot;
	*slot = rec + 1;
}

static void reading_free(struct reading *rd)
{
	free(rd->searches.slot);
	free(rd->paths.slot);
	free(rd->older);
}

/* The kernel side of the driver, from the preload half's header. */
static void take_kernel_driver(struct gt_process *p, json_t *o)
{
	json_t *gpus = json_object_get(o, GT_K_NVIDIA_GPUS), *g;
	size_t i, len = 0;

	if (p->kmod || !json_is_string(json_object_get(o, GT_K_NVIDIA_KMOD)))
		return;
	p->kmod = header_field(o, GT_K_NVIDIA_KMOD);
	json_array_foreach(gpus, i, g)
		if (json_is_string(g))
			len += strlen(json_string_value(g)) + 2;
	if (!len)
		return;
	p->gpus = gt_xmalloc(len + 1);
	p->gpus[0] = 0;
	json_array_foreach(gpus, i, g)
		if (json_is_string(g)) {
			if (p->gpus[0])
				strcat(p->gpus, ", ");
			strcat(p->gpus, json_string_value(g));
		}
}

static void on_header(struct gt_process *p, json_t *o, struct reading *rd)
{
	const char *src = json_string_value(json_object_get(o, GT_K_SOURCE));
	const char *image = json_string_value(json_object_get(o, GT_K_IMAGE));
	/* Ids are 16 hex digits; a longer one (not ours) is compared as far as
	 * it was kept, so that it does not look like an exec each time. */
	bool new_image = !rd->seen_header || (image && strncmp(image, rd->image, sizeof(rd->image) - 1) != 0);

	/* Both halves write a header per image; a new image id is an exec. */
	if (new_image) {
		p->images++;
		p->clean_end = false;  /* the end line belongs to the last image */
		take_identity(p, o);
	}
	if (image)
		snprintf(rd->image, sizeof(rd->image), "%s", image);
	if (src && strcmp(src, GT_SOURCE_AUDIT) == 0)
		p->audit_seen = true;
	if (json_is_true(json_object_get(o, GT_K_PAPER)))
		p->paper = true;
	if (json_is_true(json_object_get(o, GT_K_LIVE)))
		p->live = true;
	/* Either half may open a fork child's file first; the preload half's
	 * header says "fork". Only the first image counts. */
	if (p->images == 1 && json_is_true(json_object_get(o, GT_K_FORK)))
		p->forked = true;
	if (p->images == 1 && p->forked && !p->parent_cuda)
		p->parent_cuda = header_field(o, GT_K_PARENT_CUDA);
	take_kernel_driver(p, o);
	rd->seen_header = true;
}

/* A line that lacks what makes it mean anything (a search without a name,
 * an object without a path, a call without its function) is skipped:
 * nothing downstream has to guess. */
static void on_search(struct gt_process *p, const struct gt_jv *o, struct reading *rd)
{
	struct gt_search *s;
	char *name = field(o, GT_K_NAME);

	if (!name)
		return;
	p->searches = grow(p->searches, p->nsearches, sizeof(*s));
	s = &p->searches[p->nsearches++];
	memset(s, 0, sizeof(*s));
	s->seq = (unsigned long)gt_jv_int(gt_jv_get(o, GT_K_SEQ, NULL));
	/* Only the thread that asks the questions makes gputrace's searches:
	 * another thread's search meanwhile is the program's. */
	s->ours = rd->in_queries &&
		  (!rd->queries_tid || rd->queries_tid == (long)gt_jv_int(gt_jv_get(o, GT_K_TID, NULL)));
	s->name = name;
	s->requester = field(o, GT_K_REQUESTER);
	s->t_us = time_of(o);
	index_search(p, rd, p->nsearches - 1);
}

/* The candidates of a search come with its conclusion (open or search_end). */
static void take_tries(struct gt_search *s, const struct gt_jv *o)
{
	const struct gt_jv *tries = gt_jv_get(o, GT_K_TRIES, NULL), *t;
	size_t i;

	for (i = 0, t = gt_jv_first(tries); i < gt_jv_len(tries); i++, t = gt_jv_next(t)) {
		char *path = field(t, GT_K_PATH);

		if (!path)
			continue;
		s->tries = grow(s->tries, s->ntries, sizeof(*s->tries));
		s->tries[s->ntries].path = path;
		s->tries[s->ntries++].rule = rule_field(t);
	}
}

/* A new object at path (taken). */
static struct gt_object *add_object(struct gt_process *p, struct reading *rd, const struct gt_jv *o, char *path)
{
	struct gt_object *ob;

	p->objects = grow(p->objects, p->nobjects, sizeof(*ob));
	ob = &p->objects[p->nobjects++];
	memset(ob, 0, sizeof(*ob));
	ob->rule = GT_RULE_NONE;
	ob->path = path;
	ob->ns = (long)gt_jv_int(gt_jv_get(o, GT_K_NS, NULL));
	index_object(p, rd, p->nobjects - 1);
	return ob;
}

/* The search a line concludes, if it names one not concluded yet: a
 * search has one conclusion, the first. */
static struct gt_search *concluded_search(struct gt_process *p, struct reading *rd, const struct gt_jv *o)
{
	const struct gt_jv *seq = gt_jv_get(o, GT_K_SEARCH, NULL);
	struct gt_search *s = gt_jv_is_int(seq) ? find_search(p, rd, (unsigned long)gt_jv_int(seq)) : NULL;

	return s && !s->result ? s : NULL;
}

static void on_open(struct gt_process *p, const struct gt_jv *o, struct reading *rd)
{
	char *path = field(o, GT_K_PATH);
	struct gt_search *s;
	struct gt_object *ob;

	if (!path)
		return;
	s = concluded_search(p, rd, o);
	ob = add_object(p, rd, o, path);
	ob->soname = field(o, GT_K_SONAME);
	ob->cudart_static = gt_jv_is_true(gt_jv_get(o, GT_K_CUDART_STATIC, NULL));
	ob->main = gt_jv_is_true(gt_jv_get(o, GT_K_MAIN, NULL));
	ob->name = field(o, GT_K_NAME);
	ob->rule = rule_field(o);
	ob->t_us = time_of(o);
	if (s) {
		ob->search_t_us = s->t_us;
		take_tries(s, o);
		ob->requester = gt_xstrdup(s->requester);
		s->result = gt_xstrdup(GT_RESULT_FOUND);
		s->path = gt_xstrdup(ob->path);
	}
}

static void on_search_end(struct gt_process *p, const struct gt_jv *o, struct reading *rd)
{
	struct gt_search *s = concluded_search(p, rd, o);

	if (!s)
		return;
	s->result = field(o, GT_K_RESULT);
	if (!s->result)
		s->result = gt_xstrdup(GT_RESULT_NOT_FOUND);
	s->path = field(o, GT_K_PATH);
	take_tries(s, o);
}

static void on_no_search(struct gt_process *p, const struct gt_jv *o, struct reading *rd)
{
	char *name = field(o, GT_K_NAME), *requester = field(o, GT_K_REQUESTER), *path = field(o, GT_K_PATH);
	struct gt_no_search *n;

	if (!name || !requester || !path) {
		free(name);
		free(requester);
		free(path);
		return;
	}
	p->no_searches = grow(p->no_searches, p->nno_searches, sizeof(*n));
	n = &p->no_searches[p->nno_searches++];
	n->name = name;
	n->requester = requester;
	n->path = path;
	n->ours = rd->in_queries;
	n->t_us = time_of(o);
}

static void on_close(struct gt_process *p, const struct gt_jv *o, struct reading *rd)
{
	char *path = field(o, GT_K_PATH);
	struct gt_object *ob = path ? find_open_object(p, rd, path) : NULL;

	/* A run of close lines is one unload: a dlclose, or a dlopen the loader
	 * undid (the report tells them apart, read/failed_load.c). */
	if (!rd->last_was_close)
		rd->bursts++;
	if (ob) {
		ob->closed = true;
		ob->close_burst = rd->bursts;
		ob->mapped_at_close = p->nobjects;
	}
	free(path);
}

/* The exit listing adds what the audit half did not see (LD_PRELOAD alone). */
static void on_linkmap(struct gt_process *p, const struct gt_jv *o, struct reading *rd)
{
	char *path = field(o, GT_K_PATH);

	if (!path)
		return;
	if (find_open_object(p, rd, path))
		free(path);
	else
		add_object(p, rd, o, path)->from_linkmap = true;
}

static int int_of(const struct gt_jv *o, const char *key)
{
	return (int)gt_jv_int(gt_jv_get(o, key, NULL));
}

static void on_call(struct gt_process *p, const struct gt_jv *o)
{
	struct gt_call *c;
	char *fn = field(o, GT_K_FN);

	if (!fn)
		return;
	p->calls = grow(p->calls, p->ncalls, sizeof(*c));
	c = &p->calls[p->ncalls++];
	c->fn = fn;
	c->status = int_of(o, GT_K_STATUS);
	c->status_name = field(o, GT_K_STATUS_NAME);
	c->reason = field(o, GT_K_REASON);
	c->lib = field(o, GT_K_LIB);
	c->has_value = gt_jv_is_int(gt_jv_get(o, GT_K_VALUE, NULL));
	c->value = gt_jv_int(gt_jv_get(o, GT_K_VALUE, NULL));
}

static void on_totals(struct gt_process *p, const struct gt_jv *o)
{
	struct gt_total *t;
	char *fn = field(o, GT_K_FN);

	if (!fn)
		return;
	p->totals = grow(p->totals, p->ntotals, sizeof(*t));
	t = &p->totals[p->ntotals++];
	t->fn = fn;
	t->status = int_of(o, GT_K_STATUS);
	t->status_name = field(o, GT_K_STATUS_NAME);
	t->count = (unsigned long long)gt_jv_int(gt_jv_get(o, GT_K_COUNT, NULL));
	t->bytes = (unsigned long long)gt_jv_int(gt_jv_get(o, GT_K_BYTES, NULL));
}

static void on_alloc_fail(struct gt_process *p, const struct gt_jv *o)
{
	struct gt_alloc_fail *a;
	char *fn = field(o, GT_K_FN);

	if (!fn)
		return;
	p->alloc_fails = grow(p->alloc_fails, p->nalloc_fails, sizeof(*a));
	a = &p->alloc_fails[p->nalloc_fails++];
	a->fn = fn;
	a->size = (unsigned long long)gt_jv_int(gt_jv_get(o, GT_K_SIZE, NULL));
	a->status = int_of(o, GT_K_STATUS);
	a->status_name = field(o, GT_K_STATUS_NAME);
}

static void on_version(struct gt_process *p, const struct gt_jv *o)
{
	struct gt_version *v;
	char *lib = field(o, GT_K_LIB), *fn = field(o, GT_K_FN);

	if (!lib || !fn) {
		free(lib);
		free(fn);
		return;
	}
	p->versions = grow(p->versions, p->nversions, sizeof(*v));
	v = &p->versions[p->nversions++];
	v->lib = lib;
	v->fn = fn;
	v->property = gt_jv_is_int(gt_jv_get(o, GT_K_PROPERTY, NULL)) ? int_of(o, GT_K_PROPERTY) : -1;
	v->status = int_of(o, GT_K_STATUS);
	v->value = gt_jv_int(gt_jv_get(o, GT_K_VALUE, NULL));
}

static int small_int_or(const struct gt_jv *o, const char *key, int dflt)
{
	const struct gt_jv *v = gt_jv_get(o, key, NULL);

	if (!gt_jv_is_int(v) || gt_jv_int(v) < 0 || gt_jv_int(v) > 1000)
		return dflt;
	return (int)gt_jv_int(v);
}

/* A device line adds to what earlier lines said of the same device. */
static void on_device(struct gt_process *p, const struct gt_jv *o)
{
	struct gt_device *d = NULL;
	int index = small_int_or(o, GT_K_DEVICE, -1), major, minor;
	size_t i;

	if (index < 0)
		return;
	for (i = 0; i < p->ndevices && !d; i++)
		if (p->devices[i].index == index)
			d = &p->devices[i];
	if (!d) {
		p->devices = grow(p->devices, p->ndevices, sizeof(*d));
		d = &p->devices[p->ndevices++];
		d->index = index;
		d->name = NULL;
		d->cc_major = d->cc_minor = -1;
	}
	if (!d->name)
		d->name = field(o, GT_K_NAME);
	major = small_int_or(o, GT_K_CC_MAJOR, -1);
	minor = small_int_or(o, GT_K_CC_MINOR, -1);
	if (major >= 0)
		d->cc_major = major;
	if (minor >= 0)
		d->cc_minor = minor;
}

static void on_allocs(struct gt_process *p, const struct gt_jv *o)
{
	p->has_allocs = true;
	p->peak_bytes = gt_jv_int(gt_jv_get(o, GT_K_PEAK_BYTES, NULL));
	p->held_bytes = gt_jv_int(gt_jv_get(o, GT_K_HELD_BYTES, NULL));
	p->failed_allocs = (unsigned long long)gt_jv_int(gt_jv_get(o, GT_K_FAILED, NULL));
	p->partial |= gt_jv_is_true(gt_jv_get(o, GT_K_PARTIAL, NULL));
}

/* Everything mapped so far in the main namespace came with the program:
 * its DT_NEEDED closure and LD_PRELOAD, all in the global scope. Only the
 * first note counts (a later image has its own, after exec). */
static void mark_startup(struct gt_process *p)
{
	size_t i;

	if (p->images > 1)
		return;
	p->startup_seen = true;
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].ns == 0 && !p->objects[i].from_linkmap)
			p->objects[i].startup = true;
}

/* The object a global-scope lookup found at exit: its copy can bind the
 * calls of every other object of the namespace. */
static void on_global(struct gt_process *p, const struct gt_jv *o, struct reading *rd)
{
	char *path = field(o, GT_K_LIB);
	struct gt_object *ob = path ? find_open_object(p, rd, path) : NULL;

	if (ob)
		ob->global = true;
	free(path);
}

static void on_note(struct gt_process *p, const struct gt_jv *o, struct reading *rd)
{
	const char *what = gt_jv_str(gt_jv_get(o, GT_K_WHAT, NULL));

	if (!what)
		return;
	if (strcmp(what, GT_NOTE_QUERIES_BEGIN) == 0) {
		rd->in_queries = true;
		rd->queries_tid = (long)gt_jv_int(gt_jv_get(o, GT_K_TID, NULL));
	} else if (strcmp(what, GT_NOTE_QUERIES_END) == 0) {
		rd->in_queries = false;
	} else if (strcmp(what, GT_NOTE_FATAL_SIGNAL) == 0)
		p->fatal_signal = int_of(o, GT_K_SIGNAL);
	else if (strcmp(what, GT_NOTE_TRACE_CUT) == 0 && !p->cut_reason)
		p->cut_reason = field(o, GT_K_REASON) ?: gt_xstrdup("?");
	else if (strcmp(what, GT_NOTE_STARTUP_LOADED) == 0)
		mark_startup(p);
	else if (strcmp(what, GT_NOTE_NO_SEARCH_CUT) == 0)
		p->no_search_cut = true;
	else if (strcmp(what, GT_NOTE_SIGNAL_SENT) == 0 && gt_jv_is_int(gt_jv_get(o, GT_K_TARGET, NULL))) {
		p->sent = grow(p->sent, p->nsent, sizeof(*p->sent));
		p->sent[p->nsent].target = (long)gt_jv_int(gt_jv_get(o, GT_K_TARGET, NULL));
		p->sent[p->nsent++].signal = int_of(o, GT_K_SIGNAL);
	}
}

static void read_frame(const struct gt_jv *fo, struct gt_frame *fr)
{
	const struct gt_jv *ip = gt_jv_get(fo, GT_K_IP, NULL);

	memset(fr, 0, sizeof(*fr));
	fr->main = gt_jv_is_true(gt_jv_get(fo, GT_K_MAIN, NULL));
	fr->path = field(fo, GT_K_PATH);
	fr->known = fr->main || fr->path;
	fr->off = (unsigned long long)gt_jv_int(gt_jv_get(fo, fr->known ? GT_K_OFF : GT_K_IP, NULL));
	if (!fr->known && !gt_jv_is_int(ip))
		fr->off = 0;
}

/* The first crash line only: a second is another thread's fault in a
 * process already dying. */
static void on_crash(struct gt_process *p, const struct gt_jv *o)
{
	const struct gt_jv *frames = gt_jv_get(o, GT_K_FRAMES, NULL), *fo, *v;
	struct gt_crash *c;
	size_t i;

	if (p->crash)
		return;
	c = p->crash = gt_xcalloc(1, sizeof(*c));
	c->signal = int_of(o, GT_K_SIGNAL);
	c->code = int_of(o, GT_K_CODE);
	v = gt_jv_get(o, GT_K_ADDR, NULL);
	c->has_addr = gt_jv_is_int(v);
	c->addr = (unsigned long long)gt_jv_int(v);
	v = gt_jv_get(o, GT_K_SENDER, NULL);
	c->sender = gt_jv_is_int(v) ? (long)gt_jv_int(v) : -1;
	c->truncated = gt_jv_is_true(gt_jv_get(o, GT_K_FRAMES_TRUNCATED, NULL));
	c->unwind_stopped = gt_jv_str(gt_jv_get(o, GT_K_UNWIND, NULL)) != NULL;
	c->t_us = time_of(o);
	if (!gt_jv_len(frames))
		return;
	c->frames = gt_xcalloc(gt_jv_len(frames), sizeof(*c->frames));
	for (i = 0, fo = gt_jv_first(frames); i < gt_jv_len(frames); i++, fo = gt_jv_next(fo))
		if (fo->type == GT_JV_OBJECT)
			read_frame(fo, &c->frames[c->nframes++]);
}

/* Written by the launcher after the process it started ended. */
/* The end line: through exit(), or through _exit with its status. */
static void on_end(struct gt_process *p, const struct gt_jv *o)
{
	const struct gt_jv *status = gt_jv_get(o, GT_K_EXIT_STATUS, NULL);

	p->clean_end = true;
	p->end_status = gt_jv_is_int(status) ? (int)gt_jv_int(status) : -1;
}

static void on_reaped(struct gt_process *p, const struct gt_jv *o)
{
	p->reaped = true;
	p->exit_status = int_of(o, GT_K_EXIT_STATUS);
	p->reaped_signal = int_of(o, GT_K_SIGNAL);
}


/* The span of the lines' times, for the report's load timeline. */
static void take_time(struct gt_process *p, const struct gt_jv *o)
{
	unsigned long long t = time_of(o);

	if (!t)
		return;
	if (!p->first_us || t < p->first_us)
		p->first_us = t;
	if (t > p->last_us)
		p->last_us = t;
}

/* A header line, a few to a trace: read by jansson again, since the process
 * keeps its "env" object as jansson's (the renderers print it). The line
 * parsed already, so jansson takes it. */
static bool on_header_line(struct gt_process *p, const char *text, size_t len, struct reading *rd,
			   const char **why)
{
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	bool ok = json_is_object(o) && header_ok(o, why);

	if (!o)
		*why = "not a JSON object";
	if (ok)
		on_header(p, o, rd);
	json_decref(o);
	return ok;
}

/* One line, dispatched on its event by the contract's table. */
static bool on_line(struct gt_process *p, const struct gt_jv *o, const char *text, size_t len, struct reading *rd,
		    const char **why)
{
	const char *name = gt_jv_str(gt_jv_get(o, GT_K_EV, NULL));
	enum gt_event ev = gt_event_from_name(name);

	if (!name) {
		*why = "no \"ev\" key";
		return false;
	}
	if (!rd->seen_header && ev != GT_EV_HEADER) {
		*why = "the first line is not a gputrace header";
		return false;
	}
	take_time(p, o);
	switch (ev) {
	case GT_EV_HEADER:
		if (!on_header_line(p, text, len, rd, why))
			return false;
		break;
	case GT_EV_SEARCH: on_search(p, o, rd); break;
	case GT_EV_OPEN: on_open(p, o, rd); break;
	case GT_EV_SEARCH_END: on_search_end(p, o, rd); break;
	case GT_EV_NO_SEARCH: on_no_search(p, o, rd); break;
	case GT_EV_CLOSE: on_close(p, o, rd); break;
	case GT_EV_LINKMAP: on_linkmap(p, o, rd); break;
	case GT_EV_END: on_end(p, o); break;
	case GT_EV_CALL: on_call(p, o); break;
	case GT_EV_CALLS: on_totals(p, o); break;
	case GT_EV_ALLOC_FAIL: on_alloc_fail(p, o); break;
	case GT_EV_VERSION: on_version(p, o); break;
	case GT_EV_ALLOCS: on_allocs(p, o); break;
	case GT_EV_NOTE: on_note(p, o, rd); break;
	case GT_EV_REAPED: on_reaped(p, o); break;
	case GT_EV_GLOBAL: on_global(p, o, rd); break;
	case GT_EV_DEVICE: on_device(p, o); break;
	case GT_EV_CRASH: on_crash(p, o); break;
	case GT_EV_COUNT:
		/* Unknown events are skipped: newer writers may add kinds. */
		break;
	}
	rd->last_was_close = ev == GT_EV_CLOSE;
	return true;
}

/* No trace gputrace writes is larger (trace_sink.h: 4 GiB, then it is cut). */
#define MAX_TRACE_SIZE ((off_t)GT_MAX_TRACE_BYTES)

/* A trace is read only from a regular file, opened so that it cannot block
 * (a FIFO named like a trace in a shared folder) and not larger than any
 * trace is (/dev/zero, a runaway file). */
static FILE *open_trace_file(const char *path, char *err, size_t errcap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		snprintf(err, errcap, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, errcap, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MAX_TRACE_SIZE) {
		snprintf(err, errcap, "%s: %s", path, S_ISDIR(st.st_mode) ? strerror(EISDIR) :
			 !S_ISREG(st.st_mode) ? "not a regular file (a FIFO, a device?): not read" :
			 "larger than any trace gputrace writes: not read");
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

bool gt_read_trace(const char *path, struct gt_process *p, char *err, size_t errcap)
{
	FILE *f = open_trace_file(path, err, errcap);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	struct reading rd = { 0 };
	struct gt_jline jl = { 0 };
	bool ok = false;
	const char *why = NULL;

	memset(p, 0, sizeof(*p));
	p->file = gt_xstrdup(path);
	if (!f)
		return false;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *text = line;
		const struct gt_jv *o;

		lineno++;
		if (n > MAX_LINE) {
			why = "line too long";
			goto bad;
		}
		/* NUL bytes are room the writer reserved in the file and did not
		 * fill (a process killed before its exit, a line cut mid-copy):
		 * what comes before them on a line is a cut line, what comes after
		 * the last of them is the next line. */
		if (memchr(line, 0, (size_t)n)) {
			char *last = memrchr(line, 0, (size_t)n);

			if (line[0] != 0)
				p->cut_lines++;
			n -= last + 1 - line;
			text = last + 1;
			if (n == 0)
				continue;
		}
		if (n == 1 && text[0] == '\n')
			continue;
		if (text[n - 1] != '\n') {
			/* A last line with no end: the disk filled as it was written,
			 * or the file was cut. Everything before it stands. */
			p->last_line_cut = true;
			break;
		}
		o = gt_jline_parse(&jl, text, (size_t)n);
		if (!o) {
			why = "not a JSON object";
			goto bad;
		}
		if (!on_line(p, o, text, (size_t)n, &rd, &why))
			goto bad;
	}
	if (!rd.seen_header) {
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
	reading_free(&rd);
	gt_jline_free(&jl);
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
	}
	for (i = 0; i < p->nsearches; i++) {
		struct gt_search *s = &p->searches[i];

		for (k = 0; k < s->ntries; k++) {
			free(s->tries[k].path);
		}
		free(s->tries);
		free(s->name);
		free(s->requester);
		free(s->result);
		free(s->path);
	}
	for (i = 0; i < p->nno_searches; i++) {
		free(p->no_searches[i].name);
		free(p->no_searches[i].requester);
		free(p->no_searches[i].path);
	}
	free(p->no_searches);
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
	if (p->crash) {
		for (i = 0; i < p->crash->nframes; i++)
			free(p->crash->frames[i].path);
		free(p->crash->frames);
		free(p->crash);
	}
	for (i = 0; i < p->ndevices; i++)
		free(p->devices[i].name);
	free(p->devices);
	for (i = 0; i < p->nversions; i++) {
		free(p->versions[i].lib);
		free(p->versions[i].fn);
	}
	free(p->calls);
	free(p->totals);
	free(p->alloc_fails);
	free(p->versions);
	free(p->parent_cuda);
	free(p->kmod);
	free(p->gpus);
	free(p->sent);
	json_decref(p->env);
	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->objects);
	free(p->searches);
	free(p->file);
	free(p->cut_reason);
	free(p->host);
	free(p->exe);
	free(p->cwd);
	memset(p, 0, sizeof(*p));
}

const char *gt_process_env(const struct gt_process *p, const char *name)
{
	return json_string_value(json_object_get(p->env, name));
}

char *gt_process_env_bytes(const struct gt_process *p, const char *name)
{
	char key[160], *b;
	const char *v;

	snprintf(key, sizeof(key), "%s" GT_HEX_SUFFIX, name);
	if ((b = hex_bytes(json_string_value(json_object_get(p->env, key)))))
		return b;
	v = json_string_value(json_object_get(p->env, name));
	return v ? gt_xstrdup(v) : NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int gt_list_traces(const char *dir, char ***out)
{
	return gt_list_files(dir, ".jsonl", out);
}

int gt_list_files(const char *dir, const char *suffix, char ***out)
{
	size_t slen = strlen(suffix);
	DIR *d = opendir(dir);
	struct dirent *e;
	char **list = NULL;
	int n = 0;

	*out = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		struct stat st;
		char *full;

		if (len <= slen || strcmp(e->d_name + len - slen, suffix) != 0)
			continue;
		if (asprintf(&full, "%s/%s", dir, e->d_name) < 0)
			abort();
		/* Only regular files: a FIFO or a link named like a trace (anyone
		 * can make one in a shared folder) is not one. */
		if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(full);
			continue;
		}
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
