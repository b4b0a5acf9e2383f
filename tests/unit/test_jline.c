/* Unit tests: JSON line building and escaping (common/jline.c). */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hex.h"
#include "common/jline.h"
#include "facts/facts_dump.h"
#include "tests/unit/unit.h"

/* Builds {"ev":"t","k":<val>} and parses it back with jansson. */
static json_t *roundtrip(const char *val, size_t n, char *buf, size_t cap)
{
	struct jline j;
	size_t len;

	jl_begin(&j, buf, cap, "t");
	jl_strn(&j, "k", val, n);
	len = jl_end(&j);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(buf[len - 1], '\n');
	return json_loadb(buf, len, 0, NULL);
}

START_TEST(test_plain_string)
{
	char buf[256];
	json_t *o = roundtrip("/usr/lib/libcudnn.so.9", 22, buf, sizeof(buf));

	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_string_value(json_object_get(o, "k")), "/usr/lib/libcudnn.so.9");
	ck_assert_ptr_null(json_object_get(o, "k_hex"));
	json_decref(o);
}
END_TEST

START_TEST(test_quotes_newlines_controls)
{
	const char path[] = "/tmp/a\"b\\c\nd\te\x01\x7f/lib.so";
	char buf[512];
	json_t *o = roundtrip(path, sizeof(path) - 1, buf, sizeof(buf));

	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_string_value(json_object_get(o, "k")), path);
	ck_assert_ptr_null(strchr(buf, '\n') == buf + strlen(buf) - 1 ? NULL : strchr(buf, '\n'));
	json_decref(o);
}
END_TEST

START_TEST(test_invalid_utf8_keeps_bytes_in_hex)
{
	const char path[] = "/opt/\xff\xfe/\xc3\xa9t\xe9/lib.so";
	char buf[512];
	json_t *o = roundtrip(path, sizeof(path) - 1, buf, sizeof(buf));
	const char *hex;
	char back[64];

	ck_assert_ptr_nonnull(o);
	/* The readable form has U+FFFD for bad bytes and keeps the valid é. */
	ck_assert_str_eq(json_string_value(json_object_get(o, "k")),
			 "/opt/\xef\xbf\xbd\xef\xbf\xbd/\xc3\xa9t\xef\xbf\xbd/lib.so");
	hex = json_string_value(json_object_get(o, "k_hex"));
	ck_assert_ptr_nonnull(hex);
	ck_assert_uint_eq(strlen(hex), 2 * (sizeof(path) - 1));
	/* the command's readers (common/hex.h) read the writer's own spelling */
	ck_assert(gt_hex_read(hex, strlen(hex), back));
	ck_assert_mem_eq(back, path, sizeof(path) - 1);
	json_decref(o);
}
END_TEST

/* Every byte spelled and read back; what is no spelling is refused. */
START_TEST(test_hex_spelling)
{
	unsigned char all[256], back[256];
	char spelled[512];
	size_t i;

	for (i = 0; i < sizeof(all); i++)
		all[i] = (unsigned char)i;
	gt_hex_spell(spelled, all, sizeof(all));
	ck_assert_mem_eq(spelled, "000102", 6);
	ck_assert_mem_eq(spelled + 2 * 0xaf, "afb0", 4);
	ck_assert_mem_eq(spelled + 2 * 0xfe, "feff", 4);
	ck_assert(gt_hex_read(spelled, sizeof(spelled), back));
	ck_assert_mem_eq(back, all, sizeof(all));
	/* upper case read as well (JSON's \u escapes have it) */
	ck_assert(gt_hex_read("2F6C", 4, back));
	ck_assert_mem_eq(back, "/l", 2);
	ck_assert(gt_hex_read("", 0, back));
	ck_assert(!gt_hex_read("2f6", 3, back));
	ck_assert(!gt_hex_read("2g", 2, back));
	ck_assert(!gt_hex_read(" 2f6c", 4, back));
	ck_assert(!gt_hex_read("0x2f", 4, back));
	ck_assert(!gt_hex_read("2f-1", 4, back));
	ck_assert_int_eq(gt_hex_digit('9'), 9);
	ck_assert_int_eq(gt_hex_digit('f'), 15);
	ck_assert_int_eq(gt_hex_digit('A'), 10);
	ck_assert_int_eq(gt_hex_digit('g'), -1);
	ck_assert_int_eq(gt_hex_digit('\0'), -1);
}
END_TEST

