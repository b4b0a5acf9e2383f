/* The facts file's JSON in one pass (see facts_dump.h). */
#include "facts/facts_dump.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct text {
	char *s;
	size_t len, cap;
};

static void reserve(struct text *t, size_t more)
{
	if (t->len + more + 1 <= t->cap)
		return;
	while (t->len + more + 1 > t->cap)
		t->cap = t->cap ? 2 * t->cap : 64 * 1024;
	t->s = gt_xrealloc(t->s, t->cap);
}

static void put(struct text *t, const char *s, size_t n)
{
	reserve(t, n);
	memcpy(t->s + t->len, s, n);
	t->len += n;
}

/* The bytes a JSON string spells with a backslash. */
static const bool escaped[256] = { [0 ... 0x1f] = true, ['"'] = true, ['\\'] = true };

/* A JSON string. jansson's strings are valid UTF-8 already: only the quote,
 * the backslash and the control characters need escaping, byte by byte,
 * spelt as jansson spells them (the same answers, the same file). Most
 * bytes cost the table's look-up alone: the ~80 KB of a torch-like run's
 * facts took 1.8 M instructions here with the escape built for every byte
 * (bench/README.md section 21). */
static void put_string(struct text *t, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, from = 0;

	reserve(t, n + 2);
	t->s[t->len++] = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[6];
		size_t elen = 2;

		if (!escaped[c])
			continue;
		esc[0] = '\\';
		esc[1] = 'u';
		esc[2] = esc[3] = '0';
		esc[4] = hex[c >> 4];
		esc[5] = hex[c & 15];
		put(t, s + from, i - from);
		from = i + 1;
		switch (c) {
		case '"': case '\\': esc[1] = (char)c; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default: elen = 6; break;  /* \u00XX */
		}
		put(t, esc, elen);
	}
	put(t, s + from, n - from);
	put(t, "\"", 1);
}

/* A member, its value taken with its key: looking each up again after the
 * sort hashed every key twice. */
struct member {
	const char *key;
	const json_t *value;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->key, ((const struct member *)b)->key);
}

static bool put_value(struct text *t, const json_t *v);

static bool put_object(struct text *t, const json_t *o)
{
	size_t n = json_object_size(o), i = 0;
	struct member *m = gt_xcalloc(n ? n : 1, sizeof(*m));
	const char *key;
	json_t *v;
	bool ok = true;

	json_object_foreach((json_t *)o, key, v)
		m[i++] = (struct member){ key, v };
	qsort(m, n, sizeof(*m), by_key);
	put(t, "{", 1);
	for (i = 0; i < n && ok; i++) {
		if (i)
			put(t, ",", 1);
		put_string(t, m[i].key, strlen(m[i].key));
		put(t, ":", 1);
		ok = put_value(t, m[i].value);
	}
	put(t, "}", 1);
	free(m);
	return ok;
}

static bool put_value(struct text *t, const json_t *v)
{
	char num[64];
	char *real;
	size_t i;
	bool ok = true;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return put_object(t, v);
	case JSON_ARRAY:
		put(t, "[", 1);
		for (i = 0; i < json_array_size(v) && ok; i++) {
			if (i)
				put(t, ",", 1);
			ok = put_value(t, json_array_get(v, i));
		}
		put(t, "]", 1);
		return ok;
	case JSON_STRING:
		put_string(t, json_string_value(v), json_string_length(v));
		return true;
	case JSON_INTEGER:
		put(t, num, (size_t)snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v)));
		return true;
	case JSON_REAL:
		/* jansson's own spelling of a number (none in today's answers) */
		real = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		if (!real)
			return false;
		put(t, real, strlen(real));
		free(real);
		return true;
	case JSON_TRUE:
		put(t, "true", 4);
		return true;
	case JSON_FALSE:
		put(t, "false", 5);
		return true;
	case JSON_NULL:
		put(t, "null", 4);
		return true;
	}
	return false;
}

char *gt_facts_dump(const json_t *doc, size_t *len)
{
	struct text t = { 0 };

	if (!doc || !put_value(&t, doc)) {
		free(t.s);
		return NULL;
	}
	put(&t, "\n", 1);
	t.s[t.len] = 0;
	*len = t.len;
	return t.s;
}
