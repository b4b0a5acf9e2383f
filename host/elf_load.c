/* The loader's own reading of a file (elf_load.h): glibc 2.36's open_verify
 * (the header checks, in its order and words), then _dl_map_object_from_fd's
 * checks of the program headers, then the dynamic strings found through
 * PT_DYNAMIC and DT_STRTAB, as ld.so finds them. Every offset is checked
 * against the file's size: a hostile file gives a verdict, never a crash. */
#include "host/elf_load.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#error "elf_load.c models the 64-bit x86-64 (or aarch64) loader only"
#endif

#define PAGE 4096u
#define HEAD_BYTES 4096           /* one read: the header and, nearly always, the program headers */
#define MAX_PHNUM 4096
#define MAX_DYNAMIC (1u << 20)
#define MAX_STRTAB (16u << 20)
/* glibc 2.36's LIBC_ABI_MAX: the ABI versions of ELFOSABI_GNU it accepts are 0 .. MAX - 1. */
#define LIBC_ABI_MAX 4

enum file_role { ROLE_LIBRARY, ROLE_PROGRAM };

static enum host_load_verdict fatal(struct host_elf_load *out, const char *reason)
{
	out->reason = reason;
	return out->verdict = HOST_LOAD_FATAL;
}

/* open_verify's header checks. */
static enum host_load_verdict judge_header(const Elf64_Ehdr *eh, struct host_elf_load *out)
{
	static const unsigned char pad[EI_NIDENT - EI_PAD];
	unsigned char osabi = eh->e_ident[EI_OSABI], abiv = eh->e_ident[EI_ABIVERSION];

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return fatal(out, "invalid ELF header");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return out->verdict = HOST_LOAD_SKIPPED;
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return fatal(out, "ELF file data encoding not little-endian");
	if (eh->e_ident[EI_VERSION] != EV_CURRENT)
		return fatal(out, "ELF file version ident does not match current one");
	if (osabi != ELFOSABI_SYSV && osabi != ELFOSABI_GNU)
		return fatal(out, "ELF file OS ABI invalid");
	if (abiv != 0 && (osabi != ELFOSABI_GNU || abiv >= LIBC_ABI_MAX))
		return fatal(out, "ELF file ABI version invalid");
	if (memcmp(eh->e_ident + EI_PAD, pad, sizeof(pad)) != 0)
		return fatal(out, "nonzero padding in e_ident");
	if (eh->e_version != EV_CURRENT)
		return fatal(out, "ELF file version does not match current one");
	if (eh->e_machine != HOST_MACHINE)
		return out->verdict = HOST_LOAD_SKIPPED;
	if (eh->e_type != ET_DYN && eh->e_type != ET_EXEC)
		return fatal(out, "only ET_DYN and ET_EXEC can be loaded");
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return fatal(out, "ELF file's phentsize not the expected size");
	return out->verdict = HOST_LOAD_USABLE;
}

/* _dl_map_object_from_fd's checks of the load commands; a segment whose
 * bytes lie past the end of the file is mapped all the same, and the loader
 * dies of SIGBUS when it touches it. */
static enum host_load_verdict judge_segments(const Elf64_Phdr *ph, size_t phnum, uint64_t size,
					     enum file_role role, int e_type, struct host_elf_load *out)
{
	bool dynamic = false, empty_dynamic = false, short_file = false;
	size_t i, nload = 0;

	for (i = 0; i < phnum; i++) {
		if (ph[i].p_type == PT_DYNAMIC) {
			dynamic = true;
			empty_dynamic = ph[i].p_filesz == 0;
		}
		if (ph[i].p_type != PT_LOAD)
			continue;
		nload++;
		if (ph[i].p_align & (PAGE - 1))
			return fatal(out, "ELF load command alignment not page-aligned");
		if ((ph[i].p_vaddr - ph[i].p_offset) & (ph[i].p_align - 1))
			return fatal(out, "ELF load command address/offset not properly aligned");
		if (ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset)
			short_file = true;
	}
	if (role == ROLE_PROGRAM)
		return out->verdict = HOST_LOAD_USABLE;
	if (nload == 0)
		return fatal(out, "object file has no loadable segments");
	if ((!dynamic && e_type == ET_DYN) || empty_dynamic)
		return fatal(out, "object file has no dynamic section");
	if (e_type != ET_DYN)
		return fatal(out, "cannot dynamically load executable");
	if (short_file)
		return fatal(out, "file too short for its segments (the loader dies of SIGBUS when it maps them)");
	return out->verdict = HOST_LOAD_USABLE;
}

