/* malloc_loop: N cudaMalloc+cudaFree pairs per thread in T threads, timed
 * inside the program, so that what gputrace adds to each intercepted call can
 * be told apart from process start-up and exit.
 *
 *   malloc_loop [PAIRS_PER_THREAD [THREADS]]     defaults: 10000000 1
 *
 * Linked by path against a libcudart (the fake one under
 * build/fixtures/cuda-13/lib64) and called through the PLT, so a preloaded
 * definition interposes exactly as it does in a real program.  No CUDA
 * headers: the two prototypes are declared here.  The fake runtime needs the
 * fake driver: put build/fixtures/driver on LD_LIBRARY_PATH.
 *
 * Output (one line, parsed by bench/paired.py):
 *   malloc_loop threads=T pairs=TOTAL loop_ns=WALL ns_per_pair=X ns_per_call=Y cpu_ns_per_call=Z
 * loop_ns is the wall time from the moment all threads are released until the
 * last one finishes; ns_per_pair is the mean, over threads, of each thread's
 * own loop time divided by its pairs (for T=1: loop_ns / pairs), and
 * ns_per_call is ns_per_pair / 2. cpu_ns_per_call is the same mean of each
 * thread's CPU time in its loop (CLOCK_THREAD_CPUTIME_ID): what a call costs
 * the thread that makes it, without the time it waited for a CPU. With more
 * threads than CPUs the wall figures include the other threads' turns (8
 * threads on 2 CPUs: about 4x); the CPU figure does not, and still includes
 * every stall on a cache line that another CPU wrote.  There is no untimed warm-up call, so a
 * trace counts exactly PAIRS*THREADS calls of each; the runtime's one-time
 * start (it dlopen()s the driver) falls inside the first thread's loop, a few
 * microseconds over millions of calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cudaMalloc(void **ptr, size_t size);
int cudaFree(void *ptr);

struct worker {
	pthread_t thread;
	unsigned long long pairs;
	int id;
	int failed_call;	/* 0 ok, 1 cudaMalloc, 2 cudaFree */
	int status;
	unsigned long long done;
	uint64_t loop_ns;
	uint64_t cpu_ns;
};

static pthread_barrier_t start_line;

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static unsigned long long parse_count(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v == 0) {
		fprintf(stderr, "malloc_loop: bad %s '%s' (a positive integer)\n", what, s);
		exit(2);
	}
	return v;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	unsigned long long i;
	uint64_t t0, cpu0;

	pthread_barrier_wait(&start_line);
	t0 = now_ns();
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < w->pairs; i++) {
		void *p = NULL;
		int rc = cudaMalloc(&p, 256);

		if (rc != 0) {
			w->failed_call = 1;
			w->status = rc;
			break;
		}
		rc = cudaFree(p);
		if (rc != 0) {
			w->failed_call = 2;
			w->status = rc;
			break;
		}
	}
	w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	w->loop_ns = now_ns() - t0;
	w->done = i;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long long pairs = 10000000ULL, total = 0;
	unsigned threads = 1, t;
	struct worker *w;
	double per_pair = 0, cpu_per_pair = 0;
	uint64_t t0, wall;
	int bad = 0;

	if (argc > 3) {
		fprintf(stderr, "usage: %s [PAIRS_PER_THREAD [THREADS]]\n", argv[0]);
		return 2;
	}
	if (argc > 1)
		pairs = parse_count(argv[1], "pair count");
	if (argc > 2) {
		unsigned long long n = parse_count(argv[2], "thread count");

		if (n > 1024) {
			fprintf(stderr, "malloc_loop: at most 1024 threads\n");
			return 2;
		}
		threads = (unsigned)n;
	}

	w = calloc(threads, sizeof(*w));
	if (!w || pthread_barrier_init(&start_line, NULL, threads + 1) != 0) {
		fprintf(stderr, "malloc_loop: out of memory\n");
		return 1;
	}
	for (t = 0; t < threads; t++) {
		int err;

		w[t].pairs = pairs;
		w[t].id = (int)t;
		err = pthread_create(&w[t].thread, NULL, run, &w[t]);
		if (err) {
			fprintf(stderr, "malloc_loop: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	pthread_barrier_wait(&start_line);
	t0 = now_ns();
	for (t = 0; t < threads; t++)
		pthread_join(w[t].thread, NULL);
	wall = now_ns() - t0;

	for (t = 0; t < threads; t++) {
		total += w[t].done;
		if (w[t].failed_call) {
			fprintf(stderr, "malloc_loop: thread %u: %s failed with %d after %llu pairs%s\n",
				t, w[t].failed_call == 1 ? "cudaMalloc" : "cudaFree",
				w[t].status, w[t].done,
				w[t].status == 35 || w[t].status == 34 ?
				" (is the fake driver on LD_LIBRARY_PATH? build/fixtures/driver)" : "");
			bad = 1;
		}
		per_pair += (double)w[t].loop_ns / (double)w[t].pairs;
		cpu_per_pair += (double)w[t].cpu_ns / (double)w[t].pairs;
	}
	if (bad)
		return 1;
	per_pair /= threads;
	cpu_per_pair /= threads;
	printf("malloc_loop threads=%u pairs=%llu loop_ns=%" PRIu64
	       " ns_per_pair=%.2f ns_per_call=%.2f cpu_ns_per_call=%.2f\n",
	       threads, total, wall, per_pair, per_pair / 2, cpu_per_pair / 2);
	free(w);
	return 0;
}
