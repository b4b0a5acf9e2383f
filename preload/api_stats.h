/* In-memory statistics of intercepted CUDA calls: per function and status the
 * count and bytes, the device bytes held and their peak, failed allocations.
 * Fixed memory, lock-free updates; written to the trace at exit and on fatal
 * signals (preload_stats_flush). */
#ifndef GPUTRACE_API_STATS_H
#define GPUTRACE_API_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gputrace/trace_format.h"

/* Counts one call; returns how many calls of this function and status there
 * have been so far (1 for the first), or 0 when the table was full. */
unsigned long long preload_stats_count(enum gt_hooked_fn fn, int status, unsigned long long bytes);
/* The same for hot functions, counted per thread; returns nothing (a
 * process-wide ordinal would need a shared counter). */
void preload_stats_count_hot(enum gt_hooked_fn fn, int status, unsigned long long bytes);
/* The fast path of a hot call that succeeded (status 0), once this thread
 * has made one such call of fn through the slow path above and
 * preload_stats_fast_ready: counts it, and the allocation or free, in the
 * thread's own block. No shared line written, no locked instruction, no call
 * out of this file, errno kept; only a free of another thread's pointer
 * takes it out of that thread's table (compare-and-swap), as the slow path
 * does. false when the call must take the slow path (another status, the
 * thread's first call of fn, a thread without a block). */
bool preload_stats_fast_count(enum gt_hooked_fn fn, int status, unsigned long long bytes);
bool preload_stats_fast_alloc(enum gt_hooked_fn fn, int status, void *const *ptr, unsigned long long size);
bool preload_stats_fast_free(enum gt_hooked_fn fn, int status, uintptr_t ptr);
/* After a successful call of fn went the slow way on this thread (its exit
 * flush armed, its first-call questions asked): the thread's later ones may
 * take the fast path. */
void preload_stats_fast_ready(enum gt_hooked_fn fn);
/* A device allocation that succeeded / a free. */
void preload_stats_alloc(uintptr_t ptr, unsigned long long size);
void preload_stats_free(uintptr_t ptr);
/* A failed allocation: returns its number (1 for the first). */
unsigned long long preload_stats_alloc_failed(void);
/* Writes the totals to the trace: one "calls" line per function and status, one "allocs". */
void preload_stats_flush(void);
/* In a child after fork: the parent's calls are not the child's. */
void preload_stats_reset(void);
bool preload_stats_any(void);
/* The symbolic name of a hooked function's status (cuDNN: 8.x or 9.x numbering,
 * told apart by range: 8.x codes are below 1000). NULL when unknown. */
const char *preload_status_name(enum gt_hooked_fn fn, int status);

#endif
