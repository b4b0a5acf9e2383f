/* Which CUDA-family objects are in the global scope, asked once at exit.
 *
 * Two copies of one library in a process are harmless while each is private
 * to the code that loaded it (RTLD_LOCAL), and dangerous when one is in the
 * global scope (LD_PRELOAD, a DT_NEEDED of the program, RTLD_GLOBAL): the
 * loader looks there first for every symbol of every object, so calls meant
 * for the other copy bind to it. The dlopen mode is the caller's and is not
 * in the public link map; the audit half never sees it. A lookup in the
 * default scope answers the question without wrapping dlopen: the object
 * that defines a library's version symbol there is in the global scope.
 *
 * Only at exit: a default-scope lookup can add a dependency from this
 * library to the object found (which then stays mapped until exit), and at
 * exit that no longer changes anything. Version symbols only: gputrace
 * defines the hooked ones itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <limits.h>

#include "common/family.h"
#include "common/jline.h"
#include "gputrace/trace_format.h"
#include "preload/preload.h"

static const char *const global_symbols[] = {
	"cudnnGetVersion", "cublasGetProperty", "cublasLtGetVersion",
	"cudaRuntimeGetVersion", "cuDriverGetVersion", "ncclGetVersion",
};

static void write_global(const char *fn, const char *lib)
{
	char buf[PATH_MAX + 256];
	struct jline j;

	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_GLOBAL));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_str(&j, GT_K_FN, fn);
	jl_str(&j, GT_K_LIB, lib);
	preload_write(buf, jl_end(&j));
}

/* Is any CUDA-family object loaded? Only such an object can get a line, and
 * in a process without one the six failing default-scope lookups cost about
 * 0.2 ms at every exit (each failure builds an error string: malloc in both
 * libcs), most of what a traced exec of /bin/true added (bench/exec_fork.sh). */
static bool cuda_family_loaded(void)
{
	struct gt_family_info fi;
	struct link_map *m;

	for (m = preload_link_map_head(); m; m = m->l_next)
		if (m->l_name && m->l_name[0] == '/' && gt_classify(m->l_name, &fi))
			return true;
	return false;
}

void preload_global_scope_at_exit(void)
{
	struct gt_family_info fi;
	struct link_map *map;
	Dl_info info;
	size_t i;
	void *sym;

	if (!preload_tracing() || !cuda_family_loaded())
		return;
	for (i = 0; i < sizeof(global_symbols) / sizeof(global_symbols[0]); i++) {
		sym = preload_dlsym(RTLD_DEFAULT, global_symbols[i]);
		map = NULL;
		if (sym && dladdr1(sym, &info, (void **)&map, RTLD_DL_LINKMAP) && map && map->l_name &&
		    map->l_name[0] == '/' && gt_classify(map->l_name, &fi))
			write_global(global_symbols[i], map->l_name);
	}
}