/* The file offset of the address addr, through the PT_LOAD that holds it. */
static bool offset_of(const Elf64_Phdr *ph, size_t phnum, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_LOAD && addr >= ph[i].p_vaddr && addr - ph[i].p_vaddr < ph[i].p_filesz) {
			*off = addr - ph[i].p_vaddr + ph[i].p_offset;
			return true;
		}
	return false;
}

static char *read_at(int fd, uint64_t off, uint64_t len, uint64_t size)
{
	char *buf;

	if (off > size || len > size - off)
		return NULL;
	buf = gt_xmalloc(len + 1);
	if (pread(fd, buf, len, (off_t)off) != (ssize_t)len) {
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	return buf;
}

static bool wanted_string(int64_t tag)
{
	return tag == DT_NEEDED || tag == DT_SONAME || tag == DT_RPATH || tag == DT_RUNPATH;
}

static void keep_first(char **slot, char *s)
{
	if (*slot || !s)
		free(s);
	else
		*slot = s;
}

/* Whether every wanted string at or after lo ends (NUL) inside buf[0, len). */
static bool strings_complete(const Elf64_Dyn *dyn, uint64_t n, const char *buf, uint64_t lo, uint64_t len)
{
	for (uint64_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
		uint64_t off = dyn[i].d_un.d_val;

		if (wanted_string(dyn[i].d_tag) && off >= lo && off - lo < len &&
		    !memchr(buf + (off - lo), 0, len - (off - lo)))
			return false;
	}
	return true;
}

/* The part of the string table that holds the strings wanted (a library's
 * whole .dynstr holds every symbol name: megabytes for a framework), read in
 * one go: buf[0, *len) is the table's [*lo, *lo + *len). */
static char *read_strings(int fd, const Elf64_Dyn *dyn, uint64_t n, uint64_t stroff, uint64_t strsz,
			  uint64_t size, uint64_t *lo, uint64_t *len)
{
	uint64_t hi = 0, i;
	char *buf;

	*lo = UINT64_MAX;
	for (i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
		if (!wanted_string(dyn[i].d_tag) || dyn[i].d_un.d_val >= strsz)
			continue;
		if (dyn[i].d_un.d_val < *lo)
			*lo = dyn[i].d_un.d_val;
		if (dyn[i].d_un.d_val > hi)
			hi = dyn[i].d_un.d_val;
	}
	if (*lo == UINT64_MAX)
		return NULL;
	*len = (hi + 4096 < strsz ? hi + 4096 : strsz) - *lo;
	buf = read_at(fd, stroff + *lo, *len, size);
	if (buf && *lo + *len < strsz && !strings_complete(dyn, n, buf, *lo, *len)) {
		/* a string longer than that: the rest of the table */
		free(buf);
		*len = strsz - *lo;
		buf = read_at(fd, stroff + *lo, *len, size);
	}
	return buf;
}

/* The dynamic strings, read as ld.so reads them: DT_STRTAB is an address.
 * With want_strings false, only DT_FLAGS_1 (the PIE check). */
static void read_dynamic(int fd, const Elf64_Phdr *ph, size_t phnum, uint64_t size, bool want_strings,
			 struct host_elf_load *out)
{
	const Elf64_Phdr *dynph = NULL;
	uint64_t strtab = 0, strsz = 0, stroff, lo = 0, len = 0, n, i;
	bool have_strtab = false;
	Elf64_Dyn *dyn;
	char *strings;

	for (i = 0; i < phnum; i++) {
		if (ph[i].p_type == PT_DYNAMIC && !dynph)
			dynph = &ph[i];
		if (want_strings && ph[i].p_type == PT_INTERP && !out->interp && ph[i].p_filesz &&
		    ph[i].p_filesz < 4096)
			out->interp = read_at(fd, ph[i].p_offset, ph[i].p_filesz, size);
	}
	if (!dynph || dynph->p_filesz > MAX_DYNAMIC)
		return;
	dyn = (Elf64_Dyn *)read_at(fd, dynph->p_offset, dynph->p_filesz, size);
	if (!dyn)
		return;
	n = dynph->p_filesz / sizeof(*dyn);
	for (i = 0; i < n && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr, have_strtab = true;
		else if (dyn[i].d_tag == DT_STRSZ)
			strsz = dyn[i].d_un.d_val;
		else if (dyn[i].d_tag == DT_FLAGS_1)
			out->flags_1 = dyn[i].d_un.d_val;
	}
	strings = want_strings && have_strtab && strsz && strsz <= MAX_STRTAB &&
		  offset_of(ph, phnum, strtab, &stroff) ? read_strings(fd, dyn, n, stroff, strsz, size, &lo, &len) : NULL;
	for (i = 0; strings && i < n && dyn[i].d_tag != DT_NULL; i++) {
		uint64_t off = dyn[i].d_un.d_val;
		char *str;

		if (!wanted_string(dyn[i].d_tag) || off < lo || off - lo >= len ||
		    !memchr(strings + (off - lo), 0, len - (off - lo)))
			continue;
		str = gt_xstrdup(strings + (off - lo));
		if (dyn[i].d_tag == DT_NEEDED) {
			out->needed = gt_xrealloc(out->needed, (out->nneeded + 1) * sizeof(*out->needed));
			out->needed[out->nneeded++] = str;
		} else {
			keep_first(dyn[i].d_tag == DT_SONAME ? &out->soname :
				   dyn[i].d_tag == DT_RPATH ? &out->rpath : &out->runpath, str);
		}
	}
	/* get_dynamic_info: with DT_RUNPATH, DT_RPATH is ignored */
	if (out->runpath) {
		free(out->rpath);
		out->rpath = NULL;
	}
	free(strings);
	free(dyn);
}

static void read_file(const char *path, bool want_dynamic, enum file_role role, struct host_elf_load *out)
{
	unsigned char head[HEAD_BYTES];
	Elf64_Phdr *ph = NULL;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)head;
	struct stat st;
	uint64_t phsize;
	ssize_t n;
	int fd;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		out->exists = errno == EACCES && stat(path, &st) == 0;
		out->verdict = errno == ENOENT || errno == EACCES || errno == ENOTDIR ? HOST_LOAD_ABSENT :
											 HOST_LOAD_ENDS_LIST;
		return;
	}
	if (fstat(fd, &st) == 0) {
		out->exists = true;
		out->dev = st.st_dev;
		out->ino = st.st_ino;
		out->mode = st.st_mode;
		out->uid = st.st_uid;
		out->gid = st.st_gid;
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n < (ssize_t)sizeof(Elf64_Ehdr)) {
		fatal(out, n < 0 ? (errno == EISDIR ? "cannot read file data: Is a directory" : "cannot read file data") :
			      "file too short");
		goto out;
	}
	if (judge_header(eh, out) != HOST_LOAD_USABLE)
		goto out;
	out->e_type = eh->e_type;
	phsize = (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr);
	if (eh->e_phnum > MAX_PHNUM || eh->e_phoff > (uint64_t)st.st_size || phsize > (uint64_t)st.st_size - eh->e_phoff) {
		fatal(out, "cannot read file data");
		goto out;
	}
	ph = (Elf64_Phdr *)read_at(fd, eh->e_phoff, phsize, (uint64_t)st.st_size);
	if (!ph) {
		fatal(out, "cannot read file data");
		goto out;
	}
	if (judge_segments(ph, eh->e_phnum, (uint64_t)st.st_size, role, eh->e_type, out) != HOST_LOAD_USABLE)
		goto out;
	if (want_dynamic || role == ROLE_LIBRARY)
		read_dynamic(fd, ph, eh->e_phnum, (uint64_t)st.st_size, want_dynamic, out);
	if (role == ROLE_LIBRARY && (out->flags_1 & DF_1_PIE))
		fatal(out, "cannot dynamically load position-independent executable");
out:
	free(ph);
	close(fd);
}

void host_elf_load_read(const char *path, bool want_dynamic, struct host_elf_load *out)
{
	read_file(path, want_dynamic, ROLE_LIBRARY, out);
}

void host_elf_load_program(const char *path, struct host_elf_load *out)
{
	read_file(path, true, ROLE_PROGRAM, out);
}

void host_elf_load_free(struct host_elf_load *l)
{
	for (size_t i = 0; i < l->nneeded; i++)
		free(l->needed[i]);
	free(l->needed);
	free(l->interp);
	free(l->soname);
	free(l->rpath);
	free(l->runpath);
	memset(l, 0, sizeof(*l));
}
