/* Typed fixes (fix.h): built by the rules, applied to a recorded
 * environment, said in words and as a command to paste. No JSON here: that
 * is rules/fix_json.c's one job. */
#define _GNU_SOURCE
#include "rules/fix.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jline.h"
#include "common/xalloc.h"
#include "facts/facts.h"
#include "read/model.h"

/* ---- one edit */

static bool is_list(enum gt_fix_kind k)
{
	return k == GT_FIX_LIST_REMOVE || k == GT_FIX_LIST_APPEND;
}

/* The variable an edit is about; NULL for an install. */
static const char *var_of(const struct gt_fix_edit *e)
{
	switch (e->kind) {
	case GT_FIX_LIST_REMOVE:
	case GT_FIX_LIST_APPEND:
		return e->u.list.var;
	case GT_FIX_UNSET:
		return e->u.unset.var;
	case GT_FIX_SET:
		return e->u.set.var;
	default:
		return NULL;
	}
}

/* The text an edit carries besides its variable. */
static const char *text_of(const struct gt_fix_edit *e)
{
	switch (e->kind) {
	case GT_FIX_LIST_REMOVE:
	case GT_FIX_LIST_APPEND:
		return e->u.list.entry;
	case GT_FIX_SET:
		return e->u.set.value;
	case GT_FIX_INSTALL:
		return e->u.install.command;
	default:
		return NULL;
	}
}

