/* The fat-binary reader (fatbin.h). NVIDIA does not document the format; the
 * layout below was read from public descriptions and checked byte by byte on
 * fat binaries built here with nvcc 13.0 (tests/unit/test_fatbin.c builds
 * them). All fields are little-endian.
 *
 * A section holds containers back to back:
 *   container header (16 bytes): magic 0xBA55ED50 (u32 @0), version (u16 @4),
 *     header size (u16 @6), size of the entries that follow (u64 @8);
 *   then entries, each a header followed by its payload:
 *     kind (u16 @0: 1 PTX, 2 SASS cubin, 8 LTO IR), header size (u32 @4),
 *     payload size with padding (u64 @8), for PTX its ISA version (minor
 *     u16 @24, major u16 @26: 9.0 from nvcc 13.0, 8.7 in the build VM's
 *     libcusparse.so.12, 9.1 in cuDNN 9.19's engines; SASS entries hold
 *     1.8 there, which is not read), arch (u32 @28: 90 for sm_90),
 *     flags (u64 @40: 0x2000 or 0x8000 compressed; 0x100000 an `a`
 *     arch-specific build; 0x200000 an `f` family build), and for a
 *     compressed entry its size uncompressed (u64 @56).
 * The payload is skipped by its size: only headers are read, so a library
 * with a 300 MB section costs one small read per entry. The one exception: a
 * small uncompressed SASS payload (a cubin, an ELF file) is read to see
 * whether it holds a kernel at all (libcufftw's only image has none). */
#define _GNU_SOURCE
#include "host/fatbin.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"

