/* Programs that handle, or die by, fatal signals, for the differential tests
 * of tests/e2e/test_crash.py: each mode must end and print the same bare and
 * under gputrace. argv[1]:
 *   query     prints what sigaction(), signal() and sigaltstack() report
 *   recover   its own SIGSEGV handler longjmps out of three faults
 *   altstack  its own alternate stack, used by its own SA_ONSTACK handler
 *   assert    a failed assert() (message, SIGABRT)
 *   overflow  unbounded recursion (SIGSEGV on a full stack)
 *   badstack  a fault with the stack pointer at 0: the unwinder faults too
 *   segv, ill, fpe, trap, raise   one fatal signal each */
#include <assert.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static sigjmp_buf back;
static volatile sig_atomic_t faults;
static char own_stack[64 * 1024];
static volatile uintptr_t handler_sp;

static void on_segv(int sig)
{
	char here;

	(void)sig;
	handler_sp = (uintptr_t)&here;
	faults++;
	siglongjmp(back, 1);
}

static int query(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
	struct sigaction old;
	stack_t ss;
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], NULL, &old);
		printf("sigaction %d: %s flags %#x\n", sigs[i],
		       old.sa_handler == SIG_DFL ? "default" : "handler", (unsigned)old.sa_flags);
	}
	printf("signal(SIGSEGV) was %s\n", signal(SIGSEGV, on_segv) == SIG_DFL ? "default" : "handler");
	printf("signal(SIGSEGV) again was %s\n", signal(SIGSEGV, SIG_DFL) == on_segv ? "ours" : "other");
	sigaltstack(NULL, &ss);
	printf("sigaltstack: %s\n", ss.ss_flags & SS_DISABLE ? "disabled" : "set");
	return 0;
}

static int recover(void)
{
	struct sigaction sa;
	volatile int *volatile bad = NULL;
	volatile int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	for (i = 0; i < 3; i++)
		if (sigsetjmp(back, 1) == 0)
			*bad = i;
	printf("recovered from %d faults\n", (int)faults);
	return 0;
}

static int altstack(void)
{
	struct sigaction sa;
	stack_t ss = { .ss_sp = own_stack, .ss_size = sizeof(own_stack), .ss_flags = 0 }, now;
	volatile int *volatile bad = NULL;

	if (sigaltstack(&ss, NULL) != 0)
		return 3;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(back, 1) == 0)
		*bad = 1;
	sigaltstack(NULL, &now);
	printf("handler ran on its own stack: %d\n",
	       handler_sp >= (uintptr_t)own_stack && handler_sp < (uintptr_t)own_stack + sizeof(own_stack));
	printf("the stack is still its own: %d\n", now.ss_sp == own_stack);
	return 0;
}

static volatile int keep_going = 1;

static int depth(int n)
{
	volatile char pad[512];

	pad[0] = (char)n;
	return keep_going ? depth(n + 1) + pad[0] : pad[0];
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	volatile int zero = 0, seven = 7;
	volatile int *volatile low = (volatile int *)(uintptr_t)16;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "query"))
		return query();
	if (!strcmp(m, "recover"))
		return recover();
	if (!strcmp(m, "altstack"))
		return altstack();
	if (!strcmp(m, "assert"))
		assert(argc < 0 && "the value is positive");
	if (!strcmp(m, "overflow"))
		return depth(0);
	if (!strcmp(m, "segv"))
		return *low;
	if (!strcmp(m, "ill"))
		__builtin_trap();
	if (!strcmp(m, "fpe"))
		return seven / zero;
	if (!strcmp(m, "trap"))
		__asm__ volatile("int3");
#if defined(__x86_64__)
	if (!strcmp(m, "badstack"))
		__asm__ volatile("xor %%esp, %%esp\n\tmovl $0, (%%rsp)" ::: "memory");
#endif
	if (!strcmp(m, "raise"))
		raise(SIGSEGV);
	printf("after %s\n", m);
	return 0;
}
