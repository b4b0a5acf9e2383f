/* The facts of the traced hosts, asked once and remembered (see facts.h).
 *
 * Every question is a key in a section of a JSON object: "real" (path ->
 * real path or null), "exists", "readable", "elf", "package", "framework",
 * "embedded", "fatbin", "glob", "search_path", "resolve", "symbol_gaps",
 * "symbol_at", "etc_preload", "gpu_presence". The same objects are what the facts file holds per host,
 * so what was asked is what is written, and answering from the file is
 * decoding what asking would have encoded. */
#define _GNU_SOURCE
#include "facts/facts.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "common/hex.h"
#include "common/trace_file.h"
#include "common/whole_file.h"
#include "common/xalloc.h"
#include "facts/facts_dump.h"
#include "host/elf_symbol_at.h"
#include "host/embedded_version.h"
#include "host/ldcache.h"
#include "host/real_path.h"

/* One host's facts file is ~70 KB (the H200's import torch: 71 KB); a
 * thousand hosts' of that size in one folder would be ~70 MB. */
#define FACTS_MAX_BYTES ((size_t)512 << 20)

struct gt_host_facts {
	char *host;
	json_t *recorded;   /* this host's object of a facts file, or NULL */
	json_t *asked;      /* the answers this host gave now */
	bool here;          /* the traces were taken on this host */
	bool live;          /* GT_FACTS_LIVE: the host first, not the file */
	struct gt_facts_tally tally;
	struct host_ldcache cache;
	bool cache_tried, have_cache;
	json_t *fatbin_index;          /* path -> index into fatbins */
	struct host_fatbin **fatbins;  /* decoded, kept for the callers */
	size_t nfatbins;
	char *etc_preload;             /* decoded once, kept for the model */
};

struct gt_facts_set {
	enum gt_facts_mode mode;
	json_t *files;      /* host -> its object, from the facts files read */
	struct gt_host_facts **v;
	size_t n;
};

/* ---- the store ---- */

static json_t *section(json_t *store, const char *name)
{
	json_t *s = json_object_get(store, name);

	if (!json_is_object(s)) {
		s = json_object();
		json_object_set_new(store, name, s);
	}
	return s;
}

/* The recorded answer, or NULL. */
static json_t *recorded_answer(const struct gt_host_facts *f, const char *sec, const char *key)
{
	json_t *s = f->recorded ? json_object_get(f->recorded, sec) : NULL;

	return json_is_object(s) ? json_object_get(s, key) : NULL;
}

/* May this host be asked? Where the traces were taken, yes; for another
 * host only when no facts of it were recorded at all (then the report says
 * its files were read here, as reports did before facts existed). */
static bool may_ask(const struct gt_host_facts *f)
{
	return f->here || !f->recorded;
}

/* The answer to (sec, key): remembered, else from ask(ctx) put in the
 * store. NULL when unanswered (the file lacks it and the host may not be
 * asked): callers take that as "no such fact". */
typedef json_t *(*asker)(struct gt_host_facts *f, const void *ctx);

/* GPUTRACE_FACTS_PROFILE=1: how many questions of each section this host
 * was asked and the time they took, on stderr at exit. For finding where a
 * live diagnosis spends its time on a machine without perf or strace (the
 * GPU host); bench/README.md says how it is used. */
#define PROFILE_SECTIONS 24
static struct {
	const char *sec;
	unsigned long n;
	unsigned long long ns;
} profile[PROFILE_SECTIONS];
static int profile_state;  /* 0 unknown, 1 on, 2 off */
/* The slowest questions, slowest first: where a section's time went. */
#define PROFILE_SLOWEST 12
static struct {
	const char *sec;
	char key[160];
	unsigned long long ns;
} slowest[PROFILE_SLOWEST];

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Keeps (sec, key) among the slowest; the key's unit separators shown as '|'. */
static void note_slow(const char *sec, const char *key, unsigned long long ns)
{
	int i, k;

	for (i = 0; i < PROFILE_SLOWEST && slowest[i].sec && slowest[i].ns >= ns; i++)
		;
	if (i == PROFILE_SLOWEST)
		return;
	memmove(&slowest[i + 1], &slowest[i], (PROFILE_SLOWEST - 1 - (size_t)i) * sizeof(slowest[0]));
	slowest[i].sec = sec;
	slowest[i].ns = ns;
	snprintf(slowest[i].key, sizeof(slowest[i].key), "%s", key);
	for (k = 0; slowest[i].key[k]; k++)
		if (slowest[i].key[k] == '\x1f')
			slowest[i].key[k] = '|';
}

static void profile_print(void)
{
	int i;

	for (i = 0; i < PROFILE_SLOWEST && slowest[i].sec; i++) {
		fprintf(stderr, "gputrace facts profile: slow %-14s %9.3f ms %s\n", slowest[i].sec,
			(double)slowest[i].ns / 1e6, slowest[i].key);
		slowest[i].sec = NULL;
	}

	for (i = 0; i < PROFILE_SECTIONS && profile[i].sec; i++) {
		fprintf(stderr, "gputrace facts profile: %-14s %6lu asked %9.3f ms\n", profile[i].sec, profile[i].n,
			(double)profile[i].ns / 1e6);
		profile[i].sec = NULL;  /* said once, by the flush or at exit */
		profile[i].n = 0;
		profile[i].ns = 0;
	}
}

void gt_facts_profile_flush(void)
{
	if (gt_facts_profile_wanted())
		profile_print();
}

void gt_facts_profile_phase(const char *name, double ms)
{
	if (gt_facts_profile_wanted())
		fprintf(stderr, "gputrace facts profile: phase %-8s %9.3f ms CPU\n", name, ms);
}

bool gt_facts_profile_wanted(void)
{
	const char *v = getenv("GPUTRACE_FACTS_PROFILE");

	return v && *v && strcmp(v, "0") != 0;
}

