/* Reads /etc/ld.so.cache without glibc's help (see ldcache.h). The file is
 * untrusted input: every count, offset and string is checked against the
 * buffer before use, and a bad cache gives a one-line reason, never a crash. */
#include "host/ldcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Layouts as glibc's sysdeps/generic/dl-cache.h defines them (host byte order).
 * Old: magic[11], pad, uint32 nlibs, then entries {int32 flags; uint32 key, value}
 * with string offsets relative to the end of the entries. */
#define OLD_MAGIC "ld.so-1.7.0"
#define OLD_MAGIC_LEN (sizeof(OLD_MAGIC) - 1)
#define OLD_NLIBS_AT 12
#define OLD_HEADER 16
#define OLD_ENTRY 12

/* New: magic[17] version[3], uint32 nlibs, uint32 len_strings, uint8 flags, pad[3],
 * uint32 extension_offset, uint32 unused[3], then entries {int32 flags; uint32 key,
 * value, osversion; uint64 hwcap}; string offsets relative to the new header. */
#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define NEW_MAGIC_LEN (sizeof(NEW_MAGIC) - 1)
#define NEW_NLIBS_AT 20
#define NEW_LEN_STRINGS_AT 24
#define NEW_FLAGS_AT 28
#define NEW_EXTENSION_AT 32
#define NEW_HEADER 48
#define NEW_ENTRY 24
#define NEW_ENTRY_HWCAP_AT 16
/* struct cache_file_new is 8-byte aligned where it follows an old table. */
#define NEW_ALIGN 8

/* The new header's flags byte records the writer's byte order (glibc 2.33+). */
#define ENDIAN_MASK 3
#define ENDIAN_UNSET 0
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ENDIAN_HOST 2
#else
#define ENDIAN_HOST 3
#endif

/* The extension directory after the strings (dl-cache.h, glibc 2.33+):
 * magic, count, then {tag, flags, offset, size}; offsets from the new header.
 * The glibc-hwcaps section is an array of string offsets, one per subfolder. */
#define EXT_MAGIC 0xeaa42174u
#define EXT_TAG_GLIBC_HWCAPS 1
#define EXT_HEADER 8
#define EXT_SECTION 16
#define MAX_HWCAPS_NAMES 64
/* An entry for a glibc-hwcaps subfolder: bit 62 in the upper half (ISA level
 * bits aside), the subfolder's index in the lower half. */
#define HWCAP_EXTENSION_HIGH (1u << 30)
#define HWCAP_ISA_LEVEL_MASK 0x3ffu

/* glibc's elf/ldconfig.h: the loader on x86-64 takes only 64-bit libc6 entries. */
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_X8664_LIB64 0x0300

/* Largest cache host_ldcache_read accepts; real ones are well under 1 MiB. */
#define MAX_CACHE_SIZE (64u << 20)

/* One table inside the file: where its entries and strings are. */
struct table {
	size_t entries_at;  /* offset of entry 0 */
	size_t entry_size;
	size_t n;
	size_t strings_base; /* string offsets are relative to this */
	size_t strings_end;  /* strings must end (NUL included) before this */
};

static void set_err(char *err, size_t errcap, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errcap)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errcap, fmt, ap);
	va_end(ap);
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Whether a string starts at strings_base + off and ends, with its NUL,
 * before strings_end. */
static bool string_in_table(const unsigned char *buf, const struct table *t, uint32_t off)
{
	size_t at;

	if (off >= t->strings_end - t->strings_base)
		return false;
	at = t->strings_base + off;
	return memchr(buf + at, '\0', t->strings_end - at) != NULL;
}

/* Checks that every entry's name and path lie, NUL included, in the string table. */
static bool check_strings(const unsigned char *buf, const struct table *t, char *err, size_t errcap)
{
	for (size_t i = 0; i < t->n; i++) {
		const unsigned char *e = buf + t->entries_at + i * t->entry_size;
		bool name_ok = string_in_table(buf, t, get_u32(e + 4));

		if (!name_ok || !string_in_table(buf, t, get_u32(e + 8))) {
			set_err(err, errcap, "entry %zu: %s offset outside the string table", i,
				name_ok ? "path" : "name");
			return false;
		}
	}
	return true;
}

