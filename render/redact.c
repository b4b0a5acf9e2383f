/* Secrets taken out of text (see redact.h). One pass over the bytes: a JSON
 * string literal is recognised where it starts, so that its key and the
 * value after it can be judged together; everything else, inside literals
 * too, is scanned for NAME=value and for URLs with user info. */
#include "render/redact.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/hex.h"
#include "common/xalloc.h"

static const char *const secret_words[] = { "TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH" };

struct out {
	char *p;
	size_t n, cap;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->n + n + 1 > o->cap) {
		o->cap = (o->n + n + 1) * 2;
		o->p = gt_xrealloc(o->p, o->cap);
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
	o->p[o->n] = 0;
}

static bool contains_word(const char *name, size_t n, const char *word)
{
	size_t w = strlen(word), i, k;

	for (i = 0; i + w <= n; i++) {
		for (k = 0; k < w && toupper((unsigned char)name[i + k]) == word[k]; k++)
			;
		if (k == w)
			return true;
	}
	return false;
}

bool gt_secret_name(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(secret_words) / sizeof(secret_words[0]); i++)
		if (contains_word(name, n, secret_words[i]))
			return true;
	return false;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Keeps a name (its leading dashes off), once. */
static void note(struct gt_redactions *log, const char *name, size_t n)
{
	char *s;
	size_t i;

	while (n && *name == '-') {
		name++;
		n--;
	}
	s = gt_xmalloc(n + 1);
	memcpy(s, name, n);
	s[n] = 0;
	for (i = 0; i < log->nnames; i++)
		if (strcmp(log->names[i], s) == 0) {
			free(s);
			return;
		}
	log->names = gt_xrealloc(log->names, (log->nnames + 1) * sizeof(*log->names));
	log->names[log->nnames++] = s;
	qsort(log->names, log->nnames, sizeof(*log->names), by_string);
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* An environment variable's spelling: upper case, digits, underscores. The
 * JSON keys of gputrace's own files (path, key, ...) are lower case: a key
 * is judged as a variable only when it is spelled as one. */
static bool env_style(const char *s, size_t n)
{
	size_t i;

	if (!n || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isupper((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* The index past the JSON string literal that starts at s[i] ('"'), or 0
 * when it does not close on its line. */
static size_t literal_end(const char *s, size_t len, size_t i)
{
	size_t k;

	for (k = i + 1; k < len && s[k] != '\n'; k++) {
		if (s[k] == '\\')
			k++;
		else if (s[k] == '"')
			return k + 1;
	}
	return 0;
}

/* After position e: blanks, sep, blanks (newlines too: indented JSON), then
 * a literal's start, or 0. */
static size_t literal_after(const char *s, size_t len, size_t e, char sep)
{
	while (e < len && strchr(" \t\r\n", s[e]) && s[e])
		e++;
	if (e >= len || s[e] != sep)
		return 0;
	for (e++; e < len && strchr(" \t\r\n", s[e]) && s[e]; e++)
		;
	return e < len && s[e] == '"' ? e : 0;
}

static void scan(struct out *o, const char *s, size_t len, bool json, struct gt_redactions *log);

/* A "<key>_hex" value (bytes as hex, n digits at h): the bytes cleaned and
 * written as hex again. False when it is no hex (then nothing is written). */
static bool clean_hex(struct out *o, const char *h, size_t n, struct gt_redactions *log)
{
	char *bytes = gt_xmalloc(n / 2 + 1), *clean, pair[2];
	size_t i, cn;

	if (!gt_hex_read(h, n, bytes)) {
		free(bytes);
		return false;
	}
	clean = gt_redact(bytes, n / 2, &cn, log);
	for (i = 0; i < cn; i++) {
		gt_hex_spell(pair, clean + i, 1);
		put(o, pair, 2);
	}
	free(bytes);
	free(clean);
	return true;
}

/* A JSON literal at s[i], ending at e (past its quote): a secret's key with
 * its value, a "_hex" twin, an option of an argv with the word after it, or
 * a plain string whose inside is scanned. Returns where to go on. */
static size_t literal(struct out *o, const char *s, size_t len, size_t i, size_t e, struct gt_redactions *log)
{
	const char *name = s + i + 1;
	size_t n = e - i - 2, v = literal_after(s, len, e, ':'), w = literal_after(s, len, e, ',');
	size_t ve = v ? literal_end(s, len, v) : 0, we = w ? literal_end(s, len, w) : 0;

	if (ve && env_style(name, n) && gt_secret_name(name, n)) {
		put(o, s + i, v + 1 - i);
		put(o, GT_REDACTED "\"", strlen(GT_REDACTED) + 1);
		note(log, name, n);
		return ve;
	}
	if (ve && n > 4 && memcmp(name + n - 4, "_hex", 4) == 0) {
		size_t at = o->n;

		put(o, s + i, v + 1 - i);
		if (clean_hex(o, s + v + 1, ve - v - 2, log)) {
			put(o, "\"", 1);
			return ve;
		}
		o->n = at;
	}
	if (we && n > 1 && name[0] == '-' && !memchr(name, '=', n) && gt_secret_name(name, n)) {
		put(o, s + i, w + 1 - i);
		put(o, GT_REDACTED "\"", strlen(GT_REDACTED) + 1);
		note(log, name, n);
		return we;
	}
	put(o, "\"", 1);
	scan(o, s + i + 1, n, false, log);
	put(o, "\"", 1);
	return e;
}

/* The end of a value after NAME=: a quoted one to its closing quote, else
 * up to a blank or a character that ends a word in JSON, a shell, a URL or
 * Markdown (a code span's backtick, a table's bar). */
static size_t value_end(const char *s, size_t len, size_t k)
{
	char q = k < len ? s[k] : 0;

	if (q == '\'' || (q == '"' && k + 1 < len)) {
		const char *close = memchr(s + k + 1, q, len - k - 1);

		if (close)
			return (size_t)(close - s) + 1;
	}
	while (k < len && !strchr(" \t\n\r\"'`|\\,;&}])", s[k]) && s[k])
		k++;
	return k;
}

/* A URL's user info at s[k] (after "://"): its length up to and with the
 * '@', or 0 when there is none. */
static size_t user_info(const char *s, size_t len, size_t k)
{
	size_t j;

	for (j = k; j < len && !strchr(" \t\n\r\"'`/?#<>\\,;|()[]{}@", s[j]) && s[j]; j++)
		;
	return j < len && s[j] == '@' && j > k ? j + 1 - k : 0;
}

/* After an option's name at k: the start of the word that is its value
 * (blanks, then a word that is no option itself), or 0. A line break with
 * its indent counts as a blank, and so does a shell's backslash before it: text
 * folded to 100 columns may put the value on the next line (a long program
 * path did, in the summary's text report). */
static size_t option_value(const char *s, size_t len, size_t k)
{
	size_t j = k;

	while (j < len && (strchr(" \t\r\n", s[j]) || (s[j] == '\\' && j + 1 < len && s[j + 1] == '\n')) && s[j])
		j++;
	return j > k && j < len && s[j] != '-' && value_end(s, len, j) > j ? j : 0;
}

static void scan(struct out *o, const char *s, size_t len, bool json, struct gt_redactions *log)
{
	size_t i = 0, e, k, u;

	while (i < len) {
		if (json && s[i] == '"' && (e = literal_end(s, len, i))) {
			i = literal(o, s, len, i, e, log);
		} else if (len - i >= 3 && memcmp(s + i, "://", 3) == 0) {
			put(o, "://", 3);
			i += 3;
			if ((u = user_info(s, len, i))) {
				log->urls++;
				i += u;
			}
		} else if (name_char(s[i]) && (i == 0 || !name_char(s[i - 1]))) {
			for (k = i; k < len && name_char(s[k]); k++)
				;
			put(o, s + i, k - i);
			if (k < len && s[k] == '=' && gt_secret_name(s + i, k - i) && value_end(s, len, k + 1) > k + 1) {
				put(o, "=" GT_REDACTED, strlen(GT_REDACTED) + 1);
				note(log, s + i, k - i);
				k = value_end(s, len, k + 1);
			} else if (s[i] == '-' && gt_secret_name(s + i, k - i) && (u = option_value(s, len, k))) {
				/* "--token VALUE" in a command line written out */
				put(o, s + k, u - k);
				put(o, GT_REDACTED, strlen(GT_REDACTED));
				note(log, s + i, k - i);
				k = value_end(s, len, u);
			}
			i = k;
		} else {
			put(o, s + i, 1);
			i++;
		}
	}
}

char *gt_redact(const char *in, size_t len, size_t *outlen, struct gt_redactions *log)
{
	struct out o = { NULL, 0, 0 };

	put(&o, "", 0);
	scan(&o, in, len, true, log);
	*outlen = o.n;
	return o.p;
}

void gt_redactions_free(struct gt_redactions *log)
{
	size_t i;

	for (i = 0; i < log->nnames; i++)
		free(log->names[i]);
	free(log->names);
	log->names = NULL;
	log->nnames = 0;
	log->urls = 0;
}
