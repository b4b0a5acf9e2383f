/* The table of rules and the helpers they share. */
#include "rules/rules.h"

#include <stdio.h>
#include <string.h>

/* Causes first: init-failed looks for them to say what it comes from. */
static const gt_rule_fn rules[] = {
	rule_driver_missing,
	rule_driver_stub,
	rule_driver_too_old,
	rule_driver_mismatch,
	rule_no_device,
	rule_cpu_only_build,
	rule_library_not_found,
	rule_missing_symbol,
	rule_mixed_versions,
	rule_duplicate_library,
	rule_shadowed_library,
	rule_already_loaded,
	rule_cuda_major_mismatch,
	rule_framework_mismatch,
	rule_no_kernel_image,
	rule_out_of_memory,
	rule_fork_after_init,
	rule_crashed,
	rule_init_failed,
};

void gt_run_rules(const struct gt_proc_model *m, struct gt_findings *out)
{
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		rules[i](m, out);
}

bool gt_called_with(const struct gt_process *p, const char *fn, int status)
{
	size_t i;

	for (i = 0; i < p->ncalls; i++)
		if (strcmp(p->calls[i].fn, fn) == 0 && p->calls[i].status == status)
			return true;
	for (i = 0; i < p->ntotals; i++)
		if (strcmp(p->totals[i].fn, fn) == 0 && p->totals[i].status == status)
			return true;
	return false;
}

const struct gt_call *gt_failed_call(const struct gt_process *p, const char *fn)
{
	size_t i;

	for (i = 0; i < p->ncalls; i++)
		if (strcmp(p->calls[i].fn, fn) == 0 && p->calls[i].status != 0)
			return &p->calls[i];
	return NULL;
}

const struct gt_search *gt_failed_search(const struct gt_process *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nsearches; i++) {
		const struct gt_search *s = &p->searches[i];

		if (!s->ours && s->name && strcmp(s->name, name) == 0 && s->result &&
		    strcmp(s->result, "not_found") == 0)
			return s;
	}
	return NULL;
}

long long gt_version_answer(const struct gt_process *p, const char *fn)
{
	size_t i;

	for (i = 0; i < p->nversions; i++)
		if (strcmp(p->versions[i].fn, fn) == 0 && p->versions[i].status == 0)
			return p->versions[i].value;
	return -1;
}

long long gt_driver_version_answer(const struct gt_process *p)
{
	long long v = gt_version_answer(p, "cuDriverGetVersion");

	return v < 0 ? gt_version_answer(p, "cudaDriverGetVersion") : v;
}

