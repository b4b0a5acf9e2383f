/* The loader's search, done on paper: for a consumer file and a name it
 * needs, every candidate path in the order ld.so would try it, with the rule
 * that produced it, and the one that wins. Follows glibc 2.36 on x86-64:
 * DT_RPATH (of the requester and its loaders, unless the requester has
 * DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, ld.so.cache, the default folders,
 * each with the glibc-hwcaps and legacy platform subfolders the loader tries.
 * One search for one name: which names are already loaded, and the order of
 * the searches, are host/scan_for.c's. */
#ifndef GPUTRACE_RESOLVE_H
#define GPUTRACE_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "gputrace/trace_format.h"
#include "host/ldcache.h"

struct host_candidate {
	char *path;
	enum gt_rule rule;   /* rpath, ld_library_path, runpath, ld_so_cache, default, absolute */
	bool exists;         /* a file is there */
	bool usable;         /* ... and the loader would take it (a 64-bit x86-64 ELF shared object) */
};

struct host_resolution {
	char *name;                    /* what was asked for */
	char *requester;               /* who asked */
	struct host_candidate *cand;     /* in the loader's order, up to and including the winner */
	size_t ncand;
	long winner;                   /* index into cand, -1 when nothing is found */
	char **shadowed;               /* usable copies of the name later in the order, never reached */
	size_t nshadowed;
	const char *stop_reason;       /* winner -1 because the last candidate made the loader give up
					* ("invalid ELF header", "file too short" ...), else NULL */
};

/* What this host's loader tries: the subfolders of every search folder, best
 * first ("glibc-hwcaps/x86-64-v3", ..., "tls/x86_64/x86_64", ..., "" for the
 * folder itself), and the default folders in order. */
struct host_loader_dirs {
	const char *const *subdirs;
	size_t nsubdirs;
	const char *const *defaults;
	size_t ndefaults;
	bool from_ldso;                /* read from `ld.so --help`; false: the built-in list */
	const char *platform;          /* the loader's AT_PLATFORM ($PLATFORM: "haswell" on many
					* x86-64 CPUs, where the kernel says "x86_64"); NULL: not known */
	const char *const *hwcaps;     /* the glibc-hwcaps subfolders this CPU takes, best first
					* ("x86-64-v3", ...), for the choice among ld.so.cache's entries */
	size_t nhwcaps;
};

struct host_resolve_env {
	const char *ld_library_path;   /* NULL: not set */
	const struct host_ldcache *cache;  /* NULL: no cache */
	bool secure;                   /* a set-user-ID or set-group-ID program (secure mode):
					* LD_LIBRARY_PATH ignored, $ORIGIN only alone and, in the
					* program's own lists, only under the trusted folders */
	const struct host_loader_dirs *dirs;  /* NULL: this host's, host_loader_dirs() */
	bool winner_only;              /* stop at the winner: no shadowed copies (faster) */
	bool reuse;                    /* a search done before for the same name, requester
					* folder and lists answers again (host_resolve): the
					* caller keeps cache and dirs as they are until
					* host_resolve_cache_free (facts/: until the facts go) */
};

/* One object of the RPATH chain as the loader holds it, read once. */
struct host_search_object {
	const char *path;              /* as it was opened: its folder is $ORIGIN */
	const char *rpath;             /* DT_RPATH, NULL when none or when it has DT_RUNPATH */
	const char *runpath;           /* DT_RUNPATH */
	bool is_main;                  /* the program ($ORIGIN: its real folder) */
	bool nodeflib;                 /* DF_1_NODEFLIB: no cache entry or default folder */
};

/* This host's subfolders and default folders, read once from `ld.so --help`
 * (it knows the CPU's x86-64 levels, AT_PLATFORM and the legacy hwcaps); the
 * glibc 2.36 x86-64 list of a plain x86-64-v3 CPU when it cannot be run. */
const struct host_loader_dirs *host_loader_dirs(void);

/* Resolves name as asked by requester (a file path, as the loader opened it:
 * its folder is $ORIGIN), whose own loaders (the objects that loaded it, for
 * the RPATH chain) are loaders[0..nloaders), the main program last; with
 * nloaders 0 the requester is the main program. env may be NULL. Candidates
 * are judged as open_verify does: other class or machine is skipped, a file
 * that is not a loadable ELF ends the search (stop_reason, in glibc's words).
 * Names already loaded are the caller's (host/scan_for.c).
 * Allocation failure aborts (common/xalloc.h). */
void host_resolve(const char *name, const char *requester, const char *const *loaders, size_t nloaders,
		  const struct host_resolve_env *env, struct host_resolution *out);
/* The same search with the chain already read: chain[0] is the requester,
 * then the object that loaded it, and so on up to the program (is_main). */
void host_resolve_chain(const char *name, const struct host_search_object *chain, size_t nchain,
			const struct host_resolve_env *env, struct host_resolution *out);
void host_resolution_free(struct host_resolution *r);
/* Forgets the requesters and programs host_resolve read, and its searches
 * (host_caches_free). */
void host_resolve_cache_free(void);

#endif
