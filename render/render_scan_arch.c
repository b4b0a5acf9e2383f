/* gputrace scan --arch, written: the text's summary and one line per file
 * with device code, and the "arch" object of scan --json (the verdicts are
 * rules/scan_arch.c's). */
#include <stdio.h>

#include "render/printable.h"
#include "render/render_scan.h"
#include "rules/findings.h"

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
