/* Folder listings kept for the process (see dir_listing.h). */
#define _GNU_SOURCE
#include "host/dir_listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "host/path_memo.h"

/* A folder bigger than this (st_size: 4 KiB blocks on ext4, bytes of names
 * elsewhere) is not listed but asked of the disk: listing all ~1,800 names
 * of /usr/lib/x86_64-linux-gnu (72 KiB here) for the few dozen a search
 * asks there made `scan --for libtorch_cpu.so` 1.0 ms slower. A wheel's
 * folders and the glibc-hwcaps subfolders, most of them absent, are what
 * it saves on (bench/README.md section 16). */
#define MAX_DIR_BYTES (16 * 1024)
#define MAX_ENTRIES 20000

enum state { LISTED, MISSING, UNLISTABLE };

/* One folder; its names are keys of a host_memo (values none). */
struct listing {
	char *dir;
	enum state state;
	struct host_memo names;
};

/* The folders, in open addressing on their path. */
static struct listing *folders;
static size_t nfolders, folders_cap;

static void list_folder(struct listing *l)
{
	int fd = open(l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (fd < 0) {
		/* As open(dir/name) would fail: ENOENT or ENOTDIR for every name.
		 * Any other error (EACCES on a folder one may search but not
		 * read, ELOOP, EMFILE) says nothing about the name. */
		l->state = errno == ENOENT || errno == ENOTDIR ? MISSING : UNLISTABLE;
		return;
	}
	if (fstat(fd, &st) != 0 || st.st_size > MAX_DIR_BYTES || !(d = fdopendir(fd))) {
		close(fd);
		l->state = UNLISTABLE;
		return;
	}
	l->state = LISTED;
	for (;;) {
		errno = 0;
		e = readdir(d);
		if (!e) {
			if (errno)  /* a listing cut short proves nothing */
				l->state = UNLISTABLE;
			break;
		}
		if (l->names.n >= MAX_ENTRIES) {
			l->state = UNLISTABLE;
			break;
		}
		host_memo_put(&l->names, e->d_name, NULL);
	}
	closedir(d);
	if (l->state != LISTED)
		host_memo_free(&l->names);
}

static size_t folder_slot(const char *dir, size_t len)
{
	size_t k = (size_t)host_path_hash(dir, len) & (folders_cap - 1);

	while (folders[k].dir && (strncmp(folders[k].dir, dir, len) != 0 || folders[k].dir[len]))
		k = (k + 1) & (folders_cap - 1);
	return k;
}

static void grow_folders(void)
{
	struct listing *old = folders;
	size_t i, old_cap = folders_cap;

	folders_cap = old_cap ? 2 * old_cap : 64;
	folders = gt_xcalloc(folders_cap, sizeof(*folders));
	for (i = 0; i < old_cap; i++)
		if (old[i].dir)
			folders[folder_slot(old[i].dir, strlen(old[i].dir))] = old[i];
	free(old);
}

/* The listing of dir (its first len bytes), read on first use. */
static const struct listing *folder(const char *dir, size_t len)
{
	size_t k;

	if (2 * (nfolders + 1) > folders_cap)
		grow_folders();
	k = folder_slot(dir, len);
	if (!folders[k].dir) {
		folders[k].dir = gt_xasprintf("%.*s", (int)len, dir);
		list_folder(&folders[k]);
		nfolders++;
	}
	return &folders[k];
}

bool host_dir_lacks(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	const struct listing *l;
	const char *ignored;
	size_t dlen, nlen;

	if (!slash || !slash[1] || strlen(path) >= PATH_MAX)
		return false;
	nlen = strlen(slash + 1);
	if (nlen > NAME_MAX)
		return false;  /* open() says ENAMETOOLONG, not ENOENT */
	dlen = slash == path ? 1 : (size_t)(slash - path);  /* "/name": the root */
	l = folder(path, dlen);
	if (l->state == MISSING)
		return true;
	if (l->state != LISTED)
		return false;
	return !host_memo_get(&l->names, slash + 1, &ignored);
}

void host_dir_listing_free(void)
{
	for (size_t i = 0; i < folders_cap; i++)
		if (folders[i].dir) {
			free(folders[i].dir);
			host_memo_free(&folders[i].names);
		}
	free(folders);
	folders = NULL;
	nfolders = folders_cap = 0;
}
