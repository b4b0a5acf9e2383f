/* The gputrace trace format: one header shared by the writer (libgputrace.so)
 * and the reader (read/). Event and field names live in the tables below. */
#ifndef GPUTRACE_TRACE_FORMAT_H
#define GPUTRACE_TRACE_FORMAT_H

/* No trace file is larger: the writer cuts it there (common/trace_sink.h). */
#define GT_MAX_TRACE_BYTES (4ULL << 30)

/* Bumped whenever a reader of an older version would misread a trace. */
#define GT_FORMAT_NAME "gputrace-trace"
#define GT_FORMAT_VERSION 1

/* Event kinds, the value of the "ev" key of every line.
 * X(enum suffix, JSON name, what it means) */
#define GT_EVENTS(X)                                                            \
	X(HEADER, "header", "first line: process identity and loader environment") \
	X(SEARCH, "search", "the loader starts looking for a name (la_objsearch ORIG)") \
	X(OPEN, "open", "an object was mapped (la_objopen), with the search's tries") \
	X(SEARCH_END, "search_end", "a search ended without mapping a new object, with its tries") \
	X(CLOSE, "close", "an object was unmapped by dlclose (la_objclose)")    \
	X(LINKMAP, "linkmap", "one object of the link map, listed at exit")     \
	X(NOTE, "note", "something gputrace itself wants the report to know")  \
	X(CALL, "call", "one intercepted CUDA call and its status (first few of each)") \
	X(ALLOC_FAIL, "alloc_fail", "a failed device allocation, with its size") \
	X(VERSION, "version", "a library's own answer to its version call")    \
	X(CALLS, "calls", "totals of one function and status: count, bytes")   \
	X(ALLOCS, "allocs", "allocation totals: peak and final bytes held")    \
	X(END, "end", "last line: the process exited through exit(), or _exit (via)")        \
	X(REAPED, "reaped", "by the gputrace command: how the process it started ended") \
	X(GLOBAL, "global", "at exit: the object a global-scope lookup of a library's symbol finds") \
	X(DEVICE, "device", "a device's name or compute capability, as a call of the program answered it") \
	X(CRASH, "crash", "a fatal signal caught by the preload half: its code, address and stack frames") \
	X(NO_SEARCH, "no_search", "a DT_NEEDED name the loader met with an object already loaded, without a search")

enum gt_event {
#define GT_EVENT_ENUM(sym, name, doc) GT_EV_##sym,
	GT_EVENTS(GT_EVENT_ENUM)
#undef GT_EVENT_ENUM
	GT_EV_COUNT
};

/* The CUDA entry points the preload half intercepts. `hot` ones are counted
 * and never written one by one. The device questions (from
 * cudaGetDeviceProperties on) write a "device" line for their first answer
 * per device and nothing else; the launches and cudaGetLastError are
 * recorded only when they fail (preload/device_hooks.c).
 * X(symbol, family, status api, hot) */
#define GT_HOOKED(X)                                              \
	X(cudaGetDeviceCount, "cudart", GT_API_CUDART, 0)         \
	X(cudaSetDevice, "cudart", GT_API_CUDART, 1)              \
	X(cudaMalloc, "cudart", GT_API_CUDART, 1)                 \
	X(cudaMallocAsync, "cudart", GT_API_CUDART, 1)            \
	X(cudaMallocManaged, "cudart", GT_API_CUDART, 1)          \
	X(cudaFree, "cudart", GT_API_CUDART, 1)                   \
	X(cudaFreeAsync, "cudart", GT_API_CUDART, 1)              \
	X(cudnnCreate, "cudnn", GT_API_CUDNN9, 0)                 \
	X(cublasCreate_v2, "cublas", GT_API_CUBLAS, 0)            \
	X(cublasLtCreate, "cublas", GT_API_CUBLAS, 0)             \
	X(cuInit, "driver", GT_API_CU, 0)                         \
	X(ncclCommInitRank, "nccl", GT_API_NCCL, 0)               \
	X(ncclCommInitRankConfig, "nccl", GT_API_NCCL, 0)        \
	X(cudaGetDeviceProperties, "cudart", GT_API_CUDART, 0)    \
	X(cudaGetDeviceProperties_v2, "cudart", GT_API_CUDART, 0) \
	X(cudaDeviceGetAttribute, "cudart", GT_API_CUDART, 0)     \
	X(cuDeviceGetAttribute, "driver", GT_API_CU, 0)           \
	X(cuDeviceGetName, "driver", GT_API_CU, 0)                \
	X(cudaLaunchKernel, "cudart", GT_API_CUDART, 0)           \
	X(cudaLaunchKernelExC, "cudart", GT_API_CUDART, 0)        \
	X(__cudaLaunchKernel, "cudart", GT_API_CUDART, 0)         \
	X(__cudaLaunchKernel_ptsz, "cudart", GT_API_CUDART, 0)    \
	X(__cudaGetKernel, "cudart", GT_API_CUDART, 0)            \
	X(cudaGetLastError, "cudart", GT_API_CUDART, 0)

