/* Reads SONAME, NEEDED, RPATH/RUNPATH and CUDA fat-binary sections through libelf
 * (see elf_info.h). Every offset is checked against the file size first: corrupt,
 * truncated or hostile files give ok = false and a reason, never a crash. */
#include "host/elf_info.h"

#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

/* glibc's $LIB is fixed when glibc is built; these are Debian's multiarch values. */
#ifndef GT_DST_LIB
#if defined(__x86_64__)
#define GT_DST_LIB "lib/x86_64-linux-gnu"
#elif defined(__aarch64__)
#define GT_DST_LIB "lib/aarch64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GT_DST_LIB "lib/powerpc64le-linux-gnu"
#else
#define GT_DST_LIB "lib"
#endif
#endif

#ifndef GT_DST_PLATFORM
#if defined(__x86_64__)
#define GT_DST_PLATFORM "x86_64"
#elif defined(__aarch64__)
#define GT_DST_PLATFORM "aarch64"
#else
#define GT_DST_PLATFORM ""
#endif
#endif

__attribute__((format(printf, 2, 3)))
static void set_error(struct host_elf_info *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->error, sizeof(out->error), fmt, ap);
	va_end(ap);
}

static bool range_in_file(uint64_t off, uint64_t len, uint64_t file_size)
{
	return off <= file_size && len <= file_size - off;
}

static bool push_needed(struct host_elf_info *out, const char *name)
{
	char **grown = realloc(out->needed, (out->nneeded + 1) * sizeof(*grown));

	if (!grown)
		return false;
	out->needed = grown;
	out->needed[out->nneeded] = strdup(name);
	if (!out->needed[out->nneeded])
		return false;
	out->nneeded++;
	return true;
}

/* Keeps the first of a repeated tag, as ld.so's l_info[] does. */
static bool keep_string(char **slot, const char *s)
{
	if (*slot)
		return true;
	*slot = strdup(s);
	return *slot != NULL;
}

/* The string at off in the string table strtab, read from the file where it
 * lies: libelf's elf_strptr reads the whole table first, and a big C++
 * library's .dynstr is megabytes (libtorch_cpu.so's 2.7 MB) for the few
 * names asked here (6.3 ms of the H200's diagnosis of import torch went to
 * ten ELF files). NULL when off lies outside the table or the string has
 * no end inside it, as elf_strptr. *buf grows as needed; the caller frees. */
static const char *dyn_string(int fd, const GElf_Shdr *strtab, uint64_t off, char **buf, size_t *cap)
{
	size_t want = 256, got;
	ssize_t n;
	char *end, *grown;

	if (strtab->sh_type != SHT_STRTAB || off >= strtab->sh_size)
		return NULL;
	for (;;) {
		if (want > strtab->sh_size - off)
			want = (size_t)(strtab->sh_size - off);
		if (want + 1 > *cap) {
			grown = realloc(*buf, want + 1);
			if (!grown)
				return NULL;
			*buf = grown;
			*cap = want + 1;
		}
		n = pread(fd, *buf, want, (off_t)(strtab->sh_offset + off));
		if (n <= 0)
			return NULL;
		got = (size_t)n;
		(*buf)[got] = 0;
		end = memchr(*buf, 0, got);
		if (end)
			return *buf;
		if (got < want || want == strtab->sh_size - off)
			return NULL;  /* cut short, or no end before the table's */
		want *= 4;
	}
}

