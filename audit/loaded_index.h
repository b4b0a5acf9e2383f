/* The objects the loader has mapped, indexed by file, for the one question a
 * search that mapped nothing leaves: is its file already loaded (the loader
 * knows a file it mapped by device and inode, and then maps nothing)? A walk
 * of the link map with a stat of each object cost 2.4 ms a question with
 * 3,000 objects loaded (issue 29); here each object is stat'ed once in its
 * life, at the first such question after it was mapped, and the answer is a
 * hash lookup. Loader callbacks only (under the loader's lock): no lock of
 * its own, no malloc. */
#ifndef GPUTRACE_AUDIT_LOADED_INDEX_H
#define GPUTRACE_AUDIT_LOADED_INDEX_H

#include <link.h>
#include <stdbool.h>
#include <stdint.h>

/* la_objopen: map is loaded in namespace lmid; asked is the bare name a
 * search asked for and found it by (the loader then knows the object by
 * that name too), or NULL; soname its DT_SONAME (in its own string table,
 * kept while it is loaded), or NULL. */
void loaded_index_add(const struct link_map *map, Lmid_t lmid, const char *asked, const char *soname);
/* What the loader knows map by besides its path, for matching a DT_NEEDED
 * name (audit/no_search.c): its SONAME (in its own string table) and the
 * bare name a search found it by, each with its hash
 * (loaded_index_name_hash; 0: none). The end of a load phase asks this of
 * many objects for many names: reading the SONAME from the dynamic section
 * each time was ~2.7 M instructions of Debian's import torch, and comparing
 * each name whole with the SONAME and the file's name ~3.9 M (issue 29). */
struct loaded_names {
	const char *soname;
	uint64_t soname_hash, asked_hash;
};
/* Is map in the index? Then *out says its names. */
bool loaded_index_names(const struct link_map *map, struct loaded_names *out);
/* The hash the index keeps of a name; never 0. */
uint64_t loaded_index_name_hash(const char *name);
/* la_objclose: map is going; it is still found until
 * loaded_index_forget_closed (its address may be reused by a later object). */
void loaded_index_remove(const struct link_map *map);
/* la_activity(LA_ACT_CONSISTENT), after the open search was ended: the
 * objects closed since are gone. */
void loaded_index_forget_closed(void);
/* The loaded object of requester's namespace that is the file at path (by
 * device and inode), or NULL. Only objects named by an absolute path count,
 * as for the loader. requester NULL: none. */
const struct link_map *loaded_index_find(const char *path, const struct link_map *requester);

#endif
