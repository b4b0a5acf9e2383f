/* fatbin_read: what host/fatbin.c reads from each file, and how long that
 * takes (bench/README.md, section "fat binaries"). For each PATH: the section
 * size, containers, entries, the SASS and PTX lists, and the median of R
 * reads with the reader's cache cleared between them (the file itself stays
 * in the page cache after the first: run once after `echo 3 >
 * /proc/sys/vm/drop_caches` for a cold figure).
 *   fatbin_read [-r R] PATH...
 * --sass / --ptx print only the unique SASS or PTX names, one a line, sorted
 * as `sort` would (to compare with cuobjdump --list-elf / --list-ptx). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/fatbin.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int by_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void print_names(const struct host_fatbin *fb, int ptx)
{
	char names[HOST_FATBIN_MAX_IMAGES][32];
	size_t i, n = 0;

	for (i = 0; i < fb->nimages; i++)
		if (fb->images[i].ptx == ptx)
			host_fatbin_image_name(&fb->images[i], names[n++], sizeof(names[0]));
	qsort(names, n, sizeof(names[0]), by_name);
	for (i = 0; i < n; i++)
		puts(names[i]);
}

static int one_file(const char *path, int rounds, int only)
{
	double t[101], t0;
	char err[256], list[2048];
	const struct host_fatbin *fb = NULL;
	int r;

	for (r = 0; r < rounds; r++) {
		host_fatbin_cache_clear();
		t0 = now_ms();
		fb = host_fatbin_of(path, err, sizeof(err));
		t[r] = now_ms() - t0;
		if (!fb) {
			fprintf(stderr, "fatbin_read: %s: %s\n", path, err);
			return 1;
		}
	}
	if (only) {
		print_names(fb, only == 2);
		return 0;
	}
	qsort(t, (size_t)rounds, sizeof(t[0]), by_value);
	host_fatbin_list(fb, list, sizeof(list));
	printf("%s\n  section %llu bytes, %u containers, %u entries (%u other)%s\n  %s\n"
	       "  read: median %.3f ms of %d (min %.3f, max %.3f)\n",
	       path, fb->section_bytes, fb->containers, fb->entries, fb->other_entries,
	       fb->partial ? ", PARTIAL" : fb->code_elsewhere ? ", and more in a data section (not read)" : "", fb->has_device_code ? list : "(no device code)",
	       t[rounds / 2], rounds, t[0], t[rounds - 1]);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1, rounds = 11, only = 0, rc = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--sass") == 0)
			only = 1;
		else if (strcmp(argv[i], "--ptx") == 0)
			only = 2;
		else
			break;
	}
	if (rounds < 1 || rounds > 101 || i >= argc) {
		fprintf(stderr, "usage: fatbin_read [-r 1..101] [--sass|--ptx] PATH...\n");
		return 2;
	}
	if (only)
		rounds = 1;
	for (; i < argc; i++)
		rc |= one_file(argv[i], rounds, only);
	return rc;
}
