/* Forgets what host/ kept (see caches.h). Its own file: package.c cannot
 * call framework.c, which calls it. */
#include "host/caches.h"

#include "host/dir_listing.h"
#include "host/framework.h"
#include "host/package.h"
#include "host/resolve.h"

void host_caches_free(void)
{
	host_package_cache_free();
	host_framework_cache_free();
	host_dir_listing_free();
	host_resolve_cache_free();
}
