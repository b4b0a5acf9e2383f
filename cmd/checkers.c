/* Sanitizers and valgrind under the tracer (issue 34): finds the checker a
 * command runs under and adapts its environment so that it runs as it does
 * without gputrace. What each one needs was measured on glibc 2.36 (gcc 12,
 * clang 14, valgrind 3.19): doc/design-notes.md, "Sanitizers and valgrind". */
#define _GNU_SOURCE
#include "cmd/checkers.h"

#include "host/elf_info.h"
#include "rules/fix.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_PREFIX "gputrace: "
#define ASAN_LINK_ORDER_OFF "verify_asan_link_order=0"

/* What the tracer must do differently for a checker. */
enum change {
	KEEP,            /* nothing: it runs traced as it runs bare */
	NO_AUDIT,        /* it fails beside an audit module: LD_PRELOAD alone */
	ASAN_NO_AUDIT,   /* that, and its runtime refuses a library preloaded before it */
	UNTRACED,        /* the tracer's own code would show as errors */
};

struct policy {
	const char *name;         /* for the note on stderr */
	const char *tag;          /* in GPUTRACE_MODE */
	enum change shared;       /* its runtime a library loaded at start */
	enum change linked_in;    /* its runtime inside the program */
};

/* AddressSanitizer's leak check, linked in or not, dies at exit under any
 * audit module once a library loaded at start has used dynamic TLS through
 * __tls_get_addr; the shared runtimes of ThreadSanitizer and LeakSanitizer
 * need more static TLS than is left beside one. The other linked-in
 * runtimes ran traced as bare. HWASan could not be run here (no
 * tagged-address kernel): it is left as it is. */
static const struct policy policies[] = {
	[CMD_CHECKER_NONE] = { "", "", KEEP, KEEP },
	[CMD_CHECKER_UBSAN] = { "UndefinedBehaviorSanitizer", "ubsan", KEEP, KEEP },
	[CMD_CHECKER_MSAN] = { "MemorySanitizer", "msan", KEEP, KEEP },
	[CMD_CHECKER_HWASAN] = { "HWAddressSanitizer", "hwasan", KEEP, KEEP },
	[CMD_CHECKER_LSAN] = { "LeakSanitizer", "lsan", NO_AUDIT, KEEP },
	[CMD_CHECKER_TSAN] = { "ThreadSanitizer", "tsan", NO_AUDIT, KEEP },
	[CMD_CHECKER_ASAN] = { "AddressSanitizer", "asan", ASAN_NO_AUDIT, NO_AUDIT },
	[CMD_CHECKER_VALGRIND] = { "valgrind", "valgrind", UNTRACED, UNTRACED },
};

/* Runtime libraries by the start of their file names: gcc's libasan.so.8,
 * clang's -shared-libsan libclang_rt.asan-x86_64.so (or libclang_rt.asan.so). */
static const struct {
	const char *prefix;
	enum cmd_checker kind;
} runtime_names[] = {
	{ "libasan.so", CMD_CHECKER_ASAN },     { "libclang_rt.asan", CMD_CHECKER_ASAN },
	{ "libtsan.so", CMD_CHECKER_TSAN },     { "libclang_rt.tsan", CMD_CHECKER_TSAN },
	{ "liblsan.so", CMD_CHECKER_LSAN },     { "libhwasan.so", CMD_CHECKER_HWASAN },
	{ "libclang_rt.hwasan", CMD_CHECKER_HWASAN },
	{ "libubsan.so", CMD_CHECKER_UBSAN },   { "libclang_rt.ubsan", CMD_CHECKER_UBSAN },
};

/* A linked-in runtime exports its entry point, so that its interceptors
 * and the instrumented code find it. */
