/* crashed: the process was killed by a signal (its own handler saw it, or
 * the launcher reaped it so). Where the preload half caught it, the stack
 * says where: the library the crash happened in, its copy (folder, package,
 * version), the function, the libraries that called it, whether those
 * frames cross two releases of one family (then mixed-versions or
 * duplicate-library is the cause) and a load that failed just before.
 * Without a stack, the last CUDA libraries it loaded, with versions, are the
 * first suspects. An end that is not known (no end line, nobody saw a
 * signal) is never a crash: end-unknown, info. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "read/crash_frames.h"
#include "read/failed_load.h"
#include "rules/rules.h"

#define LAST_LIBS 3
/* Callers shown: the objects after the crashing one, each once in a row. */
#define CALLERS_SHOWN 4

/* gputrace's own library is in every traced process: never a suspect. */
static bool is_gputrace(const char *path)
{
	const char *base = strrchr(path, '/');

	return strncmp(base ? base + 1 : path, "libgputrace", 11) == 0;
}

/* Signals that end a healthy process: its reader closed the pipe (`yes |
 * head -n 1`). Not a crash, and nothing to report. */
static bool normal_end_signal(int sig)
{
	return sig == SIGPIPE;
}

/* No end line and no reaped line: the process left without exit() or _exit
 * (exit_group called directly, SIGKILL or SIGPIPE, which no handler sees,
 * an exec whose environment dropped the tracer). That is not a crash: it is
 * said, as info, once per group of like processes. */
