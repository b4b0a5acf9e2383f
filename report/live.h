/* `gputrace inspect PID` judged by the same rules as a trace: a running
 * process read from /proc (host/proc_live.h) is written as a trace whose
 * header says "live" and whose lines are the objects it has mapped now,
 * read by the trace reader and judged with this host's facts, as
 * report/paper.h does for scan --for.
 *
 * A live process has no search trail, no CUDA call seen and no end: the
 * findings that rest on those cannot come, and gt_live_not_judged names
 * them with the reason, so that a clean inspection is never read as "all
 * clear" for them. */
#ifndef GPUTRACE_LIVE_H
#define GPUTRACE_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "host/proc_live.h"
#include "report/report.h"

/* A finding id the rules cannot judge from a live process, and why. */
struct gt_live_unjudged {
	enum gt_finding_id id;
	const char *why;
};

/* The report of process lv as it runs: one process, judged. False, with a
 * one-line reason in err, when its trace cannot be made or read; always
 * call gt_report_free. */
bool gt_report_live(struct gt_report *r, const struct host_live *lv, char *err, size_t errcap);
/* The finding ids not judged from a live process: *n of them, the ones
 * with the same reason next to each other. */
const struct gt_live_unjudged *gt_live_not_judged(size_t *n);

#endif
