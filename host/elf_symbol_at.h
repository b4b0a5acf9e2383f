/* The function of an ELF file at an address: what a crash frame's (object,
 * offset) pair names. Reads the file; judges nothing. */
#ifndef GPUTRACE_ELF_SYMBOL_AT_H
#define GPUTRACE_ELF_SYMBOL_AT_H

#include <stdbool.h>
#include <stddef.h>

/* The symbol whose code holds off (an address minus the object's load base,
 * which is the file's own virtual address), from .symtab where the file kept
 * one, else from .dynsym; *into is off minus the symbol's start. False when
 * the file cannot be read or no function symbol covers off. */
bool host_symbol_at(const char *path, unsigned long long off, char *name, size_t cap,
		    unsigned long long *into);

#endif
