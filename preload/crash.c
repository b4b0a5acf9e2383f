/* Where the process died: on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and
 * SIGTRAP, a "crash" line with the signal's code, its address and the stack
 * as (object, offset) frames, then the signal goes on exactly as without
 * gputrace (the previous disposition is put back and the signal raised again,
 * or the faulting instruction runs again), so the exit status, the core dump
 * and any other dump are those of a bare run.
 *
 * The handler is installed at start-up, only for signals the program leaves
 * at their default, and it is invisible: sigaction() and signal() report
 * the default in its place, and sigaltstack() reports no stack in place of
 * gputrace's own. A program or framework that asks (Rust's runtime installs
 * its stack-overflow handler only over the default) sees what it would see
 * without gputrace, and one that installs its own handler replaces ours.
 *
 * The unwinder is libgcc's (linked in statically, as -static-libgcc does):
 * Debian's libunwind.a is not position-independent code and cannot be linked
 * into a shared object without text relocations. Nothing here allocates,
 * takes stdio or calls into a library of the program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>

#include "common/export.h"
#include "common/jline.h"
#include "gputrace/trace_format.h"
#include "preload/preload.h"

#define MAX_FRAMES 64
/* The handler's own frames before the interrupted one: the handler, the
 * unwinder's entry and the kernel's return trampoline, with room to spare. */
#define MAX_SKIPPED 8
#define ALT_STACK_BYTES (64 * 1024)

/* libc's own sigaction under its exported second name, and its signal():
 * what the wrappers below call before the constructor found the next
 * definitions (another preloaded library's, else libc's). No dlsym there:
 * they run in signal handlers. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
extern sighandler_t bsd_signal(int sig, sighandler_t handler);
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
static sigaction_fn next_sigaction;
static signal_fn next_signal;

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };

/* The disposition each signal had before ours (the default, with its flags):
 * put back before the signal goes on. */
static struct sigaction previous[NSIG];
static char alt_stack[ALT_STACK_BYTES] __attribute__((aligned(16)));
static int alt_stack_ours;
/* The first crashing thread records; 2 once its line is written. */
static int crash_state;
/* The thread writing the crash line, and whether it is unwinding: a fault of
 * its own there (a damaged stack) ends the unwinding, elsewhere the line. */
static pid_t recording_tid;
static int unwinding;
static sigjmp_buf unwind_fault;
static char crash_line[48 * 1024];

/* glibc 2.35's lock-free lookup of the object holding an address, which
 * libgcc's unwinder calls; NULL on an older glibc (see _dl_find_object). */
typedef int (*find_object_fn)(void *, struct dl_find_object *);
static find_object_fn real_find_object;

static bool is_ours(void (*handler)(int, siginfo_t *, void *));

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigaction_fn f = __atomic_load_n(&next_sigaction, __ATOMIC_ACQUIRE);

	return f ? f(sig, act, old) : __sigaction(sig, act, old);
}

/* ---- where an address is ---- */

struct object_at {
	uintptr_t pc;
	uintptr_t base, start, end;
	const char *name;
	const void *eh_frame;
	bool found;
};

static int find_object_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct object_at *o = data;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	const void *eh = NULL;
	bool inside = false;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_GNU_EH_FRAME)
			eh = (const void *)s;
		if (ph->p_type != PT_LOAD)
			continue;
		if (s < lo)
			lo = s;
		if (s + ph->p_memsz > hi)
			hi = s + ph->p_memsz;
		if (o->pc >= s && o->pc < s + ph->p_memsz)
			inside = true;
	}
	if (!inside)
		return 0;
	o->found = true;
	o->base = info->dlpi_addr;
	o->start = lo;
	o->end = hi;
	o->name = info->dlpi_name;
	o->eh_frame = eh;
	return 1;
}

/* The object that holds pc: glibc's lock-free lookup where there is one,
 * else a walk of the program headers (which takes the loader's lock). */
static bool object_at(uintptr_t pc, struct object_at *o)
{
	struct dl_find_object f;

	memset(o, 0, sizeof(*o));
	o->pc = pc;
	if (real_find_object) {
		if (real_find_object((void *)pc, &f) != 0 || !f.dlfo_link_map)
			return false;
		o->found = true;
		o->base = f.dlfo_link_map->l_addr;
		o->name = f.dlfo_link_map->l_name;
		return true;
	}
	dl_iterate_phdr(find_object_cb, o);
	return o->found;
}

/* libgcc's unwinder (gcc 12) finds unwind tables through _dl_find_object,
 * which glibc has only since 2.35; this definition, local to the library,
 * answers on older ones too (glibc 2.34 is the oldest the rest of
 * libgputrace.so asks for). */
__attribute__((visibility("hidden"))) int _dl_find_object(void *pc, struct dl_find_object *result)
{
	struct object_at o;

	if (real_find_object)
		return real_find_object(pc, result);
	memset(result, 0, sizeof(*result));
	if (!object_at((uintptr_t)pc, &o) || !o.eh_frame)
		return -1;
	result->dlfo_map_start = (void *)o.start;
	result->dlfo_map_end = (void *)o.end;
	result->dlfo_eh_frame = (void *)o.eh_frame;
	return 0;
}

