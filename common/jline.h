/* jline: builds one JSON object (one trace line) in a caller-provided buffer,
 * with no malloc and no stdio, so it may run inside hooks and loader callbacks. */
#ifndef GPUTRACE_JLINE_H
#define GPUTRACE_JLINE_H

#include <stddef.h>
#include <stdbool.h>

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
/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes there are not one. */
size_t jl_utf8_seq_len(const unsigned char *s, size_t avail);

/* write(2) the whole buffer, retrying on EINTR and short writes; errno is kept. */
bool gt_write_all(int fd, const char *buf, size_t len);

#endif
