/* The process model of the report: what each traced process loaded, in the
 * terms a user debugging CUDA thinks in (family, version, how it was found,
 * who asked, which package put it there), built from the trace and from the
 * files on disk, so that a process that crashed still gets versions. */
#ifndef GPUTRACE_MODEL_H
#define GPUTRACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/family.h"
#include "host/package.h"
#include "report/trace_read.h"

/* One CUDA-family library in a process. */
struct gt_lib {
	const struct gt_object *obj;   /* in the trace */
	struct gt_family_info fi;      /* from the real file's name */
	char real_path[4096];          /* symlinks resolved; "" if the file is gone */
	char version[32];              /* the best version: api, else file, else package */
	const char *version_source;    /* "api", "file", "package" or "none" */
	char api_version[32];          /* the library's own answer, "" if none */
	char file_version[32];         /* from the real file name */
	char package_version[64];
	bool has_package;
	struct host_package package;
	enum gt_rule found_by;         /* RPATH told from RUNPATH; GT_RULE_NONE if unknown */
};

/* One process: its trace and its CUDA libraries. */
struct gt_proc_model {
	struct gt_process *proc;
	struct gt_lib *libs;
	size_t nlibs;
	const char *ended_how;         /* "exit", "signal", "unknown" */
	int ended_signal, ended_status;
};

bool gt_model_build(struct gt_process *p, struct gt_proc_model *m);
void gt_model_free(struct gt_proc_model *m);

/* Versions as users write them: 13000 -> "13.0", 91900 -> "9.19.0", 8907 -> "8.9.7". */
void gt_format_cudart_version(long v, char *out, size_t cap);
void gt_format_cudnn_version(long v, char *out, size_t cap);

/* The loaded library of a component ("cudart", "cudnn_graph", "cuda"), or NULL. */
const struct gt_lib *gt_model_find(const struct gt_proc_model *m, const char *component);

#endif