/* One allocation holds the entry array and a copy of the string table that
 * the entries point into: linear in the file's size whatever the offsets. */
/* The glibc-hwcaps subfolder names the extension lists, as offsets into
 * the string table (relative to strings_base); 0 names when there is none. */
static size_t hwcaps_names(const unsigned char *buf, size_t len, size_t base, const struct table *t,
			   uint32_t *names)
{
	size_t ext = get_u32(buf + base + NEW_EXTENSION_AT), count, i, n = 0;

	if (!ext || ext > len - base || len - base - ext < EXT_HEADER ||
	    get_u32(buf + base + ext) != EXT_MAGIC)
		return 0;
	count = get_u32(buf + base + ext + 4);
	for (i = 0; i < count && (len - base - ext - EXT_HEADER) / EXT_SECTION > i; i++) {
		const unsigned char *sec = buf + base + ext + EXT_HEADER + i * EXT_SECTION;
		size_t off = get_u32(sec + 8), size = get_u32(sec + 12);

		if (get_u32(sec) != EXT_TAG_GLIBC_HWCAPS || off > len - base || size > len - base - off)
			continue;
		for (n = 0; n < size / 4 && n < MAX_HWCAPS_NAMES; n++) {
			names[n] = get_u32(buf + base + off + 4 * n);
			if (!string_in_table(buf, t, names[n]))
				names[n] = UINT32_MAX;
		}
		break;
	}
	return n;
}

static void mark_hwcaps(struct host_ldcache_entry *e, const char *strings, const uint32_t *names, size_t nnames)
{
	uint32_t high = (uint32_t)(e->hwcap >> 32), index = (uint32_t)e->hwcap;

	if ((high & ~HWCAP_ISA_LEVEL_MASK) != HWCAP_EXTENSION_HIGH || index >= nnames || names[index] == UINT32_MAX)
		return;
	e->hwcaps = strings + names[index];
	e->isa_level = high & HWCAP_ISA_LEVEL_MASK;
}

static bool copy_table(const unsigned char *buf, const struct table *t, bool new_format,
		       struct host_ldcache *out, char *err, size_t errcap, const uint32_t *names, size_t nnames)
{
	size_t array = t->n * sizeof(struct host_ldcache_entry);
	size_t table = t->strings_end - t->strings_base;
	struct host_ldcache_entry *entries;
	char *strings;

	if (!check_strings(buf, t, err, errcap))
		return false;
	entries = malloc(array + table + 1);
	if (!entries) {
		set_err(err, errcap, "out of memory for %zu entries", t->n);
		return false;
	}
	strings = (char *)entries + array;
	memcpy(strings, buf + t->strings_base, table);
	for (size_t i = 0; i < t->n; i++) {
		const unsigned char *e = buf + t->entries_at + i * t->entry_size;

		entries[i].flags = (int32_t)get_u32(e);
		entries[i].hwcap = new_format ? get_u64(e + NEW_ENTRY_HWCAP_AT) : 0;
		entries[i].name = strings + get_u32(e + 4);
		entries[i].path = strings + get_u32(e + 8);
		entries[i].hwcaps = NULL;
		entries[i].isa_level = 0;
		if (new_format)
			mark_hwcaps(&entries[i], strings, names, nnames);
	}
	out->entries = entries;
	out->n = t->n;
	out->new_format = new_format;
	return true;
}

