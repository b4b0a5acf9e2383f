/* realpath(3) with its answers kept: a folder is resolved once, whatever
 * the number of files asked about in it. */
#ifndef GPUTRACE_HOST_REAL_PATH_H
#define GPUTRACE_HOST_REAL_PATH_H

#include <stdbool.h>

/* The real path of path in out (PATH_MAX bytes), as realpath(3) gives it;
 * false where realpath fails. Answers are kept until host_real_path_forget():
 * the files are taken not to move while a command reads them. */
bool host_real_path(const char *path, char *out);
void host_real_path_forget(void);

#endif
