/* jline: builds one JSON object (one trace line) in a caller-provided buffer,
 * with no malloc and no stdio, so it may run inside hooks and loader callbacks. */
#ifndef GPUTRACE_JLINE_H
#define GPUTRACE_JLINE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct jline {
	char *buf;
	size_t cap;
	size_t len;
	bool truncated;  /* a field did not fit and was left out */
	bool in_array;
	bool array_first;
	bool need_comma;  /* a member was written at the current level */
	int depth;        /* open nested objects */
};

void jl_begin(struct jline *j, char *buf, size_t cap, const char *ev);
/* A string field. Bytes that are not valid UTF-8 become U+FFFD, and the exact
 * bytes follow in "<key>_hex". A NULL value writes nothing. */
void jl_str(struct jline *j, const char *key, const char *val);
void jl_strn(struct jline *j, const char *key, const char *val, size_t n);
void jl_int(struct jline *j, const char *key, long long v);
void jl_uint(struct jline *j, const char *key, unsigned long long v);
void jl_bool(struct jline *j, const char *key, bool v);
/* Arrays of strings: jl_array_begin, any number of jl_array_str, jl_array_end. */
void jl_array_begin(struct jline *j, const char *key);
void jl_array_str(struct jline *j, const char *val, size_t n);
void jl_array_end(struct jline *j);
/* A fragment: no braces and no "ev", for a list of objects built ahead of the
 * line it goes into (jl_object_open for each element, then jl_raw_array). */
void jl_fragment_begin(struct jline *j, char *buf, size_t cap);
/* Opens an object without a key: an element of a fragment. */
void jl_object_open(struct jline *j);
/* Appends "key":[<the fragment's text>]. */
void jl_raw_array(struct jline *j, const char *key, const struct jline *fragment);
/* Nested objects: jl_object_begin, fields, jl_object_end. */
void jl_object_begin(struct jline *j, const char *key);
void jl_object_end(struct jline *j);
/* Closes the object and the line; returns its length (0 if even the frame did not fit). */
size_t jl_end(struct jline *j);

/* Escaping on its own, for tests and other writers: writes the JSON string
 * body (without quotes) of val[0..n) into out, at most cap bytes. Returns the
 * bytes needed (which may exceed cap), and sets *lossy when val was not UTF-8. */
size_t jl_escape(char *out, size_t cap, const char *val, size_t n, bool *lossy);
/* Are the 8 bytes at p all bytes a JSON string holds as they are: from 0x20
 * to 0x7e, neither the quote nor the backslash? The writer escapes the others
 * and the reader's fast path stops at them. The usual word tests, each exact
 * for "any byte" (a borrow or carry only runs on from a byte that is itself
 * caught): (x - 0x01..) & ~x & 0x80.. for a zero byte, (w - 0x20..) & ~w for
 * one below 0x20, (w + 0x01..) | w for 0x7f or the high bit. */
static inline bool jl_plain_word(const void *p)
{
	const uint64_t ones = 0x0101010101010101ULL;
	uint64_t w, quote, backslash;

	memcpy(&w, p, 8);
	quote = w ^ (ones * '"');
	backslash = w ^ (ones * '\\');
	return ((((w - ones * 0x20) & ~w) | ((w + ones) | w) | ((quote - ones) & ~quote) |
		 ((backslash - ones) & ~backslash)) & (ones * 0x80)) == 0;
}
/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes there are not one. */
size_t jl_utf8_seq_len(const unsigned char *s, size_t avail);

/* write(2) the whole buffer, retrying on EINTR and short writes; errno is kept. */
bool gt_write_all(int fd, const char *buf, size_t len);

#endif
