/* gputrace scan, judged: findings over the copies a host holds (host/scan.h)
 * and over --for's choices (host/scan_for.h), on paper (scan_rules.c). */
#ifndef GPUTRACE_SCAN_RULES_H
#define GPUTRACE_SCAN_RULES_H

#include <jansson.h>

#include "host/scan.h"
#include "host/scan_for.h"
#include "rules/findings.h"

/* The scan's findings, added to out. */
void gt_scan_judge(const struct host_scan *s, struct gt_findings *out);
/* --for: LD_LIBRARY_PATH beating a copy in the consumer's own search path, and
 * missing-symbol on paper (read/symbol_check.h). */
void gt_scan_for_judge(const struct host_scan_for *fr, struct gt_findings *out);
/* A copy's path and each link target, as a JSON array (evidence, output). */
json_t *gt_scan_chain_json(const struct host_copy *c);
/* 1 when an error-level finding is present, else 0. */
int gt_scan_status(const struct gt_findings *fs);

#endif
