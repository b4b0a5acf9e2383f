/* Unit tests: fixes as data, applied to a recorded environment and said in
 * words (rules/fix_data.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "read/trace_read.h"
#include "rules/fix_data.h"
#include "tests/unit/unit.h"

static json_t *parse(const char *text)
{
	json_t *v = json_loads(text, 0, NULL);

	ck_assert_ptr_nonnull(v);
	return v;
}

/* This host's facts, asked as retry asks them (kept for the whole run of
 * the tests: a few paths). */
static struct gt_host_facts *here(void)
{
	static struct gt_facts_set *set;

	if (!set)
		set = gt_facts_set_new(GT_FACTS_LIVE);
	return gt_facts_of_host(set, NULL);
}

static const char *val(json_t *env, const char *name)
{
	return json_string_value(json_object_get(env, name));
}

START_TEST(test_remove_from_a_list)
{
	json_t *fix = parse("{\"env\": {\"LD_LIBRARY_PATH\": {\"remove\": [\"/lib/x86_64-linux-gnu\"]}}}");
	json_t *env = parse("{\"LD_LIBRARY_PATH\": \"/opt/a:/lib/x86_64-linux-gnu/::/opt/b\"}");
	char words[256];

	/* a trailing slash names the same folder; empty entries go */
	ck_assert(gt_fix_apply(fix, env, here()));
	ck_assert_str_eq(val(env, "LD_LIBRARY_PATH"), "/opt/a:/opt/b");
	ck_assert(!gt_fix_apply(fix, env, here()));
	gt_fix_describe(fix, words, sizeof(words));
	ck_assert_str_eq(words, "LD_LIBRARY_PATH minus /lib/x86_64-linux-gnu");
	json_decref(fix);
	json_decref(env);
}
END_TEST

START_TEST(test_last_entry_removed_unsets)
{
	json_t *fix = parse("{\"env\": {\"LD_LIBRARY_PATH\": {\"remove\": [\"/x\"]}}}");
	json_t *env = parse("{\"LD_LIBRARY_PATH\": \"/x\"}");

	ck_assert(gt_fix_apply(fix, env, here()));
	ck_assert(json_is_null(json_object_get(env, "LD_LIBRARY_PATH")));
	json_decref(fix);
	json_decref(env);
}
END_TEST

START_TEST(test_set_unset_append)
{
	json_t *fix = parse("{\"env\": {\"unset\": [\"LD_PRELOAD\"], \"set\": {\"CUDA_VISIBLE_DEVICES\": \"0\"},"
			    " \"LD_LIBRARY_PATH\": {\"append\": [\"/c\"]}}}");
	json_t *env = parse("{\"LD_PRELOAD\": \"/a.so\", \"CUDA_VISIBLE_DEVICES\": \"\"}");
	char words[256];

	ck_assert(gt_fix_apply(fix, env, here()));
	ck_assert(json_is_null(json_object_get(env, "LD_PRELOAD")));
	ck_assert_str_eq(val(env, "CUDA_VISIBLE_DEVICES"), "0");
	ck_assert_str_eq(val(env, "LD_LIBRARY_PATH"), "/c");
	gt_fix_describe(fix, words, sizeof(words));
	ck_assert_str_eq(words, "LD_LIBRARY_PATH plus /c; unset LD_PRELOAD; CUDA_VISIBLE_DEVICES=\"0\"");
	json_decref(fix);
	json_decref(env);
}
END_TEST

START_TEST(test_nothing_to_change)
{
	json_t *fix = parse("{\"env\": {\"unset\": [\"LD_PRELOAD\"]}}"), *env = json_object();
	json_t *install = parse("{\"install\": \"pip install torch\"}");
	char words[256];

	ck_assert(!gt_fix_apply(fix, env, here()));
	ck_assert(!gt_fix_apply(install, env, here()));
	ck_assert(!gt_fix_is_env(install));
	ck_assert(gt_fix_is_env(fix));
	gt_fix_describe(install, words, sizeof(words));
	ck_assert_str_eq(words, "run pip install torch");
	json_decref(fix);
	json_decref(install);
	json_decref(env);
}
END_TEST

