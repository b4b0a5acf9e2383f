/* Reading trace files into a per-process model of what the loader did.
 * Lines parsed by read/json_line.c (jansson for what it does not take);
 * every line is checked, bad input gives one message. */
#ifndef GPUTRACE_TRACE_READ_H
#define GPUTRACE_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "gputrace/trace_format.h"

/* One candidate path the loader tried. */
struct gt_try {
	char *path;
	enum gt_rule rule;
};

/* One search of the loader: a name, who asked, what it tried, how it ended. */
struct gt_search {
	unsigned long seq;
	char *name;
	char *requester;
	struct gt_try *tries;
	size_t ntries;
	char *result;         /* "found", "not_found", "already_loaded", or NULL: unknown */
	char *path;           /* the object it gave, when found or already loaded */
	bool ours;            /* made by gputrace's own version calls, not the program */
	bool cut_off;         /* the process died in it; result and tries are the
	                         report's, computed on paper (read/failed_load.c) */
	unsigned long long t_us; /* when the loader started it (the line's t_us), 0 if not said */
};

/* A DT_NEEDED name the loader met with an object already loaded, without a
 * search ("no_search" line): first loaded wins, whoever loaded it. */
struct gt_no_search {
	char *name;
	char *requester;      /* the object whose DT_NEEDED it is */
	char *path;           /* the loaded object it got */
	bool ours;            /* during gputrace's own version calls */
	unsigned long long t_us;
};

/* One intercepted call written on its own (the first few of each status). */
struct gt_call {
	char *fn;
	int status;
	char *status_name;
	char *reason;         /* cuDNN's own words, for a failed cudnnCreate */
	char *lib;            /* the library that answered */
	long long value;
	bool has_value;
};

/* Totals of one function and status. */
struct gt_total {
	char *fn;
	int status;
	char *status_name;
	unsigned long long count, bytes;
};

struct gt_alloc_fail {
	char *fn;
	unsigned long long size;
	int status;
	char *status_name;
};

/* A library's own answer to its version call. */
struct gt_version {
	char *lib;
	char *fn;
	int property;         /* cublasGetProperty: 0 major, 1 minor, 2 patch; else -1 */
	int status;
	long long value;
};

/* A device as the program's own calls described it ("device" lines, merged
 * by index): its name and compute capability, -1 where no call said. */
struct gt_device {
	int index;
	char *name;
	int cc_major, cc_minor;
};

/* One object mapped into the process. */
struct gt_object {
	char *path;
	char *soname;
	char *name;           /* the name that was searched for, if a search led here */
	char *requester;
	enum gt_rule rule;    /* as the trace says; GT_RULE_NONE when it says none */
	long ns;
	bool closed;          /* unmapped by dlclose, or by the loader undoing a load */
	unsigned long close_burst; /* closed among consecutive close lines, numbered from 1:
	                              the objects one dlclose, or one undone dlopen, unmapped */
	size_t mapped_at_close;    /* how many objects had been mapped when it was closed */
	bool from_linkmap;    /* seen only in the exit listing (LD_PRELOAD alone) */
	bool cudart_static;   /* carries the CUDA runtime linked in (nvcc's default) */
	bool main;            /* the program itself */
	bool startup;         /* mapped at start-up (before "startup_loaded"): global scope */
	bool global;          /* a global-scope lookup at exit found one of its symbols */
	unsigned long long t_us;        /* when it was mapped (the open line's t_us), 0 if not said */
	unsigned long long search_t_us; /* when the search that found it began, 0 if none */
};

/* A stopping signal this process sent to another one (kill). */
struct gt_signal_sent {
	long target;
	int signal;
};

/* One frame of a crash's stack, innermost first: an offset into an object
 * (the program itself when main), or an address no object held (known false). */
struct gt_frame {
	char *path;           /* NULL for the program and for no object */
	bool main;
	bool known;           /* an object held the address */
	unsigned long long off; /* from the object's load base; the address when not known */
};

/* The fatal signal the preload half caught, and where (the "crash" line). */
struct gt_crash {
	int signal;
	int code;             /* si_code: > 0 the kernel's (a fault), <= 0 sent */
	bool has_addr;
	unsigned long long addr; /* the faulting address */
	long sender;          /* the pid that sent it, -1 when not said */
	struct gt_frame *frames;
	size_t nframes;
	bool truncated;       /* deeper frames were left out */
	bool unwind_stopped;  /* the unwinder faulted part-way: the stack is cut */
	unsigned long long t_us;
};

