/* render/svg_layout.c: libgvc loaded on first use, and the dot program
 * drawing, with the reason said, where it cannot be loaded. */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "render/pictures.h"
#include "tests/unit/unit.h"

static const char graph[] = "digraph g { a -> b; }";

#ifndef GPUTRACE_NO_GVC
START_TEST(test_libgvc_loaded_by_soname)
{
	char err[1024] = "";
	char *svg = gt_layout_svg(graph, err, sizeof(err));

	ck_assert_msg(svg != NULL, "%s", err);
	ck_assert_ptr_nonnull(strstr(svg, "<svg"));
	ck_assert_ptr_null(gt_layout_svg_note());
	free(svg);
}
END_TEST

START_TEST(test_no_libgvc_dot_program_draws_and_says_why)
{
	char err[1024] = "";
	char *svg = gt_layout_svg_with("libgvc-not-here.so.6", graph, err, sizeof(err));

	ck_assert_msg(svg != NULL, "%s", err);
	ck_assert_ptr_nonnull(strstr(svg, "<svg"));
	ck_assert_ptr_nonnull(gt_layout_svg_note());
	ck_assert_ptr_nonnull(strstr(gt_layout_svg_note(), "libgvc-not-here.so.6"));
	free(svg);
}
END_TEST

START_TEST(test_no_libgvc_no_dot_says_install_graphviz)
{
	char err[1024] = "";
	char *svg;

	setenv("PATH", "/nonexistent", 1);
	svg = gt_layout_svg_with("libgvc-not-here.so.6", graph, err, sizeof(err));
	ck_assert_ptr_null(svg);
	ck_assert_msg(strstr(err, "Graphviz's library could not be loaded") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "install graphviz") != NULL, "%s", err);
}
END_TEST
#endif

/* GVC=0: never loads libgvc, says nothing about it. */
START_TEST(test_dot_program_alone_without_path_says_install_graphviz)
{
	char err[1024] = "";
	char *svg;

	setenv("PATH", "/nonexistent", 1);
	svg = gt_layout_svg_with(NULL, graph, err, sizeof(err));
	ck_assert_ptr_null(svg);
	ck_assert_msg(strstr(err, "install graphviz") != NULL, "%s", err);
	ck_assert_ptr_null(gt_layout_svg_note());
}
END_TEST

Suite *svg_layout_suite(void)
{
	Suite *s = suite_create("svg_layout");
	TCase *tc = tcase_create("core");

#ifndef GPUTRACE_NO_GVC
	tcase_add_test(tc, test_libgvc_loaded_by_soname);
	tcase_add_test(tc, test_no_libgvc_dot_program_draws_and_says_why);
	tcase_add_test(tc, test_no_libgvc_no_dot_says_install_graphviz);
#endif
	tcase_add_test(tc, test_dot_program_alone_without_path_says_install_graphviz);
	suite_add_tcase(s, tc);
	return s;
}