static bool profile_on(void)
{
	if (!profile_state) {
		profile_state = gt_facts_profile_wanted() ? 1 : 2;
		if (profile_state == 1)
			atexit(profile_print);
	}
	return profile_state == 1;
}

/* Sections are string literals: one slot each, found by address. Nested
 * questions (an elf answer that asks real paths) count in both. */
static json_t *timed_ask(struct gt_host_facts *f, const char *sec, const char *key, asker ask, const void *ctx)
{
	unsigned long long t0 = now_ns();
	json_t *have = ask(f, ctx);
	unsigned long long took = now_ns() - t0;
	int i;

	for (i = 0; i < PROFILE_SECTIONS && profile[i].sec && strcmp(profile[i].sec, sec); i++)
		;
	if (i < PROFILE_SECTIONS) {
		profile[i].sec = sec;
		profile[i].n++;
		profile[i].ns += took;
	}
	note_slow(sec, key, took);
	return have;
}

/* Bytes that are not UTF-8 (a path through a Latin-1 folder name) cannot
 * be a JSON string or key. A value is kept as {"hex": "..."} of its bytes
 * and read back by bytes_of, so that a list keeps each element in its place
 * (a search's candidates: the winner is an index into them). A key becomes
 * ESC "hex:" and the hex of its bytes, as does a key that starts with ESC,
 * so that two keys never meet: jansson refuses a key that is not UTF-8 and
 * frees the value it was given, which answer() then returned. */
static bool is_utf8(const char *s)
{
	json_t *probe = json_string(s);

	json_decref(probe);
	return probe != NULL;
}

static char *hex_of(const char *s, const char *prefix)
{
	size_t n = strlen(s), p = strlen(prefix);
	char *out = gt_xmalloc(p + 2 * n + 1);

	memcpy(out, prefix, p);
	gt_hex_spell(out + p, s, n);
	out[p + 2 * n] = 0;
	return out;
}

static json_t *bytes_json(const char *s)
{
	json_t *v = json_string(s);
	char *hex;

	if (v)
		return v;
	hex = hex_of(s, "");
	v = json_pack("{s:s}", "hex", hex);
	free(hex);
	return v;
}

/* A string's copy, or the bytes of a {"hex": ...} (none of them NUL); NULL
 * for anything else. */
static char *bytes_or_null(const json_t *v)
{
	const char *hex = json_string_value(json_object_get(v, "hex"));
	size_t n = hex ? strlen(hex) : 0;
	char *out;

	if (json_is_string(v))
		return gt_xstrdup(json_string_value(v));
	if (!hex)
		return NULL;
	out = gt_xmalloc(n / 2 + 1);
	if (!gt_hex_read(hex, n, out) || memchr(out, 0, n / 2)) {
		free(out);
		return NULL;
	}
	out[n / 2] = 0;
	return out;
}

/* bytes_or_null, "" for anything else (a list keeps its places). */
static char *bytes_of(const json_t *v)
{
	char *b = bytes_or_null(v);

	return b ? b : gt_xstrdup("");
}

/* key as it is, or (malloc'd in *owned) its ESC "hex:" spelling. */
static const char *json_key(const char *key, char **owned)
{
	*owned = NULL;
	if (key[0] != '\x1b' && is_utf8(key))
		return key;
	*owned = hex_of(key, "\x1bhex:");
	return *owned;
}

static json_t *answer(struct gt_host_facts *f, const char *sec, const char *key, asker ask, const void *ctx)
{
	char *owned;
	json_t *have, *rec;

	key = json_key(key, &owned);
	have = json_object_get(section(f->asked, sec), key);
	if (have)
		goto out;
	rec = recorded_answer(f, sec, key);
	if (rec && !(f->live && f->here)) {
		f->tally.recorded++;
		have = rec;
		goto out;
	}
	if (!may_ask(f)) {
		f->tally.unanswered++;
		goto out;
	}
	f->tally.asked++;
	if (profile_on())
		have = timed_ask(f, sec, key, ask, ctx);
	else
		have = ask(f, ctx);
	/* the section holds it: the pointer stays good as long as the set */
	if (have && json_object_set_new(section(f->asked, sec), key, have) != 0)
		have = NULL;
out:
	free(owned);
	return have;
}

/* A key of several parts, joined by the unit separator (never in a path). */
static char *key_of(const char *const *parts, size_t n)
{
	size_t i, len = 1;
	char *k, *at;

	for (i = 0; i < n; i++)
		len += strlen(parts[i] ? parts[i] : "") + 1;
	k = at = gt_xmalloc(len);
	for (i = 0; i < n; i++) {
		size_t l = strlen(parts[i] ? parts[i] : "");

		memcpy(at, parts[i] ? parts[i] : "", l);
		at += l;
		if (i + 1 < n)
			*at++ = '\x1f';
	}
	*at = 0;
	return k;
}

/* s's bytes (bytes_json), or null. */
static json_t *bytes_json_or_null(const char *s)
{
	return s ? bytes_json(s) : json_null();
}

static const char *get_str(const json_t *o, const char *name)
{
	return json_string_value(json_object_get(o, name));
}

static char *dup_or_null(const char *s)
{
	return s ? gt_xstrdup(s) : NULL;
}

static void copy_str(char *out, size_t cap, const char *s)
{
	snprintf(out, cap, "%s", s ? s : "");
}

/* The bytes of o's member name (bytes_or_null): malloc'd, or NULL. */
static char *member_bytes(const json_t *o, const char *name)
{
	return bytes_or_null(json_object_get(o, name));
}

/* The same into out (cap bytes, cut there), "" where there are none. */
static void copy_member_bytes(char *out, size_t cap, const json_t *o, const char *name)
{
	char *b = member_bytes(o, name);

	copy_str(out, cap, b);
	free(b);
}

