/* render/redact.c: the secrets gputrace bundle takes out, in every form a
 * trace, a facts file, a report or a summary holds them; and what it leaves. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/redact.h"
#include "tests/unit/unit.h"

static struct gt_redactions log_;

static const char *red(const char *s)
{
	static char out[4096];
	size_t n;
	char *r = gt_redact(s, strlen(s), &n, &log_);

	ck_assert_uint_eq(n, strlen(r));
	snprintf(out, sizeof(out), "%s", r);
	free(r);
	return out;
}

static void setup(void)
{
	memset(&log_, 0, sizeof(log_));
}

static void teardown(void)
{
	gt_redactions_free(&log_);
}

START_TEST(test_name_value)
{
	ck_assert_str_eq(red("env SECRET_TOKEN=s3cr3t python"), "env SECRET_TOKEN=[removed] python");
	ck_assert_str_eq(red("[\"HF_TOKEN=hf_abc\",\"x\"]"), "[\"HF_TOKEN=[removed]\",\"x\"]");
	ck_assert_str_eq(red("export AWS_SECRET_ACCESS_KEY='a b'; ls"), "export AWS_SECRET_ACCESS_KEY=[removed]; ls");
	ck_assert_str_eq(red("--api-key=k1 --password=p"), "--api-key=[removed] --password=[removed]");
	ck_assert_uint_eq(log_.nnames, 5);
	ck_assert_str_eq(log_.names[0], "AWS_SECRET_ACCESS_KEY");
	ck_assert_str_eq(log_.names[1], "HF_TOKEN");
	ck_assert_str_eq(log_.names[2], "SECRET_TOKEN");
	ck_assert_str_eq(log_.names[3], "api-key");
	ck_assert_str_eq(log_.names[4], "password");
}
END_TEST

START_TEST(test_json_keys_and_argv_words)
{
	ck_assert_str_eq(red("{\"env\":{\"WANDB_API_KEY\": \"abc\",\"LD_LIBRARY_PATH\":\"/a\"}}"),
			 "{\"env\":{\"WANDB_API_KEY\": \"[removed]\",\"LD_LIBRARY_PATH\":\"/a\"}}");
	ck_assert_str_eq(red("[\"run\",\"--token\",\n  \"t0k\",\"-v\"]"), "[\"run\",\"--token\",\n  \"[removed]\",\"-v\"]");
	ck_assert_str_eq(red("`train.py --auth-token t0k -v`"), "`train.py --auth-token [removed] -v`");
	/* folded to 100 columns: the value on the next line, under its item or
	 * after a paste-able command's backslash (a long path put it there) */
	ck_assert_str_eq(red("/long/path/prog --token\n    t0k\n"), "/long/path/prog --token\n    [removed]\n");
	ck_assert_str_eq(red("run: prog --token \\\n       t0k"), "run: prog --token \\\n       [removed]");
	/* gputrace's own keys are lower case: "key" is no variable */
	ck_assert_str_eq(red("{\"key\":\"/usr/lib/libkey.so\",\"path\":\"/k\"}"),
			 "{\"key\":\"/usr/lib/libkey.so\",\"path\":\"/k\"}");
	ck_assert_uint_eq(log_.nnames, 3);
}
END_TEST

START_TEST(test_urls)
{
	ck_assert_str_eq(red("PYTHONPATH=https://user:pw@host/py:/b"), "PYTHONPATH=https://host/py:/b");
	ck_assert_str_eq(red("\"git+ssh://git@github.com/a/b\""), "\"git+ssh://github.com/a/b\"");
	ck_assert_str_eq(red("https://host/a@b and mailto:a@b"), "https://host/a@b and mailto:a@b");
	ck_assert_uint_eq(log_.urls, 2);
	ck_assert_uint_eq(log_.nnames, 0);
}
END_TEST

START_TEST(test_hex_twins)
{
	/* "https://u:p@h/" as hex, then as the same hex without the user info */
	ck_assert_str_eq(red("{\"CUDA_HOME_hex\":\"68747470733a2f2f753a7040682f\"}"),
			 "{\"CUDA_HOME_hex\":\"68747470733a2f2f682f\"}");
	ck_assert_str_eq(red("{\"path_hex\":\"2f6c6962ff\"}"), "{\"path_hex\":\"2f6c6962ff\"}");
	ck_assert_uint_eq(log_.urls, 1);
}
END_TEST

START_TEST(test_left_alone)
{
	const char *plain = "{\"ev\":\"open\",\"path\":\"/usr/lib/x86_64-linux-gnu/libcudnn.so.9\",\"ns\":0}\n"
			    "LD_LIBRARY_PATH=/opt/cuda/lib64 CUDA_VISIBLE_DEVICES=0 python3 -m x\n"
			    "a cut line {\"ev\":\"sea";
	ck_assert_str_eq(red(plain), plain);
	ck_assert_uint_eq(log_.nnames + log_.urls, 0);
	ck_assert(gt_secret_name("db_password", 11));
	ck_assert(!gt_secret_name("LD_PRELOAD", 10));
}
END_TEST

Suite *redact_suite(void)
{
	Suite *s = suite_create("redact");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_name_value);
	tcase_add_test(tc, test_json_keys_and_argv_words);
	tcase_add_test(tc, test_urls);
	tcase_add_test(tc, test_hex_twins);
	tcase_add_test(tc, test_left_alone);
	suite_add_tcase(s, tc);
	return s;
}
