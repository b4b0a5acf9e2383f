/* The report as GitHub Markdown (render_markdown.c): what gputrace bundle
 * writes as SUMMARY.md, ready to paste into an issue. */
#ifndef GPUTRACE_RENDER_MARKDOWN_H
#define GPUTRACE_RENDER_MARKDOWN_H

#include <stdio.h>

#include "report/report.h"

/* Verdict, findings with evidence and fixes, libraries, processes, host
 * facts; text_report (the text report, or NULL) in a folded <details>. */
void gt_render_markdown(FILE *f, const struct gt_report *r, const char *text_report);

#endif
