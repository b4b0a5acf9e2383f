/* `gputrace scan --for FILE` judged by the same rules as a trace: the
 * loader's work on paper (host/scan_for.h) is written as the trace the
 * audit half would have written for that program's start (its searches,
 * with every place tried, the objects opened, the loader's exit 127 when a
 * name it needs is missing), read by the trace reader and judged by the
 * rules with this host's facts. One finding id means one thing in a trace
 * and in a scan.
 *
 * Paper has no run: no CUDA call, no device, no crash. The findings that
 * rest on those (init-failed, out-of-memory, no-device, crashed ...) do not
 * come; the ones that rest on the files and the loader's choices do. */
#ifndef GPUTRACE_PAPER_H
#define GPUTRACE_PAPER_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "host/scan_for.h"
#include "report/report.h"

/* The report of fr's program on paper: one process, judged. False, with a
 * one-line reason in err, when the paper trace cannot be made or read;
 * always call gt_report_free. */
bool gt_report_on_paper(struct gt_report *r, const struct host_scan_for *fr, char *err, size_t errcap);

/* r made from a trace that write(f, data) writes into a memory file (paper's
 * or a live process's), loaded and analysed against this host; false (and
 * err, what naming the trace) when it cannot be. Shared by scan --for and
 * inspect. */
bool gt_report_of_written_trace(struct gt_report *r, const char *what,
				bool (*write)(FILE *f, const void *data), const void *data, char *err, size_t errcap);
/* The findings of fr's program on paper, appended to out: what `scan --for`
 * says (the scan's own --for rules only when paper cannot be read). */
void gt_scan_for_findings(const struct host_scan_for *fr, struct gt_findings *out);

#endif
