/* missing-ranks: a job of N ranks (the world size its launcher set:
 * WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS, in each rank's
 * trace header) left traces of fewer ranks: the others ran untraced (on a
 * host the launcher did not pass the tracer to) or died before their first
 * line. The report of the ranks it has is then not the job's. Runs over the
 * groups of a report, after the per-process rules. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/group.h"
#include "rules/rules.h"

/* Ranks are counted per world size (two jobs of one folder with other sizes
 * are judged apart); a size beyond this is no launcher's. */
#define MAX_WORLD 65536

static void ranks_in_words(const unsigned char *seen, long world, bool want, char *out, size_t cap)
{
	size_t len = 0;
	long r, end;

	out[0] = 0;
	for (r = 0; r < world; r = end) {
		if ((seen[r] != 0) != want) {
			end = r + 1;
			continue;
		}
		for (end = r + 1; end < world && (seen[end] != 0) == want; end++)
			;
		if (end - r > 2)
			len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%ld-%ld", len ? "," : "", r,
						end - 1);
		else
			for (long k = r; k < end; k++)
				len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%ld", len ? "," : "", k);
	}
}

static json_t *ranks_json(const unsigned char *seen, long world, bool want)
{
	json_t *arr = json_array();
	long r;

	for (r = 0; r < world; r++)
		if ((seen[r] != 0) == want)
			json_array_append_new(arr, json_integer(r));
	return arr;
}

static void judge_world(struct gt_group *const *groups, size_t ngroups, long world, struct gt_findings *out)
{
	unsigned char *seen = calloc((size_t)world, 1);
	const struct gt_group *first = NULL;
	char have[4096], lack[4096];
	long nseen = 0;
	struct gt_finding *f;
	size_t i, k;
	json_t *e;

	if (!seen)
		abort();
	for (i = 0; i < ngroups; i++)
		for (k = 0; k < groups[i]->nmembers; k++) {
			const struct gt_member *x = &groups[i]->members[k];

			if (x->world_size != world || x->rank < 0 || x->rank >= world)
				continue;
			nseen += !seen[x->rank];
			seen[x->rank] = 1;
			if (!first)
				first = groups[i];
		}
	if (!nseen || nseen == world) {
		free(seen);
		return;
	}
	ranks_in_words(seen, world, true, have, sizeof(have));
	ranks_in_words(seen, world, false, lack, sizeof(lack));
	f = gt_finding_add(out, GT_F_MISSING_RANKS, GT_SEV_WARNING, &first->model,
			   "Run every rank under gputrace, into a folder every host can write "
			   "(mpirun -np N gputrace -q -o DIR -- PROG; srun gputrace -q -o DIR -- PROG; "
			   "with gputrace -- mpirun, pass the tracer on: -x LD_PRELOAD -x LD_AUDIT -x GPUTRACE_DIR), "
			   "then gputrace report DIR once the job is over. A rank that started and left no "
			   "trace died before its first line: see how the launcher says it ended.",
			   "the job has %ld ranks, and %ld left no trace (rank%s %s)", world, world - nseen,
			   world - nseen == 1 ? "" : "s", lack);
	e = gt_evidence_add(f, "the launcher set a world size of %ld in the ranks' environment; traces of rank%s %s "
			    "were read", world, nseen == 1 ? "" : "s", have);
	gt_evidence_int(e, "world_size", world);
	json_object_set_new(e, "ranks", ranks_json(seen, world, true));
	e = gt_evidence_add(f, "no trace of rank%s %s", world - nseen == 1 ? "" : "s", lack);
	json_object_set_new(e, "ranks", ranks_json(seen, world, false));
	free(seen);
}

void rule_missing_ranks(struct gt_group *const *groups, size_t ngroups, struct gt_findings *out)
{
	long worlds[64];
	size_t i, k, n = 0, w;

	for (i = 0; i < ngroups; i++)
		for (k = 0; k < groups[i]->nmembers; k++) {
			long world = groups[i]->members[k].world_size;

			if (world < 2 || world > MAX_WORLD)
				continue;
			for (w = 0; w < n && worlds[w] != world; w++)
				;
			if (w == n && n < sizeof(worlds) / sizeof(worlds[0]))
				worlds[n++] = world;
		}
	for (w = 0; w < n; w++)
		judge_world(groups, ngroups, worlds[w], out);
}
