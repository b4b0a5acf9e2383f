/* The index of an installer's lists (see list_index.h). One layout on disk
 * and in memory: a header, the entries (path hash, list number) sorted by
 * hash and list, each list's identity when it was read, the offsets of the
 * lists' names, the names. A file that does not match its kind, root, the
 * watched folder's identity or its own sizes is made again. */
#define _GNU_SOURCE
#include "host/list_index.h"

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
#include <time.h>
#include <unistd.h>

/* The magic says the kind: a pip index is never taken for dpkg's. */
static const char *const magics[] = { [LIST_DPKG] = "GTDPKGI1", [LIST_PIP] = "GTPIPIX1" };
static const char *const prefixes[] = { [LIST_DPKG] = "dpkg", [LIST_PIP] = "pip" };
#define FORMAT 2u  /* 2: each list's identity (list_index_list_unchanged) */
#define MAX_LIST (256u << 20)

struct index_header {
	char magic[8];
	uint32_t format, entry_size;
	int64_t mtime_sec, mtime_nsec;   /* of the watched folder */
	uint64_t dev, ino;               /* of the watched folder */
	uint64_t root_hash;              /* of the root's path */
	uint64_t n_entries, n_lists, names_len;
};

struct index_entry {
	uint64_t hash;
	uint32_t list;
	uint32_t unused;
};

/* A list file as it was when its paths were hashed. Kept only for a list
 * last changed well before then (see settled()); trusted = 0 otherwise. */
struct list_ident {
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t size, ino, dev;
	uint64_t trusted;
};

