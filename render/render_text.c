/* The text report: per process, its findings (evidence, fix, cause) first,
 * then one line per CUDA library. A healthy process gets the lines alone. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/failed_load.h"
#include "render/fold.h"
#include "render/render.h"
#include "render/printable.h"
#include "rules/fix_command.h"

#define RED "\033[31m"
#define YELLOW "\033[33m"
#define GREEN "\033[32m"
#define BOLD "\033[1m"
#define RESET "\033[0m"
#define MAX_TRIED_SHOWN 6

static const char *sev_color(enum gt_severity s, bool color)
{
	if (!color)
		return "";
	return s == GT_SEV_ERROR ? RED : s == GT_SEV_WARNING ? YELLOW : "";
}

void gt_describe_end(const struct gt_proc_model *m, char *out, size_t cap)
{
	if (m->stopped && m->stopped_by)
		snprintf(out, cap, "stopped: pid %ld sent it signal %d (%s)", m->stopped_by, m->ended_signal,
			 strsignal(m->ended_signal));
	else if (m->stopped)
		snprintf(out, cap, "stopped by signal %d (%s)", m->ended_signal, strsignal(m->ended_signal));
	else if (strcmp(m->ended_how, "signal") == 0)
		snprintf(out, cap, "killed by signal %d (%s)", m->ended_signal, strsignal(m->ended_signal));
	else if (strcmp(m->ended_how, "exit") == 0 && m->ended_status >= 0)
		snprintf(out, cap, "exited with status %d", m->ended_status);
	else if (strcmp(m->ended_how, "exit") == 0)
		snprintf(out, cap, "exited");
	else if (strcmp(m->ended_how, "running") == 0 && m->proc->live)
		snprintf(out, cap, "running, read from /proc without stopping it");
	else if (strcmp(m->ended_how, "running") == 0)
		snprintf(out, cap, "still running when this report was made");
	else
		snprintf(out, cap, "ended without a closing line");
}

size_t gt_tried_places(json_t *tried, struct gt_tried_place *out, size_t max)
{
	char folder[sizeof(out->folder)];
	size_t i, k, n = 0;
	json_t *t;

	json_array_foreach(tried, i, t) {
		const char *p = json_string_value(json_object_get(t, "path"));

		if (!p)
			continue;
		gt_tried_folder(p, folder, sizeof(folder));
		for (k = 0; k < n && strcmp(out[k].folder, folder) != 0; k++)
			;
		if (k < n || n == max)
			continue;
		snprintf(out[n].folder, sizeof(out[n].folder), "%s", folder);
		out[n++].rule = json_string_value(json_object_get(t, "rule"));
	}
	return n;
}

static void print_tried(FILE *f, json_t *tried)
{
	struct gt_tried_place places[32];
	size_t i, n;

	if (!json_array_size(tried))
		return;
	n = gt_tried_places(tried, places, 32);
	fprintf(f, "             searched:");
	for (i = 0; i < n; i++)
		fprintf(f, "%s %s [%s]", i ? "," : "", gt_printable(places[i].folder), places[i].rule);
	fprintf(f, " (%zu paths)\n", json_array_size(tried));
}

/* json_equal, with two missing values the same (json_equal says no). */
static bool same_json(json_t *a, json_t *b)
{
	return a == b || (a && b && json_equal(a, b));
}

/* Two evidence items say the same when they have the same words and the
 * same places: the same key, their two values as canonical JSON ("" for a
 * missing one, which no value dumps to). */