static const struct {
	const char *symbol;
	enum cmd_checker kind;
} runtime_symbols[] = {
	{ "__asan_init", CMD_CHECKER_ASAN },     { "__tsan_init", CMD_CHECKER_TSAN },
	{ "__hwasan_init", CMD_CHECKER_HWASAN }, { "__msan_init", CMD_CHECKER_MSAN },
	{ "__lsan_init", CMD_CHECKER_LSAN },
	{ "__ubsan_handle_add_overflow", CMD_CHECKER_UBSAN },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Keeps the checker that needs most (the enum's order). */
static void consider(struct cmd_checker_found *out, enum cmd_checker kind, bool linked_in,
		     const char *what, size_t len)
{
	if (kind <= out->kind)
		return;
	out->kind = kind;
	out->linked_in = linked_in;
	snprintf(out->runtime, sizeof(out->runtime), "%.*s", (int)len, what);
}

static void consider_library(struct cmd_checker_found *out, const char *entry, size_t len)
{
	const char *base = entry + len;
	size_t i, blen;

	while (base > entry && base[-1] != '/')
		base--;
	blen = len - (size_t)(base - entry);
	for (i = 0; i < COUNT(runtime_names); i++)
		if (blen >= strlen(runtime_names[i].prefix) &&
		    !strncmp(base, runtime_names[i].prefix, strlen(runtime_names[i].prefix)))
			consider(out, runtime_names[i].kind, false, base, blen);
}

/* valgrind's launcher (Debian's /usr/bin/valgrind script and the
 * valgrind.bin it runs), or one of its tools run directly
 * (.../valgrind/memcheck-amd64-linux). */
static bool valgrind_name(const char *path)
{
	const char *base = base_of(path);
	size_t bl = strlen(base);

	if (!strcmp(base, "valgrind") || !strcmp(base, "valgrind.bin"))
		return true;
	return base - path >= 10 && !strncmp(base - 10, "/valgrind/", 10) &&
	       bl > 6 && !strcmp(base + bl - 6, "-linux");
}

static bool is_valgrind(const char *path)
{
	char real[PATH_MAX];

	return valgrind_name(path) || (realpath(path, real) && valgrind_name(real));
}

/* A runtime the user preloads, as the sanitizers' own documents say to do
 * for an interpreter running an instrumented extension. */
static void from_preload(struct cmd_checker_found *out)
{
	const char *s = getenv("LD_PRELOAD"), *e;

	while (s && *s) {
		e = s + strcspn(s, ": \t");
		if (e > s && !gt_is_tracer_entry(s, (size_t)(e - s)))
			consider_library(out, s, (size_t)(e - s));
		s = *e ? e + 1 : e;
	}
}

static void from_needed(struct cmd_checker_found *out, const char *path)
{
	struct host_elf_info info;
	size_t i;

	if (host_elf_read(path, &info))
		for (i = 0; i < info.nneeded; i++)
			consider_library(out, info.needed[i], strlen(info.needed[i]));
	host_elf_free(&info);
}

static void match_symbol(struct cmd_checker_found *out, const char *name)
{
	size_t i;

	if (name[0] != '_' || name[1] != '_')
		return;
	for (i = 0; i < COUNT(runtime_symbols); i++)
		if (!strcmp(name, runtime_symbols[i].symbol))
			consider(out, runtime_symbols[i].kind, true, name, strlen(name));
}

/* The symbols the program defines in .dynsym (never the ones it imports:
 * a program built with -shared-libsan imports __asan_init). */
static void scan_dynsym(struct cmd_checker_found *out, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			uint64_t file_size)
{
	Elf_Data *data;
	GElf_Sym sym;
	const char *name;
	size_t i, n;

	if (sh->sh_entsize == 0 || sh->sh_offset > file_size || sh->sh_size > file_size - sh->sh_offset)
		return;
	data = elf_getdata(scn, NULL);
	if (!data)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n && gelf_getsym(data, (int)i, &sym); i++) {
		if (sym.st_shndx == SHN_UNDEF)
			continue;
		/* elf_strptr checks that sh_link is a string table and the offset inside it */
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name)
			match_symbol(out, name);
	}
}

static void from_dynsym(struct cmd_checker_found *out, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	Elf_Scn *scn = NULL;
	struct stat st;
	GElf_Shdr sh;
	Elf *elf;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (elf = elf_begin(fd, ELF_C_READ, NULL))) {
		while (elf_kind(elf) == ELF_K_ELF && (scn = elf_nextscn(elf, scn)) != NULL)
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
				scan_dynsym(out, elf, scn, &sh, (uint64_t)st.st_size);
		elf_end(elf);
	}
	close(fd);
}

