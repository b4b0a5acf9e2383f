/* Finds the pip, conda or dpkg package that installed a file (see package.h).
 * Each installer root's file lists are read once into a path -> owner hash table. */
#define _GNU_SOURCE
#include "host/package.h"

#include "common/xalloc.h"
#include "host/list_index.h"
#include "host/path_memo.h"
#include "host/real_path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LIST_FILE (256u << 20)  /* larger RECORD/.list/status files are not ours to read */
#define MAX_METADATA (64u << 10)    /* Name/Version sit at the top of METADATA */
#define ARENA_CHUNK (1u << 20)

/* Many small strings that live as long as their index: one free per megabyte. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

struct owner {
	const char *name, *version, *record;
	bool by_conda;  /* a dist-info whose INSTALLER is conda: conda-meta has the better name */
};

/* 16 bytes: dpkg's index holds ~150k paths, and its cost is cache and page misses. */
struct slot {
	uint64_t hash;
	uint32_t owner1;  /* owner number + 1; 0: an empty slot */
};

/* The files one installer root (a site-packages folder, a conda prefix, the dpkg
 * database) says it owns, keyed by absolute path. */
struct path_index {
	struct path_index *next;
	char manager[8];
	char *root;
	struct owner *owners;
	size_t nowners, owners_cap;
	struct slot *slots;
	const char **keys;  /* beside slots */
	size_t nslots, nused;
	struct arena_chunk *arena;
	/* pip: which RECORDs may name a path (list_index.h), and the
	 * dist-info folders read into this index so far; NULL: all were read */
	struct list_index *lists;
	struct read_dist_info {
		char *folder;
		int level;   /* 0: not read; 1: its libraries' lines; 2: all */
		long owner;  /* its owner number; -1: it has no readable RECORD */
	} *read;
	size_t nread;
};

static struct path_index *indexes;

static char *arena_strndup(struct arena_chunk **arena, const char *s, size_t n)
{
	struct arena_chunk *c = *arena;
	char *p;

	if (!c || c->cap - c->used < n + 1) {
		size_t cap = n + 1 > ARENA_CHUNK ? n + 1 : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = *arena;
		c->used = 0;
		c->cap = cap;
		*arena = c;
	}
	p = c->data + c->used;
	memcpy(p, s, n);
	p[n] = 0;
	c->used += n + 1;
	return p;
}

/* Folders asked about for the process (until host_package_cache_free): a
 * report walks the same folders up for every library (issue 29). */
static struct host_memo conda_roots;   /* folder -> "" when it is a conda prefix, NULL when not */

/* malloc and memset rather than calloc: calloc's fresh zero pages fault twice, once
 * when probed and again when written. */
static void *zalloc(size_t n, size_t size)
{
	void *p = n <= SIZE_MAX / size ? malloc(n * size) : NULL;

	if (p)
		memset(p, 0, n * size);
	return p;
}

static bool index_grow(struct path_index *ix)
{
	size_t i, j, n = ix->nslots ? ix->nslots * 2 : 4096;
	struct slot *s = zalloc(n, sizeof(*s));
	const char **k = zalloc(n, sizeof(*k));

	if (!s || !k) {
		free(s);
		free(k);
		return false;
	}
	for (i = 0; i < ix->nslots; i++) {
		if (!ix->slots[i].owner1)
			continue;
		for (j = ix->slots[i].hash & (n - 1); s[j].owner1; j = (j + 1) & (n - 1))
			;
		s[j] = ix->slots[i];
		k[j] = ix->keys[i];
	}
	free(ix->slots);
	free(ix->keys);
	ix->slots = s;
	ix->keys = k;
	ix->nslots = n;
	return true;
}

/* The first owner to list a path keeps it. */
static bool index_add(struct path_index *ix, const char *path, size_t len, uint32_t owner)
{
	size_t j, mask;
	uint64_t h;

	if ((ix->nused + 1) * 4 > ix->nslots * 3 && !index_grow(ix))
		return false;
	h = host_path_hash(path, len);
	mask = ix->nslots - 1;
	for (j = h & mask; ix->slots[j].owner1; j = (j + 1) & mask) {
		if (ix->slots[j].hash != h)
			continue;
		if (strcmp(ix->keys[j], path) == 0)
			return true;
	}
	if (!(ix->keys[j] = arena_strndup(&ix->arena, path, len)))
		return false;
	ix->slots[j].hash = h;
	ix->slots[j].owner1 = owner + 1;
	ix->nused++;
	return true;
}

static const struct owner *index_find(const struct path_index *ix, const char *path)
{
	uint64_t h = host_path_hash(path, strlen(path));
	const struct slot *s;
	size_t j;

	if (!ix->nslots)
		return NULL;
	for (j = h & (ix->nslots - 1); (s = &ix->slots[j])->owner1; j = (j + 1) & (ix->nslots - 1)) {
		const struct owner *o = &ix->owners[s->owner1 - 1];

		if (s->hash != h)
			continue;
		if (strcmp(ix->keys[j], path) == 0)
			return o;
	}
	return NULL;
}