static char *evidence_key(json_t *e)
{
	char *what = json_object_get(e, "what") ? json_dumps(json_object_get(e, "what"), JSON_ENCODE_ANY |
							     JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	char *tried = json_object_get(e, "tried") ? json_dumps(json_object_get(e, "tried"), JSON_ENCODE_ANY |
							       JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	size_t n = (what ? strlen(what) : 0) + (tried ? strlen(tried) : 0) + 2;
	char *key = malloc(n);

	if (!key)
		abort();
	snprintf(key, n, "%s\x1f%s", what ? what : "", tried ? tried : "");
	free(what);
	free(tried);
	return key;
}

struct keyed {
	char *key;
	size_t at;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* For each item, the first item that says the same (itself for a first),
 * and for a first how many say the same: by a sort of the items' keys, not
 * a comparison of every pair with every other (issue 29: the evidence of
 * 20,000 copies). first and times have n entries. */
static void same_groups(json_t *evidence, size_t n, size_t *first, size_t *times)
{
	struct keyed *k = calloc(n ? n : 1, sizeof(*k));
	size_t i, run;

	if (!k)
		abort();
	for (i = 0; i < n; i++)
		k[i] = (struct keyed){ evidence_key(json_array_get(evidence, i)), i };
	qsort(k, n, sizeof(*k), by_key);
	for (i = 0; i < n; i = run) {
		for (run = i; run < n && strcmp(k[run].key, k[i].key) == 0; run++)
			first[k[run].at] = k[i].at;
		times[k[i].at] = run - i;
	}
	for (i = 0; i < n; i++)
		free(k[i].key);
	free(k);
}

/* Two evidence items alike but for one library: the same words but the
 * name of a part (at most one word without a '/', with a letter in it, so
 * that two versions never count as alike) and paths that differ only in
 * their file name, in the same folders, with the same places searched. The
 * differing word (or the first differing file name) goes into name. */
static bool alike(json_t *a, json_t *b, char *name, size_t cap)
{
	const char *sa = json_string_value(json_object_get(a, "what"));
	const char *sb = json_string_value(json_object_get(b, "what"));
	size_t na, nb, words = 0;
	int plain = 0;

	name[0] = 0;
	if (!sa || !sb || !same_json(json_object_get(a, "tried"), json_object_get(b, "tried")) ||
	    strcmp(sa, sb) == 0)
		return false;
	for (;; sa += na, sb += nb) {
		sa += strspn(sa, " ");
		sb += strspn(sb, " ");
		na = strcspn(sa, " ");
		nb = strcspn(sb, " ");
		if (!na || !nb)
			return !na && !nb && words;
		if (na == nb && strncmp(sa, sb, na) == 0)
			continue;
		words++;
		const char *sla = memrchr(sa, '/', na), *slb = memrchr(sb, '/', nb);

		if (sla && slb) {
			if (sla - sa != slb - sb || strncmp(sa, sb, (size_t)(sla - sa)) != 0)
				return false;
			if (!name[0])
				snprintf(name, cap, "%.*s", (int)(nb - (size_t)(slb - sb) - 1), slb + 1);
			continue;
		}
		if (sla || slb || plain++ || !strpbrk(sb, "abcdefghijklmnopqrstuvwxyz") ||
		    (size_t)(strpbrk(sb, "abcdefghijklmnopqrstuvwxyz") - sb) >= nb)
			return false;
		snprintf(name, cap, "%.*s", (int)nb, sb);
	}
}

/* The evidence, a repeat shown once with its count, and a run of three or
 * more items alike but for the library (cudnn_graph, _ops, _cnn ... from
 * one folder) as its first item and the others' names. */
static void evidence_lines(FILE *f, json_t *evidence)
{
	size_t i, j, n = json_array_size(evidence);
	size_t *first = calloc(n ? n : 1, sizeof(*first)), *times = calloc(n ? n : 1, sizeof(*times));
	char name[512];
	json_t *e;

	if (!first || !times)
		abort();
	same_groups(evidence, n, first, times);
	for (i = 0; i < n; i = j) {
		e = json_array_get(evidence, i);
		j = i + 1;
		if (first[i] != i)
			continue;
		fprintf(f, "           - %s", gt_printable(json_string_value(json_object_get(e, "what"))));
		if (times[i] > 1)
			fprintf(f, " (%zu times)", times[i]);
		fputc('\n', f);
		print_tried(f, json_object_get(e, "tried"));
		while (j < n && alike(e, json_array_get(evidence, j), name, sizeof(name)) && first[j] == j)
			j++;
		if (j - i < 3) {
			j = i + 1;
			continue;
		}
		fprintf(f, "           - and %zu more like it, for:", j - i - 1);
		for (size_t k = i + 1; k < j; k++) {
			alike(e, json_array_get(evidence, k), name, sizeof(name));
			fprintf(f, "%s %s", k > i + 1 ? "," : "", gt_printable(name));
		}
		fputc('\n', f);
	}
	free(first);
	free(times);
}

static void finding_lines(FILE *f, const struct gt_report *r, const struct gt_finding *x, bool color)
{
	const struct gt_group *g = x->members ? x->members : gt_group_of(x->proc);
	char who[1024], cmd[16384];
	int k;

	fprintf(f, "  %s%-7s%s  %s%s%s: %s\n", sev_color(x->severity, color), gt_severity_name(x->severity),
		color ? RESET : "", color ? BOLD : "", gt_finding_name(x->id), color ? RESET : "",
		gt_printable(x->summary));
	if (r->nprocs > 1) {
		gt_describe_members(g, who, sizeof(who));
		fprintf(f, "           on %zu of %zu processes: %s\n", g->nmembers, r->nprocs, gt_printable(who));
	}
	evidence_lines(f, x->evidence);
	if (x->ncaused) {
		fprintf(f, "           caused by:");
		for (k = 0; k < x->ncaused; k++)
			fprintf(f, "%s %s", k ? "," : "", gt_finding_name(x->caused_by[k]));
		fputc('\n', f);
	}
	fprintf(f, "           fix: %s\n", gt_printable(x->fix));
	/* shell-quoted, never through gt_printable (no \x0a in a command) */
	if (gt_fix_paste(x->id, x->evidence, &x->fix_data, x->proc, cmd, sizeof(cmd)))
		fprintf(f, "           run: %s\n", cmd);
	else if (cmd[0])
		fprintf(f, "           no command: %s\n", gt_printable(cmd));
}

void gt_render_finding(FILE *f, const struct gt_report *r, const struct gt_finding *x, bool color)
{
	struct gt_fold fb;

	finding_lines(gt_fold_open(&fb), r, x, color);
	gt_fold_close(&fb, f);
}

static void print_lib(FILE *f, const struct gt_lib *l, const char *indent)
{

	fprintf(f, "%s%-30s %-10s %s [%s]", indent, gt_printable(l->fi.component),
		gt_printable(l->version[0] ? l->version : "?"), gt_printable(l->obj->path),
		l->found_by != GT_RULE_NONE ? gt_rule_name(l->found_by) : "?");
	if (strcmp(l->version_source, "api") == 0 && l->api_from && strcmp(l->api_from, l->obj->path) != 0)
		fprintf(f, " (its answer, through %s)", gt_printable(gt_base_name(l->api_from)));
	else if (strcmp(l->version_source, "api") == 0)
		fprintf(f, " (its own answer)");
	if (l->has_package)
		fprintf(f, " %s:%s %s", l->package.manager, gt_printable(l->package.name),
			gt_printable(l->package.version));
	if (l->disagree)
		fprintf(f, " (versions disagree: answer %s, file name %s, package %s)",
			gt_printable(l->api_version[0] ? l->api_version : "none"),
			gt_printable(l->file_version[0] ? l->file_version : "none"),
			gt_printable(l->package_version[0] ? l->package_version : "none"));
	fputc('\n', f);
}

/* Families held in one copy are listed in load order; a family with several
 * copies is listed copy by copy, each under a line that says where it is,
 * who uses it and whether its symbols are visible to the whole process. */
static void print_libs(FILE *f, const struct gt_proc_model *m)
{
	size_t i, k;

	for (i = 0; i < m->nlibs; i++)
		if (m->copies[m->libs[i].copy].family_copies < 2)
			print_lib(f, &m->libs[i], "    ");
	for (k = 0; k < m->ncopies; k++) {
		const struct gt_copy *c = &m->copies[k];
		size_t n = (size_t)c->family_copies;

		if (n < 2)
			continue;
		fprintf(f, "    %s copy %d of %zu, in %s%s%s; %s\n", c->family, c->number, n,
			gt_printable(c->folder), c->users[0] ? ", used by " : "", gt_printable(c->users),
			c->global ? "in the global scope" : c->ns ? "in its own namespace" : "private to its users");
		for (i = 0; i < c->nparts; i++)
			print_lib(f, &m->libs[c->parts[i]], "      ");
	}
}

/* What failed, in a few words: how it ended when that was the failure, else
 * the first CUDA call that returned an error. */
static void failure_words(const struct gt_proc_model *m, const char *end, char *out, size_t cap)
{
	const struct gt_process *p = m->proc;
	size_t i;

	if (strcmp(m->ended_how, "signal") == 0 || m->stopped || (strcmp(m->ended_how, "exit") == 0 && m->ended_status > 0)) {
		snprintf(out, cap, "the process %s", end);
		return;
	}
	for (i = 0; i < p->ncalls; i++)
		if (p->calls[i].status != 0) {
			snprintf(out, cap, "%s returned %d %s", p->calls[i].fn, p->calls[i].status,
				 p->calls[i].status_name ? p->calls[i].status_name : "");
			return;
		}
	for (i = 0; i < p->ntotals; i++)
		if (p->totals[i].status != 0) {
			snprintf(out, cap, "%s returned %d %s", p->totals[i].fn, p->totals[i].status,
				 p->totals[i].status_name ? p->totals[i].status_name : "");
			return;
		}
	snprintf(out, cap, "the process %s", end);
}

/* Loads the loader undid, each with every object it had mapped: they are
 * not among the libraries listed, since none of them stayed. */
static void print_failed_loads(FILE *f, const struct gt_proc_model *m)
{
	size_t i, k;

	for (i = 0; i < m->nfailed; i++) {
		const struct gt_failed_load *fl = &m->failed[i];

		fprintf(f, "    failed load: %s", gt_printable(fl->name));
		if (fl->at_startup)
			fprintf(f, " at start-up: the loader gave up (exit 127); it had mapped:\n");
		else
			fprintf(f, " (asked by %s), undone by the loader; it had mapped:\n",
				gt_printable(fl->requester ? fl->requester : "?"));
		for (k = 0; k < fl->nobjects; k++) {
			const struct gt_failed_object *fo = &fl->objects[k];

			fprintf(f, "      %-28s %-10s %s [%s]\n", gt_printable(fo->family ? fo->family : "-"),
				gt_printable(fo->version[0] ? fo->version : "?"), gt_printable(fo->obj->path),
				fo->found_by != GT_RULE_NONE ? gt_rule_name(fo->found_by) : "?");
		}
	}
}

static void print_process(FILE *f, const struct gt_report *r, const struct gt_proc_model *m, bool color)
{
	const struct gt_process *p = m->proc;
	const struct gt_group *g = gt_group_of(m);
	char end[128], who[1024], failure[512];
	size_t i;
	int shown = 0, shown_errors = 0;

	gt_describe_end(m, end, sizeof(end));
	gt_describe_members(g, who, sizeof(who));
	if (g->nmembers > 1)
		fprintf(f, "%zu processes like pid %ld %s (%s): %s\n", g->nmembers, p->pid,
			gt_printable(p->argc ? p->argv[0] : (p->exe ? p->exe : "?")), gt_printable(who), end);
	else
		fprintf(f, "pid %ld %s (%s): %s\n", p->pid,
			gt_printable(p->argc ? p->argv[0] : (p->exe ? p->exe : "?")), gt_printable(who), end);
	/* A fork child's audit half is there but writes only when it loads. */
	if (p->live)
		fprintf(f, "  (a live process: the files it has mapped now, no search trail, no CUDA call seen)\n");
	else if (!p->audit_seen && !p->forked)
		fprintf(f, "  (LD_PRELOAD alone: libraries from the exit listing, no search trail)\n");
	/* The command adapted the run to a sanitizer (cmd/checkers.c). */
	if (gt_process_env(p, "GPUTRACE_MODE"))
		fprintf(f, "  (GPUTRACE_MODE=%s: run adapted to a sanitizer, see gputrace(1))\n",
			gt_printable(gt_process_env(p, "GPUTRACE_MODE")));
	if (p->cut_reason)
		fprintf(f, "  the trace was cut (%s): its file system had no room for more; what the "
			"process did after that is missing\n", gt_printable(p->cut_reason));
	if (p->last_line_cut)
		fprintf(f, "  the trace's last line is cut off (a full disk as it was written, or a "
			"file cut short): what it said is missing\n");
	if (p->cut_lines)
		fprintf(f, "  %lu line%s cut short (the process was killed as it wrote them) left out\n",
			p->cut_lines, p->cut_lines == 1 ? "" : "s");
	for (i = 0; i < r->findings.n; i++)
		if (r->findings.v[i].proc == m) {
			finding_lines(f, r, &r->findings.v[i], color);
			shown++;
			shown_errors += r->findings.v[i].severity == GT_SEV_ERROR;
		}
	/* A process that failed is never all clear: what was seen, and that the
	 * trace holds no cause (warnings and notes are not one). */
	if (!shown_errors && gt_model_failed(m)) {
		failure_words(m, end, failure, sizeof(failure));
		fprintf(f, "  no cause found: %s, and the trace shows no CUDA library problem "
			"(%zu CUDA librar%s, consistent)\n", gt_printable(failure), m->nlibs, m->nlibs == 1 ? "y" : "ies");
	}
	else if (!shown && m->nlibs && p->live)
		/* read live: the findings that need a run are not judged (inspect lists them) */
		fprintf(f, "  no problem in what is loaded: %zu CUDA librar%s, consistent\n", m->nlibs,
			m->nlibs == 1 ? "y" : "ies");
	else if (!shown && m->nlibs)
		fprintf(f, "  %sall clear%s: %zu CUDA librar%s, consistent\n", color ? GREEN : "",
			color ? RESET : "", m->nlibs, m->nlibs == 1 ? "y" : "ies");
	print_libs(f, m);
	print_failed_loads(f, m);
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].cudart_static)
			fprintf(f, "    %-30s %-10s %s (linked in statically: its runtime calls are not "
				"visible)\n", "cudart", "static", gt_printable(p->objects[i].path));
}

/* The tool whose helper a process is, from its first words: pyenv's shims
 * and libexec scripts, conda's command; NULL for anything else. */
static const char *shim_tool(const char *command)
{
	const char *w;

	if (!command)
		return NULL;
	if (strstr(command, "/.pyenv/") || strstr(command, "/libexec/pyenv") || strstr(command, "/shims/"))
		return "pyenv";
	for (w = command; (w = strstr(w, "conda")) != NULL; w += 5)
		if (w > command && (w[-1] == '/') && (w[5] == 0 || w[5] == ' '))
			return "conda";
	return NULL;
}

static bool quiet_group(const struct gt_report *r, const struct gt_group *g)
{
	const struct gt_proc_model *m = &g->model;
	size_t k;

	for (k = 0; k < r->findings.n; k++)
		if (r->findings.v[k].proc == m)
			return false;
	/* a process that failed is never folded into "nothing to report": its
	 * block says how it ended, and that no CUDA library was loaded */
	return !m->nlibs && !m->proc->cut_reason && !m->proc->cut_lines && !m->proc->last_line_cut &&
	       !gt_model_failed(m);
}

/* Whether member x is a helper: a shim's own process, or a child of one
 * (the cat, sed and bash subshells pyenv's scripts start). */
static bool is_helper(const struct gt_report *r, const struct gt_member *x, int depth)
{
	size_t i, k;

	if (shim_tool(x->command))
		return true;
	for (i = 0; depth < 16 && i < r->ngroups; i++) {
		if (!quiet_group(r, r->groups[i]))
			continue;
		for (k = 0; k < r->groups[i]->nmembers; k++) {
			const struct gt_member *y = &r->groups[i]->members[k];

			if (y->pid == x->ppid && strcmp(y->host, x->host) == 0)
				return is_helper(r, y, depth + 1);
		}
	}
	return false;
}

/* The processes with nothing to report, in one line; the helpers of a
 * pyenv shim or of conda (dozens of bash, cat and sed processes that chose
 * the interpreter) folded into one line of their own (issue 30). */
static void quiet_lines(FILE *f, const struct gt_report *r)
{
	size_t i, k, quiet = 0, helpers = 0;
	const char *tool = NULL;
	bool any_shim = false;

	/* the search for a helper's parents only where a shim ran: a folder of
	 * thousands of quiet processes costs one pass */
	for (i = 0; i < r->ngroups && !any_shim; i++)
		for (k = 0; k < r->groups[i]->nmembers && !any_shim; k++)
			any_shim = shim_tool(r->groups[i]->members[k].command) != NULL;
	for (i = 0; i < r->ngroups; i++) {
		if (!quiet_group(r, r->groups[i]))
			continue;
		for (k = 0; k < r->groups[i]->nmembers; k++) {
			const struct gt_member *x = &r->groups[i]->members[k];

			quiet++;
			if (any_shim && is_helper(r, x, 0)) {
				helpers++;
				if (!tool)
					tool = shim_tool(x->command);
			}
		}
	}
	if (helpers)
		fprintf(f, "%s's shim: %zu helper process%s that chose the interpreter (no CUDA library)\n",
			tool ? tool : "a", helpers, helpers == 1 ? "" : "es");
	if (quiet > helpers)
		fprintf(f, "%zu %sprocess%s loaded no CUDA library and had nothing to report\n", quiet - helpers,
			helpers ? "other " : "", quiet - helpers == 1 ? "" : "es");
}

/* Findings about files rest on the host's answers: said when some are
 * missing, or came from this host for traces of another. */
static void say_facts(FILE *f, const struct gt_facts_tally *t)
{
	if (t->unanswered)
		fprintf(f, "facts: %zu question%s about the traced host's files not answered by its facts file "
			"(" GT_FACTS_FILE "): findings that need them may be missing\n", t->unanswered,
			t->unanswered == 1 ? "" : "s");
	if (t->elsewhere)
		fprintf(f, "facts: no facts file for a traced host: its files were read on this host instead\n");
}

/* The verdict in words, after the counts: what a newcomer reads first. */
static void verdict_words(FILE *f, const struct gt_report *r, size_t errors, size_t warnings)
{
	enum gt_severity want = errors ? GT_SEV_ERROR : GT_SEV_WARNING;
	size_t i, k, shown = 0, libs = 0;
	bool failed = false;

	for (i = 0; i < r->ngroups; i++) {
		failed |= gt_model_failed(&r->groups[i]->model);
		libs += r->groups[i]->model.nlibs;
	}
	if (errors || warnings) {
		/* "works" only of a run that worked: a failed one with warnings
		 * only has no certain cause (the brief: never all clear). */
		fprintf(f, ": %s (", errors ? "NOT OK" : failed ? "a process failed; no certain CUDA library "
			"cause, warnings" : "works, with warnings");
		for (i = 0; i < r->findings.n; i++) {
			const struct gt_finding *x = &r->findings.v[i];

			for (k = 0; k < i && (r->findings.v[k].id != x->id || r->findings.v[k].severity != want); k++)
				;
			if (x->severity != want || k < i)
				continue;
			fprintf(f, "%s%s", shown++ ? ", " : "", gt_finding_name(x->id));
		}
		fputs(")\n", f);
	} else if (failed)
		fputs(": a process failed, and the traces show no CUDA library cause\n", f);
	else if (!libs)
		fputs(": no CUDA library was loaded\n", f);
	else if (r->ngroups == 1 && r->groups[0]->model.proc->live)
		fputs(": no problem in what it has loaded (a live process: what needs a run is not judged)\n", f);
	else
		fputs(": all clear\n", f);
}

static void report_lines(FILE *f, const struct gt_report *r, bool color)
{
	size_t i, errors = 0, warnings = 0;

	for (i = 0; i < r->findings.n; i++) {
		errors += r->findings.v[i].severity == GT_SEV_ERROR;
		warnings += r->findings.v[i].severity == GT_SEV_WARNING;
	}
	fprintf(f, "gputrace report: %zu process%s, %zu error%s, %zu warning%s", r->nprocs,
		r->nprocs == 1 ? "" : "es", errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
	verdict_words(f, r, errors, warnings);
	/* A cut trace is said even without CUDA (quiet_group): its end is missing. */
	for (i = 0; i < r->ngroups; i++)
		if (!quiet_group(r, r->groups[i]))
			print_process(f, r, &r->groups[i]->model, color);
	quiet_lines(f, r);
	for (i = 0; i < r->nunread; i++)
		fprintf(f, "left no trace: %s (%s): a process killed before it wrote its first line, "
			"or not a trace\n", gt_printable(r->unread[i].path), gt_printable(r->unread[i].why));
	say_facts(f, &r->facts_tally);
}

/* Folded to 100 columns, paths without `..` (render/fold.h). */
void gt_render_text(FILE *f, const struct gt_report *r, bool color)
{
	struct gt_fold fb;

	report_lines(gt_fold_open(&fb), r, color);
	gt_fold_close(&fb, f);
}
