/* The preload half of libgputrace.so (loaded through LD_PRELOAD): opens the
 * process's trace early, follows fork into the child's own file, and at exit
 * lists every object of the link map, so LD_PRELOAD alone still says which
 * files were loaded (without the search trail, which only the audit half sees). */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "gputrace/trace_format.h"
#include "../tracer/jline.h"
#include "../tracer/trace_file.h"

static struct gt_trace preload_trace = { .fd = -1, .source = "preload" };
static char exit_buf[16384];
static bool ready;  /* set once the constructor ran and tracing is on */

/* In the child of fork: open the child's own file now, while only one thread
 * exists, so every later event of the child lands there. */
static void after_fork_in_child(void)
{
	if (ready)
		gt_trace_fd(&preload_trace);
}

static int list_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct jline j;
	int fd = *(int *)data;

	(void)size;
	/* The main program and the vDSO have no path here; the header names the exe. */
	if (!info->dlpi_name || info->dlpi_name[0] != '/')
		return 0;
	jl_begin(&j, exit_buf, sizeof(exit_buf), gt_event_name(GT_EV_LINKMAP));
	jl_str(&j, GT_K_PATH, info->dlpi_name);
	gt_write_all(fd, exit_buf, jl_end(&j));
	return 0;
}

/* dl_iterate_phdr lists the caller's own namespace, and only the base
 * namespace starts with the main program (the entry without a name). */
static int first_is_main(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(bool *)data = !info->dlpi_name || !info->dlpi_name[0];
	return 1;  /* the first entry is enough */
}

static bool in_base_namespace(void)
{
	bool main_first = false;

	dl_iterate_phdr(first_is_main, &main_first);
	return main_first;
}

__attribute__((constructor)) static void gputrace_preload_init(void)
{
	int saved = errno;

	/* The audit copy of this library runs constructors too, in the audit
	 * namespace: there the preload half has nothing to do. */
	if (gt_disabled() || !in_base_namespace())
		return;
	if (gt_trace_fd(&preload_trace) < 0)
		goto out;
	pthread_atfork(NULL, NULL, after_fork_in_child);
	ready = true;
out:
	errno = saved;
}

__attribute__((destructor)) static void gputrace_preload_fini(void)
{
	struct jline j;
	int saved = errno, fd;

	if (!ready || (fd = gt_trace_fd(&preload_trace)) < 0)
		return;
	dl_iterate_phdr(list_object, &fd);
	jl_begin(&j, exit_buf, sizeof(exit_buf), gt_event_name(GT_EV_END));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_PID, getpid());
	gt_write_all(fd, exit_buf, jl_end(&j));
	errno = saved;
}
