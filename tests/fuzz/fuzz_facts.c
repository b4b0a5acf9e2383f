/* libFuzzer target: any bytes as a trace folder's facts file
 * (gputrace-facts.json: the answers recorded on the traced host, which a
 * report on another machine reads instead of its own disk), beside one
 * fixed trace, through the whole report pipeline. The trace is the
 * torch-like scenario (tests/fuzz/facts_case/: three cuDNN installs, a
 * RUNPATH, a failed load), whose questions reach every section a report
 * asks: elf, exists, real, package, framework, search_path, resolve,
 * symbol_gaps, etc_preload. A facts file comes with folders from other
 * people: damaged or hostile, it must give a one-line message or a report,
 * never a crash, a leak or a hang. The trace's host is "vm"; its folder is
 * in /tmp, named by pid. GT_FUZZ_FACTS_TRACE names another trace. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fuzz/report_pipeline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char folder[64], facts_path[128];
static FILE *sink;

static void copy_trace(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;

	if (!in || !out) {
		fprintf(stderr, "fuzz_facts: cannot copy %s to %s (run from the repository root)\n", from, to);
		abort();
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			abort();
	fclose(in);
	if (fclose(out) != 0)
		abort();
}

static void remove_folder(void)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/t.jsonl", folder);
	unlink(path);
	unlink(facts_path);
	rmdir(folder);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *trace = getenv("GT_FUZZ_FACTS_TRACE");
	char to[192];

	(void)argc;
	(void)argv;
	/* an answer the file lacks is asked of this host where its name is the
	 * trace's: from the empty dpkg root fuzz_report_setup makes */
	sink = fuzz_report_setup();
	snprintf(folder, sizeof(folder), "/tmp/gt-fuzz-facts-%d", (int)getpid());
	if (mkdir(folder, 0700) != 0)
		abort();
	snprintf(to, sizeof(to), "%s/t.jsonl", folder);
	copy_trace(trace ? trace : "tests/fuzz/facts_case/sc_torchlike.jsonl", to);
	snprintf(facts_path, sizeof(facts_path), "%s/gputrace-facts.json", folder);
	atexit(remove_folder);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *paths[1] = { folder };
	int fd = open(facts_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	fuzz_report_pipeline(paths, 1, sink);
	return 0;
}
