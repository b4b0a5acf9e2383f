/* Unit tests: control characters escaped for terminals (render/printable.c);
 * text folded to 100 columns, paths without `..` (render/fold.c). */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/fold.h"
#include "render/printable.h"
#include "tests/unit/unit.h"

START_TEST(test_clean_text_is_itself)
{
	const char *s = "/usr/local/cuda-13.0/lib/libcudnn.so.9 \xc3\xa9t\xc3\xa9\tx";

	ck_assert_ptr_eq(gt_printable(s), s);
	ck_assert_str_eq(gt_printable(NULL), "(null)");
}
END_TEST

START_TEST(test_controls_escaped)
{
	ck_assert_str_eq(gt_printable("a\x1b]0;t\x07" "b"), "a\\x1b]0;t\\x07b");
	ck_assert_str_eq(gt_printable("\x7f\n\r"), "\\x7f\\x0a\\x0d");
	/* C1 controls: a lone byte, and U+009B (CSI) written in UTF-8 */
	ck_assert_str_eq(gt_printable("x\x9b" "1m"), "x\\x9b1m");
	ck_assert_str_eq(gt_printable("x\xc2\x9b" "1m"), "x\\xc2\\x9b1m");
	/* a backslash that would read as an escape is doubled */
	ck_assert_str_eq(gt_printable("C:\\xyz\x1b"), "C:\\\\xyz\\x1b");
}
END_TEST

START_TEST(test_cut_to_fit)
{
	char out[16];

	gt_printable_into("\x1b\x1b\x1b\x1b\x1b\x1b", out, sizeof(out));
	ck_assert_uint_lt(strlen(out), sizeof(out));
	ck_assert_ptr_null(strchr(out, '\x1b'));
	ck_assert_str_eq(out + strlen(out) - 3, "...");
}
END_TEST

static void normalised(const char *in, const char *want)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", in);
	gt_normalise_path(buf);
	ck_assert_str_eq(buf, want);
}

START_TEST(test_path_normalised_lexically)
{
	normalised("/sp/torch/lib/../../nvidia/cu13/lib/libcudart.so.13", "/sp/nvidia/cu13/lib/libcudart.so.13");
	normalised("/a/./b//c/", "/a/b/c/");
	normalised("/a/..", "/");
	normalised("/../x", "/x");
	normalised("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9");
	normalised("relative/../x", "relative/../x");   /* never a relative path */
	normalised("/a/..b/c", "/a/..b/c");
}
END_TEST

START_TEST(test_paths_in_text)
{
	char t[] = "- cudnn 9.19.0 from /sp/torch/lib/../../nvidia/cudnn/lib/libcudnn.so.9 [rpath], "
		   "LD_LIBRARY_PATH=/x/../y:/z/./w (/q/r/../s) ../keep";

	gt_normalise_paths_in(t);
	ck_assert_str_eq(t, "- cudnn 9.19.0 from /sp/nvidia/cudnn/lib/libcudnn.so.9 [rpath], "
			 "LD_LIBRARY_PATH=/y:/z/w (/q/s) ../keep");
}
END_TEST

static char *folded(const char *line, size_t width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	gt_fold_line(f, line, width);
	fclose(f);
	return buf;
}

START_TEST(test_fold_under_the_item)
{
	char *s = folded("           - cudnn_graph 9.14.0 from /usr/local/cuda-13.0/lib/libcudnn_graph.so.9 [ld_library_path]", 60);

	ck_assert_str_eq(s, "           - cudnn_graph 9.14.0 from\n"
			    "             /usr/local/cuda-13.0/lib/libcudnn_graph.so.9\n"
			    "             [ld_library_path]\n");
	free(s);
	s = folded("  error    mixed-versions: cudnn parts of different versions in one process", 41);
	ck_assert_str_eq(s, "  error    mixed-versions: cudnn parts of\n"
			    "           different versions in one\n"
			    "           process\n");
	free(s);
	/* colour takes no column; a short line is itself */
	s = folded("  \033[31merror\033[0m    x: y", 20);
	ck_assert_str_eq(s, "  \033[31merror\033[0m    x: y\n");
	free(s);
	/* a colour's reset after the padding takes no column: the same indent */
	s = folded("  \033[31merror  \033[0m  id: aaaa bbbb cccc", 24);
	ck_assert_str_eq(s, "  \033[31merror  \033[0m  id: aaaa bbbb\n           cccc\n");
	free(s);
	/* a word wider than the room is never cut */
	s = folded("    fix: /a/very/long/path/that/does/not/fit", 20);
	ck_assert_str_eq(s, "    fix:\n         /a/very/long/path/that/does/not/fit\n");
	free(s);
}
END_TEST

Suite *printable_suite(void)
{
	Suite *s = suite_create("printable");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_clean_text_is_itself);
	tcase_add_test(tc, test_controls_escaped);
	tcase_add_test(tc, test_cut_to_fit);
	tcase_add_test(tc, test_path_normalised_lexically);
	tcase_add_test(tc, test_paths_in_text);
	tcase_add_test(tc, test_fold_under_the_item);
	suite_add_tcase(s, tc);
	return s;
}
