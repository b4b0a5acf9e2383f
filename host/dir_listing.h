/* The names a folder holds, read once per process: the loader's search on
 * paper (host/resolve.c) tries each folder of a RUNPATH, of LD_LIBRARY_PATH
 * and the default ones, each with every glibc-hwcaps subfolder, for every
 * name, past the winner too (to find the shadowed copies): an import torch
 * on the H200 asks 19 searches with up to 19 tries before each winner and
 * more after it, and each absent try was an open() failing with ENOENT
 * (issue 29: the diagnosis at exit). One listing of each folder answers
 * those without a system call.
 *
 * Only "absent" is ever answered from a listing: a name the folder holds is
 * still opened and judged as the loader does. The command is
 * single-threaded (as host/path_memo.c). A folder that changes while one
 * process runs is not seen to change: callers that know better (the
 * diagnosis child, after the traced program ran) forget it first
 * (host/caches.h). */
#ifndef GPUTRACE_HOST_DIR_LISTING_H
#define GPUTRACE_HOST_DIR_LISTING_H

#include <stdbool.h>

/* True when path (a folder and a name) certainly names nothing: the folder
 * does not exist (ENOENT, ENOTDIR) or its listing lacks the name, which is
 * what open(path) would fail with ENOENT on. False when something may be
 * there, or the folder could not be listed (unreadable, too big, a name
 * longer than NAME_MAX, a path longer than PATH_MAX): then ask the disk. */
bool host_dir_lacks(const char *path);
/* Forgets every listing. */
void host_dir_listing_free(void);

#endif
