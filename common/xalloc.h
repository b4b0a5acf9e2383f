/* The command's one out-of-memory policy: allocate or abort.
 *
 * gputrace's command (cmd/ and its layers) is a short-lived diagnostic that
 * runs after, or beside, the program it explains; its allocations are small
 * and bounded by its input. A diagnosis built on a failed allocation would be
 * wrong, and a wrong diagnosis is worse than none, so the command stops
 * (abort: a core, not a made-up answer). libgputrace.so never uses these:
 * inside other people's processes nothing of ours may abort, and the hooks
 * allocate nothing (common/xalloc.c is left out of the library's build, and
 * tools/check-layers.py refuses this header in audit/ and preload/). */
#ifndef GPUTRACE_XALLOC_H
#define GPUTRACE_XALLOC_H

#include <stddef.h>

void *gt_xmalloc(size_t size);
void *gt_xcalloc(size_t n, size_t size);
void *gt_xrealloc(void *p, size_t size);
/* NULL in, NULL out. */
char *gt_xstrdup(const char *s);
char *gt_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
