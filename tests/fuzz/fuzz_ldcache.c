/* libFuzzer target: any bytes as an ld.so.cache (host/ldcache.c). A parsed cache
 * must hold only terminated strings that lookups can walk. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/ldcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host_ldcache c;
	char err[128];

	if (host_ldcache_parse(data, size, &c, err, sizeof(err))) {
		size_t total = 0;

		for (size_t i = 0; i < c.n; i++)
			total += strlen(c.entries[i].name) + strlen(c.entries[i].path);
		if (c.n)
			(void)host_ldcache_lookup(&c, c.entries[c.n - 1].name);
		(void)host_ldcache_lookup(&c, "libc.so.6");
		if (total == (size_t)-1)
			abort(); /* keeps the walk from being optimised away */
	} else if (!err[0] || memchr(err, '\n', strlen(err))) {
		abort(); /* a failure must give one line saying why */
	}
	host_ldcache_free(&c);
	return 0;
}