static json_t *strings_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, bytes_json(v[i]));
	return a;
}

static size_t strings_of(const json_t *a, char ***out)
{
	size_t i, n = json_array_size(a);

	*out = n ? gt_xcalloc(n, sizeof(**out)) : NULL;
	for (i = 0; i < n; i++)
		(*out)[i] = bytes_of(json_array_get(a, i));
	return n;
}

/* ---- paths ---- */

static json_t *ask_real(struct gt_host_facts *f, const void *path)
{
	char real[PATH_MAX];

	(void)f;
	return host_real_path(path, real) ? bytes_json(real) : json_null();
}

/* The real path asked or recorded (malloc'd), NULL when it leads nowhere. */
static char *real_answer(struct gt_host_facts *f, const char *path)
{
	return bytes_or_null(answer(f, "real", path, ask_real, path));
}

static json_t *ask_exists(struct gt_host_facts *f, const void *path)
{
	(void)f;
	return json_boolean(access(path, F_OK) == 0);
}

static json_t *ask_readable(struct gt_host_facts *f, const void *path)
{
	(void)f;
	return json_boolean(access(path, R_OK) == 0);
}

bool gt_facts_real_path(struct gt_host_facts *f, const char *path, char *out, size_t cap)
{
	char *real = real_answer(f, path);
	bool fits = real && strlen(real) < cap;

	if (fits)
		memcpy(out, real, strlen(real) + 1);
	free(real);
	return fits;
}

bool gt_facts_exists(struct gt_host_facts *f, const char *path)
{
	return json_is_true(answer(f, "exists", path, ask_exists, path));
}

bool gt_facts_readable(struct gt_host_facts *f, const char *path)
{
	return json_is_true(answer(f, "readable", path, ask_readable, path));
}

