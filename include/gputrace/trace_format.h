/* The gputrace trace format: one header shared by the writer (libgputrace.so)
 * and the reader (report/). Event and field names live in the tables below. */
#ifndef GPUTRACE_TRACE_FORMAT_H
#define GPUTRACE_TRACE_FORMAT_H

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
	X(END, "end", "last line: the process exited through exit()")        \
	X(REAPED, "reaped", "by the gputrace command: how the process it started ended")

enum gt_event {
#define GT_EVENT_ENUM(sym, name, doc) GT_EV_##sym,
	GT_EVENTS(GT_EVENT_ENUM)
#undef GT_EVENT_ENUM
	GT_EV_COUNT
};

/* The CUDA entry points the preload half intercepts. `hot` ones are counted
 * and never written one by one. X(symbol, family, status api, hot) */
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
	X(ncclCommInitRankConfig, "nccl", GT_API_NCCL, 0)

enum gt_hooked_fn {
#define GT_FN_ENUM(sym, fam, api, hot) GT_FN_##sym,
	GT_HOOKED(GT_FN_ENUM)
#undef GT_FN_ENUM
	GT_FN_COUNT
};

/* Search rules: why the loader tried a candidate path. The JSON names are the
 * `found_by` values of the report's contract (../shared/DESIGN.md).
 * X(enum suffix, JSON name) */
#define GT_RULES(X)                         \
	X(UNKNOWN, "unknown")               \
	X(RPATH, "rpath")                   \
	X(RUNPATH, "runpath")               \
	X(LD_LIBRARY_PATH, "ld_library_path") \
	X(LD_SO_CACHE, "ld_so_cache")       \
	X(DEFAULT, "default")               \
	X(ABSOLUTE, "absolute")             \
	X(ALREADY_LOADED, "already_loaded") \
	X(SECURE, "secure")

enum gt_rule {
#define GT_RULE_ENUM(sym, name) GT_RULE_##sym,
	GT_RULES(GT_RULE_ENUM)
#undef GT_RULE_ENUM
	GT_RULE_COUNT
};

/* Results of a search that mapped nothing new (the "result" of search_end). */
#define GT_RESULT_NOT_FOUND "not_found"
#define GT_RESULT_ALREADY_LOADED "already_loaded"

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
/* A string that is not valid UTF-8 is written with U+FFFD in place of each bad
 * byte, and the exact bytes follow in a sibling key with this suffix, as hex. */
#define GT_HEX_SUFFIX "_hex"

const char *gt_event_name(enum gt_event ev);
const char *gt_rule_name(enum gt_rule rule);
/* The rule named `name`, or GT_RULE_UNKNOWN. */
enum gt_rule gt_rule_from_name(const char *name);

#endif
