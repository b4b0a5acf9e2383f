/* A report (see report.h): the traces read into groups of identical
 * processes, the rules run over them, and all of it freed. */
#define _GNU_SOURCE
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/fingerprint.h"
#include "rules/fix_command.h"
#include "rules/rules.h"
#include "rules/shown_path.h"
#include "host/caches.h"
#include "common/xalloc.h"
#include "gputrace/trace_format.h"

static struct gt_member *new_member(struct gt_group *g)
{
	g->members = gt_xrealloc(g->members, (g->nmembers + 1) * sizeof(*g->members));
	return &g->members[g->nmembers++];
}

static void add_member(struct gt_group *g, const struct gt_process *p)
{
	struct gt_member *x;

	x = new_member(g);
	x->pid = p->pid;
	x->ppid = p->ppid;
	x->rank = p->rank;
	x->world_size = p->world_size;
	x->host = gt_xstrdup(p->host ? p->host : "?");
	x->file = gt_xstrdup(p->file ? p->file : "?");
	x->command = gt_command_words(p->argv, p->argc);
}

static void group_free(struct gt_group *g)
{
	size_t i;

	for (i = 0; i < g->nmembers; i++) {
		free(g->members[i].host);
		free(g->members[i].file);
		free(g->members[i].command);
	}
	free(g->members);
	free(g->signature);
	gt_model_free(&g->model);
	gt_process_free(&g->proc);
	free(g);
}

static void remember_fingerprint(struct gt_group *g, uint64_t fp)
{
	if (g->nfingerprints < (int)(sizeof(g->fingerprints) / sizeof(g->fingerprints[0])))
		g->fingerprints[g->nfingerprints++] = fp;
}

/* A trace whose fingerprint a group knows: only its header is read. */
static bool add_known(struct gt_report *r, const char *path, uint64_t fp, const char *first)
{
	struct gt_identity id;
	struct gt_member *x;
	size_t i;
	int k;

	for (i = 0; i < r->ngroups; i++) {
		for (k = 0; k < r->groups[i]->nfingerprints; k++) {
			if (r->groups[i]->fingerprints[k] != fp)
				continue;
			if (!gt_read_identity(first, &id))
				return false;
			x = new_member(r->groups[i]);
			x->pid = id.pid;
			x->ppid = id.ppid;
			x->rank = id.rank;
			x->world_size = id.world_size;
			x->host = id.host ? id.host : gt_xstrdup("?");
			x->file = gt_xstrdup(path);
			x->command = id.command;
			r->nprocs++;
			return true;
		}
	}
	return false;
}

/* What reading many traces needs: the report, room for one header line (as
 * long as the reader accepts a line), where a failure is said. */
struct loading {
	struct gt_report *r;
	bool more_paths;    /* paths to read after this one */
	char *first;
	char *err;
	size_t errcap;
};

#define MAX_HEADER_LINE (1 << 20)

/* The stopping signals a process sent, kept before its trace is let go. */
static void remember_signals(struct gt_report *r, const struct gt_process *p)
{
	size_t i;

	for (i = 0; i < p->nsent; i++) {
		struct gt_sent *s;

		r->sent = gt_xrealloc(r->sent, (r->nsent + 1) * sizeof(*r->sent));
		s = &r->sent[r->nsent++];
		s->host = gt_xstrdup(p->host ? p->host : "?");
		s->sender = p->pid;
		s->target = p->sent[i].target;
		s->signal = p->sent[i].signal;
	}
}

/* The signal a traced process sent to pid on host, or NULL. */
static const struct gt_sent *sent_to(const struct gt_report *r, long pid, const char *host)
{
	size_t i;

	for (i = r->nsent; i-- > 0;)
		if (r->sent[i].target == pid && strcmp(r->sent[i].host, host) == 0)
			return &r->sent[i];
	return NULL;
}

/* A group whose processes all ended without a closing line after another
 * traced process sent each of them a stopping signal was stopped by it. */
static void apply_signals_sent(struct gt_report *r)
{
	const struct gt_sent *s = NULL;
	size_t i, k;

	for (i = 0; i < r->ngroups; i++) {
		struct gt_group *g = r->groups[i];

		if (strcmp(g->model.ended_how, "exit") == 0 || g->model.stopped)
			continue;
		for (k = 0; k < g->nmembers; k++)
			if (!(s = sent_to(r, g->members[k].pid, g->members[k].host)))
				break;
		if (k < g->nmembers || !s)
			continue;
		g->model.stopped = true;
		g->model.stopped_by = s->sender;
		if (!g->model.ended_signal)
			g->model.ended_signal = s->signal;
	}
}