bool gt_facts_same_file(struct gt_host_facts *f, const char *a, const char *b)
{
	const json_t *ja, *jb;
	char *ra, *rb;
	bool same;

	if (!a || !b)
		return false;
	if (strcmp(a, b) == 0)
		return true;
	ja = answer(f, "real", a, ask_real, a);
	jb = answer(f, "real", b, ask_real, b);
	if (json_is_string(ja) && json_is_string(jb))  /* the usual case, asked for every pair of copies: no copy */
		return strcmp(json_string_value(ja), json_string_value(jb)) == 0;
	ra = bytes_or_null(ja);
	rb = bytes_or_null(jb);
	same = ra && rb && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

/* ---- ELF facts ---- */

static json_t *ask_elf(struct gt_host_facts *f, const void *path)
{
	struct host_elf_info info;
	json_t *o = json_object();

	(void)f;
	json_object_set_new(o, "ok", json_boolean(host_elf_read(path, &info)));
	json_object_set_new(o, "class", json_integer(info.elf_class));
	json_object_set_new(o, "machine", json_integer(info.machine));
	json_object_set_new(o, "soname", bytes_json_or_null(info.soname));
	json_object_set_new(o, "needed", strings_json(info.needed, info.nneeded));
	json_object_set_new(o, "rpath", bytes_json_or_null(info.rpath));
	json_object_set_new(o, "runpath", bytes_json_or_null(info.runpath));
	json_object_set_new(o, "has_fatbin", json_boolean(info.has_fatbin));
	json_object_set_new(o, "error", json_string(info.error));
	host_elf_free(&info);
	return o;
}

bool gt_facts_elf(struct gt_host_facts *f, const char *path, struct host_elf_info *out)
{
	json_t *o = answer(f, "elf", path, ask_elf, path);

	memset(out, 0, sizeof(*out));
	if (!o) {
		copy_str(out->error, sizeof(out->error), "not in the facts file");
		return false;
	}
	out->ok = json_is_true(json_object_get(o, "ok"));
	out->elf_class = (int)json_integer_value(json_object_get(o, "class"));
	out->machine = (int)json_integer_value(json_object_get(o, "machine"));
	out->soname = member_bytes(o, "soname");
	out->nneeded = strings_of(json_object_get(o, "needed"), &out->needed);
	out->rpath = member_bytes(o, "rpath");
	out->runpath = member_bytes(o, "runpath");
	out->has_fatbin = json_is_true(json_object_get(o, "has_fatbin"));
	copy_str(out->error, sizeof(out->error), get_str(o, "error"));
	return out->ok;
}

/* ---- packages and frameworks ---- */

static json_t *ask_package(struct gt_host_facts *f, const void *path)
{
	struct host_package pk;
	json_t *o;

	(void)f;
	if (!host_package_of(path, &pk))
		return json_null();
	/* bytes_json: a record under a folder that is not UTF-8 keeps its package */
	o = json_object();
	json_object_set_new(o, "manager", bytes_json(pk.manager));
	json_object_set_new(o, "name", bytes_json(pk.name));
	json_object_set_new(o, "version", bytes_json(pk.version));
	json_object_set_new(o, "record", bytes_json(pk.record));
	return o;
}

bool gt_facts_package(struct gt_host_facts *f, const char *path, struct host_package *out)
{
	json_t *o = answer(f, "package", path, ask_package, path);

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		return false;
	copy_member_bytes(out->manager, sizeof(out->manager), o, "manager");
	copy_member_bytes(out->name, sizeof(out->name), o, "name");
	copy_member_bytes(out->version, sizeof(out->version), o, "version");
	copy_member_bytes(out->record, sizeof(out->record), o, "record");
	return true;
}

void gt_facts_package_want(struct gt_host_facts *f, const char *path)
{
	char *owned = NULL;  /* json_key is not called where may_ask says no */

	if (may_ask(f) && !recorded_answer(f, "package", json_key(path, &owned)))
		host_package_want(path);
	free(owned);
}

static json_t *ask_framework(struct gt_host_facts *f, const void *path)
{
	struct host_needs needs;
	json_t *o, *a;
	size_t i;

	(void)f;
	if (!host_framework_needs(path, &needs)) {
		host_needs_free(&needs);
		return json_null();
	}
	a = json_array();
	for (i = 0; i < needs.n; i++) {
		const struct host_need *n = &needs.v[i];
		json_t *e = json_object();

		/* bytes_json: a folder or a file's words that are not UTF-8 keep
		 * the need (json_pack would drop it, or the whole answer) */
		json_object_set_new(e, "family", bytes_json(n->family));
		json_object_set_new(e, "spec", bytes_json(n->spec));
		json_object_set_new(e, "distribution", bytes_json(n->distribution));
		json_object_set_new(e, "declared_by", bytes_json(n->declared_by));
		json_object_set_new(e, "what", bytes_json(n->what));
		json_object_set_new(e, "framework", bytes_json(n->framework));
		json_array_append_new(a, e);
	}
	o = json_object();
	json_object_set_new(o, "root", bytes_json(needs.root));
	json_object_set_new(o, "needs", a);
	host_needs_free(&needs);
	return o;
}

bool gt_facts_framework_needs(struct gt_host_facts *f, const char *lib_path, struct host_needs *out)
{
	json_t *o = answer(f, "framework", lib_path, ask_framework, lib_path), *a;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		return false;
	copy_member_bytes(out->root, sizeof(out->root), o, "root");
	a = json_object_get(o, "needs");
	out->n = json_array_size(a);
	out->v = out->n ? gt_xcalloc(out->n, sizeof(*out->v)) : NULL;
	for (i = 0; i < out->n; i++) {
		const json_t *e = json_array_get(a, i);
		struct host_need *n = &out->v[i];

		copy_member_bytes(n->family, sizeof(n->family), e, "family");
		copy_member_bytes(n->spec, sizeof(n->spec), e, "spec");
		copy_member_bytes(n->distribution, sizeof(n->distribution), e, "distribution");
		copy_member_bytes(n->declared_by, sizeof(n->declared_by), e, "declared_by");
		copy_member_bytes(n->what, sizeof(n->what), e, "what");
		copy_member_bytes(n->framework, sizeof(n->framework), e, "framework");
	}
	return true;
}

/* ---- what a file carries ---- */

struct embedded_q {
	const char *path, *component;
};

static json_t *ask_embedded(struct gt_host_facts *f, const void *ctx)
{
	const struct embedded_q *q = ctx;
	char v[64];

	(void)f;
	return host_embedded_version(q->path, q->component, v, sizeof(v)) ? json_string(v) : json_null();
}

bool gt_facts_embedded_version(struct gt_host_facts *f, const char *path, const char *component, char *out,
			       size_t cap)
{
	const char *parts[2] = { path, component };
	struct embedded_q q = { path, component };
	char *key = key_of(parts, 2);
	const char *v = json_string_value(answer(f, "embedded", key, ask_embedded, &q));

	free(key);
	if (!v)
		return false;
	snprintf(out, cap, "%s", v);
	return true;
}

static json_t *ask_fatbin(struct gt_host_facts *f, const void *path)
{
	char err[256];
	const struct host_fatbin *fb = host_fatbin_of(path, err, sizeof(err));
	json_t *o, *a;
	size_t i;

	(void)f;
	if (!fb)
		return json_pack("{s:s}", "error", err);
	a = json_array();
	for (i = 0; i < fb->nimages; i++) {
		const struct host_fatbin_image *im = &fb->images[i];
		char variant[2] = { im->variant, 0 };

		json_t *e = json_pack("{s:b, s:i, s:s, s:b, s:I, s:I, s:I}", "ptx", im->ptx, "arch", im->arch,
				      "variant", variant, "relocatable", im->relocatable, "entries",
				      (json_int_t)im->entries, "compressed", (json_int_t)im->compressed, "bytes",
				      (json_int_t)im->bytes);

		/* absent in facts files written before it was read: unknown */
		if (im->ptx_isa > 0)
			json_object_set_new(e, "ptx_isa", json_integer(im->ptx_isa));
		json_array_append_new(a, e);
	}
	o = json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:o}", "has_device_code", fb->has_device_code,
		      "containers", (json_int_t)fb->containers, "entries", (json_int_t)fb->entries,
		      "other_entries", (json_int_t)fb->other_entries, "empty_entries",
		      (json_int_t)fb->empty_entries, "section_bytes", (json_int_t)fb->section_bytes, "partial",
		      fb->partial, "code_elsewhere", fb->code_elsewhere, "images", a);
	return o;
}

static unsigned long long uint_of(const json_t *o, const char *name)
{
	json_int_t v = json_integer_value(json_object_get(o, name));

	return v > 0 ? (unsigned long long)v : 0;
}

static void decode_fatbin(const json_t *o, struct host_fatbin *out)
{
	const json_t *a;
	size_t i;

	out->has_device_code = json_is_true(json_object_get(o, "has_device_code"));
	out->containers = (unsigned)uint_of(o, "containers");
	out->entries = (unsigned)uint_of(o, "entries");
	out->other_entries = (unsigned)uint_of(o, "other_entries");
	out->empty_entries = (unsigned)uint_of(o, "empty_entries");
	out->section_bytes = uint_of(o, "section_bytes");
	out->partial = json_is_true(json_object_get(o, "partial"));
	out->code_elsewhere = json_is_true(json_object_get(o, "code_elsewhere"));
	a = json_object_get(o, "images");
	for (i = 0; i < json_array_size(a) && i < HOST_FATBIN_MAX_IMAGES; i++) {
		const json_t *e = json_array_get(a, i);
		struct host_fatbin_image *im = &out->images[i];
		const char *variant = get_str(e, "variant");

		im->ptx = json_is_true(json_object_get(e, "ptx"));
		im->arch = (int)json_integer_value(json_object_get(e, "arch"));
		im->variant = variant ? variant[0] : 0;
		im->relocatable = json_is_true(json_object_get(e, "relocatable"));
		im->entries = (unsigned)uint_of(e, "entries");
		im->compressed = (unsigned)uint_of(e, "compressed");
		im->bytes = uint_of(e, "bytes");
		im->ptx_isa = (int)(uint_of(e, "ptx_isa") < 1000 ? uint_of(e, "ptx_isa") : 0);
	}
	out->nimages = i;
}

