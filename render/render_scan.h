/* gputrace scan, written: the text and JSON output (render_scan.c) of the
 * scan's listing and findings (rules/scan_rules.h), and of --arch's verdicts
 * (render_scan_arch.c, rules/scan_arch.h). */
#ifndef GPUTRACE_RENDER_SCAN_H
#define GPUTRACE_RENDER_SCAN_H

#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>

#include "host/scan.h"
#include "host/scan_for.h"
#include "rules/findings.h"
#include "rules/scan_arch.h"
#include "rules/scan_rules.h"

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

/* --arch's text: a summary line, then one line per file with device code. */
void gt_render_scan_arch_text(FILE *f, const struct gt_scan_arch *a);
/* The "arch" object of scan --json. */
json_t *gt_scan_arch_json(const struct gt_scan_arch *a);

#endif