/* The new-format table whose header starts at base. */
static bool parse_new(const unsigned char *buf, size_t len, size_t base, struct host_ldcache *out,
		      char *err, size_t errcap)
{
	size_t room = len - base;
	struct table t;
	uint32_t nlibs, len_strings;
	unsigned endian;

	if (room < NEW_HEADER) {
		set_err(err, errcap, "truncated: %zu bytes, the new-format header needs %d", room,
			NEW_HEADER);
		return false;
	}
	nlibs = get_u32(buf + base + NEW_NLIBS_AT);
	len_strings = get_u32(buf + base + NEW_LEN_STRINGS_AT);
	endian = buf[base + NEW_FLAGS_AT] & ENDIAN_MASK;
	if (endian != ENDIAN_UNSET && endian != ENDIAN_HOST) {
		set_err(err, errcap, "written for the other byte order (flags 0x%02x)",
			buf[base + NEW_FLAGS_AT]);
		return false;
	}
	if (nlibs > (room - NEW_HEADER) / NEW_ENTRY) {
		set_err(err, errcap, "truncated: %u entries do not fit in %zu bytes", nlibs, room);
		return false;
	}
	t.entries_at = base + NEW_HEADER;
	t.entry_size = NEW_ENTRY;
	t.n = nlibs;
	t.strings_base = base;
	t.strings_end = t.entries_at + t.n * NEW_ENTRY;
	if (len_strings > len - t.strings_end) {
		set_err(err, errcap, "truncated: string table of %u bytes goes past the end",
			len_strings);
		return false;
	}
	t.strings_end += len_strings;
	{
		uint32_t names[MAX_HWCAPS_NAMES];
		size_t nnames = hwcaps_names(buf, len, base, &t, names);

		return copy_table(buf, &t, true, out, err, errcap, names, nnames);
	}
}

/* The old format, or the new one where the old table is followed by it. */
static bool parse_old(const unsigned char *buf, size_t len, struct host_ldcache *out, char *err,
		      size_t errcap)
{
	struct table t;
	uint32_t nlibs;
	size_t new_at;

	if (len < OLD_HEADER) {
		set_err(err, errcap, "truncated: %zu bytes, the old-format header needs %d", len,
			OLD_HEADER);
		return false;
	}
	nlibs = get_u32(buf + OLD_NLIBS_AT);
	if (nlibs > (len - OLD_HEADER) / OLD_ENTRY) {
		set_err(err, errcap, "truncated: %u entries do not fit in %zu bytes", nlibs, len);
		return false;
	}
	t.entries_at = OLD_HEADER;
	t.entry_size = OLD_ENTRY;
	t.n = nlibs;
	t.strings_base = OLD_HEADER + t.n * OLD_ENTRY;
	t.strings_end = len;

	/* ld.so prefers the new table, hidden at the start of the old string table. */
	new_at = (t.strings_base + NEW_ALIGN - 1) & ~(size_t)(NEW_ALIGN - 1);
	if (new_at <= len && len - new_at >= NEW_MAGIC_LEN &&
	    !memcmp(buf + new_at, NEW_MAGIC, NEW_MAGIC_LEN))
		return parse_new(buf, len, new_at, out, err, errcap);
	return copy_table(buf, &t, false, out, err, errcap, NULL, 0);
}

/* Whether all of a short buf is the beginning of magic. */
static bool starts_magic(const unsigned char *buf, size_t len, const char *magic)
{
	return len < strlen(magic) && !memcmp(buf, magic, len);
}

bool host_ldcache_parse(const unsigned char *buf, size_t len, struct host_ldcache *out, char *err,
		      size_t errcap)
{
	memset(out, 0, sizeof(*out));
	set_err(err, errcap, "%s", "");
	if (!buf) {
		set_err(err, errcap, "no data");
		return false;
	}
	if (len >= NEW_MAGIC_LEN && !memcmp(buf, NEW_MAGIC, NEW_MAGIC_LEN))
		return parse_new(buf, len, 0, out, err, errcap);
	if (len >= OLD_MAGIC_LEN && !memcmp(buf, OLD_MAGIC, OLD_MAGIC_LEN))
		return parse_old(buf, len, out, err, errcap);
	if (len == 0)
		set_err(err, errcap, "empty file");
	else if (starts_magic(buf, len, NEW_MAGIC) || starts_magic(buf, len, OLD_MAGIC))
		set_err(err, errcap, "truncated: %zu bytes", len);
	else
		set_err(err, errcap, "not an ld.so cache (unknown magic)");
	return false;
}