static bool utf8(const char *s)
{
	size_t n = strlen(s), i = 0, len;

	while (i < n) {
		len = jl_utf8_seq_len((const unsigned char *)s + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* Variable names are upper case ([A-Z_][A-Z0-9_]*), so that the JSON's
 * "unset" and "set" are never one. */
static bool var_name(const char *s)
{
	size_t i;

	if (!s || !*s || strlen(s) > GT_FIX_VAR_MAX || (*s >= '0' && *s <= '9'))
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* Why an edit cannot be part of a fix, or NULL when it can. */
static const char *edit_problem(const struct gt_fix_edit *e)
{
	const char *text = text_of(e);

	if ((unsigned)e->kind > GT_FIX_INSTALL)
		return "an unknown kind of edit";
	if (e->kind != GT_FIX_INSTALL && !var_name(var_of(e)))
		return "not a variable name ([A-Z_][A-Z0-9_]*, at most 128 characters)";
	if (e->kind == GT_FIX_UNSET)
		return NULL;
	if (!text || (!*text && e->kind != GT_FIX_SET))
		return "empty";
	if (strlen(text) > GT_FIX_TEXT_MAX)
		return "longer than 8192 bytes";
	if (!utf8(text))
		return "not UTF-8 (JSON cannot carry it)";
	return NULL;
}

static void edit_free(struct gt_fix_edit *e)
{
	switch (e->kind) {
	case GT_FIX_LIST_REMOVE:
	case GT_FIX_LIST_APPEND:
		free(e->u.list.var);
		free(e->u.list.entry);
		break;
	case GT_FIX_UNSET:
		free(e->u.unset.var);
		break;
	case GT_FIX_SET:
		free(e->u.set.var);
		free(e->u.set.value);
		break;
	case GT_FIX_INSTALL:
		free(e->u.install.command);
		break;
	}
}

static void edit_copy(struct gt_fix_edit *to, const struct gt_fix_edit *from)
{
	memset(to, 0, sizeof(*to));
	to->kind = from->kind;
	switch (from->kind) {
	case GT_FIX_LIST_REMOVE:
	case GT_FIX_LIST_APPEND:
		to->u.list.var = gt_xstrdup(from->u.list.var);
		to->u.list.entry = gt_xstrdup(from->u.list.entry);
		break;
	case GT_FIX_UNSET:
		to->u.unset.var = gt_xstrdup(from->u.unset.var);
		break;
	case GT_FIX_SET:
		to->u.set.var = gt_xstrdup(from->u.set.var);
		to->u.set.value = gt_xstrdup(from->u.set.value);
		break;
	case GT_FIX_INSTALL:
		to->u.install.command = gt_xstrdup(from->u.install.command);
		break;
	}
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* ---- where an edit goes: the JSON's nesting, flattened */

/* The nesting of an edit in the JSON, outermost first: "env" or
 * "install"; in env, the variable of a list edit, "unset" or "set"; in a
 * list variable, "remove" or "append". Two edits share level k when their
 * first k+1 keys are the same. */
static bool same_level(const struct gt_fix_edit *a, const struct gt_fix_edit *b, int level)
{
	bool a_env = a->kind != GT_FIX_INSTALL, b_env = b->kind != GT_FIX_INSTALL;

	if (a_env != b_env)
		return false;
	if (level == 0 || !a_env)
		return true;
	if (is_list(a->kind) != is_list(b->kind))
		return false;
	if (!is_list(a->kind))
		return a->kind == b->kind;
	if (strcmp(a->u.list.var, b->u.list.var) != 0)
		return false;
	return level == 1 || a->kind == b->kind;
}

/* The index after the last edit that shares the deepest level with e (its
 * place in the JSON's order), or the end. */
static size_t place_of(const struct gt_fix *fix, const struct gt_fix_edit *e)
{
	int level;
	size_t i;

	for (level = 2; level >= 0; level--)
		for (i = fix->n; i > 0; i--)
			if (same_level(&fix->v[i - 1], e, level))
				return i;
	return fix->n;
}

/* The edit already there that e repeats or replaces, or NULL. */
static struct gt_fix_edit *already(const struct gt_fix *fix, const struct gt_fix_edit *e)
{
	size_t i;

	for (i = 0; i < fix->n; i++) {
		struct gt_fix_edit *x = &fix->v[i];

		if (x->kind != e->kind)
			continue;
		if (e->kind == GT_FIX_INSTALL)
			return x;
		if (strcmp(var_of(x), var_of(e)) == 0 && (!is_list(e->kind) || strcmp(text_of(x), text_of(e)) == 0))
			return x;
	}
	return NULL;
}

bool gt_fix_add(struct gt_fix *fix, const struct gt_fix_edit *edit)
{
	struct gt_fix_edit *x;
	size_t at;

	if (edit_problem(edit))
		return false;
	x = already(fix, edit);
	if (x && edit->kind == GT_FIX_SET) {
		free(x->u.set.value);
		x->u.set.value = gt_xstrdup(edit->u.set.value);
	} else if (x && edit->kind == GT_FIX_INSTALL) {
		free(x->u.install.command);
		x->u.install.command = gt_xstrdup(edit->u.install.command);
	}
	if (x)
		return true;
	if (fix->n >= GT_FIX_EDITS_MAX)
		return false;
	at = place_of(fix, edit);
	fix->v = gt_xrealloc(fix->v, (fix->n + 1) * sizeof(*fix->v));
	memmove(&fix->v[at + 1], &fix->v[at], (fix->n - at) * sizeof(*fix->v));
	edit_copy(&fix->v[at], edit);
	fix->n++;
	return true;
}

const char *gt_fix_edit_problem(const struct gt_fix_edit *edit)
{
	return edit_problem(edit);
}

/* ---- the constructors */

static bool add_list(struct gt_fix *fix, enum gt_fix_kind kind, const char *var, const char *entry)
{
	struct gt_fix_edit e = { .kind = kind };

	e.u.list.var = (char *)var;
	e.u.list.entry = (char *)entry;
	return gt_fix_add(fix, &e);
}

bool gt_fix_list_remove(struct gt_fix *fix, const char *var, const char *entry)
{
	return add_list(fix, GT_FIX_LIST_REMOVE, var, entry);
}

bool gt_fix_list_append(struct gt_fix *fix, const char *var, const char *entry)
{
	return add_list(fix, GT_FIX_LIST_APPEND, var, entry);
}

bool gt_fix_unset(struct gt_fix *fix, const char *var)
{
	struct gt_fix_edit e = { .kind = GT_FIX_UNSET };

	e.u.unset.var = (char *)var;
	return gt_fix_add(fix, &e);
}

bool gt_fix_set(struct gt_fix *fix, const char *var, const char *value)
{
	struct gt_fix_edit e = { .kind = GT_FIX_SET };

	e.u.set.var = (char *)var;
	e.u.set.value = (char *)value;
	return gt_fix_add(fix, &e);
}

bool gt_fix_install(struct gt_fix *fix, const char *command)
{
	struct gt_fix_edit e = { .kind = GT_FIX_INSTALL };

	e.u.install.command = (char *)command;
	return gt_fix_add(fix, &e);
}

void gt_fix_free(struct gt_fix *fix)
{
	size_t i;

	for (i = 0; i < fix->n; i++)
		edit_free(&fix->v[i]);
	free(fix->v);
	fix->v = NULL;
	fix->n = 0;
}

void gt_fix_copy(struct gt_fix *to, const struct gt_fix *from)
{
	size_t i;

	to->n = from->n;
	to->v = from->n ? gt_xcalloc(from->n, sizeof(*to->v)) : NULL;
	for (i = 0; i < from->n; i++)
		edit_copy(&to->v[i], &from->v[i]);
}

/* Edits that sit in one JSON array or value: a list variable's removals, its
 * appends, the unsets, one set variable, the install. */
static bool same_group(const struct gt_fix_edit *a, const struct gt_fix_edit *b)
{
	return a->kind == b->kind && (a->kind == GT_FIX_UNSET || a->kind == GT_FIX_INSTALL ||
				      strcmp(var_of(a), var_of(b)) == 0);
}

/* Whether a's group of e holds the same edits, in the same order, as b's. */
static bool group_equal(const struct gt_fix *a, const struct gt_fix *b, const struct gt_fix_edit *e)
{
	size_t i = 0, k = 0;

	for (;;) {
		while (i < a->n && !same_group(&a->v[i], e))
			i++;
		while (k < b->n && !same_group(&b->v[k], e))
			k++;
		if (i == a->n || k == b->n)
			return i == a->n && k == b->n;
		if (!same_str(text_of(&a->v[i]), text_of(&b->v[k])) || !same_str(var_of(&a->v[i]), var_of(&b->v[k])))
			return false;
		i++;
		k++;
	}
}

bool gt_fix_equal(const struct gt_fix *a, const struct gt_fix *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!group_equal(a, b, &a->v[i]))
			return false;
	return true;
}

bool gt_fix_has_env(const struct gt_fix *fix)
{
	size_t i;

	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind != GT_FIX_INSTALL)
			return true;
	return false;
}

const char *gt_fix_install_command(const struct gt_fix *fix)
{
	size_t i;

	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == GT_FIX_INSTALL)
			return fix->v[i].u.install.command;
	return NULL;
}

/* ---- an environment */

static struct gt_env_var *env_find(const struct gt_env *env, const char *name)
{
	size_t i;

	for (i = 0; i < env->n; i++)
		if (strcmp(env->v[i].name, name) == 0)
			return &env->v[i];
	return NULL;
}

const char *gt_env_get(const struct gt_env *env, const char *name)
{
	struct gt_env_var *v = env_find(env, name);

	return v ? v->value : NULL;
}

bool gt_env_has(const struct gt_env *env, const char *name)
{
	return env_find(env, name) != NULL;
}

void gt_env_put(struct gt_env *env, const char *name, const char *value)
{
	struct gt_env_var *v = env_find(env, name);
	char *copy = value ? gt_xstrdup(value) : NULL;

	if (v) {
		free(v->value);
		v->value = copy;
		return;
	}
	env->v = gt_xrealloc(env->v, (env->n + 1) * sizeof(*env->v));
	env->v[env->n].name = gt_xstrdup(name);
	env->v[env->n].value = copy;
	env->n++;
}

void gt_env_copy(struct gt_env *to, const struct gt_env *from)
{
	size_t i;

	memset(to, 0, sizeof(*to));
	for (i = 0; i < from->n; i++)
		gt_env_put(to, from->v[i].name, from->v[i].value);
}

void gt_env_free(struct gt_env *env)
{
	size_t i;

	for (i = 0; i < env->n; i++) {
		free(env->v[i].name);
		free(env->v[i].value);
	}
	free(env->v);
	env->v = NULL;
	env->n = 0;
}

/* ---- list variables */

bool gt_is_tracer_entry(const char *entry, size_t len)
{
	static const char me[] = "libgputrace.so";
	size_t n = sizeof(me) - 1;

	return len >= n && memcmp(entry + len - n, me, n) == 0 && (len == n || entry[len - n - 1] == '/');
}

/* An entry without its trailing slashes ("/a/b/" is "/a/b"; "/" stays). */
static size_t trimmed_len(const char *s, size_t len)
{
	while (len > 1 && s[len - 1] == '/')
		len--;
	return len;
}

bool gt_same_list_entry(struct gt_host_facts *facts, const char *entry, size_t len, const char *want)
{
	char a[PATH_MAX];
	size_t la = trimmed_len(entry, len), lb = trimmed_len(want, strlen(want));

	if (la == lb && memcmp(entry, want, la) == 0)
		return true;
	if (len >= sizeof(a))
		return false;
	memcpy(a, entry, len);
	a[len] = 0;
	/* /lib and /usr/lib are one folder on a merged-/usr system */
	return facts && gt_facts_same_file(facts, a, want);
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

char *gt_fix_recorded_var(const struct gt_process *p, const char *name)
{
	char *v = gt_process_env_bytes(p, name), *mine;

	if (v && (strcmp(name, "LD_PRELOAD") == 0 || strcmp(name, "LD_AUDIT") == 0)) {
		mine = gt_list_without_tracer(v);
		free(v);
		v = mine;
	}
	return v;
}

/* Whether the list holds an entry of its own besides path and the tracer. */
static bool other_preload(struct gt_host_facts *facts, const char *list, const char *path)
{
	const char *s = list, *e;

	while (s && *s) {
		e = s + strcspn(s, ": \t");
		if (e > s && !gt_is_tracer_entry(s, (size_t)(e - s)) &&
		    !gt_same_list_entry(facts, s, (size_t)(e - s), path))
			return true;
		s = *e ? e + 1 : e;
	}
	return false;
}

void gt_fix_preload_remove(struct gt_fix *fix, const struct gt_proc_model *m, const char *path)
{
	const char *list = gt_process_env(m->proc, "LD_PRELOAD");

	if (!path)
		return;
	if (!list || !other_preload(m->facts, list, path))
		gt_fix_unset(fix, "LD_PRELOAD");
	else
		gt_fix_list_remove(fix, "LD_PRELOAD", path);
}

/* ---- applying */

/* Whether the entry (len bytes) is one var's edits of this kind name. */
static bool listed(struct gt_host_facts *facts, const struct gt_fix *fix, const char *var, enum gt_fix_kind kind,
		   const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == kind && strcmp(fix->v[i].u.list.var, var) == 0 &&
		    gt_same_list_entry(facts, s, len, fix->v[i].u.list.entry))
			return true;
	return false;
}

/* var's list without the entries to remove, with those to append; NULL
 * when nothing is left (the variable is then unset). */
static char *edit_list(struct gt_host_facts *facts, const struct gt_fix *fix, const char *var, const char *old,
		       bool *changed)
{
	size_t cap = (old ? strlen(old) : 0) + 2, len = 0, i;
	const char *s = old, *e;
	char *out;

	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == GT_FIX_LIST_APPEND && strcmp(fix->v[i].u.list.var, var) == 0)
			cap += strlen(fix->v[i].u.list.entry) + 1;
	out = gt_xmalloc(cap);
	out[0] = 0;
	while (s && *s) {
		e = s + strcspn(s, ":");
		if (e > s && listed(facts, fix, var, GT_FIX_LIST_REMOVE, s, (size_t)(e - s)))
			*changed = true;
		else if (e > s)
			len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? ":" : "", (int)(e - s), s);
		s = *e ? e + 1 : e;
	}
	for (i = 0; i < fix->n; i++) {
		if (fix->v[i].kind != GT_FIX_LIST_APPEND || strcmp(fix->v[i].u.list.var, var) != 0)
			continue;
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ":" : "", fix->v[i].u.list.entry);
		*changed = true;
	}
	if (!len) {
		free(out);
		return NULL;
	}
	return out;
}

