/* render/markup.c: trace text as text in DOT and HTML, whatever its bytes. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/markup.h"
#include "tests/unit/unit.h"

static char *clean(const char *s)
{
	static char out[256];
	char *t = gt_clean_text(s);

	snprintf(out, sizeof(out), "%s", t);
	free(t);
	return out;
}

typedef void (*put_fn)(FILE *, const char *);

static char *put(put_fn fn, const char *s)
{
	static char out[512];
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	fn(f, s);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

START_TEST(test_utf8_kept_controls_escaped)
{
	ck_assert_str_eq(clean("/opt/\xc3\xa9t\xc3\xa9/lib"), "/opt/\xc3\xa9t\xc3\xa9/lib");
	ck_assert_str_eq(clean("a\nb\x1b[31m\x7f"), "a\\x0Ab\\x1B[31m\\x7F");
	ck_assert_str_eq(clean("c1:\xc2\x9b"), "c1:\\x9B");
	ck_assert_str_eq(clean(NULL), "");
}
END_TEST

START_TEST(test_bad_bytes_replaced)
{
	/* a lone byte, an overlong '/', a surrogate, a sequence cut short */
	ck_assert_str_eq(clean("x\xffy"), "x\xef\xbf\xbdy");
	ck_assert_str_eq(clean("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");
	ck_assert_str_eq(clean("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	ck_assert_str_eq(clean("end\xe2\x82"), "end\xef\xbf\xbd\xef\xbf\xbd");
}
END_TEST

START_TEST(test_html_escapes_markup)
{
	ck_assert_str_eq(put(gt_put_html, "<script>alert(\"x\" & 'y')</script>"),
			 "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
	ck_assert_str_eq(put(gt_put_html, "a\x01<"), "a\\x01&lt;");
}
END_TEST

START_TEST(test_dot_escapes_quotes_and_backslashes)
{
	ck_assert_str_eq(put(gt_put_dot, "we\"ird\\n dir"), "we\\\"ird\\\\n dir");
	ck_assert_str_eq(put(gt_put_dot, "tab\there"), "tab\\\\x09here");
}
END_TEST

Suite *markup_suite(void)
{
	Suite *s = suite_create("markup");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_utf8_kept_controls_escaped);
	tcase_add_test(tc, test_bad_bytes_replaced);
	tcase_add_test(tc, test_html_escapes_markup);
	tcase_add_test(tc, test_dot_escapes_quotes_and_backslashes);
	suite_add_tcase(s, tc);
	return s;
}
