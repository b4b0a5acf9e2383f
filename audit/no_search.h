/* DT_NEEDED names the loader took from an object already loaded, with no
 * search: first loaded wins. _dl_map_object compares a name with every
 * loaded object of the namespace (its names and its SONAME) before it calls
 * la_objsearch, so such a name leaves no callback at all. What is left is
 * the absence: at the end of a load phase, each DT_NEEDED of the objects the
 * phase mapped that no LA_SER_ORIG search asked for was met by a loaded
 * object (cupy's libnccl.so.2 for torch's libtorch_cuda.so). Loader callbacks
 * only (under the loader's lock): fixed tables, no malloc, no system call. */
#ifndef GPUTRACE_AUDIT_NO_SEARCH_H
#define GPUTRACE_AUDIT_NO_SEARCH_H

#include <link.h>
#include <stdbool.h>

/* la_objopen: map's DT_NEEDED are to be checked at the end of the phase. */
void no_search_opened(const struct link_map *map, Lmid_t lmid);
/* la_objsearch LA_SER_ORIG: requester searched for name. */
void no_search_searched(const struct link_map *requester, const char *name);
/* la_objclose: map is gone (a phase undone before its end was seen). */
void no_search_closed(const struct link_map *map);

/* What the conclusion found: requester's DT_NEEDED name was met by `by`. */
typedef void (*no_search_report_fn)(const struct link_map *requester, const char *name,
				    const struct link_map *by);
/* The end of a load phase (LA_ACT_CONSISTENT, or LA_ACT_DELETE when the
 * loader undoes a failed load): reports each DT_NEEDED of the phase's objects
 * that no search asked for, and forgets the phase. Returns true when some
 * object of the phase could not be kept (more than the table holds): its
 * names went unchecked. */
bool no_search_conclude(no_search_report_fn report);

/* The strings of a mapped object's dynamic section (the loader has rebased
 * DT_STRTAB in place on x86-64, but not in read-only sections: the vDSO). */
const char *no_search_strtab(const struct link_map *map);
/* DT_SONAME of a mapped object, or NULL. */
const char *no_search_soname(const struct link_map *map);

/* The value of `tag` in a map's dynamic section, or `none` (audit.c uses it too). */
ElfW(Addr) audit_dyn_value(const struct link_map *map, ElfW(Sxword) tag, ElfW(Addr) none);

#endif