/* Whether edit i is the first list edit of its variable (each list
 * variable is edited once, with all its removals and appends). */
static bool first_of_var(const struct gt_fix *fix, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (is_list(fix->v[k].kind) && strcmp(fix->v[k].u.list.var, fix->v[i].u.list.var) == 0)
			return false;
	return true;
}

bool gt_fix_apply(const struct gt_fix *fix, struct gt_env *env, struct gt_host_facts *facts)
{
	bool changed = false;
	const char *old;
	char *list;
	size_t i;

	for (i = 0; i < fix->n; i++) {
		const struct gt_fix_edit *e = &fix->v[i];

		if (!is_list(e->kind) || !first_of_var(fix, i))
			continue;
		/* LD_PRELOAD is split at spaces too: taken at ':' only, a list of ours */
		list = edit_list(facts, fix, e->u.list.var, gt_env_get(env, e->u.list.var), &changed);
		gt_env_put(env, e->u.list.var, list);
		free(list);
	}
	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == GT_FIX_UNSET) {
			changed |= gt_env_get(env, fix->v[i].u.unset.var) != NULL;
			gt_env_put(env, fix->v[i].u.unset.var, NULL);
		}
	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == GT_FIX_SET) {
			old = gt_env_get(env, fix->v[i].u.set.var);
			changed |= !old || strcmp(old, fix->v[i].u.set.value) != 0;
			gt_env_put(env, fix->v[i].u.set.var, fix->v[i].u.set.value);
		}
	return changed;
}

