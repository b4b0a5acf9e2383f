/* The missing-symbol comparison, shared by the report (a load the loader
 * rolled back) and by `scan --for` (the same check on paper): which symbols a
 * consumer needs from a CUDA library that no object of its scope defines,
 * which provider lacks them, and which copy on disk has them.
 *
 * Only what can be proven is said: weak references are never missing; a
 * symbol any object of the scope defines is not missing; a versioned symbol
 * is blamed on the file its version is required from (DT_VERNEED), any
 * file (libstdc++.so.6 for GLIBCXX_3.4.30 as much as libnvJitLink.so.12),
 * and an unversioned one only on a CUDA provider of which another copy
 * defines it. */
#ifndef GPUTRACE_SYMBOL_CHECK_H
#define GPUTRACE_SYMBOL_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "host/elf_symbols.h"
#include "host/resolve.h"

/* One object the loader can bind the consumer's symbols to. */
struct gt_sym_obj {
	char *path;
	char *soname;         /* DT_SONAME, else the file name */
	char **needed;        /* its DT_NEEDED names */
	size_t nneeded;
	struct host_symbols syms;
};

struct gt_sym_scope {
	struct gt_sym_obj *v;
	size_t n;
	/* The load is known to have failed (the loader's exit 127 at start-up):
	 * an unversioned symbol with a needed CUDA library's own API prefix is
	 * then blamed on it even with no better copy on disk. A dlopen with
	 * lazy binding can succeed with such a symbol missing, so this is not
	 * proof for a run of closes. */
	bool load_failed;
};

/* A symbol a consumer needs that its provider lacks. */
struct gt_symbol_gap {
	char *symbol;
	char *version;        /* NULL: unversioned */
	char *consumer;       /* paths, as the scope holds them */
	char *provider;
	char *good_copy;      /* another copy of the provider that defines it, or NULL */
	bool no_version_node; /* the provider defines nothing of the version: the
	                         loader's "version `GLIBCXX_3.4.30' not found" */
};

/* Adds the object at path (read from disk; a file that cannot be read is
 * left out). Returns its index, or -1. */
long gt_sym_scope_add(struct gt_sym_scope *s, const char *path);
void gt_sym_scope_free(struct gt_sym_scope *s);

/* The copies of name that the loader, searching for consumer in env, could
 * have taken (every usable candidate, the shadowed ones included), and the
 * file next to the consumer; malloc'd paths (host_free_strings). */
size_t gt_sym_alternatives(const char *name, const char *consumer, const struct host_resolve_env *env,
			   char ***paths);

/* The gaps of consumer (an index into scope), appended to *gaps. env is the
 * loader's environment for the alternatives. Returns how many were added. */
size_t gt_symbol_gaps(const struct gt_sym_scope *scope, size_t consumer, const struct host_resolve_env *env,
		      struct gt_symbol_gap **gaps, size_t *ngaps);
void gt_symbol_gaps_free(struct gt_symbol_gap *gaps, size_t n);

/* The comparison as one question about files (facts/facts.h remembers its
 * answer): the objects that can bind, in load order, and the consumers
 * (paths among them) whose needs are checked. */
struct gt_sym_question {
	const char *const *scope;
	size_t nscope;
	const char *const *consumers;
	size_t nconsumers;
	bool load_failed;             /* as gt_sym_scope.load_failed */
	const char *ld_library_path;  /* the loader's, for the alternatives; NULL: unset */
};
/* Answers it from the files on this host; env supplies the loader's cache.
 * Returns how many gaps were appended. */
size_t gt_sym_question_answer(const struct gt_sym_question *q, const struct host_resolve_env *env,
			      struct gt_symbol_gap **gaps, size_t *ngaps);

#endif