const struct host_fatbin *gt_facts_fatbin(struct gt_host_facts *f, const char *path, char *err, size_t errcap)
{
	json_t *o, *at = json_object_get(f->fatbin_index, path);
	struct host_fatbin *fb;

	if (at)
		return f->fatbins[json_integer_value(at)];
	o = answer(f, "fatbin", path, ask_fatbin, path);
	if (!o || get_str(o, "error")) {
		snprintf(err, errcap, "%s", o ? get_str(o, "error") : "not in the facts file");
		return NULL;
	}
	fb = gt_xcalloc(1, sizeof(*fb));
	decode_fatbin(o, fb);
	f->fatbins = gt_xrealloc(f->fatbins, (f->nfatbins + 1) * sizeof(*f->fatbins));
	json_object_set_new(f->fatbin_index, path, json_integer((json_int_t)f->nfatbins));
	f->fatbins[f->nfatbins++] = fb;
	return fb;
}

/* ---- folders and searches ---- */

struct glob_q {
	const char *pattern;
	bool only_dirs;
};

static json_t *ask_glob(struct gt_host_facts *f, const void *ctx)
{
	const struct glob_q *q = ctx;
	json_t *a = json_array();
	glob_t g;
	size_t i;

	(void)f;
	if (glob(q->pattern, q->only_dirs ? GLOB_ONLYDIR : 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			json_array_append_new(a, bytes_json(g.gl_pathv[i]));
		globfree(&g);
	}
	return a;
}

size_t gt_facts_glob(struct gt_host_facts *f, const char *pattern, bool only_dirs, char ***paths)
{
	const char *parts[2] = { pattern, only_dirs ? "dirs" : "all" };
	struct glob_q q = { pattern, only_dirs };
	char *key = key_of(parts, 2);
	json_t *a = answer(f, "glob", key, ask_glob, &q);

	free(key);
	return strings_of(a, paths);
}

struct search_path_q {
	const char *list, *object_path;
	bool main;
};

static json_t *ask_search_path(struct gt_host_facts *f, const void *ctx)
{
	const struct search_path_q *q = ctx;
	char **dirs;
	size_t n = host_expand_search_path(q->list, q->object_path, q->main, &dirs);
	json_t *a = strings_json(dirs, n);

	(void)f;
	host_free_strings(dirs, n);
	return a;
}

size_t gt_facts_search_path(struct gt_host_facts *f, const char *list, const char *object_path, bool is_main_program,
			    char ***dirs)
{
	const char *parts[3] = { list, object_path, is_main_program ? "main" : "" };
	struct search_path_q q = { list, object_path, is_main_program };
	char *key = key_of(parts, 3);
	json_t *a = answer(f, "search_path", key, ask_search_path, &q);

	free(key);
	return strings_of(a, dirs);
}

/* The loader's environment on this host: its ld.so.cache, read once. */
static void host_env(struct gt_host_facts *f, const char *ld_library_path, struct host_resolve_env *env)
{
	char err[256];

	if (!f->cache_tried) {
		f->cache_tried = true;
		f->have_cache = host_ldcache_read("/etc/ld.so.cache", &f->cache, err, sizeof(err));
	}
	memset(env, 0, sizeof(*env));
	env->ld_library_path = ld_library_path;
	env->cache = f->have_cache ? &f->cache : NULL;
	env->reuse = true;  /* f->cache lives until gt_facts_set_free, which forgets the searches */
}

struct resolve_q {
	const char *name, *requester, *ld_library_path;
	const char *const *loaders;
	size_t nloaders;
};

/* {"path", "rule", "exists", "usable"}, member by member rather than by
 * json_pack, which parsed its format for each of a search's ~50
 * candidates: 5,300 instructions a candidate, a sixth of a report of
 * torch's searches (bench/README.md section 20). A path that is not UTF-8
 * is {"hex": ...} (bytes_json): json_pack dropped the candidate, and the
 * winner's index then named another file. */
/* A rule's name, one JSON string for the process (jansson's strings are
 * never changed in place): the candidates share a handful of rules. */
static json_t *rule_json(enum gt_rule rule)
{
	static json_t *made[GT_RULE_COUNT + 1];
	unsigned k = (unsigned)rule < GT_RULE_COUNT ? (unsigned)rule : GT_RULE_COUNT;

	if (!made[k])
		made[k] = json_string(gt_rule_name(rule));
	return json_incref(made[k]);
}

static json_t *candidate_json(const struct host_candidate *c)
{
	json_t *o = json_object();

	json_object_set_new_nocheck(o, "path", bytes_json(c->path));
	json_object_set_new_nocheck(o, "rule", rule_json(c->rule));
	json_object_set_new_nocheck(o, "exists", json_boolean(c->exists));
	json_object_set_new_nocheck(o, "usable", json_boolean(c->usable));
	return o;
}

static json_t *ask_resolve(struct gt_host_facts *f, const void *ctx)
{
	const struct resolve_q *q = ctx;
	struct host_resolve_env env;
	struct host_resolution r;
	json_t *cand = json_array(), *o;
	size_t i;

	host_env(f, q->ld_library_path, &env);
	host_resolve(q->name, q->requester, q->loaders, q->nloaders, &env, &r);
	for (i = 0; i < r.ncand; i++)
		json_array_append_new(cand, candidate_json(&r.cand[i]));
	o = json_pack("{s:o, s:I, s:o, s:o}", "candidates", cand, "winner", (json_int_t)r.winner, "shadowed",
		      strings_json(r.shadowed, r.nshadowed), "stop_reason",
		      r.stop_reason ? json_string(r.stop_reason) : json_null());  /* the resolver's own words */
	host_resolution_free(&r);
	return o;
}

void gt_facts_resolve(struct gt_host_facts *f, const char *name, const char *requester, const char *const *loaders,
		      size_t nloaders, const char *ld_library_path, struct host_resolution *out)
{
	const char **parts = gt_xcalloc(nloaders + 4, sizeof(*parts));
	struct resolve_q q = { name, requester, ld_library_path, loaders, nloaders };
	json_t *o, *cand;
	char *key;
	size_t i;

	parts[0] = name;
	parts[1] = requester;
	parts[2] = ld_library_path ? ld_library_path : "\x1e";  /* unset is not empty */
	for (i = 0; i < nloaders; i++)
		parts[3 + i] = loaders[i];
	key = key_of(parts, nloaders + 3);
	free(parts);
	o = answer(f, "resolve", key, ask_resolve, &q);
	free(key);
	memset(out, 0, sizeof(*out));
	out->name = gt_xstrdup(name);
	out->requester = dup_or_null(requester);
	out->winner = -1;
	if (!o)
		return;
	cand = json_object_get(o, "candidates");
	out->ncand = json_array_size(cand);
	out->cand = out->ncand ? gt_xcalloc(out->ncand, sizeof(*out->cand)) : NULL;
	for (i = 0; i < out->ncand; i++) {
		const json_t *c = json_array_get(cand, i);

		out->cand[i].path = bytes_of(json_object_get(c, "path"));
		out->cand[i].rule = gt_rule_from_name(get_str(c, "rule") ? get_str(c, "rule") : "");
		out->cand[i].exists = json_is_true(json_object_get(c, "exists"));
		out->cand[i].usable = json_is_true(json_object_get(c, "usable"));
	}
	out->winner = (long)json_integer_value(json_object_get(o, "winner"));
	if (out->winner >= (long)out->ncand)
		out->winner = -1;
	out->nshadowed = strings_of(json_object_get(o, "shadowed"), &out->shadowed);
	/* The string lives as long as the store: the report's. */
	out->stop_reason = get_str(o, "stop_reason");
}

/* ---- symbols ---- */

struct gaps_q {
	const struct gt_sym_question *q;
};

static json_t *ask_gaps(struct gt_host_facts *f, const void *ctx)
{
	const struct gt_sym_question *q = ((const struct gaps_q *)ctx)->q;
	struct host_resolve_env env;
	struct gt_symbol_gap *gaps = NULL;
	size_t i, n = 0;
	json_t *a = json_array();

	host_env(f, q->ld_library_path, &env);
	gt_sym_question_answer(q, &env, &gaps, &n);
	for (i = 0; i < n; i++) {
		/* member by member, bytes_json: a path that is not UTF-8 keeps its gap */
		json_t *e = json_object();

		json_object_set_new(e, "symbol", bytes_json(gaps[i].symbol));
		json_object_set_new(e, "version", bytes_json_or_null(gaps[i].version));
		json_object_set_new(e, "consumer", bytes_json(gaps[i].consumer));
		json_object_set_new(e, "provider", bytes_json(gaps[i].provider));
		json_object_set_new(e, "good_copy", bytes_json_or_null(gaps[i].good_copy));
		json_object_set_new(e, "no_version_node", json_boolean(gaps[i].no_version_node));
		json_array_append_new(a, e);
	}
	gt_symbol_gaps_free(gaps, n);
	return a;
}

size_t gt_facts_symbol_gaps(struct gt_host_facts *f, const struct gt_sym_question *q, struct gt_symbol_gap **gaps,
			    size_t *ngaps)
{
	size_t i, n = q->nscope + q->nconsumers + 3;
	const char **parts = gt_xcalloc(n, sizeof(*parts));
	struct gaps_q ctx = { q };
	json_t *a;
	char *key;

	parts[0] = q->load_failed ? "failed" : "";
	parts[1] = q->ld_library_path ? q->ld_library_path : "\x1e";
	for (i = 0; i < q->nscope; i++)
		parts[2 + i] = q->scope[i];
	parts[2 + q->nscope] = "\x1e";  /* the consumers follow */
	for (i = 0; i < q->nconsumers; i++)
		parts[3 + q->nscope + i] = q->consumers[i];
	key = key_of(parts, n);
	free(parts);
	a = answer(f, "symbol_gaps", key, ask_gaps, &ctx);
	free(key);
	for (i = 0; i < json_array_size(a); i++) {
		const json_t *e = json_array_get(a, i);
		struct gt_symbol_gap g = {
			.symbol = member_bytes(e, "symbol"),
			.version = member_bytes(e, "version"),
			.consumer = member_bytes(e, "consumer"),
			.provider = member_bytes(e, "provider"),
			.good_copy = member_bytes(e, "good_copy"),
			.no_version_node = json_is_true(json_object_get(e, "no_version_node")),
		};

		if (!g.symbol || !g.consumer || !g.provider) {
			free(g.symbol);
			free(g.version);
			free(g.consumer);
			free(g.provider);
			free(g.good_copy);
			continue;
		}
		*gaps = gt_xrealloc(*gaps, (*ngaps + 1) * sizeof(**gaps));
		(*gaps)[(*ngaps)++] = g;
	}
	return json_array_size(a);
}

struct symbol_at_q {
	const char *path;
	unsigned long long off;
};

static json_t *ask_symbol_at(struct gt_host_facts *f, const void *ctx)
{
	const struct symbol_at_q *q = ctx;
	unsigned long long into = 0;
	char name[512];
	json_t *o;

	(void)f;
	if (!host_symbol_at(q->path, q->off, name, sizeof(name), &into))
		return json_null();
	/* bytes_json: a name cut at 511 bytes may end inside a UTF-8 sequence */
	o = json_object();
	json_object_set_new(o, "name", bytes_json(name));
	json_object_set_new(o, "into", json_integer((json_int_t)into));
	return o;
}

bool gt_facts_symbol_at(struct gt_host_facts *f, const char *path, unsigned long long off, char *name, size_t cap,
			unsigned long long *into)
{
	char at[32], *key, *b;
	const char *parts[2] = { path, at };
	struct symbol_at_q q = { path, off };
	json_t *o;

	snprintf(at, sizeof(at), "%llx", off);
	key = key_of(parts, 2);
	o = answer(f, "symbol_at", key, ask_symbol_at, &q);
	free(key);
	if (!json_is_object(o) || !(b = member_bytes(o, "name")))
		return false;
	snprintf(name, cap, "%s", b);
	free(b);
	*into = (unsigned long long)json_integer_value(json_object_get(o, "into"));
	return true;
}

/* ---- the host's loader configuration ---- */

static json_t *ask_etc_preload(struct gt_host_facts *f, const void *ctx)
{
	char text[4096];
	FILE *in = fopen("/etc/ld.so.preload", "re");
	size_t n = 0;

	(void)f;
	(void)ctx;
	if (in) {
		n = fread(text, 1, sizeof(text) - 1, in);
		fclose(in);
	}
	text[n] = 0;
	return bytes_json(text);  /* a preloaded path that is not UTF-8 kept too */
}

const char *gt_facts_etc_preload(struct gt_host_facts *f)
{
	if (!f->etc_preload) {
		f->etc_preload = bytes_or_null(answer(f, "etc_preload", "/etc/ld.so.preload", ask_etc_preload, NULL));
		if (!f->etc_preload)
			f->etc_preload = gt_xstrdup("");
	}
	return f->etc_preload;
}

static json_t *ask_gpu_presence(struct gt_host_facts *f, const void *ctx)
{
	struct host_gpu_presence g;

	(void)f;
	(void)ctx;
	host_gpu_presence_read(&g);
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:b, s:s, s:b, s:s, s:b}", "pci_dir", g.pci_dir, "npci", g.npci,
			 "nvidia_pci", g.nvidia_pci, "kmod", g.kmod, "dev_ctl", g.dev_ctl, "has_ctl", g.has_ctl,
			 "dev_gpu0", g.dev_gpu0, "has_gpu0", g.has_gpu0, "dev_dxg", g.dev_dxg, "has_dxg", g.has_dxg);
}

