/* libFuzzer target: any bytes as a library file for host_elf_read (host/elf_info.c),
 * through a memfd opened by its /proc/self/fd path, as the scanner opens files;
 * the rpath lists found are expanded as the loader would. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host/elf_info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int input_fd = -1;
static char input_path[64];

static void expand(const char *list)
{
	char **dirs = NULL;
	size_t n;

	if (!list)
		return;
	n = host_expand_search_path(list, "/opt/x/lib/libfuzz.so.1", false, &dirs);
	host_free_strings(dirs, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host_elf_info info;

	if (input_fd < 0) {
		input_fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
		if (input_fd < 0)
			abort();
		snprintf(input_path, sizeof(input_path), "/proc/self/fd/%d", input_fd);
	}
	if (ftruncate(input_fd, 0) != 0 || pwrite(input_fd, data, size, 0) != (ssize_t)size)
		abort();
	if (host_elf_read(input_path, &info)) {
		expand(info.rpath);
		expand(info.runpath);
	} else if (!info.error[0]) {
		abort(); /* a failure must say why */
	}
	host_elf_free(&info);
	return 0;
}
