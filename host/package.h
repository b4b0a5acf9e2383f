/* Which installer put a file on disk (pip, conda or dpkg), from the installers'
 * own file lists. Lists are read once per process and kept until host_package_cache_free. */
#ifndef GPUTRACE_PACKAGE_H
#define GPUTRACE_PACKAGE_H

#include <stdbool.h>

struct host_package {
	char manager[8];    /* "pip", "conda", "dpkg", or "" when none */
	char name[128];     /* e.g. "nvidia-cudnn-cu13", "cudnn", "libcudnn9-cuda-12" */
	char version[64];   /* e.g. "9.19.0.56" */
	char record[4096];  /* the file that says so: the RECORD, conda-meta JSON or dpkg .list */
};

/* False when no installer claims the file. The dpkg database is read from
 * $GPUTRACE_DPKG_ROOT (default /var/lib/dpkg). */
bool host_package_of(const char *path, struct host_package *out);
/* The same where the answer is pip's, else false, without dpkg's lists (a
 * framework's dist-info: the files of Debian's python3-torch cost a dpkg
 * lookup of ~2 ms to learn that pip has none). */
bool host_pip_package_of(const char *path, struct host_package *out);
/* Says that host_package_of(path) will be asked: the dpkg lists are then
 * read once for all the files said so, instead of once each. */
void host_package_want(const char *path);
void host_package_cache_free(void);
/* How many RECORDs this process has read to answer (not to index): for tests. */
unsigned long host_pip_records_read(void);

#endif