static void end_unknown(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	struct gt_finding *f;
	json_t *e;

	f = gt_finding_add(out, GT_F_END_UNKNOWN, GT_SEV_INFO, m,
			   "Nothing to do unless this process was expected to finish its work: run it "
			   "under gputrace directly (gputrace CMD) to see how it ends.",
			   "the process left no end line: it ended without exit() or _exit (a signal no "
			   "handler sees such as SIGKILL or SIGPIPE, exit_group called directly, or an "
			   "exec that dropped the tracer from its environment)");
	e = gt_evidence_add(f, "pid %ld (%s): no end line in its trace, no fatal-signal note, and "
			    "not reaped by the gputrace command", p->pid,
			    p->argc ? p->argv[0] : (p->exe ? p->exe : "?"));
	gt_evidence_int(e, "pid", p->pid);
	gt_evidence_str(e, "exe", p->exe);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The C library and the loader: where abort() and raise() run and where a
 * bad argument faults (memcpy), not where the crash comes from. */
static bool is_runtime(const char *path)
{
	const char *b = base_name(path);

	return strncmp(b, "libc.so", 7) == 0 || strncmp(b, "libc-", 5) == 0 ||
	       strncmp(b, "ld-linux", 8) == 0 || strncmp(b, "libpthread", 10) == 0 || is_gputrace(path);
}

/* The frame the crash is said to be in: the first outside the C library
 * (abort, raise, a memcpy given a bad pointer), else the first. */
static size_t crash_frame(const struct gt_proc_model *m)
{
	size_t i;

	for (i = 0; i < m->nframes; i++)
		if (m->frames[i].path && !is_runtime(m->frames[i].path))
			return i;
	return 0;
}

/* "libcudnn_graph.so.9.14.0 (fake_cudnn_graph_execute+0x4)" */
static void frame_name(const struct gt_crash_frame *cf, char *out, size_t cap)
{
	if (!cf->path)
		snprintf(out, cap, "code no loaded object holds (0x%llx)", cf->frame->off);
	else if (cf->symbol[0])
		snprintf(out, cap, "%s (%s+0x%llx)", base_name(cf->path), cf->symbol, cf->symbol_off);
	else
		snprintf(out, cap, "%s (+0x%llx)", base_name(cf->path), cf->frame->off);
}

/* Where the frame's file came from: folder, package, version, copy. */
static void frame_copy(const struct gt_proc_model *m, const struct gt_crash_frame *cf, char *out,
		       size_t cap)
{
	const char *slash = cf->path ? strrchr(cf->path, '/') : NULL;
	int folder_len = slash ? (int)(slash - cf->path) : 0;
	char pkg[256] = "";

	if (cf->has_package)
		snprintf(pkg, sizeof(pkg), ", %s package %s %s", cf->package.manager, cf->package.name,
			 cf->package.version);
	if (cf->frame->main)
		snprintf(out, cap, "the program itself%s", pkg);
	else if (cf->lib && gt_model_copies_of(m, cf->lib->fi.family) > 1)
		snprintf(out, cap, "in %.*s: %s %s%s, copy %d of %s", folder_len, cf->path,
			 cf->lib->fi.family, cf->lib->version[0] ? cf->lib->version : "(version unknown)",
			 pkg, m->copies[cf->lib->copy].number, cf->lib->fi.family);
	else if (cf->lib)
		snprintf(out, cap, "in %.*s: %s %s%s", folder_len, cf->path, cf->lib->fi.family,
			 cf->lib->version[0] ? cf->lib->version : "(version unknown)", pkg);
	else
		snprintf(out, cap, "in %.*s%s", folder_len, cf->path ? cf->path : "", pkg);
}

/* role: "signal" (the C library's frame the signal came in), "crashed"
 * (the frame the crash is said to be in) or "caller". */
static json_t *frame_evidence(struct gt_finding *f, const struct gt_proc_model *m,
			      const struct gt_crash_frame *cf, const char *role)
{
	char name[512], copy[5120];
	json_t *e;

	frame_name(cf, name, sizeof(name));
	frame_copy(m, cf, copy, sizeof(copy));
	e = gt_evidence_add(f, "%s %s, %s",
			    strcmp(role, "signal") == 0 ? "the signal came in" :
			    strcmp(role, "crashed") == 0 ? "crashed in" : "called from", name, copy);
	gt_evidence_str(e, "role", role);
	gt_evidence_str(e, "path", cf->path);
	gt_evidence_int(e, "offset", (long long)cf->frame->off);
	if (cf->symbol[0])
		gt_evidence_str(e, "symbol", cf->symbol);
	if (cf->lib)
		gt_evidence_lib(e, cf->lib);
	if (cf->has_package) {
		gt_evidence_str(e, "package", cf->package.name);
		gt_evidence_str(e, "package_version", cf->package.version);
	}
	return e;
}

/* The callers, shortened: one line per object in a row, the C library's
 * start-up frames and gputrace's own left out. */
static void add_callers(struct gt_finding *f, const struct gt_proc_model *m, size_t at)
{
	const char *last = m->frames[at].path;
	size_t i, shown = 0;

	for (i = at + 1; i < m->nframes && shown < CALLERS_SHOWN; i++) {
		const struct gt_crash_frame *cf = &m->frames[i];

		if ((cf->path && last && strcmp(cf->path, last) == 0) || (cf->path && is_runtime(cf->path)))
			continue;
		last = cf->path;
		frame_evidence(f, m, cf, "caller");
		shown++;
	}
}

/* Two frames' libraries of one family from different releases: the stack
 * runs from one install into another. */
static bool frames_cross_releases(const struct gt_proc_model *m, const struct gt_lib **a,
				  const struct gt_lib **b)
{
	size_t i, k;

	for (i = 0; i < m->nframes; i++)
		for (k = i + 1; k < m->nframes; k++) {
			const struct gt_lib *x = m->frames[i].lib, *y = m->frames[k].lib;

			if (x && y && strcmp(x->fi.family, y->fi.family) == 0 && x->version[0] &&
			    y->version[0] && !gt_same_release(x->version, y->version)) {
				*a = x;
				*b = y;
				return true;
			}
		}
	return false;
}

static void add_cause(struct gt_finding *f, enum gt_finding_id id)
{
	if (f->ncaused < GT_MAX_CAUSES)
		f->caused_by[f->ncaused++] = id;
}

static void say_crossing(struct gt_finding *f, const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_lib *a, *b;
	json_t *e;

	if (!frames_cross_releases(m, &a, &b))
		return;
	e = gt_evidence_add(f, "the stack crosses two releases of %s: %s %s (%s) and %s %s (%s)",
			    a->fi.family, a->fi.component, a->version, a->obj->path, b->fi.component,
			    b->version, b->obj->path);
	gt_evidence_str(e, "family", a->fi.family);
	gt_evidence_str(e, "path", a->obj->path);
	gt_evidence_str(e, "other_path", b->obj->path);
	if (a->copy == b->copy && gt_findings_find(out, GT_F_MIXED_VERSIONS, m))
		add_cause(f, GT_F_MIXED_VERSIONS);
	else if (gt_findings_find(out, GT_F_DUPLICATE_LIBRARY, m))
		add_cause(f, GT_F_DUPLICATE_LIBRARY);
	else if (gt_findings_find(out, GT_F_MIXED_VERSIONS, m))
		add_cause(f, GT_F_MIXED_VERSIONS);
}

/* A name that was one of several tried for a library the process has:
 * cuDNN 9 asks for libcudnn_graph.so.9.19 (not found, normal) once its
 * libcudnn_graph.so.9 is loaded, and on the H200 that probe was the last
 * search before a crash in cuBLAS. Such a miss is no failed load. */
static bool probe_of_a_loaded_library(const struct gt_proc_model *m, const struct gt_search *s)
{
	struct gt_family_info want;
	size_t i;

	if (!s->name || !gt_classify(s->name, &want))
		return false;
	for (i = 0; i < m->nlibs; i++)
		if (strcmp(m->libs[i].fi.component, want.component) == 0 &&
		    gt_version_major(m->libs[i].file_version) == gt_version_major(want.version))
			return true;
	return false;
}

/* The program's last search before the crash, when it found nothing: the
 * crash came right after a load that failed. */
static const struct gt_search *failed_just_before(const struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	const struct gt_search *last = NULL;
	size_t i;

	for (i = 0; i < p->nsearches; i++) {
		const struct gt_search *s = &p->searches[i];

		if (s->ours || !s->t_us || s->t_us > p->crash->t_us)
			continue;
		if (!last || s->t_us >= last->t_us)
			last = s;
	}
	if (!last)
		return NULL;
	if (last->result && strcmp(last->result, GT_RESULT_NOT_FOUND) == 0)
		return probe_of_a_loaded_library(m, last) ? NULL : last;
	for (i = 0; i < m->nfailed; i++)
		if (m->failed[i].name && last->name && strcmp(m->failed[i].name, last->name) == 0)
			return last;
	return NULL;
}

static const struct gt_search *say_failed_load(struct gt_finding *f, const struct gt_proc_model *m,
					       struct gt_findings *out)
{
	const struct gt_search *s;
	json_t *e;

	if (!m->proc->crash || !m->proc->crash->t_us || !(s = failed_just_before(m)))
		return NULL;
	e = gt_evidence_add(f, "right before the crash, the load of %s%s%s failed%s", s->name,
			    s->requester ? " asked by " : "", s->requester ? s->requester : "",
			    s->result && strcmp(s->result, GT_RESULT_NOT_FOUND) == 0 ? " (not found)" : "");
	gt_evidence_str(e, "name", s->name);
	gt_evidence_str(e, "requester", s->requester);
	if (gt_findings_find(out, GT_F_LIBRARY_NOT_FOUND, m))
		add_cause(f, GT_F_LIBRARY_NOT_FOUND);
	if (gt_findings_find(out, GT_F_MISSING_SYMBOL, m))
		add_cause(f, GT_F_MISSING_SYMBOL);
	return s;
}

/* The signal's own details: the faulting address, or who sent it. */
static void say_signal(struct gt_finding *f, const struct gt_crash *c)
{
	json_t *e;

	if (c->has_addr)
		e = gt_evidence_add(f, "signal %d, code %d, at address 0x%llx", c->signal, c->code, c->addr);
	else if (c->sender >= 0)
		e = gt_evidence_add(f, "signal %d, code %d, sent by pid %ld%s", c->signal, c->code, c->sender,
				    c->code <= 0 ? " (itself: raise or abort)" : "");
	else
		e = gt_evidence_add(f, "signal %d, code %d", c->signal, c->code);
	gt_evidence_int(e, "signal", c->signal);
	gt_evidence_int(e, "code", c->code);
	if (c->has_addr)
		gt_evidence_int(e, "addr", (long long)c->addr);
	if (c->sender >= 0)
		gt_evidence_int(e, "sender", c->sender);
}

/* The CUDA libraries loaded last, newest first; else any library. */
static void add_last_loaded(struct gt_finding *f, const struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	size_t i, shown = 0;
	json_t *e;

	for (i = p->nobjects; i-- > 0 && shown < LAST_LIBS;) {
		const struct gt_object *ob = &p->objects[i];
		struct gt_family_info fi;

		if (!ob->path || ob->path[0] != '/' || (m->nlibs && !gt_classify(ob->path, &fi)) ||
		    is_gputrace(ob->path))
			continue;
		e = gt_evidence_add(f, "loaded before the end: %s", ob->path);
		gt_evidence_str(e, "path", ob->path);
		gt_evidence_str(e, "rule", gt_rule_name_or_null(ob->rule));
		shown++;
	}
}

static bool stack_in_a_cuda_library(const struct gt_proc_model *m)
{
	size_t i;

	for (i = 0; i < m->nframes; i++)
		if (m->frames[i].lib)
			return true;
	return false;
}

/* With the stack: where, in which copy, called by whom, and why. */
static void crashed_with_stack(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_crash *c = m->proc->crash;
	size_t at = crash_frame(m);
	const struct gt_crash_frame *cf = &m->frames[at];
	char where[512], copy[5120];
	const struct gt_search *failed;
	struct gt_finding *f;

	frame_name(cf, where, sizeof(where));
	frame_copy(m, cf, copy, sizeof(copy));
	f = gt_finding_add(out, GT_F_CRASHED, GT_SEV_ERROR, m,
			   c->signal == SIGABRT ?
			   "The library gave up (abort): its own message, on the program's standard "
			   "error, says why; check its copy against what its caller was built for." :
			   "Check the crashing library's copy against its caller's: both should come "
			   "from one install of one release (the frames below say which files).",
			   "the process was killed by signal %d (%s) in %s", c->signal, strsignal(c->signal),
			   where);
	say_signal(f, c);
	if (at > 0)
		frame_evidence(f, m, &m->frames[0], "signal");
	frame_evidence(f, m, cf, "crashed");
	add_callers(f, m, at);
	say_crossing(f, m, out);
	failed = say_failed_load(f, m, out);
	if (c->truncated || c->unwind_stopped) {
		json_t *e = gt_evidence_add(f, "the stack is cut: %s", c->unwind_stopped ?
					    "the unwinder could not read past a frame" : "deeper frames were left out");

		gt_evidence_str(e, "cut", c->unwind_stopped ? "unwind" : "depth");
	}
	/* A stack through no CUDA library: those loaded last are still the
	 * first suspects of a CUDA program's crash. */
	if (m->nlibs && !stack_in_a_cuda_library(m))
		add_last_loaded(f, m);
	if (f->ncaused) {
		free(f->fix);
		f->fix = gt_xstrdup("Fix what it is caused by (above): the crash is how that shows.");
	} else if (failed) {
		free(f->fix);
		f->fix = gt_xasprintf("Make %s loadable where %s looks for it (install it, or add its folder "
				     "to the search path): the crash follows from that load's failure.",
				      failed->name, failed->requester ? base_name(failed->requester) : "the program");
	}
}

void rule_crashed(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	struct gt_finding *f;
	json_t *e;

	/* SIGINT, SIGTERM, SIGHUP: stopped by a user, a launcher or a pool,
	 * not a crash (the report says "stopped by signal N"). */
	if (strcmp(m->ended_how, "exit") == 0 || strcmp(m->ended_how, "running") == 0 || m->stopped)
		return;
	/* A trace cut for want of room lost its closing line with the rest:
	 * that says nothing about how the process ended. */
	if (strcmp(m->ended_how, "unknown") == 0 && p->cut_reason)
		return;
	/* A fork child that never exec'd and left by a path no hook sees (a
	 * worker killed by its pool): how worker processes end. */
	if (strcmp(m->ended_how, "unknown") == 0 && p->forked && p->images == 1)
		return;
	if (strcmp(m->ended_how, "unknown") == 0) {
		end_unknown(m, out);
		return;
	}
	if (normal_end_signal(m->ended_signal))
		return;
	/* The stack of the signal that ended it (a crash line of another
	 * signal, caught and survived by a handler the program put over ours,
	 * says nothing of this end). */
	if (m->nframes && p->crash->signal == m->ended_signal) {
		crashed_with_stack(m, out);
		return;
	}
	f = gt_finding_add(out, GT_F_CRASHED, GT_SEV_ERROR, m,
			   "Look at the last libraries loaded below first: run the program under "
			   "gdb for the backtrace, and check their versions against what the "
			   "framework was built for.",
			   "the process was killed by signal %d (%s)", m->ended_signal,
			   strsignal(m->ended_signal));
	if (m->ended_signal) {
		e = gt_evidence_add(f, "ended by signal %d", m->ended_signal);
		gt_evidence_int(e, "signal", m->ended_signal);
	}
	add_last_loaded(f, m);
}