/* Reads one trace; a process like one already seen joins that group and its
 * trace is let go at once. The fingerprint (a pass over the whole file) is
 * taken only where it can match: a group is there to join, or more traces
 * follow this one (more). */
static bool add_file(struct loading *ld, const char *path, bool more)
{
	struct gt_report *r = ld->r;
	struct gt_group *g;
	bool have_fp = false;
	uint64_t fp = 0;
	size_t i;

	if (r->ngroups || more)
		have_fp = gt_trace_fingerprint(path, &fp, ld->first, MAX_HEADER_LINE);
	if (have_fp && add_known(r, path, fp, ld->first))
		return true;
	g = gt_xcalloc(1, sizeof(*g));
	if (!gt_read_trace(path, &g->proc, ld->err, ld->errcap)) {
		gt_process_free(&g->proc);
		free(g);
		return false;
	}
	if (!gt_model_build(&g->proc, gt_facts_of_host(r->facts, g->proc.host), &g->model))
		abort();
	g->signature = gt_signature(&g->model);
	r->nprocs++;
	remember_signals(r, &g->proc);
	for (i = 0; i < r->ngroups; i++) {
		if (strcmp(r->groups[i]->signature, g->signature) == 0) {
			add_member(r->groups[i], &g->proc);
			if (have_fp)
				remember_fingerprint(r->groups[i], fp);
			group_free(g);
			return true;
		}
	}
	add_member(g, &g->proc);
	if (have_fp)
		remember_fingerprint(g, fp);
	r->groups = gt_xrealloc(r->groups, (r->ngroups + 1) * sizeof(*r->groups));
	r->groups[r->ngroups++] = g;
	return true;
}

/* The first complete line of a file (the text after the last NUL or newline
 * before it, the NUL bytes being room the writer reserved), into first
 * (cut to cap); false when there is none. Opened as the reader opens: a
 * regular file, without blocking or following a link. */
static bool first_line_of(const char *path, char *first, size_t cap)
{
	char buf[65536];
	struct stat st;
	ssize_t n, i;
	size_t len = 0;
	bool text = false, line = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return true;  /* the reader says why */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		line = true;
	while (!line && (n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n && !line; i++) {
			line = buf[i] == '\n' && text;
			if (line)
				break;
			if (buf[i] == 0 || buf[i] == '\n')
				len = 0;
			else if (len + 1 < cap)
				first[len++] = buf[i];
			/* A NUL ends a cut line: what follows starts afresh. */
			text = buf[i] == 0 || buf[i] == '\n' ? false : text || buf[i] != ' ';
		}
	close(fd);
	first[line ? len : 0] = 0;
	return line;
}

/* Does a file of a folder hold no process? No complete line (empty, NUL
 * bytes, a first line cut short: a process killed right after fork(), or
 * while it wrote its first line), or only the writer's trace_cut note (the
 * file could not grow even to its header: `ulimit -f`, a full disk).
 * Anything else the reader cannot take is bad input. */
static bool holds_no_process(const char *path, const char **why)
{
	static const char note[] = "{\"ev\":\"note\"";
	char first[512];

	if (!first_line_of(path, first, sizeof(first))) {
		*why = "no line: empty, or NUL bytes only";
		return true;
	}
	if (strncmp(first, note, sizeof(note) - 1) == 0 &&
	    strstr(first, "\"what\":\"" GT_NOTE_TRACE_CUT "\"")) {
		*why = "cut before its first line: the file could not grow (a file size limit, a full disk)";
		return true;
	}
	return false;
}

/* One file of a folder that holds no process (a fork child SIGKILLed before
 * it wrote a line): said, and the rest of the folder is reported; one such
 * process must not cost the whole job its report. */
static void note_unread(struct gt_report *r, const char *path, const char *why)
{
	r->unread = gt_xrealloc(r->unread, (r->nunread + 1) * sizeof(*r->unread));
	r->unread[r->nunread].path = gt_xstrdup(path);
	r->unread[r->nunread].why = gt_xstrdup(why);
	r->nunread++;
}

/* The facts file beside the traces: in the folder given, or in the folder
 * of a trace file given. */
static bool facts_of_folder(struct gt_report *r, const char *path, bool is_dir, char *err, size_t errcap)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');

	if (is_dir)
		snprintf(dir, sizeof(dir), "%s", path);
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	return gt_facts_set_read_folder(r->facts, dir, err, errcap);
}