static void str_field(const json_t *o, const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s", get_str(o, name) ? get_str(o, name) : "");
}

bool gt_facts_gpu_presence(struct gt_host_facts *f, struct host_gpu_presence *out)
{
	const json_t *o = answer(f, "gpu_presence", "host", ask_gpu_presence, NULL);

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		return false;
	str_field(o, "pci_dir", out->pci_dir, sizeof(out->pci_dir));
	out->npci = (int)json_integer_value(json_object_get(o, "npci"));
	str_field(o, "nvidia_pci", out->nvidia_pci, sizeof(out->nvidia_pci));
	str_field(o, "kmod", out->kmod, sizeof(out->kmod));
	str_field(o, "dev_ctl", out->dev_ctl, sizeof(out->dev_ctl));
	str_field(o, "dev_gpu0", out->dev_gpu0, sizeof(out->dev_gpu0));
	str_field(o, "dev_dxg", out->dev_dxg, sizeof(out->dev_dxg));
	out->has_ctl = json_is_true(json_object_get(o, "has_ctl"));
	out->has_gpu0 = json_is_true(json_object_get(o, "has_gpu0"));
	out->has_dxg = json_is_true(json_object_get(o, "has_dxg"));
	return true;
}

/* ---- sets, files ---- */

struct gt_facts_set *gt_facts_set_new(enum gt_facts_mode mode)
{
	struct gt_facts_set *s = gt_xcalloc(1, sizeof(*s));

