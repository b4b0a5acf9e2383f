/* Test program: makes children in the ways programs do (fork, fork+exec,
 * posix_spawn, vfork+exec), each loading a library, and waits for them. */
#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void wait_all(void)
{
	while (wait(NULL) > 0)
		;
}

int main(int argc, char **argv)
{
	char *child_argv[] = { argv[0], "child", NULL };
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		printf("exec child %d %s\n", getpid(), dlopen("libm.so.6", RTLD_NOW) ? "ok" : dlerror());
		return 0;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		printf("fork child %d %s\n", getpid(), dlopen("libz.so.1", RTLD_NOW) ? "ok" : dlerror());
		return 0;
	}
	wait_all();
	fflush(stdout);
	if (fork() == 0) {
		execv(argv[0], child_argv);
		_exit(127);
	}
	wait_all();
	if (posix_spawn(&pid, argv[0], NULL, NULL, child_argv, environ) != 0)
		return 3;
	wait_all();
	fflush(stdout);
	if (vfork() == 0) {
		execv(argv[0], child_argv);
		_exit(127);
	}
	wait_all();
	printf("parent %d done\n", getpid());
	return 0;
}
