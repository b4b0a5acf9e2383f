/* Unit tests: a typed fix as "fix_data" JSON and back (rules/fix_json.c).
 * The bytes expected are what main printed before typed fixes (27746be):
 * its reports of the e2e scenarios, and its builder for the mixed ones. */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "rules/fix.h"
#include "rules/fix_json.h"
#include "tests/unit/unit.h"

/* The fix as the report writes it, compact. */
static char *dumped(const struct gt_fix *fix)
{
	json_t *j = gt_fix_to_json(fix);
	char *s;

	ck_assert_ptr_nonnull(j);
	s = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(j);
	return s;
}

/* The same edits, in the same order: the struct survived the JSON unchanged. */
static void assert_same_edits(const struct gt_fix *a, const struct gt_fix *b)
{
	size_t i;

	ck_assert_uint_eq(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		const struct gt_fix_edit *x = &a->v[i], *y = &b->v[i];

		ck_assert_int_eq(x->kind, y->kind);
		switch (x->kind) {
		case GT_FIX_LIST_REMOVE:
		case GT_FIX_LIST_APPEND:
			ck_assert_str_eq(x->u.list.var, y->u.list.var);
			ck_assert_str_eq(x->u.list.entry, y->u.list.entry);
			break;
		case GT_FIX_UNSET:
			ck_assert_str_eq(x->u.unset.var, y->u.unset.var);
			break;
		case GT_FIX_SET:
			ck_assert_str_eq(x->u.set.var, y->u.set.var);
			ck_assert_str_eq(x->u.set.value, y->u.set.value);
			break;
		case GT_FIX_INSTALL:
			ck_assert_str_eq(x->u.install.command, y->u.install.command);
			break;
		}
	}
	ck_assert(gt_fix_equal(a, b));
}

/* fix -> JSON -> fix is the identity, and the JSON is main's bytes. */
static void check_round_trip(const struct gt_fix *fix, const char *main_bytes)
{
	json_t *j = gt_fix_to_json(fix);
	struct gt_fix back;
	char skipped[128], err[256], *s = dumped(fix);

	ck_assert_str_eq(s, main_bytes);
	ck_assert_msg(gt_fix_from_json(j, &back, skipped, sizeof(skipped), err, sizeof(err)), "%s", err);
	ck_assert_str_eq(skipped, "");
	assert_same_edits(fix, &back);
	free(s);
	s = dumped(&back);
	ck_assert_str_eq(s, main_bytes);
	free(s);
	gt_fix_free(&back);
	json_decref(j);
}

/* The case's root as the corpus built it for that run. */
#define ML51 "/tmp/gt-cases-frr1wu_d/moneyprinterplus-51-venv-cudnn-outside-ctranslate2-runpath/root/mnt/data/ntg/" \
	     "MoneyPrinterPlus"

/* One fix per kind, as the rules build them, against main's report of the
 * e2e scenario that has it. */
START_TEST(test_each_kind_as_main_wrote_it)
{
	struct gt_fix fix = { 0 };

	/* driver-stub (test_report: the toolkit's stub on LD_LIBRARY_PATH) */
	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/tmp/typed-base-b/fixtures/cuda-13/lib64/stubs");
	check_round_trip(&fix, "{\"env\":{\"LD_LIBRARY_PATH\":{\"remove\":"
			 "[\"/tmp/typed-base-b/fixtures/cuda-13/lib64/stubs\"]}}}");
	gt_fix_free(&fix);
	/* library-not-found (corpus: moneyprinterplus-51, cuDNN outside the RUNPATH) */
	gt_fix_list_append(&fix, "LD_LIBRARY_PATH", ML51 "/venv/lib/python3.10/site-packages/nvidia/cudnn/lib");
	check_round_trip(&fix, "{\"env\":{\"LD_LIBRARY_PATH\":{\"append\":"
			 "[\"" ML51 "/venv/lib/python3.10/site-packages/nvidia/cudnn/lib\"]}}}");
	gt_fix_free(&fix);
	/* library-not-found (corpus: bnb-1559, BNB_CUDA_VERSION names a missing binary) */
	gt_fix_unset(&fix, "BNB_CUDA_VERSION");
	check_round_trip(&fix, "{\"env\":{\"unset\":[\"BNB_CUDA_VERSION\"]}}");
	gt_fix_free(&fix);
	/* shadowed-library (test_report: a preloaded cuDNN, the only entry) */
	gt_fix_unset(&fix, "LD_PRELOAD");
	check_round_trip(&fix, "{\"env\":{\"unset\":[\"LD_PRELOAD\"]}}");
	gt_fix_free(&fix);
	/* shadowed-library (test_report: a preloaded cuDNN beside another entry) */
	gt_fix_list_remove(&fix, "LD_PRELOAD", "/tmp/typed-base-b/fixtures/system/lib/libcudnn.so.9");
	check_round_trip(&fix, "{\"env\":{\"LD_PRELOAD\":{\"remove\":"
			 "[\"/tmp/typed-base-b/fixtures/system/lib/libcudnn.so.9\"]}}}");
	gt_fix_free(&fix);
	/* no-device (test_diff_retry: CUDA_VISIBLE_DEVICES hides the GPU) */
	gt_fix_set(&fix, "CUDA_VISIBLE_DEVICES", "0");
	check_round_trip(&fix, "{\"env\":{\"set\":{\"CUDA_VISIBLE_DEVICES\":\"0\"}}}");
	gt_fix_free(&fix);
	/* cpu-only-build (test_newcomer: a CPU torch in a conda prefix) */
	gt_fix_install(&fix, "conda install -p /tmp/typed-base-b/fixtures/torch-cpu -c conda-forge pytorch-gpu");
	check_round_trip(&fix, "{\"install\":\"conda install -p /tmp/typed-base-b/fixtures/torch-cpu -c conda-forge "
			 "pytorch-gpu\"}");
	gt_fix_free(&fix);
}
END_TEST