enum gt_hooked_fn {
#define GT_FN_ENUM(sym, fam, api, hot) GT_FN_##sym,
	GT_HOOKED(GT_FN_ENUM)
#undef GT_FN_ENUM
	GT_FN_COUNT
};

/* The variables a launcher sets for each process of a parallel job, the one
 * list the trace file's name, its header, the command and the report's
 * fingerprints all read. Rank variables in order of precedence: torchrun's
 * RANK is a worker's global rank even under srun or mpirun. X(name) */
#define GT_RANK_VARS(X) X("RANK") X("OMPI_COMM_WORLD_RANK") X("PMIX_RANK") X("PMI_RANK") X("SLURM_PROCID")
#define GT_WORLD_SIZE_VARS(X) X("WORLD_SIZE") X("OMPI_COMM_WORLD_SIZE") X("PMI_SIZE") X("SLURM_NTASKS")
/* A process's rank on its node: recorded, and like the rank it says who a
 * process is, not what it did. */
#define GT_LOCAL_RANK_VAR "LOCAL_RANK"
#define GT_LOCAL_WORLD_SIZE_VAR "LOCAL_WORLD_SIZE"

/* The switch that turns gputrace off for a command and its children:
 * set, not empty and not "0" (gt_disabled in common/trace_file.h). */
#define GT_DISABLE_VAR "GPUTRACE_DISABLE"

/* Search rules: why the loader tried a candidate path. The JSON names are the
 * `found_by` values of the report's contract (doc/design-notes.md); the tags
 * are how the tree view shows them. X(enum suffix, JSON name, tree tag) */
#define GT_RULES(X)                                               \
	X(UNKNOWN, "unknown", "[?]")                              \
	X(RPATH, "rpath", "[rpath]")                              \
	X(RUNPATH, "runpath", "[runpath]")                        \
	X(LD_LIBRARY_PATH, "ld_library_path", "[LD_LIBRARY_PATH]") \
	X(LD_SO_CACHE, "ld_so_cache", "[ld.so.cache]")            \
	X(DEFAULT, "default", "[default]")                        \
	X(ABSOLUTE, "absolute", "[absolute]")                     \
	X(PRELOAD, "preload", "[LD_PRELOAD]")                     \
	X(ALREADY_LOADED, "already_loaded", "[already loaded]")   \
	X(SECURE, "secure", "[?]")

/* The model holds rules as this enum; names appear only where a trace is
 * read and where a report is written. GT_RULE_NONE: no rule recorded. */
enum gt_rule {
#define GT_RULE_ENUM(sym, name, tag) GT_RULE_##sym,
	GT_RULES(GT_RULE_ENUM)
#undef GT_RULE_ENUM
	GT_RULE_COUNT,
	GT_RULE_NONE = GT_RULE_COUNT
};

/* Results of a search that mapped nothing new (the "result" of search_end). */
#define GT_RESULT_NOT_FOUND "not_found"
#define GT_RESULT_ALREADY_LOADED "already_loaded"
/* The reader's own result for a search that an "open" concluded. */
#define GT_RESULT_FOUND "found"

