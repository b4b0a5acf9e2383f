/* Which installer lists may name a path, without reading every list: dpkg
 * -S for dpkg's <root>/info/NAME.list files, and the same for pip's
 * <site-packages>/NAME.dist-info/RECORD files. An index of every path the
 * lists name (a 64-bit hash -> the list), kept on disk and made again when
 * the watched folder changes (its mtime, device or inode): dpkg adds,
 * removes and replaces lists in <root>/info by rename, and pip adds and
 * removes a whole NAME-VERSION.dist-info folder in site-packages on every
 * install, upgrade and uninstall. Reading dpkg's ~1,000 lists took about 30
 * ms of every end-of-run diagnosis, reading every RECORD of the H200's
 * torch/jax/cupy venv about 70 ms (issue 29); the index answers in
 * microseconds. The caller reads the lists it names to confirm: a hash says
 * "may", a list says "does". A list unchanged since it was hashed (its
 * times, size and inode the same, and it had been left alone for seconds
 * before: list_index_list_unchanged) says what it said then, and need not
 * be read again: torch 2.11's RECORD is 1.25 MB, ~1 ms of the H200's
 * diagnosis.
 *
 * The index file lives in $GPUTRACE_CACHE_DIR, else in
 * $XDG_CACHE_HOME/gputrace or ~/.cache/gputrace: for dpkg only of the
 * default root, for pip only of a site whose RECORDs took at least
 * LIST_INDEX_WORTH_SAVING bytes to read (a fixture's, or a small venv's, is
 * made in memory for the process and costs less than a file would). */
#ifndef GPUTRACE_HOST_LIST_INDEX_H
#define GPUTRACE_HOST_LIST_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define LIST_INDEX_WORTH_SAVING (1u << 20)

enum list_kind {
	LIST_DPKG,  /* root: /var/lib/dpkg; lists: info/NAME.list, absolute paths */
	LIST_PIP,   /* root: a site-packages folder; lists: NAME.dist-info/RECORD, paths relative to root */
};

struct list_index;

/* The index of root, from disk when it is still true of the watched folder
 * (dpkg: root/info; pip: root), else made (and saved where it may be). NULL
 * when that folder cannot be read. */
struct list_index *list_index_get(enum list_kind kind, const char *root);
/* The names of the lists that may name path (len bytes; dpkg: absolute, pip:
 * relative to the site, as RECORD writes it), at most max of them; returns
 * how many. A dpkg name is "NAME.list" in root/info, a pip name the
 * "NAME-VERSION.dist-info" folder in root. */
size_t list_index_lists(const struct list_index *ix, const char *path, size_t len, const char **names, size_t max);
/* Is the list name (as list_index_lists gave it), whose file is list_path,
 * the file it was when the index was made? Then the index's hashes of its
 * paths stand for its paths (64 bits: with a site's ~10^5 paths, one
 * question in ~10^14 could meet another path's hash). False
 * for a list changed within SETTLE_SEC of then, which a change in the same
 * tick of the file system's clock could leave looking the same. */
bool list_index_list_unchanged(const struct list_index *ix, const char *name, const char *list_path);
/* Tests: an index made from now on takes this (a nonzero time) for the
 * time it was begun, so that a list written a moment ago counts as settled. */
void list_index_pretend_began(time_t when);
/* Was it read from the file (rather than made now)? For tests. */
bool list_index_from_disk(const struct list_index *ix);
void list_index_free(struct list_index *ix);

#endif