struct gt_process {
	char *file;
	long pid, ppid;
	long rank, world_size;  /* -1 when no launcher set one */
	char *host, *exe;
	char *cwd;            /* the working folder of the latest image, or NULL */
	char **argv;
	size_t argc;
	bool audit_seen;      /* the audit half ran: searches are complete */
	bool paper;           /* scan --for's loader on paper wrote it (report/paper.h): no run */
	bool live;            /* inspect read it from a running process (report/live.h): the
	                         objects mapped now, no search, no call, no end */
	bool clean_end;       /* the "end" line is there */
	int images;           /* program images seen (more than one: exec) */
	bool forked;          /* a fork child: its first image is its parent's */
	char *parent_cuda;    /* a fork child: the parent's first CUDA call before the fork, or NULL */
	unsigned long long start_ticks; /* when it started (with pid and host: this process) */
	bool startup_seen;    /* the audit half's "startup_loaded" note: start-up completed */
	char *kmod;           /* the NVIDIA kernel module's version, or NULL when not recorded */
	char *gpus;           /* the GPUs' models, as the module listed them, ", " between; or NULL */
	struct gt_object *objects;
	size_t nobjects;
	struct gt_search *searches;
	size_t nsearches;
	struct gt_no_search *no_searches; /* in the order the loader met them */
	size_t nno_searches;
	bool no_search_cut;   /* a load phase was too big: some are not listed */
	struct gt_call *calls;
	size_t ncalls;
	struct gt_total *totals;
	size_t ntotals;
	struct gt_alloc_fail *alloc_fails;
	size_t nalloc_fails;
	struct gt_version *versions;
	size_t nversions;
	bool has_allocs;
	long long peak_bytes, held_bytes;
	unsigned long long failed_allocs;
	bool partial;         /* a fixed table filled up: totals are lower bounds */
	int fatal_signal;     /* the signal the preload half saw, 0 if none */
	struct gt_crash *crash; /* the first crash line, NULL if none */
	bool reaped;          /* the launcher saw it end (its direct child) */
	int exit_status;      /* when reaped by exit */
	int reaped_signal;    /* when reaped by a signal */
	int end_status;       /* the status its own _exit gave, -1 when not known */
	void *env;            /* json_t object: the header's loading environment */
	char *cut_reason;     /* the writer had no room left ("ENOSPC"): lines are missing */
	unsigned long cut_lines; /* lines cut short (a process killed mid-line) */
	bool last_line_cut;   /* the file ends inside a line (a full disk, a cut copy) */
	struct gt_signal_sent *sent;
	size_t nsent;
	struct gt_device *devices;  /* in index order of first mention */
	size_t ndevices;
	unsigned long long first_us, last_us; /* the earliest and latest t_us of its lines, 0 if none */
};

/* Who a process is, as its header says (host malloc'd; -1: no rank). */
struct gt_identity {
	long pid, ppid, rank, world_size;
	char *host;
	char *command;   /* gt_read_identity: argv[0] and argv[1] of the header, malloc'd */
};

/* Reads the identity from one header line (the first line of a trace). */
bool gt_read_identity(const char *header_line, struct gt_identity *id);
/* argv[0] and argv[1] joined by a space (malloc'd; NULL when argc is 0):
 * what names a helper process (the interpreter and its script). */
char *gt_command_words(char *const *argv, size_t argc);

/* The value of an environment variable recorded in the header, or NULL. */
const char *gt_process_env(const struct gt_process *p, const char *name);
/* The same as its exact bytes (from the header's "<name>_hex" twin when the
 * value is not UTF-8), malloc'd; NULL when the header has no such variable. */
char *gt_process_env_bytes(const struct gt_process *p, const char *name);

/* Reads one trace file. On failure returns false and writes a one-line reason
 * (naming the file and the line) into err. */
bool gt_read_trace(const char *path, struct gt_process *out, char *err, size_t errcap);
void gt_process_free(struct gt_process *p);

/* Lists the trace files of a folder (*.jsonl), sorted. Returns their count or -1. */
int gt_list_traces(const char *dir, char ***out);
/* The regular files of dir whose names end in suffix (and are longer than
 * it), as "dir/name", sorted; their count, -1 when dir cannot be read. */
int gt_list_files(const char *dir, const char *suffix, char ***out);
void gt_free_list(char **list, int n);

#endif
