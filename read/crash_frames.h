/* A crash's stack in the report's terms: each frame's object as the trace
 * loaded it, its CUDA library and copy where it is one, the function from the
 * file's symbol tables, and the package that installed the file. */
#ifndef GPUTRACE_CRASH_FRAMES_H
#define GPUTRACE_CRASH_FRAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "host/package.h"
#include "read/trace_read.h"

struct gt_lib;

struct gt_crash_frame {
	const struct gt_frame *frame;  /* in the trace */
	const char *path;              /* the object's file (the program's for main), NULL if none */
	const struct gt_object *obj;   /* that object in the trace, or NULL */
	const struct gt_lib *lib;      /* its CUDA library, or NULL (set by the model) */
	char symbol[160];              /* "" when the symbol tables name none */
	unsigned long long symbol_off; /* the offset into that function */
	bool has_package;
	struct host_package package;
};

/* The frames of p's crash (none without a crash line), into *out
 * (malloc'd): their count. */
size_t gt_crash_frames_build(const struct gt_process *p, struct gt_host_facts *facts, struct gt_crash_frame **out);

#endif
