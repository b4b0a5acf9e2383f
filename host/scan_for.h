/* gputrace scan --for FILE: the loader's choices for one consumer, done on
 * paper (host/resolve.h): its DT_NEEDED names and theirs, the runtime's
 * libcuda.so.1, and cuDNN's sub-libraries by the most specific name first.
 * Reads the host; judges nothing (rules/scan_rules.h does). */
#ifndef GPUTRACE_HOST_SCAN_FOR_H
#define GPUTRACE_HOST_SCAN_FOR_H

#include <stddef.h>

#include "host/resolve.h"
#include "host/scan.h"

#define HOST_SCAN_FOR_MAX_NAMES 256

/* One name the consumer needs, and the loader's answer. */
struct host_scan_for_item {
	struct host_resolution res;
	int depth;            /* 0: the consumer's own DT_NEEDED */
};

struct host_scan_for {
	const char *consumer;
	struct host_resolve_env env;
	struct host_scan_for_item items[HOST_SCAN_FOR_MAX_NAMES];
	size_t n;
};

/* Resolves what consumer needs, with the loader's environment of this
 * process and the ld.so.cache the scan read. The result is malloc'd. */
struct host_scan_for *host_scan_for_run(const char *consumer, const struct host_scan *s);
void host_scan_for_free(struct host_scan_for *fr);

#endif