void cmd_checker_find(const char *path, struct cmd_checker_found *out)
{
	memset(out, 0, sizeof(*out));
	if (is_valgrind(path)) {
		consider(out, CMD_CHECKER_VALGRIND, false, base_of(path), strlen(base_of(path)));
		return;
	}
	from_needed(out, path);
	from_preload(out);
	/* Nothing needs more than ASan (gcc -fsanitize=address,undefined needs
	 * libubsan too): only short of it is the symbol table read. */
	if (out->kind < CMD_CHECKER_ASAN)
		from_dynsym(out, path);
}

/* The list variable without lib (or any other copy of gputrace's library):
 * unset when nothing else is left. */
static void drop_tracer(const char *var, const char *lib)
{
	const char *old = getenv(var), *s, *e;
	char *out;
	size_t len = 0;

	if (!old)
		return;
	out = malloc(strlen(old) + 1);
	if (!out)
		return;
	for (s = old; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, ": \t");
		if (e == s || gt_is_tracer_entry(s, (size_t)(e - s)) ||
		    ((size_t)(e - s) == strlen(lib) && !strncmp(s, lib, (size_t)(e - s))))
			continue;
		len += (size_t)sprintf(out + len, "%s%.*s", len ? ":" : "", (int)(e - s), s);
	}
	if (len)
		setenv(var, out, 1);
	else
		unsetenv(var);
	free(out);
}

/* Whether the options already end with the check off (gputrace under gputrace). */
static bool link_order_off(const char *opts)
{
	const char *p, *last = NULL;

	for (p = opts; (p = strstr(p, "verify_asan_link_order=")) != NULL; p++)
		last = p;
	return last && !strncmp(last, ASAN_LINK_ORDER_OFF, strlen(ASAN_LINK_ORDER_OFF));
}

/* Appended, so that the user's other options stay, and win over ASan's
 * defaults as before; ASan takes the last value of a flag. */
static void asan_link_order_off(void)
{
	const char *old = getenv("ASAN_OPTIONS");
	char *v;

	if (old && link_order_off(old))
		return;
	if (asprintf(&v, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "",
		     ASAN_LINK_ORDER_OFF) < 0)
		return;
	setenv("ASAN_OPTIONS", v, 1);
	free(v);
}

/* "<halves>:<checker>", in each trace header of the run (common/trace_file.c). */
static void set_mode(const char *halves, const struct policy *p)
{
	char mode[64];

	snprintf(mode, sizeof(mode), "%s:%s", halves, p->tag);
	setenv("GPUTRACE_MODE", mode, 1);
}

void cmd_checkers_adapt(const char *path, const char *lib, bool quiet)
{
	struct cmd_checker_found f;
	const struct policy *p;
	enum change c;

	/* Only what this run sets is recorded (one left by an outer gputrace is not ours). */
	unsetenv("GPUTRACE_MODE");
	if (!path)
		return;
	cmd_checker_find(path, &f);
	p = &policies[f.kind];
	c = f.linked_in ? p->linked_in : p->shared;
	if (c == KEEP)
		return;
	drop_tracer("LD_AUDIT", lib);
	if (c == UNTRACED) {
		drop_tracer("LD_PRELOAD", lib);
		if (!quiet)
			fprintf(stderr, LOG_PREFIX "%s is valgrind: its program runs on valgrind's "
				"simulated CPU, where the tracer's own code shows as false errors; "
				"running it untraced.\n", path);
		return;
	}
	if (c == ASAN_NO_AUDIT)
		asan_link_order_off();
	set_mode("preload-only", p);
	if (!quiet)
		fprintf(stderr, LOG_PREFIX "%s (%s) fails beside an audit module: traced with "
			"LD_PRELOAD alone, no search trail%s; GPUTRACE_MODE=preload-only:%s\n", p->name,
			f.runtime, c == ASAN_NO_AUDIT ? ", " ASAN_LINK_ORDER_OFF " added to ASAN_OPTIONS" : "",
			p->tag);
}
