/* Who stopped whom: kill(2) as the traced program calls it, passed straight
 * through, with one note when it sends a stopping signal to one process.
 *
 * A process ended by SIGTERM from its parent (a multiprocessing pool
 * terminating its workers at the end of a `with` block, torchrun stopping
 * its workers, `timeout`) leaves no closing line, as a crash does; without
 * CUDA calls it has no handler of ours that could say which signal it was.
 * The sender knows: its note lets the report say "stopped", never
 * "crashed". Only kill() with one pid is noted (process groups and pidfds
 * are not: a group has no pid list to match), and only the signals a
 * process is stopped with. The note is written before the call, so the
 * target's death cannot race it; errno and the result are the real call's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/export.h"
#include "common/jline.h"
#include "gputrace/trace_format.h"
#include "preload/preload.h"

typedef int (*kill_fn)(pid_t, int);

static bool stopping(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGKILL || sig == SIGQUIT;
}

static void note_signal_sent(pid_t pid, int sig)
{
	char buf[192];
	struct jline j;

	if (!preload_tracing())
		return;
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_NOTE));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_TID, gt_gettid());
	jl_str(&j, GT_K_WHAT, GT_NOTE_SIGNAL_SENT);
	jl_int(&j, GT_K_TARGET, pid);
	jl_int(&j, GT_K_SIGNAL, sig);
	preload_write(buf, jl_end(&j));
}

static kill_fn real_kill;

/* From the constructor: kill() is async-signal-safe and programs call it
 * from signal handlers, where dlsym may not run (the loader's lock). */
void preload_signals_init(void)
{
	__atomic_store_n(&real_kill, (kill_fn)preload_dlsym(RTLD_NEXT, "kill"), __ATOMIC_RELEASE);
}

GT_EXPORT int kill(pid_t pid, int sig)
{
	kill_fn f = __atomic_load_n(&real_kill, __ATOMIC_ACQUIRE);
	int saved = errno;

	if (pid > 0 && stopping(sig) && preload_ready && !preload_in_hook)
		note_signal_sent(pid, sig);
	errno = saved;
	/* Before the constructor ran (or if the next kill is not found): the
	 * system call itself, which is all libc's kill is. */
	return f ? f(pid, sig) : (int)syscall(SYS_kill, pid, sig);
}