/* Several edits, added interleaved: the keys come in the order main's
 * builder made them (each at its first edit), the edits grouped under them. */
START_TEST(test_mixed_as_main_wrote_it)
{
	struct gt_fix fix = { 0 };

	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/x/lib");
	gt_fix_unset(&fix, "LD_PRELOAD");
	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/y/lib");
	check_round_trip(&fix, "{\"env\":{\"LD_LIBRARY_PATH\":{\"remove\":[\"/x/lib\",\"/y/lib\"]},"
			 "\"unset\":[\"LD_PRELOAD\"]}}");
	gt_fix_free(&fix);

	gt_fix_unset(&fix, "LD_PRELOAD");
	gt_fix_list_remove(&fix, "LD_PRELOAD", "/p.so");
	gt_fix_list_append(&fix, "LD_LIBRARY_PATH", "/c");
	gt_fix_list_remove(&fix, "LD_LIBRARY_PATH", "/d");
	gt_fix_install(&fix, "pip install x");
	gt_fix_set(&fix, "CUDA_VISIBLE_DEVICES", "0");
	check_round_trip(&fix, "{\"env\":{\"unset\":[\"LD_PRELOAD\"],\"LD_PRELOAD\":{\"remove\":[\"/p.so\"]},"
			 "\"LD_LIBRARY_PATH\":{\"append\":[\"/c\"],\"remove\":[\"/d\"]},"
			 "\"set\":{\"CUDA_VISIBLE_DEVICES\":\"0\"}},\"install\":\"pip install x\"}");
	gt_fix_free(&fix);

	gt_fix_install(&fix, "pip install 'a b'");
	gt_fix_list_append(&fix, "LD_LIBRARY_PATH", "/\xc3\xa9t\xc3\xa9 \"q\"");
	check_round_trip(&fix, "{\"install\":\"pip install 'a b'\",\"env\":{\"LD_LIBRARY_PATH\":{\"append\":"
			 "[\"/\\u00E9t\\u00E9 \\\"q\\\"\"]}}}");
	gt_fix_free(&fix);
}
END_TEST

START_TEST(test_empty_fix_is_no_fix_data)
{
	struct gt_fix fix = { 0 };
	json_t *j = json_object();
	char skipped[64], err[128];

	ck_assert_ptr_null(gt_fix_to_json(&fix));
	ck_assert(gt_fix_from_json(j, &fix, skipped, sizeof(skipped), err, sizeof(err)));
	ck_assert_uint_eq(fix.n, 0);
	json_decref(j);
}
END_TEST

/* Reads text as fix_data; returns whether it parsed, err and skipped filled. */
static bool read_text(const char *text, struct gt_fix *fix, char *skipped, size_t skipcap, char *err, size_t errcap)
{
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
	bool ok;

	ck_assert_msg(j != NULL, "test JSON: %s", text);
	ok = gt_fix_from_json(j, fix, skipped, skipcap, err, errcap);
	json_decref(j);
	return ok;
}

