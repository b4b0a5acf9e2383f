/* Unit tests: the ld.so.cache reader (host/ldcache.c) against `ldconfig -p` on this
 * host's cache and on ldconfig-written seeds in all three formats, the loader's
 * choice in lookups, and corrupt caches (truncated, random, lying counts and offsets). */
#define _GNU_SOURCE
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/ldcache.h"
#include "tests/unit/unit.h"

/* Seeds written by glibc 2.36's ldconfig (-c new, old, compat); make check runs from the top. */
#define SEEDS "tests/fuzz/corpus_ldcache/"
#define REAL_CACHE "/etc/ld.so.cache"

static unsigned char *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long size;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	ck_assert_int_ge(size, 0);
	rewind(f);
	buf = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/* Parses a copy of exactly len bytes, so that ASan sees any read past the end. */
static bool parse_exact(const unsigned char *src, size_t len, struct host_ldcache *c, char *err,
			size_t errcap)
{
	unsigned char *copy = malloc(len ? len : 1);
	bool ok;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, src, len);
	ok = host_ldcache_parse(copy, len, c, err, errcap);
	free(copy);
	if (!ok) {
		ck_assert_msg(err[0] != '\0', "a failure must say why");
		ck_assert_msg(!strchr(err, '\n'), "one line: %s", err);
		ck_assert_uint_eq(c->n, 0);
		ck_assert_ptr_null(c->entries);
	}
	return ok;
}

/* ldconfig's own words for the flags (elf/cache.c print_entry), for the types seen on x86-64. */
static const char *type_word(int32_t flags)
{
	switch (flags & 0xff) {
	case 0x01: return "ELF";
	case 0x02: return "libc5";
	case 0x03: return "libc6";
	default: return "unknown";
	}
}

/* Every entry of the cache, in order, against `ldconfig -C path -p`: name, path, type, x86-64. */
static void compare_with_ldconfig(const char *path)
{
	struct host_ldcache c;
	char err[256], cmd[512], line[4096];
	size_t i = 0;
	unsigned long listed = 0;
	FILE *p;

	ck_assert_msg(host_ldcache_read(path, &c, err, sizeof(err)), "%s", err);
	snprintf(cmd, sizeof(cmd), "PATH=/sbin:/usr/sbin:$PATH ldconfig -C '%s' -p", path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		char name[1024], desc[256], file[2048];
		const struct host_ldcache_entry *e;

		if (sscanf(line, "%lu libs found", &listed) == 1 || line[0] != '\t')
			continue;
		ck_assert_msg(sscanf(line, "\t%1023s (%255[^)]) => %2047s", name, desc, file) == 3,
			      "unexpected ldconfig line: %s", line);
		ck_assert_msg(i < c.n, "ldconfig lists more than %zu entries", c.n);
		e = &c.entries[i++];
		ck_assert_str_eq(e->name, name);
		ck_assert_str_eq(e->path, file);
		ck_assert_msg(!strncmp(desc, type_word(e->flags), strlen(type_word(e->flags))),
			      "%s: flags 0x%x, ldconfig says (%s)", name, e->flags, desc);
		ck_assert_msg(((e->flags & 0xff00) == 0x0300) == (strstr(desc, ",x86-64") != NULL),
			      "%s: flags 0x%x, ldconfig says (%s)", name, e->flags, desc);
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_uint_eq(i, c.n);
	ck_assert_uint_eq(listed, c.n);
	host_ldcache_free(&c);
}

START_TEST(test_real_cache_matches_ldconfig)
{
	compare_with_ldconfig(REAL_CACHE);
}
END_TEST

START_TEST(test_seeds_match_ldconfig)
{
	static const char *const seeds[] = { SEEDS "new.cache", SEEDS "old.cache", SEEDS "compat.cache" };

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		compare_with_ldconfig(seeds[i]);
}
END_TEST

START_TEST(test_formats)
{
	static const struct {
		const char *file;
		bool new_format;
	} seeds[] = { { "new.cache", true }, { "old.cache", false }, { "compat.cache", true } };

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char path[256], err[256];
		struct host_ldcache c;

		snprintf(path, sizeof(path), SEEDS "%s", seeds[i].file);
		ck_assert_msg(host_ldcache_read(path, &c, err, sizeof(err)), "%s", err);
		ck_assert_int_eq(c.new_format, seeds[i].new_format);
		ck_assert_uint_eq(c.n, 4);
		ck_assert_str_eq(host_ldcache_lookup(&c, "libutil.so.1")->path, "/opt/a/libutil.so.1");
		host_ldcache_free(&c);
	}
}
END_TEST

