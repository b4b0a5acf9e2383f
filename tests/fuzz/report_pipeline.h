/* The report pipeline the fuzz targets drive: load the paths, analyse, and
 * every renderer (text, tree, JSON, DOT, timeline) into sink. A failed load
 * must say why in one line (else abort: a finding for the fuzzer). */
#ifndef GPUTRACE_FUZZ_REPORT_PIPELINE_H
#define GPUTRACE_FUZZ_REPORT_PIPELINE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/pictures.h"
#include "render/render.h"
#include "report/report.h"

/* What both targets set up once: package owners from an empty dpkg root, so
 * that a run costs what the pipeline costs, not an index of the host's
 * packages; and the renderers' sink, /dev/null. */
static FILE *fuzz_report_setup(void)
{
	static char dpkg[] = "/tmp/gt-fuzz-dpkg.XXXXXX";
	FILE *sink;

	if (!mkdtemp(dpkg))
		abort();
	setenv("GPUTRACE_DPKG_ROOT", dpkg, 1);
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	return sink;
}

static void fuzz_report_pipeline(char *const *paths, int npaths, FILE *sink)
{
	struct gt_report r;
	char err[8192] = "";

	if (gt_report_load(&r, paths, npaths, err, sizeof(err))) {
		gt_report_analyse(&r);
		gt_render_text(sink, &r, false);
		gt_render_text(sink, &r, true);
		gt_render_tree(sink, &r, true);
		gt_render_json(sink, &r);
		gt_render_dot(sink, &r, false);
		gt_render_dot(sink, &r, true);
		for (size_t g = 0; g < r.ngroups; g++)
			gt_render_timeline(sink, &r.groups[g]->model);
		(void)gt_report_status(&r);
	} else if (!err[0] || strchr(err, '\n')) {
		abort(); /* a failure must give one line saying why */
	}
	gt_report_free(&r);
}

#endif
