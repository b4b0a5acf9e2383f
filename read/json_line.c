/* One JSON line parsed into a flat array of values (see json_line.h): the
 * writer's plain lines here, anything else through jansson. */
#include "read/json_line.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hex.h"
#include "common/jline.h"
#include "common/xalloc.h"

/* Deeper values are jansson's to judge (its own limit is 2048). */
#define FAST_MAX_DEPTH 32
/* 18 digits always fit in a long long; longer numbers are jansson's. */
#define FAST_MAX_DIGITS 18

/* A parse in progress: refusal is not an error, only "not the fast path". */
struct fast {
	struct gt_jline *j;
	const char *p, *end;
	char *out;            /* where the next string's bytes go */
	int depth;
};

/* A new value at the end; the pointer holds until the next push (which may
 * move the array): containers keep their index instead. */
static struct gt_jv *push(struct gt_jline *j, enum gt_jv_type type, const char *key)
{
	struct gt_jv *v;

	if (j->nv == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 64;
		j->v = gt_xrealloc(j->v, j->cap * sizeof(*j->v));
	}
	v = &j->v[j->nv];
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->key = key;
	v->size = 1;
	j->nv++;
	return v;
}

static void skip_space(struct fast *f)
{
	while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r'))
		f->p++;
}

/* The byte of a \u escape of ASCII but NUL (what the writer writes for a
 * control byte), or -1: surrogates, other planes and NUL are jansson's. */
static int ascii_escape(const char *p, const char *end)
{
	int hi, lo;

	if (end - p < 4 || p[0] != '0' || p[1] != '0')
		return -1;
	hi = gt_hex_digit(p[2]);
	lo = gt_hex_digit(p[3]);
	if (hi < 0 || lo < 0 || hi > 7 || (hi == 0 && lo == 0))
		return -1;
	return hi * 16 + lo;
}

static char simple_escape(char c)
{
	switch (c) {
	case '"': return '"';
	case '\\': return '\\';
	case '/': return '/';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	default: return 0;
	}
}

/* A string of printable ASCII and the writer's escapes, at f->p (a quote),
 * copied NUL-terminated to f->out; NULL for anything else. The cursor and
 * the output are locals: through f, every byte stored (a char may alias
 * anything) made the compiler load both again, and this loop was most of a
 * report's parse (issue 29). */
static const char *fast_string(struct fast *f)
{
	const char *p = f->p + 1, *end = f->end;
	char *start = f->out, *out = f->out;
	unsigned char b;
	int c;

	for (;;) {
		/* Eight plain bytes at a time (most of a trace is paths), then
		 * one at a time up to the byte that stopped the words. */
		while (end - p >= 8 && jl_plain_word(p)) {
			memcpy(out, p, 8);
			out += 8;
			p += 8;
		}
		while (p < end && (b = (unsigned char)*p) >= 0x20 && b < 0x80 && b != '"' && b != '\\')
			*out++ = (char)*p++;
		if (p == end)
			return NULL;
		if (b == '"') {
			*out++ = 0;
			f->p = p + 1;
			f->out = out;
			return start;
		}
		if (b != '\\' || end - p < 2)
			return NULL;
		if (p[1] == 'u') {
			if ((c = ascii_escape(p + 2, end)) < 0)
				return NULL;
			p += 6;
		} else {
			if (!(c = simple_escape(p[1])))
				return NULL;
			p += 2;
		}
		*out++ = (char)c;
	}
}