/* The loader's pick: 64-bit libc6 only, in the cache's order. */
START_TEST(test_lookup_real_cache)
{
	struct host_ldcache c;
	const struct host_ldcache_entry *e;
	char err[256];

	ck_assert_msg(host_ldcache_read(REAL_CACHE, &c, err, sizeof(err)), "%s", err);
	e = host_ldcache_lookup(&c, "libc.so.6");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->flags, 0x0303);
	ck_assert_ptr_nonnull(strstr(e->path, "x86_64-linux-gnu/libc.so.6"));
	ck_assert_ptr_null(host_ldcache_lookup(&c, "libno-such-library.so.1"));
	ck_assert_ptr_null(host_ldcache_lookup(&c, ""));
	ck_assert_ptr_null(host_ldcache_lookup(&c, NULL));
	host_ldcache_free(&c);
	host_ldcache_free(&c); /* freeing twice is harmless */
}
END_TEST

START_TEST(test_lookup_skips_32bit)
{
	struct host_ldcache c;
	char err[256];

	/* new.cache lists /lib32/libdl.so.2 (libc6, 32-bit) after the 64-bit one; old.cache
	 * is checked too because its order comes from the old table. */
	ck_assert_msg(host_ldcache_read(SEEDS "old.cache", &c, err, sizeof(err)), "%s", err);
	ck_assert_str_eq(host_ldcache_lookup(&c, "libdl.so.2")->path, "/lib/x86_64-linux-gnu/libdl.so.2");
	for (size_t i = 0; i < c.n; i++)
		if (!strcmp(c.entries[i].path, "/lib32/libdl.so.2"))
			ck_assert_int_eq(c.entries[i].flags, 0x0003);
	/* Hide the 64-bit entry: the 32-bit one is never the answer. */
	for (size_t i = 0; i < c.n; i++)
		if (c.entries[i].flags == 0x0303 && !strcmp(c.entries[i].name, "libdl.so.2"))
			c.entries[i].flags = 0x0003;
	ck_assert_ptr_null(host_ldcache_lookup(&c, "libdl.so.2"));
	host_ldcache_free(&c);
}
END_TEST

/* A hand-made new-format cache: entries (flags, name, path) in the given order. */
struct fake_entry {
	int32_t flags;
	const char *name, *path;
};

static unsigned char *make_new_cache(const struct fake_entry *v, size_t n, size_t *len)
{
	size_t strings = 48 + 24 * n, size = strings;
	unsigned char *buf;
	uint32_t u;

	for (size_t i = 0; i < n; i++)
		size += strlen(v[i].name) + strlen(v[i].path) + 2;
	buf = calloc(1, size);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	u = (uint32_t)n;
	memcpy(buf + 20, &u, 4);
	u = (uint32_t)(size - strings);
	memcpy(buf + 24, &u, 4);
	buf[28] = 2; /* little-endian */
	for (size_t i = 0, at = strings; i < n; i++) {
		unsigned char *e = buf + 48 + 24 * i;

		memcpy(e, &v[i].flags, 4);
		u = (uint32_t)at;
		memcpy(e + 4, &u, 4);
		memcpy(buf + at, v[i].name, strlen(v[i].name) + 1);
		at += strlen(v[i].name) + 1;
		u = (uint32_t)at;
		memcpy(e + 8, &u, 4);
		memcpy(buf + at, v[i].path, strlen(v[i].path) + 1);
		at += strlen(v[i].path) + 1;
	}
	*len = size;
	return buf;
}

