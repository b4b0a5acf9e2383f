/* A program that uses file descriptors the way daemons and shells do, for the
 * tests that gputrace leaves them all to the program:
 *   fd_user every DIR     opens a file of its own on every fd from 3 to 1023
 *                         (DIR/fd.N), writes "fd N" into each, closes them
 *   fd_user dup2 DIR N    opens DIR/mine, dup2s it onto fd N, writes there
 *   fd_user limit         opens /dev/null until EMFILE: prints how many, and
 *                         the first fd it got
 *   fd_user chain DEPTH   forks DEPTH deep; the deepest prints how many fds
 *                         it has open */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1;  /* the folder's own fd */
}

static int every(const char *dir)
{
	char path[4096], text[32];
	int fd, got;

	for (fd = 3; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "%s/fd.%d", dir, fd);
		got = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (got < 0)
			return 1;
		if (got != fd && (dup2(got, fd) < 0 || close(got) != 0))
			return 2;
	}
	for (fd = 3; fd < 1024; fd++) {
		int n = snprintf(text, sizeof(text), "fd %d\n", fd);

		if (write(fd, text, (size_t)n) != n)
			return 3;
	}
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	return 0;
}

static int onto(const char *dir, int target)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/mine", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, target) < 0)
		return 1;
	if (write(target, "mine\n", 5) != 5)
		return 2;
	return 0;
}

static int limit(void)
{
	int first = -1, n = 0, fd;

	while ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		if (first < 0)
			first = fd;
		n++;
	}
	printf("opened %d, first fd %d\n", n, first);
	return 0;
}

static int chain(int depth)
{
	pid_t pid;
	int status;

	if (depth == 0) {
		printf("fds at the bottom: %d\n", open_fds());
		return 0;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		exit(chain(depth - 1));
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "every") == 0)
		return every(argv[2]);
	if (argc == 4 && strcmp(argv[1], "dup2") == 0)
		return onto(argv[2], atoi(argv[3]));
	if (argc == 2 && strcmp(argv[1], "limit") == 0)
		return limit();
	if (argc == 3 && strcmp(argv[1], "chain") == 0)
		return chain(atoi(argv[2]));
	return 64;
}
