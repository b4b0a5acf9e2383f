/* fork-after-init: CUDA does not survive fork. A child forked after its
 * parent initialised CUDA, that calls into CUDA without exec, gets
 * cudaErrorInitializationError (3), or PyTorch's "Cannot re-initialize CUDA
 * in forked subprocess" (raised before any CUDA call). Children that never
 * touch CUDA are fine (DataLoader workers forked after torch.cuda.init()
 * are the common healthy case), so a child is judged by what it did:
 *  - it called CUDA: a warning, an error when one of its calls failed;
 *  - it made no call the hooks saw, but its parent failed: a warning on the
 *    parent, since PyTorch refuses in the child before reaching CUDA and the
 *    parent re-raises the child's error.
 * The fork child's header names the parent's first CUDA call (parent_cuda). */
#include <stdio.h>
#include <string.h>

#include "read/group.h"
#include "rules/rules.h"

#define FIX_FORK                                                                                   \
	"CUDA cannot be used in a child forked after its parent initialised it: start the workers "   \
	"with the 'spawn' or 'forkserver' method (multiprocessing.set_start_method(\"spawn\"), "       \
	"DataLoader(multiprocessing_context=\"spawn\")), or initialise CUDA only in the children."

/* How the child was started, as the fix names it: a child with one image
 * was forked and ran no other program; in a Python process that is
 * multiprocessing's "fork" start method (the default on Linux before
 * Python 3.14, and what a DataLoader's workers use unless told otherwise). */
static bool python_image(const struct gt_process *p)
{
	const char *base = p->exe ? strrchr(p->exe, '/') : NULL;

	base = base ? base + 1 : p->exe;
	return base && strncmp(base, "python", 6) == 0;
}

static void add_start_method(struct gt_finding *f, const struct gt_process *child, long pid)
{
	json_t *e;

	if (python_image(child))
		e = gt_evidence_add(f, "pid %ld was started by multiprocessing's 'fork' start method (forked "
				    "from the Python process, no exec: the default on Linux before Python 3.14, "
				    "and a DataLoader's unless its multiprocessing_context says otherwise)",
				    pid);
	else
		e = gt_evidence_add(f, "pid %ld was forked and ran no other program (fork without exec)", pid);
	gt_evidence_str(e, "start_method", "fork");
	gt_evidence_int(e, "child_pid", pid);
}

/* How a process ended, for the evidence: "exited with status 1". */
static void add_end(struct gt_finding *f, const struct gt_proc_model *m)
{
	json_t *e;

	if (strcmp(m->ended_how, "exit") == 0) {
		e = gt_evidence_add(f, "pid %ld exited with status %d", m->proc->pid, m->ended_status);
		gt_evidence_int(e, "status", m->ended_status);
	} else if (strcmp(m->ended_how, "signal") == 0) {
		e = gt_evidence_add(f, "pid %ld was killed by signal %d", m->proc->pid, m->ended_signal);
		gt_evidence_int(e, "signal", m->ended_signal);
	}
}

static bool forked_after_cuda(const struct gt_process *p)
{
	return p->forked && p->images == 1 && p->parent_cuda;
}

static bool made_cuda_calls(const struct gt_process *p)
{
	return p->ncalls || p->ntotals || p->nalloc_fails;
}

/* The child's first failed call, written or counted: fn and status. */
static bool first_failure(const struct gt_process *p, const char **fn, int *status, const char **name)
{
	size_t i;

	for (i = 0; i < p->ncalls; i++)
		if (p->calls[i].status != 0) {
			*fn = p->calls[i].fn;
			*status = p->calls[i].status;
			*name = p->calls[i].status_name;
			return true;
		}
	for (i = 0; i < p->ntotals; i++)
		if (p->totals[i].status != 0) {
			*fn = p->totals[i].fn;
			*status = p->totals[i].status;
			*name = p->totals[i].status_name;
			return true;
		}
	/* A failed allocation is written at once (hot calls are only counted,
	 * and a child that leaves with _exit never writes its totals). */
	for (i = 0; i < p->nalloc_fails; i++) {
		*fn = p->alloc_fails[i].fn;
		*status = p->alloc_fails[i].status;
		*name = p->alloc_fails[i].status_name;
		return true;
	}
	return false;
}

/* A child forked after CUDA was initialised that made no call the hooks saw
 * but failed itself (its _exit status, from its end line): PyTorch raises
 * "Cannot re-initialize CUDA in forked subprocess" before any CUDA call, and
 * a worker that dies of it need not fail its parent (issue 28: a DataLoader
 * whose error was caught ended "all clear"). A warning: the trace cannot see
 * the Python error itself. */
