/* Fixes as data: what a finding's fix sentence says, in a form gputrace retry
 * can apply to the recorded environment of a run, and the one place that
 * applies it. The form ("fix_data" of a finding in the JSON):
 *   {"env": {"LD_LIBRARY_PATH": {"remove": ["/dir"], "append": ["/dir"]},
 *            "unset": ["LD_PRELOAD"], "set": {"CUDA_VISIBLE_DEVICES": "0"}}}
 *   {"install": "pip install ..."}   (named, never run)
 * Variable names are upper case; "unset" and "set" are not variable names. */
#define _GNU_SOURCE
#include "rules/fix_data.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static json_t *env_of(struct gt_finding *f)
{
	json_t *env;

	if (!f->fix_data)
		f->fix_data = json_object();
	env = json_object_get(f->fix_data, "env");
	if (!env) {
		env = json_object();
		json_object_set_new(f->fix_data, "env", env);
	}
	return env;
}

/* The array `op` of var's list edit, made when missing. */
static json_t *list_edit(struct gt_finding *f, const char *var, const char *op)
{
	json_t *env = env_of(f), *edit = json_object_get(env, var), *arr;

	if (!edit) {
		edit = json_object();
		json_object_set_new(env, var, edit);
	}
	arr = json_object_get(edit, op);
	if (!arr) {
		arr = json_array();
		json_object_set_new(edit, op, arr);
	}
	return arr;
}

static bool array_has(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

static void add_unique(json_t *arr, const char *s)
{
	json_t *v = json_string(s);

	/* A path that is not UTF-8 cannot be said in JSON: no data for it. */
	if (v && !array_has(arr, s))
		json_array_append(arr, v);
	json_decref(v);
}

void gt_fix_list_remove(struct gt_finding *f, const char *var, const char *entry)
{
	if (entry && *entry)
		add_unique(list_edit(f, var, "remove"), entry);
}

void gt_fix_list_append(struct gt_finding *f, const char *var, const char *entry)
{
	if (entry && *entry)
		add_unique(list_edit(f, var, "append"), entry);
}

void gt_fix_unset(struct gt_finding *f, const char *var)
{
	json_t *env = env_of(f), *arr = json_object_get(env, "unset");

	if (!arr) {
		arr = json_array();
		json_object_set_new(env, "unset", arr);
	}
	add_unique(arr, var);
}

void gt_fix_set(struct gt_finding *f, const char *var, const char *value)
{
	json_t *env = env_of(f), *set = json_object_get(env, "set");

	if (!set) {
		set = json_object();
		json_object_set_new(env, "set", set);
	}
	json_object_set_new(set, var, json_string(value));
}

void gt_fix_install(struct gt_finding *f, const char *command)
{
	if (!f->fix_data)
		f->fix_data = json_object();
	json_object_set_new(f->fix_data, "install", json_string(command));
}

bool gt_is_tracer_entry(const char *entry, size_t len)
{
	static const char me[] = "libgputrace.so";
	size_t n = sizeof(me) - 1;

	return len >= n && memcmp(entry + len - n, me, n) == 0 && (len == n || entry[len - n - 1] == '/');
}

/* Whether the list holds an entry of its own besides path and the tracer. */
static bool other_preload(const char *list, const char *path)
{
	const char *s = list, *e;

	while (s && *s) {
		e = s + strcspn(s, ": \t");
		if (e > s && !gt_is_tracer_entry(s, (size_t)(e - s)) &&
		    !gt_same_list_entry(s, (size_t)(e - s), path))
			return true;
		s = *e ? e + 1 : e;
	}
	return false;
}

void gt_fix_preload_remove(struct gt_finding *f, const struct gt_process *p, const char *path)
{
	const char *list = gt_process_env(p, "LD_PRELOAD");

	if (!path)
		return;
	if (!list || !other_preload(list, path))
		gt_fix_unset(f, "LD_PRELOAD");
	else
		gt_fix_list_remove(f, "LD_PRELOAD", path);
}

/* An entry without its trailing slashes ("/a/b/" is "/a/b"; "/" stays). */
static size_t trimmed_len(const char *s, size_t len)
{
	while (len > 1 && s[len - 1] == '/')
		len--;
	return len;
}

bool gt_same_list_entry(const char *entry, size_t len, const char *want)
{
	char a[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	size_t la = trimmed_len(entry, len), lb = trimmed_len(want, strlen(want));

	if (la == lb && memcmp(entry, want, la) == 0)
		return true;
	if (len >= sizeof(a))
		return false;
	memcpy(a, entry, len);
	a[len] = 0;
	/* /lib and /usr/lib are one folder on a merged-/usr system */
	return realpath(a, ra) && realpath(want, rb) && strcmp(ra, rb) == 0;
}

/* A list variable without gputrace's own library: the loader-steering
 * environment as the user set it. NULL when nothing of the user's is left. */
char *gt_list_without_tracer(const char *list)
{
	char *out = gt_xmalloc(strlen(list) + 1);
	const char *s = list, *e;
	size_t len = 0;

	out[0] = 0;
	while (*s) {
		e = s + strcspn(s, ": ");
		if (e > s && !gt_is_tracer_entry(s, (size_t)(e - s)))
			len += (size_t)sprintf(out + len, "%s%.*s", len ? ":" : "", (int)(e - s), s);
		s = *e ? e + 1 : e;
	}
	if (!len) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- applying */

static bool listed(json_t *arr, const char *s, size_t len)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && gt_same_list_entry(s, len, json_string_value(v)))
			return true;
	return false;
}

/* The list without the entries to remove, with those to append; NULL when
 * nothing is left (the variable is then unset). */
static char *edit_list(const char *old, json_t *remove, json_t *append, bool *changed)
{
	size_t cap = (old ? strlen(old) : 0) + 2, len = 0, i;
	const char *s = old, *e;
	char *out;
	json_t *v;

	json_array_foreach(append, i, v)
		if (json_is_string(v))
			cap += strlen(json_string_value(v)) + 1;
	out = gt_xmalloc(cap);
	out[0] = 0;
	while (s && *s) {
		e = s + strcspn(s, ":");
		if (e > s && listed(remove, s, (size_t)(e - s)))
			*changed = true;
		else if (e > s)
			len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? ":" : "", (int)(e - s), s);
		s = *e ? e + 1 : e;
	}
	json_array_foreach(append, i, v) {
		if (!json_is_string(v))
			continue;
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ":" : "", json_string_value(v));
		*changed = true;
	}
	if (!len) {
		free(out);
		return NULL;
	}
	return out;
}

