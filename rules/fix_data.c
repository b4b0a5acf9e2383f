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

void gt_fix_preload_remove(struct gt_finding *f, const struct gt_proc_model *m, const char *path)
{
	const char *list = gt_process_env(m->proc, "LD_PRELOAD");

	if (!path)
		return;
	if (!list || !other_preload(m->facts, list, path))
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

/* ---- applying */

static bool listed(struct gt_host_facts *facts, json_t *arr, const char *s, size_t len)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && gt_same_list_entry(facts, s, len, json_string_value(v)))
			return true;
	return false;
}

/* The list without the entries to remove, with those to append; NULL when
 * nothing is left (the variable is then unset). */
static char *edit_list(struct gt_host_facts *facts, const char *old, json_t *remove, json_t *append, bool *changed)
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
		if (e > s && listed(facts, remove, s, (size_t)(e - s)))
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

bool gt_fix_apply(json_t *fix_data, json_t *env, struct gt_host_facts *facts)
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
		list = edit_list(facts, old, json_object_get(v, "remove"), json_object_get(v, "append"), &changed);
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

/* A variable as the process's header recorded it (exact bytes from its
 * _hex twin), without gputrace's own library in LD_PRELOAD and LD_AUDIT:
 * as the user had it. NULL when unset. */
static char *recorded_var(const struct gt_process *p, const char *name)
{
	char key[96], *v = NULL, *mine;
	const char *hex;
	size_t i, n;

	snprintf(key, sizeof(key), "%s_hex", name);
	hex = json_string_value(json_object_get(p->env, key));
	if (hex) {
		n = strlen(hex) / 2;
		v = gt_xmalloc(n + 1);
		for (i = 0; i < n; i++)
			sscanf(hex + 2 * i, "%2hhx", (unsigned char *)&v[i]);
		v[n] = 0;
	} else if (json_string_value(json_object_get(p->env, name))) {
		v = gt_xstrdup(json_string_value(json_object_get(p->env, name)));
	}
	if (v && (strcmp(name, "LD_PRELOAD") == 0 || strcmp(name, "LD_AUDIT") == 0)) {
		mine = gt_list_without_tracer(v);
		free(v);
		v = mine;
	}
	return v;
}

/* The variables a fix touches, each with its recorded value. */
static json_t *touched_env(json_t *fe, const struct gt_process *p)
{
	json_t *env = json_object(), *v;
	const char *key;
	size_t i;
	char *val;

	json_object_foreach(fe, key, v) {
		if (strcmp(key, "unset") == 0 || strcmp(key, "set") == 0)
			continue;
		val = recorded_var(p, key);
		json_object_set_new(env, key, val ? json_string(val) : json_null());
		free(val);
	}
	json_array_foreach(json_object_get(fe, "unset"), i, v) {
		val = json_is_string(v) ? recorded_var(p, json_string_value(v)) : NULL;
		if (json_is_string(v))
			json_object_set_new(env, json_string_value(v), val ? json_string(val) : json_null());
		free(val);
	}
	json_object_foreach(json_object_get(fe, "set"), key, v) {
		val = recorded_var(p, key);
		json_object_set_new(env, key, val ? json_string(val) : json_null());
		free(val);
	}
	return env;
}

static size_t add_word(char *out, size_t cap, size_t len, const char *word)
{
	char q[8192];

	gt_shell_quote(word, q, sizeof(q));
	return len + (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", len ? " " : "", q);
}

/* Every fix of a merged one ({"all": [...]}, gputrace retry --all-fixes)
 * applied in turn, or the one. */
static bool apply_any(json_t *fix_data, json_t *env, struct gt_host_facts *facts)
{
	json_t *all = json_object_get(fix_data, "all"), *v;
	bool changed = false;
	size_t i;

	if (!all)
		return gt_fix_apply(fix_data, env, facts);
	json_array_foreach(all, i, v)
		changed |= gt_fix_apply(v, env, facts);
	return changed;
}

static void merge_touched(json_t *fix_data, const struct gt_process *p, json_t *into)
{
	json_t *all = json_object_get(fix_data, "all"), *v, *t;
	size_t i;

	if (!all) {
		t = touched_env(json_object_get(fix_data, "env"), p);
		json_object_update(into, t);
		json_decref(t);
		return;
	}
	json_array_foreach(all, i, v)
		merge_touched(v, p, into);
}

bool gt_fix_command(json_t *fix_data, const struct gt_process *p, struct gt_host_facts *facts, char *out, size_t cap)
{
	json_t *before = json_object(), *after, *v;
	const char *install = json_string_value(json_object_get(fix_data, "install")), *key;
	size_t len = 0, i, unset = 0, set = 0;
	char word[8192];

	out[0] = 0;
	if (!fix_data) {
		json_decref(before);
		return false;
	}
	if (install && !gt_fix_is_env(fix_data) && !json_object_get(fix_data, "all")) {
		snprintf(out, cap, "%s", install);
		json_decref(before);
		return true;
	}
	if (!p || (!p->argc && !p->exe)) {
		json_decref(before);
		return false;
	}
	merge_touched(fix_data, p, before);
	after = json_deep_copy(before);
	if (!apply_any(fix_data, after, facts)) {
		json_decref(before);
		json_decref(after);
		return false;
	}
	json_object_foreach(after, key, v)
		if (json_is_null(v) && json_is_string(json_object_get(before, key)))
			unset++;
	if (unset)
		len = add_word(out, cap, len, "env");
	json_object_foreach(after, key, v)
		if (json_is_null(v) && json_is_string(json_object_get(before, key))) {
			len = add_word(out, cap, len, "-u");
			len = add_word(out, cap, len, key);
		}
	json_object_foreach(after, key, v) {
		if (!json_is_string(v) || json_equal(v, json_object_get(before, key)))
			continue;
		/* VAR='value': the name plain, the value quoted as a word of its own */
		gt_shell_quote(json_string_value(v), word, sizeof(word));
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s=%s", len ? " " : "", key, word);
		set++;
	}
	for (i = 0; i < p->argc; i++)
		len = add_word(out, cap, len, p->argv[i]);
	if (!p->argc)
		len = add_word(out, cap, len, p->exe);
	json_decref(before);
	json_decref(after);
	return unset + set > 0;
}

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

void gt_fix_pip_install(struct gt_finding *f, const struct gt_process *p, const char *path,
			const char *package, const char *pip_args, const char *conda_package)
{
	char *conda = p ? recorded_var(p, "CONDA_PREFIX") : NULL, *venv = p ? recorded_var(p, "VIRTUAL_ENV") : NULL;
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
	gt_fix_install(f, cmd);
	free(conda);
	free(venv);
}
