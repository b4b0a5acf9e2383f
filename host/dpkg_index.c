/* The index of dpkg's lists (see dpkg_index.h). One layout on disk and in
 * memory: a header, the entries (path hash, list number) sorted by hash, the
 * offsets of the lists' names, the names. A file that does not match root,
 * its info folder's identity or its own sizes is made again. */
#define _GNU_SOURCE
#include "host/dpkg_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "GTDPKGI1"
#define FORMAT 1u
#define MAX_LIST (256u << 20)

struct index_header {
	char magic[8];
	uint32_t format, entry_size;
	int64_t mtime_sec, mtime_nsec;   /* of <root>/info */
	uint64_t dev, ino;               /* of <root>/info */
	uint64_t root_hash;              /* of the root's path */
	uint64_t n_entries, n_lists, names_len;
};

struct index_entry {
	uint64_t hash;
	uint32_t list;
	uint32_t unused;
};

struct dpkg_index {
	char *buf;                       /* the whole layout */
	size_t len;
	bool mapped;                     /* buf is a mapping of the file */
	const struct index_header *h;
	const struct index_entry *entries;
	const uint32_t *name_off;
	const char *names;
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static bool info_identity(const char *root, struct index_header *h)
{
	char info[PATH_MAX];
	struct stat st;

	if (snprintf(info, sizeof(info), "%s/info", root) >= (int)sizeof(info) || stat(info, &st) != 0 ||
	    !S_ISDIR(st.st_mode))
		return false;
	memcpy(h->magic, MAGIC, 8);
	h->format = FORMAT;
	h->entry_size = sizeof(struct index_entry);
	h->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	h->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	h->dev = (uint64_t)st.st_dev;
	h->ino = (uint64_t)st.st_ino;
	h->root_hash = hash_bytes(root, strlen(root));
	return true;
}

/* Where the index of root is kept, or false for none (see dpkg_index.h). */
static bool cache_dir(const char *root, char *out, size_t cap)
{
	const char *dir = getenv("GPUTRACE_CACHE_DIR"), *xdg, *home;

	if (dir && dir[0] == '/')
		return snprintf(out, cap, "%s", dir) < (int)cap;
	if (strcmp(root, "/var/lib/dpkg") != 0)
		return false;
	xdg = getenv("XDG_CACHE_HOME");
	if (xdg && xdg[0] == '/')
		return snprintf(out, cap, "%s/gputrace", xdg) < (int)cap;
	home = getenv("HOME");
	return home && home[0] == '/' && snprintf(out, cap, "%s/.cache/gputrace", home) < (int)cap;
}

static bool cache_file(const char *root, char *out, size_t cap)
{
	char dir[PATH_MAX];

	return cache_dir(root, dir, sizeof(dir)) &&
	       snprintf(out, cap, "%s/dpkg-%016llx.idx", dir,
			(unsigned long long)hash_bytes(root, strlen(root))) < (int)cap;
}

/* Points the index's parts into buf; false when the sizes do not add up. */
static bool lay_out(struct dpkg_index *ix)
{
	const struct index_header *h = (const struct index_header *)ix->buf;
	uint64_t need;

	if (ix->len < sizeof(*h))
		return false;
	if (h->n_entries > ix->len / sizeof(struct index_entry) || h->n_lists > ix->len / 4 ||
	    h->names_len > ix->len)
		return false;
	need = sizeof(*h) + h->n_entries * sizeof(struct index_entry) + h->n_lists * 4 + h->names_len;
	if (need != ix->len || (h->names_len && ix->buf[ix->len - 1] != 0))
		return false;
	ix->h = h;
	ix->entries = (const struct index_entry *)(ix->buf + sizeof(*h));
	ix->name_off = (const uint32_t *)(ix->entries + h->n_entries);
	ix->names = (const char *)(ix->name_off + h->n_lists);
	return true;
}

static struct dpkg_index *load(const char *path, const struct index_header *want)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct dpkg_index *ix = NULL;
	struct stat st;
	void *p;

	if (fd < 0)
		return NULL;
	/* Only a file of ours: another user's could say anything. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (size_t)st.st_size < sizeof(struct index_header))
		goto out;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		goto out;
	ix = calloc(1, sizeof(*ix));
	if (!ix) {
		munmap(p, (size_t)st.st_size);
		goto out;
	}
	ix->buf = p;
	ix->len = (size_t)st.st_size;
	ix->mapped = true;
	if (!lay_out(ix) || memcmp(ix->h->magic, want->magic, 8) != 0 || ix->h->format != want->format ||
	    ix->h->entry_size != want->entry_size || ix->h->mtime_sec != want->mtime_sec ||
	    ix->h->mtime_nsec != want->mtime_nsec || ix->h->dev != want->dev || ix->h->ino != want->ino ||
	    ix->h->root_hash != want->root_hash) {
		dpkg_index_free(ix);
		ix = NULL;
	}
out:
	close(fd);
	return ix;
}

/* ---- making it ---- */

struct builder {
	struct index_entry *e;
	size_t n, cap;
	uint32_t *off;
	size_t n_lists, lists_cap;
	char *names;
	size_t names_len, names_cap;
};

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

static bool add_list_name(struct builder *b, const char *name)
{
	size_t len = strlen(name) + 1;

	if (b->names_len + len > UINT32_MAX || !grow((void **)&b->off, &b->lists_cap, b->n_lists + 1, 4) ||
	    !grow((void **)&b->names, &b->names_cap, b->names_len + len, 1))
		return false;
	b->off[b->n_lists++] = (uint32_t)b->names_len;
	memcpy(b->names + b->names_len, name, len);
	b->names_len += len;
	return true;
}

/* Every absolute path one list names. */
static bool add_paths(struct builder *b, const char *text, uint32_t list)
{
	const char *line, *next;
	size_t len;

	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + len;
		if (line[0] != '/' || len < 2)
			continue;
		if (!grow((void **)&b->e, &b->cap, b->n + 1, sizeof(*b->e)))
			return false;
		b->e[b->n++] = (struct index_entry){ .hash = hash_bytes(line, len), .list = list };
	}
	return true;
}

