/* Reading a small file whole (a /proc file, a few KiB), with no stdio: used
 * by the library too. */
#ifndef GPUTRACE_SMALL_FILE_H
#define GPUTRACE_SMALL_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Up to cap - 1 bytes of path into buf, NUL-terminated; the byte count, or
 * -1 when it cannot be opened. */
ssize_t gt_read_small(const char *path, char *buf, size_t cap);

#endif
