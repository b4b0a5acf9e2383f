/* Making the index of a site's pip RECORDs (host/list_index.c), as the first
 * diagnosis after a pip install does, ROUNDS times: each round into a new
 * empty cache folder, so that it is made (and saved) every time. Prints each
 * round's CPU time in microseconds, one a line; the last round's index file
 * stays in KEEP (for comparing two builds' files byte for byte).
 *   pip_index SITE ROUNDS KEEP
 * Built by bench/pip_index.sh against a given host/list_index.c. */
#define _GNU_SOURCE
#include "host/list_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	char dir[4096];
	int rounds, r;

	if (argc != 4 || (rounds = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: pip_index SITE ROUNDS KEEP\n");
		return 2;
	}
	for (r = 0; r < rounds; r++) {
		struct list_index *ix;
		double t0;

		if (r == rounds - 1)
			snprintf(dir, sizeof(dir), "%s", argv[3]);
		else
			snprintf(dir, sizeof(dir), "%s/round%d", argv[3], r);
		setenv("GPUTRACE_CACHE_DIR", dir, 1);
		t0 = cpu_us();
		ix = list_index_get(LIST_PIP, argv[1]);
		printf("%.0f\n", cpu_us() - t0);
		if (!ix) {
			fprintf(stderr, "pip_index: %s: no index\n", argv[1]);
			return 1;
		}
		list_index_free(ix);
	}
	return 0;
}
