/* gputrace scan: every CUDA library file a host holds, where the loader or an
 * installer put it, and what is wrong with the set, without running anything.
 * With --for FILE, the loader's choice for that consumer, done on paper. */
#ifndef GPUTRACE_SCAN_H
#define GPUTRACE_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "host/elf_info.h"
#include "common/family.h"
#include "host/ldcache.h"
#include "host/package.h"

/* The places of the loader's own configuration, spelled as the rules of the
 * JSON contract (found_by); host_where_label gives the text's words. */
#define HOST_WHERE_LD_SO_CACHE "ld_so_cache"
#define HOST_WHERE_LD_LIBRARY_PATH "ld_library_path"
#define HOST_WHERE_LD_SO_CONF "ld_so_conf"

/* One CUDA-family file found. */
struct host_copy {
	char *path;               /* as found (may be a symlink) */
	char *real_path;          /* NULL when the link is broken or loops */
	char *chain;              /* "a -> b -> c" when path is a symlink */
	char **links;             /* the same steps: path, then each link's target */
	size_t nlinks;
	const char *where;        /* which place found it: HOST_WHERE_*, "default", "cuda", "conda", "site-packages", "root", "opt" */
	struct gt_family_info fi; /* from the real file's name (else the path's) */
	char version[64];         /* best: file name, then package */
	const char *version_source;
	bool has_package;
	struct host_package package;
	struct host_elf_info elf;   /* class, machine, SONAME */
	bool stub;                /* a libcuda stub (the toolkit's link-only copy) */
	bool in_cache;            /* ld.so.cache names this path */
	char ask_error[256];      /* --ask: why its version function gave no answer, "" if none */
};

struct host_scan {
	struct host_copy *copies;
	size_t ncopies;
	size_t nfolders;
	struct host_ldcache cache;
	bool have_cache;
	char cache_error[256];
	char **problems;          /* unreadable folders and the like: one line each */
	size_t nproblems;
	char kmod[64];            /* the NVIDIA kernel module's version, "" if none is visible */
	char gpus[512];           /* the GPUs' models, ", " between */
	bool cache_only;          /* host_scan_cache_only: no folder walked */
	/* With consumers (scan --arch): every other shared object of the walked
	 * folders that carries CUDA device code (a .nv_fatbin section), needs a
	 * CUDA library (DT_NEEDED) or is a framework's CUDA plug-in by name
	 * (libtorch_cuda.so, a bitsandbytes build, xla_cuda_plugin.so). */
	bool want_consumers;
	struct host_copy *consumers;
	size_t nconsumers;
};

/* "ld.so.cache", "LD_LIBRARY_PATH", "ld.so.conf" for the loader's places;
 * the other places as they are. */
const char *host_where_label(const char *where);

/* Scans the usual places (roots == NULL) or the given roots. */
void host_scan_run(struct host_scan *s, char *const *roots, int nroots);
/* The same, and also the CUDA consumers of the walked folders (consumers). */
void host_scan_run_with_consumers(struct host_scan *s, char *const *roots, int nroots);
/* Reads only the ld.so.cache (all that scan --for needs of the host). */
void host_scan_cache_only(struct host_scan *s);
void host_scan_free(struct host_scan *s);
/* --ask: each file whose version stops short of X.Y.Z (and is not read from
 * the file itself) is asked through its own version function, in a child
 * process run from helper (host/ask_version.h), once per real file: the
 * answer becomes its version (version_source "asked"), a failure its
 * ask_error. */
void host_scan_ask(struct host_scan *s, const char *helper, int timeout_ms);

#endif
