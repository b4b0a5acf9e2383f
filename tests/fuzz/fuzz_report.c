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
#include "tests/fuzz/report_pipeline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char trace_path[64];
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fuzz_report_setup();
	snprintf(trace_path, sizeof(trace_path), "/tmp/gt-fuzz-%d.jsonl", (int)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *paths[1] = { trace_path }, first[4096];
	uint64_t fp;
	int fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	(void)gt_trace_fingerprint(trace_path, &fp, first, sizeof(first));
	fuzz_report_pipeline(paths, 1, sink);
	return 0;
}
