/* The dynamic symbol table of a library file, as the loader binds against
 * it: what the file needs (undefined symbols, with the version and the
 * DT_NEEDED file each versioned one is required from, DT_VERNEED) and what
 * it defines (.dynsym with DT_VERDEF). Reads; judges nothing. */
#ifndef GPUTRACE_ELF_SYMBOLS_H
#define GPUTRACE_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>

/* The strings point into the file's tables, which host_symbols holds until
 * host_symbols_free: no copy per symbol (a scope of 25 libraries is tens of
 * thousands of symbols, read at the end of every traced run that unloads a
 * CUDA library). */
struct host_symbol {
	const char *name;
	const char *version; /* the version node, or NULL for an unversioned symbol */
	const char *file;   /* undefined only: the DT_NEEDED file the version is required from */
	bool weak;          /* STB_WEAK: an undefined weak symbol may stay unresolved */
	bool hidden;        /* defined only: a non-default version (name@VER, not @@) */
};

struct host_symbols {
	bool ok;
	bool versioned;     /* the file has a DT_VERDEF table */
	struct host_symbol *needed;   /* undefined, in .dynsym order */
	size_t nneeded;
	struct host_symbol *defined;  /* defined and exported (default or protected), in .dynsym order */
	size_t ndefined;
	char error[256];
	/* private: the open file's tables (libelf's) and an index of defined
	 * by name (open addressing, slots of defined's index + 1; 0 is empty) */
	void *elf;
	size_t *by_name;
	size_t nslots;
};

/* False (and out->error) for a file that is not a readable ELF object.
 * Always call host_symbols_free. */
bool host_symbols_read(const char *path, struct host_symbols *out);
void host_symbols_free(struct host_symbols *s);

/* Would a reference to name (with version, or NULL for an unversioned
 * reference) bind to a definition in s? As the loader matches: a versioned
 * reference takes the definition of that version, or any definition of a file
 * without version information; an unversioned reference takes the default
 * version or an unversioned definition. */
bool host_symbols_define(const struct host_symbols *s, const char *name, const char *version);

#endif
