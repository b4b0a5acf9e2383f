/* gputrace retry: the traced command run again, under the tracer, with a
 * finding's fix (its "fix_data") applied to the environment its trace
 * recorded, and the two diagnoses compared. */
#ifndef GPUTRACE_RETRY_H
#define GPUTRACE_RETRY_H

#include <stdbool.h>

struct cmd_retry_opts {
	const char *fix_id;    /* --fix ID: the fix of the findings ID; NULL: each fix in turn */
	bool all_fixes;        /* --all-fixes: every fix at once, in one run */
	bool yes;              /* --yes: no question asked */
	bool yes_if_own;       /* --try-fixes: none for a trace of this user's on this host */
	bool json;             /* --json: the outcome as one object on stdout */
	const char *out_dir;   /* -o: where the new traces go; NULL: DIR/retry-N */
};

/* Retries the run traced in dir. Returns 0 when every fix tried made its
 * findings go, 1 when one did not, 2 on bad usage, unusable input or a
 * refusal, 125 when gputrace itself failed. */
int cmd_retry_dir(const char *dir, const struct cmd_retry_opts *o);

#endif
