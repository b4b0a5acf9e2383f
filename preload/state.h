/* The preload half's state that every part of it reads (state.c): its
 * trace, whether tracing is on, the per-thread flag of gputrace's own calls,
 * and the loader calls. The lowest header of preload/: the counters
 * (api_stats.c) write through it without knowing the rest of the half. */
#ifndef GPUTRACE_PRELOAD_STATE_H
#define GPUTRACE_PRELOAD_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/trace_file.h"

extern struct gt_trace preload_trace;
/* Tracing is on in this process and the constructor has run. */
extern bool preload_ready;
/* Set (saved and restored) while gputrace's own code runs inside a hook, so
 * calls it makes (version queries) are passed through, never recorded. */
extern __thread int preload_in_hook;

/* Tracing is on and the trace can be written (opened for this process). */
bool preload_tracing(void);
/* One finished line into the trace (after preload_tracing said yes). */
void preload_write(const char *line, size_t len);

/* The loader calls of the hooks and version questions (dlopen with
 * RTLD_NOLOAD, dlsym, dlclose): the audit namespace's when the audit half
 * handed them over, so that the program's dlerror() keeps its message; the
 * program's own libc's otherwise (LD_PRELOAD alone). */
void *preload_dlopen(const char *path, int flags);
void *preload_dlsym(void *handle, const char *name);
int preload_dlclose(void *handle);

struct link_map;
/* The first object of the program's namespace (the one this copy is in),
 * for walks of the link map; NULL if the loader does not say. */
struct link_map *preload_link_map_head(void);

#endif