/* ---- the stack ---- */

struct walk {
	uintptr_t ips[MAX_FRAMES + MAX_SKIPPED];
	int n;
	bool more;  /* deeper frames did not fit */
};

static _Unwind_Reason_Code take_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	int before = 0;
	uintptr_t ip = _Unwind_GetIPInfo(ctx, &before);

	if (w->n == (int)(sizeof(w->ips) / sizeof(w->ips[0]))) {
		w->more = true;
		return _URC_END_OF_STACK;
	}
	if (!ip)
		return _URC_END_OF_STACK;
	w->ips[w->n++] = ip;
	return _URC_NO_REASON;
}

/* The interrupted frame first: the frames before the one at the context's
 * instruction pointer are the handler's own. */
static int first_program_frame(const struct walk *w, uintptr_t fault_ip)
{
	int i;

	for (i = 0; i < w->n && i < MAX_SKIPPED; i++)
		if (w->ips[i] == fault_ip)
			return i;
	return 0;
}

/* One frame: {"path":..., "off":...}, {"main":true, "off":...} for the
 * program itself, {"ip":...} where no object holds the address (JIT code). */
static void add_frame(struct jline *frames, uintptr_t ip)
{
	struct object_at o;

	jl_object_open(frames);
	if (!object_at(ip, &o)) {
		jl_uint(frames, GT_K_IP, ip);
	} else {
		if (o.name && o.name[0])
			jl_str(frames, GT_K_PATH, o.name);
		else
			jl_bool(frames, GT_K_MAIN, true);
		jl_uint(frames, GT_K_OFF, ip - o.base);
	}
	jl_object_end(frames);
}

static uintptr_t context_ip(const void *ucv)
{
#if defined(__x86_64__)
	return ucv ? (uintptr_t)((const ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP] : 0;
#elif defined(__aarch64__)
	return ucv ? (uintptr_t)((const ucontext_t *)ucv)->uc_mcontext.pc : 0;
#else
	(void)ucv;
	return 0;
#endif
}

/* The signal is the kernel's report of a fault at an instruction, which
 * faults again when run again (si_code > 0, not SI_KERNEL); a breakpoint
 * (SIGTRAP) does not, and a sent signal (raise, abort, kill) is not one. */
static bool from_fault(int sig, const siginfo_t *si)
{
	if (sig == SIGTRAP || sig == SIGABRT || !si)
		return false;
	return si->si_code > 0 && si->si_code != SI_KERNEL;
}

static void write_crash(int sig, const siginfo_t *si, const void *ucv)
{
	static char frames_buf[40 * 1024];
	static struct walk w;  /* in memory, not registers: siglongjmp may end the walk */
	struct jline j, frames;
	volatile bool faulted = false;
	int i, first;

	w.n = 0;
	w.more = false;
	/* A stack the unwinder cannot read faults inside it: the frames found
	 * so far are kept (see on_crash). */
	if (sigsetjmp(unwind_fault, 1) == 0) {
		__atomic_store_n(&unwinding, 1, __ATOMIC_SEQ_CST);
		_Unwind_Backtrace(take_frame, &w);
	} else {
		faulted = true;
	}
	__atomic_store_n(&unwinding, 0, __ATOMIC_SEQ_CST);
	first = first_program_frame(&w, context_ip(ucv));
	jl_fragment_begin(&frames, frames_buf, sizeof(frames_buf));
	for (i = first; i < w.n && i - first < MAX_FRAMES; i++)
		add_frame(&frames, w.ips[i]);
	jl_begin(&j, crash_line, sizeof(crash_line), gt_event_name(GT_EV_CRASH));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_TID, gt_gettid());
	jl_int(&j, GT_K_SIGNAL, sig);
	if (si) {
		jl_int(&j, GT_K_CODE, si->si_code);
		if (from_fault(sig, si) || sig == SIGTRAP)
			jl_uint(&j, GT_K_ADDR, (uintptr_t)si->si_addr);
		else if (si->si_code <= 0)
			jl_int(&j, GT_K_SENDER, si->si_pid);
	}
	if (w.n > first)
		jl_raw_array(&j, GT_K_FRAMES, &frames);
	if (w.more || frames.truncated || w.n - first > MAX_FRAMES)
		jl_bool(&j, GT_K_FRAMES_TRUNCATED, true);
	if (faulted)
		jl_str(&j, GT_K_UNWIND, "stopped");
	preload_write(crash_line, jl_end(&j));
}

/* A second thread that crashes while the first records waits for its line
 * (at most about a second), so that the default action does not end the
 * process half-way through it. */
static void wait_for_record(void)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < 1000 && __atomic_load_n(&crash_state, __ATOMIC_ACQUIRE) == 1; i++)
		nanosleep(&ms, NULL);
}

/* The previous disposition back, and the signal on its way to it.
 * Returning runs the faulting instruction again: the same signal, code and
 * registers as a bare run. A sent signal is raised again, blocked until the
 * handler returns, so that it is delivered at the place it interrupted. */
