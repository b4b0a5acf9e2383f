/* gputrace scan --arch (scan_arch.h). */
#include "report/scan_arch.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "report/printable.h"
#include "report/findings.h"

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

	x->fb = host_fatbin_of(x->copy->real_path, err, sizeof(err));
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
	out->files = gt_xcalloc(s->ncopies ? s->ncopies : 1, sizeof(*out->files));
	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];
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

void gt_scan_arch_free(struct gt_scan_arch *a)
{
	free(a->files);
	memset(a, 0, sizeof(*a));
}

static size_t count(const struct gt_scan_arch *a, enum gt_arch_verdict v)
{
	size_t i, n = 0;

	for (i = 0; i < a->nfiles; i++)
		n += a->files[i].verdict == v;
	return n;
}

static void print_file(FILE *f, const struct gt_scan_arch *a, const struct gt_arch_file *x)
{
	static const char *const words[] = { "CANNOT", "unknown", "jit", "sass", "" };
	char list[1024] = "";

	if (x->fb)
		host_fatbin_list(x->fb, list, sizeof(list));
	fprintf(f, "  %-8s %-14s %s: ", words[x->verdict], gt_printable(x->copy->fi.component),
		gt_printable(x->copy->real_path));
	switch (x->verdict) {
	case GT_ARCH_SASS:
		fprintf(f, "%s runs as it is (carries %s)\n", x->via, list);
		break;
	case GT_ARCH_JIT:
		fprintf(f, "no SASS for %s; PTX %s is compiled at start-up (carries %s)\n", a->name, x->via, list);
		break;
	case GT_ARCH_CANNOT:
		fprintf(f, "carries %s: nothing that runs on %s\n", list, a->name);
		break;
	default:
		fprintf(f, "%s%s%s%s\n", gt_printable(x->why), list[0] ? " (read: " : "", list, list[0] ? ")" : "");
	}
}

void gt_render_scan_arch_text(FILE *f, const struct gt_scan_arch *a)
{
	size_t i, none = count(a, GT_ARCH_NO_CODE);

	fprintf(f, "on paper, for %s (compute capability %d.%d): %zu file%s with device code: %zu run%s as SASS, "
		"%zu through PTX (JIT), %zu cannot run, %zu not judged; %zu file%s carry no device code\n",
		a->name, a->major, a->minor, a->nfiles - none, a->nfiles - none == 1 ? "" : "s",
		count(a, GT_ARCH_SASS), count(a, GT_ARCH_SASS) == 1 ? "s" : "", count(a, GT_ARCH_JIT),
		count(a, GT_ARCH_CANNOT), count(a, GT_ARCH_UNKNOWN), none, none == 1 ? "" : "s");
	for (i = 0; i < a->nfiles; i++)
		if (a->files[i].verdict != GT_ARCH_NO_CODE)
			print_file(f, a, &a->files[i]);
}

static json_t *file_json(const struct gt_arch_file *x)
{
	json_t *o = json_object(), *carries = json_array();
	size_t i;

	gt_evidence_str(o, "path", x->copy->real_path);
	json_object_set_new(o, "component", json_string(x->copy->fi.component));
	json_object_set_new(o, "fit", json_string(gt_arch_verdict_name(x->verdict)));
	json_object_set_new(o, "via", x->via[0] ? json_string(x->via) : json_null());
	for (i = 0; x->fb && i < x->fb->nimages; i++) {
		char name[32];

		host_fatbin_image_name(&x->fb->images[i], name, sizeof(name));
		json_array_append_new(carries, json_string(name));
	}
	json_object_set_new(o, "carries", carries);
	json_object_set_new(o, "partial", json_boolean(x->fb && x->fb->partial));
	if (x->why[0])
		gt_evidence_str(o, "why", x->why);
	return o;
}

json_t *gt_scan_arch_json(const struct gt_scan_arch *a)
{
	static const enum gt_arch_verdict all[] = { GT_ARCH_SASS, GT_ARCH_JIT, GT_ARCH_CANNOT, GT_ARCH_UNKNOWN,
						    GT_ARCH_NO_CODE };
	json_t *o = json_object(), *files = json_array(), *counts = json_object();
	char cc[16];
	size_t i;

	snprintf(cc, sizeof(cc), "%d.%d", a->major, a->minor);
	json_object_set_new(o, "arch", json_string(a->name));
	json_object_set_new(o, "compute_capability", json_string(cc));
	for (i = 0; i < a->nfiles; i++)
		json_array_append_new(files, file_json(&a->files[i]));
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		json_object_set_new(counts, gt_arch_verdict_name(all[i]), json_integer((json_int_t)count(a, all[i])));
	json_object_set_new(o, "counts", counts);
	json_object_set_new(o, "files", files);
	return o;
}
