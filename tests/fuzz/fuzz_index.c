/* libFuzzer target: any bytes as an installer's list (a pip RECORD or a dpkg
 * .list) for host/list_index.c, and any bytes laid over the index file it
 * saved. Those files are not ours: a site-packages folder is often writable
 * by anyone who can pip install, and the cache folder by the user.
 *
 * Input: byte 0 picks the kind (bit 0: dpkg, else pip) and whether the saved
 * index is spoiled (bit 1); then the list's text up to the first NUL; after
 * it, the bytes XORed onto the saved index from its counts on (offset
 * COUNTS_AT: the header's magic, version and identity stay, so that the
 * spoiled file is still taken for this folder's and its sizes are read).
 *
 * What must hold, beyond no crash, leak or hang:
 * - the index made now and the same index read back from disk answer every
 *   question alike;
 * - every path the list plainly names (a dpkg line from '/', a RECORD line
 *   whose first field is not quoted) is found in that list;
 * - a spoiled index file is either refused (made again) or read without
 *   reading outside it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/list_index.h"
#include "tests/fuzz/fuzz_files.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* magic[8], format, entry_size, the watched folder's mtime (2 x 8), dev,
 * ino, the root's hash: 56 bytes; then n_entries, n_lists, names_len and
 * the body (host/list_index.c's struct index_header). */
#define COUNTS_AT 56
#define MAX_ANSWERS 8

/* Says which property broke: a crash log names it. */
static void fail(const char *why)
{
	fprintf(stderr, "fuzz_index: %s\n", why);
	abort();
}

static char top[64], cache[96], site[96], record[160], dpkg_root[96], dpkg_list[160];

static void remove_top(void)
{
	fuzz_remove_tree(top);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[PATH_MAX];

	(void)argc;
	(void)argv;
	snprintf(top, sizeof(top), "/tmp/fuzz_index.XXXXXX");
	if (!mkdtemp(top))
		abort();
	snprintf(cache, sizeof(cache), "%s/cache", top);
	snprintf(site, sizeof(site), "%s/site", top);
	snprintf(record, sizeof(record), "%s/a-1.0.dist-info/RECORD", site);
	snprintf(dpkg_root, sizeof(dpkg_root), "%s/dpkg", top);
	snprintf(dpkg_list, sizeof(dpkg_list), "%s/info/x.list", dpkg_root);
	snprintf(path, sizeof(path), "%s/a-1.0.dist-info", site);
	if (mkdir(cache, 0700) || mkdir(site, 0700) || mkdir(path, 0700) || mkdir(dpkg_root, 0700))
		abort();
	snprintf(path, sizeof(path), "%s/info", dpkg_root);
	if (mkdir(path, 0700))
		abort();
	/* GPUTRACE_CACHE_DIR: every index is saved there, whatever its size */
	setenv("GPUTRACE_CACHE_DIR", cache, 1);
	atexit(remove_top);
	return 0;
}

/* The one index file in the cache folder: its path, false when none. */
static int saved_index(char *out, size_t cap)
{
	struct dirent *de;
	DIR *d = opendir(cache);
	int found = 0;

	while (d && (de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".idx") && !strstr(de->d_name, ".idx.")) {
			snprintf(out, cap, "%s/%s", cache, de->d_name);
			found++;
		}
	if (d)
		closedir(d);
	return found == 1;
}

/* A path the list names in plain words, or NULL: dpkg's whole line; a
 * RECORD's first field where it is not quoted, less a "./". */
static const char *plain_path(int dpkg, const char *line, size_t len, size_t *n)
{
	if (dpkg) {
		*n = len;
		return line[0] == '/' && len >= 2 ? line : NULL;
	}
	if (line[0] == '"')
		return NULL;
	*n = strcspn(line, ",\r\n");
	if (*n > len)
		*n = len;
	if (*n >= 2 && line[0] == '.' && line[1] == '/') {
		line += 2;
		*n -= 2;
	}
	return *n ? line : NULL;
}

