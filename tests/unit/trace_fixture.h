/* Shared helpers of the reader, model and rules suites: a temporary folder per
 * test, hand-written traces put in it, and the model and findings built from
 * them.
 *
 * Trace lines are written in C with single quotes for JSON's double quotes,
 * and "$TMP" for the test's temporary folder: fx_trace() turns
 *   {'ev':'open','path':'$TMP/a/libcudart.so.13'}
 * into the line
 *   {"ev":"open","path":"/tmp/gt-unit-Ab12Cd/t-Xy34Ef/a/libcudart.so.13"}
 * so the file holds real JSON, one object per line, as the writer makes it. */
#ifndef GPUTRACE_TRACE_FIXTURE_H
#define GPUTRACE_TRACE_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "rules/findings.h"
#include "read/model.h"
#include "read/trace_read.h"

/* The header keys the reader reads, as the preload half writes them, before
 * "env"; FX_HEADER and FX_HEADER_ENV close the line. */
#define FX_HEADER_KEYS                                                                     \
	"{'ev':'header','format':'gputrace-trace','version':1,'source':'preload',"        \
	"'pid':4242,'start_ticks':1000,'ppid':4241,'host':'node7',"                       \
	"'image':'00000000000000a1','t_us':1700000000000000,'uid':1000,'euid':1000,"      \
	"'exe':'/usr/bin/python3.11','cwd':'/home/u','glibc':'2.36',"                     \
	"'argv':['python3','train.py']"
#define FX_HEADER FX_HEADER_KEYS ",'env':{}}"
/* env: the members of the "env" object, e.g. "'CUDA_HOME':'$TMP/cuda'". */
#define FX_HEADER_ENV(env) FX_HEADER_KEYS ",'env':{" env "}}"
/* The last line of a process that exited. */
#define FX_END "{'ev':'end','t_us':1700000000900000,'pid':4242}"
/* The launcher saw the process exit with status 1: a run that failed. */
#define FX_FAILED "{'ev':'reaped','pid':4242,'exit_status':1}"

/* Adds the fixtures to a test case: each test gets its own temporary folder,
 * and the dpkg lookup of the model points at it, so that no installed package
 * claims a test's files. The folders are removed after each test, and those
 * of failed tests after the case. */
void fx_add_fixtures(TCase *tc);
/* The checked fixture fx_add_fixtures adds (in each test's own process). */
void fx_setup(void);
void fx_teardown(void);

/* The temporary folder, and tmp + "/" + rel (a few buffers in turn). */
const char *fx_tmp(void);
const char *fx_path(const char *rel);
/* Writes tmp/rel with these bytes, making its folders. */
void fx_put(const char *rel, const char *data, size_t len);
/* An empty file tmp/rel (a library that only needs to exist). */
void fx_touch(const char *rel);
/* A symbolic link tmp/rel -> target (target as given). */
void fx_symlink(const char *target, const char *rel);
/* Makes tmp/rel as a tiny shared library with a DT_RUNPATH of runpath. */
void fx_build_lib(const char *rel, const char *runpath);
/* Makes tmp/rel as a tiny shared library whose SONAME is soname. */
void fx_build_lib_soname(const char *rel, const char *soname);

/* Writes tmp/name from lines (NULL-terminated), each in the notation above and
 * ended by a newline. Returns the file's path (valid until the next fx_trace). */
const char *fx_trace(const char *name, ...) __attribute__((sentinel));
const char *fx_trace_v(const char *name, const char *const *lines);

/* A trace read, its model built, and the findings of every rule. */
struct fx_diag {
	struct gt_process proc;
	struct gt_proc_model model;
	struct gt_findings findings;
	struct gt_facts_set *facts;
};

/* Writes the lines as tmp/t.jsonl, reads it (the test fails if the reader
 * refuses it) and builds the model. */
void fx_build(struct fx_diag *d, ...) __attribute__((sentinel));
/* fx_build, then gt_run_rules; every finding's severity must be one the
 * finding table allows its id (include/gputrace/findings.h). */
void fx_diagnose(struct fx_diag *d, ...) __attribute__((sentinel));
void fx_free(struct fx_diag *d);

/* The finding of this id for the process, or NULL; how many there are. */
const struct gt_finding *fx_finding(const struct fx_diag *d, enum gt_finding_id id);
size_t fx_count(const struct fx_diag *d, enum gt_finding_id id);
/* Whether an evidence item of f has key equal to value (a string key). */
bool fx_evidence_has(const struct gt_finding *f, const char *key, const char *value);
/* Whether f was found to be caused by the finding `id`. */
bool fx_caused_by(const struct gt_finding *f, enum gt_finding_id id);
/* Fails the test when a finding has a severity its id's table row does not
 * allow (a rule and the table disagree). */
void fx_check_severities(const struct gt_findings *fs);

#endif