START_TEST(test_lookup_order)
{
	static const struct fake_entry v[] = {
		{ 0x0001, "libx.so.1", "/elf/libx.so.1" },
		{ 0x0003, "libx.so.1", "/lib32/libx.so.1" },
		{ 0x0303, "libx.so.1", "/first/libx.so.1" },
		{ 0x0303, "libx.so.1", "/second/libx.so.1" },
		{ 0x0803, "liby.so.1", "/aarch64/liby.so.1" },
	};
	struct host_ldcache c;
	unsigned char *buf;
	char err[256];
	size_t len;

	buf = make_new_cache(v, 5, &len);
	ck_assert_msg(parse_exact(buf, len, &c, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(c.n, 5);
	ck_assert_str_eq(host_ldcache_lookup(&c, "libx.so.1")->path, "/first/libx.so.1");
	ck_assert_ptr_null(host_ldcache_lookup(&c, "liby.so.1"));
	host_ldcache_free(&c);
	free(buf);
}
END_TEST

/* A new-format cache with glibc-hwcaps entries (hwcap: bit 62 and the
 * subfolder's index, ISA level in bits 32..41) and the extension that names
 * the subfolders, in ldconfig's layout. */
static unsigned char *make_hwcaps_cache(size_t *len)
{
	static const char *const subs[] = { "x86-64-v4", "x86-64-v3", "x86-64-v2" };
	static const struct { const char *path; uint64_t hwcap; } e[] = {
		{ "/L/glibc-hwcaps/x86-64-v2/libh.so.1", (1ULL << 62) | 2 },
		{ "/L/glibc-hwcaps/x86-64-v3/libh.so.1", (1ULL << 62) | 1 },
		{ "/L/glibc-hwcaps/x86-64-v4/libh.so.1", (1ULL << 62) | (2ULL << 32) },  /* v4 index 0, ISA level 2 */
		{ "/L/libh.so.1", 0 },
	};
	size_t n = 4, strings = 48 + 24 * n, at = strings, ext, size = 4096;
	unsigned char *buf = calloc(1, size);
	uint32_t u, names[3];
	int32_t flags = 0x0303;

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	u = (uint32_t)n;
	memcpy(buf + 20, &u, 4);
	buf[28] = 2;
	for (size_t i = 0; i < n; i++) {
		unsigned char *ent = buf + 48 + 24 * i;

		memcpy(ent, &flags, 4);
		u = (uint32_t)at;
		memcpy(ent + 4, &u, 4);
		memcpy(buf + at, "libh.so.1", 10);
		at += 10;
		u = (uint32_t)at;
		memcpy(ent + 8, &u, 4);
		memcpy(buf + at, e[i].path, strlen(e[i].path) + 1);
		at += strlen(e[i].path) + 1;
		memcpy(ent + 16, &e[i].hwcap, 8);
	}
	for (size_t i = 0; i < 3; i++) {
		names[i] = (uint32_t)at;
		memcpy(buf + at, subs[i], strlen(subs[i]) + 1);
		at += strlen(subs[i]) + 1;
	}
	u = (uint32_t)(at - strings);
	memcpy(buf + 24, &u, 4);
	ext = (at + 7) & ~(size_t)7;
	u = (uint32_t)ext;
	memcpy(buf + 32, &u, 4);
	u = 0xeaa42174u;
	memcpy(buf + ext, &u, 4);
	u = 1;
	memcpy(buf + ext + 4, &u, 4);
	memcpy(buf + ext + 8, &u, 4);          /* tag 1: glibc-hwcaps */
	u = (uint32_t)(ext + 24);
	memcpy(buf + ext + 16, &u, 4);         /* offset */
	u = sizeof(names);
	memcpy(buf + ext + 20, &u, 4);         /* size */
	memcpy(buf + ext + 24, names, sizeof(names));
	*len = ext + 24 + sizeof(names);
	return buf;
}

START_TEST(test_hwcaps_choice)
{
	static const char *const v4[] = { "x86-64-v4", "x86-64-v3", "x86-64-v2" };
	static const char *const v3[] = { "x86-64-v3", "x86-64-v2" };
	static const char *const v2[] = { "x86-64-v2" };
	static const char *const v4_without_v3[] = { "x86-64-v4", "x86-64-v2" };
	struct host_ldcache c;
	unsigned char *buf;
	char err[256];
	size_t len;

	buf = make_hwcaps_cache(&len);
	ck_assert_msg(parse_exact(buf, len, &c, err, sizeof(err)), "%s", err);
	ck_assert_str_eq(c.entries[0].hwcaps, "x86-64-v2");
	ck_assert_str_eq(c.entries[2].hwcaps, "x86-64-v4");
	ck_assert_uint_eq(c.entries[2].isa_level, 2);
	ck_assert_ptr_null(c.entries[3].hwcaps);
	/* the best this CPU takes, not the first in the file */
	ck_assert_str_eq(host_ldcache_choose(&c, "libh.so.1", v4, 3)->path, "/L/glibc-hwcaps/x86-64-v4/libh.so.1");
	ck_assert_str_eq(host_ldcache_choose(&c, "libh.so.1", v3, 2)->path, "/L/glibc-hwcaps/x86-64-v3/libh.so.1");
	ck_assert_str_eq(host_ldcache_choose(&c, "libh.so.1", v2, 1)->path, "/L/glibc-hwcaps/x86-64-v2/libh.so.1");
	/* ISA level 2 needs x86-64-v3 among the CPU's levels */
	ck_assert_str_eq(host_ldcache_choose(&c, "libh.so.1", v4_without_v3, 2)->path,
			 "/L/glibc-hwcaps/x86-64-v2/libh.so.1");
	/* no hwcaps subfolder at all: the plain entry */
	ck_assert_str_eq(host_ldcache_choose(&c, "libh.so.1", NULL, 0)->path, "/L/libh.so.1");
	/* the old lookup still takes the first entry, as before */
	ck_assert_str_eq(host_ldcache_lookup(&c, "libh.so.1")->path, "/L/glibc-hwcaps/x86-64-v2/libh.so.1");
	host_ldcache_free(&c);
	free(buf);
}
END_TEST

START_TEST(test_empty_cache)
{
	struct host_ldcache c;
	unsigned char *buf;
	char err[256];
	size_t len;

	buf = make_new_cache(NULL, 0, &len);
	ck_assert_msg(parse_exact(buf, len, &c, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(c.n, 0);
	ck_assert_ptr_null(host_ldcache_lookup(&c, "libc.so.6"));
	host_ldcache_free(&c);
	free(buf);
}
END_TEST

static void expect_bad(const unsigned char *buf, size_t len, const char *why)
{
	struct host_ldcache c;
	char err[256];

	ck_assert_msg(!parse_exact(buf, len, &c, err, sizeof(err)), "accepted, wanted '%s'", why);
	ck_assert_msg(strstr(err, why) != NULL, "error '%s', wanted '%s'", err, why);
}

/* Every truncation of each seed, and many of the host's cache: false or a cache, never a crash;
 * a new-format cache cut inside its entries or strings is always refused. */
START_TEST(test_truncated)
{
	static const char *const files[] = { SEEDS "new.cache", SEEDS "old.cache",
					     SEEDS "compat.cache", REAL_CACHE };

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t len, step, needed;
		unsigned char *buf = load(files[f], &len);
		uint32_t nlibs, len_strings;

		step = len > 4096 ? len / 1500 + 1 : 1;
		memcpy(&nlibs, buf + 20, 4);
		memcpy(&len_strings, buf + 24, 4);
		needed = 48 + 24 * (size_t)nlibs + len_strings;
		for (size_t cut = 0; cut < len; cut += step) {
			struct host_ldcache c;
			char err[256];
			bool ok = parse_exact(buf, cut, &c, err, sizeof(err));

			if (!memcmp(buf, "glibc-ld.so.cache1.1", 20) && cut < needed)
				ck_assert_msg(!ok, "%s cut at %zu accepted", files[f], cut);
			host_ldcache_free(&c);
		}
		free(buf);
	}
	expect_bad((const unsigned char *)"", 0, "empty");
	expect_bad((const unsigned char *)"glibc-ld.so", 11, "truncated");
	expect_bad((const unsigned char *)"ld.so-1.7.0", 11, "truncated");
}
END_TEST

START_TEST(test_wrong_magic)
{
	size_t len;
	unsigned char *buf = load(SEEDS "new.cache", &len);

	buf[0] = 'G';
	expect_bad(buf, len, "unknown magic");
	expect_bad((const unsigned char *)"\x7f" "ELF\2\1\1", 7, "unknown magic");
	free(buf);
}
END_TEST

START_TEST(test_huge_counts)
{
	size_t len;
	unsigned char *buf = load(SEEDS "new.cache", &len);
	uint32_t v = 0xffffffff;

	memcpy(buf + 20, &v, 4); /* nlibs */
	expect_bad(buf, len, "do not fit");
	free(buf);

	buf = load(SEEDS "new.cache", &len);
	memcpy(buf + 24, &v, 4); /* len_strings */
	expect_bad(buf, len, "past the end");
	free(buf);

	buf = load(SEEDS "old.cache", &len);
	v = 0x7fffffff;
	memcpy(buf + 12, &v, 4);
	expect_bad(buf, len, "do not fit");
	free(buf);

	buf = load(SEEDS "new.cache", &len);
	buf[28] = 3; /* written on a big-endian host */
	expect_bad(buf, len, "byte order");
	free(buf);
}
END_TEST

/* Names and paths that start past the end, or run off it without a NUL. */
START_TEST(test_bad_string_offsets)
{
	static const struct { const char *file; size_t entry0, size; } layouts[] = {
		{ SEEDS "new.cache", 48, 24 },
		{ SEEDS "old.cache", 16, 12 },
		{ SEEDS "compat.cache", 64 + 48, 24 }, /* 4 old entries, then the new header */
	};
	static const uint32_t offsets[] = { 0xffffffffu, 0x80000000u, 100000 };

	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++) {
			for (size_t field = 4; field <= 8; field += 4) {
				size_t len;
				unsigned char *buf = load(layouts[l].file, &len);

				memcpy(buf + layouts[l].entry0 + layouts[l].size + field, &offsets[o], 4);
				expect_bad(buf, len, field == 4 ? "name offset" : "path offset");
				free(buf);
			}
		}
	}
}
END_TEST

START_TEST(test_unterminated_string)
{
	static const struct fake_entry v[] = { { 0x0303, "liba.so.1", "/lib/liba.so.1" } };
	size_t len;
	unsigned char *buf = make_new_cache(v, 1, &len);

	buf[len - 1] = 'x'; /* the last path loses its NUL */
	expect_bad(buf, len, "path offset");
	free(buf);
}
END_TEST

/* Random bytes, bare and behind each magic: never a crash, never a read past the end. */
START_TEST(test_random_bytes)
{
	static const char *const magics[] = { "", "ld.so-1.7.0", "glibc-ld.so.cache1.1" };
	unsigned int seed = 12345;
	unsigned char buf[2048];

	for (int round = 0; round < 3000; round++) {
		size_t len = (size_t)rand_r(&seed) % sizeof(buf);
		const char *m = magics[round % 3];
		struct host_ldcache c;
		char err[256];

		for (size_t i = 0; i < len; i++)
			buf[i] = (unsigned char)(rand_r(&seed) % 7 ? rand_r(&seed) % 8 : rand_r(&seed));
		if (len >= strlen(m))
			memcpy(buf, m, strlen(m));
		if (parse_exact(buf, len, &c, err, sizeof(err))) {
			for (size_t i = 0; i < c.n; i++)
				ck_assert(strlen(c.entries[i].name) < len && strlen(c.entries[i].path) < len);
		}
		host_ldcache_free(&c);
	}
}
END_TEST

START_TEST(test_read_errors)
{
	struct host_ldcache c;
	char err[256], small[16];

	ck_assert(!host_ldcache_read("/nonexistent/ld.so.cache", &c, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/ld.so.cache: cannot open"));
	ck_assert(!host_ldcache_read("/tmp", &c, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert(!host_ldcache_read("/nonexistent/ld.so.cache", &c, small, sizeof(small)));
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert(!host_ldcache_read("/nonexistent", &c, NULL, 0));
}
END_TEST

Suite *ldcache_suite(void)
{
	Suite *s = suite_create("ldcache");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_real_cache_matches_ldconfig);
	tcase_add_test(tc, test_seeds_match_ldconfig);
	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_lookup_real_cache);
	tcase_add_test(tc, test_lookup_skips_32bit);
	tcase_add_test(tc, test_lookup_order);
	tcase_add_test(tc, test_empty_cache);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_wrong_magic);
	tcase_add_test(tc, test_hwcaps_choice);
	tcase_add_test(tc, test_huge_counts);
	tcase_add_test(tc, test_bad_string_offsets);
	tcase_add_test(tc, test_unterminated_string);
	tcase_add_test(tc, test_random_bytes);
	tcase_add_test(tc, test_read_errors);
	suite_add_tcase(s, tc);
	return s;
}
