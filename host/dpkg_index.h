/* dpkg -S without reading every list: which of dpkg's <root>/info/NAME.list files
 * may name a path, from an index of every path they name (a 64-bit hash ->
 * the list), kept on disk and made again when <root>/info changes (its
 * mtime, device or inode: dpkg adds, removes and replaces lists there by
 * rename). Reading the ~1,000 lists took about 30 ms of every end-of-run
 * diagnosis (issue 29); the index answers in microseconds. The caller reads
 * the lists it names to confirm: a hash says "may", a list says "does".
 *
 * The index file lives in $GPUTRACE_CACHE_DIR, else, for the default root
 * only, in $XDG_CACHE_HOME/gputrace or ~/.cache/gputrace; elsewhere (a
 * fixture's root, no home) it is made in memory for the process. */
#ifndef GPUTRACE_HOST_DPKG_INDEX_H
#define GPUTRACE_HOST_DPKG_INDEX_H

#include <stdbool.h>
#include <stddef.h>

struct dpkg_index;

/* The index of root (e.g. /var/lib/dpkg), from disk when it is still true of
 * root/info, else made (and saved where it may be). NULL when root/info
 * cannot be read. */
struct dpkg_index *dpkg_index_get(const char *root);
/* The names (in root/info) of the lists that may name path (len bytes), at
 * most max of them; returns how many. */
size_t dpkg_index_lists(const struct dpkg_index *ix, const char *path, size_t len,
			const char **names, size_t max);
/* Was it read from the file (rather than made now)? For tests. */
bool dpkg_index_from_disk(const struct dpkg_index *ix);
void dpkg_index_free(struct dpkg_index *ix);

#endif