static bool read_dynamic(Elf *elf, int fd, Elf_Scn *scn, const GElf_Shdr *sh, struct host_elf_info *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *strscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr strtab;
	size_t i, n, cap = 0;
	GElf_Dyn dyn;
	char *buf = NULL;
	const char *s;
	bool ok = true;

	if (!data || sh->sh_entsize == 0) {
		set_error(out, "corrupt dynamic section");
		return false;
	}
	if (!strscn || !gelf_getshdr(strscn, &strtab))
		strtab.sh_type = SHT_NULL;  /* no names: dyn_string answers none */
	n = data->d_size / gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
	for (i = 0; i < n && gelf_getdyn(data, (int)i, &dyn); i++) {
		bool stored = true;

		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME &&
		    dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
			continue;
		/* as elf_strptr: sh_link a string table, the offset inside it */
		s = dyn_string(fd, &strtab, dyn.d_un.d_val, &buf, &cap);
		if (!s)
			continue;
		if (dyn.d_tag == DT_NEEDED)
			stored = push_needed(out, s);
		else if (dyn.d_tag == DT_SONAME)
			stored = keep_string(&out->soname, s);
		else if (dyn.d_tag == DT_RPATH)
			stored = keep_string(&out->rpath, s);
		else
			stored = keep_string(&out->runpath, s);
		if (!stored) {
			set_error(out, "out of memory");
			ok = false;
			break;
		}
	}
	free(buf);
	return ok;
}

static bool is_fatbin_section(const char *name)
{
	return name && (strcmp(name, ".nv_fatbin") == 0 || strcmp(name, ".nvFatBinSegment") == 0);
}

static bool section_in_file(Elf *elf, size_t index, uint64_t file_size)
{
	Elf_Scn *scn = elf_getscn(elf, index);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	return sh.sh_type == SHT_NOBITS || range_in_file(sh.sh_offset, sh.sh_size, file_size);
}

static bool read_sections(Elf *elf, int fd, uint64_t file_size, struct host_elf_info *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	bool have_names, seen_dynamic = false;

	have_names = elf_getshdrstrndx(elf, &shstrndx) == 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh)) {
			set_error(out, "corrupt section header");
			return false;
		}
		if (have_names && is_fatbin_section(elf_strptr(elf, shstrndx, sh.sh_name)))
			out->has_fatbin = true;
		if (sh.sh_type != SHT_DYNAMIC || seen_dynamic)
			continue;
		seen_dynamic = true;
		if (!range_in_file(sh.sh_offset, sh.sh_size, file_size) ||
		    !section_in_file(elf, sh.sh_link, file_size)) {
			set_error(out, "truncated");
			return false;
		}
		if (!read_dynamic(elf, fd, scn, &sh, out))
			return false;
	}
	return true;
}

/* The ELF header and section header table must lie inside the file before libelf
 * is asked about them: it trusts e_shoff/e_shnum further than we want to. */
static bool headers_in_file(Elf *elf, uint64_t file_size, struct host_elf_info *out)
{
	GElf_Ehdr eh;
	size_t shnum;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) != 0) {
		set_error(out, "%s", file_size < sizeof(Elf64_Ehdr) ? "truncated" : "corrupt ELF header");
		return false;
	}
	out->machine = eh.e_machine;
	/* libelf quietly shows no sections when their table lies past the end */
	if (eh.e_shnum)
		shnum = eh.e_shnum;
	if (eh.e_shoff && !range_in_file(eh.e_shoff, (uint64_t)(shnum ? shnum : 1) * eh.e_shentsize, file_size)) {
		set_error(out, "truncated");
		return false;
	}
	if (eh.e_phoff && !range_in_file(eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize, file_size)) {
		set_error(out, "truncated");
		return false;
	}
	return true;
}

static bool has_elf_magic(int fd)
{
	unsigned char magic[SELFMAG];

	return pread(fd, magic, SELFMAG, 0) == SELFMAG && memcmp(magic, ELFMAG, SELFMAG) == 0;
}

