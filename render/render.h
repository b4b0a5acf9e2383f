/* The report's text, tree and JSON (render_text.c, render_tree.c,
 * render_json.c); the pictures are pictures.h's, the scan's render_scan.h's. */
#ifndef GPUTRACE_RENDER_H
#define GPUTRACE_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

void gt_render_text(FILE *f, const struct gt_report *r, bool color);
void gt_render_tree(FILE *f, const struct gt_report *r, bool color);
void gt_render_json(FILE *f, const struct gt_report *r);
/* The same with the hosts' scans grouped (compare/diff.h's gt_fleet) as "fleet". */
void gt_render_json_fleet(FILE *f, const struct gt_report *r, json_t *fleet);
/* The same with what gputrace inspect adds about the live process as "live". */
void gt_render_json_live(FILE *f, const struct gt_report *r, json_t *live);
/* One finding as the text report shows it: summary, evidence, cause, fix. */
void gt_render_finding(FILE *f, const struct gt_report *r, const struct gt_finding *x, bool color);

/* The distinct folders of a "tried" evidence array ({path, rule} objects),
 * in order, hwcaps and tls subfolders folded (read/paths.h's
 * gt_tried_folder), at most max: their count. */
struct gt_tried_place {
	char folder[1024];
	const char *rule;
};
size_t gt_tried_places(json_t *tried, struct gt_tried_place *out, size_t max);

/* How the process ended, in words. */
void gt_describe_end(const struct gt_proc_model *m, char *out, size_t cap);

#endif
