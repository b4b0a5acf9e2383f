/* A small look into ELF files on disk from inside the loader's callbacks:
 * no libelf (the library must stay self-contained), static buffers. */
#ifndef GPUTRACE_ELF_PEEK_H
#define GPUTRACE_ELF_PEEK_H

#include <stdbool.h>

/* Does the 64-bit ELF file at path have a section of one of these names?
 * False for anything unreadable, truncated or odd. Not thread-safe: callers
 * hold the loader's lock. */
bool audit_elf_has_section(const char *path, const char *const *names, int n);

#endif
