/* gputrace doctor's checks: the probe under the tracer, step by step, the
 * retries on copies the scan found, the framework steps, the report on the
 * traces and the scan's conflicts. cmd/doctor_cmd.c parses the command line
 * and prints; this is the rest. */
#ifndef GPUTRACE_CMD_DOCTOR_H
#define GPUTRACE_CMD_DOCTOR_H

#include <limits.h>
#include <stdbool.h>

#include "cmd/doctor_env.h"
#include "host/scan.h"
#include "rules/findings.h"
#include "report/report.h"

#define DOCTOR_MAX_STEPS 64
#define DOCTOR_MAX_LIBS 16
#define DOCTOR_MAX_NOTES 6

/* One step, as the probe prints it: "step\tNAME\tSTATUS\tMS\tDETAIL". */
struct doctor_step {
	char name[40];
	char status[12];          /* "ok", "FAILED", "skipped" */
	double ms;
	char detail[768];
};

struct doctor_probe {
	struct doctor_step steps[DOCTOR_MAX_STEPS];
	int nsteps;
	char libs[DOCTOR_MAX_LIBS][2][PATH_MAX];  /* component, path */
	int nlibs;
};

struct doctor {
	const char *python;       /* --python, or NULL: the python3 on PATH */
	/* Called with each step as it finishes (text output streams them), and
	 * with NULL before the probe runs again on the copies the scan found. */
	void (*on_step)(const struct doctor_step *step, void *data);
	void *on_step_data;
	struct doctor_env env;    /* read first: on_env is called with it */
	void (*on_env)(const struct doctor_env *env, void *data);
	char dir[PATH_MAX];       /* the traces */
	struct doctor_probe probe;
	char tested_note[DOCTOR_MAX_NOTES][2 * PATH_MAX + 128];
	int ntested;
	bool scanned;
	struct host_scan scan;
	struct gt_findings scan_findings;  /* the scan judged (rules/scan_rules.h) */
	int framework_status;     /* -1: the framework steps did not run */
	char torch_python[PATH_MAX];  /* when the interpreter asked has no torch: one that has */
	bool have_report;
	struct gt_report report;  /* of the doctor's traces, when have_report */
};

/* Runs every step into d (d->python set by the caller). False, with a
 * message on stderr, when the doctor cannot run (no trace folder, no probe,
 * a probe that ran no step). */
bool cmd_doctor_run(struct doctor *d);
void cmd_doctor_free(struct doctor *d);
/* The layer of a step ("driver", "runtime", ... "framework"). */
const char *cmd_doctor_layer_of(const char *step);
/* The layer of the first FAILED step, NULL when none failed. */
const char *cmd_doctor_first_failing_layer(const struct doctor_probe *r);

#endif
