/* Test program linked against the fake libcudart (fixtures/): runs the
 * operations named on the command line, in order, and prints their statuses.
 *   m:SIZE     cudaMalloc(SIZE), the pointer kept
 *   f          cudaFree of the oldest pointer kept
 *   F:N        a new thread frees the N oldest pointers kept (the main thread's)
 *   n          cudaGetDeviceCount
 *   t:T:N      T threads, each N cudaMalloc(256)/cudaFree pairs
 *   errno      set errno to 77, make calls that write trace lines, print errno
 *   segv       die by SIGSEGV */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cudaMalloc(void **ptr, size_t size);
int cudaFree(void *ptr);
int cudaGetDeviceCount(int *count);

#define MAX_KEPT 1024

static void *kept[MAX_KEPT];
static int n_kept, first_kept;

static void *pairs(void *arg)
{
	long n = (long)arg, i;
	void *p;

	for (i = 0; i < n; i++) {
		if (cudaMalloc(&p, 256) != 0 || cudaFree(p) != 0) {
			fprintf(stderr, "cuda_ops: call failed\n");
			exit(1);
		}
	}
	return NULL;
}

static void *free_kept(void *arg)
{
	long n = (long)arg;

	for (; n > 0 && first_kept < n_kept; n--)
		printf("cudaFree=%d\n", cudaFree(kept[first_kept++]));
	return NULL;
}

static void free_in_thread(long n)
{
	pthread_t th;

	if (pthread_create(&th, NULL, free_kept, (void *)n) == 0)
		pthread_join(th, NULL);
}

static void run_threads(int t, long n)
{
	pthread_t th[64];
	int i;

	for (i = 0; i < t && i < 64; i++)
		pthread_create(&th[i], NULL, pairs, (void *)n);
	for (i = 0; i < t && i < 64; i++)
		pthread_join(th[i], NULL);
	printf("threads %d x %ld pairs done\n", t, n);
}

static void run_op(const char *op)
{
	void *p = NULL;
	int count = -1, t;
	long n;

	if (strncmp(op, "m:", 2) == 0) {
		int r = cudaMalloc(&p, strtoull(op + 2, NULL, 0));

		printf("cudaMalloc(%s)=%d\n", op + 2, r);
		if (r == 0 && n_kept < MAX_KEPT)
			kept[n_kept++] = p;
	} else if (strcmp(op, "f") == 0 && first_kept < n_kept) {
		printf("cudaFree=%d\n", cudaFree(kept[first_kept++]));
	} else if (strcmp(op, "n") == 0) {
		printf("cudaGetDeviceCount=%d\n", cudaGetDeviceCount(&count));
	} else if (sscanf(op, "F:%ld", &n) == 1) {
		free_in_thread(n);
	} else if (sscanf(op, "t:%d:%ld", &t, &n) == 2) {
		run_threads(t, n);
	} else if (strcmp(op, "errno") == 0) {
		errno = 77;
		cudaGetDeviceCount(&count);
		cudaMalloc(&p, (size_t)1 << 62);
		cudaMalloc(&p, 512);
		cudaFree(p);
		printf("errno=%d\n", errno);
	} else if (strcmp(op, "segv") == 0) {
		fflush(stdout);
		*(volatile int *)(long)t = 0;
	}
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		run_op(argv[i]);
	return 0;
}
