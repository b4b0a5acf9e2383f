/* Secrets taken out of text before it is shared (gputrace bundle): the value
 * of every variable or option whose name holds TOKEN, KEY, SECRET, PASSWORD,
 * CREDENTIAL or AUTH (any case), and the user info of URLs
 * (https://user:pass@host). Works on bytes, so that a trace, a facts file,
 * a report and a summary are cleaned alike, JSON or not, whole lines or cut
 * ones: NAME=value anywhere, "NAME": "value" as a JSON key of environment
 * style (upper case), "--token", "value" as two words of an argv, and the
 * exact bytes of a "<key>_hex" twin decoded, cleaned and encoded again. */
#ifndef GPUTRACE_REDACT_H
#define GPUTRACE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* What was written in place of a value. */
#define GT_REDACTED "[removed]"

/* What was taken out: names only, never a value. */
struct gt_redactions {
	char **names;     /* the variables and options whose values went, each once, sorted */
	size_t nnames;
	size_t urls;      /* URLs whose user info went */
};

/* Does name (n bytes) name a secret? */
bool gt_secret_name(const char *name, size_t n);
/* in (len bytes) with its secrets replaced: malloc'd, NUL-terminated, its
 * length in *outlen; what went is added to log. */
char *gt_redact(const char *in, size_t len, size_t *outlen, struct gt_redactions *log);
void gt_redactions_free(struct gt_redactions *log);

#endif
