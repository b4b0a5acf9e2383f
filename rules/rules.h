/* The rules of the diagnosis, one per file (rule_<id>.c), and the small
 * helpers they share. Adding a rule: copy a rule file, fill it in, add it to
 * the table in rules.c before the rules that may point at it. */
#ifndef GPUTRACE_RULES_H
#define GPUTRACE_RULES_H

#include "rules/findings.h"

void rule_driver_missing(const struct gt_proc_model *m, struct gt_findings *out);
void rule_driver_stub(const struct gt_proc_model *m, struct gt_findings *out);
void rule_driver_too_old(const struct gt_proc_model *m, struct gt_findings *out);
void rule_driver_mismatch(const struct gt_proc_model *m, struct gt_findings *out);
void rule_no_device(const struct gt_proc_model *m, struct gt_findings *out);
void rule_cpu_only_build(const struct gt_proc_model *m, struct gt_findings *out);
void rule_library_not_found(const struct gt_proc_model *m, struct gt_findings *out);
void rule_missing_symbol(const struct gt_proc_model *m, struct gt_findings *out);
void rule_mixed_versions(const struct gt_proc_model *m, struct gt_findings *out);
void rule_duplicate_library(const struct gt_proc_model *m, struct gt_findings *out);
void rule_shadowed_library(const struct gt_proc_model *m, struct gt_findings *out);
void rule_cuda_major_mismatch(const struct gt_proc_model *m, struct gt_findings *out);
void rule_out_of_memory(const struct gt_proc_model *m, struct gt_findings *out);
void rule_crashed(const struct gt_proc_model *m, struct gt_findings *out);
void rule_init_failed(const struct gt_proc_model *m, struct gt_findings *out);
void rule_fork_after_init(const struct gt_proc_model *m, struct gt_findings *out);
void rule_framework_mismatch(const struct gt_proc_model *m, struct gt_findings *out);
void rule_no_kernel_image(const struct gt_proc_model *m, struct gt_findings *out);
void rule_already_loaded(const struct gt_proc_model *m, struct gt_findings *out);
/* Over all the groups of a report (read/group.h), after the per-process rules. */
struct gt_group;
void rule_divergent_processes(struct gt_group *const *groups, size_t ngroups, struct gt_findings *out);
/* A job whose world size is larger than the ranks that left traces. */
void rule_missing_ranks(struct gt_group *const *groups, size_t ngroups, struct gt_findings *out);
/* A parent that failed after forking children once CUDA was initialised. */
void rule_fork_after_init_parents(struct gt_group *const *groups, size_t ngroups, struct gt_findings *out);

/* A call of fn that answered status: a written call line or a total. */
bool gt_called_with(const struct gt_process *p, const char *fn, int status);
/* The first written call of fn that failed (status != 0), or NULL. */
const struct gt_call *gt_failed_call(const struct gt_process *p, const char *fn);
/* Searches the program made for name that found nothing (not gputrace's own). */
const struct gt_search *gt_failed_search(const struct gt_process *p, const char *name);
/* Shared by shadowed-library and already-loaded (rule_shadowed_library.c):
 * the copy of name that requester's own search finds on paper (its RPATH
 * chain, the process's LD_LIBRARY_PATH, its RUNPATH, the host's cache) and
 * the rule that finds it; */
bool gt_paper_winner(const struct gt_proc_model *m, const struct gt_object *requester, const char *name,
		     char *out, size_t cap, enum gt_rule *rule);
/* the version of a file on disk from its real name, else its own package ("" if neither); */
void gt_version_on_disk(struct gt_host_facts *facts, const char *path, char *out, size_t cap);
/* whether the framework holding requester declares a release l does not meet; */
bool gt_declared_otherwise(struct gt_host_facts *facts, const char *requester, const struct gt_lib *l);
/* whether an error of the driver or the device already explains m's failure. */
bool gt_failure_explained(const struct gt_findings *out, const struct gt_proc_model *m);
/* A version the library answered, by the version call's name; -1 if none. */
long long gt_version_answer(const struct gt_process *p, const char *fn);
/* The driver's CUDA as the program asked it: cuDriverGetVersion's answer,
 * else cudaDriverGetVersion's (13000); -1 if neither was asked. */
long long gt_driver_version_answer(const struct gt_process *p);

#endif
