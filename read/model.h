/* The process model of the report: what each traced process loaded, in the
 * terms a user debugging CUDA thinks in (family, version, how it was found,
 * who asked, which package put it there), built from the trace and from the
 * files on disk, so that a process that crashed still gets versions. */
#ifndef GPUTRACE_MODEL_H
#define GPUTRACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/family.h"
#include "facts/facts.h"
#include "host/package.h"
#include "read/paths.h"
#include "read/trace_read.h"

struct gt_failed_load;
struct gt_crash_frame;

/* The package that installed a library, as the rules and outputs name it
 * (host_package without its record's path: 4 KiB a library that nothing
 * read, most of a 20,000-copy model's memory). */
struct gt_lib_package {
	char manager[8];
	char name[128];
	char version[64];
};

/* One CUDA-family library in a process. Its strings of a path's length are
 * allocated: the model of 20,000 copies was 500 MB of mostly untouched
 * buffers, and its page faults a third of the report's time (issue 29). */
struct gt_lib {
	const struct gt_object *obj;   /* in the trace */
	struct gt_family_info fi;      /* from the real file's name */
	char *real_path;               /* symlinks resolved; "" if the file is gone (owned) */
	char version[32];              /* the best version: api, else file, else package */
	const char *version_source;    /* "api", "file", "package" or "none" */
	char api_version[32];          /* the answer this object gave, "" if none */
	const char *api_from;          /* the object whose call gave it: this one, or the
	                                  cuDNN 9 front that forwards to it; NULL if none */
	bool disagree;                 /* answer, file name and package give different versions */
	char file_version[32];         /* from the real file name */
	char package_version[64];
	bool has_package;
	struct gt_lib_package package;
	enum gt_rule found_by;         /* RPATH told from RUNPATH; GT_RULE_NONE if unknown */
	size_t copy;                   /* its copy, an index into the process's copies */
};

/* One copy of a library family in a process: the parts that belong together,
 * by which front loaded which part, else by folder and major version. Two
 * complete cuDNN installs in one process are two copies, each with its own
 * versions; parts of one copy from different releases are mixed versions. */
struct gt_copy {
	const char *family;
	int number;                    /* 1, 2 ... within its family, in load order */
	size_t first;                  /* the index of its first part in libs */
	size_t nparts;
	char *folder;                  /* the folder of its first part (owned) */
	long ns;                       /* the link-map namespace of its first part */
	int major;                     /* the major version of its first part's file, -1 if none */
	bool has_front;                /* holds the family's main library, not parts alone */
	bool global;                   /* a part is in the global scope: preloaded, loaded
	                                  at start-up, or found by the exit's global lookup */
	const struct gt_lib *global_part; /* the part that shows it, or NULL */
	const struct gt_lib *borrowed; /* another copy's graph library its cuDNN 9 front got
	                                  by SONAME (already loaded: no search), or NULL */
	char users[512];               /* who asked for its parts from outside the family */
	const size_t *parts;           /* its parts' indices in libs, in load order (nparts of them;
	                                  the part it borrowed is not one) */
	int family_copies;             /* how many copies of its family the process holds */
};

/* One process: its trace and its CUDA libraries. */
struct gt_proc_model {
	struct gt_process *proc;
	struct gt_lib *libs;
	size_t nlibs;
	struct gt_copy *copies;
	size_t ncopies;
	size_t *part_index;            /* the copies' parts lists, one after the other */
	size_t *objects_by_path;       /* the trace's objects with a path, by path, then trace order */
	size_t nobjects_by_path;
	const char *ended_how;         /* "exit", "signal", "running" (still, on this host), "unknown" */
	int ended_signal, ended_status;
	bool stopped;                  /* ended by SIGINT, SIGTERM or SIGHUP: stopped from outside */
	long stopped_by;               /* the traced process that sent the signal, else 0 */
	struct gt_failed_load *failed; /* loads the loader undid (read/failed_load.h) */
	size_t nfailed;
	struct gt_crash_frame *frames; /* the crash's stack (read/crash_frames.h), innermost first */
	size_t nframes;
	/* The host of the trace, as the rules may see it: its facts (facts/),
	 * and /etc/ld.so.preload's text from them. */
	struct gt_host_facts *facts;
	const char *etc_preload;
};

/* The model of p, from its trace and the facts of its host. */
bool gt_model_build(struct gt_process *p, struct gt_host_facts *facts, struct gt_proc_model *m);
/* The process did not succeed: a signal, a non-zero exit status, or a CUDA
 * call that returned an error. Such a process is never "all clear". */
bool gt_model_failed(const struct gt_proc_model *m);
void gt_model_free(struct gt_proc_model *m);

/* Versions as users write them: 13000 -> "13.0", 91900 -> "9.19.0", 8907 -> "8.9.7". */
void gt_format_cudart_version(long v, char *out, size_t cap);
void gt_format_cudnn_version(long v, char *out, size_t cap);

/* The first object of the trace at path, or NULL: by bisection. */
const struct gt_object *gt_model_object_at(const struct gt_proc_model *m, const char *path);
/* All the objects at path, in trace order: *n indexes into the trace's
 * objects (m->proc->objects). */
const size_t *gt_model_objects_at(const struct gt_proc_model *m, const char *path, size_t *n);
/* How many copies of a family the process holds. */
size_t gt_model_copies_of(const struct gt_proc_model *m, const char *family);
/* The mechanism that put a library where the loader took it, as a fix names
 * it: "LD_PRELOAD", "LD_LIBRARY_PATH", "the RUNPATH of libtorch_cuda.so",
 * "ld.so.cache", "an absolute dlopen by _ctypes.cpython-312-x86_64-linux-gnu.so" ... */
void gt_lib_mechanism(const struct gt_lib *l, char *out, size_t cap);

/* The object LD_PRELOAD put in the process that, directly or through the
 * objects it needed, brought l in; NULL if none did. */
const char *gt_model_preloaded_root(const struct gt_proc_model *m, const struct gt_lib *l);
/* The same for any object of the process: NULL when no preload brought it in. */
const char *gt_object_preloaded_root(const struct gt_proc_model *m, const struct gt_object *ob);

/* Whether a package's version is the library's own: the package is that
 * library's distribution (nvidia-cudnn-cu13, libcudnn9-cuda-12, conda's
 * cudnn), not a framework that bundles a copy (torch's RECORD lists
 * torch/lib/libcudnn.so.8). */
bool gt_package_speaks_for(const struct host_package *pk, const struct gt_family_info *fi);

/* The library model of a loaded object, or NULL (not a CUDA library). */
const struct gt_lib *gt_lib_of_object(const struct gt_proc_model *m, const struct gt_object *ob);

/* The loaded library of a component ("cudart", "cudnn_graph", "cuda"), or NULL. */
const struct gt_lib *gt_model_find(const struct gt_proc_model *m, const char *component);

#endif
