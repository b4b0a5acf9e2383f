/* The preload half's state that every part of it reads: its trace, whether
 * tracing is on, and the per-thread flag of gputrace's own calls. Kept apart
 * so that the hooks, the version questions and the start-up and exit code
 * (preload.c) depend on it and not on one another. */
#define _GNU_SOURCE
#include "preload/state.h"

#include <dlfcn.h>
#include <link.h>

#include "gputrace/trace_format.h"

struct gt_trace preload_trace = { .source = GT_SOURCE_PRELOAD };
bool preload_ready;
__thread int preload_in_hook;

bool preload_tracing(void)
{
	return preload_ready && gt_trace_ready_checked(&preload_trace);
}

void preload_write(const char *line, size_t len)
{
	gt_trace_write(&preload_trace, line, len);
}

void *preload_dlopen(const char *path, int flags)
{
	return gt_handed ? gt_handed->dl_open(path, flags) : dlopen(path, flags);
}

void *preload_dlsym(void *handle, const char *name)
{
	return gt_handed ? gt_handed->dl_sym(handle, name) : dlsym(handle, name);
}

int preload_dlclose(void *handle)
{
	return gt_handed ? gt_handed->dl_close(handle) : dlclose(handle);
}

struct link_map *preload_link_map_head(void)
{
	struct link_map *self = NULL, *head;
	Dl_info info;

	if (!dladdr1((void *)preload_link_map_head, &info, (void **)&self, RTLD_DL_LINKMAP) || !self)
		return NULL;
	for (head = self; head->l_prev; head = head->l_prev)
		;
	return head;
}