/* Keys used in events. Kept here so writer and reader spell them alike. */
#define GT_K_EV "ev"
#define GT_K_TIME "t_us"      /* microseconds since the epoch, CLOCK_REALTIME */
#define GT_K_PID "pid"
#define GT_K_TID "tid"
#define GT_K_SEQ "seq"        /* search number, unique within one process */
#define GT_K_SEARCH "search"  /* the seq of the search an open/search_end belongs to */
#define GT_K_TRIES "tries"    /* every candidate path the loader tried, in order: {path, rule} */
#define GT_K_NAME "name"
#define GT_K_REQUESTER "requester"
#define GT_K_PATH "path"
#define GT_K_RULE "rule"
#define GT_K_SONAME "soname"
#define GT_K_NS "ns"
#define GT_K_RESULT "result"
#define GT_K_SOURCE "source"  /* "audit" or "preload": which half wrote the event */
#define GT_K_FN "fn"          /* an intercepted function (call, calls, alloc_fail) */
#define GT_K_STATUS "status"  /* its numeric return value */
#define GT_K_STATUS_NAME "status_name"
#define GT_K_COUNT "count"
#define GT_K_BYTES "bytes"
#define GT_K_SIZE "size"
#define GT_K_LIB "lib"        /* the library file that answered */
#define GT_K_PARTIAL "partial" /* a fixed table filled up: totals are lower bounds */
#define GT_K_FORMAT "format"        /* header: GT_FORMAT_NAME */
#define GT_K_VERSION "version"      /* header: GT_FORMAT_VERSION */
#define GT_K_PPID "ppid"            /* header */
#define GT_K_HOST "host"            /* header: the node name or $GPUTRACE_HOST */
#define GT_K_EXE "exe"              /* header: the program image */
#define GT_K_ARGV "argv"            /* header: the command line */
#define GT_K_ARGV_TRUNCATED "argv_truncated" /* header: argv did not fit */
#define GT_K_ARGV_LOSSY "argv_lossy" /* header: argv had bytes that are not UTF-8 */
#define GT_K_CWD "cwd"              /* header */
#define GT_K_UID "uid"              /* header */
#define GT_K_EUID "euid"            /* header */
#define GT_K_GLIBC "glibc"          /* header: gnu_get_libc_version() */
#define GT_K_WRITER "writer"        /* header: "mmap" (a shared mapping) or "write" (write(2)) */
#define GT_K_WRITER_WHY "writer_why" /* header: why write(2): "fallocate refused" ... */
#define GT_K_ENV "env"              /* header: the environment that steers loading, as an object */
#define GT_K_IMAGE "image"          /* header: the program image id (new after exec) */
#define GT_K_FORK "fork"            /* header: this process is a fork child of the traced one */
#define GT_K_START_TICKS "start_ticks" /* header: /proc/self/stat field 22 */
#define GT_K_PARENT_CUDA "parent_cuda" /* fork child's header: the parent's first CUDA call before the fork */
#define GT_K_NVIDIA_KMOD "nvidia_kmod" /* preload header: the NVIDIA kernel module's version */
#define GT_K_NVIDIA_GPUS "nvidia_gpus" /* preload header: the GPUs' models, as the module lists them */
#define GT_K_RANK "rank"            /* header: the rank a launcher set, if any */
#define GT_K_RANK_VAR "rank_var"    /* header: the variable the rank came from */
#define GT_K_WORLD_SIZE "world_size" /* header: the job size a launcher set, if any */
#define GT_K_PAPER "paper"          /* header: written by scan --for on paper, never by a run */
#define GT_K_LIVE "live"            /* header: written by inspect from a running process's /proc, never by a run */
#define GT_K_MAIN "main"            /* open: the object is the program itself */
#define GT_K_CUDART_STATIC "cudart_static" /* open: the object carries the CUDA runtime linked in */
#define GT_K_TRIES_TRUNCATED "tries_truncated" /* open/search_end: more candidates than were kept */
#define GT_K_WHAT "what"            /* note: which note (GT_NOTE_*) */
#define GT_K_SIGNAL "signal"        /* note fatal_signal, signal_sent, reaped: the signal */
#define GT_K_TARGET "target"        /* note signal_sent: the pid it went to */
#define GT_K_EXIT_STATUS "exit_status" /* reaped, end via _exit: the exit status */
#define GT_K_VIA "via"              /* end: how the process left when not through exit() */
#define GT_END_VIA_EXIT "_exit"     /* end via: _exit or _Exit, no exit handlers ran */
#define GT_K_VALUE "value"          /* call, version: the answer a call wrote back */
#define GT_K_PROPERTY "property"    /* version: cublasGetProperty's property */
#define GT_K_REASON "reason"        /* call: cuDNN's own words for a failed cudnnCreate */
#define GT_K_NTH "nth"              /* alloc_fail: which failed allocation this is (1: the first) */
#define GT_K_PEAK_BYTES "peak_bytes" /* allocs */
#define GT_K_HELD_BYTES "held_bytes" /* allocs */
#define GT_K_FAILED "failed"        /* allocs: failed allocations */
#define GT_K_UNTRACKED "untracked"  /* allocs: allocations beyond the table */
#define GT_K_UNKNOWN_FREES "unknown_frees" /* allocs: frees of pointers not seen allocated */
#define GT_K_NS "ns"                /* note self_time: nanoseconds inside the audit callbacks */
#define GT_K_CALLBACKS "callbacks"  /* note self_time: how many callbacks */
#define GT_K_DEVICE "device"        /* device: the device index the call named */
#define GT_K_CC_MAJOR "cc_major"    /* device: compute capability, major */
#define GT_K_CC_MINOR "cc_minor"    /* device: compute capability, minor */
#define GT_K_CODE "code"            /* crash: the signal's si_code (> 0: the kernel's, a fault) */
#define GT_K_ADDR "addr"            /* crash: si_addr, the faulting address (SEGV, BUS, ILL, FPE) */
#define GT_K_SENDER "sender"        /* crash: si_pid, when another process (or raise) sent it */
#define GT_K_FRAMES "frames"        /* crash: the stack, innermost first: {path, off} */
#define GT_K_OFF "off"              /* crash frame: the address minus the object's load base */
#define GT_K_IP "ip"                /* crash frame: an address no loaded object holds (JIT code) */
#define GT_K_FRAMES_TRUNCATED "frames_truncated" /* crash: deeper frames were left out */
#define GT_K_UNWIND "unwind"        /* crash: "stopped" when the unwinder faulted part-way */
/* The kinds of "note" line (their "what"). */
#define GT_NOTE_QUERIES_BEGIN "gputrace_queries_begin"  /* gputrace's own version calls start */
#define GT_NOTE_QUERIES_END "gputrace_queries_end"
#define GT_NOTE_FATAL_SIGNAL "fatal_signal"  /* the preload half saw a fatal signal */
#define GT_NOTE_TRACE_CUT "trace_cut"  /* no room for more lines (reason: ENOSPC ...) */
#define GT_NOTE_SELF_TIME "self_time"  /* GPUTRACE_SELF_TIME=1: the audit callbacks' own time */
/* A load phase mapped more objects than the audit half keeps: some of their
 * DT_NEEDED met without a search have no no_search line. */
