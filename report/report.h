/* A report: the traces read and grouped (read/), then judged (rules/). What
 * every output takes (render/, compare/, the command) sits here, above the
 * rules it runs and below everything that shows it. */
#ifndef GPUTRACE_REPORT_H
#define GPUTRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "read/group.h"
#include "read/model.h"
#include "read/trace_read.h"
#include "facts/facts.h"
#include "rules/findings.h"

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
	/* The facts of the traced hosts (facts/facts.h) and where the answers
	 * came from, for the renderers to say. */
	struct gt_facts_set *facts;
	struct gt_facts_tally facts_tally;
};

/* Reads the traces named (files, or folders of *.jsonl). On bad input returns
 * false with a one-line message naming the file in err. */
bool gt_report_load(struct gt_report *r, char *const *paths, int npaths, char *err, size_t errcap);
/* The same, with the facts taken as mode says: GT_FACTS_RECORDED (as
 * gt_report_load: a facts file's answers first) or GT_FACTS_LIVE (this
 * host's answers now, for gt_report_save_facts: the diagnosis at exit). */
bool gt_report_load_as(struct gt_report *r, char *const *paths, int npaths, enum gt_facts_mode facts, char *err,
		       size_t errcap);
/* Writes the answers this host gave into dir's facts file (after analyse). */
bool gt_report_save_facts(struct gt_report *r, const char *dir, char *err, size_t errcap);
/* Builds the models and runs the rules. */
void gt_report_analyse(struct gt_report *r);
void gt_report_free(struct gt_report *r);
/* 1 when an error-level finding is present, else 0. */
int gt_report_status(const struct gt_report *r);

#endif
