/* What the report needs from a library file on disk: class, machine, SONAME, NEEDED,
 * RPATH/RUNPATH and CUDA device code; and the loader's expansion of rpath lists. */
#ifndef GPUTRACE_ELF_INFO_H
#define GPUTRACE_ELF_INFO_H

#include <stdbool.h>
#include <stddef.h>

struct host_elf_info {
	bool ok;            /* a readable ELF file */
	int elf_class;      /* ELFCLASS32 or ELFCLASS64 */
	int machine;        /* e_machine (EM_X86_64 ...) */
	char *soname;       /* DT_SONAME, or NULL */
	char **needed;      /* DT_NEEDED names */
	size_t nneeded;
	char *rpath;        /* DT_RPATH string as written (may hold $ORIGIN), or NULL */
	char *runpath;      /* DT_RUNPATH string, or NULL */
	bool has_fatbin;    /* a .nv_fatbin or .nvFatBinSegment section: carries CUDA device code */
	char error[256];    /* why !ok: "not an ELF file", "truncated", "cannot open: ..." */
};

/* False (and out->error) for anything not readable as ELF. Always call host_elf_free. */
bool host_elf_read(const char *path, struct host_elf_info *out);
void host_elf_free(struct host_elf_info *info);

/* Expands a DT_RPATH/DT_RUNPATH list for the object at object_path as ld.so does:
 * $ORIGIN/${ORIGIN}, $LIB, $PLATFORM; empty entries are "."; duplicates dropped.
 * Entries whose $ORIGIN cannot be known (object_path NULL) are dropped, as ld.so does.
 * Returns the number of folders; *dirs is malloc'd (free with host_free_strings). */
size_t host_expand_search_path(const char *list, const char *object_path, bool is_main_program,
			     char ***dirs);

/* What the loader puts for $PLATFORM, and whether it runs a set-user-ID or
 * set-group-ID program (secure mode): then $ORIGIN counts only alone at the
 * start of an element ("$ORIGIN" or "$ORIGIN/..."), and, for the program's
 * own lists, only when the result lies under one of the trusted folders. */
struct host_dst {
	const char *platform;           /* NULL: the kernel's AT_PLATFORM */
	bool secure;
	const char *const *trusted;     /* the loader's default folders */
	size_t ntrusted;
};

/* host_expand_search_path with the loader's values of dst (NULL: as above). */
size_t host_expand_search_path_as(const char *list, const char *object_path, bool is_main_program,
				  const struct host_dst *dst, char ***dirs);
void host_free_strings(char **v, size_t n);

#endif
