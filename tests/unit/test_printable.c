/* Unit tests: control characters escaped for terminals (render/printable.c). */
#include <check.h>
#include <string.h>

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

Suite *printable_suite(void)
{
	Suite *s = suite_create("printable");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_clean_text_is_itself);
	tcase_add_test(tc, test_controls_escaped);
	tcase_add_test(tc, test_cut_to_fit);
	suite_add_tcase(s, tc);
	return s;
}