/* An integer as JSON spells it, short enough to fit; not a real number. */
static bool fast_int(struct fast *f, const char *key)
{
	const char *p = f->p;
	bool neg = *p == '-';
	long long n = 0;
	int digits = 0;

	if (neg)
		p++;
	if (p >= f->end || *p < '1' || *p > '9') {
		/* "0" alone; "-0", "01", "-" are jansson's */
		if (neg || p >= f->end || *p != '0')
			return false;
		p++;
	} else {
		/* digits past the limit are counted, not added: no overflow */
		for (; p < f->end && *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < FAST_MAX_DIGITS)
				n = n * 10 + (*p - '0');
		if (digits > FAST_MAX_DIGITS)
			return false;
	}
	if (p < f->end && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9')))
		return false;
	push(f->j, GT_JV_INT, key)->num = neg ? -n : n;
	f->p = p;
	return true;
}

static bool fast_word(struct fast *f, const char *word, enum gt_jv_type type, const char *key)
{
	size_t n = strlen(word);

	if ((size_t)(f->end - f->p) < n || memcmp(f->p, word, n) != 0)
		return false;
	f->p += n;
	push(f->j, type, key);
	return true;
}

static bool fast_value(struct fast *f, const char *key);

/* Is key a member name of the object at index obj already? */
static bool key_taken(const struct gt_jline *j, size_t obj, const char *key)
{
	size_t i, at = obj + 1;

	for (i = 0; i < j->v[obj].n; i++, at += j->v[at].size)
		if (strcmp(j->v[at].key, key) == 0)
			return true;
	return false;
}

/* The members of an object or array, f->p past its opening bracket. */
static bool fast_members(struct fast *f, size_t at, bool object)
{
	char close = object ? '}' : ']';
	const char *key = NULL;

	skip_space(f);
	if (f->p < f->end && *f->p == close) {
		f->p++;
		return true;
	}
	for (;;) {
		skip_space(f);
		if (object) {
			if (f->p >= f->end || *f->p != '"' || !(key = fast_string(f)) || key_taken(f->j, at, key))
				return false;
			skip_space(f);
			if (f->p >= f->end || *f->p != ':')
				return false;
			f->p++;
		}
		if (!fast_value(f, key))
			return false;
		f->j->v[at].n++;
		skip_space(f);
		if (f->p < f->end && *f->p == ',') {
			f->p++;
			continue;
		}
		if (f->p < f->end && *f->p == close) {
			f->p++;
			return true;
		}
		return false;
	}
}

static bool fast_value(struct fast *f, const char *key)
{
	const char *s;
	size_t at;
	bool ok;

	skip_space(f);
	if (f->p >= f->end)
		return false;
	switch (*f->p) {
	case '{':
	case '[':
		if (++f->depth > FAST_MAX_DEPTH)
			return false;
		push(f->j, *f->p == '{' ? GT_JV_OBJECT : GT_JV_ARRAY, key);
		at = f->j->nv - 1;
		f->p++;
		ok = fast_members(f, at, f->j->v[at].type == GT_JV_OBJECT);
		f->j->v[at].size = f->j->nv - at;
		f->depth--;
		return ok;
	case '"':
		if (!(s = fast_string(f)))
			return false;
		push(f->j, GT_JV_STRING, key)->str = s;
		return true;
	case 't': return fast_word(f, "true", GT_JV_TRUE, key);
	case 'f': return fast_word(f, "false", GT_JV_FALSE, key);
	case 'n': return fast_word(f, "null", GT_JV_NULL, key);
	default: return fast_int(f, key);
	}
}

static bool fast_parse(struct gt_jline *j, const char *text, size_t len)
{
	struct fast f = { .j = j, .p = text, .end = text + len };

	/* Unescaped, the strings never take more room than the line. */
	if (j->text_cap < len + 1) {
		j->text_cap = len + 1;
		j->text = gt_xrealloc(j->text, j->text_cap);
	}
	f.out = j->text;
	skip_space(&f);
	if (f.p >= f.end || *f.p != '{' || !fast_value(&f, NULL))
		return false;
	skip_space(&f);
	return f.p == f.end;
}

/* jansson's value, in the same flat form; its strings stay in it. */
static void from_jansson(struct gt_jline *j, json_t *v, const char *key)
{
	size_t at, i;
	const char *k;
	json_t *m;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		push(j, GT_JV_OBJECT, key);
		at = j->nv - 1;
		json_object_foreach(v, k, m) {
			from_jansson(j, m, k);
			j->v[at].n++;
		}
		j->v[at].size = j->nv - at;
		break;
	case JSON_ARRAY:
		push(j, GT_JV_ARRAY, key);
		at = j->nv - 1;
		json_array_foreach(v, i, m) {
			from_jansson(j, m, NULL);
			j->v[at].n++;
		}
		j->v[at].size = j->nv - at;
		break;
	case JSON_STRING: push(j, GT_JV_STRING, key)->str = json_string_value(v); break;
	case JSON_INTEGER: push(j, GT_JV_INT, key)->num = json_integer_value(v); break;
	case JSON_REAL: push(j, GT_JV_REAL, key); break;
	case JSON_TRUE: push(j, GT_JV_TRUE, key); break;
	case JSON_FALSE: push(j, GT_JV_FALSE, key); break;
	case JSON_NULL: push(j, GT_JV_NULL, key); break;
	}
}

