/* Shared inside the preload half of libgputrace.so (its state, which every
 * part reads, is state.h's, included here). */
#ifndef GPUTRACE_PRELOAD_H
#define GPUTRACE_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/export.h"
#include "common/trace_file.h"
#include "gputrace/trace_format.h"
#include "preload/state.h"

/* preload.c (start-up, fork, exit). First CUDA activity: arm the exit and
 * fatal-signal flushes (once). */
void preload_arm_flush(enum gt_hooked_fn fn);
/* Writes the call totals (exit, fatal signal). */
void preload_flush_stats(void);
/* cuda_hooks.c. A dlopen handle of the already-loaded object that contains addr, taken with
 * RTLD_NOLOAD (which never maps a file: no observer effect); NULL if none.
 * Release it with dlclose. */
void *preload_handle_of_loaded(const void *addr);
/* The definition a hook calls: the one the caller would have got without
 * us (cuda_hooks.c); NULL when there is none anywhere. */
void *preload_real_function(enum gt_hooked_fn fn, const void *caller);
/* A rare call's bookkeeping (count, its line, the version question), with
 * the guard up; errno is kept. */
void preload_record_failed_call(enum gt_hooked_fn fn, int status, const void *real);
/* What a hook answers when the real function exists nowhere. */
int preload_missing_status(enum gt_hooked_fn fn);
/* versions.c. Asks the library that defines `fn_addr` for its version, once per library. */
void preload_versions_of_library_at(const void *fn_addr);
/* Remembers the CUDA-family libraries loaded now, when gputrace registers an
 * exit handler (their exit handlers run after it); true when there are more
 * than at the last mark. */
bool preload_versions_mark_alive(void);
/* preload.c. After a program's call into a CUDA library (rare calls, the
 * first of a hot one): when libraries were loaded since the last exit
 * handler gputrace registered, another one, so that they are asked too. */
void preload_rearm_if_loaded(void);
/* From that exit handler: asks those of them not asked yet. Never from a
 * destructor, a signal handler or _exit: a library may be torn down then. */
void preload_versions_of_alive(void);
/* scope.c. At exit: a "global" line for each CUDA-family object a lookup in
 * the default scope finds. */
void preload_global_scope_at_exit(void);
/* preload.c. On a fatal signal: the call totals and the fatal_signal note
 * (once for the totals); async-signal-safe. */
void preload_note_fatal_signal(int sig);
/* crash.c. First in the constructor: the next sigaction and signal (the
 * wrappers' own), and glibc's _dl_find_object. */
void preload_crash_resolve(void);
/* From the constructor, when tracing: the crash handler, for the signals the
 * program leaves at their default, and its alternate stack. */
void preload_crash_init(void);
/* signals.c. Resolves the real kill(), from the constructor. */
void preload_signals_init(void);

#endif
