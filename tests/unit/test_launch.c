/* Unit tests: the launcher's pure helpers (cmd/launch.c) and format names. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gputrace/trace_format.h"
#include "cmd/launch.h"
#include "tests/unit/unit.h"

START_TEST(test_prepend_empty)
{
	char out[256];

	ck_assert(cmd_prepend_path_list(out, sizeof(out), "/g/libgputrace.so", NULL));
	ck_assert_str_eq(out, "/g/libgputrace.so");
	ck_assert(cmd_prepend_path_list(out, sizeof(out), "/g/libgputrace.so", ""));
	ck_assert_str_eq(out, "/g/libgputrace.so");
}
END_TEST

START_TEST(test_prepend_existing)
{
	char out[256];

	ck_assert(cmd_prepend_path_list(out, sizeof(out), "/g/libgputrace.so", "/a/libx.so"));
	ck_assert_str_eq(out, "/g/libgputrace.so:/a/libx.so");
}
END_TEST

START_TEST(test_prepend_already_present)
{
	char out[256];

	ck_assert(cmd_prepend_path_list(out, sizeof(out), "/g/lib.so", "/a/x.so:/g/lib.so"));
	ck_assert_str_eq(out, "/a/x.so:/g/lib.so");
	/* a longer name that merely contains it is not it */
	ck_assert(cmd_prepend_path_list(out, sizeof(out), "/g/lib.so", "/g/lib.so.1"));
	ck_assert_str_eq(out, "/g/lib.so:/g/lib.so.1");
}
END_TEST

START_TEST(test_prepend_too_long)
{
	char out[8];

	ck_assert(!cmd_prepend_path_list(out, sizeof(out), "/g/libgputrace.so", "/a"));
}
END_TEST

START_TEST(test_resolve_command)
{
	char out[4096];

	setenv("PATH", "/nonexistent:/bin:/usr/bin", 1);
	ck_assert_int_eq(cmd_resolve_command("sh", out, sizeof(out)), 0);
	ck_assert(strstr(out, "/sh") != NULL);
	ck_assert_int_ne(cmd_resolve_command("no-such-command-gputrace", out, sizeof(out)), 0);
	ck_assert_int_eq(cmd_resolve_command("/etc/passwd", out, sizeof(out)), 13 /* EACCES */);
}
END_TEST

START_TEST(test_untraceable_reason)
{
	ck_assert_ptr_null(cmd_untraceable_reason("/bin/sh"));
	ck_assert_ptr_null(cmd_untraceable_reason("/no/such/file"));
}
END_TEST

START_TEST(test_rule_names_roundtrip)
{
	int r;

	for (r = 0; r < GT_RULE_COUNT; r++)
		ck_assert_int_eq(gt_rule_from_name(gt_rule_name((enum gt_rule)r)), r);
	ck_assert_str_eq(gt_rule_name(GT_RULE_LD_LIBRARY_PATH), "ld_library_path");
	ck_assert_int_eq(gt_rule_from_name("nonsense"), GT_RULE_UNKNOWN);
	ck_assert_str_eq(gt_event_name(GT_EV_SEARCH_END), "search_end");
}
END_TEST

Suite *launch_suite(void)
{
	Suite *s = suite_create("launch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_prepend_empty);
	tcase_add_test(tc, test_prepend_existing);
	tcase_add_test(tc, test_prepend_already_present);
	tcase_add_test(tc, test_prepend_too_long);
	tcase_add_test(tc, test_resolve_command);
	tcase_add_test(tc, test_untraceable_reason);
	suite_add_tcase(s, tc);
	return s;
}

Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_rule_names_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}
