/* Findings: what the report concludes, each with the evidence that proves it
 * and a concrete fix. The rules (one per file, rule_*.c) produce them; their
 * ids, severities and titles are the table of include/gputrace/findings.h. */
#ifndef GPUTRACE_FINDINGS_H
#define GPUTRACE_FINDINGS_H

#include <jansson.h>
#include <stdbool.h>

#include "gputrace/findings.h"
#include "read/model.h"

struct gt_group;

#define GT_MAX_CAUSES 8

struct gt_finding {
	enum gt_finding_id id;          /* its name is gt_finding_name(id) */
	enum gt_severity severity;
	char *summary;                  /* one line */
	char *fix;                      /* what to do, concretely */
	json_t *fix_data;               /* the fix as data, or NULL: {"env": {...}} that
	                                   gputrace retry can apply, or {"install": "CMD"}
	                                   that it names and never runs (fix_data.c) */
	json_t *evidence;               /* array of objects, each with "what" */
	const struct gt_proc_model *proc;
	const struct gt_group *members;  /* set when the finding is about other processes than proc's group */
	enum gt_finding_id caused_by[GT_MAX_CAUSES];
	int ncaused;
};

struct gt_findings {
	struct gt_finding *v;
	size_t n;
};

/* The table's columns for an id (GT_F_COUNT and beyond: "unknown", "", ""). */
const char *gt_finding_name(enum gt_finding_id id);
const char *gt_finding_title(enum gt_finding_id id);
const char *gt_finding_anchor(enum gt_finding_id id);
/* The id named so ("driver-missing"), or GT_F_COUNT. */
enum gt_finding_id gt_finding_from_name(const char *name);
/* Whether the table allows sev for id: between its lowest and highest. */
bool gt_finding_severity_allowed(enum gt_finding_id id, enum gt_severity sev);

/* Adds a finding; summary is printf-style. The fix is copied. */
struct gt_finding *gt_finding_add(struct gt_findings *f, enum gt_finding_id id, enum gt_severity sev,
				  const struct gt_proc_model *m, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Adds an evidence item ("what" printf-style) and returns it for more keys. */
json_t *gt_evidence_add(struct gt_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The keys a library brings to evidence: path, component, version, rule, requester. */
void gt_evidence_lib(json_t *e, const struct gt_lib *l);
/* The loader's tries as a "tried" array. */
void gt_evidence_tries(json_t *e, const struct gt_search *s);
void gt_evidence_str(json_t *e, const char *key, const char *value);
void gt_evidence_int(json_t *e, const char *key, long long value);
/* A JSON string of text that may not be UTF-8 (U+FFFD for bad bytes). */
json_t *gt_json_text(const char *value);
/* The fix as data (rules/fix_data.c), added to f->fix_data. Only changes of
 * the environment a run can be given again: a list variable losing entries
 * (LD_LIBRARY_PATH minus a folder), gaining them, a variable unset or set. */
void gt_fix_list_remove(struct gt_finding *f, const char *var, const char *entry);
void gt_fix_list_append(struct gt_finding *f, const char *var, const char *entry);
void gt_fix_unset(struct gt_finding *f, const char *var);
void gt_fix_set(struct gt_finding *f, const char *var, const char *value);
/* LD_PRELOAD without path: unset when it was the process's only entry of its
 * own (libgputrace.so, the tracer's, does not count), else that entry removed. */
void gt_fix_preload_remove(struct gt_finding *f, const struct gt_proc_model *m, const char *path);
/* An installer's command line: said, never run by gputrace. */
void gt_fix_install(struct gt_finding *f, const char *command);
/* A pip install of package (a requirement: "torch", "nvidia-cudnn-cu13==9.19.0.56",
 * shell-quoted here) with pip_args after it, as an install fix that fits
 * where the framework at path was installed (issue 30): that environment's
 * own python -m pip in a venv or another prefix, conda install -p of
 * conda_package (when not NULL) in the CONDA_PREFIX the process ran in, and
 * for a system-wide or user install (PEP 668: an externally managed Python
 * refuses pip there) a new venv, never --break-system-packages. Decided
 * from the recorded path and environment alone. */
void gt_fix_pip_install(struct gt_finding *f, const struct gt_process *p, const char *path,
			const char *package, const char *pip_args, const char *conda_package);
/* The fix as a command to paste into a POSIX shell: for a change of the
 * environment, the process's own command line (argv, shell-quoted) run
 * with the variables as the fix leaves them (env -u VAR for one unset,
 * VAR='value' for one set), from what its trace recorded; for an install,
 * the installer's command. Returns false (out empty) when there is none:
 * no fix as data, or one that changes nothing of the recorded environment. */
bool gt_fix_command(json_t *fix_data, const struct gt_process *p, struct gt_host_facts *facts, char *out,
		    size_t cap);
/* word as one shell word: itself when it needs no quotes, in '...' when
 * it has no control character, in $'...' (bash, zsh, ksh) with \xHH
 * escapes when it has one: never a raw control byte. */
void gt_shell_quote(const char *word, char *out, size_t cap);

/* A finding as JSON: id, severity, summary, evidence, fix (what report,
 * scan and doctor all print). A NULL list gives an empty array. */
json_t *gt_finding_json(const struct gt_finding *x);
json_t *gt_findings_json(const struct gt_findings *f);
/* A finding of this id for this process, or NULL. */
const struct gt_finding *gt_findings_find(const struct gt_findings *f, enum gt_finding_id id,
					  const struct gt_proc_model *m);
void gt_findings_free(struct gt_findings *f);
/* Drops the findings added after the first `keep`. */
void gt_findings_free_last(struct gt_findings *f, size_t keep);
const char *gt_severity_name(enum gt_severity s);

/* A rule looks at one process and adds what it finds. */
typedef void (*gt_rule_fn)(const struct gt_proc_model *m, struct gt_findings *out);

/* Runs every rule on a process, causes before the symptoms that point at them. */
void gt_run_rules(const struct gt_proc_model *m, struct gt_findings *out);

#endif
