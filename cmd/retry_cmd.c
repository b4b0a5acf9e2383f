/* gputrace retry: runs the traced command again with a finding's fix applied
 * and says what the fix changed (retry.h).
 *
 * Which command, which environment: the process gputrace started (the one
 * its trace says was reaped), as its latest program image recorded itself —
 * exe, argv, working folder, and the variables that steer loading. After an
 * exec that image is the real program: for `gputrace -- env
 * LD_LIBRARY_PATH=X python3 conv.py` it is python3 with LD_LIBRARY_PATH=X,
 * so the fix is applied to python3's own environment and python3 is run
 * directly (running `env LD_LIBRARY_PATH=X ...` again would put X back). A
 * setting made inside the command in a process gputrace did not start (a
 * script that exports it, then runs python as its child) is out of reach:
 * retry says so instead of pretending. Variables the header does not record
 * (PATH, HOME, FAKE_* of the test fixtures) are retry's own. */
#define _GNU_SOURCE
#include "cmd/retry.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/launch.h"
#include "common/trace_file.h"
#include "common/xalloc.h"
#include "compare/diff.h"
#include "rules/fix.h"
#include "rules/fix_json.h"
#include "render/fold.h"
#include "render/printable.h"

#define WHO "gputrace retry"

/* Where retry's own lines go: stderr, always (issue 30). The re-run
 * program's stdout is the program's, for `gputrace retry` as for the trace
 * command's --try-fixes: its runs print there, gputrace's lines never do.
 * Only --json puts gputrace's answer (the one object) on stdout. */
#define say_to stderr

/* The loading variables of the trace header (common/trace_file.c) that a
 * retry sets as recorded; the rank variables are left to the launcher. */
static const char *const loading_vars[] = {
	"LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT", "LD_BIND_NOW",
	"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "CUDA_MODULE_LOADING",
	"CONDA_PREFIX", "VIRTUAL_ENV", "PYTHONPATH", "GPUTRACE_DIR",
	"BNB_CUDA_VERSION", "XLA_FLAGS", "TRITON_LIBCUDA_PATH", "NCCL_NET_PLUGIN",
};
#define NVARS (sizeof(loading_vars) / sizeof(loading_vars[0]))

/* One fix to try (or, for --all-fixes, several applied in turn), and the
 * findings that proposed it. */
struct candidate {
	struct gt_fix *parts;
	size_t nparts;
	json_t *ids;
};

struct plan {
	struct gt_process root;
	int was;                  /* the first run's exit status, -1 unknown */
	struct candidate *c;
	size_t n;
	json_t *view;             /* the first run's diagnosis */
	size_t nfindings;
	json_t *installs;         /* findings whose fix needs an installer: said, never run */
	struct gt_fix *install_fixes;  /* their fixes, in the same order */
	char foreign[512];        /* why the trace is not this user's on this host; "" when it is */
};

static void usage(void)
{
	fputs("usage: gputrace retry [--fix ID | --all-fixes] [--yes] [--json] [-o DIR] TRACEDIR\n"
	      "Runs the command traced in TRACEDIR again, under the tracer, as its trace\n"
	      "recorded it (program, arguments, working folder, the variables that steer\n"
	      "loading), with a finding's fix applied to that environment, and says which\n"
	      "findings went and how the exit status changed. Fixes that need an installer\n"
	      "are named, never run.\n"
	      "  --fix ID       the fix of the finding ID (default: each fix in turn)\n"
	      "  --all-fixes    every fix at once, in one run\n"
	      "  -y, --yes      run without asking (needed without a terminal)\n"
	      "      --json     the outcome as one JSON object\n"
	      "  -o, --output=DIR  the new traces go to DIR/retry-N (default: TRACEDIR)\n"
	      "  -h, --help     this help\n"
	      "Exit status: 0 every fix tried made its findings go, 1 one did not, 2 bad\n"
	      "usage, no fix to try, a refusal, or the recorded command is not available\n"
	      "here; 125 gputrace itself failed.\n", stdout);
}

/* ---- the first run */

/* The process gputrace started: reaped by it; else the one whose parent is
 * not among the traced processes. */