/* ---- in words */

static size_t say(char *out, size_t cap, size_t len, const char *fmt, const char *a, const char *b)
{
	return len + (size_t)snprintf(out + len, len < cap ? cap - len : 0, fmt, a, b);
}

/* "; " between clauses. */
static size_t sep(char *out, size_t cap, size_t len)
{
	return len ? say(out, cap, len, "%s%s", "; ", "") : len;
}

/* "VAR minus a, b" for the edits of kind of var; nothing when there are none. */
static size_t say_list(const struct gt_fix *fix, const char *var, enum gt_fix_kind kind, const char *verb,
		       char *out, size_t cap, size_t len)
{
	size_t i, k = 0;

	for (i = 0; i < fix->n; i++) {
		if (fix->v[i].kind != kind || strcmp(fix->v[i].u.list.var, var) != 0)
			continue;
		if (!k++) {
			len = sep(out, cap, len);
			len = say(out, cap, len, "%s %s ", var, verb);
		}
		len = say(out, cap, len, "%s%s", k > 1 ? ", " : "", fix->v[i].u.list.entry);
	}
	return len;
}

void gt_fix_describe(const struct gt_fix *fix, char *out, size_t cap)
{
	size_t len = 0, i, k = 0;
	const char *install = gt_fix_install_command(fix);

	if (!cap)
		return;
	out[0] = 0;
	for (i = 0; i < fix->n; i++)
		if (is_list(fix->v[i].kind) && first_of_var(fix, i)) {
			len = say_list(fix, fix->v[i].u.list.var, GT_FIX_LIST_REMOVE, "minus", out, cap, len);
			len = say_list(fix, fix->v[i].u.list.var, GT_FIX_LIST_APPEND, "plus", out, cap, len);
		}
	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == GT_FIX_UNSET) {
			if (!k++) {
				len = sep(out, cap, len);
				len = say(out, cap, len, "%s%s", "unset ", "");
			}
			len = say(out, cap, len, "%s%s", k > 1 ? ", " : "", fix->v[i].u.unset.var);
		}
	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == GT_FIX_SET) {
			len = sep(out, cap, len);
			len = say(out, cap, len, "%s=\"%s\"", fix->v[i].u.set.var, fix->v[i].u.set.value);
		}
	if (!len && install)
		snprintf(out, cap, "run %s", install);
}

