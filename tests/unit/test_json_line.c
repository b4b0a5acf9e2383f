/* Unit tests: the trace's line parser (read/json_line.c) against jansson,
 * whose judgement it must keep: the same lines accepted, with the same
 * values; the writer's plain lines on the fast path, the rest on jansson's. */
#include <check.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "read/json_line.h"
#include "tests/unit/unit.h"

/* What libgputrace.so writes (an open with its tries, a search, a header). */
static const char *const written[] = {
	"{\"ev\":\"open\",\"t_us\":1796211098690123,\"path\":\"/usr/lib/x86_64-linux-gnu/libz.so.1\","
	"\"soname\":\"libz.so.1\",\"ns\":0,\"search\":12,\"name\":\"libz.so.1\",\"rule\":\"ld_so_cache\","
	"\"tries\":[{\"path\":\"/opt/x/libz.so.1\",\"rule\":\"runpath\"},{\"path\":\"/usr/lib/x86_64-linux-gnu/"
	"libz.so.1\",\"rule\":\"ld_so_cache\"}]}\n",
	"{\"ev\":\"search\",\"t_us\":1796211098688264,\"tid\":28264,\"seq\":1,\"name\":\"libcudnn.so.9\","
	"\"requester\":\"/home/u/a \\\"b\\\"\\\\c\\u0001\\u007f/t.so\"}\n",
	"{\"ev\":\"header\",\"format\":\"gputrace-trace\",\"version\":1,\"pid\":-1,\"main\":true,\"paper\":false,"
	"\"x\":null,\"argv\":[\"python3\",\"-c\",\"\"],\"env\":{\"LD_LIBRARY_PATH\":\"/a:/b\",\"RANK\":\"0\"}}\n",
	"{\"ev\":\"crash\",\"frames\":[{\"path\":\"/l.so\",\"off\":4096},{\"ip\":0,\"main\":true}],\"signal\":11}",
};

/* Is the parsed value v what jansson made of the same text (j)? */
static bool same_value(const struct gt_jv *v, json_t *j)
{
	const char *key;
	json_t *m;
	size_t i;
	const struct gt_jv *c;

	switch (json_typeof(j)) {
	case JSON_OBJECT:
		if (v->type != GT_JV_OBJECT || v->n != json_object_size(j))
			return false;
		json_object_foreach(j, key, m)
			if (!gt_jv_get(v, key, NULL) || !same_value(gt_jv_get(v, key, NULL), m))
				return false;
		return true;
	case JSON_ARRAY:
		if (v->type != GT_JV_ARRAY || gt_jv_len(v) != json_array_size(j))
			return false;
		for (i = 0, c = gt_jv_first(v); i < gt_jv_len(v); i++, c = gt_jv_next(c))
			if (!same_value(c, json_array_get(j, i)))
				return false;
		return true;
	case JSON_STRING: return gt_jv_str(v) && strcmp(gt_jv_str(v), json_string_value(j)) == 0;
	case JSON_INTEGER: return gt_jv_is_int(v) && gt_jv_int(v) == json_integer_value(j);
	case JSON_REAL: return v->type == GT_JV_REAL && !gt_jv_is_int(v) && gt_jv_int(v) == 0;
	case JSON_TRUE: return gt_jv_is_true(v);
	case JSON_FALSE: return v->type == GT_JV_FALSE;
	case JSON_NULL: return v->type == GT_JV_NULL;
	}
	return false;
}

/* The parser's answer for text is jansson's: both refuse it, or both take it
 * with equal values. */
static void check_like_jansson(struct gt_jline *jl, const char *text, size_t len)
{
	const struct gt_jv *v = gt_jline_parse(jl, text, len);
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	bool taken = json_is_object(j);

	ck_assert_msg(!v == !taken, "%s by jansson, %s here: %.*s", taken ? "taken" : "refused",
		      v ? "taken" : "refused", (int)len, text);
	if (v)
		ck_assert_msg(same_value(v, j), "values differ: %.*s", (int)len, text);
	json_decref(j);
}

START_TEST(test_written_lines_fast)
{
	struct gt_jline jl = { 0 };
	const struct gt_jv *v, *t;
	size_t i;

	for (i = 0; i < sizeof(written) / sizeof(written[0]); i++)
		check_like_jansson(&jl, written[i], strlen(written[i]));
	ck_assert_uint_eq(jl.fast, sizeof(written) / sizeof(written[0]));
	ck_assert_uint_eq(jl.slow, 0);
	v = gt_jline_parse(&jl, written[0], strlen(written[0]));
	ck_assert_str_eq(gt_jv_str(gt_jv_get(v, "soname", NULL)), "libz.so.1");
	ck_assert(gt_jv_int(gt_jv_get(v, "t_us", NULL)) == 1796211098690123LL);
	ck_assert_uint_eq(gt_jv_len(gt_jv_get(v, "tries", NULL)), 2);
	t = gt_jv_next(gt_jv_first(gt_jv_get(v, "tries", NULL)));
	ck_assert_str_eq(gt_jv_str(gt_jv_get(t, "rule", NULL)), "ld_so_cache");
	ck_assert_ptr_null(gt_jv_get(v, "tries", "_hex"));
	ck_assert_ptr_null(gt_jv_str(gt_jv_get(v, "ns", NULL)));
	v = gt_jline_parse(&jl, written[1], strlen(written[1]));
	ck_assert_str_eq(gt_jv_str(gt_jv_get(v, "requester", NULL)), "/home/u/a \"b\"\\c\x01\x7f/t.so");
	gt_jline_free(&jl);
}
END_TEST

