/* Files for the fuzz targets that read a host's files (fuzz_index,
 * fuzz_site): each input is written where the code under test looks, in a
 * folder of the target's own, and what one input saved is removed before
 * the next. Any failure here is the harness's, and aborts. Included after
 * _GNU_SOURCE is defined (nftw). */
#ifndef GPUTRACE_FUZZ_FILES_H
#define GPUTRACE_FUZZ_FILES_H

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void fuzz_write_file(const char *path, const void *bytes, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (len && write(fd, bytes, len) != (ssize_t)len) || close(fd) != 0) {
		fprintf(stderr, "fuzz: cannot write %s\n", path);
		abort();
	}
}

/* Every entry of dir whose name holds part ("x.idx" and "x.idx.AbC123",
 * a save cut short, for ".idx"). */
static inline void fuzz_remove_files(const char *dir, const char *part)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && strstr(de->d_name, part) &&
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) < (int)sizeof(path))
			unlink(path);
	if (d)
		closedir(d);
}

static inline int fuzz_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* The target's folder and all in it (deepest first, links not followed). */
static inline void fuzz_remove_tree(const char *top)
{
	nftw(top, fuzz_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