/* Returns the new owner's number, or -1. Strings are copied into the arena. */
static long index_owner(struct path_index *ix, const char *name, const char *version,
			const char *record)
{
	struct owner *o;

	if (ix->nowners == ix->owners_cap) {
		size_t cap = ix->owners_cap ? ix->owners_cap * 2 : 64;

		o = realloc(ix->owners, cap * sizeof(*o));
		if (!o)
			return -1;
		ix->owners = o;
		ix->owners_cap = cap;
	}
	o = &ix->owners[ix->nowners];
	memset(o, 0, sizeof(*o));
	o->name = arena_strndup(&ix->arena, name, strlen(name));
	o->version = arena_strndup(&ix->arena, version, strlen(version));
	o->record = arena_strndup(&ix->arena, record, strlen(record));
	if (!o->name || !o->version || !o->record)
		return -1;
	return (long)ix->nowners++;
}

static void index_free(struct path_index *ix)
{
	struct arena_chunk *c, *next;

	for (c = ix->arena; c; c = next) {
		next = c->next;
		free(c);
	}
	free(ix->slots);
	free(ix->keys);
	free(ix->owners);
	free(ix->root);
	list_index_free(ix->lists);
	while (ix->nread)
		free(ix->read[--ix->nread].folder);
	free(ix->read);
	free(ix);
}


/* ---- small file and path helpers ---- */

/* Reads at most max bytes of a regular file into *buf (grown as needed; kept across
 * calls so that a thousand dpkg lists cost no thousand mallocs), NUL-terminated. */
