/* gputrace scan --arch, judged (scan_arch.h); written by render/render_scan_arch.c. */
#include "rules/scan_arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "facts/facts.h"

const char *gt_arch_verdict_name(enum gt_arch_verdict v)
{
	static const char *const names[] = { "none", "unknown", "jit", "sass", "no_code" };

	return names[v];
}

/* The entry of the file c's name leads to, or NULL. */
static struct gt_arch_file *file_of(struct gt_scan_arch *a, const struct host_copy *c)
{
	size_t i;

	for (i = 0; i < a->nfiles; i++)
		if (strcmp(a->files[i].copy->real_path, c->real_path) == 0)
			return &a->files[i];
	return NULL;
}

/* What the reader found, against the architecture. Code it could not see
 * (a data section, headers it could not read) is never called unable to
 * run: a wrong "cannot" is worse than an "unknown". */
static void judge_file(struct gt_arch_file *x, int major, int minor)
{
	const struct host_fatbin_image *via = NULL;
	char err[256] = "";
	enum gt_fit fit;

	x->fb = gt_facts_fatbin(gt_facts_here(), x->copy->real_path, err, sizeof(err));
	if (!x->fb) {
		x->verdict = GT_ARCH_UNKNOWN;
		snprintf(x->why, sizeof(x->why), "not read: %s", err);
		return;
	}
	fit = gt_fatbin_fit(x->fb, major, minor, &via);
	/* no section, or only cubins without a kernel: nothing to run */
	if (!x->fb->has_device_code || (fit == GT_FIT_NO_CODE && !x->fb->other_entries && !x->fb->code_elsewhere)) {
		x->verdict = GT_ARCH_NO_CODE;
		return;
	}
	if (via)
		host_fatbin_image_name(via, x->via, sizeof(x->via));
	if (x->fb->code_elsewhere) {
		x->verdict = GT_ARCH_UNKNOWN;
		snprintf(x->why, sizeof(x->why), "keeps fat binaries in a data section too, which is not read");
	} else if (fit == GT_FIT_NO_CODE) {
		x->verdict = GT_ARCH_UNKNOWN;
		snprintf(x->why, sizeof(x->why), "carries device code of other kinds only (LTO IR ...)");
	} else if (fit == GT_FIT_NONE && x->fb->partial) {
		x->verdict = GT_ARCH_UNKNOWN;
		snprintf(x->why, sizeof(x->why), "not all of its fat-binary headers could be read");
	} else {
		x->verdict = fit == GT_FIT_SASS ? GT_ARCH_SASS : fit == GT_FIT_JIT ? GT_ARCH_JIT : GT_ARCH_CANNOT;
	}
}

static int by_verdict(const void *pa, const void *pb)
{
	const struct gt_arch_file *a = pa, *b = pb;

	if (a->verdict != b->verdict)
		return (int)a->verdict - (int)b->verdict;
	return strcmp(a->copy->real_path, b->copy->real_path);
}

void gt_scan_arch_judge(const struct host_scan *s, int major, int minor, struct gt_scan_arch *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "sm_%d%d", major, minor);
	out->major = major;
	out->minor = minor;
	out->files = gt_xcalloc(s->ncopies + s->nconsumers + 1, sizeof(*out->files));
	for (i = 0; i < s->ncopies + s->nconsumers; i++) {
		/* the CUDA libraries, then the files that use CUDA (libtorch_cuda.so) */
		const struct host_copy *c = i < s->ncopies ? &s->copies[i] : &s->consumers[i - s->ncopies];
		struct gt_arch_file *x;

		if (!c->real_path || c->stub)  /* a broken link has no file; a stub no code */
			continue;
		x = file_of(out, c);
		if (!x) {
			x = &out->files[out->nfiles++];
			x->copy = c;
		} else if (strcmp(c->path, c->real_path) == 0) {
			x->copy = c;  /* the file itself speaks for its names */
		}
	}
	for (i = 0; i < out->nfiles; i++)
		judge_file(&out->files[i], major, minor);
	qsort(out->files, out->nfiles, sizeof(*out->files), by_verdict);
}

size_t gt_scan_arch_cannot(const struct gt_scan_arch *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->nfiles; i++)
		n += a->files[i].verdict == GT_ARCH_CANNOT;
	return n;
}

void gt_scan_arch_free(struct gt_scan_arch *a)
{
	free(a->files);
	memset(a, 0, sizeof(*a));
}