/* ---- as a command to paste (issue 30) */

static bool shell_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_@%+=:,./-", c) != NULL;
}

static bool shell_control(const unsigned char *s)
{
	return s[0] < 0x20 || s[0] == 0x7f || (s[0] >= 0x80 && s[0] <= 0x9f) ||
	       (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f);
}

void gt_shell_quote(const char *word, char *out, size_t cap)
{
	const unsigned char *s;
	bool plain = *word != 0, control = false;
	size_t o = 0;

	for (s = (const unsigned char *)word; *s; s++) {
		plain &= shell_plain(*s);
		control |= shell_control(s);
	}
	if (!cap)
		return;
	if (plain) {
		snprintf(out, cap, "%s", word);
		return;
	}
	out[o++] = control ? '$' : '\'';
	if (control && o < cap)
		out[o++] = '\'';
	for (s = (const unsigned char *)word; *s && o + 6 < cap; s++) {
		if (control && (shell_control(s) || *s >= 0x80 || *s == '\\' || *s == '\''))
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *s);
		else if (!control && *s == '\'')
			o += (size_t)snprintf(out + o, cap - o, "'\\''");
		else
			out[o++] = (char)*s;
	}
	if (o + 1 < cap)
		out[o++] = '\'';
	out[o < cap ? o : cap - 1] = 0;
}