static bool read_root(const char *dir, struct gt_process *root, char *err, size_t cap)
{
	struct gt_process *ps;
	char **files;
	int nfiles = gt_list_traces(dir, &files), n = nfiles, i, pick = -1, k;

	if (n <= 0) {
		snprintf(err, cap, "%s: no trace files (*.jsonl) in this folder", dir);
		gt_free_list(files, nfiles);
		return false;
	}
	ps = gt_xcalloc((size_t)n, sizeof(*ps));
	for (i = 0; i < n; i++)
		if (!gt_read_trace(files[i], &ps[i], err, cap)) {
			n = i + 1;
			goto out;
		}
	for (i = 0; i < n && pick < 0; i++)
		if (ps[i].reaped)
			pick = i;
	for (i = 0; i < n && pick < 0; i++) {
		for (k = 0; k < n && ps[k].pid != ps[i].ppid; k++)
			;
		if (k == n)
			pick = i;
	}
	if (pick >= 0) {
		*root = ps[pick];
		memset(&ps[pick], 0, sizeof(ps[pick]));
	}
out:
	for (i = 0; i < n; i++)
		gt_process_free(&ps[i]);
	free(ps);
	gt_free_list(files, nfiles);
	return pick >= 0;
}

static int exit_of(const struct gt_process *p)
{
	if (!p->reaped)
		return -1;
	return p->reaped_signal ? 128 + p->reaped_signal : p->exit_status;
}

static void add_candidate(struct plan *pl, const struct gt_fix *fix, const char *id)
{
	size_t i, k;
	json_t *v;

	for (i = 0; i < pl->n && !gt_fix_equal(&pl->c[i].parts[0], fix); i++)
		;
	if (i == pl->n) {
		pl->c = gt_xrealloc(pl->c, (pl->n + 1) * sizeof(*pl->c));
		pl->c[pl->n].parts = gt_xcalloc(1, sizeof(*pl->c[pl->n].parts));
		gt_fix_copy(&pl->c[pl->n].parts[0], fix);
		pl->c[pl->n].nparts = 1;
		pl->c[pl->n].ids = json_array();
		pl->n++;
	}
	json_array_foreach(pl->c[i].ids, k, v)
		if (strcmp(json_string_value(v), id) == 0)
			return;
	json_array_append_new(pl->c[i].ids, json_string(id));
}

/* Every fix at once: the fixes of all, applied one after the other. */
static void merge_candidates(struct plan *pl)
{
	struct gt_fix *all;
	json_t *ids = json_array(), *v;
	size_t i, k;

	if (pl->n < 2) {
		json_decref(ids);
		return;
	}
	all = gt_xcalloc(pl->n, sizeof(*all));
	for (i = 0; i < pl->n; i++) {
		all[i] = pl->c[i].parts[0];
		free(pl->c[i].parts);
		json_array_foreach(pl->c[i].ids, k, v)
			json_array_append(ids, v);
		json_decref(pl->c[i].ids);
	}
	pl->c[0].parts = all;
	pl->c[0].nparts = pl->n;
	pl->c[0].ids = ids;
	pl->n = 1;
}

/* A finding's fix, as the one parser reads it: one that cannot be read is
 * said and not tried; a kind of edit this gputrace does not know (a newer
 * one's) is said and left out, never applied. */
static bool read_fix(json_t *finding, struct gt_fix *fix)
{
	const char *id = json_string_value(json_object_get(finding, "id"));
	char skipped[512], err[512];

	if (!gt_fix_from_json(json_object_get(finding, "fix_data"), fix, skipped, sizeof(skipped), err,
			      sizeof(err))) {
		fprintf(stderr, WHO ": finding %s: its fix cannot be read, not tried: %s\n", gt_printable(id),
			gt_printable(err));
		return false;
	}
	if (skipped[0])
		fprintf(stderr, WHO ": finding %s: %s in its fix is not known to this gputrace (a newer one's?): "
			"left out\n", gt_printable(id), gt_printable(skipped));
	return true;
}

