/* crashed: the process was killed by a signal (its own handler saw it, or
 * the launcher reaped it so). The last CUDA libraries it loaded, with
 * versions, are the first suspects. An end that is not known (no end line,
 * nobody saw a signal) is never a crash: end-unknown, info. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "rules/rules.h"

#define LAST_LIBS 3

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

void rule_crashed(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	struct gt_finding *f;
	size_t i, shown = 0;
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
	/* The CUDA libraries loaded last, newest first; else any library. */
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
