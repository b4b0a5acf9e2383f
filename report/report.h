/* gputrace report: traces in, diagnosis out (text, tree or JSON). */
#ifndef GPUTRACE_REPORT_H
#define GPUTRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "findings.h"
#include "model.h"
#include "trace_read.h"

struct gt_report {
	struct gt_process *procs;
	struct gt_proc_model *models;
	size_t n;
	struct gt_findings findings;
};

/* Reads the traces named (files, or folders of *.jsonl). On bad input returns
 * false with a one-line message naming the file in err. */
bool gt_report_load(struct gt_report *r, char *const *paths, int npaths, char *err, size_t errcap);
/* Builds the models and runs the rules. */
void gt_report_analyse(struct gt_report *r);
void gt_report_free(struct gt_report *r);
/* 1 when an error-level finding is present, else 0. */
int gt_report_status(const struct gt_report *r);

void gt_render_text(FILE *f, const struct gt_report *r, bool color);
void gt_render_tree(FILE *f, const struct gt_report *r, bool color);
void gt_render_json(FILE *f, const struct gt_report *r);

/* The "found_by" value as the tree's tag: [LD_LIBRARY_PATH], [ld.so.cache] ... */
const char *gt_rule_tag(const char *found_by);
/* How the process ended, in words. */
void gt_describe_end(const struct gt_proc_model *m, char *out, size_t cap);

/* `gputrace report [--json|--tree] PATH...`; returns the exit status. */
int report_main(int argc, char **argv);
/* The diagnosis `gputrace COMMAND` prints when the command exits. */
void report_after_run(const char *dir, FILE *out);

#endif
