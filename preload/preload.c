/* The preload half of libgputrace.so (loaded through LD_PRELOAD): opens the
 * process's trace early, follows fork into the child's own file, flushes the
 * CUDA call totals at exit and on fatal signals, and at exit lists every object
 * of the link map, so LD_PRELOAD alone still says which files were loaded
 * (without the search trail, which only the audit half sees). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sys/auxv.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/jline.h"
#include "preload/api_stats.h"
#include "gputrace/trace_format.h"
#include "preload/preload.h"

static char exit_buf[65536];
static int flush_armed;
static const char *first_cuda_call;  /* the process's first hooked CUDA call */
static int stats_flushed;
/* The _exit gputrace's own passes on to, resolved by the constructor. */
typedef void (*exit_fn)(int);
static exit_fn real_exit;

/* Signals whose default action ends the process without exit handlers and
 * that are no crash (crash.c has those, from start-up): a user or a pool
 * stopped the process. */
static const int fatal_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };

void preload_flush_stats(void)
{
	/* Once: a fatal signal during exit must not write the totals twice. */
	if (__atomic_exchange_n(&stats_flushed, 1, __ATOMIC_ACQ_REL))
		return;
	preload_stats_flush();
}

void preload_note_fatal_signal(int sig)
{
	char buf[128];
	struct jline j;

	preload_flush_stats();
	if (!preload_tracing())
		return;
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_NOTE));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_TID, gt_gettid());
	jl_str(&j, GT_K_WHAT, GT_NOTE_FATAL_SIGNAL);
	jl_int(&j, GT_K_SIGNAL, sig);
	preload_write(buf, jl_end(&j));
}

/* The totals are written, then the signal goes on to its default action. */
static void on_fatal_signal(int sig)
{
	int saved = errno;

	preload_note_fatal_signal(sig);
	signal(sig, SIG_DFL);
	raise(sig);  /* blocked in the handler: delivered when it returns */
	errno = saved;
}

