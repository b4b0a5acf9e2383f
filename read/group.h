/* Groups of identical processes: what a process loaded, from where, and what
 * its CUDA calls answered, as one signature; processes with equal signatures
 * form a group that is analysed once (group.c). */
#ifndef GPUTRACE_GROUP_H
#define GPUTRACE_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "read/model.h"
#include "read/trace_read.h"

/* One process of a group. */
struct gt_member {
	long pid, ppid, rank, world_size;   /* -1: no launcher set one */
	char *host;
	char *file;
	char *command;   /* argv[0] argv[1] (gt_command_words), or NULL */
};

/* Processes that loaded the same libraries, at the same versions, from the
 * same places, and got the same API outcomes: analysed once, counted, listed.
 * Only the first one's trace is kept, so memory does not grow with the count
 * of identical processes (64 ranks of one job are one group). */
struct gt_group {
	struct gt_process proc;      /* the first process of the group */
	struct gt_proc_model model;
	char *signature;
	struct gt_member *members;   /* all of them, the first included */
	size_t nmembers;
	uint64_t fingerprints[8];    /* of traces known to belong here (fingerprint.h) */
	int nfingerprints;
};

/* What makes processes identical, as one string (malloc'd): the libraries,
 * their versions and places, the API outcomes. */
char *gt_signature(const struct gt_proc_model *m);
/* The group a model belongs to. */
const struct gt_group *gt_group_of(const struct gt_proc_model *m);
/* "ranks 40-42 on host c" / "pid 123 on host c": who a group is, in words. */
void gt_describe_members(const struct gt_group *g, char *out, size_t cap);

#endif
