/* crashed: the process died without exiting: a signal, or no closing line.
 * The last CUDA libraries it loaded, with versions, are the first suspects. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "report/rules.h"

#define LAST_LIBS 3

/* gputrace's own library is in every traced process: never a suspect. */
static bool is_gputrace(const char *path)
{
	const char *base = strrchr(path, '/');

	return strncmp(base ? base + 1 : path, "libgputrace", 11) == 0;
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
	/* A fork child that never exec'd ends with _exit as worker processes do
	 * (Python's multiprocessing): no closing line is expected of it. */
	if (strcmp(m->ended_how, "unknown") == 0 && p->forked && p->images == 1)
		return;
	/* A trace cut for want of room lost its closing line with the rest:
	 * that says nothing about how the process ended. */
	if (strcmp(m->ended_how, "unknown") == 0 && p->cut_reason)
		return;
	if (strcmp(m->ended_how, "signal") == 0)
		f = gt_finding_add(out, "crashed", GT_SEV_ERROR, m,
				   "Look at the last libraries loaded below first: run the program under "
				   "gdb for the backtrace, and check their versions against what the "
				   "framework was built for.",
				   "the process was killed by signal %d (%s)", m->ended_signal,
				   strsignal(m->ended_signal));
	else
		f = gt_finding_add(out, "crashed", GT_SEV_ERROR, m,
				   "The trace has no closing line: the process was killed, crashed before "
				   "its handlers ran, or called _exit. Run it again under gputrace directly "
				   "to see how it ends.",
				   "the process ended without exiting normally");
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