static char *read_text(const char *path, char *buf, size_t *cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t len = 0;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > MAX_LIST ||
	    !grow((void **)&buf, cap, (size_t)st.st_size + 1, 1)) {
		close(fd);
		return NULL;
	}
	while (len < (size_t)st.st_size &&
	       ((n = read(fd, buf + len, (size_t)st.st_size - len)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	close(fd);
	buf[len] = 0;
	return buf;
}

static int by_hash(const void *a, const void *b)
{
	uint64_t x = ((const struct index_entry *)a)->hash, y = ((const struct index_entry *)b)->hash;

	return (x > y) - (x < y);
}

static bool read_lists(const char *root, struct builder *b)
{
	char info[PATH_MAX], path[PATH_MAX], *buf = NULL, *text;
	size_t cap = 0, len;
	struct dirent *de;
	bool ok = true;
	DIR *d;

	if (snprintf(info, sizeof(info), "%s/info", root) >= (int)sizeof(info) || !(d = opendir(info)))
		return false;
	while (ok && (de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 5 || strcmp(de->d_name + len - 5, ".list") != 0 ||
		    snprintf(path, sizeof(path), "%s/%s", info, de->d_name) >= (int)sizeof(path))
			continue;
		if (!(text = read_text(path, buf, &cap)))
			continue;
		buf = text;
		ok = add_list_name(b, de->d_name) && add_paths(b, text, (uint32_t)(b->n_lists - 1));
	}
	closedir(d);
	free(buf);
	return ok;
}

/* The layout of what the builder holds, in one buffer. */
static struct dpkg_index *assemble(struct builder *b, const struct index_header *id)
{
	struct dpkg_index *ix = calloc(1, sizeof(*ix));
	struct index_header h = *id;
	char *p;

	if (!ix)
		return NULL;
	h.n_entries = b->n;
	h.n_lists = b->n_lists;
	h.names_len = b->names_len;
	ix->len = sizeof(h) + b->n * sizeof(*b->e) + b->n_lists * 4 + b->names_len;
	ix->buf = p = malloc(ix->len);
	if (!p) {
		free(ix);
		return NULL;
	}
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	if (b->n)
		memcpy(p, b->e, b->n * sizeof(*b->e));
	p += b->n * sizeof(*b->e);
	if (b->n_lists)
		memcpy(p, b->off, b->n_lists * 4);
	p += b->n_lists * 4;
	if (b->names_len)
		memcpy(p, b->names, b->names_len);
	lay_out(ix);
	return ix;
}

static struct dpkg_index *make(const char *root, const struct index_header *id)
{
	struct builder b = { 0 };
	struct dpkg_index *ix = NULL;

	if (read_lists(root, &b)) {
		if (b.n)
			qsort(b.e, b.n, sizeof(*b.e), by_hash);
		ix = assemble(&b, id);
	}
	free(b.e);
	free(b.off);
	free(b.names);
	return ix;
}

static bool make_dirs(const char *dir)
{
	char tmp[PATH_MAX];
	char *s;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return false;
	for (s = tmp + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
			return false;
		*s = '/';
	}
	return mkdir(tmp, 0700) == 0 || errno == EEXIST;
}

/* Written beside, then renamed into place: a reader sees the old file or the
 * new one. A cache: any failure leaves it unsaved, never an error. */
static void save(const struct dpkg_index *ix, const char *path)
{
	char tmp[PATH_MAX], *slash;
	size_t done = 0;
	ssize_t n;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp) || !(slash = strrchr(tmp, '/')))
		return;
	*slash = 0;
	if (!make_dirs(tmp) || snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return;
	while (done < ix->len && ((n = write(fd, ix->buf + done, ix->len - done)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			done += (size_t)n;
	if (close(fd) != 0 || done != ix->len || rename(tmp, path) != 0)
		unlink(tmp);
}

struct dpkg_index *dpkg_index_get(const char *root)
{
	struct index_header id = { 0 };
	struct dpkg_index *ix;
	char path[PATH_MAX];
	bool on_disk;

	if (!root || !info_identity(root, &id))
		return NULL;
	on_disk = cache_file(root, path, sizeof(path));
	if (on_disk && (ix = load(path, &id)) != NULL)
		return ix;
	ix = make(root, &id);
	if (ix && on_disk)
		save(ix, path);
	return ix;
}

size_t dpkg_index_lists(const struct dpkg_index *ix, const char *path, size_t len,
			const char **names, size_t max)
{
	uint64_t hash = hash_bytes(path, len);
	size_t lo = 0, hi = ix->h->n_entries, found = 0, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->entries[mid].hash < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ix->h->n_entries && ix->entries[i].hash == hash && found < max; i++) {
		uint32_t list = ix->entries[i].list;

		if (list < ix->h->n_lists && ix->name_off[list] < ix->h->names_len)
			names[found++] = ix->names + ix->name_off[list];
	}
	return found;
}

bool dpkg_index_from_disk(const struct dpkg_index *ix)
{
	return ix->mapped;
}

void dpkg_index_free(struct dpkg_index *ix)
{
	if (!ix)
		return;
	if (ix->mapped)
		munmap(ix->buf, ix->len);
	else
		free(ix->buf);
	free(ix);
}
