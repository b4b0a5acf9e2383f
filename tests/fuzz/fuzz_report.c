/* libFuzzer target: any bytes as a trace, through the whole report pipeline:
 * fingerprint, reader, process model, rules, and every renderer (text, tree,
 * JSON). Bad input must give a one-line message, never a crash, a leak or a
 * hang. Paths inside the input are looked up on this disk, as the report
 * does; the package owners come from an empty dpkg root (set in main's
 * initialiser) so that a run costs what the pipeline costs, not an index of
 * the host's packages. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/fingerprint.h"
#include "render/pictures.h"
#include "render/render.h"
#include "report/report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char trace_path[64];
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char dpkg[] = "/tmp/gt-fuzz-dpkg.XXXXXX";

	(void)argc;
	(void)argv;
	if (!mkdtemp(dpkg))
		abort();
	setenv("GPUTRACE_DPKG_ROOT", dpkg, 1);
	snprintf(trace_path, sizeof(trace_path), "/tmp/gt-fuzz-%d.jsonl", (int)getpid());
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *paths[1] = { trace_path }, err[8192], first[4096];
	struct gt_report r;
	uint64_t fp;
	int fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	(void)gt_trace_fingerprint(trace_path, &fp, first, sizeof(first));
	err[0] = 0;
	if (gt_report_load(&r, paths, 1, err, sizeof(err))) {
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
	return 0;
}