static void set_or_unset(json_t *env, const char *var, const char *value)
{
	json_object_set_new(env, var, value ? json_string(value) : json_null());
}

bool gt_fix_apply(json_t *fix_data, json_t *env)
{
	json_t *fe = json_object_get(fix_data, "env"), *v, *arr;
	const char *key, *old;
	bool changed = false;
	char *list;
	size_t i;

	if (!json_is_object(fe))
		return false;
	json_object_foreach(fe, key, v) {
		if (strcmp(key, "unset") == 0 || strcmp(key, "set") == 0 || !json_is_object(v))
			continue;
		old = json_string_value(json_object_get(env, key));
		/* LD_PRELOAD is split at spaces too: taken at ':' only, a list of ours */
		list = edit_list(old, json_object_get(v, "remove"), json_object_get(v, "append"), &changed);
		set_or_unset(env, key, list);
		free(list);
	}
	arr = json_object_get(fe, "unset");
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v))
			continue;
		changed |= json_is_string(json_object_get(env, json_string_value(v)));
		set_or_unset(env, json_string_value(v), NULL);
	}
	json_object_foreach(json_object_get(fe, "set"), key, v) {
		if (!json_is_string(v))
			continue;
		old = json_string_value(json_object_get(env, key));
		changed |= !old || strcmp(old, json_string_value(v)) != 0;
		set_or_unset(env, key, json_string_value(v));
	}
	return changed;
}

/* ---- in words */

static size_t say_list(char *out, size_t cap, size_t len, json_t *arr)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", i ? ", " : "",
					json_string_value(v) ? json_string_value(v) : "?");
	return len;
}

static size_t sep(char *out, size_t cap, size_t len)
{
	return len ? len + (size_t)snprintf(out + len, len < cap ? cap - len : 0, "; ") : len;
}

void gt_fix_describe(json_t *fix_data, char *out, size_t cap)
{
	json_t *fe = json_object_get(fix_data, "env"), *v;
	const char *key;
	size_t len = 0;

	out[0] = 0;
	json_object_foreach(fe, key, v) {
		if (strcmp(key, "unset") == 0 || strcmp(key, "set") == 0)
			continue;
		if (json_array_size(json_object_get(v, "remove"))) {
			len = sep(out, cap, len);
			len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s minus ", key);
			len = say_list(out, cap, len, json_object_get(v, "remove"));
		}
		if (json_array_size(json_object_get(v, "append"))) {
			len = sep(out, cap, len);
			len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s plus ", key);
			len = say_list(out, cap, len, json_object_get(v, "append"));
		}
	}
	if (json_array_size(json_object_get(fe, "unset"))) {
		len = sep(out, cap, len);
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "unset ");
		len = say_list(out, cap, len, json_object_get(fe, "unset"));
	}
	json_object_foreach(json_object_get(fe, "set"), key, v) {
		len = sep(out, cap, len);
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s=\"%s\"", key,
					json_string_value(v) ? json_string_value(v) : "");
	}
	if (!len && json_string_value(json_object_get(fix_data, "install")))
		snprintf(out, cap, "run %s", json_string_value(json_object_get(fix_data, "install")));
}

bool gt_fix_is_env(json_t *fix_data)
{
	return json_object_size(json_object_get(fix_data, "env")) > 0;
}
