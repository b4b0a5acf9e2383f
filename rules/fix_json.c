/* A typed fix as "fix_data" JSON and back (fix_json.h): the one renderer
 * and the one parser, so that what a rule built is what retry applies. */
#define _GNU_SOURCE
#include "rules/fix_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- to JSON */

/* parent's member key, made (an object, or an array) when missing. */
static json_t *member(json_t *parent, const char *key, bool array)
{
	json_t *c = json_object_get(parent, key);

	if (!c) {
		c = array ? json_array() : json_object();
		json_object_set_new(parent, key, c);
	}
	return c;
}

/* The edits come grouped as the JSON nests them (fix.h), so making each
 * key at its first edit gives the keys in the order the rule added them. */
json_t *gt_fix_to_json(const struct gt_fix *fix)
{
	json_t *o, *env;
	size_t i;

	if (!fix || !fix->n)
		return NULL;
	o = json_object();
	for (i = 0; i < fix->n; i++) {
		const struct gt_fix_edit *e = &fix->v[i];

		if (e->kind == GT_FIX_INSTALL) {
			json_object_set_new(o, "install", json_string(e->u.install.command));
			continue;
		}
		env = member(o, "env", false);
		if (e->kind == GT_FIX_LIST_REMOVE || e->kind == GT_FIX_LIST_APPEND)
			json_array_append_new(member(member(env, e->u.list.var, false),
						     e->kind == GT_FIX_LIST_REMOVE ? "remove" : "append", true),
					      json_string(e->u.list.entry));
		else if (e->kind == GT_FIX_UNSET)
			json_array_append_new(member(env, "unset", true), json_string(e->u.unset.var));
		else if (e->kind == GT_FIX_SET)
			json_object_set_new(member(env, "set", false), e->u.set.var, json_string(e->u.set.value));
	}
	return o;
}

/* ---- from JSON */

struct parse {
	struct gt_fix *out;
	char *skipped, *err;
	size_t skipcap, errcap, skiplen;
};

static bool fail(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errcap, fmt, ap);
	va_end(ap);
	return false;
}

/* A key of a newer gputrace's (where: "env.LD_LIBRARY_PATH.prepend"): named, left out. */
static void skip(struct parse *ps, const char *where)
{
	if (ps->skiplen < ps->skipcap)
		ps->skiplen += (size_t)snprintf(ps->skipped + ps->skiplen, ps->skipcap - ps->skiplen, "%s%.80s",
						ps->skiplen ? ", " : "", where);
}

/* Names in messages are cut: a key may be megabytes long. */
#define NAME "%.80s"

static bool add(struct parse *ps, const struct gt_fix_edit *e, const char *where)
{
	const char *why = gt_fix_edit_problem(e);

	if (why)
		return fail(ps, "%s: %s", where, why);
	if (!gt_fix_add(ps->out, e))
		return fail(ps, "%s: more than %d edits in one fix", where, GT_FIX_EDITS_MAX);
	return true;
}

/* A JSON string as C text; NULL when it is no string or holds a NUL. */
static const char *text(json_t *v)
{
	const char *s = json_string_value(v);

	return s && strlen(s) == json_string_length(v) ? s : NULL;
}

static bool var_key(const char *key)
{
	return (*key >= 'A' && *key <= 'Z') || *key == '_';
}

