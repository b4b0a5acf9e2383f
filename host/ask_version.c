/* gputrace scan --ask's child process (ask_version.h). */
#define _GNU_SOURCE
#include "host/ask_version.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

#define ASK_AS_LIMIT (8ull << 30)  /* address space: cuBLASLt and cuDNN map about 1 GiB */

static void limit(int resource, rlim_t value)
{
	struct rlimit rl = { value, value };

	setrlimit(resource, &rl);
}

/* In the child: the library's code runs here, so the child gets as little
 * as it needs. Its own session and process group (all killed together at
 * the timeout); no core file; no CPU past the timeout; no more processes
 * than it has (RLIMIT_NPROC 0: it cannot fork; root is not held by it, and
 * what a root child forks is swept by the subreaper, see reap_strays); no
 * file written (RLIMIT_FSIZE 0: the pipe is not a file); an address space
 * that loading takes but a runaway does not; and an environment of one
 * PATH, so no token, key or loader variable of the caller's reaches it (the
 * file's dependencies come from its own RUNPATH and the cache). */
static void exec_helper(const char *helper, const char *component, const char *path, int out, int timeout_ms)
{
	static char *const clean_env[] = { "PATH=/usr/bin:/bin", NULL };
	int devnull = open("/dev/null", O_RDWR);

	setsid();
	limit(RLIMIT_CORE, 0);
	limit(RLIMIT_CPU, (rlim_t)(timeout_ms / 1000 + 2));
	limit(RLIMIT_NPROC, 0);
	limit(RLIMIT_FSIZE, 0);
	limit(RLIMIT_AS, (rlim_t)ASK_AS_LIMIT);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDERR_FILENO);
	}
	dup2(out, STDOUT_FILENO);
	execle(helper, helper, "--ask-version", component, path, (char *)NULL, clean_env);
	_exit(127);
}

/* The children left to this process after the ask (a grandchild that left
 * the child's process group with setsid, reparented here because this
 * process is their subreaper): killed and reaped, until none is left. The
 * scan has no other child. */
static void reap_strays(void)
{
	char path[64], buf[4096];
	int rounds, fd;
	ssize_t n;

	for (rounds = 0; rounds < 64; rounds++) {
		char *p, *end;
		bool any = false;

		snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)gettid());
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = 0;
		for (p = buf; *p; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			if (pid > 0) {
				kill((pid_t)pid, SIGKILL);
				while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
					;
				any = true;
			}
		}
		if (!any)
			return;
	}
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
	/* Orphans of the child come back to us, to be killed (reap_strays). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = fork();
	if (pid < 0) {
		snprintf(err, ecap, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0)
		exec_helper(helper, component, path, fds[1], timeout_ms);
	close(fds[1]);
	in_time = read_answer(fds[0], timeout_ms, answer, sizeof(answer));
	close(fds[0]);
	/* The child's whole process group, answer or not: what it started
	 * must not outlive the question. */
	kill(-pid, SIGKILL);
	if (!in_time)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	reap_strays();
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

/* A folder or file that someone other than root may change: writable by
 * its group or by everyone (a folder with the sticky bit, like /tmp, lets
 * no one replace what is not theirs), or owned by another user. */
static bool others_may_change(const struct stat *st, bool folder)
{
	if (st->st_uid != 0)
		return true;
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	return !(folder && (st->st_mode & S_ISVTX));
}

bool host_ask_refused(const char *path, char *why, size_t cap)
{
	char folder[PATH_MAX];
	struct stat st;
	char *slash;

	why[0] = 0;
	if (geteuid() != 0)
		return false;
	if (path[0] != '/' || stat(path, &st) != 0) {
		snprintf(why, cap, "not asked: gputrace runs as root and %.200s cannot be checked", path);
		return true;
	}
	if (others_may_change(&st, false)) {
		snprintf(why, cap, "not asked: gputrace runs as root and the file is %s", st.st_uid != 0 ?
			 "not owned by root" : "writable by others");
		return true;
	}
	snprintf(folder, sizeof(folder), "%s", path);
	while ((slash = strrchr(folder, '/')) != NULL) {
		slash[slash == folder ? 1 : 0] = 0;
		if (stat(folder, &st) != 0 || others_may_change(&st, true)) {
			snprintf(why, cap, "not asked: gputrace runs as root and the folder %.200s is %s", folder,
				 st.st_uid != 0 ? "not owned by root" : "writable by others");
			return true;
		}
		if (slash == folder)
			break;
	}
	return false;
}