START_TEST(test_utf8_sequences)
{
	/* valid: 2, 3 and 4 bytes */
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\xc3\xa9", 2), 2);
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	/* overlong, surrogate, beyond U+10FFFF, truncated, lone continuation */
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\xc0\xaf", 2), 0);
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\xe0\x80\xaf", 3), 0);
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\xed\xa0\x80", 3), 0);
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\xe2\x82", 2), 0);
	ck_assert_uint_eq(jl_utf8_seq_len((const unsigned char *)"\x80", 1), 0);
}
END_TEST

/* The escaper as it was before it looked at eight bytes at a time (a byte
 * at a time: plain bytes as they are, the quote and the backslash after a
 * backslash, control bytes and DEL as \u00XX, UTF-8 sequences as they are,
 * any other byte as U+FFFD), for comparing. */
static size_t escape_bytewise(char *out, const unsigned char *s, size_t n, bool *lossy)
{
	size_t pos = 0, i = 0, len;

	*lossy = false;
	while (i < n) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			out[pos++] = (char)c;
			i++;
		} else if (c == '"' || c == '\\') {
			out[pos++] = '\\';
			out[pos++] = (char)c;
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			pos += (size_t)sprintf(out + pos, "\\u00%02x", c);
			i++;
		} else if ((len = jl_utf8_seq_len(s + i, n - i)) != 0) {
			memcpy(out + pos, s + i, len);
			pos += len;
			i += len;
		} else {
			memcpy(out + pos, "\xef\xbf\xbd", 3);
			pos += 3;
			*lossy = true;
			i++;
		}
	}
	return pos;
}

static void expect_escaped_as_bytewise(const unsigned char *s, size_t n)
{
	char got[6 * 64], want[6 * 64];
	bool got_lossy, want_lossy;
	size_t got_len = jl_escape(got, sizeof(got), (const char *)s, n, &got_lossy);
	size_t want_len = escape_bytewise(want, s, n, &want_lossy);

	ck_assert_uint_eq(got_len, want_len);
	ck_assert_mem_eq(got, want, want_len);
	ck_assert_int_eq(got_lossy, want_lossy);
}

/* Issue 29: plain bytes are found eight at a time (common/jline.c). Every
 * byte value at every place of a 19-byte string of plain bytes (each place
 * of two words and a tail), then random strings of bytes weighted towards
 * the ones that are escaped, all as the byte-at-a-time escaper wrote them. */
START_TEST(test_escape_word_at_a_time_as_bytewise)
{
	unsigned char s[64];
	unsigned int seed = 29;
	size_t pos, n, i;
	int b;

	for (b = 0; b < 256; b++)
		for (pos = 0; pos < 19; pos++) {
			memset(s, 'a', 19);
			s[pos] = (unsigned char)b;
			expect_escaped_as_bytewise(s, 19);
			s[18] = '~';  /* 0x7e, the last plain byte, beside it */
			expect_escaped_as_bytewise(s, 19);
		}
	for (i = 0; i < 20000; i++) {
		n = (size_t)(rand_r(&seed) % 40);
		for (pos = 0; pos < n; pos++) {
			static const unsigned char odd[] = { 0x00, 0x1f, 0x20, '"', '\\', 0x7e, 0x7f, 0x80, 0xc3,
							     0xa9, 0xe2, 0xff, '/', 'l' };
			unsigned int r = (unsigned int)rand_r(&seed);

			s[pos] = r % 4 ? (unsigned char)(0x20 + r % 0x5f) : odd[(r >> 8) % sizeof(odd)];
		}
		expect_escaped_as_bytewise(s, n);
	}
}
END_TEST

START_TEST(test_overflow_drops_field_keeps_json_valid)
{
	char buf[128], big[400];
	struct jline j;
	size_t len;
	json_t *o;

	memset(big, 'x', sizeof(big));
	jl_begin(&j, buf, sizeof(buf), "t");
	jl_int(&j, "a", -42);
	jl_strn(&j, "big", big, sizeof(big));
	jl_uint(&j, "b", 7);
	len = jl_end(&j);
	o = json_loadb(buf, len, 0, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "a")), -42);
	ck_assert_ptr_null(json_object_get(o, "big"));
	ck_assert_int_eq(json_integer_value(json_object_get(o, "b")), 7);
	ck_assert(json_is_true(json_object_get(o, "truncated")));
	json_decref(o);
}
END_TEST

