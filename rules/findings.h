/* Findings: what the report concludes, each with the evidence that proves it
 * and a concrete fix. The rules (one per file, rule_*.c) produce them; their
 * ids, severities and titles are the table of include/gputrace/findings.h. */
#ifndef GPUTRACE_FINDINGS_H
#define GPUTRACE_FINDINGS_H

#include <jansson.h>
#include <stdbool.h>

#include "gputrace/findings.h"
#include "read/model.h"
#include "rules/fix.h"

struct gt_group;

#define GT_MAX_CAUSES 8

struct gt_finding {
	enum gt_finding_id id;          /* its name is gt_finding_name(id) */
	enum gt_severity severity;
	char *summary;                  /* one line */
	char *fix;                      /* what to do, concretely */
	struct gt_fix fix_data;         /* the fix as edits (rules/fix.h), none when it is no
	                                   change gputrace retry can apply or name: the
	                                   JSON's "fix_data" (rules/fix_json.c) */
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