static bool add_path(struct loading *ld, const char *path)
{
	char *err = ld->err;
	size_t errcap = ld->errcap;
	struct stat st;
	const char *why;
	char **files;
	int n, i;
	bool ok = true;

	if (stat(path, &st) != 0) {
		snprintf(err, errcap, "%s: cannot read: %s", path, strerror(errno));
		return false;
	}
	if (!facts_of_folder(ld->r, path, S_ISDIR(st.st_mode), err, errcap))
		return false;
	if (!S_ISDIR(st.st_mode))
		return add_file(ld, path, ld->more_paths);
	n = gt_list_traces(path, &files);
	if (n < 0) {
		snprintf(err, errcap, "%s: cannot list: %s", path, strerror(errno));
		return false;
	}
	if (n == 0) {
		snprintf(err, errcap, "%s: no trace files (*.jsonl) in this folder", path);
		ok = false;
	}
	for (i = 0; i < n && ok; i++) {
		if (holds_no_process(files[i], &why))
			note_unread(ld->r, files[i], why);
		else
			ok = add_file(ld, files[i], i + 1 < n || ld->more_paths);
	}
	gt_free_list(files, n);
	return ok;
}

bool gt_report_load(struct gt_report *r, char *const *paths, int npaths, char *err, size_t errcap)
{
	return gt_report_load_as(r, paths, npaths, GT_FACTS_RECORDED, err, errcap);
}

bool gt_report_load_as(struct gt_report *r, char *const *paths, int npaths, enum gt_facts_mode facts, char *err,
		       size_t errcap)
{
	struct loading ld = { .r = r, .first = gt_xmalloc(MAX_HEADER_LINE), .err = err, .errcap = errcap };
	bool ok = true;
	int i;

	memset(r, 0, sizeof(*r));
	r->facts = gt_facts_set_new(facts);
	for (i = 0; i < npaths && ok; i++) {
		ld.more_paths = i + 1 < npaths;
		ok = add_path(&ld, paths[i]);
	}
	free(ld.first);
	return ok;
}

/* The fixes' commands ask the facts too (a package record: rules/
 * fix_command.c): asked with the rules, so that the facts file written
 * beside the traces answers them for a later report elsewhere. */
static void asked_by_commands(const struct gt_findings *f)
{
	char cmd[16384];
	size_t i;

	for (i = 0; i < f->n; i++)
		gt_fix_paste(f->v[i].id, f->v[i].evidence, &f->v[i].fix_data, f->v[i].proc, cmd, sizeof(cmd));
}

void gt_report_analyse(struct gt_report *r)
{
	size_t i;

	apply_signals_sent(r);
	for (i = 0; i < r->ngroups; i++)
		gt_run_rules(&r->groups[i]->model, &r->findings);
	rule_fork_after_init_parents(r->groups, r->ngroups, &r->findings);
	rule_divergent_processes(r->groups, r->ngroups, &r->findings);
	rule_missing_ranks(r->groups, r->ngroups, &r->findings);
	/* Once every rule has matched the loader's names: what a finding says
	 * names real folders, without `..` (rules/shown_path.h, issue 28). */
	gt_findings_show_paths(&r->findings);
	asked_by_commands(&r->findings);
	/* After the rules, so that their questions count too: the tally is
	 * what the renderers say of the facts. */
	gt_facts_set_tally(r->facts, &r->facts_tally);
}

bool gt_report_save_facts(struct gt_report *r, const char *dir, char *err, size_t errcap)
{
	return gt_facts_set_write_folder(r->facts, dir, err, errcap);
}

void gt_report_free(struct gt_report *r)
{
	size_t i;

	gt_findings_free(&r->findings);
	for (i = 0; i < r->nunread; i++) {
		free(r->unread[i].path);
		free(r->unread[i].why);
	}
	free(r->unread);
	for (i = 0; i < r->nsent; i++)
		free(r->sent[i].host);
	free(r->sent);
	for (i = 0; i < r->ngroups; i++)
		group_free(r->groups[i]);
	free(r->groups);
	gt_facts_set_free(r->facts);
	host_caches_free();
	memset(r, 0, sizeof(*r));
}

int gt_report_status(const struct gt_report *r)
{
	size_t i;

	for (i = 0; i < r->findings.n; i++)
		if (r->findings.v[i].severity == GT_SEV_ERROR)
			return 1;
	return 0;
}