static void pass_on(int sig, const siginfo_t *si)
{
	sigset_t only;

	real_sigaction(sig, &previous[sig], NULL);
	if (from_fault(sig, si))
		return;
	sigemptyset(&only);
	sigaddset(&only, sig);
	sigprocmask(SIG_BLOCK, &only, NULL);
	raise(sig);
}

/* Installed with SA_NODEFER, so that a fault inside the handler comes back
 * here instead of killing the process before its line is written. */
static void on_crash(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	pid_t me = gt_gettid();
	int idle = 0;

	if (__atomic_load_n(&recording_tid, __ATOMIC_SEQ_CST) == me) {
		/* A fault in the unwinder: the stack is cut there. */
		if (__atomic_load_n(&unwinding, __ATOMIC_SEQ_CST))
			siglongjmp(unwind_fault, 1);
		/* Elsewhere in gputrace's own handler: the line is lost. */
		pass_on(sig, si);
		errno = saved;
		return;
	}
	if (preload_tracing() &&
	    __atomic_compare_exchange_n(&crash_state, &idle, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&recording_tid, me, __ATOMIC_SEQ_CST);
		write_crash(sig, si, ucv);
		preload_note_fatal_signal(sig);
		__atomic_store_n(&recording_tid, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&crash_state, 2, __ATOMIC_RELEASE);
	} else {
		wait_for_record();
		preload_note_fatal_signal(sig);
	}
	pass_on(sig, si);
	errno = saved;
}

static bool is_ours(void (*handler)(int, siginfo_t *, void *))
{
	return handler == on_crash;
}

/* ---- installation ---- */

/* A stack for the handler (a stack overflow leaves none), on the thread that
 * starts the program, where the program has not set one. */
static void set_alt_stack(void)
{
	stack_t cur, ours;

	if (syscall(SYS_sigaltstack, NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
		return;
	ours.ss_sp = alt_stack;
	ours.ss_size = sizeof(alt_stack);
	ours.ss_flags = 0;
	if (syscall(SYS_sigaltstack, &ours, NULL) == 0)
		__atomic_store_n(&alt_stack_ours, 1, __ATOMIC_RELEASE);
}

/* First in the constructor, traced or not: the wrappers' next definitions
 * and glibc's _dl_find_object (NULL before 2.35). */
void preload_crash_resolve(void)
{
	__atomic_store_n(&next_sigaction, (sigaction_fn)preload_dlsym(RTLD_NEXT, "sigaction"),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&next_signal, (signal_fn)preload_dlsym(RTLD_NEXT, "signal"), __ATOMIC_RELEASE);
	real_find_object = (find_object_fn)preload_dlsym(RTLD_NEXT, "_dl_find_object");
}

/* Was this disposition the default, the only one ours may replace? */
static bool is_default(const struct sigaction *sa)
{
	return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

/* From the constructor, when tracing: one sigaction per signal, which sets
 * ours and returns the disposition it replaced in the same call. Where
 * that was not the default (a preloaded sanitizer's handler, installed
 * before us), a second call puts it back at once: a signal in between goes
 * through ours, which puts the same disposition back and raises it again,
 * so that handler still gets it. */
void preload_crash_init(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	set_alt_stack();
	for (i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++) {
		int sig = crash_signals[i];

		if (real_sigaction(sig, &sa, &previous[sig]) != 0)
			continue;
		if (!is_default(&previous[sig]))
			real_sigaction(sig, &previous[sig], NULL);
	}
}

/* ---- what the program sees ---- */

/* Our handler, shown to the program as the disposition it replaced. */
static void hide_handler(int sig, struct sigaction *old)
{
	if (!old || sig <= 0 || sig >= NSIG || !(old->sa_flags & SA_SIGINFO) ||
	    !is_ours(old->sa_sigaction))
		return;
	*old = previous[sig];
}

GT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int rc = real_sigaction(sig, act, old);

	if (rc == 0)
		hide_handler(sig, old);
	return rc;
}

/* Only the handler it returns changes (glibc's signal() is bsd_signal()). */
GT_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	signal_fn f = __atomic_load_n(&next_signal, __ATOMIC_ACQUIRE);
	sighandler_t old = f ? f(sig, handler) : bsd_signal(sig, handler);

	if (old != SIG_ERR && sig > 0 && sig < NSIG && (void *)old == (void *)on_crash)
		return previous[sig].sa_handler;
	return old;
}

/* gputrace's stack is shown as no stack; the program's own replaces it. */
GT_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	long rc = syscall(SYS_sigaltstack, ss, old);

	if (rc != 0)
		return -1;
	if (old && old->ss_sp == alt_stack && __atomic_load_n(&alt_stack_ours, __ATOMIC_ACQUIRE) &&
	    !(old->ss_flags & SS_ONSTACK)) {
		old->ss_sp = NULL;
		old->ss_size = 0;
		old->ss_flags = SS_DISABLE;
	}
	return 0;
}