static void ask_both(const struct list_index *made, const struct list_index *read_back, const char *q,
		     size_t n, const char *list_name, const char *list_path, int must_find)
{
	const char *a[MAX_ANSWERS], *b[MAX_ANSWERS];
	size_t na = list_index_lists(made, q, n, a, MAX_ANSWERS), nb, i;
	int found = 0;

	for (i = 0; i < na; i++) {
		found |= strcmp(a[i], list_name) == 0;
		(void)list_index_list_unchanged(made, a[i], list_path);
	}
	if (must_find && !found)
		fail("a path the list names, not found in it");
	if (!read_back)
		return;
	nb = list_index_lists(read_back, q, n, b, MAX_ANSWERS);
	if (na != nb)
		fail("made and read back differ");
	for (i = 0; i < nb; i++) {
		if (strcmp(a[i], b[i]) != 0)
			fail("made and read back name other lists");
		(void)list_index_list_unchanged(read_back, b[i], list_path);
	}
}

/* Every line of text asked of the index (and of the one read back). */
static void ask_lines(int dpkg, const char *text, const struct list_index *made, const struct list_index *read_back,
		      int plain_must_be_found)
{
	const char *list_name = dpkg ? "x.list" : "a-1.0.dist-info", *list_path = dpkg ? dpkg_list : record;
	const char *line, *next, *q;
	size_t len, n;

	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + len;
		ask_both(made, read_back, line, len, list_name, list_path, 0);
		q = plain_path(dpkg, line, len, &n);
		/* past PATH_MAX the index holds the path cut short */
		if (q)
			ask_both(made, read_back, q, n, list_name, list_path, plain_must_be_found && n < PATH_MAX - 1);
	}
}

/* The saved index with the spoiling bytes XORed on from COUNTS_AT; then
 * whatever list_index_get makes of it. */
static void spoil_and_read(int dpkg, const char *text, const uint8_t *spoil, size_t spoil_len)
{
	char path[PATH_MAX];
	struct list_index *ix;
	struct stat st;
	uint8_t *bytes;
	size_t i;
	int fd;

	if (!saved_index(path, sizeof(path)) || stat(path, &st) != 0 || (size_t)st.st_size <= COUNTS_AT)
		return;
	bytes = malloc((size_t)st.st_size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!bytes || fd < 0 || read(fd, bytes, (size_t)st.st_size) != st.st_size)
		fail("cannot read the saved index");
	close(fd);
	for (i = 0; i < spoil_len && COUNTS_AT + i < (size_t)st.st_size; i++)
		bytes[COUNTS_AT + i] ^= spoil[i];
	fuzz_write_file(path, bytes, (size_t)st.st_size);
	free(bytes);
	ix = list_index_get(dpkg ? LIST_DPKG : LIST_PIP, dpkg ? dpkg_root : site);
	if (!ix)
		fail("no index of a spoiled file");
	/* refused and made again, or taken: either way asked without a crash;
	 * a taken file's answers may be wrong (it is spoiled), never unsafe */
	ask_lines(dpkg, text, ix, NULL, 0);
	list_index_free(ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int dpkg, spoil;
	const uint8_t *nul;
	struct list_index *made, *read_back;
	char *text;
	size_t text_len;

	if (size < 1)
		return 0;
	dpkg = data[0] & 1;
	spoil = data[0] & 2;
	data++;
	size--;
	nul = memchr(data, 0, size);
	text_len = nul ? (size_t)(nul - data) : size;
	text = malloc(text_len + 1);
	if (!text)
		fail("out of memory");
	memcpy(text, data, text_len);
	text[text_len] = 0;

	fuzz_remove_files(cache, ".idx"); /* every index saved so far */
	fuzz_write_file(dpkg ? dpkg_list : record, text, text_len);
	made = list_index_get(dpkg ? LIST_DPKG : LIST_PIP, dpkg ? dpkg_root : site);
	if (!made || list_index_from_disk(made))
		fail("no index made afresh (the folder is there, its saved index was removed)");
	read_back = list_index_get(dpkg ? LIST_DPKG : LIST_PIP, dpkg ? dpkg_root : site);
	if (!read_back || !list_index_from_disk(read_back))
		fail("the index the first call saved (GPUTRACE_CACHE_DIR) was not read back");
	ask_lines(dpkg, text, made, read_back, 1);
	list_index_free(made);
	list_index_free(read_back);
	if (spoil && nul)
		spoil_and_read(dpkg, text, nul + 1, size - text_len - 1);
	free(text);
	return 0;
}
