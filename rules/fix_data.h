/* Fixes as data (fix_data.c): applying a finding's "fix_data" to a recorded
 * environment, and saying it in words. The builders are in findings.h. */
#ifndef GPUTRACE_FIX_DATA_H
#define GPUTRACE_FIX_DATA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "rules/findings.h"

/* Applies the "env" part of fix_data to env, an object of variable → string
 * (null or missing: unset), list entries compared through the facts of the
 * host where it will run. Returns whether anything changed. */
bool gt_fix_apply(json_t *fix_data, json_t *env, struct gt_host_facts *facts);

/* "LD_LIBRARY_PATH minus /lib/x86_64-linux-gnu; unset LD_PRELOAD" */
void gt_fix_describe(json_t *fix_data, char *out, size_t cap);

/* The fix changes the environment (gputrace retry can try it). */
bool gt_fix_is_env(json_t *fix_data);

/* Whether a list entry (len bytes) names the same thing as want: equal but
 * for trailing slashes, or the same file or folder once links are resolved. */
bool gt_same_list_entry(struct gt_host_facts *facts, const char *entry, size_t len, const char *want);

/* LD_PRELOAD or LD_AUDIT without gputrace's own library, ':' between the
 * rest (malloc'd); NULL when nothing of the user's is left. */
char *gt_list_without_tracer(const char *list);

/* Whether a LD_PRELOAD/LD_AUDIT entry is gputrace's own library. */
bool gt_is_tracer_entry(const char *entry, size_t len);

#endif
