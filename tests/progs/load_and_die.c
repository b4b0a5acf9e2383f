/* Test program: dlopen each library named on the command line (by name or
 * path), then end the way argv[1] says: exit, exit1, segv, abort, _exit, kill. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: load_and_die exit|exit1|segv|abort|_exit|kill [LIB...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		printf("%s %s\n", argv[i], dlopen(argv[i], RTLD_NOW) ? "loaded" : dlerror());
	fflush(stdout);
	if (strcmp(argv[1], "segv") == 0)
		*(volatile int *)(long)argc = 0;  /* an address nobody maps */
	if (strcmp(argv[1], "abort") == 0)
		abort();
	if (strcmp(argv[1], "exit1") == 0)
		exit(1);  /* through the exit handlers, as a Python error does */
	if (strcmp(argv[1], "_exit") == 0)
		_exit(7);
	if (strcmp(argv[1], "kill") == 0)
		kill(getpid(), SIGKILL);
	return 0;
}