bool host_elf_read(const char *path, struct host_elf_info *out)
{
	struct stat st;
	Elf *elf = NULL;
	int fd;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		set_error(out, "cannot open: %s", strerror(errno));
		return false;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		set_error(out, "cannot open: %s", S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
		goto out;
	}
	if (!has_elf_magic(fd)) {
		set_error(out, "not an ELF file");
		goto out;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		set_error(out, "%s", (size_t)st.st_size < sizeof(Elf64_Ehdr) ? "truncated" : "corrupt ELF file");
		goto out;
	}
	out->elf_class = gelf_getclass(elf);
	if (out->elf_class != ELFCLASS32 && out->elf_class != ELFCLASS64) {
		set_error(out, "corrupt ELF header");
		goto out;
	}
	if (!headers_in_file(elf, (uint64_t)st.st_size, out))
		goto out;
	out->ok = read_sections(elf, fd, (uint64_t)st.st_size, out);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return out->ok;
}

void host_elf_free(struct host_elf_info *info)
{
	host_free_strings(info->needed, info->nneeded);
	free(info->soname);
	free(info->rpath);
	free(info->runpath);
	info->needed = NULL;
	info->nneeded = 0;
	info->soname = info->rpath = info->runpath = NULL;
}

void host_free_strings(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- search path expansion ---- */

/* Length of the token "NAME" or "{NAME}" at s, 0 unless it is exactly that token:
 * "$ORIGINx" is no $ORIGIN to ld.so (its is_dst). */
static size_t dst_len(const char *s, const char *name)
{
	size_t n = strlen(name);
	bool curly = *s == '{';
	char next;

	if (curly)
		s++;
	if (strncmp(s, name, n) != 0)
		return 0;
	next = s[n];
	if (curly)
		return next == '}' ? n + 2 : 0;
	if ((next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z') ||
	    (next >= '0' && next <= '9') || next == '_')
		return 0;
	return n;
}

/* ld.so's $ORIGIN: for the main program, the folder of the resolved executable
 * (it reads /proc/self/exe); for a library, the folder part of the name it was opened
 * by, made absolute against the current directory but not otherwise cleaned up. */
static char *origin_of(const char *object_path, bool is_main_program)
{
	char buf[PATH_MAX], cwd[PATH_MAX], *slash;
	int n;

	if (!object_path || !*object_path)
		return NULL;
	if (is_main_program && realpath(object_path, buf))
		n = (int)strlen(buf);
	else if (object_path[0] == '/')
		n = snprintf(buf, sizeof(buf), "%s", object_path);
	else if (getcwd(cwd, sizeof(cwd)))
		n = snprintf(buf, sizeof(buf), "%s%s%s", cwd,
			     cwd[strlen(cwd) - 1] == '/' ? "" : "/", object_path);
	else
		return NULL;
	if (n < 0 || (size_t)n >= sizeof(buf))
		return NULL;
	slash = strrchr(buf, '/');
	if (slash == buf)
		slash++;
	*slash = 0;
	return strdup(buf);
}

static const char *platform_name(void)
{
	const char *p = (const char *)getauxval(AT_PLATFORM);

	return p && *p ? p : GT_DST_PLATFORM;
}

/* Appends at most n bytes of s to the growing string *buf. */
static bool append(char **buf, size_t *len, const char *s, size_t n)
{
	char *grown = realloc(*buf, *len + n + 1);

	if (!grown)
		return false;
	memcpy(grown + *len, s, n);
	*len += n;
	grown[*len] = 0;
	*buf = grown;
	return true;
}

/* A path with "." and ".." folders taken out and a '/' at its end, as
 * is_trusted_path_normalize compares it. */
static char *normalized_dir(const char *path)
{
	char *out = gt_xmalloc(strlen(path) + 2), *w = out;
	const char *p = path;

	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if ((n == 1 && p[0] == '.') || n == 0) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (w > out && *--w != '/')
				;
		} else {
			*w++ = '/';
			memcpy(w, p, n);
			w += n;
		}
		p += n;
		if (*p)
			p++;
	}
	*w++ = '/';
	*w = 0;
	return out;
}