static void touch(struct gt_env *env, const struct gt_process *p, const char *var)
{
	char *val = gt_fix_recorded_var(p, var);

	gt_env_put(env, var, val);
	free(val);
}

/* The variables a fix touches, each with its recorded value, added to env:
 * the list variables, then the unset ones, then the set ones. */
static void touched_env(const struct gt_fix *fix, const struct gt_process *p, struct gt_env *env)
{
	size_t i;

	for (i = 0; i < fix->n; i++)
		if (is_list(fix->v[i].kind) && first_of_var(fix, i))
			touch(env, p, fix->v[i].u.list.var);
	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == GT_FIX_UNSET)
			touch(env, p, fix->v[i].u.unset.var);
	for (i = 0; i < fix->n; i++)
		if (fix->v[i].kind == GT_FIX_SET)
			touch(env, p, fix->v[i].u.set.var);
}

static size_t add_word(char *out, size_t cap, size_t len, const char *word)
{
	char q[8192];

	gt_shell_quote(word, q, sizeof(q));
	return len + (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", len ? " " : "", q);
}

/* The command line of the process run with after's variables where they
 * differ from before's: env -u for each one unset, VAR=value for each set. */
static size_t say_run(const struct gt_env *before, const struct gt_env *after, const struct gt_process *p,
		      char *out, size_t cap, size_t *nchanged)
{
	size_t len = 0, i, unset = 0;
	char word[8192];

	for (i = 0; i < after->n; i++)
		unset += !after->v[i].value && gt_env_get(before, after->v[i].name);
	if (unset)
		len = add_word(out, cap, len, "env");
	for (i = 0; i < after->n; i++)
		if (!after->v[i].value && gt_env_get(before, after->v[i].name)) {
			len = add_word(out, cap, len, "-u");
			len = add_word(out, cap, len, after->v[i].name);
		}
	*nchanged = unset;
	for (i = 0; i < after->n; i++) {
		const char *was = gt_env_get(before, after->v[i].name);

		if (!after->v[i].value || (was && strcmp(was, after->v[i].value) == 0))
			continue;
		/* VAR='value': the name plain, the value quoted as a word of its own */
		gt_shell_quote(after->v[i].value, word, sizeof(word));
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s=%s", len ? " " : "",
					after->v[i].name, word);
		(*nchanged)++;
	}
	for (i = 0; i < p->argc; i++)
		len = add_word(out, cap, len, p->argv[i]);
	if (!p->argc)
		len = add_word(out, cap, len, p->exe);
	return len;
}

bool gt_fix_command(const struct gt_fix *fixes, size_t nfixes, const struct gt_process *p,
		    struct gt_host_facts *facts, char *out, size_t cap)
{
	struct gt_env before = { 0 }, after;
	bool changed = false;
	size_t i, nchanged = 0;

