/* rules/shown_path.c: paths in what a finding says, without `.`, `..` or
 * `//` (issue 28); with no facts, lexically. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/shown_path.h"
#include "tests/unit/unit.h"

static char *shown_in(const char *text)
{
	static char out[1024];
	char *s = gt_shown_paths_in(NULL, text);

	snprintf(out, sizeof(out), "%s", s);
	free(s);
	return out;
}

START_TEST(test_lexical_clean)
{
	char p[][64] = { "/a/lib/../../b/x", "/a/./b//c/", "/..", "/a/b/..", "relative/../x" };

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		gt_path_lexical_clean(p[i]);
	ck_assert_str_eq(p[0], "/b/x");
	ck_assert_str_eq(p[1], "/a/b/c");
	ck_assert_str_eq(p[2], "/");
	ck_assert_str_eq(p[3], "/a");
	ck_assert_str_eq(p[4], "relative/../x");
}
END_TEST

START_TEST(test_paths_in_words)
{
	ck_assert_str_eq(shown_in("provider: /v/torch/lib/../../nvidia/nccl/lib/libnccl.so.2 [rpath], which"),
			 "provider: /v/nvidia/nccl/lib/libnccl.so.2 [rpath], which");
	ck_assert_str_eq(shown_in("/e/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found"),
			 "/e/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found");
	ck_assert_str_eq(shown_in("(at /a/./b) and '/c//d'"), "(at /a/b) and '/c/d'");
	/* clean paths, relative ones and URLs are left as they are */
	ck_assert_str_eq(shown_in("/usr/lib/x86_64-linux-gnu/libcuda.so.1 in lib/../x and https://x.org/a/../b"),
			 "/usr/lib/x86_64-linux-gnu/libcuda.so.1 in lib/../x and https://x.org/a/../b");
	ck_assert_str_eq(shown_in("$ORIGIN/../lib stays a pattern"), "$ORIGIN/../lib stays a pattern");
}
END_TEST

Suite *shown_path_suite(void)
{
	Suite *s = suite_create("shown_path");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_lexical_clean);
	tcase_add_test(tc, test_paths_in_words);
	suite_add_tcase(s, tc);
	return s;
}