static void failed_child_without_calls(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	struct gt_finding *f;
	json_t *e;

	if (strcmp(m->ended_how, "exit") != 0 || m->ended_status <= 0)
		return;
	f = gt_finding_add(out, GT_F_FORK_AFTER_INIT, GT_SEV_WARNING, m, FIX_FORK,
			   "pid %ld was forked after its parent (pid %ld) initialised CUDA and exited with "
			   "status %d before any CUDA call the tracer saw (PyTorch refuses CUDA there: "
			   "\"Cannot re-initialize CUDA in forked subprocess\")", p->pid, p->ppid,
			   m->ended_status);
	e = gt_evidence_add(f, "the parent called %s before the fork", p->parent_cuda);
	gt_evidence_str(e, "parent_call", p->parent_cuda);
	gt_evidence_int(e, "parent_pid", p->ppid);
	e = gt_evidence_add(f, "the child exited with status %d", m->ended_status);
	gt_evidence_int(e, "status", m->ended_status);
	add_start_method(f, p, p->pid);
}

void rule_fork_after_init(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	const char *fn = NULL, *name = NULL;
	struct gt_finding *f;
	int status = 0;
	bool failed;
	json_t *e;

	if (!forked_after_cuda(p))
		return;
	if (!made_cuda_calls(p)) {
		failed_child_without_calls(m, out);
		return;
	}
	failed = first_failure(p, &fn, &status, &name);
	f = gt_finding_add(out, GT_F_FORK_AFTER_INIT, failed ? GT_SEV_ERROR : GT_SEV_WARNING, m, FIX_FORK,
			   "pid %ld was forked after its parent (pid %ld) initialised CUDA, and %s", p->pid,
			   p->ppid, failed ? "its CUDA calls fail" : "calls CUDA itself");
	e = gt_evidence_add(f, "the parent called %s before the fork", p->parent_cuda);
	gt_evidence_str(e, "parent_call", p->parent_cuda);
	gt_evidence_int(e, "parent_pid", p->ppid);
	if (failed) {
		e = gt_evidence_add(f, "in the child, %s returned %d%s%s", fn, status, name ? " " : "",
				    name ? name : "");
		gt_evidence_str(e, "fn", fn);
		gt_evidence_int(e, "status", status);
	}
	add_start_method(f, p, p->pid);
}

/* The group holding pid on host, or NULL. */
static const struct gt_group *group_of_pid(struct gt_group *const *groups, size_t ngroups, long pid,
					   const char *host)
{
	size_t i, k;

	for (i = 0; i < ngroups; i++)
		for (k = 0; k < groups[i]->nmembers; k++)
			if (groups[i]->members[k].pid == pid &&
			    strcmp(groups[i]->members[k].host ? groups[i]->members[k].host : "",
				   host ? host : "") == 0)
				return groups[i];
	return NULL;
}

void rule_fork_after_init_parents(struct gt_group *const *groups, size_t ngroups, struct gt_findings *out)
{
	struct gt_finding *f;
	size_t i, k;

	for (i = 0; i < ngroups; i++) {
		const struct gt_group *child = groups[i], *parent;
		const struct gt_process *p = child->model.proc;

		if (!forked_after_cuda(p) || made_cuda_calls(p))
			continue;
		for (k = 0; k < child->nmembers; k++) {
			parent = group_of_pid(groups, ngroups, child->members[k].ppid, child->members[k].host);
			if (!parent || !gt_model_failed(&parent->model) ||
			    gt_findings_find(out, GT_F_FORK_AFTER_INIT, &parent->model))
				continue;
			f = gt_finding_add(out, GT_F_FORK_AFTER_INIT, GT_SEV_WARNING, &parent->model, FIX_FORK,
					   "pid %ld failed after forking children once CUDA was initialised "
					   "(its first CUDA call: %s)", child->members[k].ppid, p->parent_cuda);
			gt_evidence_int(gt_evidence_add(f, "pid %ld was forked after %s and did not exec; a "
							"child that touches CUDA fails (\"Cannot re-initialize "
							"CUDA in forked subprocess\")", child->members[k].pid,
							p->parent_cuda), "child_pid", child->members[k].pid);
			add_start_method(f, p, child->members[k].pid);
			add_end(f, &parent->model);
		}
	}
}