START_TEST(test_tracer_entries)
{
	char *rest = gt_list_without_tracer("/opt/gt/libgputrace.so:/x/libcudnn.so.9");

	ck_assert_str_eq(rest, "/x/libcudnn.so.9");
	free(rest);
	ck_assert_ptr_null(gt_list_without_tracer("/opt/gt/libgputrace.so"));
	ck_assert(!gt_is_tracer_entry("/x/notlibgputrace.so", strlen("/x/notlibgputrace.so")));
}
END_TEST

static const char *quoted(const char *w)
{
	static char out[256];

	gt_shell_quote(w, out, sizeof(out));
	return out;
}

START_TEST(test_shell_quoting)
{
	ck_assert_str_eq(quoted("/usr/lib/x86_64-linux-gnu:/opt/a"), "/usr/lib/x86_64-linux-gnu:/opt/a");
	ck_assert_str_eq(quoted("a b"), "'a b'");
	ck_assert_str_eq(quoted("it's"), "'it'\\''s'");
	ck_assert_str_eq(quoted(""), "''");
	/* a control character: $'...' with \xHH, never raw, never \x0a outside quotes */
	ck_assert_str_eq(quoted("a\nb'c"), "$'a\\x0ab\\x27c'");
	ck_assert_str_eq(quoted("\x1b[31m"), "$'\\x1b[31m'");
}
END_TEST

/* A recorded process: python3 train.py with LD_PRELOAD and LD_LIBRARY_PATH. */
static void recorded(struct gt_process *p, json_t *env)
{
	static char *argv[] = { "python3", "train.py", "--lr", "1e-3 x" };

	memset(p, 0, sizeof(*p));
	p->argv = argv;
	p->argc = 4;
	p->exe = "/usr/bin/python3.11";
	p->env = env;
}

START_TEST(test_command_of_an_env_fix)
{
	json_t *env = parse("{\"LD_PRELOAD\": \"/opt/gt/libgputrace.so:/lib/libcudnn.so.9\", "
			    "\"LD_LIBRARY_PATH\": \"/lib/x86_64-linux-gnu:/opt/cuda/lib64\"}");
	json_t *fix = parse("{\"env\": {\"unset\": [\"LD_PRELOAD\"], "
			    "\"LD_LIBRARY_PATH\": {\"remove\": [\"/lib/x86_64-linux-gnu\"]}}}");
	json_t *same = parse("{\"env\": {\"unset\": [\"CUDA_HOME\"]}}");
	struct gt_process p;
	char out[1024];

	recorded(&p, env);
	ck_assert(gt_fix_command(fix, &p, here(), out, sizeof(out)));
	ck_assert_str_eq(out, "env -u LD_PRELOAD LD_LIBRARY_PATH=/opt/cuda/lib64 python3 train.py --lr '1e-3 x'");
	/* nothing of the recorded environment changes: no command */
	ck_assert(!gt_fix_command(same, &p, here(), out, sizeof(out)));
	ck_assert(!gt_fix_command(NULL, &p, here(), out, sizeof(out)));
	json_decref(env);
	json_decref(fix);
	json_decref(same);
}
END_TEST

Suite *fix_data_suite(void)
{
	Suite *s = suite_create("fix_data");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_remove_from_a_list);
	tcase_add_test(tc, test_last_entry_removed_unsets);
	tcase_add_test(tc, test_set_unset_append);
	tcase_add_test(tc, test_nothing_to_change);
	tcase_add_test(tc, test_tracer_entries);
	tcase_add_test(tc, test_shell_quoting);
	tcase_add_test(tc, test_command_of_an_env_fix);
	suite_add_tcase(s, tc);
	return s;
}
