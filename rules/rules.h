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
/* A version the library answered, by the version call's name; -1 if none. */
long long gt_version_answer(const struct gt_process *p, const char *fn);

#endif