static bool read_file_into(const char *path, size_t max, char **buf, size_t *cap, size_t *len_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t len = 0, want;
	struct stat st;
	bool okay = false;
	ssize_t n;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		goto out;
	want = (size_t)st.st_size < max ? (size_t)st.st_size : max;
	if (!*buf || *cap < want + 1) {
		char *grown = realloc(*buf, want + 1);

		if (!grown)
			goto out;
		*buf = grown;
		*cap = want + 1;
	}
	while (len < want && ((n = read(fd, *buf + len, want - len)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	(*buf)[len] = 0;
	if (len_out)
		*len_out = len;
	okay = true;
out:
	close(fd);
	return okay;
}

/* A fresh malloc'd copy of a file, NUL-terminated; NULL on failure. */
static char *read_file(const char *path, size_t max, size_t *len_out)
{
	char *buf = NULL;
	size_t cap = 0;

	if (read_file_into(path, max, &buf, &cap, len_out))
		return buf;
	free(buf);
	return NULL;
}

/* Lexical clean-up of an absolute path ("//", "/./", "x/.."), as installers' lists
 * spell paths; symlinks are dealt with by also trying the realpath. */
static bool normalize_path(const char *in, char *out, size_t cap)
{
	size_t len = 0, n;
	const char *p = in, *e;

	if (*in != '/' || cap < 2)
		return false;
	while (*p) {
		while (*p == '/')
			p++;
		e = p + strcspn(p, "/");
		n = (size_t)(e - p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[--len] != '/')
				;
		} else if (n && !(n == 1 && *p == '.')) {
			if (len + 1 + n + 1 > cap)
				return false;
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p = e;
	}
	if (!len)
		out[len++] = '/';
	out[len] = 0;
	return true;
}

static bool absolute_path(const char *path, char *out, size_t cap)
{
	char cwd[PATH_MAX], joined[PATH_MAX * 2];

	if (path[0] == '/')
		return normalize_path(path, out, cap);
	if (!getcwd(cwd, sizeof(cwd)))
		return false;
	snprintf(joined, sizeof(joined), "%s/%s", cwd, path);
	return normalize_path(joined, out, cap);
}

static bool join_path(char *out, size_t cap, const char *a, const char *b)
{
	char joined[PATH_MAX * 2];
	int n;

	if (b[0] == '/')
		return normalize_path(b, out, cap);
	n = snprintf(joined, sizeof(joined), "%s/%s", a, b);
	return n >= 0 && (size_t)n < sizeof(joined) && normalize_path(joined, out, cap);
}

/* dir + "/" + name into out; false when it does not fit. */
static bool in_dir(char *out, size_t cap, const char *dir, const char *name)
{
	int n = snprintf(out, cap, "%s/%s", dir, name);

	return n >= 0 && (size_t)n < cap;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* The nearest folder above path that qualifies as an installer root, into root. */
static bool find_root(const char *path, bool (*is_root)(const char *), char *root, size_t cap)
{
	char *slash;

	if (snprintf(root, cap, "%s", path) >= (int)cap)
		return false;
	while ((slash = strrchr(root, '/')) != NULL && slash != root) {
		*slash = 0;
		if (is_root(root))
			return true;
	}
	return false;
}

static struct path_index *cached_index(const char *manager, const char *root)
{
	struct path_index *ix;

	for (ix = indexes; ix; ix = ix->next)
		if (strcmp(ix->manager, manager) == 0 && strcmp(ix->root, root) == 0)
			return ix;
	return NULL;
}

/* A new, empty index, already in the cache: a root that failed to read stays
 * empty rather than being read again for every lookup. */
static struct path_index *new_index(const char *manager, const char *root)
{
	struct path_index *ix = calloc(1, sizeof(*ix));

	if (!ix)
		return NULL;
	ix->root = strdup(root);
	if (!ix->root) {
		free(ix);
		return NULL;
	}
	snprintf(ix->manager, sizeof(ix->manager), "%s", manager);
	ix->next = indexes;
	indexes = ix;
	return ix;
}

static void fill_package(struct host_package *out, const char *manager, const struct owner *o)
{
	snprintf(out->manager, sizeof(out->manager), "%s", manager);
	snprintf(out->name, sizeof(out->name), "%s", o->name);
	snprintf(out->version, sizeof(out->version), "%s", o->version);
	snprintf(out->record, sizeof(out->record), "%s", o->record);
}

/* ---- pip: <site-packages>/<name>-<version>.dist-info/RECORD ---- */

static bool is_site_packages(const char *dir)
{
	return ends_with(dir, "/site-packages") || ends_with(dir, "/dist-packages");
}

/* The value of a "Key: value" header line of METADATA, up to the first blank line. */
static void metadata_field(const char *meta, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key), n;
	const char *line = meta;

	while (*line && *line != '\n' && *line != '\r') {
		const char *eol = line + strcspn(line, "\r\n");

		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *v = line + klen + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			n = (size_t)(eol - v) < cap - 1 ? (size_t)(eol - v) : cap - 1;
			memcpy(out, v, n);
			out[n] = 0;
			return;
		}
		line = *eol == '\r' && eol[1] == '\n' ? eol + 2 : *eol ? eol + 1 : eol;
	}
}

/* Name and version from METADATA, else from "<name>-<version>.dist-info". */
static void dist_info_identity(const char *dist_dir, const char *folder,
			       char *name, size_t name_cap, char *version, size_t version_cap)
{
	size_t stem = strlen(folder) - strlen(".dist-info");
	const char *dash = memchr(folder, '-', stem);
	char path[PATH_MAX];
	char *meta;

	name[0] = version[0] = 0;
	meta = in_dir(path, sizeof(path), dist_dir, "METADATA") ? read_file(path, MAX_METADATA, NULL) : NULL;
	if (meta) {
		metadata_field(meta, "Name", name, name_cap);
		metadata_field(meta, "Version", version, version_cap);
		free(meta);
	}
	if (!name[0])
		snprintf(name, name_cap, "%.*s", (int)(dash ? (size_t)(dash - folder) : stem), folder);
	if (!version[0] && dash)
		snprintf(version, version_cap, "%.*s", (int)(folder + stem - dash - 1), dash + 1);
}

static bool installed_by_conda(const char *dist_dir)
{
	char path[PATH_MAX], *s;
	bool conda;

	s = in_dir(path, sizeof(path), dist_dir, "INSTALLER") ? read_file(path, 64, NULL) : NULL;
	conda = s && strncmp(s, "conda", 5) == 0;
	free(s);
	return conda;
}

/* The first CSV field of a RECORD line, unquoted in place ("" is a quote). */
static char *csv_first_field(char *line)
{
	char *r, *w;

	if (*line != '"') {
		line[strcspn(line, ",")] = 0;
		return line;
	}
	for (r = w = line + 1; *r; r++) {
		if (*r == '"' && r[1] == '"')
			r++;
		else if (*r == '"')
			break;
		*w++ = *r;
	}
	*w = 0;
	return line + 1;
}

/* A shared library's name: "libx.so", "libx.so.9", "_C.cpython-312-x86_64-linux-gnu.so". */
static bool names_a_library(const char *path)
{
	const char *base = strrchr(path, '/'), *so;

	for (so = strstr(base ? base : path, ".so"); so; so = strstr(so + 1, ".so"))
		if (so[3] == 0 || so[3] == '.')
			return true;
	return false;
}

static bool pip_index_line(struct path_index *ix, char *line, uint32_t owner, bool libs_only)
{
	char full[PATH_MAX], *field;

	line[strcspn(line, "\r")] = 0;
	field = csv_first_field(line);
	if (*field && (!libs_only || names_a_library(field)) && join_path(full, sizeof(full), ix->root, field))
		return index_add(ix, full, strlen(full), owner);
	return true;
}

static unsigned long records_read;  /* RECORDs read to answer: host_pip_records_read */

unsigned long host_pip_records_read(void)
{
	return records_read;
}

/* The RECORD's paths into the index; with libs_only, its libraries' alone:
 * torch's RECORD names ~20,000 files, ~100 of them libraries, and the
 * questions are about the files a process loaded (10 ms of the H200's
 * diagnosis went to indexing the rest). */
static bool pip_read_record(struct path_index *ix, const char *record, uint32_t owner, bool libs_only)
{
	char *buf = read_file(record, MAX_LIST_FILE, NULL), *line, *end, *at;
	bool okay = buf != NULL;

	records_read++;
	end = buf ? buf + strlen(buf) : NULL;
	/* A library's line holds ".so": only those lines are looked at. On a
	 * torch-sized RECORD (15,000 lines) here, line by line took 0.75 ms of
	 * the one framework question of a diagnosis, memmem 0.67, strstr 0.22
	 * (the text ends at its first NUL either way; bench/README.md 17). */
	for (at = buf; okay && libs_only && at < end && (line = strstr(at, ".so")) != NULL;) {
		/* back to its line's start, no further than the last line read */
		char *nl = memrchr(at, '\n', (size_t)(line - at));

		line = nl ? nl + 1 : at;
		at = memchr(line, '\n', (size_t)(end - line));
		if (at)
			*at++ = 0;
		else
			at = end;
		okay = pip_index_line(ix, line, owner, true);
	}
	for (line = buf; okay && !libs_only && line && line < end; line = at) {
		at = strchr(line, '\n');
		if (at)
			*at++ = 0;
		okay = pip_index_line(ix, line, owner, false);
	}
	free(buf);
	return okay;
}

/* The owner a dist-info folder stands for (its name, version, RECORD), or -1. */
static long pip_dist_info_owner(struct path_index *ix, const char *folder)
{
	char dist_dir[PATH_MAX], record[PATH_MAX], name[128], version[64];
	long owner;

	if (!in_dir(dist_dir, sizeof(dist_dir), ix->root, folder) ||
	    !in_dir(record, sizeof(record), dist_dir, "RECORD") || access(record, R_OK) != 0)
		return -1;
	dist_info_identity(dist_dir, folder, name, sizeof(name), version, sizeof(version));
	owner = index_owner(ix, name, version, record);
	if (owner >= 0)
		ix->owners[owner].by_conda = installed_by_conda(dist_dir);
	return owner;
}

static void pip_read_dist_info(struct path_index *ix, const char *folder, bool libs_only)
{
	long owner = pip_dist_info_owner(ix, folder);

	if (owner >= 0)
		pip_read_record(ix, ix->owners[owner].record, (uint32_t)owner, libs_only);
}

/* A site's index starts empty when its list index could be had (list_index.h):
 * the RECORDs that may name a path asked for are read into it then, once each.
 * Without one (an unreadable site), every RECORD is read now, as before. */
static struct path_index *pip_index(const char *site)
{
	struct path_index *ix = cached_index("pip", site);
	struct dirent *de;
	DIR *d;

	if (ix)
		return ix;
	ix = new_index("pip", site);
	if (!ix)
		return NULL;
	ix->lists = list_index_get(LIST_PIP, site);
	if (ix->lists)
		return ix;
	d = opendir(site);
	if (!d)
		return ix;
	while ((de = readdir(d)) != NULL)
		if (ends_with(de->d_name, ".dist-info"))
			pip_read_dist_info(ix, de->d_name, false);
	closedir(d);
	return ix;
}

/* What is known of a dist-info folder of the site: its owner (made on first
 * use) and how much of its RECORD is in the index. NULL when out of memory. */
static struct read_dist_info *pip_dist_info(struct path_index *ix, const char *folder)
{
	struct read_dist_info *grown;
	char *copy;
	size_t i;

	for (i = 0; i < ix->nread; i++)
		if (strcmp(ix->read[i].folder, folder) == 0)
			return &ix->read[i];
	grown = realloc(ix->read, (ix->nread + 1) * sizeof(*ix->read));
	copy = strdup(folder);
	if (grown)
		ix->read = grown;
	if (!grown || !copy) {
		free(copy);
		return NULL;
	}
	ix->read[ix->nread] = (struct read_dist_info){ .folder = copy, .owner = pip_dist_info_owner(ix, folder) };
	return &ix->read[ix->nread++];
}

/* The RECORDs that may name abs (inside site), into the index, in the order
 * the list index gives them (the first keeps the path): from the list index
 * alone where the RECORD is unchanged since it was hashed, else read (their
 * libraries' lines when abs is a library, else all), once each. */
static void pip_read_records_naming(struct path_index *ix, const char *site, const char *abs)
{
	const char *names[8], *rel = abs + strlen(site) + 1;
	int level = names_a_library(rel) ? 1 : 2;
	struct read_dist_info *di;
	size_t n, i;

	if (!ix->lists || strncmp(abs, site, strlen(site)) != 0 || abs[strlen(site)] != '/')
		return;
	n = list_index_lists(ix->lists, rel, strlen(rel), names, 8);
	for (i = 0; i < n; i++) {
		di = pip_dist_info(ix, names[i]);
		if (!di) {
			pip_read_dist_info(ix, names[i], level == 1);  /* out of memory: read, unremembered */
			continue;
		}
		if (di->owner < 0 || di->level >= level)
			continue;
		if (list_index_list_unchanged(ix->lists, names[i], ix->owners[di->owner].record))
			index_add(ix, abs, strlen(abs), (uint32_t)di->owner);
		else {
			pip_read_record(ix, ix->owners[di->owner].record, (uint32_t)di->owner, level == 1);
			di->level = level;
		}
	}
}

static const struct owner *pip_owner(const char *abs)
{
	char site[PATH_MAX];
	struct path_index *ix;

	if (!find_root(abs, is_site_packages, site, sizeof(site)))
		return NULL;
	ix = pip_index(site);
	if (!ix)
		return NULL;
	pip_read_records_naming(ix, site, abs);
	return index_find(ix, abs);
}

/* ---- conda: <prefix>/conda-meta/<name>-<version>-<build>.json ---- */

static bool is_conda_prefix(const char *dir)
{
	char meta[PATH_MAX];
	const char *known;
	bool yes;

	if (host_memo_get(&conda_roots, dir, &known))
		return known != NULL;
	yes = in_dir(meta, sizeof(meta), dir, "conda-meta") && is_dir(meta);
	host_memo_put(&conda_roots, dir, yes ? "" : NULL);
	return yes;
}

static void conda_read_json(struct path_index *ix, const char *json_path)
{
	json_t *root = json_load_file(json_path, 0, NULL), *files, *f;
	const char *name, *version;
	char full[PATH_MAX];
	size_t i;
	long owner;

	if (!json_is_object(root))
		goto out;
	name = json_string_value(json_object_get(root, "name"));
	version = json_string_value(json_object_get(root, "version"));
	files = json_object_get(root, "files");
	if (!name || !json_is_array(files))
		goto out;
	owner = index_owner(ix, name, version ? version : "", json_path);
	if (owner < 0)
		goto out;
	json_array_foreach(files, i, f) {
		const char *rel = json_string_value(f);

		if (rel && *rel && join_path(full, sizeof(full), ix->root, rel) &&
		    !index_add(ix, full, strlen(full), (uint32_t)owner))
			break;
	}
out:
	json_decref(root);
}

static struct path_index *conda_index(const char *prefix)
{
	struct path_index *ix = cached_index("conda", prefix);
	char meta[PATH_MAX], json_path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (ix)
		return ix;
	ix = new_index("conda", prefix);
	if (!ix)
		return NULL;
	d = in_dir(meta, sizeof(meta), prefix, "conda-meta") ? opendir(meta) : NULL;
	if (!d)
		return ix;
	while ((de = readdir(d)) != NULL)
		if (ends_with(de->d_name, ".json") && in_dir(json_path, sizeof(json_path), meta, de->d_name))
			conda_read_json(ix, json_path);
	closedir(d);
	return ix;
}

static const struct owner *conda_owner(const char *abs)
{
	char prefix[PATH_MAX];
	struct path_index *ix;

	if (!find_root(abs, is_conda_prefix, prefix, sizeof(prefix)))
		return NULL;
	ix = conda_index(prefix);
	return ix ? index_find(ix, abs) : NULL;
}

/* ---- dpkg: <root>/info/<pkg>[:<arch>].list, versions from <root>/status ---- */

/* A stanza of dpkg's status file: the fields a package's version needs,
 * pointing into the file's text (len bytes each, to the line's end). */
struct dpkg_stanza {
	const char *package, *arch, *version;
	size_t package_len, arch_len, version_len;
	bool installed;
};

static bool line_is(const char *line, size_t len, const char *prefix, size_t plen)
{
	return len >= plen && memcmp(line, prefix, plen) == 0;
}

/* The stanza of text that holds offset at (stanzas end at an empty line),
 * read line by line as dpkg writes it: the last "Package: " line names it. */
static void dpkg_stanza_at(const char *text, size_t len, size_t at, struct dpkg_stanza *s)
{
	size_t start = at, ls, le;

	while (start > 0 && !(text[start - 1] == '\n' && (start == 1 || text[start - 2] == '\n')))
		start--;
	memset(s, 0, sizeof(*s));
	for (ls = start; ls < len; ls = le + 1) {
		const char *nl = memchr(text + ls, '\n', len - ls);
		const char *line = text + ls;

		le = nl ? (size_t)(nl - text) : len;
		if (le == ls)
			break;
		if (line_is(line, le - ls, "Package: ", 9)) {
			s->package = line + 9;
			s->package_len = le - ls - 9;
		} else if (line_is(line, le - ls, "Architecture: ", 14)) {
			s->arch = line + 14;
			s->arch_len = le - ls - 14;
		} else if (line_is(line, le - ls, "Version: ", 9)) {
			s->version = line + 9;
			s->version_len = le - ls - 9;
		} else if (line_is(line, le - ls, "Status: ", 8)) {
			s->installed = le - ls >= 10 && memcmp(text + le - 10, " installed", 10) == 0;
		}
	}
}

static bool span_is(const char *p, size_t n, const char *s)
{
	return p && n == strlen(s) && memcmp(p, s, n) == 0;
}

/* The version of package (of arch, when the .list name has one) in the
 * status text: an installed stanza wins, else the first with a version;
 * malloc'd, "" when none. Only the stanzas that name the package are read:
 * the whole file (950 KB, 23,000 lines here) was parsed and sorted for the
 * one or two packages a report names (issue 29). */
static char *dpkg_version_of(const char *text, size_t len, const char *package, const char *arch)
{
	size_t plen = strlen(package);
	char *needle = gt_xmalloc(plen + 10), *out;
	const char *hit = text, *best = NULL, *done = NULL;
	size_t best_len = 0;
	struct dpkg_stanza st;

	memcpy(needle, "Package: ", 9);
	memcpy(needle + 9, package, plen + 1);
	for (; text && (hit = memmem(hit, len - (size_t)(hit - text), needle, plen + 9)) != NULL; hit++) {
		size_t at = (size_t)(hit - text), after = at + plen + 9;
		bool arch_ok;

		if ((at > 0 && text[at - 1] != '\n') || (after < len && text[after] != '\n'))
			continue;
		dpkg_stanza_at(text, len, at, &st);
		if (!st.package || st.package == done || !span_is(st.package, st.package_len, package))
			continue;
		done = st.package;  /* a stanza is judged once */
		arch_ok = !arch || span_is(st.arch, st.arch_len, arch);
		if (arch_ok && st.version && (st.installed || !best)) {
			best = st.version;
			best_len = st.version_len;
		}
		if (arch_ok && st.version && st.installed)
			break;
	}
	free(needle);
	out = gt_xmalloc(best_len + 1);
	memcpy(out, best ? best : "", best_len);
	out[best_len] = 0;
	return out;
}

static const char *dpkg_root(void)
{
	const char *root = getenv("GPUTRACE_DPKG_ROOT");

	return root && *root ? root : "/var/lib/dpkg";
}

/* dpkg owns the files its <root>/info/<package>.list files name: some 150,000 paths on a
 * workstation, in a thousand files. Indexing them all costs more than the
 * rest of a report together, for the few files a report asks about; so the
 * files asked about are collected (host_package_want) and found in one pass
 * over the lists, each line checked against them by its length and last
 * bytes before any hash. A file asked about later takes a pass of its own. */
struct dpkg_want {
	char *path;
	size_t len;
	uint64_t tail;     /* its last 8 bytes (fewer for a short path) */
	long owner;        /* in dpkg_owners; -1: no list names it */
	bool resolved;
};

static struct {
	struct dpkg_want *v;
	size_t n, cap, pending;
	struct path_index *owners;  /* the owners found (strings in its arena) */
	const char *status;         /* the status file, mapped; its text ends at status_len */
	size_t status_len, status_map_len;
	bool status_read;
	struct list_index *index;   /* which lists may name a path (list_index.h) */
	bool index_tried;
	uint64_t filter[1024];      /* bits of (length, tail) of the pending paths */
} dpkg;

static uint64_t tail_of(const char *s, size_t len)
{
	uint64_t t = 0;

	memcpy(&t, s + (len > 8 ? len - 8 : 0), len > 8 ? 8 : len);
	return t;
}

static size_t filter_bit(size_t len, uint64_t tail)
{
	return (size_t)(((tail ^ (len * 0x9E3779B97F4A7C15ULL)) * 0xff51afd7ed558ccdULL) >> 48) & 65535;
}

/* The wants by path: a table of positions in dpkg.v + 1 (0: empty), twice
 * as big as the wants, so that a report of 40,000 libraries does not compare
 * each new path with every earlier one (issue 29). */
static struct {
	size_t *slot;
	size_t cap;
} want_index;

static size_t want_hash(const char *path, size_t len)
{
	return (size_t)host_path_hash(path, len);
}

static void want_index_put(size_t pos)
{
	size_t k;

	for (k = want_hash(dpkg.v[pos].path, dpkg.v[pos].len) & (want_index.cap - 1); want_index.slot[k];
	     k = (k + 1) & (want_index.cap - 1))
		;
	want_index.slot[k] = pos + 1;
}

/* Room for one more want in the table (rebuilt twice as big when half full). */
static void want_index_grow(void)
{
	size_t i;

	if (2 * (dpkg.n + 1) <= want_index.cap)
		return;
	free(want_index.slot);
	want_index.cap = want_index.cap ? 2 * want_index.cap : 256;
	while (2 * (dpkg.n + 1) > want_index.cap)
		want_index.cap *= 2;
	want_index.slot = gt_xcalloc(want_index.cap, sizeof(*want_index.slot));
	for (i = 0; i < dpkg.n; i++)
		want_index_put(i);
}

static struct dpkg_want *dpkg_find_want(const char *path, size_t len)
{
	size_t k, pos;

	if (!want_index.cap)
		return NULL;
	for (k = want_hash(path, len) & (want_index.cap - 1); (pos = want_index.slot[k]) != 0;
	     k = (k + 1) & (want_index.cap - 1))
		if (dpkg.v[pos - 1].len == len && memcmp(dpkg.v[pos - 1].path, path, len) == 0)
			return &dpkg.v[pos - 1];
	return NULL;
}

static void dpkg_forget(void)
{
	size_t i;

	for (i = 0; i < dpkg.n; i++)
		free(dpkg.v[i].path);
	free(dpkg.v);
	if (dpkg.status)
		munmap((void *)dpkg.status, dpkg.status_map_len);
	list_index_free(dpkg.index);
	free(want_index.slot);
	memset(&want_index, 0, sizeof(want_index));
	memset(&dpkg, 0, sizeof(dpkg));  /* the owners' index goes with the others */
}

static void dpkg_add_want(const char *path)
{
	size_t len = strlen(path), bit;
	struct dpkg_want *w;

	/* What was found belongs to one dpkg root ($GPUTRACE_DPKG_ROOT may change). */
	if (dpkg.owners && strcmp(dpkg.owners->root, dpkg_root()) != 0)
		dpkg_forget();
	if (!len || dpkg_find_want(path, len))
		return;
	if (dpkg.n == dpkg.cap) {
		dpkg.cap = dpkg.cap ? 2 * dpkg.cap : 64;
		dpkg.v = gt_xrealloc(dpkg.v, dpkg.cap * sizeof(*dpkg.v));
	}
	want_index_grow();
	w = &dpkg.v[dpkg.n++];
	w->path = gt_xstrdup(path);
	w->len = len;
	w->tail = tail_of(path, len);
	w->owner = -1;
	w->resolved = false;
	want_index_put(dpkg.n - 1);
	bit = filter_bit(len, w->tail);
	dpkg.filter[bit / 64] |= 1ULL << (bit % 64);
	dpkg.pending++;
}

/* dpkg's status file, mapped read-only (read into memory, its 950 KB cost
 * more page faults than the rest of a diagnosis), the text cut at a NUL as
 * a string would be, at MAX_LIST_FILE as any list is. dpkg replaces the file
 * by a rename, never in place, so the mapping stays whole. */
static void dpkg_map_status(void)
{
	char path[PATH_MAX];
	struct stat st;
	void *m;
	int fd;

	dpkg.status_read = true;
	if (!in_dir(path, sizeof(path), dpkg_root(), "status"))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		dpkg.status_map_len = (size_t)st.st_size < MAX_LIST_FILE ? (size_t)st.st_size : MAX_LIST_FILE;
		m = mmap(NULL, dpkg.status_map_len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			dpkg.status = m;
			dpkg.status_len = strnlen(m, dpkg.status_map_len);
		}
	}
	close(fd);
}

/* The owner of the line, when it is a path asked about. */
static void dpkg_check_line(const char *line, size_t len, const char *record, const char *package,
			    const char *arch)
{
	uint64_t tail = tail_of(line, len);
	size_t bit = filter_bit(len, tail);
	struct dpkg_want *w;
	char *version;

	if (!(dpkg.filter[bit / 64] & (1ULL << (bit % 64))))
		return;
	/* the wants are one per path: the table finds the one */
	w = dpkg_find_want(line, len);
	if (!w || w->resolved || w->owner >= 0)
		return;
	if (!dpkg.status_read)
		dpkg_map_status();
	version = dpkg_version_of(dpkg.status, dpkg.status_len, package, arch);
	w->owner = index_owner(dpkg.owners, package, version, record);
	free(version);
}

static void dpkg_scan_list(const char *info, const char *file, char **buf, size_t *cap)
{
	char package[256], record[PATH_MAX], *arch;
	const char *line, *next;
	size_t len;

	if (snprintf(package, sizeof(package), "%.*s", (int)(strlen(file) - 5), file) >= (int)sizeof(package) ||
	    !in_dir(record, sizeof(record), info, file))
		return;
	arch = strchr(package, ':');
	if (arch)
		*arch++ = 0;
	if (!read_file_into(record, MAX_LIST_FILE, buf, cap, NULL))
		return;
	for (line = *buf; *line; line = next) {
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + len;
		if (line[0] == '/' && len > 1)
			dpkg_check_line(line, len, record, package, arch);
	}
}

/* Only the lists the index names for the paths asked about are read (each
 * once), and they confirm it: a path a list does not name has no owner. */
static void dpkg_scan_indexed(const char *info, char **buf, size_t *cap)
{
	const char *names[16], **done = NULL;
	size_t ndone = 0, i, k, j, n;

	for (i = 0; i < dpkg.n; i++) {
		if (dpkg.v[i].resolved || dpkg.v[i].owner >= 0)
			continue;
		n = list_index_lists(dpkg.index, dpkg.v[i].path, dpkg.v[i].len, names, 16);
		for (k = 0; k < n; k++) {
			for (j = 0; j < ndone && strcmp(done[j], names[k]) != 0; j++)
				;
			if (j < ndone || strchr(names[k], '/') || !ends_with(names[k], ".list"))
				continue;
			done = gt_xrealloc(done, (ndone + 1) * sizeof(*done));
			done[ndone++] = names[k];
			dpkg_scan_list(info, names[k], buf, cap);
		}
	}
	free(done);
}

/* Every list, for every path asked about and not yet found: where no index
 * can be had. */
static void dpkg_scan_all(const char *info, char **buf, size_t *cap)
{
	struct dirent *de;
	DIR *d = opendir(info);

	while (d && (de = readdir(d)) != NULL)
		if (ends_with(de->d_name, ".list") && strlen(de->d_name) > 5)
			dpkg_scan_list(info, de->d_name, buf, cap);
	if (d)
		closedir(d);
}

static void dpkg_resolve_pending(void)
{
	char info[PATH_MAX], *buf = NULL;
	size_t cap = 0, i;

	if (!dpkg.pending)
		return;
	if (!dpkg.owners)
		dpkg.owners = new_index("dpkg", dpkg_root());
	if (!dpkg.index_tried) {
		dpkg.index_tried = true;
		dpkg.index = list_index_get(LIST_DPKG, dpkg_root());
	}
	if (dpkg.owners && in_dir(info, sizeof(info), dpkg_root(), "info")) {
		if (dpkg.index)
			dpkg_scan_indexed(info, &buf, &cap);
		else
			dpkg_scan_all(info, &buf, &cap);
	}
	free(buf);
	for (i = 0; i < dpkg.n; i++)
		dpkg.v[i].resolved = true;
	memset(dpkg.filter, 0, sizeof(dpkg.filter));
	dpkg.pending = 0;
}


/* With merged /usr, /lib/x and /usr/lib/x are one file that a .list may spell either way. */
static bool other_usr_spelling(const char *path, char *out, size_t cap)
{
	static const char *const tops[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
	const char *rest = strncmp(path, "/usr/", 5) == 0 ? path + 4 : path;
	char a[32], b[32];
	struct stat sa, sb;
	size_t i, n;

	for (i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		n = strlen(tops[i]);
		if (rest[0] != '/' || strncmp(rest + 1, tops[i], n) != 0 || rest[n + 1] != '/')
			continue;
		snprintf(a, sizeof(a), "/%s", tops[i]);
		snprintf(b, sizeof(b), "/usr/%s", tops[i]);
		if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
			return false;
		return snprintf(out, cap, "%s%s", rest == path ? "/usr" : "", rest) < (int)cap;
	}
	return false;
}

static const struct owner *dpkg_owner_of(const char *path)
{
	struct dpkg_want *w;

	if (dpkg.owners && strcmp(dpkg.owners->root, dpkg_root()) != 0)
		dpkg_forget();
	w = dpkg_find_want(path, strlen(path));
	if (!w || !w->resolved) {
		dpkg_add_want(path);
		dpkg_resolve_pending();
		w = dpkg_find_want(path, strlen(path));
	}
	return w && w->owner >= 0 ? &dpkg.owners->owners[w->owner] : NULL;
}

static const struct owner *dpkg_owner(const char *abs)
{
	const struct owner *o = dpkg_owner_of(abs);
	char other[PATH_MAX];

	if (!o && other_usr_spelling(abs, other, sizeof(other)))
		o = dpkg_owner_of(other);
	return o;
}

static void dpkg_want_spellings(const char *abs)
{
	char other[PATH_MAX];

	dpkg_add_want(abs);
	if (other_usr_spelling(abs, other, sizeof(other)))
		dpkg_add_want(other);
}

void host_package_want(const char *path)
{
	char abs[PATH_MAX], real[PATH_MAX];

	if (!path || !*path || !absolute_path(path, abs, sizeof(abs)))
		return;
	dpkg_want_spellings(abs);
	if (host_real_path(path, real) && strcmp(real, abs) != 0)
		dpkg_want_spellings(real);
}

/* ---- lookup ---- */

typedef const struct owner *(*owner_fn)(const char *abs);

/* Tries the path as given, then its realpath (a wheel's file reached through a link). */
static const struct owner *owner_of(owner_fn fn, const char *abs, const char *real)
{
	const struct owner *o = fn(abs);

	if (!o && real[0] && strcmp(real, abs) != 0)
		o = fn(real);
	return o;
}

/* pip first, conda for a dist-info conda installed, dpkg last; with
 * pip_only, no dpkg: its answer could not be pip's. */
static bool package_of(const char *path, struct host_package *out, bool pip_only)
{
	char abs[PATH_MAX], real[PATH_MAX];
	const struct owner *pip, *o;

	memset(out, 0, sizeof(*out));
	if (!path || !*path || !absolute_path(path, abs, sizeof(abs)))
		return false;
	if (!host_real_path(path, real))
		real[0] = 0;
	pip = owner_of(pip_owner, abs, real);
	if (pip && !pip->by_conda) {
		fill_package(out, "pip", pip);
		return true;
	}
	if (pip_only && !pip)
		return false;
	if ((o = owner_of(conda_owner, abs, real)) != NULL) {
		fill_package(out, "conda", o);
		return true;
	}
	if (pip) {
		fill_package(out, "pip", pip);
		return true;
	}
	if (!pip_only && (o = owner_of(dpkg_owner, abs, real)) != NULL) {
		fill_package(out, "dpkg", o);
		return true;
	}
	return false;
}

bool host_package_of(const char *path, struct host_package *out)
{
	return package_of(path, out, false);
}

bool host_pip_package_of(const char *path, struct host_package *out)
{
	return package_of(path, out, true) && strcmp(out->manager, "pip") == 0;
}

void host_package_cache_free(void)
{
	struct path_index *ix, *next;

	dpkg_forget();
	host_real_path_forget();
	host_memo_free(&conda_roots);

	for (ix = indexes; ix; ix = next) {
		next = ix->next;
		index_free(ix);
	}
	indexes = NULL;
}
