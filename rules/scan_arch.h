/* gputrace scan --arch sm_XY: each CUDA library file the scan found, judged
 * on paper against one GPU architecture: does it carry SASS that runs there,
 * PTX the driver would compile (JIT), nothing for it, or no device code at
 * all. The device code is read by host/fatbin.c, the rules are
 * rules/arch_fit.h's; nothing is loaded or run. */
#ifndef GPUTRACE_SCAN_ARCH_H
#define GPUTRACE_SCAN_ARCH_H

#include <stddef.h>

#include "host/scan.h"
#include "rules/arch_fit.h"

enum gt_arch_verdict {
	GT_ARCH_CANNOT,   /* carries device code, none of it for this architecture */
	GT_ARCH_UNKNOWN,  /* not read as ELF, or code kept where the reader does not look */
	GT_ARCH_JIT,      /* only PTX the driver compiles at start-up */
	GT_ARCH_SASS,     /* SASS that runs as it is */
	GT_ARCH_NO_CODE,  /* no device code: nothing of its own to run on a GPU */
};

/* One real file (its links folded into it). */
struct gt_arch_file {
	const struct host_copy *copy;    /* the name that speaks for the file */
	const struct host_fatbin *fb;    /* NULL when the file could not be read */
	enum gt_arch_verdict verdict;
	char via[32];                    /* the image that would run: "sm_90", "compute_80" */
	char why[256];                   /* GT_ARCH_UNKNOWN: why */
};

struct gt_scan_arch {
	char name[16];                   /* "sm_90": the architecture asked for */
	int major, minor;
	struct gt_arch_file *files;      /* sorted: cannot, unknown, jit, sass, no code */
	size_t nfiles;
};

/* Judges every real file of s against major.minor; out is freed with
 * gt_scan_arch_free. */
void gt_scan_arch_judge(const struct host_scan *s, int major, int minor, struct gt_scan_arch *out);
void gt_scan_arch_free(struct gt_scan_arch *a);
/* How many files carry device code of which none runs there (GT_ARCH_CANNOT). */
size_t gt_scan_arch_cannot(const struct gt_scan_arch *a);
/* "sass", "jit", "none", "no_code", "unknown" (the JSON's words). */
const char *gt_arch_verdict_name(enum gt_arch_verdict v);

#endif
