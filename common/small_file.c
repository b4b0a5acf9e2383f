/* See small_file.h. */
#include "common/small_file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

ssize_t gt_read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total < cap - 1) {
		n = read(fd, buf + total, cap - 1 - (size_t)total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = 0;
	return total;
}