/* env.VAR: {"remove": [...], "append": [...]} */
static bool parse_list(struct parse *ps, const char *var, json_t *obj)
{
	struct gt_fix_edit e = { 0 };
	char where[256];
	const char *op;
	json_t *arr, *v;
	size_t i;

	if (!json_is_object(obj))
		return fail(ps, "env." NAME ": not an object of \"remove\" and \"append\" lists", var);
	json_object_foreach(obj, op, arr) {
		if (strcmp(op, "remove") != 0 && strcmp(op, "append") != 0) {
			snprintf(where, sizeof(where), "env." NAME "." NAME, var, op);
			skip(ps, where);
			continue;
		}
		if (!json_is_array(arr))
			return fail(ps, "env." NAME ".%s: not an array", var, op);
		e.kind = strcmp(op, "remove") == 0 ? GT_FIX_LIST_REMOVE : GT_FIX_LIST_APPEND;
		json_array_foreach(arr, i, v) {
			snprintf(where, sizeof(where), "env." NAME ".%s[%zu]", var, op, i);
			e.u.list.var = (char *)var;
			e.u.list.entry = (char *)text(v);
			if (!e.u.list.entry)
				return fail(ps, "%s: not a string", where);
			if (!add(ps, &e, where))
				return false;
		}
	}
	if (json_object_size(obj) == 0)
		return fail(ps, "env." NAME ": neither \"remove\" nor \"append\"", var);
	return true;
}

/* env.unset: ["VAR", ...] */
static bool parse_unset(struct parse *ps, json_t *arr)
{
	struct gt_fix_edit e = { .kind = GT_FIX_UNSET };
	char where[64];
	json_t *v;
	size_t i;

	if (!json_is_array(arr))
		return fail(ps, "env.unset: not an array of variable names");
	json_array_foreach(arr, i, v) {
		snprintf(where, sizeof(where), "env.unset[%zu]", i);
		e.u.unset.var = (char *)text(v);
		if (!e.u.unset.var)
			return fail(ps, "%s: not a string", where);
		if (!add(ps, &e, where))
			return false;
	}
	return true;
}

/* env.set: {"VAR": "value", ...} */
static bool parse_set(struct parse *ps, json_t *obj)
{
	struct gt_fix_edit e = { .kind = GT_FIX_SET };
	char where[128];
	const char *var;
	json_t *v;

	if (!json_is_object(obj))
		return fail(ps, "env.set: not an object of variables and their values");
	json_object_foreach(obj, var, v) {
		snprintf(where, sizeof(where), "env.set." NAME, var);
		e.u.set.var = (char *)var;
		e.u.set.value = (char *)text(v);
		if (!e.u.set.value)
			return fail(ps, "%s: not a string", where);
		if (!add(ps, &e, where))
			return false;
	}
	return true;
}

static bool parse_env(struct parse *ps, json_t *env)
{
	const char *key;
	char where[128];
	json_t *v;

	if (!json_is_object(env))
		return fail(ps, "env: not an object");
	json_object_foreach(env, key, v) {
		if (strcmp(key, "unset") == 0) {
			if (!parse_unset(ps, v))
				return false;
		} else if (strcmp(key, "set") == 0) {
			if (!parse_set(ps, v))
				return false;
		} else if (var_key(key)) {
			if (!parse_list(ps, key, v))
				return false;
		} else {
			snprintf(where, sizeof(where), "env." NAME, key);
			skip(ps, where);
		}
	}
	return true;
}

static bool parse_top(struct parse *ps, json_t *fix_data)
{
	struct gt_fix_edit e = { .kind = GT_FIX_INSTALL };
	const char *key;
	json_t *v;

	if (!json_is_object(fix_data))
		return fail(ps, "fix_data: not an object");
	json_object_foreach(fix_data, key, v) {
		if (strcmp(key, "env") == 0) {
			if (!parse_env(ps, v))
				return false;
		} else if (strcmp(key, "install") == 0) {
			e.u.install.command = (char *)text(v);
			if (!e.u.install.command)
				return fail(ps, "install: not a string");
			if (!add(ps, &e, "install"))
				return false;
		} else {
			skip(ps, key);
		}
	}
	return true;
}

bool gt_fix_from_json(json_t *fix_data, struct gt_fix *out, char *skipped, size_t skipcap, char *err,
		      size_t errcap)
{
	struct parse ps = { out, skipped, err, skipcap, errcap, 0 };

	memset(out, 0, sizeof(*out));
	if (skipcap)
		skipped[0] = 0;
	if (errcap)
		err[0] = 0;
	if (parse_top(&ps, fix_data))
		return true;
	gt_fix_free(out);
	return false;
}
