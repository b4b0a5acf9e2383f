/* A file as the dynamic loader reads it when it maps it: the ELF header, the
 * program headers and, through PT_DYNAMIC, the dynamic strings; never the
 * section headers (a file without them loads all the same). The verdict is
 * glibc 2.36's open_verify and _dl_map_object_from_fd, with their error text. */
#ifndef GPUTRACE_HOST_ELF_LOAD_H
#define GPUTRACE_HOST_ELF_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum host_load_verdict {
	HOST_LOAD_ABSENT,     /* nothing there, or not readable: the loader goes on */
	HOST_LOAD_SKIPPED,    /* ELF for another class or machine: the loader goes on */
	HOST_LOAD_ENDS_LIST,  /* open failed otherwise (ELOOP ...): the rest of that folder list is skipped */
	HOST_LOAD_FATAL,      /* the loader stops with an error (reason) */
	HOST_LOAD_USABLE,
};

struct host_elf_load {
	enum host_load_verdict verdict;
	const char *reason;     /* FATAL: glibc's words ("file too short", "invalid ELF header" ...) */
	bool exists;            /* something is at the path (stat) */
	dev_t dev;
	ino_t ino;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	int e_type;             /* ET_DYN, ET_EXEC */
	/* With want_dynamic and a USABLE file (or a program, see host_elf_load_program): */
	char *interp;           /* PT_INTERP, or NULL */
	char *soname;           /* DT_SONAME */
	char *rpath;            /* DT_RPATH, NULL when the file also has DT_RUNPATH (ld.so ignores it then) */
	char *runpath;          /* DT_RUNPATH */
	char **needed;          /* DT_NEEDED, in order */
	size_t nneeded;
	uint64_t flags_1;       /* DT_FLAGS_1 (DF_1_NODEFLIB, DF_1_PIE) */
};

/* Judges path as a library the loader would map, reading the dynamic strings
 * too when want_dynamic. Always call host_elf_load_free. */
void host_elf_load_read(const char *path, bool want_dynamic, struct host_elf_load *out);
/* The same for the program itself (an executable or a library run as one:
 * ET_EXEC and PIE are fine). */
void host_elf_load_program(const char *path, struct host_elf_load *out);
void host_elf_load_free(struct host_elf_load *l);

#endif
