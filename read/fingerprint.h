/* A fingerprint of a trace that ignores what differs between identical
 * processes (pids, times, thread ids, ranks): equal fingerprints mean equal
 * libraries, searches and outcomes, so the report can count a process into
 * its group without parsing its trace again. */
#ifndef GPUTRACE_FINGERPRINT_H
#define GPUTRACE_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hashes the file at path; the first line (the header) is copied into first,
 * NUL-terminated. False when the file cannot be read or first is too small. */
bool gt_trace_fingerprint(const char *path, uint64_t *fp, char *first, size_t cap);

#endif
