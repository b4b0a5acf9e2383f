/* Typed fixes: what a finding's fix sentence says, as a list of edits that
 * gputrace retry can apply to the recorded environment of a run, or an
 * installer's command that it names and never runs. One representation from
 * the rule to retry: the rules build it with the constructors below, the
 * JSON ("fix_data", rules/fix_json.h) is rendered from it and parsed back
 * into it, and retry, --try-fixes, diff and the renderers take it. */
#ifndef GPUTRACE_FIX_H
#define GPUTRACE_FIX_H

#include <stdbool.h>
#include <stddef.h>

struct gt_host_facts;
struct gt_process;
struct gt_proc_model;

/* The kinds of edit, each with the JSON key that carries it. */
enum gt_fix_kind {
	GT_FIX_LIST_REMOVE,  /* env.VAR.remove[]: an entry out of a ':' list variable */
	GT_FIX_LIST_APPEND,  /* env.VAR.append[]: an entry added at the list's end */
	GT_FIX_UNSET,        /* env.unset[]: a variable removed */
	GT_FIX_SET,          /* env.set{VAR: value}: a variable set to a value */
	GT_FIX_INSTALL,      /* install: an installer's command line, said, never run */
};

struct gt_fix_edit {
	enum gt_fix_kind kind;
	union {
		struct { char *var, *entry; } list;  /* LIST_REMOVE, LIST_APPEND */
		struct { char *var; } unset;
		struct { char *var, *value; } set;
		struct { char *command; } install;
	} u;
};

/* The edits in the order of their JSON: grouped as the JSON nests them (by
 * variable, then remove/append), groups in the order they were first
 * added. The constructors keep that order and drop repeats, so that a fix
 * rendered to JSON and parsed back is the same list, edit for edit. An
 * empty fix (n == 0) is no fix: no "fix_data". */
struct gt_fix {
	struct gt_fix_edit *v;
	size_t n;
};

/* Longest variable name, entry or value, and install command a fix holds:
 * what a fix for a real path needs, and a bound on what the parser takes. */
#define GT_FIX_VAR_MAX 128
#define GT_FIX_TEXT_MAX 8192
#define GT_FIX_EDITS_MAX 256

/* ---- building (the rules) */

/* Each adds one edit; false when it was refused (a variable name that is not
 * [A-Z_][A-Z0-9_]*, text that is empty, too long or not UTF-8: JSON could
 * not carry it) or the fix is full. A repeat of an edit already there is
 * kept once (true); a SET of a variable already set, or an INSTALL when
 * there is one, replaces its value in place. */
bool gt_fix_list_remove(struct gt_fix *fix, const char *var, const char *entry);
bool gt_fix_list_append(struct gt_fix *fix, const char *var, const char *entry);
bool gt_fix_unset(struct gt_fix *fix, const char *var);
bool gt_fix_set(struct gt_fix *fix, const char *var, const char *value);
bool gt_fix_install(struct gt_fix *fix, const char *command);
/* Any edit, checked and placed as the constructors above do (the parser's
 * way in). */
bool gt_fix_add(struct gt_fix *fix, const struct gt_fix_edit *edit);
/* Why gt_fix_add would refuse the edit ("not a variable name ..."), or NULL. */
const char *gt_fix_edit_problem(const struct gt_fix_edit *edit);

/* LD_PRELOAD without path: unset when it was the process's only entry of its
 * own (libgputrace.so, the tracer's, does not count), else that entry removed. */
void gt_fix_preload_remove(struct gt_fix *fix, const struct gt_proc_model *m, const char *path);
/* A pip install of package (a requirement: "torch", "nvidia-cudnn-cu13==9.19.0.56",
 * shell-quoted here) with pip_args after it, as an install fix that fits
 * where the framework at path was installed (issue 30): that environment's
 * own python -m pip in a venv or another prefix, conda install -p of
 * conda_package (when not NULL) in the CONDA_PREFIX the process ran in, and
 * for a system-wide or user install (PEP 668: an externally managed Python
 * refuses pip there) a new venv, never --break-system-packages. Decided
 * from the recorded path and environment alone. */