static bool plan_fixes(struct plan *pl, const struct cmd_retry_opts *o, char *err, size_t cap)
{
	struct gt_fix fix;
	size_t i, n;
	json_t *f;

	pl->installs = json_array();
	json_array_foreach(json_object_get(pl->view, "findings"), i, f) {
		const char *id = json_string_value(json_object_get(f, "id"));

		pl->nfindings++;
		if ((o->fix_id && strcmp(o->fix_id, id) != 0) || !json_object_get(f, "fix_data") || !read_fix(f, &fix))
			continue;
		if (gt_fix_has_env(&fix)) {
			add_candidate(pl, &fix, id);
		} else if (gt_fix_install_command(&fix)) {
			n = json_array_size(pl->installs);
			json_array_append(pl->installs, f);
			pl->install_fixes = gt_xrealloc(pl->install_fixes, (n + 1) * sizeof(*pl->install_fixes));
			gt_fix_copy(&pl->install_fixes[n], &fix);
		}
		gt_fix_free(&fix);
	}
	if (o->all_fixes)
		merge_candidates(pl);
	if (pl->n)
		return true;
	if (o->fix_id)
		snprintf(err, cap, "no finding %s with a fix of the environment to try%s", o->fix_id,
			 json_array_size(pl->installs) ? " (its fix needs an installer: see above)" : "");
	else
		snprintf(err, cap, "%s", pl->nfindings ? "no finding has a fix of the environment to try" :
			 "the run has no findings: nothing to fix");
	return false;
}

/* ---- the environment */

/* The recorded environment as the user had it (exact bytes): without the
 * tracer in LD_PRELOAD and LD_AUDIT (the launcher puts it back). */
static void user_env(const struct gt_process *p, struct gt_env *env)
{
	size_t i;

	memset(env, 0, sizeof(*env));
	for (i = 0; i + 1 < NVARS; i++) {
		char *mine = gt_fix_recorded_var(p, loading_vars[i]);

		if (mine)
			gt_env_put(env, loading_vars[i], mine);
		free(mine);
	}
}

/* The recorded environment as the launcher's edits for the command's own
 * process ("NAME=value", or "NAME" to unset): gputrace's own environment is
 * never changed, so every run of a retry starts from the same. */
static char **env_edits(const struct gt_env *env)
{
	char **edits = gt_xcalloc(NVARS, sizeof(*edits));
	size_t i;

	for (i = 0; i + 1 < NVARS; i++) {
		const char *v = gt_env_get(env, loading_vars[i]);

		edits[i] = v ? gt_xasprintf("%s=%s", loading_vars[i], v) : gt_xstrdup(loading_vars[i]);
	}
	return edits;
}

static void free_edits(char **edits)
{
	size_t i;

	for (i = 0; edits && edits[i]; i++)
		free(edits[i]);
	free(edits);
}

/* The fix is applied for a run on this host: its folders are compared
 * through this host's files (facts asked now, never written). */
static bool apply_fix(const struct candidate *c, struct gt_env *env)
{
	struct gt_host_facts *facts = gt_facts_here();
	bool changed = false;
	size_t i;

	for (i = 0; i < c->nparts; i++)
		changed |= gt_fix_apply(&c->parts[i], env, facts);
	return changed;
}

static void describe(const struct candidate *c, char *out, size_t cap)
{
	size_t i, len = 0;
	char one[4096];

	if (c->nparts == 1) {
		gt_fix_describe(&c->parts[0], out, cap);
		return;
	}
	out[0] = 0;
	for (i = 0; i < c->nparts; i++) {
		gt_fix_describe(&c->parts[i], one, sizeof(one));
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", i ? "; " : "", one);
	}
}

/* The candidate as its "fix_data": the fix's own, or for several at once
 * {"all": [each one's]}. */
static json_t *candidate_json(const struct candidate *c)
{
	json_t *all;
	size_t i;

	if (c->nparts == 1)
		return gt_fix_to_json(&c->parts[0]);
	all = json_array();
	for (i = 0; i < c->nparts; i++)
		json_array_append_new(all, gt_fix_to_json(&c->parts[i]));
	return json_pack("{so}", "all", all);
}

/* ---- the command */

/* The file to run: argv[0] found as the shell would, when that is the
 * recorded program (a venv's python3 is a link to the system's, and Python
 * finds its venv from the name it was started by); else the recorded exe. */
