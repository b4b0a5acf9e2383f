/* Loads and unloads a library N times (dlopen, dlclose: a map and an unmap
 * the loader reports each time), saying on stdout, after each load returned,
 * how many have completed: a test can kill it midway and know which loads
 * the trace must hold. First line: its pid.
 *   load_loop N LIBRARY */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void say(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);

		if (w <= 0)
			exit(3);
		s += w;
		n -= (size_t)w;
	}
}

int main(int argc, char **argv)
{
	char line[64];
	long n, i;

	if (argc != 3)
		return 2;
	n = atol(argv[1]);
	snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	say(line);
	for (i = 1; i <= n; i++) {
		void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);

		if (!h)
			return 1;
		dlclose(h);
		snprintf(line, sizeof(line), "%ld\n", i);
		say(line);
	}
	return 0;
}