/* Refused cleanly: false, nothing half-read, a reason that says where. */
static void assert_refused(const char *text, const char *reason)
{
	struct gt_fix fix = { 0 };
	char skipped[128], err[256];

	ck_assert_msg(!read_text(text, &fix, skipped, sizeof(skipped), err, sizeof(err)), "accepted: %s", text);
	ck_assert_uint_eq(fix.n, 0);
	ck_assert_ptr_null(fix.v);
	ck_assert_msg(strstr(err, reason) != NULL, "%s: got \"%s\", wanted \"%s\"", text, err, reason);
}

START_TEST(test_wrong_types_refused)
{
	assert_refused("[]", "fix_data: not an object");
	assert_refused("null", "fix_data: not an object");
	assert_refused("{\"env\": []}", "env: not an object");
	assert_refused("{\"env\": {\"unset\": \"LD_PRELOAD\"}}", "env.unset: not an array");
	assert_refused("{\"env\": {\"unset\": [\"LD_PRELOAD\", 3]}}", "env.unset[1]: not a string");
	assert_refused("{\"env\": {\"set\": [\"CUDA_VISIBLE_DEVICES\"]}}", "env.set: not an object");
	assert_refused("{\"env\": {\"set\": {\"CUDA_VISIBLE_DEVICES\": 0}}}", "env.set.CUDA_VISIBLE_DEVICES: not a string");
	assert_refused("{\"env\": {\"LD_LIBRARY_PATH\": \"/x\"}}", "env.LD_LIBRARY_PATH: not an object");
	assert_refused("{\"env\": {\"LD_LIBRARY_PATH\": {\"remove\": \"/x\"}}}", "env.LD_LIBRARY_PATH.remove: not an array");
	assert_refused("{\"env\": {\"LD_LIBRARY_PATH\": {\"remove\": [\"/a\", null]}}}",
		       "env.LD_LIBRARY_PATH.remove[1]: not a string");
	assert_refused("{\"install\": [\"pip\", \"install\"]}", "install: not a string");
	/* an error after good edits leaves nothing */
	assert_refused("{\"env\": {\"unset\": [\"LD_PRELOAD\"], \"set\": {\"X\": true}}}", "env.set.X: not a string");
}
END_TEST

START_TEST(test_missing_fields_refused)
{
	assert_refused("{\"env\": {\"LD_LIBRARY_PATH\": {}}}", "env.LD_LIBRARY_PATH: neither \"remove\" nor \"append\"");
	assert_refused("{\"env\": {\"LD_LIBRARY_PATH\": {\"remove\": [\"\"]}}}", "env.LD_LIBRARY_PATH.remove[0]: empty");
	assert_refused("{\"install\": \"\"}", "install: empty");
}
END_TEST

START_TEST(test_bad_names_refused)
{
	assert_refused("{\"env\": {\"unset\": [\"ld_preload\"]}}", "env.unset[0]: not a variable name");
	assert_refused("{\"env\": {\"unset\": [\"LD PRELOAD\"]}}", "env.unset[0]: not a variable name");
	assert_refused("{\"env\": {\"set\": {\"A=B\": \"1\"}}}", "env.set.A=B: not a variable name");
	assert_refused("{\"env\": {\"Ld_Library_Path\": {\"remove\": [\"/x\"]}}}", "not a variable name");
}
END_TEST

/* A string of text that holds a NUL is no C string: refused, not cut. */
START_TEST(test_nul_refused)
{
	json_t *j = json_pack("{s{s[o]}}", "env", "unset", json_stringn("LD_PRELOAD\0X", 12));
	struct gt_fix fix;
	char skipped[64], err[256];

	ck_assert(!gt_fix_from_json(j, &fix, skipped, sizeof(skipped), err, sizeof(err)));
	ck_assert_str_eq(err, "env.unset[0]: not a string");
	json_decref(j);
}
END_TEST

