/* The report's pictures: the load graph as Graphviz DOT (render_dot.c, and
 * render_scan_dot.c for scan --for), laid out as SVG by Graphviz's own
 * library (svg_layout.c), and the self-contained HTML report around it
 * (render_html.c, render_timeline.c). */
#ifndef GPUTRACE_PICTURES_H
#define GPUTRACE_PICTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "host/scan_for.h"
#include "report/report.h"

/* The colours the pictures give a severity (the HTML's CSS names them too). */
#define GT_PIC_ERROR_LINE "#c62828"
#define GT_PIC_ERROR_FILL "#ffebee"
#define GT_PIC_WARNING_LINE "#b26a00"
#define GT_PIC_WARNING_FILL "#fff3e0"

/* The groups in the order the pictures show them: the odd ones out first
 * (a group with an error, then one with a warning, then the fewer members),
 * the majority last. order gets r->ngroups indexes into r->groups. */
void gt_groups_in_order(const struct gt_report *r, size_t *order);
/* The worst severity of the findings about a group: -1 none, else a gt_severity. */
int gt_group_severity(const struct gt_report *r, const struct gt_group *g);

/* The worst severity (-1 none; info never counts) of the findings about m
 * (NULL: the host's, as scan's are) whose evidence names value: a path of an
 * object under the keys rules put one (key NULL), or the text under key. */
int gt_severity_naming(const struct gt_findings *fs, const struct gt_proc_model *m, const char *key,
		       const char *value);
/* A node's DOT attributes for a severity: colour, fill, width and class. */
void gt_dot_severity_colors(FILE *f, int sev);

/* The load graph of every group, one cluster each, in one digraph. Objects
 * that are not CUDA libraries and lead to none are folded unless all. */
void gt_render_dot(FILE *f, const struct gt_report *r, bool all);
/* One group's graph alone (the HTML report draws each group apart). */
void gt_render_dot_group(FILE *f, const struct gt_report *r, size_t group, bool all);

/* scan --for FILE: the consumer, what the loader would give each name it
 * needs and by which rule, the misses, and the copies passed over. */
void gt_render_scan_dot(FILE *f, const struct host_scan_for *fr, const struct gt_findings *fs);

/* Lays DOT text out with Graphviz's dot engine (libgvc, loaded the first
 * time, else the dot program): the SVG document (malloc'd), or NULL with
 * the reason in err. */
char *gt_layout_svg(const char *dot, char *err, size_t cap);
/* The same with libgvc loaded by that name or path (tests name one that is
 * not there), or never (NULL). */
char *gt_layout_svg_with(const char *libgvc, const char *dot, char *err, size_t cap);
/* Why the layouts were made by the dot program instead of libgvc in a build
 * that loads it; NULL when they were not. */
const char *gt_layout_svg_note(void);

/* The HTML report: one self-contained page (no script, no request). False,
 * with the reason in err, when a graph could not be laid out. */
bool gt_render_html(FILE *f, const struct gt_report *r, bool all, char *err, size_t cap);
/* The load timeline of one process, as an HTML section (render_timeline.c). */
void gt_render_timeline(FILE *f, const struct gt_proc_model *m);

#endif
