/* proc_loop: N process operations in a row, timed inside the program, so the
 * cost gputrace adds to each fork or exec is measured without the launcher
 * and without this process's own start and exit (issue 34).
 *
 *   proc_loop fork N        fork; the child _exit(0)s at once; wait for it
 *   proc_loop fork-exit N   the same, the child ends with exit(0), so its
 *                           exit handlers and destructors run (as a shell's
 *                           subshell does)
 *   proc_loop spawn N       fork + execv(/bin/true) + wait (a shell's loop)
 *   proc_loop chain N       this program execs itself N times, one after
 *                           the other, in the same process (exec keeps the pid)
 *
 * Output (one line, parsed by bench/paired.py --metric ms_per_op):
 *   proc_loop MODE n=N loop_ns=WALL ms_per_op=X cpu_ms_per_op=Y
 * Y is the CPU time (user + system) of this process and of the children it
 * waited for, over the whole run, divided by N: on a loaded machine it moves
 * less than the wall time. For chain, the whole process (rusage survives exec).
 * A child that fails or a wait that does not see status 0 makes the program
 * exit 1: a bench must not time a loop that did not do its work. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static int wait_ok(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* One child: ends at once (`how` 0: _exit, 1: exit) or runs /bin/true. */
static int one_child(int how)
{
	static char *const true_argv[] = { "/bin/true", NULL };
	pid_t pid = fork();

	if (pid < 0)
		return 0;
	if (pid == 0) {
		if (how == 0)
			_exit(0);
		if (how == 1)
			exit(0);
		execv(true_argv[0], true_argv);
		_exit(127);
	}
	return wait_ok(pid);
}

static double cpu_ms(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru) != 0)
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static void report(const char *mode, long n, unsigned long long ns)
{
	double cpu = cpu_ms(RUSAGE_SELF) + cpu_ms(RUSAGE_CHILDREN);

	printf("proc_loop %s n=%ld loop_ns=%llu ms_per_op=%.4f cpu_ms_per_op=%.4f\n", mode, n, ns,
	       ns / 1e6 / n, cpu / n);
}

/* The next link of the chain: "chain-next LEFT N T0" (the start time and the
 * count travel in argv). The last one prints. */
static int chain(char *self, long left, long n, unsigned long long t0)
{
	char sleft[24], sn[24], st0[24];
	char *argv[] = { self, "chain-next", sleft, sn, st0, NULL };

	if (left <= 0) {
		report("chain", n, now_ns() - t0);
		return 0;
	}
	snprintf(sleft, sizeof(sleft), "%ld", left - 1);
	snprintf(sn, sizeof(sn), "%ld", n);
	snprintf(st0, sizeof(st0), "%llu", t0);
	execv("/proc/self/exe", argv);
	perror("proc_loop: exec");
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long t0;
	long i, n;
	int how;

	if (argc == 5 && strcmp(argv[1], "chain-next") == 0)
		return chain(argv[0], atol(argv[2]), atol(argv[3]), strtoull(argv[4], NULL, 10));
	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: proc_loop fork|fork-exit|spawn|chain N\n");
		return 2;
	}
	if (strcmp(argv[1], "chain") == 0)
		return chain(argv[0], n, n, now_ns());
	if (strcmp(argv[1], "fork") == 0)
		how = 0;
	else if (strcmp(argv[1], "fork-exit") == 0)
		how = 1;
	else if (strcmp(argv[1], "spawn") == 0)
		how = 2;
	else
		return 2;
	/* Children inherit stdio buffers: nothing is pending before the loop. */
	fflush(NULL);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (!one_child(how)) {
			fprintf(stderr, "proc_loop: child %ld failed\n", i);
			return 1;
		}
	report(argv[1], n, now_ns() - t0);
	return 0;
}
