/* Unit tests: typed fixes built, applied to a recorded environment, said in
 * words and as a command to paste (rules/fix.c). */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts.h"
#include "read/trace_read.h"
#include "rules/fix.h"
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

START_TEST(test_remove_from_a_list)
{
	struct gt_fix fix = { 0 };
	struct gt_env env = { 0 };
	char words[256];

	ck_assert(gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/lib/x86_64-linux-gnu"));
	gt_env_put(&env, "LD_LIBRARY_PATH", "/opt/a:/lib/x86_64-linux-gnu/::/opt/b");
	/* a trailing slash names the same folder; empty entries go */
	ck_assert(gt_fix_apply(&fix, &env, here()));
	ck_assert_str_eq(gt_env_get(&env, "LD_LIBRARY_PATH"), "/opt/a:/opt/b");
	ck_assert(!gt_fix_apply(&fix, &env, here()));
	gt_fix_describe(&fix, words, sizeof(words));
	ck_assert_str_eq(words, "LD_LIBRARY_PATH minus /lib/x86_64-linux-gnu");
	gt_fix_free(&fix);
	gt_env_free(&env);
}
END_TEST

START_TEST(test_last_entry_removed_unsets)
{
	struct gt_fix fix = { 0 };
	struct gt_env env = { 0 };

	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/x");
	gt_env_put(&env, "LD_LIBRARY_PATH", "/x");
	ck_assert(gt_fix_apply(&fix, &env, here()));
	ck_assert(gt_env_has(&env, "LD_LIBRARY_PATH"));
	ck_assert_ptr_null(gt_env_get(&env, "LD_LIBRARY_PATH"));
	gt_fix_free(&fix);
	gt_env_free(&env);
}
END_TEST

START_TEST(test_set_unset_append)
{
	struct gt_fix fix = { 0 };
	struct gt_env env = { 0 };
	char words[256];

	/* added in another order than they are said: the list first, then
	 * the unsets, then the sets, as the JSON's reader always did */
	gt_fix_unset(&fix, "LD_PRELOAD");
	gt_fix_set(&fix, "CUDA_VISIBLE_DEVICES", "0");
	gt_fix_list_append(&fix, "LD_LIBRARY_PATH", "/c");
	gt_env_put(&env, "LD_PRELOAD", "/a.so");
	gt_env_put(&env, "CUDA_VISIBLE_DEVICES", "");
	ck_assert(gt_fix_apply(&fix, &env, here()));
	ck_assert_ptr_null(gt_env_get(&env, "LD_PRELOAD"));
	ck_assert_str_eq(gt_env_get(&env, "CUDA_VISIBLE_DEVICES"), "0");
	ck_assert_str_eq(gt_env_get(&env, "LD_LIBRARY_PATH"), "/c");
	gt_fix_describe(&fix, words, sizeof(words));
	ck_assert_str_eq(words, "LD_LIBRARY_PATH plus /c; unset LD_PRELOAD; CUDA_VISIBLE_DEVICES=\"0\"");
	gt_fix_free(&fix);
	gt_env_free(&env);
}
END_TEST

START_TEST(test_nothing_to_change)
{
	struct gt_fix fix = { 0 }, install = { 0 };
	struct gt_env env = { 0 };
	char words[256];

	gt_fix_unset(&fix, "LD_PRELOAD");
	gt_fix_install(&install, "pip install torch");
	ck_assert(!gt_fix_apply(&fix, &env, here()));
	ck_assert(!gt_fix_apply(&install, &env, here()));
	ck_assert(!gt_fix_has_env(&install));
	ck_assert(gt_fix_has_env(&fix));
	ck_assert_ptr_null(gt_fix_install_command(&fix));
	ck_assert_str_eq(gt_fix_install_command(&install), "pip install torch");
	gt_fix_describe(&install, words, sizeof(words));
	ck_assert_str_eq(words, "run pip install torch");
	gt_fix_free(&fix);
	gt_fix_free(&install);
	gt_env_free(&env);
}
END_TEST

/* What JSON cannot carry, or what is no variable, is refused at the rule:
 * never an edit retry would half-apply. */
START_TEST(test_constructors_refuse)
{
	struct gt_fix fix = { 0 };
	char *huge = malloc(GT_FIX_TEXT_MAX + 2);

	memset(huge, 'a', GT_FIX_TEXT_MAX + 1);
	huge[GT_FIX_TEXT_MAX + 1] = 0;
	ck_assert(!gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", ""));
	ck_assert(!gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/a\xff/b"));
	ck_assert(!gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", huge));
	ck_assert(!gt_fix_unset(&fix, "unset"));
	ck_assert(!gt_fix_unset(&fix, "1ABC"));
	ck_assert(!gt_fix_set(&fix, "set", "0"));
	ck_assert(!gt_fix_set(&fix, "LD-PRELOAD", "0"));
	ck_assert(!gt_fix_install(&fix, ""));
	ck_assert_uint_eq(fix.n, 0);
	/* a set to the empty string is a value */
	ck_assert(gt_fix_set(&fix, "CUDA_VISIBLE_DEVICES", ""));
	ck_assert_uint_eq(fix.n, 1);
	free(huge);
	gt_fix_free(&fix);
}
END_TEST

/* A repeat is kept once, a second set or install replaces the first in
 * its place, and edits sit grouped as the JSON nests them. */
START_TEST(test_repeats_and_order)
{
	struct gt_fix fix = { 0 };

	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/a");
	gt_fix_unset(&fix, "LD_PRELOAD");
	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/b");
	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/a");
	gt_fix_unset(&fix, "LD_PRELOAD");
	gt_fix_set(&fix, "CUDA_VISIBLE_DEVICES", "0");
	gt_fix_set(&fix, "CUDA_VISIBLE_DEVICES", "1");
	ck_assert_uint_eq(fix.n, 4);
	ck_assert_int_eq(fix.v[0].kind, GT_FIX_LIST_REMOVE);
	ck_assert_str_eq(fix.v[0].u.list.entry, "/a");
	ck_assert_int_eq(fix.v[1].kind, GT_FIX_LIST_REMOVE);
	ck_assert_str_eq(fix.v[1].u.list.entry, "/b");
	ck_assert_int_eq(fix.v[2].kind, GT_FIX_UNSET);
	ck_assert_int_eq(fix.v[3].kind, GT_FIX_SET);
	ck_assert_str_eq(fix.v[3].u.set.value, "1");
	gt_fix_free(&fix);
}
END_TEST

/* Equal as JSON is: groups in any order, each group's edits in order. */
START_TEST(test_equal)
{
	struct gt_fix a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };

	gt_fix_unset(&a, "LD_PRELOAD");
	gt_fix_list_remove(&a, "LD_LIBRARY_PATH", "/a");
	gt_fix_list_remove(&b, "LD_LIBRARY_PATH", "/a");
	gt_fix_unset(&b, "LD_PRELOAD");
	ck_assert(gt_fix_equal(&a, &b));
	gt_fix_copy(&c, &a);
	ck_assert(gt_fix_equal(&a, &c));
	gt_fix_list_append(&c, "LD_LIBRARY_PATH", "/a");
	ck_assert(!gt_fix_equal(&a, &c));
	gt_fix_list_append(&d, "LD_LIBRARY_PATH", "/a");
	gt_fix_list_append(&d, "LD_LIBRARY_PATH", "/b");
	gt_fix_free(&c);
	gt_fix_list_append(&c, "LD_LIBRARY_PATH", "/b");
	gt_fix_list_append(&c, "LD_LIBRARY_PATH", "/a");
	ck_assert(!gt_fix_equal(&c, &d));  /* appends in another order: another list */
	gt_fix_free(&a);
	gt_fix_free(&b);
	gt_fix_free(&c);
	gt_fix_free(&d);
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
	struct gt_fix fix = { 0 }, same = { 0 }, two[2] = { { 0 } };
	struct gt_process p;
	char out[1024];

	gt_fix_unset(&fix, "LD_PRELOAD");
	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/lib/x86_64-linux-gnu");
	gt_fix_unset(&same, "CUDA_HOME");
	recorded(&p, env);
	ck_assert(gt_fix_command(&fix, 1, &p, here(), out, sizeof(out)));
	ck_assert_str_eq(out, "env -u LD_PRELOAD LD_LIBRARY_PATH=/opt/cuda/lib64 python3 train.py --lr '1e-3 x'");
	/* nothing of the recorded environment changes: no command */
	ck_assert(!gt_fix_command(&same, 1, &p, here(), out, sizeof(out)));
	ck_assert_str_eq(out, "");
	ck_assert(!gt_fix_command(NULL, 0, &p, here(), out, sizeof(out)));
	/* two fixes at once (retry --all-fixes): both applied in turn */
	gt_fix_unset(&two[0], "LD_PRELOAD");
	gt_fix_set(&two[1], "CUDA_VISIBLE_DEVICES", "0");
	ck_assert(gt_fix_command(two, 2, &p, here(), out, sizeof(out)));
	ck_assert_str_eq(out, "env -u LD_PRELOAD CUDA_VISIBLE_DEVICES=0 python3 train.py --lr '1e-3 x'");
	json_decref(env);
	gt_fix_free(&fix);
	gt_fix_free(&same);
	gt_fix_free(&two[0]);
	gt_fix_free(&two[1]);
}
END_TEST

/* The command that drops /b from a recorded LD_LIBRARY_PATH (env: the
 * header's "env" object) is want. */
static void expect_command_without_b(const char *env_json, const char *want)
{
	json_t *env = parse(env_json);
	struct gt_fix fix = { 0 };
	struct gt_process p;
	char out[1024];

	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/b");
	recorded(&p, env);
	ck_assert(gt_fix_command(&fix, 1, &p, here(), out, sizeof(out)));
	ck_assert_str_eq(out, want);
	json_decref(env);
	gt_fix_free(&fix);
}

/* A recorded value that is not UTF-8 keeps its bytes (its _hex twin). */
START_TEST(test_command_keeps_recorded_bytes)
{
	/* (a byte past 0x9f is no control character: quoted as it is) */
	expect_command_without_b("{\"LD_LIBRARY_PATH\": \"/a\\ufffd:/b\", \"LD_LIBRARY_PATH_hex\": \"2f61ff3a2f62\"}",
				 "LD_LIBRARY_PATH='/a\xff' python3 train.py --lr '1e-3 x'");
}
END_TEST

/* A recorded twin that spells no bytes: the plain value, not a part of the
 * twin's bytes followed by whatever the memory held. */
START_TEST(test_command_recorded_twin_not_hex)
{
	expect_command_without_b("{\"LD_LIBRARY_PATH\": \"/a:/b\", \"LD_LIBRARY_PATH_hex\": \"2f613a2fzz\"}",
				 "LD_LIBRARY_PATH=/a python3 train.py --lr '1e-3 x'");
}
END_TEST

START_TEST(test_command_of_an_install)
{
	struct gt_fix fix = { 0 };
	char out[256];

	gt_fix_install(&fix, "pip install torch");
	/* said as it is, with no process to run */
	ck_assert(gt_fix_command(&fix, 1, NULL, here(), out, sizeof(out)));
	ck_assert_str_eq(out, "pip install torch");
	gt_fix_free(&fix);
}
END_TEST

Suite *fix_suite(void)
{
	Suite *s = suite_create("fix");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_remove_from_a_list);
	tcase_add_test(tc, test_last_entry_removed_unsets);
	tcase_add_test(tc, test_set_unset_append);
	tcase_add_test(tc, test_nothing_to_change);
	tcase_add_test(tc, test_constructors_refuse);
	tcase_add_test(tc, test_repeats_and_order);
	tcase_add_test(tc, test_equal);
	tcase_add_test(tc, test_tracer_entries);
	tcase_add_test(tc, test_shell_quoting);
	tcase_add_test(tc, test_command_of_an_env_fix);
	tcase_add_test(tc, test_command_keeps_recorded_bytes);
	tcase_add_test(tc, test_command_recorded_twin_not_hex);
	tcase_add_test(tc, test_command_of_an_install);
	suite_add_tcase(s, tc);
	return s;
}
