/* The host as the diagnosis sees it: every question the model and the rules
 * ask of the files of a traced host (where does this path really lead, what
 * does this ELF file need, which package owns it, what did the framework
 * declare, which device code does it carry, what would the loader find),
 * asked at most once and remembered with its answer.
 *
 * Why: the findings must not depend on the machine where `gputrace report`
 * runs. The diagnosis at the end of a traced run asks this host and writes
 * every answer next to the traces (gputrace-facts.json, one object per
 * host; schema/gputrace-facts.schema.json). A later report, on this machine
 * after `pip install -U` or on a maintainer's laptop, reads the answers from
 * that file and gives the same findings. A question the file does not
 * answer is asked of this host only when the trace was taken here, and is
 * otherwise unanswered (counted, and said by the report).
 *
 * The answers are keyed by the question (a path, a pattern, a search), not
 * by objects of the model, so facts/ sits below read/: the model is built
 * from the trace and these answers, and the rules (rules/) see the host
 * through nothing else. */
#ifndef GPUTRACE_FACTS_H
#define GPUTRACE_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/symbol_check.h"
#include "host/elf_info.h"
#include "host/fatbin.h"
#include "host/framework.h"
#include "host/gpu_presence.h"
#include "host/package.h"
#include "host/resolve.h"

#define GT_FACTS_FILE "gputrace-facts.json"
#define GT_FACTS_VERSION 1

/* The facts of one host. */
struct gt_host_facts;

/* Where the answers of a report came from, over all its hosts. */
struct gt_facts_tally {
	size_t recorded;    /* answered from a facts file */
	size_t asked;       /* asked of this host now */
	size_t unanswered;  /* not in the file, and the trace is from another host */
	size_t elsewhere;   /* of those asked, for traces of another host that has no
	                       facts file: this host's answers stand in for its own */
};

/* A set of facts, one per host, for one report. */
struct gt_facts_set;

enum gt_facts_mode {
	GT_FACTS_RECORDED,  /* a facts file's answers first (a report read later) */
	GT_FACTS_LIVE,      /* this host's answers now, to be written (the diagnosis at exit) */
};

struct gt_facts_set *gt_facts_set_new(enum gt_facts_mode mode);
/* Adds the answers of dir's facts file, if it has one. False, with a
 * one-line reason in err, for a file that is there and cannot be taken
 * (not JSON, another format, a version this reader does not know). */
bool gt_facts_set_read_folder(struct gt_facts_set *s, const char *dir, char *err, size_t errcap);
/* The facts of the traces of host (NULL: this host); made on first use. */
struct gt_host_facts *gt_facts_of_host(struct gt_facts_set *s, const char *host);
/* Writes the answers asked of this host into dir's facts file, merged with
 * what the file already holds (under a lock: the ranks of one job share a
 * folder); atomically (a temporary file renamed). */
bool gt_facts_set_write_folder(struct gt_facts_set *s, const char *dir, char *err, size_t errcap);
void gt_facts_set_tally(const struct gt_facts_set *s, struct gt_facts_tally *out);
void gt_facts_set_free(struct gt_facts_set *s);
/* This host's facts, asked now and never written: what `gputrace scan`
 * judges (it has no trace, only this host). One for the process. */
struct gt_host_facts *gt_facts_here(void);

/* ---- the questions ---- */

/* realpath(3) of path: false when it leads nowhere. */
bool gt_facts_real_path(struct gt_host_facts *f, const char *path, char *out, size_t cap);
/* Is there a file (access F_OK), a readable one (R_OK)? */
bool gt_facts_exists(struct gt_host_facts *f, const char *path);
bool gt_facts_readable(struct gt_host_facts *f, const char *path);
/* The same file: equal paths, or equal real paths. */
bool gt_facts_same_file(struct gt_host_facts *f, const char *a, const char *b);
/* The ELF facts of a file (host_elf_read); always free with host_elf_free. */
bool gt_facts_elf(struct gt_host_facts *f, const char *path, struct host_elf_info *out);
/* The package that owns a file (host_package_of). */
bool gt_facts_package(struct gt_host_facts *f, const char *path, struct host_package *out);
/* Says a package question will come (host_package_want). */
void gt_facts_package_want(struct gt_host_facts *f, const char *path);
/* The needs a framework's install declares (host_framework_needs); always
 * free with host_needs_free. */
bool gt_facts_framework_needs(struct gt_host_facts *f, const char *lib_path, struct host_needs *out);
/* A version compiled into the file (host_embedded_version). */
bool gt_facts_embedded_version(struct gt_host_facts *f, const char *path, const char *component, char *out,
			       size_t cap);
/* The device code of a file (host_fatbin_of), kept as long as the facts:
 * NULL with a reason in err when the file cannot be read as ELF. */
const struct host_fatbin *gt_facts_fatbin(struct gt_host_facts *f, const char *path, char *err, size_t errcap);
/* The paths glob(3) gives for pattern (folders only with only_dirs), sorted;
 * malloc'd (host_free_strings). */
size_t gt_facts_glob(struct gt_host_facts *f, const char *pattern, bool only_dirs, char ***paths);
/* A DT_RPATH/DT_RUNPATH list expanded for an object (host_expand_search_path:
 * $PLATFORM and $LIB are the traced host's). */
size_t gt_facts_search_path(struct gt_host_facts *f, const char *list, const char *object_path, bool is_main_program,
			    char ***dirs);
/* The loader's search on paper (host_resolve) with the traced process's
 * LD_LIBRARY_PATH (NULL: unset) and the host's ld.so.cache; free with
 * host_resolution_free. */
void gt_facts_resolve(struct gt_host_facts *f, const char *name, const char *requester, const char *const *loaders,
		      size_t nloaders, const char *ld_library_path, struct host_resolution *out);
/* The symbols the consumers need that no object of the scope defines
 * (facts/symbol_check.h), appended to *gaps; returns how many. */
size_t gt_facts_symbol_gaps(struct gt_host_facts *f, const struct gt_sym_question *q, struct gt_symbol_gap **gaps,
			    size_t *ngaps);
/* The function at offset off of a file (host_symbol_at): its name into
 * name and the offset into it. */
bool gt_facts_symbol_at(struct gt_host_facts *f, const char *path, unsigned long long off, char *name, size_t cap,
			unsigned long long *into);
/* /etc/ld.so.preload's text ("" when there is none). */
const char *gt_facts_etc_preload(struct gt_host_facts *f);
/* Is there an NVIDIA GPU (PCI vendor 0x10de), a kernel module and the
 * driver's device nodes (/dev/nvidiactl, /dev/nvidia0, WSL's /dev/dxg) on
 * the traced host (host_gpu_presence_read)? False when not known. */
bool gt_facts_gpu_presence(struct gt_host_facts *f, struct host_gpu_presence *out);

/* GPUTRACE_FACTS_PROFILE set and not "0": the questions' counts and times
 * are printed at exit (and `gputrace COMMAND` times its diagnosis child). */
bool gt_facts_profile_wanted(void);
/* The same, for what a caller times itself (the report's phases): one line
 * "gputrace facts profile: NAME ... ms", printed at once. */
void gt_facts_profile_phase(const char *name, double ms);
/* Prints the sections' counts and times now: for a child that leaves by
 * _exit, where the atexit print does not run. */
void gt_facts_profile_flush(void);

#endif
