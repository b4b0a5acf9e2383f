/* gputrace diff and fleets: diagnoses set side by side. Every input — a
 * trace folder, a trace, a `report --json` or a `scan --json` file, from this
 * host or copied from another — is first made a "view" (one JSON object):
 *   {"source": PATH, "kind": "report"|"scan", "hosts": [..], "label": "..",
 *    "libraries": [{family, component, path, version, rule, package, requester}],
 *    "findings": [{id, severity, summary, fix_data?}], "env": {NAME: VALUE},
 *    "status": 0|1}
 * and views are compared, two at a time (gt_diff) or many (gt_fleet). */
#ifndef GPUTRACE_DIFF_H
#define GPUTRACE_DIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"

/* The views of one input (a folder of scans gives one per scan; a folder of
 * traces, one) appended to views. On bad input, false and a one-line
 * message naming the file in err. */
bool gt_view_load(const char *path, json_t *views, char *err, size_t errcap);
/* The scans of a folder (*.scan.json), or one scan file, as views. */
bool gt_view_load_scans(const char *path, json_t *views, char *err, size_t errcap);
/* The view of a loaded and analysed report. */
json_t *gt_view_of_report(const struct gt_report *r, const char *source);
/* The view of the JSON text of a scan (gt_render_scan_json's). */
json_t *gt_view_of_scan_text(const char *text, size_t len, const char *source);
/* Whether a folder holds scans (*.scan.json). */
bool gt_folder_has_scans(const char *dir);

/* What differs between views a and b: families, findings, environment.
 * The object's "libraries_differ" is true when a CUDA library differs (a
 * component on one side only, or at another path or version). */
json_t *gt_diff(json_t *a, json_t *b);
void gt_render_diff_text(FILE *f, json_t *diff);

/* Many views: groups of identical ones (the same libraries at the same
 * versions and places) and, for each group but the largest, what it has
 * that the largest does not. */
json_t *gt_fleet(json_t *views);
void gt_render_fleet_text(FILE *f, json_t *fleet);
/* 1 when views differ (more than one group), else 0. */
int gt_fleet_status(json_t *fleet);
/* 1 when an input has an error-level finding, else 0. */
int gt_fleet_inputs_status(json_t *fleet);

/* A node_exporter textfile-collector file: one gauge per CUDA library copy
 * and one per finding, labelled by host. */
void gt_render_prometheus(FILE *f, json_t *views);

#endif
