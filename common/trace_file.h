/* The per-process trace file: naming, safe creation, the header line.
 * Both halves of libgputrace.so (the audit copy and the preload copy) use it,
 * and write through one sink (common/trace_sink.h). */
#ifndef GPUTRACE_TRACE_FILE_H
#define GPUTRACE_TRACE_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/trace_sink.h"

struct gt_trace {
	struct gt_sink *sink;  /* this copy's own, or the one the audit copy handed over */
	unsigned gen;          /* the sink's file this copy wrote its header into */
	const char *source;    /* GT_SOURCE_AUDIT or GT_SOURCE_PRELOAD */
	bool forked;           /* the next header is a fork child's (same image, new pid) */
	const char *parent_cuda; /* a fork child's: the parent's first CUDA call, or NULL */
	bool off;              /* this copy writes nothing (see gt_trace_off) */
};

/* What the audit copy of this library hands to the preload copy: its sink,
 * so both halves append to one mapping through one reservation, and the
 * loader calls of the audit namespace's own libc, whose dlerror() state is
 * not the program's (the preload half's questions then leave the program's
 * pending dlerror() message as it was). */
struct gt_handover {
	struct gt_sink *sink;
	void *(*dl_open)(const char *, int);
	void *(*dl_sym)(void *, const char *);
	int (*dl_close)(void *);
};

/* The handover this copy got, or NULL (no audit half, or this is it). */
extern const struct gt_handover *gt_handed;
/* In the audit copy, at la_objopen of the preload copy (the same file,
 * mapped at peer_base): gives it this copy's sink and loader calls. */
void gt_trace_hand_over(struct gt_trace *t, uintptr_t peer_base);

/* Opens the trace of the calling process on first use and again in a fork
 * child, and writes this copy's header once per file. False when tracing is
 * off or the file cannot be used; the caller then writes nothing. No system
 * call once the file is open (a fork is seen by a page the kernel wipes). */
bool gt_trace_ready(struct gt_trace *t);
/* The same, and for a write(2) sink, makes sure its fd is still our file
 * (one fstat): for the start of a burst of lines, not for every line. */
bool gt_trace_ready_checked(struct gt_trace *t);
/* The executable of this process image as its header names it, read once
 * when the file was opened; "" if unreadable. */
const char *gt_trace_exe(const struct gt_trace *t);
/* Writes one finished line (from jl_end). */
void gt_trace_write(struct gt_trace *t, const char *line, size_t len);
/* At exit, after the last line of this process: the file is cut to the
 * length of its lines. */
void gt_trace_finish(struct gt_trace *t);

/* Helpers shared with the rest of the library (and gt_now_us, trace_sink.h's). */
pid_t gt_gettid(void);
/* The calling thread's id for a line of t's file, without a system call
 * after the thread's first (cached per thread, renewed in a fork child). */
pid_t gt_trace_tid(const struct gt_trace *t);
bool gt_disabled(void);
/* The host part of trace file names: $GPUTRACE_HOST, else the node name. */
void gt_host_name(char *out, size_t cap);
/* When a process started (/proc/PID/stat field 22; 0 or less: this one): with
 * the pid, it names one process even after pids wrap. 0 if it is gone. */
unsigned long long gt_start_ticks_of(long pid);
/* The variables a header records (the environment that steers loading, the
 * rank variables): *n of them. */
const char *const *gt_header_env_names(size_t *n);
/* The image id: hex of the kernel's AT_RANDOM bytes, the same in both halves of
 * one program image and new after every exec. */
const char *gt_image_id(void);

#endif