/* A search that tried many paths: hundreds of values in one line, the
 * array of them grown while it is parsed, none lost either way. */
START_TEST(test_many_tries)
{
	static char line[65536];
	struct gt_jline jl = { 0 };
	const struct gt_jv *v, *t;
	size_t n, i, slow;
	char want[64];

	for (slow = 0; slow < 2; slow++) {
		n = (size_t)snprintf(line, sizeof(line), "{\"ev\":\"search_end\",\"tries\":[");
		for (i = 0; i < 300; i++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s{\"path\":\"/d%zu/lib%s.so\",\"rule\":\"default\"}",
					      i ? "," : "", i, slow ? "\\u00e9" : "");
		n += (size_t)snprintf(line + n, sizeof(line) - n, "],\"search\":12}");
		check_like_jansson(&jl, line, n);
		v = gt_jline_parse(&jl, line, n);
		ck_assert_uint_eq(jl.slow, 2 * slow);
		ck_assert_uint_eq(gt_jv_len(gt_jv_get(v, "tries", NULL)), 300);
		t = gt_jv_first(gt_jv_get(v, "tries", NULL));
		for (i = 0; i < 300; i++, t = gt_jv_next(t)) {
			snprintf(want, sizeof(want), "/d%zu/lib%s.so", i, slow ? "\xc3\xa9" : "");
			ck_assert_str_eq(gt_jv_str(gt_jv_get(t, "path", NULL)), want);
		}
		ck_assert_int_eq(gt_jv_int(gt_jv_get(v, "search", NULL)), 12);
	}
	gt_jline_free(&jl);
}
END_TEST

/* Everything off the writer's path goes to jansson, which decides. */
START_TEST(test_other_lines_like_jansson)
{
	static const char *const lines[] = {
		"{\"a\":\"caf\xc3\xa9\"}", "{\"a\":\"\xe9\"}", "{\"a\":\"\xc0\xaf\"}", "{\"a\":\"\\u00e9\"}",
		"{\"a\":\"\\ud83d\\ude00\"}", "{\"a\":\"\\ud83d\"}", "{\"a\":\"\\u0000\"}", "{\"a\":\"\\u004F\"}",
		"{\"a\":\"\\u04\"}", "{\"a\":\"\\x\"}", "{\"a\":\"a\tb\"}", "{\"a\":\"\\/\"}", "{\"a\":1,\"a\":2}",
		"{\"a\":{\"b\":1,\"b\":1}}", "{\"a\":1.5}", "{\"a\":1e3}", "{\"a\":007}", "{\"a\":-0}", "{\"a\":-}",
		"{\"a\":+5}", "{\"a\":0}", "{\"a\":-5}", "{\"a\":99999999999999999999}",
		"{\"a\":9223372036854775807}", "{\"a\":9223372036854775808}", "{\"a\":123456789012345678}",
		"{\"a\":1234567890123456789}", "{\"a\":truex}", "{\"a\":nul}", "{\"a\":tru}", "[1]", "\"x\"", "1",
		"{}", "{\"\":1}", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":1}x", "{\"a\":1}{}", " \t{\"a\":1} \r\n",
		"{\"a\":[1,\"x\",null,{},[]]}", "{\"a\":[1,]}", "{\"a\":\"unterminated}", "{\"a\":1", "",
		"\xef\xbb\xbf{\"a\":1}", "{\"a\":\"\x7f\"}", "{'a':1}", "{\"a\":01.5}", "{\"a\":1E+2}",
		"{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
	};
	struct gt_jline jl = { 0 };
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		check_like_jansson(&jl, lines[i], strlen(lines[i]));
	ck_assert_uint_gt(jl.slow, 20);
	gt_jline_free(&jl);
}
END_TEST

/* Lines deeper than jansson's own limit (2048) are refused by both. */
START_TEST(test_deep_like_jansson)
{
	static char line[8192];
	struct gt_jline jl = { 0 };
	size_t n = 0, depth;

	for (depth = 30; depth < 3000; depth += 997) {
		n = (size_t)snprintf(line, sizeof(line), "{\"a\":");
		memset(line + n, '[', depth);
		memset(line + n + depth, ']', depth);
		n += 2 * depth;
		line[n++] = '}';
		check_like_jansson(&jl, line, n);
	}
	gt_jline_free(&jl);
}
END_TEST

/* The writer's lines, bytes changed, inserted and dropped at random (a fixed
 * seed): each answer is jansson's. */
START_TEST(test_mutations_like_jansson)
{
	static const char alphabet[] = "{}[]\",:\\u0123456789abefnrtlsx -+.eE\t\n\r\x01\x7f\x80\xc3\xa9\xff";
	struct gt_jline jl = { 0 };
	uint64_t seed = 29;
	char buf[1024];
	int round, k;

	for (round = 0; round < 20000; round++) {
		const char *src = written[round % (sizeof(written) / sizeof(written[0]))];
		size_t len = strlen(src);

		memcpy(buf, src, len);
		for (k = 0; k < 1 + round % 3; k++) {
			size_t at, op;
			char c;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			at = (size_t)(seed >> 33) % len;
			op = (size_t)(seed >> 20) % 3;
			c = alphabet[(seed >> 8) % (sizeof(alphabet) - 1)];
			if (op == 0) {
				buf[at] = c;
			} else if (op == 1 && len + 1 < sizeof(buf)) {
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = c;
				len++;
			} else if (len > 1) {
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
			}
		}
		check_like_jansson(&jl, buf, len);
	}
	/* Both ways were taken many times: the test saw both parsers. */
	ck_assert_uint_gt(jl.fast, 1000);
	ck_assert_uint_gt(jl.slow, 1000);
	gt_jline_free(&jl);
}
END_TEST

/* The string scan takes 8 bytes a word where they are all plain: every
 * byte that stops it (quote, escape, control, not ASCII), and the plain
 * bytes next to the limits (0x20, 0x7f), at every place of a word and of
 * the string's short tail, gives jansson's answer, and strings of every
 * length up to three words keep every byte. */
START_TEST(test_string_bytes_at_every_place)
{
	static const char *const bytes[] = { "\"", "\\n", "\\u0041", "\x1f", "\x01", " ", "\x7f", "!",
					     "\x80", "\xc3\xa9", "\xff", "~" };
	struct gt_jline jl = { 0 };
	char line[256], want[64];
	const struct gt_jv *v;
	size_t b, at, len, n;

	for (b = 0; b < sizeof(bytes) / sizeof(bytes[0]); b++)
		for (len = 1; len <= 24; len++)
			for (at = 0; at < len; at++) {
				n = (size_t)snprintf(line, sizeof(line), "{\"p\":\"%.*s%s%.*s\",\"n\":1}", (int)at,
						     "abcdefghijklmnopqrstuvwxyz", bytes[b], (int)(len - at),
						     "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
				check_like_jansson(&jl, line, n);
			}
	for (len = 0; len <= 24; len++) {
		n = (size_t)snprintf(line, sizeof(line), "{\"p\":\"%.*s\"}", (int)len, "/usr/lib/x86_64-linux-gnu/");
		snprintf(want, sizeof(want), "%.*s", (int)len, "/usr/lib/x86_64-linux-gnu/");
		v = gt_jline_parse(&jl, line, n);
		ck_assert_str_eq(gt_jv_str(gt_jv_get(v, "p", NULL)), want);
	}
	ck_assert_uint_gt(jl.fast, 1000);
	ck_assert_uint_gt(jl.slow, 500);
	gt_jline_free(&jl);
}
END_TEST

/* A field comes plain or hex-spelled: one walk finds each, and a key that
 * only begins like it is neither. */
START_TEST(test_get_both)
{
	static const char line[] = "{\"pathx\":\"1\",\"pat\":\"2\",\"path_hex\":\"2f61\",\"path\":\"/a\","
				   "\"path_hexx\":\"3\",\"name\":\"n\"}";
	struct gt_jline jl = { 0 };
	const struct gt_jv *v, *plain, *hex;

	v = gt_jline_parse(&jl, line, strlen(line));
	gt_jv_get_both(v, "path", "_hex", &plain, &hex);
	ck_assert_str_eq(gt_jv_str(plain), "/a");
	ck_assert_str_eq(gt_jv_str(hex), "2f61");
	ck_assert_ptr_eq(plain, gt_jv_get(v, "path", NULL));
	ck_assert_ptr_eq(hex, gt_jv_get(v, "path", "_hex"));
	gt_jv_get_both(v, "name", "_hex", &plain, &hex);
	ck_assert_str_eq(gt_jv_str(plain), "n");
	ck_assert_ptr_null(hex);
	gt_jv_get_both(v, "requester", "_hex", &plain, &hex);
	ck_assert_ptr_null(plain);
	ck_assert_ptr_null(hex);
	gt_jv_get_both(gt_jv_get(v, "name", NULL), "name", "_hex", &plain, &hex);
	ck_assert_ptr_null(plain);
	ck_assert_ptr_null(hex);
	gt_jline_free(&jl);
}
END_TEST

Suite *json_line_suite(void)
{
	Suite *s = suite_create("json_line");
	TCase *tc = tcase_create("parse");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_written_lines_fast);
	tcase_add_test(tc, test_many_tries);
	tcase_add_test(tc, test_other_lines_like_jansson);
	tcase_add_test(tc, test_deep_like_jansson);
	tcase_add_test(tc, test_mutations_like_jansson);
	tcase_add_test(tc, test_string_bytes_at_every_place);
	tcase_add_test(tc, test_get_both);
	suite_add_tcase(s, tc);
	return s;
}
