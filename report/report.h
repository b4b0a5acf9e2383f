/* gputrace report: traces in, diagnosis out (text, tree or JSON). */
#ifndef GPUTRACE_REPORT_H
#define GPUTRACE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/findings.h"
#include "report/model.h"
#include "report/trace_read.h"

/* One process of a group. */
struct gt_member {
	long pid, ppid, rank;
	char *host;
	char *file;
};

/* Processes that loaded the same libraries, at the same versions, from the
 * same places, and got the same API outcomes: analysed once, counted, listed.
 * Only the first one's trace is kept, so memory does not grow with the count
 * of identical processes (64 ranks of one job are one group). */
struct gt_group {
	struct gt_process proc;      /* the first process of the group */
	struct gt_proc_model model;
	char *signature;
	struct gt_member *members;   /* all of them, the first included */
	size_t nmembers;
	uint64_t fingerprints[8];    /* of traces known to belong here (fingerprint.h) */
	int nfingerprints;
};

/* A stopping signal one traced process sent another (the sender's note). */
struct gt_sent {
	char *host;
	long sender, target;
	int signal;
};

struct gt_report {
	struct gt_group **groups;
	size_t ngroups;
	size_t nprocs;
	struct gt_findings findings;
	struct gt_sent *sent;
	size_t nsent;
	/* Trace files of a folder that hold no process (empty, all NUL bytes:
	 * a process killed right after fork; or not a trace): said, never fatal. */
	struct gt_unread {
		char *path, *why;
	} *unread;
	size_t nunread;
};

/* What makes processes identical, as one string (malloc'd): the libraries,
 * their versions and places, the API outcomes (group.c). */
char *gt_signature(const struct gt_proc_model *m);
/* The group a model belongs to. */
const struct gt_group *gt_group_of(const struct gt_proc_model *m);
/* "ranks 40-42 on host c" / "pid 123 on host c": who a group is, in words. */
void gt_describe_members(const struct gt_group *g, char *out, size_t cap);

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
/* The same with the hosts' scans grouped (report/diff.h's gt_fleet) as "fleet". */
void gt_render_json_fleet(FILE *f, const struct gt_report *r, json_t *fleet);
/* One finding as the text report shows it: summary, evidence, cause, fix. */
void gt_render_finding(FILE *f, const struct gt_report *r, const struct gt_finding *x, bool color);

/* The folder a tried candidate was in, without the hwcaps and tls
 * subfolders the loader tries inside each folder (render_text.c). */
void gt_tried_folder(const char *path, char *out, size_t cap);
/* The distinct folders of a "tried" evidence array ({path, rule} objects),
 * in order, hwcaps and tls subfolders folded, at most max: their count. */
struct gt_tried_place {
	char folder[1024];
	const char *rule;
};
size_t gt_tried_places(json_t *tried, struct gt_tried_place *out, size_t max);
/* How many folders a search tried, each with its hwcaps and tls subfolders
 * folded into it (the places a user would name; the paths are s->ntries). */
size_t gt_search_places(const struct gt_search *s);

/* How the process ended, in words. */
void gt_describe_end(const struct gt_proc_model *m, char *out, size_t cap);

#endif
