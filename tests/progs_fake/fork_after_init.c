/* Initialises CUDA (the fake runtime), forks, and lets the child do what
 * argv[1] says: "call" (cudaMalloc, which fails with 3 as the real runtime
 * does in a child forked after init), "quiet" (no CUDA call; the parent then
 * fails as a pool that re-raises its child's error would), or "exec" (the
 * child execs /bin/true: a fresh image, CUDA fine). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int cudaGetDeviceCount(int *count);
int cudaMalloc(void **ptr, size_t size);

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "call";
	int n = 0, st = 0;
	void *p = NULL;
	pid_t pid;

	printf("parent: cudaGetDeviceCount %d\n", cudaGetDeviceCount(&n));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (strcmp(what, "exec") == 0)
			execl("/bin/true", "true", (char *)NULL);
		if (strcmp(what, "call") == 0) {
			int rc = cudaMalloc(&p, 64);

			printf("child: cudaMalloc %d\n", rc);
			fflush(stdout);
			_exit(rc ? 1 : 0);
		}
		_exit(0);
	}
	waitpid(pid, &st, 0);
	/* "quiet": the parent fails, as multiprocessing re-raises in the parent. */
	return strcmp(what, "quiet") == 0 ? 1 : WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
