/* jline: JSON lines for the trace, built in fixed buffers (see jline.h).
 * Any path must survive the trip: quotes, control bytes and non-UTF-8 bytes. */
#include "common/jline.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Room kept at the end of every line for `,"truncated":true}\n`. */
#define JL_RESERVE 24

static const char hexdig[] = "0123456789abcdef";

size_t jl_utf8_seq_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n, i;
	unsigned int cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and values past U+10FFFF are not UTF-8. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void put(char *out, size_t cap, size_t *pos, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, (*pos)++)
		if (*pos < cap)
			out[*pos] = s[i];
}

/* Bytes that a JSON string may hold as they are: printable ASCII but the quote
 * and the backslash. Paths are almost all of these, so they are copied in runs. */
static bool plain_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/* How many bytes from s (at most n) are plain, eight at a time while all
 * of them are: escaping the trace's paths a byte at a time was 2.7 M of the
 * instructions the library adds to Debian's import torch (bench/README.md
 * section 21). */
static size_t plain_run(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i + 8 <= n && jl_plain_word(s + i))
		i += 8;
	while (i < n && plain_ascii(s[i]))
		i++;
	return i;
}

size_t jl_escape(char *out, size_t cap, const char *val, size_t n, bool *lossy)
{
	const unsigned char *s = (const unsigned char *)val;
	size_t pos = 0, i = 0, len, run;
	char esc[6];

	*lossy = false;
	while (i < n) {
		unsigned char c = s[i];

		run = i + plain_run(s + i, n - i);
		if (run > i) {
			if (pos + (run - i) <= cap)
				memcpy(out + pos, val + i, run - i);
			pos += run - i;
			i = run;
			continue;
		}
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(out, cap, &pos, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			esc[0] = '\\';
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hexdig[c >> 4];
			esc[5] = hexdig[c & 15];
			put(out, cap, &pos, esc, 6);
			i++;
		} else if ((len = jl_utf8_seq_len(s + i, n - i)) != 0) {
			put(out, cap, &pos, val + i, len);
			i += len;
		} else {
			/* U+FFFD REPLACEMENT CHARACTER; the exact bytes go to <key>_hex. */
			put(out, cap, &pos, "\xef\xbf\xbd", 3);
			*lossy = true;
			i++;
		}
	}
	return pos;
}

static bool room(struct jline *j, size_t need)
{
	return j->len + need + JL_RESERVE <= j->cap;
}

static void raw(struct jline *j, const char *s, size_t n)
{
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

/* Appends `,"key":`, without the comma for the first member of an object. */
static bool key(struct jline *j, const char *k)
{
	size_t kl = strlen(k);

	if (!room(j, kl + 4))
		return false;
	if (j->need_comma)
		raw(j, ",", 1);
	raw(j, "\"", 1);
	raw(j, k, kl);
	raw(j, "\":", 2);
	j->need_comma = true;
	return true;
}

/* Appends a quoted, escaped string; on overflow restores len to `mark`. */
static bool quoted(struct jline *j, const char *val, size_t n, size_t mark, bool *lossy)
{
	size_t avail = j->cap - j->len, need;

	if (avail < JL_RESERVE + 2)
		goto full;
	need = jl_escape(j->buf + j->len + 1, avail - JL_RESERVE - 2, val, n, lossy);
	if (need > avail - JL_RESERVE - 2)
		goto full;
	j->buf[j->len] = '"';
	j->len += need + 1;
	j->buf[j->len++] = '"';
	return true;
full:
	j->len = mark;
	j->truncated = true;
	return false;
}

void jl_begin(struct jline *j, char *buf, size_t cap, const char *ev)
{
	bool lossy;

	j->buf = buf;
	j->cap = cap;
	j->len = 0;
	j->truncated = false;
	j->in_array = false;
	j->depth = 0;
	j->need_comma = false;
	if (cap < 64) {
		j->cap = 0;
		return;
	}
	raw(j, "{\"ev\":", 6);
	quoted(j, ev, strlen(ev), 0, &lossy);
	j->need_comma = true;
}

static void hex_field(struct jline *j, const char *k, const char *val, size_t n)
{
	size_t kl = strlen(k), i;

	if (!room(j, kl + sizeof("_hex") + 6 + 2 * n)) {
		j->truncated = true;
		return;
	}
	raw(j, ",\"", 2);
	raw(j, k, kl);
	raw(j, "_hex\":\"", 7);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)val[i];

		j->buf[j->len++] = hexdig[c >> 4];
		j->buf[j->len++] = hexdig[c & 15];
	}
	raw(j, "\"", 1);
}

