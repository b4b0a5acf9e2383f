/* Unit tests: reading a file or a pipe whole (common/whole_file.c), as the
 * facts file, /proc files and dot's SVG are read. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/whole_file.h"
#include "tests/unit/unit.h"

static char folder[64];

static void make_folder(void)
{
	strcpy(folder, "/tmp/gt-whole-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(folder));
}

/* A file of n bytes, byte k being 'a' + k % 26; its path in path. */
static void make_file(char *path, size_t cap, const char *name, size_t n)
{
	char *bytes = malloc(n + 1);
	int fd;
	size_t k;

	for (k = 0; k < n; k++)
		bytes[k] = (char)('a' + k % 26);
	snprintf(path, cap, "%s/%s", folder, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bytes, n), (ssize_t)n);
	close(fd);
	free(bytes);
}

static void remove_folder(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", folder);
	ck_assert_int_eq(system(cmd), 0);
}

/* Every byte comes back, NUL-terminated, for sizes around the first
 * buffer's and up to exactly the limit; one byte more is EFBIG, not a
 * shortened file. */
START_TEST(test_file_sizes_and_limit)
{
	static const size_t sizes[] = { 0, 1, 4094, 4095, 4096, 4097, 100000 };
	char path[128];
	size_t i, len, k;

	make_folder();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *text;

		make_file(path, sizeof(path), "f", sizes[i]);
		len = 12345;
		text = gt_read_whole_path(path, sizes[i], &len);
		ck_assert_ptr_nonnull(text);
		ck_assert_uint_eq(len, sizes[i]);
		ck_assert_int_eq(text[len], 0);
		for (k = 0; k < len; k++)
			ck_assert_int_eq(text[k], 'a' + k % 26);
		free(text);
		if (sizes[i] == 0)
			continue;
		errno = 0;
		ck_assert_ptr_null(gt_read_whole_path(path, sizes[i] - 1, &len));
		ck_assert_int_eq(errno, EFBIG);
	}
	remove_folder();
}
END_TEST

/* A pipe has no size to start from: the buffer grows to the limit, and
 * the reader sees every byte the writer wrote. */
START_TEST(test_pipe_grows)
{
	int p[2];
	pid_t pid;
	size_t n = 300000, len, k;
	char *text;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char chunk[1000];

		close(p[0]);
		for (k = 0; k < n; k++) {
			chunk[k % sizeof(chunk)] = (char)('a' + k % 26);
			if (k % sizeof(chunk) == sizeof(chunk) - 1 &&
			    write(p[1], chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	text = gt_read_whole(p[0], n, &len);
	close(p[0]);
	waitpid(pid, NULL, 0);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(len, n);
	for (k = 0; k < len; k++)
		ck_assert_int_eq(text[k], 'a' + k % 26);
	ck_assert_int_eq(text[len], 0);
	free(text);
}
END_TEST

/* A missing file and a folder say why through errno. */
START_TEST(test_errors)
{
	size_t len;

	make_folder();
	errno = 0;
	ck_assert_ptr_null(gt_read_whole_path("/nonexistent/gt-whole", 100, &len));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(gt_read_whole_path(folder, 100, &len));
	ck_assert_int_eq(errno, EISDIR);
	remove_folder();
}
END_TEST

Suite *whole_file_suite(void)
{
	Suite *s = suite_create("whole_file");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_file_sizes_and_limit);
	tcase_add_test(tc, test_pipe_grows);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}