/* Reads all of fd (at most MAX_CACHE_SIZE bytes) into a malloc'd buffer. */
static unsigned char *slurp(int fd, size_t *len, char *err, size_t errcap)
{
	struct stat st;
	unsigned char *buf;
	size_t got = 0;

	if (fstat(fd, &st) < 0) {
		set_err(err, errcap, "cannot stat: %s", strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_CACHE_SIZE) {
		set_err(err, errcap, "%s", S_ISREG(st.st_mode) ? "too large for an ld.so cache" :
								"not a regular file");
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		set_err(err, errcap, "out of memory");
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			set_err(err, errcap, "cannot read: %s", r < 0 ? strerror(errno) : "file shrank");
			free(buf);
			return NULL;
		}
		got += (size_t)r;
	}
	*len = got;
	return buf;
}

bool host_ldcache_read(const char *path, struct host_ldcache *out, char *err, size_t errcap)
{
	char why[200] = "";
	unsigned char *buf = NULL;
	size_t len = 0;
	bool ok = false;
	int fd;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot open: %s", strerror(errno));
		goto out;
	}
	buf = slurp(fd, &len, why, sizeof(why));
	if (buf)
		ok = host_ldcache_parse(buf, len, out, why, sizeof(why));
out:
	if (!ok)
		set_err(err, errcap, "%s: %s", path, why);
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok;
}

/* ldconfig wrote the entries in the loader's order of preference; entries for
 * glibc-hwcaps subfolders (hwcap != 0) are taken as they come. */
const struct host_ldcache_entry *host_ldcache_lookup(const struct host_ldcache *c, const char *name)
{
	for (size_t i = 0; c && name && i < c->n; i++) {
		const struct host_ldcache_entry *e = &c->entries[i];

		if (e->flags == (FLAG_ELF_LIBC6 | FLAG_X8664_LIB64) && !strcmp(e->name, name))
			return e;
	}
	return NULL;
}

/* The priority of an entry's glibc-hwcaps subfolder: 1 for the best this
 * CPU takes, 0 when it takes none (or the file's ISA level is beyond it). */
static size_t hwcaps_priority(const struct host_ldcache_entry *e, const char *const *hwcaps, size_t nhwcaps)
{
	char level[16];
	size_t i, p = 0;

	for (i = 0; i < nhwcaps && !p; i++)
		if (strcmp(hwcaps[i], e->hwcaps) == 0)
			p = i + 1;
	if (!p || e->isa_level == 0)
		return p;
	/* x86: level n needs bit n of the CPU's ISA levels, i.e. x86-64-v(n+1) */
	snprintf(level, sizeof(level), "x86-64-v%u", e->isa_level + 1);
	for (i = 0; i < nhwcaps; i++)
		if (strcmp(hwcaps[i], level) == 0)
			return p;
	return 0;
}

const struct host_ldcache_entry *host_ldcache_choose(const struct host_ldcache *c, const char *name,
						    const char *const *hwcaps, size_t nhwcaps)
{
	const struct host_ldcache_entry *best = NULL;
	size_t best_priority = 0;

	for (size_t i = 0; c && name && i < c->n; i++) {
		const struct host_ldcache_entry *e = &c->entries[i];
		size_t p;

		if (e->flags != (FLAG_ELF_LIBC6 | FLAG_X8664_LIB64) || strcmp(e->name, name))
			continue;
		if (!e->hwcaps) {
			/* the hwcaps entries come first: a plain one ends the choice; legacy
			 * hwcap bits other than "tls" belong to subfolders glibc 2.37 dropped */
			if (best)
				break;
			if (e->hwcap & ~(1ULL << 63))
				continue;
			return e;
		}
		p = hwcaps_priority(e, hwcaps, nhwcaps);
		if (p && (!best || p < best_priority)) {
			best = e;
			best_priority = p;
		}
	}
	return best;
}

void host_ldcache_free(struct host_ldcache *c)
{
	if (!c)
		return;
	free(c->entries); /* the strings live in the same allocation */
	memset(c, 0, sizeof(*c));
}
