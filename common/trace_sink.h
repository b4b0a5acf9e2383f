/* Where a process's trace lines go: the trace file mapped shared, space
 * reserved ahead with fallocate, each line appended with an atomic
 * reservation of bytes and a plain copy, so a line costs no system call and
 * is in the file (the page cache) the moment it is copied, even if the
 * process is killed right after. When the file system refuses fallocate or
 * mmap, lines go by write(2) to an O_APPEND fd instead (the header says which).
 *
 * One sink serves both copies of libgputrace.so in a process: the audit copy
 * owns it and hands its address to the preload copy (trace_file.c), since
 * they share the address space but not their variables. No fd stays open
 * while the file is mapped; the file is re-opened by path, briefly, only to
 * reserve more space. A full file system is seen at reservation: the trace
 * ends with a "trace_cut" note and the program goes on, untouched. */
#ifndef GPUTRACE_TRACE_SINK_H
#define GPUTRACE_TRACE_SINK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputrace/trace_format.h"

/* Each window maps this much of the file; a trace may grow to
 * GT_SINK_WINDOW * GT_SINK_MAX_WINDOWS (4 GiB), then it is cut. */
#define GT_SINK_WINDOW (1u << 20)
#define GT_SINK_MAX_WINDOWS ((int)(GT_MAX_TRACE_BYTES / GT_SINK_WINDOW))

enum gt_sink_mode {
	GT_SINK_CLOSED,    /* nothing open for this process (yet) */
	GT_SINK_MMAP,      /* lines are copied into the mapped windows */
	GT_SINK_TRIMMING,  /* the file is being cut to its length (exit): writers wait */
	GT_SINK_WRITE,     /* lines go by write(2) to fd */
};

/* What every header of the file's process says about it, read once by the
 * half that opens the file (common/trace_file.c) and reused by the other
 * half's header: an exec reads /proc once, not twice. A fork child reads
 * again only what fork changed. Strings live in the reading copy's own
 * static buffers (both copies share the address space). */
struct gt_facts {
	unsigned long long start;   /* /proc/self/stat field 22 */
	long rank, world_size;      /* from the environment the image started with; -1: none */
	const char *rank_var;       /* the variable the rank came from */
	const char *exe;            /* /proc/self/exe, exe_len bytes; NULL: unreadable */
	size_t exe_len;
	const char *argv;           /* /proc/self/cmdline, argv_len bytes, NUL-separated */
	ssize_t argv_len;
	char host[256];             /* the host part of the file name */
};

struct gt_sink {
	int lock;                   /* opening, growing, trimming */
	int mode;                   /* enum gt_sink_mode, read atomically */
	int inflight;               /* writers between reservation and copy */
	unsigned generation;        /* bumped at each open: each half writes its header once per file */
	pid_t pid;                  /* the process the file belongs to */
	volatile char *canary;      /* a MADV_WIPEONFORK page: 0 in a child after fork */
	uint64_t tail;              /* the next byte to hand out (atomic) */
	uint64_t reserved;          /* bytes allocated in the file */
	int cut;                    /* the file could not grow: nothing more is written */
	uint64_t cut_end;           /* then: the end of its lines, the cut note included */
	int fd;                     /* GT_SINK_WRITE: the trace's fd; else -1 */
	dev_t dev;                  /* identity of the trace file */
	ino_t ino;
	const char *fallback;       /* why lines go by write(2), for the header; NULL: mapped */
	bool windows_inherited;     /* MADV_DONTFORK failed: a fork child has the windows mapped */
	struct gt_facts facts;      /* of pid's process, for the headers */
	char path[PATH_MAX];
	char *windows[GT_SINK_MAX_WINDOWS];
};

/* Takes over the freshly opened (or joined) trace file at fd, whose path is
 * s->path: maps it when it can and closes fd, else keeps fd for write(2).
 * `existing`: the file has lines already (after exec): appending goes on
 * after its last line. */
void gt_sink_attach(struct gt_sink *s, int fd, bool existing);
/* One whole line (ending in '\n'). No system call in the mapped case but
 * when a new stretch of the file must be reserved. */
void gt_sink_write(struct gt_sink *s, const char *line, size_t len);
/* The same for a caller that holds the lock. */
void gt_sink_write_locked(struct gt_sink *s, const char *line, size_t len);
/* Is the fd of a write(2) sink still our file? (The program may close every
 * fd and reuse the number.) Re-opens it by path when the number was taken.
 * Always true for a mapped sink, which has no fd. */
bool gt_sink_fd_still_ours(struct gt_sink *s);
/* At exit: cuts the file to the length of its lines (the space reserved
 * ahead goes); later lines go by write(2). */
void gt_sink_finish(struct gt_sink *s);
/* In a fork child: forgets the parent's file (unmaps it here only). */
void gt_sink_forget(struct gt_sink *s);

void gt_sink_lock(struct gt_sink *s);
void gt_sink_unlock(struct gt_sink *s);

/* Microseconds since the epoch: each line's time (its note of a cut, here;
 * every other line, through trace_file.h, which includes this header). */
unsigned long long gt_now_us(void);

#endif