START_TEST(test_huge_refused)
{
	size_t n = 1 << 20, i;
	char *big = malloc(n + 1), skipped[128], err[512];
	json_t *j, *arr = json_array();
	struct gt_fix fix;

	memset(big, 'a', n);
	big[0] = '/';
	big[n] = 0;
	/* a megabyte path */
	j = json_pack("{s{s{s[s]}}}", "env", "LD_LIBRARY_PATH", "remove", big);
	ck_assert(!gt_fix_from_json(j, &fix, skipped, sizeof(skipped), err, sizeof(err)));
	ck_assert_str_eq(err, "env.LD_LIBRARY_PATH.remove[0]: longer than 8192 bytes");
	json_decref(j);
	/* a megabyte variable name: said cut short */
	memset(big, 'A', n);
	j = json_pack("{s{s{s[s]}}}", "env", big, "remove", "/x");
	ck_assert(!gt_fix_from_json(j, &fix, skipped, sizeof(skipped), err, sizeof(err)));
	ck_assert(strstr(err, "not a variable name") != NULL);
	ck_assert(strlen(err) < 300);
	json_decref(j);
	/* a megabyte unknown key: skipped, said cut short */
	memset(big, 'x', n);
	j = json_pack("{ss}", big, "y");
	ck_assert(gt_fix_from_json(j, &fix, skipped, sizeof(skipped), err, sizeof(err)));
	ck_assert_uint_eq(strlen(skipped), 80);
	json_decref(j);
	/* more edits than a fix holds */
	for (i = 0; i <= GT_FIX_EDITS_MAX; i++) {
		char e[32];

		snprintf(e, sizeof(e), "/d%zu", i);
		json_array_append_new(arr, json_string(e));
	}
	j = json_pack("{s{s{so}}}", "env", "LD_LIBRARY_PATH", "remove", arr);
	ck_assert(!gt_fix_from_json(j, &fix, skipped, sizeof(skipped), err, sizeof(err)));
	ck_assert_str_eq(err, "env.LD_LIBRARY_PATH.remove[256]: more than 256 edits in one fix");
	ck_assert_uint_eq(fix.n, 0);
	json_decref(j);
	free(big);
}
END_TEST

/* A kind of edit of a newer gputrace: named, left out, never applied; the
 * edits known beside it are kept. */
START_TEST(test_unknown_kinds_skipped)
{
	struct gt_fix fix;
	struct gt_env env = { 0 };
	char skipped[256], err[256];

	ck_assert(read_text("{\"remove_file\": \"/x/libcuda.so\", \"env\": {\"unset\": [\"LD_PRELOAD\"], "
			    "\"prepend\": {\"PATH\": \"/y\"}, \"LD_LIBRARY_PATH\": {\"prepend\": [\"/z\"], "
			    "\"remove\": [\"/w\"]}}, \"reorder_imports\": [\"cupy\", \"torch\"]}",
			    &fix, skipped, sizeof(skipped), err, sizeof(err)));
	ck_assert_str_eq(skipped, "remove_file, env.prepend, env.LD_LIBRARY_PATH.prepend, reorder_imports");
	ck_assert_uint_eq(fix.n, 2);
	ck_assert_int_eq(fix.v[0].kind, GT_FIX_UNSET);
	ck_assert_int_eq(fix.v[1].kind, GT_FIX_LIST_REMOVE);
	gt_env_put(&env, "LD_LIBRARY_PATH", "/w:/v");
	gt_env_put(&env, "PATH", "/bin");
	ck_assert(gt_fix_apply(&fix, &env, NULL));
	ck_assert_str_eq(gt_env_get(&env, "LD_LIBRARY_PATH"), "/v");
	ck_assert_str_eq(gt_env_get(&env, "PATH"), "/bin");
	gt_fix_free(&fix);
	gt_env_free(&env);
	/* only unknown kinds: an empty fix, nothing to try */
	ck_assert(read_text("{\"env\": {\"LD_LIBRARY_PATH\": {\"prepend\": [\"/z\"]}}}", &fix, skipped,
			    sizeof(skipped), err, sizeof(err)));
	ck_assert_str_eq(skipped, "env.LD_LIBRARY_PATH.prepend");
	ck_assert_uint_eq(fix.n, 0);
	ck_assert(!gt_fix_has_env(&fix));
}
END_TEST

Suite *fix_json_suite(void)
{
	Suite *s = suite_create("fix_json");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_each_kind_as_main_wrote_it);
	tcase_add_test(tc, test_mixed_as_main_wrote_it);
	tcase_add_test(tc, test_empty_fix_is_no_fix_data);
	tcase_add_test(tc, test_wrong_types_refused);
	tcase_add_test(tc, test_missing_fields_refused);
	tcase_add_test(tc, test_bad_names_refused);
	tcase_add_test(tc, test_nul_refused);
	tcase_add_test(tc, test_huge_refused);
	tcase_add_test(tc, test_unknown_kinds_skipped);
	suite_add_tcase(s, tc);
	return s;
}
