/* The per-process trace file: naming, safe creation, the header line.
 * Both halves of libgputrace.so (the audit copy and the preload copy) use it;
 * each opens the same file on its own and appends with O_APPEND. */
#ifndef GPUTRACE_TRACE_FILE_H
#define GPUTRACE_TRACE_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct gt_trace {
	int fd;                /* -1 until opened for the current pid */
	pid_t pid;             /* the process the fd belongs to */
	const char *source;    /* "audit" or "preload" */
	dev_t dev;             /* identity of the file behind fd: the program may */
	ino_t ino;             /* close our fd and reuse its number */
	volatile char *canary; /* a MADV_WIPEONFORK page: 0 in a child after fork */
	bool forked;           /* the next header is a fork child's (same image, new pid) */
	char path[PATH_MAX];
};

/* The fd of the trace for the calling process, opening (or, after fork,
 * re-opening) it first. -1 when tracing is off or the file cannot be used;
 * the caller then does nothing. Writes a header when it opens. */
int gt_trace_fd(struct gt_trace *t);

/* The same, after making sure the fd still is our file (one fstat): for the
 * start of a burst of lines, not for every line. */
int gt_trace_fd_checked(struct gt_trace *t);

/* Write one finished line (from jl_end) to the trace. */
void gt_trace_write(struct gt_trace *t, const char *line, size_t len);

/* Helpers shared with the rest of the library. */
unsigned long long gt_now_us(void);
pid_t gt_gettid(void);
bool gt_disabled(void);
/* The host part of trace file names: $GPUTRACE_HOST, else the node name. */
void gt_host_name(char *out, size_t cap);
/* The image id: hex of the kernel's AT_RANDOM bytes, the same in both halves of
 * one program image and new after every exec. */
const char *gt_image_id(void);

#endif
