/* A .tar.gz written from memory (see archive.h): each member a 512-byte
 * ustar header and its data padded to 512 bytes; two zero blocks at the
 * end; the whole through zlib's gzip stream. */
#include "cmd/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/xalloc.h"

#define BLOCK 512


struct cmd_archive {
	gzFile gz;
	char *path;
	bool failed;
	long long mtime;
};

/* The ustar header block, as POSIX.1-1988 lays it out. */
struct ustar {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12], chksum[8], typeflag;
	char linkname[100], magic[6], version[2], uname[32], gname[32], devmajor[8], devminor[8];
	char prefix[155], pad[12];
};
_Static_assert(sizeof(struct ustar) == BLOCK, "a ustar header is one block");

struct cmd_archive *cmd_archive_create(const char *path, char *err, size_t errcap)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	struct cmd_archive *a;

	if (fd < 0) {
		snprintf(err, errcap, "%s: %s", path, errno == EEXIST ? "exists already (say another with -o FILE)"
							     : strerror(errno));
		return NULL;
	}
	a = gt_xcalloc(1, sizeof(*a));
	a->gz = gzdopen(fd, "wb9");
	if (!a->gz) {
		snprintf(err, errcap, "%s: cannot start the gzip stream", path);
		close(fd);
		unlink(path);
		free(a);
		return NULL;
	}
	a->path = gt_xstrdup(path);
	a->mtime = (long long)time(NULL);
	return a;
}

static void write_all(struct cmd_archive *a, const void *data, size_t len)
{
	const char *p = data;

	while (len && !a->failed) {
		unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;

		if (gzwrite(a->gz, p, chunk) != (int)chunk)
			a->failed = true;
		p += chunk;
		len -= chunk;
	}
}

/* name split as ustar keeps a long one: prefix/name at a '/', or false. */
static bool split_name(struct ustar *h, const char *name)
{
	size_t n = strlen(name);
	const char *slash;

	if (n <= sizeof(h->name)) {
		memcpy(h->name, name, n);
		return true;
	}
	for (slash = name + n - 1; slash > name; slash--)
		if (*slash == '/' && (size_t)(slash - name) <= sizeof(h->prefix) &&
		    n - (size_t)(slash - name) - 1 <= sizeof(h->name)) {
			memcpy(h->prefix, name, (size_t)(slash - name));
			memcpy(h->name, slash + 1, n - (size_t)(slash - name) - 1);
			return true;
		}
	return false;
}

bool cmd_archive_add(struct cmd_archive *a, const char *name, const void *data, size_t len)
{
	static const char zeros[BLOCK];
	struct ustar h;
	unsigned sum = 0;
	size_t i;

	memset(&h, 0, sizeof(h));
	if (!split_name(&h, name))
		return false;
	snprintf(h.mode, sizeof(h.mode), "%07o", 0644);
	snprintf(h.uid, sizeof(h.uid), "%07o", 0);
	snprintf(h.gid, sizeof(h.gid), "%07o", 0);
	snprintf(h.size, sizeof(h.size), "%011llo", (unsigned long long)len);
	snprintf(h.mtime, sizeof(h.mtime), "%011llo", (unsigned long long)a->mtime);
	h.typeflag = '0';
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	/* the checksum is taken with its own field as eight spaces */
	memset(h.chksum, ' ', sizeof(h.chksum));
	for (i = 0; i < sizeof(h); i++)
		sum += ((unsigned char *)&h)[i];
	snprintf(h.chksum, sizeof(h.chksum), "%06o", sum);
	h.chksum[7] = ' ';
	write_all(a, &h, sizeof(h));
	write_all(a, data, len);
	write_all(a, zeros, (BLOCK - len % BLOCK) % BLOCK);
	return !a->failed;
}

bool cmd_archive_finish(struct cmd_archive *a, char *err, size_t errcap)
{
	static const char zeros[2 * BLOCK];
	bool ok;

	write_all(a, zeros, sizeof(zeros));
	ok = gzclose(a->gz) == Z_OK && !a->failed;
	if (!ok) {
		snprintf(err, errcap, "%s: cannot be written (a full disk?)", a->path);
		unlink(a->path);
	}
	free(a->path);
	free(a);
	return ok;
}