START_TEST(test_arrays_and_objects)
{
	char buf[512];
	struct jline j;
	size_t len;
	json_t *o;

	jl_begin(&j, buf, sizeof(buf), "header");
	jl_array_begin(&j, "argv");
	jl_array_str(&j, "python3", 7);
	jl_array_str(&j, "-c", 2);
	jl_array_end(&j);
	jl_object_begin(&j, "env");
	jl_str(&j, "A", "1");
	jl_str(&j, "B", NULL);
	jl_str(&j, "C", "3");
	jl_object_end(&j);
	jl_bool(&j, "x", true);
	len = jl_end(&j);
	o = json_loadb(buf, len, 0, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(json_array_size(json_object_get(o, "argv")), 2);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(o, "argv"), 1)), "-c");
	ck_assert_uint_eq(json_object_size(json_object_get(o, "env")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(o, "env"), "C")), "3");
	ck_assert(json_is_true(json_object_get(o, "x")));
	json_decref(o);
}
END_TEST

START_TEST(test_empty_object)
{
	char buf[128];
	struct jline j;
	size_t len;
	json_t *o;

	jl_begin(&j, buf, sizeof(buf), "t");
	jl_object_begin(&j, "env");
	jl_object_end(&j);
	len = jl_end(&j);
	o = json_loadb(buf, len, 0, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(json_object_size(json_object_get(o, "env")), 0);
	json_decref(o);
}
END_TEST

/* facts/facts_dump.c: the facts file's JSON reads back equal, with each
 * object's keys sorted; strings with every kind of byte jansson holds. */
START_TEST(test_facts_dump_reads_back_equal)
{
	static const char ctl[] = "a\x01" "b\x1f" "\t\n\r\"q\"\\/\x7f";
	json_t *doc = json_pack("{s:s, s:{s:[i, I, b, b, n, f, s], s:{}}, s:[], s:s, s:s}", "zeta", "last",
				"alpha", "list", 1, (json_int_t)-9007199254740993LL, 1, 0, 2.5, "ümlaut €", "empty",
				"nothing", ctl, "x\x1fvalue\x1fwith separators", "/usr/lib/libcudnn.so.9", "");
	json_error_t e;
	json_t *back;
	size_t len;
	char *text;

	ck_assert_ptr_nonnull(doc);
	json_object_set_new(doc, "nul", json_stringn("a\0b\x08\x0c", 5));
	text = gt_facts_dump(doc, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_int_eq(text[len - 1], '\n');
	back = json_loadb(text, len, JSON_ALLOW_NUL, &e);
	ck_assert_msg(back != NULL, "%s: %s", e.text, text);
	ck_assert(json_equal(doc, back));
	/* keys sorted by their bytes: "/usr..." < "a\x01..." (the control
	 * characters' key) < "alpha" < "nothing" < "zeta" */
	{
		const char *want = "{\"/usr/lib/libcudnn.so.9\":\"\",\"a\\u0001b\\u001F\\t\\n\\r\\\"q\\\"\\\\/\x7f\":";

		ck_assert_msg(strncmp(text, want, strlen(want)) == 0, "%s", text);
	}
	ck_assert(strstr(text, "\"alpha\"") < strstr(text, "\"nothing\""));
	ck_assert(strstr(text, "\"nothing\"") < strstr(text, "\"zeta\""));
	ck_assert_ptr_nonnull(strstr(text, "\\u0001"));
	/* and as jansson writes it, byte for byte */
	{
		char *theirs = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);

		ck_assert_ptr_nonnull(theirs);
		ck_assert_uint_eq(strlen(theirs) + 1, len);
		ck_assert_int_eq(memcmp(theirs, text, len - 1), 0);
		free(theirs);
	}
	free(text);
	json_decref(back);
	json_decref(doc);
}
END_TEST

Suite *jline_suite(void)
{
	Suite *s = suite_create("jline");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_plain_string);
	tcase_add_test(tc, test_escape_word_at_a_time_as_bytewise);
	tcase_add_test(tc, test_facts_dump_reads_back_equal);
	tcase_add_test(tc, test_quotes_newlines_controls);
	tcase_add_test(tc, test_invalid_utf8_keeps_bytes_in_hex);
	tcase_add_test(tc, test_hex_spelling);
	tcase_add_test(tc, test_utf8_sequences);
	tcase_add_test(tc, test_overflow_drops_field_keeps_json_valid);
	tcase_add_test(tc, test_arrays_and_objects);
	tcase_add_test(tc, test_empty_object);
	suite_add_tcase(s, tc);
	return s;
}