static bool program(const struct gt_process *p, char *exe, size_t cap, bool *by_name, char *err, size_t errcap)
{
	char found[PATH_MAX], a[PATH_MAX], b[PATH_MAX];

	*by_name = false;
	if (!p->argc || !p->exe) {
		snprintf(err, errcap, "the trace records no program to run (no argv or exe)");
		return false;
	}
	if (access(p->exe, X_OK) != 0) {
		snprintf(err, errcap, "the recorded command %s is not available here: %s", p->exe, strerror(errno));
		return false;
	}
	snprintf(exe, cap, "%s", p->exe);
	if (cmd_resolve_command(p->argv[0], found, sizeof(found)) == 0 && realpath(found, a) &&
	    realpath(p->exe, b) && strcmp(a, b) == 0)
		*by_name = true;
	return true;
}

/* The recorded program and working folder are here to be used again. */
static bool runnable(const struct gt_process *p, char *err, size_t cap)
{
	char exe[PATH_MAX];
	struct stat st;
	bool by_name;

	if (!program(p, exe, sizeof(exe), &by_name, err, cap))
		return false;
	if (p->cwd && (stat(p->cwd, &st) != 0 || !S_ISDIR(st.st_mode))) {
		snprintf(err, cap, "the recorded working folder %s is not available here", p->cwd);
		return false;
	}
	return true;
}

/* A run traced on another host is refused: its paths are that host's. One
 * whose header names no host is let through, as foreign (origin_of). */
static bool same_host(const struct gt_process *p, char *err, size_t cap)
{
	char host[256];

	gt_host_name(host, sizeof(host));
	if (!p->host || strcmp(p->host, host) == 0)
		return true;
	snprintf(err, cap, "the run was traced on host %s, this is %s: run gputrace retry there (compare "
		 "hosts with gputrace diff)", p->host, host);
	return false;
}

/* The uid the trace file's first header line records, or -1. */
static long header_uid(const char *file)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	json_t *h = NULL;
	long uid = -1;

	if (f && getline(&line, &cap, f) > 0 && (h = json_loads(line, 0, NULL)) != NULL &&
	    json_is_integer(json_object_get(h, "uid")))
		uid = (long)json_integer_value(json_object_get(h, "uid"));
	json_decref(h);
	free(line);
	if (f)
		fclose(f);
	return uid;
}

/* Whether the run came from this user on this host; else why not, in why.
 * A trace folder is data anyone may hand over: what its header recorded (the
 * program, its folder, LD_PRELOAD ...) is what a retry runs. */
static void origin_of(const struct gt_process *p, char *why, size_t cap)
{
	long uid = header_uid(p->file);
	struct stat st;

	why[0] = 0;
	if (!p->host)
		snprintf(why, cap, "its header names no host");
	else if (uid < 0)
		snprintf(why, cap, "its header names no user");
	else if ((uid_t)uid != getuid())
		snprintf(why, cap, "it was traced as uid %ld, you are uid %ld", uid, (long)getuid());
	else if (stat(p->file, &st) == 0 && st.st_uid != getuid())
		snprintf(why, cap, "its file %s belongs to uid %ld", p->file, (long)st.st_uid);
}

/* Everything of the header's that a run uses: the program, its folder and
 * each variable it sets, as the question shows them. */
static void say_command(FILE *f, const struct gt_process *p)
{
	struct gt_env env;
	size_t i;

	user_env(p, &env);
	fprintf(f, WHO ": the command:");
	for (i = 0; i < p->argc; i++)
		fprintf(f, " %s", gt_printable(p->argv[i]));
	fprintf(f, "\n  (%s, in %s)\n", gt_printable(p->exe), gt_printable(p->cwd ? p->cwd : "?"));
	for (i = 0; i < env.n; i++)
		fprintf(f, "  with %s=%s\n", env.v[i].name, gt_printable(env.v[i].value));
	gt_env_free(&env);
}