	s->mode = mode;
	s->files = json_object();
	return s;
}

static void facts_path(const char *dir, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", dir, GT_FACTS_FILE);
}

/* The hosts object of a facts file's text; NULL with err for anything that
 * is not a facts file of a version this reader knows. */
static json_t *hosts_of(json_t *doc, const char *path, char *err, size_t errcap)
{
	json_t *hosts = json_object_get(doc, "hosts");
	const char *format = get_str(doc, "format");
	json_int_t version = json_integer_value(json_object_get(doc, "version"));

	if (!json_is_object(doc) || !format || strcmp(format, "gputrace-facts") != 0 || !json_is_object(hosts)) {
		snprintf(err, errcap, "%s: not a gputrace facts file", path);
		return NULL;
	}
	if (version != GT_FACTS_VERSION) {
		snprintf(err, errcap, "%s: facts format version %lld; this gputrace reads version %d", path,
			 (long long)version, GT_FACTS_VERSION);
		return NULL;
	}
	return hosts;
}

/* A facts file read whole, then parsed from the buffer (json_load_file
 * takes each byte through getc): a later `gputrace report DIR` of the H200's
 * import torch (71 KB of facts) went from 19.02 to 18.40 M instructions
 * (callgrind); the 12 M left in jansson are its lexer's own. On a read
 * error je->line is -1 and je->text says why. */
static json_t *load_facts_file(const char *path, size_t flags, json_error_t *je)
{
	size_t len;
	char *text = gt_read_whole_path(path, FACTS_MAX_BYTES, &len);
	json_t *doc;

	if (!text) {
		je->line = -1;
		snprintf(je->text, sizeof(je->text), "%s", strerror(errno));
		return NULL;
	}
	doc = json_loadb(text, len, flags, je);
	free(text);
	return doc;
}