#define CONTAINER_MAGIC 0xBA55ED50u
#define CONTAINER_HEADER_MIN 16
#define ENTRY_HEADER_MIN 64
#define ENTRY_KIND_PTX 1
#define ENTRY_KIND_SASS 2
#define ENTRY_KIND_SASS_ALT 0x10   /* listed as ELF by cuobjdump in public descriptions */
#define FLAG_COMPRESSED_OLD 0x2000ull
#define FLAG_COMPRESSED 0x8000ull
#define FLAG_ARCH_SPECIFIC 0x100000ull
#define FLAG_FAMILY 0x200000ull
/* An uncompressed cubin up to this size is read whole to look for a kernel. */
#define SMALL_CUBIN (64 * 1024)
/* Containers are packed; a gap of zeros (alignment) is skipped up to this much. */
#define MAX_GAP 4096

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static bool read_at(int fd, unsigned long long off, void *buf, size_t len)
{
	ssize_t n;

	do
		n = pread(fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len;
}

static int image_order(const void *a, const void *b)
{
	const struct host_fatbin_image *x = a, *y = b;

	if (x->ptx != y->ptx)
		return x->ptx ? 1 : -1;
	if (x->arch != y->arch)
		return x->arch < y->arch ? -1 : 1;
	return (x->variant > y->variant) - (x->variant < y->variant);
}

static void add_image(struct host_fatbin *fb, bool ptx, int arch, char variant, bool relocatable,
		      bool compressed, unsigned long long bytes, int ptx_isa)
{
	struct host_fatbin_image *im = NULL;
	size_t i;

	for (i = 0; i < fb->nimages && !im; i++)
		if (fb->images[i].ptx == ptx && fb->images[i].arch == arch && fb->images[i].variant == variant)
			im = &fb->images[i];
	if (!im) {
		if (fb->nimages == HOST_FATBIN_MAX_IMAGES) {
			fb->partial = true;
			return;
		}
		im = &fb->images[fb->nimages++];
		memset(im, 0, sizeof(*im));
		im->ptx = ptx;
		im->arch = arch;
		im->variant = variant;
		im->relocatable = relocatable;
	}
	im->relocatable = im->relocatable && relocatable;
	im->entries++;
	im->compressed += compressed;
	im->bytes += bytes;
	if (ptx_isa > im->ptx_isa)
		im->ptx_isa = ptx_isa;
}

/* False only for a cubin read whole whose sections are all known and none
 * is code (.text.NAME, one per kernel); anything unexpected counts as code. */
static bool cubin_has_code(const unsigned char *p, uint64_t n)
{
	uint64_t shoff, names;
	uint16_t shentsize, shnum, shstrndx, i;

	if (n < 64 || memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 || p[5] != 1)
		return true;
	shoff = le64(p + 0x28);
	shentsize = le16(p + 0x3a);
	shnum = le16(p + 0x3c);
	shstrndx = le16(p + 0x3e);
	if (shentsize < 64 || shstrndx >= shnum || shoff > n || (uint64_t)shnum * shentsize > n - shoff)
		return true;
	names = le64(p + shoff + (uint64_t)shstrndx * shentsize + 0x18);
	for (i = 0; i < shnum; i++) {
		uint32_t name = le32(p + shoff + (uint64_t)i * shentsize);

		if (names > n || name >= n - names || memchr(p + names + name, 0, n - names - name) == NULL)
			return true;
		if (strncmp((const char *)p + names + name, ".text", 5) == 0)
			return true;
	}
	return false;
}

static bool empty_cubin(int fd, unsigned long long at, uint64_t size)
{
	static unsigned char buf[SMALL_CUBIN];

	return size <= sizeof(buf) && read_at(fd, at, buf, (size_t)size) && !cubin_has_code(buf, size);
}

/* A PTX entry's ISA version as major*10+minor (90 for 9.0); 0 when the
 * fields make no version (minor 10 or more, major 0 or past 20). */
static int ptx_isa_of(const unsigned char *h)
{
	uint16_t minor = le16(h + 24), major = le16(h + 26);

	return major >= 1 && major <= 20 && minor <= 9 ? major * 10 + minor : 0;
}

static void add_entry(struct host_fatbin *fb, const unsigned char *h, bool relocatable, int fd,
		      unsigned long long payload)
{
	uint16_t kind = le16(h);
	uint64_t flags = le64(h + 40);
	uint32_t arch = le32(h + 28);
	char variant = flags & FLAG_ARCH_SPECIFIC ? 'a' : flags & FLAG_FAMILY ? 'f' : 0;
	bool compressed = (flags & (FLAG_COMPRESSED | FLAG_COMPRESSED_OLD)) != 0;

	fb->entries++;
	if ((kind != ENTRY_KIND_PTX && kind != ENTRY_KIND_SASS && kind != ENTRY_KIND_SASS_ALT) ||
	    arch == 0 || arch > 10000) {
		fb->other_entries++;
		return;
	}
	if (kind != ENTRY_KIND_PTX && !compressed && empty_cubin(fd, payload, le64(h + 8))) {
		fb->empty_entries++;
		return;
	}
	add_image(fb, kind == ENTRY_KIND_PTX, (int)arch, variant, relocatable, compressed,
		  compressed ? le64(h + 56) : le64(h + 8), kind == ENTRY_KIND_PTX ? ptx_isa_of(h) : 0);
}

/* The entries of one container, [start, end). False when a header is bad. */
static bool read_entries(int fd, unsigned long long start, unsigned long long end, bool relocatable,
			 struct host_fatbin *fb)
{
	unsigned char h[ENTRY_HEADER_MIN];
	unsigned long long at = start;

	while (at < end) {
		uint32_t hsize;
		uint64_t psize;

		if (end - at < ENTRY_HEADER_MIN || !read_at(fd, at, h, sizeof(h)))
			return false;
		hsize = le32(h + 4);
		psize = le64(h + 8);
		if (hsize < ENTRY_HEADER_MIN || hsize > end - at || psize > end - at - hsize)
			return false;
		add_entry(fb, h, relocatable, fd, at + hsize);
		at += hsize + psize;
	}
	return true;
}

/* Where the next container starts at or after `at`, over a short run of
 * zero padding: its offset; `end` when only zeros are left; 0 for bytes
 * that are no container. */
static unsigned long long next_container(int fd, unsigned long long at, unsigned long long end)
{
	unsigned char buf[MAX_GAP];
	size_t len, i;

	len = end - at < sizeof(buf) ? (size_t)(end - at) : sizeof(buf);
	if (!read_at(fd, at, buf, len))
		return 0;
	for (i = 0; i < len; i++) {
		if (i + CONTAINER_HEADER_MIN <= len && le32(buf + i) == CONTAINER_MAGIC)
			return at + i;
		if (buf[i])
			return 0;
	}
	return at + len == end ? end : 0;
}

void host_fatbin_read_section(int fd, unsigned long long off, unsigned long long size, bool relocatable,
			      struct host_fatbin *fb)
{
	unsigned long long at = off, end = off + size;
	unsigned char h[CONTAINER_HEADER_MIN];

	fb->section_bytes += size;
	while (at < end) {
		uint16_t hsize;
		uint64_t body;

		if (end - at < CONTAINER_HEADER_MIN || !read_at(fd, at, h, sizeof(h)) ||
		    le32(h) != CONTAINER_MAGIC) {
			at = next_container(fd, at, end);
			if (!at)
				fb->partial = true;
			if (!at || at == end)
				break;
			continue;
		}
		hsize = le16(h + 6);
		body = le64(h + 8);
		if (hsize < CONTAINER_HEADER_MIN || hsize > end - at || body > end - at - hsize) {
			fb->partial = true;
			break;
		}
		fb->containers++;
		fb->has_device_code = true;
		if (!read_entries(fd, at + hsize, at + hsize + body, relocatable, fb))
			fb->partial = true;
		at += hsize + body;
	}
}

/* Whether a data section starts with embedded containers within its first
 * 64 KiB (one read, not a scan of a section that can be 300 MB). */
static bool data_holds_containers(int fd, unsigned long long off, unsigned long long size)
{
	static unsigned char buf[64 * 1024];
	size_t len = size < sizeof(buf) ? (size_t)size : sizeof(buf), i;

	if (len < CONTAINER_HEADER_MIN || !read_at(fd, off, buf, len))
		return false;
	for (i = 0; i + CONTAINER_HEADER_MIN <= len; i += 4)
		if (le32(buf + i) == CONTAINER_MAGIC && le16(buf + i + 4) == 1 && le16(buf + i + 6) == 16)
			return true;
	return false;
}

static bool is_data_section(const char *name)
{
	return strcmp(name, ".ldata") == 0 || strcmp(name, ".lrodata") == 0 || strcmp(name, ".rodata") == 0 ||
	       strcmp(name, ".data") == 0 || strcmp(name, ".data.rel.ro") == 0;
}

/* The fat-binary sections named in the section headers; libelf reads only
 * the section headers and the name table, not the sections. */
static bool read_sections(int fd, struct host_fatbin *fb, char *err, size_t errcap)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	bool ok = false;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		snprintf(err, errcap, "not an ELF file");
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (strcmp(name, ".nv_fatbin") == 0)
			host_fatbin_read_section(fd, sh.sh_offset, sh.sh_size, false, fb);
		else if (strcmp(name, "__nv_relfatbin") == 0)
			host_fatbin_read_section(fd, sh.sh_offset, sh.sh_size, true, fb);
		else if (!fb->code_elsewhere && is_data_section(name))
			fb->code_elsewhere = data_holds_containers(fd, sh.sh_offset, sh.sh_size);
	}
	qsort(fb->images, fb->nimages, sizeof(fb->images[0]), image_order);
	ok = true;
