/* gputrace scan, judged: findings over the copies a host holds (host/scan.h)
 * and over --for's choices (host/scan_for.h), on paper (scan_rules.c). */
#ifndef GPUTRACE_SCAN_RULES_H
#define GPUTRACE_SCAN_RULES_H

#include <jansson.h>

#include "host/gpu_presence.h"
#include "host/scan.h"
#include "host/scan_for.h"
#include "rules/findings.h"

/* The scan's findings, added to out. */
void gt_scan_judge(const struct host_scan *s, struct gt_findings *out);
/* A scan of the host itself: no NVIDIA GPU (no-device), no driver
 * (driver-missing: no kernel module, or no libcuda.so.1 where the loader
 * looks), or no device node (no-device); the evidence names the cause and
 * every path looked at (scan_host.c). */
void gt_scan_judge_host(const struct host_scan *s, const struct host_gpu_presence *g, struct gt_findings *out);
/* A --for name the loader may miss without harm: cuDNN's longer names
 * (libcudnn_graph.so.9.19.0) are tried before the one that counts. */
bool gt_scan_for_expected_miss(const struct host_resolution *r);
/* --for: LD_LIBRARY_PATH beating a copy in the consumer's own search path, and
 * missing-symbol on paper (facts/symbol_check.h). */
void gt_scan_for_judge(const struct host_scan_for *fr, struct gt_findings *out);
/* What only the loader's view on paper says, beside the trace's rules
 * (report/paper.h): a library of any other name that is not found, and a
 * file the loader would refuse, each with its requester. */
void gt_scan_for_judge_loader(const struct host_scan_for *fr, struct gt_findings *out);
/* A copy's path and each link target, as a JSON array (evidence, output). */
json_t *gt_scan_chain_json(const struct host_copy *c);
/* 1 when an error-level finding is present, else 0. */
int gt_scan_status(const struct gt_findings *fs);

#endif
