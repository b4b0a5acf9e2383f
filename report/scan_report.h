/* gputrace scan, judged and written: findings over the copies a host holds
 * (host/scan.h) and over --for's choices (host/scan_for.h), and the text and
 * JSON output. */
#ifndef GPUTRACE_SCAN_REPORT_H
#define GPUTRACE_SCAN_REPORT_H

#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>

#include "host/scan.h"
#include "host/scan_for.h"
#include "report/findings.h"
#include "report/scan_arch.h"

/* The scan's findings, added to out (scan_rules.c). */
void gt_scan_judge(const struct host_scan *s, struct gt_findings *out);
/* --for: LD_LIBRARY_PATH beating a copy in the consumer's own search path, and
 * missing-symbol on paper (report/symbol_check.h). */
void gt_scan_for_judge(const struct host_scan_for *fr, struct gt_findings *out);

/* for_from: the first of fs's findings about --for's predicted set (its
 * verdict is theirs). */
/* The listing, the findings, then --for's choices (fr may be NULL); severities
 * coloured when color. With arch (--arch, else NULL), the files against that
 * architecture take the listing's place. The scan's notes (unreadable
 * folders) are the command's to print, on stderr. */
void gt_render_scan_text(FILE *f, const struct host_scan *s, const struct gt_findings *fs,
			 const struct host_scan_for *fr, size_t for_from, const struct gt_scan_arch *arch,
			 bool color);
void gt_render_scan_json(FILE *f, const struct host_scan *s, const struct gt_findings *fs,
			 const struct host_scan_for *fr, size_t for_from, const struct gt_scan_arch *arch);
/* A copy's path and each link target, as a JSON array. */
json_t *gt_scan_chain_json(const struct host_copy *c);
/* 1 when an error-level finding is present, else 0. */
int gt_scan_status(const struct gt_findings *fs);

#endif