#define GT_NOTE_NO_SEARCH_CUT "no_search_cut"
/* The program and everything it needs at start-up are mapped (the first
 * consistent state of the main namespace): objects opened before this line
 * are in the global scope. */
#define GT_NOTE_STARTUP_LOADED "startup_loaded"
/* The process sent a stopping signal (SIGTERM ...) to another ("target"). */
#define GT_NOTE_SIGNAL_SENT "signal_sent"
/* Which half wrote a line (GT_K_SOURCE). */
#define GT_SOURCE_AUDIT "audit"
#define GT_SOURCE_PRELOAD "preload"
/* gputrace inspect: a running process read from /proc (report/live.h) */
#define GT_SOURCE_LIVE "live"
/* A string that is not valid UTF-8 is written with U+FFFD in place of each bad
 * byte, and the exact bytes follow in a sibling key with this suffix, as hex. */
#define GT_HEX_SUFFIX "_hex"

const char *gt_event_name(enum gt_event ev);
/* The event named `name`, or GT_EV_COUNT for one this reader does not know. */
enum gt_event gt_event_from_name(const char *name);
/* The symbol of a hooked function, and whether it is hot (only counted). */
const char *gt_hooked_name(enum gt_hooked_fn fn);
int gt_hooked_is_hot(enum gt_hooked_fn fn);
const char *gt_rule_name(enum gt_rule rule);
/* The same, but NULL for GT_RULE_NONE (a JSON null, a missing key). */
const char *gt_rule_name_or_null(enum gt_rule rule);
/* "[LD_LIBRARY_PATH]", "[ld.so.cache]" ...: the tree view's tag; "[?]" for none. */
const char *gt_rule_tag(enum gt_rule rule);
/* The rule named `name`, or GT_RULE_UNKNOWN. */
enum gt_rule gt_rule_from_name(const char *name);

#endif