void gt_fix_pip_install(struct gt_fix *fix, const struct gt_process *p, const char *path, const char *package,
			const char *pip_args, const char *conda_package);

void gt_fix_free(struct gt_fix *fix);
void gt_fix_copy(struct gt_fix *to, const struct gt_fix *from);
/* The same change: the same edits of each variable and kind in the same
 * order (the order of groups does not matter, as in JSON objects). */
bool gt_fix_equal(const struct gt_fix *a, const struct gt_fix *b);
/* The fix changes the environment (gputrace retry can try it). */
bool gt_fix_has_env(const struct gt_fix *fix);
/* Its installer's command, or NULL. */
const char *gt_fix_install_command(const struct gt_fix *fix);

/* ---- an environment to apply fixes to */

/* Variables in the order they were first put, each with its value or
 * NULL (unset, or recorded as unset). */
struct gt_env_var {
	char *name;
	char *value;
};
struct gt_env {
	struct gt_env_var *v;
	size_t n;
};

const char *gt_env_get(const struct gt_env *env, const char *name);
/* Whether env names the variable (set or unset). */
bool gt_env_has(const struct gt_env *env, const char *name);
/* Sets (value NULL: unset) a variable, in place when it is there. */
void gt_env_put(struct gt_env *env, const char *name, const char *value);
void gt_env_copy(struct gt_env *to, const struct gt_env *from);
void gt_env_free(struct gt_env *env);

/* ---- applying, saying, pasting */

/* Applies the environment edits to env: each list variable's removals and
 * appends (entries compared through the facts of the host where it will
 * run; a list left empty is unset), then the unsets, then the sets.
 * Returns whether anything changed. */
bool gt_fix_apply(const struct gt_fix *fix, struct gt_env *env, struct gt_host_facts *facts);

/* "LD_LIBRARY_PATH minus /lib/x86_64-linux-gnu; unset LD_PRELOAD", or for an
 * installer's fix "run pip install ...". */
void gt_fix_describe(const struct gt_fix *fix, char *out, size_t cap);

/* The fixes (one, or the several of retry --all-fixes, applied in turn) as
 * a command to paste into a POSIX shell: for a change of the environment,
 * the process's own command line (argv, shell-quoted) run with the
 * variables as the fixes leave them (env -u VAR for one unset, VAR='value'
 * for one set), from what its trace recorded; for one installer's fix, the
 * installer's command. Returns false (out empty) when there is none: no
 * edit, or none that changes the recorded environment. */
bool gt_fix_command(const struct gt_fix *fixes, size_t nfixes, const struct gt_process *p,
		    struct gt_host_facts *facts, char *out, size_t cap);

/* word as one shell word: itself when it needs no quotes, in '...' when
 * it has no control character, in $'...' (bash, zsh, ksh) with \xHH
 * escapes when it has one: never a raw control byte. */
void gt_shell_quote(const char *word, char *out, size_t cap);

/* ---- list variables */

/* Whether a list entry (len bytes) names the same thing as want: equal but
 * for trailing slashes, or the same file or folder once links are resolved. */
bool gt_same_list_entry(struct gt_host_facts *facts, const char *entry, size_t len, const char *want);
/* LD_PRELOAD or LD_AUDIT without gputrace's own library, ':' between the
 * rest (malloc'd); NULL when nothing of the user's is left. */
char *gt_list_without_tracer(const char *list);
/* Whether a LD_PRELOAD/LD_AUDIT entry is gputrace's own library. */
bool gt_is_tracer_entry(const char *entry, size_t len);
/* A variable as the process's header recorded it (exact bytes), without
 * gputrace's own library in LD_PRELOAD and LD_AUDIT: as the user had it.
 * malloc'd; NULL when unset. */
char *gt_fix_recorded_var(const struct gt_process *p, const char *name);

#endif