out:
	if (elf)
		elf_end(elf);
	return ok;
}

/* The cache: one answer per file, keyed by what tells a changed file apart. */
struct cached {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct host_fatbin fb;
	struct cached *next;
};

static struct cached *cache;

static struct cached *cache_find(const struct stat *st)
{
	struct cached *c;

	for (c = cache; c; c = c->next)
		if (c->dev == st->st_dev && c->ino == st->st_ino && c->size == st->st_size &&
		    c->mtime.tv_sec == st->st_mtim.tv_sec && c->mtime.tv_nsec == st->st_mtim.tv_nsec)
			return c;
	return NULL;
}

const struct host_fatbin *host_fatbin_of(const char *path, char *err, size_t errcap)
{
	struct cached *c = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		snprintf(err, errcap, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errcap, "cannot open: not a regular file");
		goto out;
	}
	c = cache_find(&st);
	if (c)
		goto out;
	c = gt_xcalloc(1, sizeof(*c));
	if (!read_sections(fd, &c->fb, err, errcap)) {
		free(c);
		c = NULL;
		goto out;
	}
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->size = st.st_size;
	c->mtime = st.st_mtim;
	c->next = cache;
	cache = c;
out:
	close(fd);
	return c ? &c->fb : NULL;
}

void host_fatbin_cache_clear(void)
{
	while (cache) {
		struct cached *next = cache->next;

		free(cache);
		cache = next;
	}
}

void host_fatbin_image_name(const struct host_fatbin_image *im, char *out, size_t cap)
{
	char suffix[2] = { im->variant, 0 };

	snprintf(out, cap, "%s_%d%s", im->ptx ? "compute" : "sm", im->arch, suffix);
}

void host_fatbin_list(const struct host_fatbin *fb, char *out, size_t cap)
{
	size_t i, used = 0;
	char name[32];

	if (cap)
		out[0] = 0;
	for (i = 0; i < fb->nimages && used + 1 < cap; i++) {
		host_fatbin_image_name(&fb->images[i], name, sizeof(name));
		used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", name);
	}
}
