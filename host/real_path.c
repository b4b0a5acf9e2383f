/* realpath(3) with its answers kept (see real_path.h).
 *
 * realpath reads every component of a path as a link, one readlink each:
 * a report of 20,000 copies of cuDNN made 12 of them for each of its 40,000
 * files (issue 29). Here a path's folder is resolved the same way, once, and
 * only the last component is read: one readlink a file, one a new folder. */
#define _GNU_SOURCE
#include "host/real_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/path_memo.h"

static struct host_memo real_paths;  /* path -> its real path, NULL: none */

/* Where the folder's real path is known: that path and the last component,
 * resolved by realpath itself only when the component is a link. Anything
 * else this cannot take apart (a relative path, a last component "." or
 * "..", a trailing or doubled slash) is realpath's whole. */
static bool resolve(const char *path, char *out)
{
	char folder[PATH_MAX], real_folder[PATH_MAX], joined[PATH_MAX], link;
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : NULL;
	size_t flen = slash ? (size_t)(slash - path) : 0;

	if (path[0] != '/' || !base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
	    flen >= sizeof(folder) || (flen && path[flen - 1] == '/'))
		return realpath(path, out) != NULL;
	if (flen == 0) {
		strcpy(real_folder, "/");
	} else {
		memcpy(folder, path, flen);
		folder[flen] = 0;
		if (!host_real_path(folder, real_folder))
			return false;
	}
	if (snprintf(joined, sizeof(joined), "%s/%s", strcmp(real_folder, "/") == 0 ? "" : real_folder, base) >=
	    (int)sizeof(joined))
		return realpath(path, out) != NULL;
	if (readlink(joined, &link, 1) >= 0)
		return realpath(joined, out) != NULL;  /* a link: its target's answer */
	if (errno != EINVAL)
		return false;                          /* gone, or not reachable */
	memcpy(out, joined, strlen(joined) + 1);
	return true;
}

bool host_real_path(const char *path, char *out)
{
	const char *known;
	bool ok;

	if (host_memo_get(&real_paths, path, &known)) {
		if (known)
			memcpy(out, known, strlen(known) + 1);
		return known != NULL;
	}
	ok = resolve(path, out);
	host_memo_put(&real_paths, path, ok ? out : NULL);
	return ok;
}

void host_real_path_forget(void)
{
	host_memo_free(&real_paths);
}