const struct gt_jv *gt_jline_parse(struct gt_jline *j, const char *text, size_t len)
{
	json_error_t err;
	json_t *o;

	json_decref(j->fallback);
	j->fallback = NULL;
	j->nv = 0;
	if (fast_parse(j, text, len)) {
		j->fast++;
		return j->v;
	}
	j->nv = 0;
	j->slow++;
	o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	j->fallback = o;
	from_jansson(j, o, NULL);
	return j->v;
}

void gt_jline_free(struct gt_jline *j)
{
	json_decref(j->fallback);
	free(j->v);
	free(j->text);
	memset(j, 0, sizeof(*j));
}

/* ---- reading values ---- */

const struct gt_jv *gt_jv_get(const struct gt_jv *o, const char *key, const char *suffix)
{
	size_t klen = strlen(key), i;
	const struct gt_jv *m;

	if (!o || o->type != GT_JV_OBJECT)
		return NULL;
	/* The first letter first: most members are not the one. */
	for (i = 0, m = o + 1; i < o->n; i++, m += m->size)
		if (m->key[0] == key[0] && strncmp(m->key, key, klen) == 0 &&
		    strcmp(m->key + klen, suffix ? suffix : "") == 0)
			return m;
	return NULL;
}

void gt_jv_get_both(const struct gt_jv *o, const char *key, const char *suffix, const struct gt_jv **plain,
		    const struct gt_jv **suffixed)
{
	size_t klen = strlen(key), i;
	const struct gt_jv *m;

	*plain = *suffixed = NULL;
	if (!o || o->type != GT_JV_OBJECT)
		return;
	/* Keys are unique in a line (a key twice is refused): the first of
	 * each is the only one. */
	for (i = 0, m = o + 1; i < o->n; i++, m += m->size) {
		if (m->key[0] != key[0] || strncmp(m->key, key, klen) != 0)
			continue;
		if (m->key[klen] == 0)
			*plain = m;
		else if (strcmp(m->key + klen, suffix) == 0)
			*suffixed = m;
	}
}

const char *gt_jv_str(const struct gt_jv *v)
{
	return v && v->type == GT_JV_STRING ? v->str : NULL;
}

bool gt_jv_is_int(const struct gt_jv *v)
{
	return v && v->type == GT_JV_INT;
}

long long gt_jv_int(const struct gt_jv *v)
{
	return gt_jv_is_int(v) ? v->num : 0;
}

bool gt_jv_is_true(const struct gt_jv *v)
{
	return v && v->type == GT_JV_TRUE;
}

size_t gt_jv_len(const struct gt_jv *v)
{
	return v && v->type == GT_JV_ARRAY ? v->n : 0;
}

const struct gt_jv *gt_jv_first(const struct gt_jv *v)
{
	return gt_jv_len(v) ? v + 1 : NULL;
}

const struct gt_jv *gt_jv_next(const struct gt_jv *member)
{
	return member + member->size;
}
