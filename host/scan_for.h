/* gputrace scan --for FILE: what the loader would load for one program, done
 * on paper (host/resolve.h for each search), as glibc 2.36 does it: the
 * LD_PRELOAD objects first, then every DT_NEEDED name breadth-first in the
 * loader's order, a name already loaded (by name or SONAME) not searched
 * again; then the libraries CUDA loads by name itself (the runtime's
 * libcuda.so.1, cuDNN's sub-libraries, most specific name first).
 * Reads the host; judges nothing (rules/scan_rules.h does). */
#ifndef GPUTRACE_HOST_SCAN_FOR_H
#define GPUTRACE_HOST_SCAN_FOR_H

#include <stdbool.h>
#include <stddef.h>

#include "host/elf_load.h"
#include "host/resolve.h"
#include "host/scan.h"

/* Why a name was asked for. */
enum host_for_how {
	HOST_FOR_NEEDED,   /* a DT_NEEDED entry */
	HOST_FOR_PRELOAD,  /* LD_PRELOAD or /etc/ld.so.preload */
	HOST_FOR_DLOPEN,   /* loaded by name at run time (CUDA's own dlopen) */
};

/* One object of the process, in the loader's order; object 0 is the program. */
struct host_scan_for_object {
	char *path;              /* as the loader opened it; NULL: the loader found nothing for name */
	char *name;              /* the name it was first asked by */
	char **names;            /* every name it answers to (names asked, its SONAME) */
	size_t nnames;
	long loader;             /* the object whose request loaded it first; -1 for the program */
	int depth;               /* 0: the program, 1: what it needs ... */
	enum host_for_how how;
	bool rtld;               /* the dynamic loader itself: loaded before anything is searched */
	bool listed;             /* asked for by some object (the loader lists it) */
	struct host_elf_load elf;  /* its dynamic strings */
};

/* One name asked for, and the loader's answer. */
struct host_scan_for_item {
	struct host_resolution res;
	int depth;               /* the requester's depth: 0 for the program's own names */
	enum host_for_how how;
	long object;             /* the object that answers the name, -1 none */
	bool again;              /* answered without a search: the name (or SONAME) was already
				  * loaded, or already missing; res holds that one answer */
};

struct host_scan_for {
	const char *consumer;
	struct host_resolve_env env;
	struct host_scan_for_item *items;
	size_t n;
	struct host_scan_for_object *objects;
	size_t nobjects;
	bool secure;             /* the program is set-user-ID/set-group-ID for this user */
	long fatal;              /* the first item whose search ends in a file the loader
				  * refuses with an error (res.stop_reason), -1 none */
};

/* Resolves what consumer would load, with this process's LD_LIBRARY_PATH and
 * LD_PRELOAD and the ld.so.cache the scan read. The result is malloc'd. */
struct host_scan_for *host_scan_for_run(const char *consumer, const struct host_scan *s);
void host_scan_for_free(struct host_scan_for *fr);

#endif