void jl_strn(struct jline *j, const char *k, const char *val, size_t n)
{
	size_t mark = j->len;
	bool lossy = false;

	if (!val || j->cap == 0)
		return;
	if (!key(j, k)) {
		j->truncated = true;
		return;
	}
	if (quoted(j, val, n, mark, &lossy) && lossy)
		hex_field(j, k, val, n);
}

void jl_str(struct jline *j, const char *k, const char *val)
{
	if (val)
		jl_strn(j, k, val, strlen(val));
}

static void number(struct jline *j, const char *k, unsigned long long mag, bool neg)
{
	char digits[24];
	int nd = 0;
	size_t mark = j->len;

	if (j->cap == 0)
		return;
	do {
		digits[nd++] = (char)('0' + mag % 10);
		mag /= 10;
	} while (mag);
	if (!key(j, k) || !room(j, (size_t)nd + 1)) {
		j->len = mark;
		j->truncated = true;
		return;
	}
	if (neg)
		raw(j, "-", 1);
	while (nd)
		j->buf[j->len++] = digits[--nd];
}

void jl_int(struct jline *j, const char *k, long long v)
{
	if (v < 0)
		number(j, k, 0ULL - (unsigned long long)v, true);
	else
		number(j, k, (unsigned long long)v, false);
}

void jl_uint(struct jline *j, const char *k, unsigned long long v)
{
	number(j, k, v, false);
}

void jl_bool(struct jline *j, const char *k, bool v)
{
	size_t mark = j->len;

	if (j->cap == 0)
		return;
	if (!key(j, k) || !room(j, 5)) {
		j->len = mark;
		j->truncated = true;
		return;
	}
	raw(j, v ? "true" : "false", v ? 4 : 5);
}

void jl_array_begin(struct jline *j, const char *k)
{
	if (j->cap == 0)
		return;
	/* One byte is kept for the closing bracket, so an array always closes. */
	if (!key(j, k) || !room(j, 2)) {
		j->truncated = true;
		return;
	}
	raw(j, "[", 1);
	j->cap--;
	j->in_array = true;
	j->array_first = true;
}

void jl_object_begin(struct jline *j, const char *k)
{
	if (j->cap == 0 || j->in_array)
		return;
	/* One byte is kept for the closing brace, so an object always closes. */
	if (!key(j, k) || !room(j, 2)) {
		j->truncated = true;
		return;
	}
	raw(j, "{", 1);
	j->cap--;
	j->depth++;
	j->need_comma = false;
}

void jl_fragment_begin(struct jline *j, char *buf, size_t cap)
{
	j->buf = buf;
	j->cap = cap > JL_RESERVE + 2 ? cap : 0;
	j->len = 0;
	j->truncated = false;
	j->in_array = false;
	j->depth = 0;
	j->need_comma = false;
}

void jl_object_open(struct jline *j)
{
	if (j->cap == 0 || j->in_array)
		return;
	if (!room(j, 3)) {
		j->truncated = true;
		return;
	}
	if (j->need_comma)
		raw(j, ",", 1);
	raw(j, "{", 1);
	j->cap--;  /* the closing brace is kept room for */
	j->depth++;
	j->need_comma = false;
}

void jl_raw_array(struct jline *j, const char *k, const struct jline *fragment)
{
	size_t mark = j->len;

	if (j->cap == 0)
		return;
	if (!key(j, k) || !room(j, fragment->len + 2)) {
		j->len = mark;
		j->truncated = true;
		return;
	}
	raw(j, "[", 1);
	raw(j, fragment->buf, fragment->len);
	raw(j, "]", 1);
}

void jl_object_end(struct jline *j)
{
	if (j->depth == 0)
		return;
	j->cap++;
	raw(j, "}", 1);
	j->depth--;
	j->need_comma = true;
}

void jl_array_str(struct jline *j, const char *val, size_t n)
{
	size_t mark = j->len;
	bool lossy;

	if (!j->in_array)
		return;
	if (!j->array_first) {
		if (!room(j, 1)) {
			j->truncated = true;
			return;
		}
		raw(j, ",", 1);
	}
	if (quoted(j, val, n, mark, &lossy))
		j->array_first = false;
}

void jl_array_end(struct jline *j)
{
	if (!j->in_array)
		return;
	j->cap++;
	raw(j, "]", 1);
	j->in_array = false;
}

size_t jl_end(struct jline *j)
{
	if (j->cap == 0)
		return 0;
	jl_array_end(j);
	while (j->depth)
		jl_object_end(j);
	if (j->truncated)
		raw(j, ",\"truncated\":true", 17);
	raw(j, "}\n", 2);
	return j->len;
}

bool gt_write_all(int fd, const char *buf, size_t len)
{
	int saved = errno;
	bool ok = true;

	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = false;
			break;
		}
		buf += n;
		len -= (size_t)n;
	}
	errno = saved;
	return ok;
}
