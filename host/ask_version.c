/* gputrace scan --ask's child process (ask_version.h). */
#define _GNU_SOURCE
#include "host/ask_version.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ANSWER_MAX 8192

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* In the child: a clean loader environment, no core file, stdout to the pipe. */
static void exec_helper(const char *helper, const char *component, const char *path, int out)
{
	struct rlimit no_core = { 0, 0 };
	int devnull = open("/dev/null", O_RDWR);

	setrlimit(RLIMIT_CORE, &no_core);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDERR_FILENO);
	}
	dup2(out, STDOUT_FILENO);
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("LD_PRELOAD");
	unsetenv("LD_AUDIT");
	execl(helper, helper, "--ask-version", component, path, (char *)NULL);
	_exit(127);
}

/* What the child wrote, until it closes the pipe or the time is up; false
 * on timeout. */
static bool read_answer(int fd, int timeout_ms, char *buf, size_t cap)
{
	long long deadline = now_ms() + timeout_ms;
	size_t used = 0;

	buf[0] = 0;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		long long left = deadline - now_ms();
		ssize_t n;
		int r;

		if (left <= 0)
			return false;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		n = read(fd, buf + used, cap - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return true;
		used += (size_t)n;
		buf[used] = 0;
		if (used + 1 >= cap)
			return true;
	}
}

/* The value of the line "KEY\tVALUE" in answer, or false. */
static bool field(const char *answer, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key);
	const char *line;

	for (line = answer; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == '\t') {
			snprintf(out, cap, "%.*s", (int)strcspn(line + klen + 1, "\n"), line + klen + 1);
			return true;
		}
	return false;
}

static void explain_status(int status, const char *answer, char *err, size_t ecap)
{
	if (WIFSIGNALED(status))
		snprintf(err, ecap, "the child that called it was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (!field(answer, "error", err, ecap))
		snprintf(err, ecap, "the child that called it exited with status %d and no answer",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

bool host_ask_version(const char *helper, const char *component, const char *path, int timeout_ms,
		      char *version, size_t vcap, char *from, size_t fcap, char *err, size_t ecap)
{
	char answer[ANSWER_MAX];
	int fds[2], status = 0;
	bool in_time;
	pid_t pid;

	version[0] = from[0] = err[0] = 0;
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(err, ecap, "pipe: %s", strerror(errno));
		return false;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, ecap, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0)
		exec_helper(helper, component, path, fds[1]);
	close(fds[1]);
	in_time = read_answer(fds[0], timeout_ms, answer, sizeof(answer));
	close(fds[0]);
	if (!in_time)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!in_time) {
		snprintf(err, ecap, "no answer in %d ms: the child that called it was killed", timeout_ms);
		return false;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && field(answer, "version", version, vcap)) {
		field(answer, "from", from, fcap);
		return true;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		return false;  /* nothing to ask: not an error */
	explain_status(status, answer, err, ecap);
	return false;
}
