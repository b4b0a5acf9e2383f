/* /etc/ld.so.cache, read directly (no library offers it): the names the
 * loader finds through the cache, and where. Both glibc formats: the old
 * "ld.so-1.7.0" (possibly followed by the new) and "glibc-ld.so.cache1.1". */
#ifndef GPUTRACE_LDCACHE_H
#define GPUTRACE_LDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct host_ldcache_entry {
	char *name;        /* the key: a SONAME such as "libcudnn.so.9" */
	char *path;        /* the file the loader opens for it */
	int32_t flags;     /* glibc's FLAG_* bits: ELF class and machine (FLAG_X8664_LIB64 = 0x0300 | FLAG_ELF_LIBC6 = 3) */
	uint64_t hwcap;    /* new format: hwcap bits / glibc-hwcaps subfolder index, else 0 */
	const char *hwcaps; /* an entry for a glibc-hwcaps subfolder: its name ("x86-64-v3"), else NULL */
	unsigned isa_level; /* ... and the x86 ISA level the file is marked with (0: baseline) */
};

struct host_ldcache {
	struct host_ldcache_entry *entries;
	size_t n;
	bool new_format;
};

/* Parses a cache from memory. False, with a one-line reason in err, for
 * anything that is not a well-formed cache; never reads outside buf. */
bool host_ldcache_parse(const unsigned char *buf, size_t len, struct host_ldcache *out, char *err, size_t errcap);
/* Reads and parses the file (normally "/etc/ld.so.cache"). */
bool host_ldcache_read(const char *path, struct host_ldcache *out, char *err, size_t errcap);
/* The entry the loader would take for name on x86-64 (64-bit libc6 entries;
 * the first match in the cache's order), or NULL. */
const struct host_ldcache_entry *host_ldcache_lookup(const struct host_ldcache *c, const char *name);
/* The entry ld.so 2.36 takes for name (dl-cache.c's search_cache): of the
 * entries for glibc-hwcaps subfolders, the one whose subfolder comes first in
 * hwcaps (this CPU's names, best first, as `ld.so --help` lists them), else
 * the first plain entry. NULL when there is none. */
const struct host_ldcache_entry *host_ldcache_choose(const struct host_ldcache *c, const char *name,
						    const char *const *hwcaps, size_t nhwcaps);
void host_ldcache_free(struct host_ldcache *c);

#endif