	if (!cap)
		return false;
	out[0] = 0;
	if (nfixes == 1 && gt_fix_install_command(fixes) && !gt_fix_has_env(fixes)) {
		snprintf(out, cap, "%s", gt_fix_install_command(fixes));
		return true;
	}
	if (!nfixes || !p || (!p->argc && !p->exe))
		return false;
	for (i = 0; i < nfixes; i++)
		touched_env(&fixes[i], p, &before);
	gt_env_copy(&after, &before);
	for (i = 0; i < nfixes; i++)
		changed |= gt_fix_apply(&fixes[i], &after, facts);
	if (changed)
		say_run(&before, &after, p, out, cap, &nchanged);
	gt_env_free(&before);
	gt_env_free(&after);
	if (!nchanged)
		out[0] = 0;
	return nchanged > 0;
}

/* ---- installs */

/* The prefix of a Python install that holds path: what comes before
 * "/lib/pythonX.Y/site-packages/" or "/lib/python3/dist-packages/" (the
 * prefix's bin/python is its interpreter); false when path is no such. */
static bool python_prefix(const char *path, char *out, size_t cap)
{
	const char *lib = strstr(path, "/lib/python"), *sp;

	if (!lib)
		return false;
	sp = strstr(lib, "/site-packages/");
	if (!sp)
		sp = strstr(lib, "/dist-packages/");
	if (!sp || (size_t)(lib - path) >= cap)
		return false;
	snprintf(out, cap, "%.*s", (int)(lib - path), path);
	return true;
}

static bool under(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n && strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* A Python the system or the user owns, not an environment of its own:
 * pip there is refused by an externally managed Python (PEP 668; Debian 12,
 * Ubuntu 23.04 and later) and would fight the distribution's packages. */
static bool system_prefix(const char *prefix)
{
	return !*prefix || strcmp(prefix, "/usr") == 0 || strcmp(prefix, "/usr/local") == 0 ||
	       strstr(prefix, "/.local") != NULL;
}

void gt_fix_pip_install(struct gt_fix *fix, const struct gt_process *p, const char *path, const char *package,
			const char *pip_args, const char *conda_package)
{
	char *conda = p ? gt_fix_recorded_var(p, "CONDA_PREFIX") : NULL;
	char *venv = p ? gt_fix_recorded_var(p, "VIRTUAL_ENV") : NULL;
	char prefix[4096] = "", py[4200], qpy[8500], qpkg[1024], qprefix[8300], cmd[16384];

	gt_shell_quote(package, qpkg, sizeof(qpkg));
	if (path && conda && under(path, conda) && conda_package) {
		gt_shell_quote(conda, qprefix, sizeof(qprefix));
		snprintf(cmd, sizeof(cmd), "conda install -p %s %s", qprefix, conda_package);
	} else if (path && ((conda && under(path, conda)) || (venv && under(path, venv)) ||
			    (python_prefix(path, prefix, sizeof(prefix)) && !system_prefix(prefix)))) {
		if (conda && under(path, conda))
			snprintf(prefix, sizeof(prefix), "%s", conda);
		else if (venv && under(path, venv))
			snprintf(prefix, sizeof(prefix), "%s", venv);
		snprintf(py, sizeof(py), "%s/bin/python", prefix);
		gt_shell_quote(py, qpy, sizeof(qpy));
		snprintf(cmd, sizeof(cmd), "%s -m pip install %s%s%s", qpy, qpkg, pip_args ? " " : "",
			 pip_args ? pip_args : "");
	} else {
		/* never --break-system-packages: a venv of its own, then run the
		 * program with ~/gpu-venv/bin/python */
		snprintf(cmd, sizeof(cmd), "python3 -m venv ~/gpu-venv && ~/gpu-venv/bin/python -m pip install %s%s%s",
			 qpkg, pip_args ? " " : "", pip_args ? pip_args : "");
	}
	gt_fix_install(fix, cmd);
	free(conda);
	free(venv);
}
