/* Reading a file descriptor to its end into one buffer: a facts file, a
 * /proc file, a pipe's output. The command's (the Makefile leaves it out of
 * the library, which reads only small files: common/small_file.h). */
#ifndef GPUTRACE_WHOLE_FILE_H
#define GPUTRACE_WHOLE_FILE_H

#include <stddef.h>

/* All of fd up to max bytes, NUL-terminated (*len without the NUL), in a
 * buffer the caller frees. NULL with errno set when reading fails (ENOMEM
 * too), or with EFBIG when there are more than max bytes. fd is not closed. */
char *gt_read_whole(int fd, size_t max, size_t *len);

/* The same for a file by path, opened for reading and closed again. */
char *gt_read_whole_path(const char *path, size_t max, size_t *len);

#endif