static bool confirm(const struct plan *pl, const struct cmd_retry_opts *o, char *err, size_t cap)
{
	char desc[8192], line[64];
	struct gt_fold fb;
	FILE *f = gt_fold_open(&fb);  /* folded to 100 columns, as every text output */
	size_t i;

	say_command(f, &pl->root);
	for (i = 0; i < pl->n; i++) {
		describe(&pl->c[i], desc, sizeof(desc));
		fprintf(f, "  run %zu: with %s\n", i + 1, gt_printable(desc));
	}
	if (pl->foreign[0])
		fprintf(f, WHO ": this trace is not from you on this host (%s): the program, folder and "
			"variables above are its own\n", gt_printable(pl->foreign));
	gt_fold_close(&fb, stderr);
	if (o->yes || (o->yes_if_own && !pl->foreign[0]))
		return true;
	if (!isatty(STDIN_FILENO)) {
		snprintf(err, cap, pl->foreign[0] ? "running a trace that is not yours needs a yes: give --yes (no "
			 "terminal to ask on)" : "re-running the command needs a yes: give --yes (no terminal to ask on)");
		return false;
	}
	fprintf(stderr, "Run it again%s? [y/N] ", pl->n > 1 ? " for each" : "");
	if (!fgets(line, sizeof(line), stdin) || (line[0] != 'y' && line[0] != 'Y')) {
		snprintf(err, cap, "not run");
		return false;
	}
	return true;
}

static void new_folder(const char *parent, char *out, size_t cap)
{
	struct stat st;
	int k;

	for (k = 1; k < 10000; k++) {
		snprintf(out, cap, "%s/retry-%d", parent, k);
		if (lstat(out, &st) != 0)
			return;
	}
}

/* ---- one run and what it changed */

static bool in_list(json_t *arr, const char *id)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (strcmp(json_string_value(json_object_get(v, "id")), id) == 0)
			return true;
	return false;
}

static void say_exit(FILE *f, int status)
{
	if (status < 0)
		fprintf(f, "?");
	else
		fprintf(f, "%d", status);
}

/* The outcome of one run: the sentence, and as data. Returns whether each
 * finding the fix was for went. */
static bool judge(const struct plan *pl, const struct candidate *c, json_t *after, int status,
		  const char *folder, json_t *result, bool quiet)
{
	json_t *d = gt_diff(pl->view, after), *gone = json_object_get(json_object_get(d, "findings"), "vanished");
	json_t *appeared = json_object_get(json_object_get(d, "findings"), "appeared"), *v;
	json_t *gone_ids = json_array(), *still = json_array(), *new_ids = json_array();
	size_t i, left = json_array_size(json_object_get(after, "findings"));
	char desc[8192], cmd[16384], line[16400];
	bool helped = true;

	describe(c, desc, sizeof(desc));
	json_array_foreach(c->ids, i, v) {
		bool went = in_list(gone, json_string_value(v));

		json_array_append(went ? gone_ids : still, v);
		helped &= went;
	}
	json_array_foreach(appeared, i, v)
		json_array_append(new_ids, json_object_get(v, "id"));
	if (!quiet) {
		struct gt_fold fb;
		FILE *out = gt_fold_open(&fb);  /* folded to 100 columns */

		fprintf(out, "with %s: ", gt_printable(desc));
		json_array_foreach(gone_ids, i, v)
			fprintf(out, "%s gone, ", json_string_value(v));
		json_array_foreach(still, i, v)
			fprintf(out, "%s still there, ", json_string_value(v));
		json_array_foreach(new_ids, i, v)
			fprintf(out, "%s new, ", json_string_value(v));
		fprintf(out, "exit ");
		say_exit(out, status);
		fprintf(out, " (was ");
		say_exit(out, pl->was);
		fprintf(out, ")\n");
		if (!left)
			fprintf(out, "fixed: all clear\n");
		else if (helped)
			fprintf(out, "fixed: what the fix was for; %zu finding%s left (gputrace report %s)\n", left,
			       left == 1 ? "" : "s", gt_printable(folder));
		else
			fprintf(out, "did not help: the fix was applied and the finding is still there (gputrace diff shows "
			       "what changed)\n");
		fprintf(out, "  traces in %s\n", gt_printable(folder));
		/* verified: the command that does the same without gputrace */
		if (helped && gt_fix_command(c->parts, c->nparts, &pl->root, gt_facts_here(), cmd, sizeof(cmd))) {
			snprintf(line, sizeof(line), "  run: %s", cmd);
			fprintf(out, "%s\n", line);
		}
		gt_fold_close(&fb, say_to);
	}
	json_object_set_new(result, "fix", json_string(desc));
	json_object_set_new(result, "fix_data", candidate_json(c));
	if (gt_fix_command(c->parts, c->nparts, &pl->root, gt_facts_here(), cmd, sizeof(cmd)))
		json_object_set_new(result, "command", gt_json_text(cmd));
	json_object_set(result, "for", c->ids);
	json_object_set_new(result, "traces", gt_json_text(folder));
	json_object_set_new(result, "gone", gone_ids);
	json_object_set_new(result, "still", still);
	json_object_set_new(result, "new", new_ids);
	json_object_set_new(result, "exit", status >= 0 ? json_integer(status) : json_null());
	json_object_set_new(result, "was", pl->was >= 0 ? json_integer(pl->was) : json_null());
	json_object_set_new(result, "helped", json_boolean(helped));
	json_object_set_new(result, "all_clear", json_boolean(left == 0));
	json_object_set_new(result, "diff", d);
	return helped;
}