/* Only where the program keeps the default: a handler of its own stays its own. */
static void install_fatal_handlers(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		if (sigaction(fatal_signals[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
		    old.sa_handler == SIG_DFL)
			sigaction(fatal_signals[i], &sa, NULL);
}

/* The loader's count of objects loaded so far (dl_iterate_phdr's dlpi_adds):
 * one entry is enough to read it. */
static int read_adds(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

#define MAX_EXIT_HANDLERS 16
static unsigned long long adds_at_mark;
static int exit_handlers;

/* From the exit handler registered at the first CUDA call: it runs before the
 * handlers of every library loaded (and initialised) before that call, so
 * those are still alive; libraries loaded later registered their handlers
 * after ours, may be torn down by now, and are not asked (their versions
 * come from their files and packages, or were asked after the program's own
 * call into them). */
static void ask_versions_at_exit(void)
{
	int outer = preload_in_hook;

	preload_in_hook = 1;
	preload_versions_of_alive();
	preload_in_hook = outer;
}

/* On the first CUDA call, after the real function returned (and registered
 * whatever exit handler it registers on first use): exit handlers registered
 * now run before those of the libraries loaded so far; signal handlers only
 * for processes that use CUDA. */
void preload_arm_flush(enum gt_hooked_fn fn)
{
	/* A plain load first: this runs on every intercepted call. */
	int saved;

	if (__atomic_load_n(&flush_armed, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&flush_armed, 1, __ATOMIC_ACQ_REL))
		return;
	/* Kept for the header of a fork child: CUDA does not survive fork. */
	__atomic_store_n(&first_cuda_call, gt_hooked_name(fn), __ATOMIC_RELEASE);
	saved = errno;
	dl_iterate_phdr(read_adds, &adds_at_mark);
	preload_versions_mark_alive();
	__atomic_fetch_add(&exit_handlers, 1, __ATOMIC_ACQ_REL);
	atexit(ask_versions_at_exit);
	install_fatal_handlers();
	errno = saved;
}

/* Another exit handler, for libraries loaded since the last one (see
 * preload.h); the loader's load count tells, without a walk of the link map
 * on every call. */
void preload_rearm_if_loaded(void)
{
	unsigned long long adds = 0;
	int saved = errno;

	if (!__atomic_load_n(&flush_armed, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&exit_handlers, __ATOMIC_RELAXED) >= MAX_EXIT_HANDLERS)
		return;
	dl_iterate_phdr(read_adds, &adds);
	if (adds == __atomic_exchange_n(&adds_at_mark, adds, __ATOMIC_ACQ_REL))
		goto out;
	if (preload_versions_mark_alive() &&
	    __atomic_fetch_add(&exit_handlers, 1, __ATOMIC_ACQ_REL) < MAX_EXIT_HANDLERS)
		atexit(ask_versions_at_exit);
out:
	errno = saved;
}

/* In the child of fork: open the child's own file now, while only one thread
 * exists, and forget the parent's calls. */
static void after_fork_in_child(void)
{
	if (!preload_ready)
		return;
	preload_stats_reset();
	stats_flushed = 0;
	/* Said in the header: a fork child that ends with _exit (as worker
	 * processes do) leaves no closing line, and that is no crash. */
	preload_trace.forked = true;
	/* A child that calls CUDA its parent had initialised fails (error 3,
	 * "Cannot re-initialize CUDA in forked subprocess"): the header says so. */
	preload_trace.parent_cuda = __atomic_load_n(&first_cuda_call, __ATOMIC_ACQUIRE);
	gt_trace_ready(&preload_trace);
}

/* The exit listing is gathered into one buffer and written in few writes. */
struct listing {
	size_t len;
};

static int list_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct listing *l = data;
	char line[PATH_MAX + 256];
	struct jline j;
	size_t n;

	(void)size;
	/* The main program and the vDSO have no path here; the header names the exe. */
	if (!info->dlpi_name || info->dlpi_name[0] != '/')
		return 0;
	jl_begin(&j, line, sizeof(line), gt_event_name(GT_EV_LINKMAP));
	jl_str(&j, GT_K_PATH, info->dlpi_name);
	n = jl_end(&j);
	if (l->len + n > sizeof(exit_buf)) {
		preload_write(exit_buf, l->len);
		l->len = 0;
	}
	memcpy(exit_buf + l->len, line, n);
	l->len += n;
	return 0;
}

/* The audit half saw every object map and unmap: the listing would repeat it.
 * It is active when LD_AUDIT names this library and the process is not in
 * secure mode (where the loader ignores such paths). */
static bool audit_half_active(void)
{
	const char *audit = getenv("LD_AUDIT");
	Dl_info self;

	if (!audit || getauxval(AT_SECURE) || !dladdr((void *)audit_half_active, &self) ||
	    !self.dli_fname)
		return false;
	return strstr(audit, self.dli_fname) != NULL;
}

static void list_link_map(void)
{
	struct listing l = { .len = 0 };

	dl_iterate_phdr(list_object, &l);
	if (l.len)
		preload_write(exit_buf, l.len);
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

	/* First, whatever else happens: kill() and _exit() pass calls on,
	 * traced or not. */
	preload_signals_init();
	preload_crash_resolve();
	__atomic_store_n(&real_exit, (exit_fn)preload_dlsym(RTLD_NEXT, "_exit"), __ATOMIC_RELEASE);
	/* The audit copy of this library runs constructors too, in the audit
	 * namespace: there the preload half has nothing to do. */
	if (gt_disabled() || !in_base_namespace())
		return;
	/* With the audit half, its copy of this library handed us its sink at
	 * la_objopen: both halves write through one mapping. An audit half that
	 * did not (an unforeseen way of loading us) owns the file: two writers
	 * of one mapped file would overwrite each other, so this half stays
	 * silent rather than spoil the trace. */
	if (gt_handed)
		preload_trace.sink = gt_handed->sink;
	else if (audit_half_active())
		preload_trace.off = true;
	if (!gt_trace_ready(&preload_trace))
		goto out;
	pthread_atfork(NULL, NULL, after_fork_in_child);
	preload_ready = true;
	preload_crash_init();
out:
	errno = saved;
}

/* The last line of this process (the end, with the status when _exit gave
 * it), and the file cut to its length. */
static void write_end(bool via_exit, int status)
{
	struct jline j;

	jl_begin(&j, exit_buf, sizeof(exit_buf), gt_event_name(GT_EV_END));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_PID, getpid());
	if (via_exit) {
		jl_str(&j, GT_K_VIA, GT_END_VIA_EXIT);
		jl_int(&j, GT_K_EXIT_STATUS, status & 0xff);
	}
	preload_write(exit_buf, jl_end(&j));
	gt_trace_finish(&preload_trace);
}

/* Nothing here calls into a traced library: exit() has run its exit
 * handlers already, and a library torn down by them crashes when called
 * (the numba-cuda import failure on the GPU host died by SIGSEGV under
 * gputrace, exit 1 bare). Versions were asked while the libraries were
 * alive, or come from their files. The default-scope lookup asks the
 * loader, not the libraries. */
__attribute__((destructor)) static void gputrace_preload_fini(void)
{
	int saved = errno;

	if (!preload_ready || !gt_trace_ready_checked(&preload_trace))
		return;
	preload_global_scope_at_exit();
	preload_flush_stats();
	if (!audit_half_active())
		list_link_map();
	write_end(false, 0);
	errno = saved;
}

/* Processes that leave with _exit (dash after its last command, fork
 * children, Python's os._exit, vfork children after a failed exec) run no
 * destructor: without this line their end was unknown and read as a crash.
 * Only the totals and the end line: _exit is async-signal-safe and is called
 * from signal handlers, so no loader call (the link map listing of the
 * LD_PRELOAD-only mode is left out) and no call into any library. A vfork
 * child shares its parent's memory and trace: it writes nothing. */
static void note_exit_now(int status)
{
	int saved = errno;

	if (!preload_ready || preload_in_hook || !preload_trace.sink ||
	    preload_trace.sink->pid != getpid() || !gt_trace_ready_checked(&preload_trace))
		goto out;
	preload_in_hook = 1;
	preload_flush_stats();
	write_end(true, status);
out:
	errno = saved;
}

GT_EXPORT void _exit(int status)
{
	exit_fn f = __atomic_load_n(&real_exit, __ATOMIC_ACQUIRE);

	note_exit_now(status);
	if (f)
		f(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

GT_EXPORT void _Exit(int status)
{
	_exit(status);
}
