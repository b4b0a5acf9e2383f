#define _GNU_SOURCE
#include "common/whole_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

char *gt_read_whole(int fd, size_t max, size_t *len)
{
	struct stat st;
	size_t cap = 4096, n = 0;
	char *buf;

	/* A regular file's size is known: one buffer, one read, and a last
	 * read of 0 (a file that grows meanwhile still grows the buffer). */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 && (size_t)st.st_size < max)
		cap = (size_t)st.st_size + 2;
	buf = malloc(cap);
	if (!buf)
		return NULL;
	for (;;) {
		ssize_t got;
		char *more;

		if (n + 1 == cap) {
			if (n > max)
				break;  /* more than max: EFBIG below */
			cap = cap * 2 > max + 2 ? max + 2 : cap * 2;
			more = realloc(buf, cap);
			if (!more) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = more;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

char *gt_read_whole_path(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	int e;

	if (fd < 0)
		return NULL;
	buf = gt_read_whole(fd, max, len);
	e = errno;
	close(fd);
	errno = e;
	return buf;
}