static json_t *view_of(const char *dir, char *err, size_t cap)
{
	json_t *views = json_array(), *v;

	if (!gt_view_load(dir, views, err, cap)) {
		json_decref(views);
		return NULL;
	}
	v = json_incref(json_array_get(views, 0));
	json_decref(views);
	return v;
}

/* Runs the command once with the fix; -1 when nothing could be judged. */
static int run_one(const struct plan *pl, const struct candidate *c, const char *parent, json_t *result,
		   bool quiet)
{
	char folder[PATH_MAX + 32], exe[PATH_MAX], err[8192], desc[8192], **edits;
	struct gt_env env;
	json_t *after;
	struct stat st;
	struct cmd_launch_opts lo = { 0 };
	char **argv;
	bool by_name;
	int status;

	user_env(&pl->root, &env);
	describe(c, desc, sizeof(desc));
	if (!apply_fix(c, &env)) {
		if (!quiet)
			fprintf(say_to, "with %s: not run: the recorded environment of pid %ld (the process gputrace "
			       "started) is so already; the setting is made inside the command (a script, or a "
			       "process it starts), where retry cannot undo it\n",
			       gt_printable(desc), pl->root.pid);
		json_object_set_new(result, "fix", json_string(desc));
		json_object_set_new(result, "not_run", json_string("the recorded environment is so already"));
		json_object_set_new(result, "helped", json_false());
		gt_env_free(&env);
		return 0;
	}
	if (!program(&pl->root, exe, sizeof(exe), &by_name, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s\n", gt_printable(err));
		gt_env_free(&env);
		return -1;
	}
	new_folder(parent, folder, sizeof(folder));
	lo.out_dir = folder;
	lo.quiet = true;
	lo.exe = by_name ? NULL : exe;
	errno = 0;
	if (pl->root.cwd && (stat(pl->root.cwd, &st) != 0 || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, WHO ": cannot go to the recorded working folder %s: %s\n",
			gt_printable(pl->root.cwd), strerror(errno ? errno : ENOTDIR));
		gt_env_free(&env);
		return -1;
	}
	/* the command's own process gets the folder, the variables and, with
	 * --json, stdout on stderr (stdout is the one object): never this one */
	edits = env_edits(&env);
	lo.env = edits;
	lo.cwd = pl->root.cwd;
	lo.stdout_to_stderr = quiet;
	/* the trace's argv has a count, exec wants the NULL at its end */
	argv = gt_xcalloc(pl->root.argc + 1, sizeof(*argv));
	memcpy(argv, pl->root.argv, pl->root.argc * sizeof(*argv));
	lo.argv = argv;
	fflush(NULL);
	status = cmd_launch_traced(&lo);
	fflush(NULL);
	free(argv);
	free_edits(edits);
	gt_env_free(&env);
	after = view_of(folder, err, sizeof(err));
	if (!after) {
		fprintf(stderr, WHO ": the run again left no diagnosis: %s\n", gt_printable(err));
		return -1;
	}
	status = judge(pl, c, after, status, folder, result, quiet) ? 1 : 0;
	json_decref(after);
	return status;
}

static void say_installs(const struct plan *pl, bool quiet)
{
	size_t i;
	json_t *f;

	if (quiet)
		return;
	json_array_foreach(pl->installs, i, f)
		fprintf(say_to, "%s: the fix needs an installer, which gputrace never runs: %s\n",
		       json_string_value(json_object_get(f, "id")),
		       gt_printable(gt_fix_install_command(&pl->install_fixes[i])));
}

static void plan_free(struct plan *pl)
{
	size_t i, k;

	for (i = 0; i < pl->n; i++) {
		for (k = 0; k < pl->c[i].nparts; k++)
			gt_fix_free(&pl->c[i].parts[k]);
		free(pl->c[i].parts);
		json_decref(pl->c[i].ids);
	}
	free(pl->c);
	for (i = 0; i < json_array_size(pl->installs); i++)
		gt_fix_free(&pl->install_fixes[i]);
	free(pl->install_fixes);
	json_decref(pl->view);
	json_decref(pl->installs);
	gt_process_free(&pl->root);
}

int cmd_retry_dir(const char *dir_in, const struct cmd_retry_opts *o)
{
	struct plan pl = { 0 };
	char dir[PATH_MAX], parent[PATH_MAX], err[8192];
	json_t *results = json_array(), *out;
	int status = 0, r;
	size_t i;

	if (!realpath(dir_in, dir)) {
		fprintf(stderr, WHO ": %s: %s\n", gt_printable(dir_in), strerror(errno));
		json_decref(results);
		return CMD_EXIT_USAGE;
	}
	if (!(pl.view = view_of(dir, err, sizeof(err))) || !read_root(dir, &pl.root, err, sizeof(err)) ||
	    !same_host(&pl.root, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s\n", gt_printable(err));
		plan_free(&pl);
		json_decref(results);
		return CMD_EXIT_USAGE;
	}
	pl.was = exit_of(&pl.root);
	origin_of(&pl.root, pl.foreign, sizeof(pl.foreign));
	if (!plan_fixes(&pl, o, err, sizeof(err))) {
		say_installs(&pl, o->json);
		fprintf(stderr, WHO ": %s\n", err);
		plan_free(&pl);
		json_decref(results);
		return CMD_EXIT_USAGE;
	}
	say_installs(&pl, o->json);
	if (!runnable(&pl.root, err, sizeof(err)) || !confirm(&pl, o, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s\n", err);
		plan_free(&pl);
		json_decref(results);
		return CMD_EXIT_USAGE;
	}
	snprintf(parent, sizeof(parent), "%s", o->out_dir ? o->out_dir : dir);
	if (o->out_dir && mkdir(parent, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, WHO ": cannot create %s: %s\n", gt_printable(parent), strerror(errno));
		plan_free(&pl);
		json_decref(results);
		return CMD_EXIT_OWN_FAILURE;
	}
	for (i = 0; i < pl.n; i++) {
		json_t *res = json_object();

		r = run_one(&pl, &pl.c[i], parent, res, o->json);
		json_array_append_new(results, res);
		if (r < 0) {
			status = CMD_EXIT_OWN_FAILURE;
			break;
		}
		if (r == 0 && status == 0)
			status = 1;
	}
	if (o->json) {
		out = json_object();
		json_object_set_new(out, "format", json_string("gputrace-retry"));
		json_object_set_new(out, "version", json_integer(1));
		json_object_set_new(out, "traces", gt_json_text(dir));
		json_object_set_new(out, "was", pl.was >= 0 ? json_integer(pl.was) : json_null());
		json_object_set_new(out, "runs", results);
		json_object_set_new(out, "installs", json_incref(pl.installs));
		json_dumpf(out, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		json_decref(out);
	} else {
		json_decref(results);
	}
	plan_free(&pl);
	return status;
}

int cmd_retry_main(int argc, char **argv)
{
	enum { OPT_ALL = 256, OPT_JSON };
	static const struct option longopts[] = {
		{ "fix", required_argument, NULL, 'f' },
		{ "all-fixes", no_argument, NULL, OPT_ALL },
		{ "yes", no_argument, NULL, 'y' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_retry_opts o = { 0 };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:yo:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			return 0;
		case 'f':
			o.fix_id = optarg;
			break;
		case OPT_ALL:
			o.all_fixes = true;
			break;
		case 'y':
			o.yes = true;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case 'o':
			o.out_dir = optarg;
			break;
		default:
			return cmd_bad_option(WHO, CMD_EXIT_USAGE, c, argv);
		}
	}
	if (o.fix_id && o.all_fixes)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "--fix and --all-fixes: give one of them");
	if (optind >= argc)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "no trace folder given");
	if (optind + 1 < argc)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "one trace folder at a time (%s, then %s)", argv[optind],
				       argv[optind + 1]);
	return cmd_retry_dir(argv[optind], &o);
}
