/* One JSON line of a trace, parsed into a flat array of values (issue 29:
 * jansson's parse of every line was half of what a report cost).
 *
 * The lines libgputrace.so writes are objects of printable ASCII strings,
 * integers, booleans and small arrays; those are parsed here, straight into
 * one reused buffer. Anything else (another escape than the writer's, a
 * byte outside ASCII, a real number, a key twice, a very deep value, any
 * error) goes to jansson, and its answer is taken whole: a line is accepted
 * exactly when jansson (JSON_REJECT_DUPLICATES) accepts it, with the same
 * values. The unit test holds the two side by side. */
#ifndef GPUTRACE_JSON_LINE_H
#define GPUTRACE_JSON_LINE_H

#include <stdbool.h>
#include <stddef.h>

enum gt_jv_type { GT_JV_NULL, GT_JV_FALSE, GT_JV_TRUE, GT_JV_INT, GT_JV_REAL, GT_JV_STRING, GT_JV_ARRAY,
		  GT_JV_OBJECT };

/* A value; a container's members follow it (pre-order), each `size` values
 * long with its own members. */
struct gt_jv {
	enum gt_jv_type type;
	const char *key;      /* its name, for a member of an object */
	const char *str;      /* GT_JV_STRING: NUL-terminated */
	long long num;        /* GT_JV_INT */
	size_t n;             /* GT_JV_ARRAY, GT_JV_OBJECT: members */
	size_t size;          /* this value and everything inside it */
};

/* The buffers of one reader, reused from line to line. */
struct gt_jline {
	struct gt_jv *v;
	size_t nv, cap;
	char *text;           /* the strings of the fast parse */
	size_t text_cap;
	void *fallback;       /* json_t of a line jansson parsed, kept while v points into it */
	size_t fast, slow;    /* lines parsed each way (tests) */
};

/* Parses text[0..len) (one line) into j; the object, or NULL where jansson
 * would refuse it (not JSON, not an object, a key twice). Valid until the
 * next call or gt_jline_free. */
const struct gt_jv *gt_jline_parse(struct gt_jline *j, const char *text, size_t len);
void gt_jline_free(struct gt_jline *j);

/* ---- reading values (each takes NULL as "absent") ---- */

/* The member key (followed by suffix, NULL for none) of an object. */
const struct gt_jv *gt_jv_get(const struct gt_jv *o, const char *key, const char *suffix);
/* gt_jv_get(o, key, NULL) and gt_jv_get(o, key, suffix), in one walk of
 * the members (a trace's fields come plain or hex-spelled). */
void gt_jv_get_both(const struct gt_jv *o, const char *key, const char *suffix, const struct gt_jv **plain,
		    const struct gt_jv **suffixed);
/* The string, or NULL for any other value. */
const char *gt_jv_str(const struct gt_jv *v);
bool gt_jv_is_int(const struct gt_jv *v);
/* The integer, or 0 for any other value (jansson's json_integer_value). */
long long gt_jv_int(const struct gt_jv *v);
bool gt_jv_is_true(const struct gt_jv *v);
/* An array's length (0 for any other value) and its members in turn. */
size_t gt_jv_len(const struct gt_jv *v);
const struct gt_jv *gt_jv_first(const struct gt_jv *v);
const struct gt_jv *gt_jv_next(const struct gt_jv *member);

#endif
