/* The floor of the benchmarks: an LD_AUDIT module that does nothing but
 * return what the loader gave it. What a program pays under it is the cost
 * of the rtld-audit mechanism itself (a second link-map namespace, the
 * loader's calls into it), which no audit-based tracer can go below. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>

unsigned int la_version(unsigned int version);
char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag);
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie);
unsigned int la_objclose(uintptr_t *cookie);
void la_activity(uintptr_t *cookie, unsigned int flag);

unsigned int la_version(unsigned int version)
{
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	(void)flag;
	return (char *)name;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)map;
	(void)lmid;
	(void)cookie;
	return 0;
}

unsigned int la_objclose(uintptr_t *cookie)
{
	(void)cookie;
	return 0;
}

void la_activity(uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	(void)flag;
}