static bool under_trusted(const char *path, const struct host_dst *dst)
{
	char *norm = normalized_dir(path);
	bool ok = false;

	for (size_t i = 0; i < dst->ntrusted && !ok; i++) {
		size_t n = strlen(dst->trusted[i]);

		ok = strncmp(norm, dst->trusted[i], n) == 0 &&
		     (dst->trusted[i][n - 1] == '/' ? true : norm[n] == '/');
	}
	free(norm);
	return ok;
}

/* One list element with its tokens replaced; NULL when ld.so would drop it
 * (an $ORIGIN it cannot know or, in secure mode, may not use) or memory ran out. */
static char *expand_element(const char *e, size_t elen, const char *origin, bool is_main_program,
			    const struct host_dst *dst)
{
	bool check_trusted = false;
	char *res = NULL;
	size_t len = 0, i = 0, n;
	bool okay = append(&res, &len, "", 0);

	while (okay && i < elen) {
		const char *repl = NULL;

		if (e[i] != '$') {
			/* up to the next '$' at once: a byte a time was a realloc
			 * each, 7% of a torch-like diagnosis (bench/README.md 21) */
			n = i;
			while (n < elen && e[n] != '$')
				n++;
			okay = append(&res, &len, e + i, n - i);
			i = n;
			continue;
		}
		i++;
		if ((n = dst_len(e + i, "ORIGIN")) != 0) {
			/* _dl_dst_substitute: in secure mode only "$ORIGIN" alone,
			 * first in the element, followed by nothing or a '/' */
			bool alone = i == 1 && (i + n == elen || e[i + n] == '/');

			repl = dst->secure && !alone ? NULL : origin;
			check_trusted = dst->secure && is_main_program;
		} else if ((n = dst_len(e + i, "PLATFORM")) != 0) {
			repl = dst->platform ? dst->platform : platform_name();
		} else if ((n = dst_len(e + i, "LIB")) != 0) {
			repl = GT_DST_LIB;
		}
		if (!n) {
			okay = append(&res, &len, "$", 1);
			continue;
		}
		okay = repl && append(&res, &len, repl, strlen(repl));
		i += n;
	}
	if (okay && check_trusted && !under_trusted(res, dst))
		okay = false;
	if (!okay) {
		free(res);
		return NULL;
	}
	return res;
}

/* ld.so strips trailing slashes (keeping "/"), reads "" as the current folder. */
static void tidy_dir(char **dir)
{
	size_t len = strlen(*dir);
	char *dot;

	while (len > 1 && (*dir)[len - 1] == '/')
		(*dir)[--len] = 0;
	if (len)
		return;
	dot = strdup(".");
	if (dot) {
		free(*dir);
		*dir = dot;
	}
}

static bool already_listed(char **dirs, size_t n, const char *dir)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(dirs[i], dir) == 0)
			return true;
	return false;
}

size_t host_expand_search_path(const char *list, const char *object_path, bool is_main_program,
			     char ***dirs)
{
	return host_expand_search_path_as(list, object_path, is_main_program, NULL, dirs);
}

size_t host_expand_search_path_as(const char *list, const char *object_path, bool is_main_program,
				  const struct host_dst *dst, char ***dirs)
{
	static const struct host_dst kernel_values;
	char *origin = origin_of(object_path, is_main_program), *dir, **grown;
	const char *p = list, *end;
	size_t n = 0;

	*dirs = NULL;
	if (!list)
		goto out;
	for (;; p = end + 1) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		dir = expand_element(p, (size_t)(end - p), origin, is_main_program, dst ? dst : &kernel_values);
		if (dir)
			tidy_dir(&dir);
		if (dir && !already_listed(*dirs, n, dir) &&
		    (grown = realloc(*dirs, (n + 1) * sizeof(*grown))) != NULL) {
			*dirs = grown;
			(*dirs)[n++] = dir;
		} else {
			free(dir);
		}
		if (!*end)
			break;
	}
out:
	free(origin);
	return n;
}
