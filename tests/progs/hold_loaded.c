/* A process that loads what it is told and then waits, for gputrace inspect:
 * each argument is a library path to dlopen, or PATH:FUNCTION to dlopen and
 * then call FUNCTION (an int (void) function: a fixture's first convolution,
 * which loads cuDNN's sub-libraries). Prints "ready" and waits until its
 * standard input ends; exits 0, or 1 when a load fails. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int load(char *arg)
{
	char *colon = strrchr(arg, ':');
	int (*fn)(void);
	void *h;

	if (colon)
		*colon = 0;
	h = dlopen(arg, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "hold_loaded: %s\n", dlerror());
		return 1;
	}
	if (!colon)
		return 0;
	fn = (int (*)(void))dlsym(h, colon + 1);
	if (!fn) {
		fprintf(stderr, "hold_loaded: %s: no %s\n", arg, colon + 1);
		return 1;
	}
	printf("%s() = %d\n", colon + 1, fn());
	return 0;
}

int main(int argc, char **argv)
{
	char buf[256];
	int i;

	for (i = 1; i < argc; i++)
		if (load(argv[i]))
			return 1;
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
