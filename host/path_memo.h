/* Answers about paths kept for the process: a table of path -> a string
 * or none, so that host/ asks the disk once per path (issue 29: a report of
 * 20,000 copies asked the same questions of the same folders thousands of
 * times). */
#ifndef GPUTRACE_HOST_PATH_MEMO_H
#define GPUTRACE_HOST_PATH_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open addressing on host_path_hash; a value may be NULL ("none"). A
 * zeroed one is empty. */
struct host_memo {
	char **keys, **vals;
	size_t n, cap;
};

/* FNV-1a, mixed so that its low bits spread paths with long common prefixes. */
uint64_t host_path_hash(const char *s, size_t len);

/* Whether key is known; its value (NULL: none) in *val. */
bool host_memo_get(const struct host_memo *m, const char *key, const char **val);
/* Keeps key -> val (copied); a key already there keeps its first value. */
void host_memo_put(struct host_memo *m, const char *key, const char *val);
void host_memo_free(struct host_memo *m);

#endif