struct list_index {
	char *buf;                       /* the whole layout */
	size_t len;
	bool mapped;                     /* buf is a mapping of the file */
	const struct index_header *h;
	const struct index_entry *entries;
	const struct list_ident *idents;
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

/* The watched folder: dpkg replaces lists in root/info; pip adds and
 * removes dist-info folders in the site itself. */
static bool watched_identity(enum list_kind kind, const char *root, struct index_header *h)
{
	char watched[PATH_MAX];
	struct stat st;

	if (snprintf(watched, sizeof(watched), "%s%s", root, kind == LIST_DPKG ? "/info" : "") >=
		    (int)sizeof(watched) ||
	    stat(watched, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	memcpy(h->magic, magics[kind], 8);
	h->format = FORMAT;
	h->entry_size = sizeof(struct index_entry);
	h->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	h->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	h->dev = (uint64_t)st.st_dev;
	h->ino = (uint64_t)st.st_ino;
	h->root_hash = hash_bytes(root, strlen(root));
	return true;
}

/* Where an index is kept: $GPUTRACE_CACHE_DIR (any root; *chosen set),
 * else the user's cache folder, for dpkg only of its default root. */
static bool cache_dir(enum list_kind kind, const char *root, char *out, size_t cap, bool *chosen)
{
	const char *dir = getenv("GPUTRACE_CACHE_DIR"), *xdg, *home;

	*chosen = dir && dir[0] == '/';
	if (*chosen)
		return snprintf(out, cap, "%s", dir) < (int)cap;
	if (kind == LIST_DPKG && strcmp(root, "/var/lib/dpkg") != 0)
		return false;
	xdg = getenv("XDG_CACHE_HOME");
	if (xdg && xdg[0] == '/')
		return snprintf(out, cap, "%s/gputrace", xdg) < (int)cap;
	home = getenv("HOME");
	return home && home[0] == '/' && snprintf(out, cap, "%s/.cache/gputrace", home) < (int)cap;
}

static bool cache_file(enum list_kind kind, const char *root, char *out, size_t cap, bool *chosen)
{
	char dir[PATH_MAX];

	return cache_dir(kind, root, dir, sizeof(dir), chosen) &&
	       snprintf(out, cap, "%s/%s-%016llx.idx", dir, prefixes[kind],
			(unsigned long long)hash_bytes(root, strlen(root))) < (int)cap;
}

/* Points the index's parts into buf; false when the sizes do not add up. */
static bool lay_out(struct list_index *ix)
{
	const struct index_header *h = (const struct index_header *)ix->buf;
	uint64_t need;

	if (ix->len < sizeof(*h))
		return false;
	if (h->n_entries > ix->len / sizeof(struct index_entry) || h->n_lists > ix->len / 4 ||
	    h->names_len > ix->len)
		return false;
	if (h->n_lists > ix->len / sizeof(struct list_ident))
		return false;
	need = sizeof(*h) + h->n_entries * sizeof(struct index_entry) + h->n_lists * sizeof(struct list_ident) +
	       h->n_lists * 4 + h->names_len;
	if (need != ix->len || (h->names_len && ix->buf[ix->len - 1] != 0))
		return false;
	ix->h = h;
	ix->entries = (const struct index_entry *)(ix->buf + sizeof(*h));
	ix->idents = (const struct list_ident *)(ix->entries + h->n_entries);
	ix->name_off = (const uint32_t *)(ix->idents + h->n_lists);
	ix->names = (const char *)(ix->name_off + h->n_lists);
	return true;
}

static struct list_index *load(const char *path, const struct index_header *want)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct list_index *ix = NULL;
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
		list_index_free(ix);
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
	struct list_ident *ids;
	size_t n_lists, lists_cap, ids_cap;
	struct timespec began;           /* when the lists began to be read */
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

/* A list changed in the last seconds before the lists began to be read can
 * change again within the same tick of its file system's clock and keep its
 * times and size (git's "racy" files): its identity is not trusted, and it
 * is read to confirm every time. */
#define SETTLE_SEC 2

static time_t pretended_began;  /* list_index_pretend_began */

void list_index_pretend_began(time_t when)
{
	pretended_began = when;
}

static bool settled(const struct stat *st, const struct timespec *began)
{
	time_t newest = st->st_mtim.tv_sec > st->st_ctim.tv_sec ? st->st_mtim.tv_sec : st->st_ctim.tv_sec;

	return newest + SETTLE_SEC < began->tv_sec;
}

static struct list_ident ident_of(const struct stat *st, bool trusted)
{
	return (struct list_ident){ .mtime_sec = st->st_mtim.tv_sec, .mtime_nsec = st->st_mtim.tv_nsec,
				    .ctime_sec = st->st_ctim.tv_sec, .ctime_nsec = st->st_ctim.tv_nsec,
				    .size = (uint64_t)st->st_size, .ino = (uint64_t)st->st_ino,
				    .dev = (uint64_t)st->st_dev, .trusted = trusted };
}

static bool add_list_name(struct builder *b, const char *name, const struct stat *st)
{
	size_t len = strlen(name) + 1;

	if (b->names_len + len > UINT32_MAX || !grow((void **)&b->off, &b->lists_cap, b->n_lists + 1, 4) ||
	    !grow((void **)&b->ids, &b->ids_cap, b->n_lists + 1, sizeof(*b->ids)) ||
	    !grow((void **)&b->names, &b->names_cap, b->names_len + len, 1))
		return false;
	b->ids[b->n_lists] = ident_of(st, settled(st, &b->began));
	b->off[b->n_lists++] = (uint32_t)b->names_len;
	memcpy(b->names + b->names_len, name, len);
	b->names_len += len;
	return true;
}

/* A RECORD line's path: its first CSV field, unquoted ("" is a quote), as
 * pip wrote it, relative to the site; "./" in front taken off; at most
 * cap - 1 bytes. Its length, 0 for none; *path points at it: into the line
 * where the field is not quoted (nearly every line: copying each path a
 * byte at a time was 39 M of the 127 M instructions that making the H200
 * venv's index took, results/torch-instructions-h200-s50.txt), else into
 * out, where it is unquoted. The bytes are those the copy of every field
 * gave before (the index on disk holds their hashes). */
static size_t record_path(const char *line, size_t len, char *out, size_t cap, const char **path)
{
	size_t i = 0, n = 0;

	if (len && line[0] == '"') {
		for (i = 1; i < len && n + 1 < cap; i++) {
			if (line[i] == '"' && i + 1 < len && line[i + 1] == '"')
				i++;
			else if (line[i] == '"')
				break;
			out[n++] = line[i];
		}
		out[n] = 0;
		*path = out;
	} else {
		/* len ends at the line's '\n' or the text's NUL, where strcspn
		 * stops too: n <= len */
		n = strcspn(line, ",\r\n");
		if (n > cap - 1)
			n = cap - 1;
		*path = line;
	}
	if (n >= 2 && (*path)[0] == '.' && (*path)[1] == '/') {
		*path += 2;
		n -= 2;
	}
	return n;
}

/* Every path one list names: dpkg's absolute lines, a RECORD's first fields. */
static bool add_paths(enum list_kind kind, struct builder *b, const char *text, uint32_t list)
{
	const char *line, *next, *path;
	char unquoted[PATH_MAX];
	size_t len;

	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + len;
		if (kind == LIST_DPKG && (line[0] != '/' || len < 2))
			continue;
		path = line;
		if (kind == LIST_PIP && (len = record_path(line, len, unquoted, sizeof(unquoted), &path)) == 0)
			continue;
		if (!grow((void **)&b->e, &b->cap, b->n + 1, sizeof(*b->e)))
			return false;
		b->e[b->n++] = (struct index_entry){ .hash = hash_bytes(path, len),
						     .list = list };
	}
	return true;
}

/* The list's text, and in *st the file it was read from. */
static char *read_text(const char *path, char *buf, size_t *cap, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || (size_t)st->st_size > MAX_LIST ||
	    !grow((void **)&buf, cap, (size_t)st->st_size + 1, 1)) {
		close(fd);
		return NULL;
	}
	while (len < (size_t)st->st_size &&
	       ((n = read(fd, buf + len, (size_t)st->st_size - len)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	close(fd);
	buf[len] = 0;
	return buf;
}

/* By hash, then by list: the lists that name one path come in the order
 * they were read, whatever qsort does with equal keys. */
static int by_hash(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	if (x->hash != y->hash)
		return (x->hash > y->hash) - (x->hash < y->hash);
	return (x->list > y->list) - (x->list < y->list);
}

/* The entries in by_hash's order, by a least-significant-digit radix sort of
 * the hash: it is stable, and the entries come in list order (read_lists),
 * so equal hashes stay in list order as by_hash puts them. qsort took 59.5 M
 * of the 127.4 M instructions that making the H200 venv's index took (68,923
 * paths, results/torch-instructions-h200-s50.txt); this takes 8.9 M of
 * bench/pip_index.sh's 68,647. False when out of memory (the caller then
 * uses qsort). */
#define DIGIT_BITS 11
#define RADIX_MIN 4096
#define DIGITS ((64 + DIGIT_BITS - 1) / DIGIT_BITS)
static bool sort_by_hash(struct index_entry *e, size_t n)
{
	size_t(*count)[1u << DIGIT_BITS] = calloc(DIGITS, sizeof(*count));
	struct index_entry *tmp = malloc(n * sizeof(*tmp)), *from = e, *to = tmp, *swap;
	const uint64_t mask = (1u << DIGIT_BITS) - 1;
	size_t i, d, b, at;

	if (!count || !tmp) {
		free(count);
		free(tmp);
		return false;
	}
	for (i = 0; i < n; i++)
		for (d = 0; d < DIGITS; d++)
			count[d][(e[i].hash >> (d * DIGIT_BITS)) & mask]++;
	for (d = 0; d < DIGITS; d++) {
		/* a digit every entry shares moves nothing */
		if (count[d][(e[0].hash >> (d * DIGIT_BITS)) & mask] == n)
			continue;
		for (b = 0, at = 0; b <= mask; b++) {
			size_t c = count[d][b];

			count[d][b] = at;
			at += c;
		}
		for (i = 0; i < n; i++)
			to[count[d][(from[i].hash >> (d * DIGIT_BITS)) & mask]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != e)
		memcpy(e, from, n * sizeof(*e));
	free(count);
	free(tmp);
	return true;
}

/* The list a directory entry of the listed folder stands for, or false: dpkg's
 * info/NAME.list, pip's NAME.dist-info/RECORD. */
static bool list_file(enum list_kind kind, const char *folder, const char *entry, char *out, size_t cap)
{
	size_t len = strlen(entry);

	if (kind == LIST_DPKG)
		return len > 5 && strcmp(entry + len - 5, ".list") == 0 &&
		       snprintf(out, cap, "%s/%s", folder, entry) < (int)cap;
	return len > 10 && strcmp(entry + len - 10, ".dist-info") == 0 &&
	       snprintf(out, cap, "%s/%s/RECORD", folder, entry) < (int)cap;
}

/* Reads every list; *bytes: how much that was (what a saved index spares). */
static bool read_lists(enum list_kind kind, const char *root, struct builder *b, size_t *bytes)
{
	char folder[PATH_MAX], path[PATH_MAX], *buf = NULL, *text;
	size_t cap = 0;
	struct dirent *de;
	struct stat st;
	bool ok = true;
	DIR *d;

	*bytes = 0;
	clock_gettime(CLOCK_REALTIME, &b->began);
	if (pretended_began)
		b->began = (struct timespec){ .tv_sec = pretended_began };
	if (snprintf(folder, sizeof(folder), "%s%s", root, kind == LIST_DPKG ? "/info" : "") >=
		    (int)sizeof(folder) ||
	    !(d = opendir(folder)))
		return false;
	while (ok && (de = readdir(d)) != NULL) {
		if (!list_file(kind, folder, de->d_name, path, sizeof(path)) ||
		    !(text = read_text(path, buf, &cap, &st)))
			continue;
		buf = text;
		*bytes += strlen(text);
		ok = add_list_name(b, de->d_name, &st) && add_paths(kind, b, text, (uint32_t)(b->n_lists - 1));
	}
	closedir(d);
	free(buf);
	return ok;
}

/* The layout of what the builder holds, in one buffer. */
static struct list_index *assemble(struct builder *b, const struct index_header *id)
{
	struct list_index *ix = calloc(1, sizeof(*ix));
	struct index_header h = *id;
	char *p;

	if (!ix)
		return NULL;
	h.n_entries = b->n;
	h.n_lists = b->n_lists;
	h.names_len = b->names_len;
	ix->len = sizeof(h) + b->n * sizeof(*b->e) + b->n_lists * (sizeof(*b->ids) + 4) + b->names_len;
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
		memcpy(p, b->ids, b->n_lists * sizeof(*b->ids));
	p += b->n_lists * sizeof(*b->ids);
	if (b->n_lists)
		memcpy(p, b->off, b->n_lists * 4);
	p += b->n_lists * 4;
	if (b->names_len)
		memcpy(p, b->names, b->names_len);
	lay_out(ix);
	return ix;
}

static struct list_index *make(enum list_kind kind, const char *root, const struct index_header *id,
			       size_t *bytes)
{
	struct builder b = { 0 };
	struct list_index *ix = NULL;

	if (read_lists(kind, root, &b, bytes)) {
		/* a small site's few entries: qsort, without the radix sort's
		 * 96 KB of counts to clear (bench/pip_index.sh on Debian's
		 * dist-packages, 826 paths: +0.17 ms with them) */
		if (b.n && (b.n < RADIX_MIN || !sort_by_hash(b.e, b.n)))
			qsort(b.e, b.n, sizeof(*b.e), by_hash);
		ix = assemble(&b, id);
	}
	free(b.e);
	free(b.off);
	free(b.ids);
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
static void save(const struct list_index *ix, const char *path)
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

struct list_index *list_index_get(enum list_kind kind, const char *root)
{
	struct index_header id = { 0 };
	struct list_index *ix;
	char path[PATH_MAX];
	size_t bytes = 0;
	bool on_disk, chosen = false;

	if (!root || !watched_identity(kind, root, &id))
		return NULL;
	on_disk = cache_file(kind, root, path, sizeof(path), &chosen);
	if (on_disk && (ix = load(path, &id)) != NULL)
		return ix;
	ix = make(kind, root, &id, &bytes);
	/* A small site is read faster than a file is written and mapped. */
	if (ix && on_disk && (kind == LIST_DPKG || chosen || bytes >= LIST_INDEX_WORTH_SAVING))
		save(ix, path);
	return ix;
}

size_t list_index_lists(const struct list_index *ix, const char *path, size_t len, const char **names, size_t max)
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

bool list_index_list_unchanged(const struct list_index *ix, const char *name, const char *list_path)
{
	size_t off, lo = 0, hi = ix->h->n_lists;
	const struct list_ident *id;
	struct stat st;

	if (name < ix->names || name >= ix->names + ix->h->names_len)
		return false;
	off = (size_t)(name - ix->names);
	/* the offsets grow with the list number (add_list_name) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->name_off[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ix->h->n_lists || ix->name_off[lo] != off)
		return false;
	id = &ix->idents[lo];
	return id->trusted && stat(list_path, &st) == 0 && S_ISREG(st.st_mode) &&
	       id->mtime_sec == (int64_t)st.st_mtim.tv_sec && id->mtime_nsec == (int64_t)st.st_mtim.tv_nsec &&
	       id->ctime_sec == (int64_t)st.st_ctim.tv_sec && id->ctime_nsec == (int64_t)st.st_ctim.tv_nsec &&
	       id->size == (uint64_t)st.st_size && id->ino == (uint64_t)st.st_ino && id->dev == (uint64_t)st.st_dev;
}

bool list_index_from_disk(const struct list_index *ix)
{
	return ix->mapped;
}

void list_index_free(struct list_index *ix)
{
	if (!ix)
		return;
	if (ix->mapped)
		munmap(ix->buf, ix->len);
	else
		free(ix->buf);
	free(ix);
}
