/* Loads that failed, beyond a name that was not found: a dlopen the loader
 * undid after mapping objects (an undefined symbol, a dependency not found),
 * and a search cut off by the process's death (the loader's exit 127 at
 * start-up, an abort right after a failed dlopen).
 *
 * rtld-audit shows an undone dlopen exactly as a dlclose (glibc 2.36: opens,
 * LA_ACT_CONSISTENT, the closes, LA_ACT_DELETE, in both), so a run of closes
 * is taken for an undone load only on proof that the load could not have
 * succeeded: a symbol one of its objects needs that no object of its scope
 * defines (facts/symbol_check.h), or a DT_NEEDED of one of them that was not
 * found. A healthy dlclose stays a dlclose. */
#ifndef GPUTRACE_FAILED_LOAD_H
#define GPUTRACE_FAILED_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "host/resolve.h"
#include "gputrace/trace_format.h"
#include "facts/facts.h"
#include "read/trace_read.h"

/* One object an undone load had mapped, with what the report knows of it. */
struct gt_failed_object {
	const struct gt_object *obj;
	enum gt_rule found_by;        /* RPATH told from RUNPATH */
	char version[64];             /* from the real file's name, else its package; "" */
	const char *family;           /* NULL: not a CUDA library */
};

struct gt_failed_load {
	const char *name;             /* what was asked for: the first object's search name */
	const char *requester;
	struct gt_failed_object *objects;
	size_t nobjects;
	const char **scope;           /* the objects that could bind its symbols (paths of the trace) */
	size_t nscope;
	struct gt_symbol_gap *gaps;   /* symbols that made it fail */
	size_t ngaps;
	const struct gt_search *missing; /* a DT_NEEDED of its objects not found, or NULL */
	bool at_startup;              /* the program's own start-up, which the loader gave up (exit 127) */
};

/* The loads p's loader undid, into *out (malloc'd; *out must start NULL):
 * their count. Also concludes the search p died in when, on paper, it finds
 * nothing (gt_search.cut_off). The model keeps them (model.h's failed). */
size_t gt_failed_loads_build(struct gt_process *p, struct gt_host_facts *facts, struct gt_failed_load **out);
void gt_failed_loads_free(struct gt_failed_load *v, size_t n);

#endif