bool gt_facts_set_read_folder(struct gt_facts_set *s, const char *dir, char *err, size_t errcap)
{
	char path[PATH_MAX];
	json_error_t je;
	json_t *doc, *hosts, *v;
	const char *host;

	facts_path(dir, path, sizeof(path));
	if (access(path, F_OK) != 0)
		return true;
	doc = load_facts_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		if (je.line < 0)
			snprintf(err, errcap, "%s: %s", path, je.text);
		else
			snprintf(err, errcap, "%s: line %d: %s", path, je.line, je.text);
		return false;
	}
	hosts = hosts_of(doc, path, err, errcap);
	if (!hosts) {
		json_decref(doc);
		return false;
	}
	json_object_foreach(hosts, host, v)
		if (json_is_object(v) && !json_object_get(s->files, host))
			json_object_set(s->files, host, v);
	json_decref(doc);
	return true;
}

struct gt_host_facts *gt_facts_of_host(struct gt_facts_set *s, const char *host)
{
	char here[256];
	struct gt_host_facts *f;
	size_t i;

	gt_host_name(here, sizeof(here));
	if (!host)
		host = here;
	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i]->host, host) == 0)
			return s->v[i];
	f = gt_xcalloc(1, sizeof(*f));
	f->host = gt_xstrdup(host);
	f->here = strcmp(host, here) == 0;
	f->live = s->mode == GT_FACTS_LIVE;
	f->recorded = json_object_get(s->files, host);
	f->asked = json_object();
	f->fatbin_index = json_object();
	s->v = gt_xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = f;
	return f;
}

/* Adds to dst every question of src (section by section) that dst lacks,
 * or all of them with replace. */
static void merge_store(json_t *dst, const json_t *src, bool replace)
{
	const char *sec, *key;
	json_t *sv, *kv;

	json_object_foreach((json_t *)src, sec, sv) {
		if (!json_is_object(sv))
			continue;
		json_object_foreach(sv, key, kv)
			if (replace || !json_object_get(section(dst, sec), key))
				json_object_set(section(dst, sec), key, kv);
	}
}

static bool write_doc(json_t *doc, const char *dir, const char *path, char *err, size_t errcap)
{
	char tmp[PATH_MAX], *text;
	int fd;
	FILE *out;
	size_t len = 0;
	bool ok;

	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, GT_FACTS_FILE);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		snprintf(err, errcap, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	/* Checked to the close (a full disk says so), but not fsync'd: the
	 * traces it answers for and the report beside them are not either, a
	 * crash of the machine loses them all alike, and the fsync was 0.4 ms
	 * of CPU and ~1 ms of waiting at the end of every run here (bench/
	 * README.md section 17). The rename still keeps a reader from a half-written file. */
	text = gt_facts_dump(doc, &len);
	ok = text && fwrite(text, 1, len, out) == len && fflush(out) == 0;
	free(text);
	if (fclose(out) != 0)
		ok = false;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(err, errcap, "%s: %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		return false;
	}
	return true;
}

bool gt_facts_set_write_folder(struct gt_facts_set *s, const char *dir, char *err, size_t errcap)
{
	char path[PATH_MAX];
	json_error_t je;
	json_t *doc = NULL, *hosts, *mine;
	bool ok;
	int lock;
	size_t i;

	facts_path(dir, path, sizeof(path));
	/* The ranks of one job end at once and share the folder: one at a time. */
	lock = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX) != 0) {
		snprintf(err, errcap, "%s: %s", dir, strerror(errno));
		if (lock >= 0)
			close(lock);
		return false;
	}
	if (access(path, F_OK) == 0) {
		doc = load_facts_file(path, 0, &je);
		if (doc && !hosts_of(doc, path, err, errcap)) {
			json_decref(doc);  /* another version's: replaced by ours */
			doc = NULL;
		}
	}
	if (!doc)
		doc = json_pack("{s:s, s:i, s:{}}", "format", "gputrace-facts", "version", GT_FACTS_VERSION, "hosts");
	hosts = json_object_get(doc, "hosts");
	for (i = 0; i < s->n; i++) {
		if (!s->v[i]->here || !json_object_size(s->v[i]->asked))
			continue;
		mine = json_object_get(hosts, s->v[i]->host);
		if (!json_is_object(mine)) {
			mine = json_object();
			json_object_set_new(hosts, s->v[i]->host, mine);
		}
		merge_store(mine, s->v[i]->asked, true);
	}
	ok = write_doc(doc, dir, path, err, errcap);
	json_decref(doc);
	close(lock);  /* lets the lock go */
	return ok;
}

void gt_facts_set_tally(const struct gt_facts_set *s, struct gt_facts_tally *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->n; i++) {
		out->recorded += s->v[i]->tally.recorded;
		out->asked += s->v[i]->tally.asked;
		out->unanswered += s->v[i]->tally.unanswered;
		if (!s->v[i]->here)
			out->elsewhere += s->v[i]->tally.asked;
	}
}

struct gt_host_facts *gt_facts_here(void)
{
	static struct gt_facts_set *here;

	if (!here)
		here = gt_facts_set_new(GT_FACTS_LIVE);
	return gt_facts_of_host(here, NULL);
}

void gt_facts_set_free(struct gt_facts_set *s)
{
	size_t i, k;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		json_decref(s->v[i]->asked);
		json_decref(s->v[i]->fatbin_index);
		for (k = 0; k < s->v[i]->nfatbins; k++)
			free(s->v[i]->fatbins[k]);
		free(s->v[i]->fatbins);
		free(s->v[i]->etc_preload);
		if (s->v[i]->have_cache)
			host_ldcache_free(&s->v[i]->cache);
		free(s->v[i]->host);
		free(s->v[i]);
	}
	free(s->v);
	json_decref(s->files);
	free(s);
	/* their searches were made with the caches just freed */
	host_resolve_cache_free();
}
