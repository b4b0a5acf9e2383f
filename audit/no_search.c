/* The DT_NEEDED names a load phase met with objects already loaded (see
 * no_search.h). Each object mapped in the phase keeps a bit per DT_NEEDED
 * entry (the first 64), set when a search for that name from it begins; at
 * the phase's end an unset bit is a name the loader matched without asking,
 * and the object it matched is found the loader's way: the first of the
 * namespace, in link-map order, named so or with that SONAME. */
#define _GNU_SOURCE
#include "audit/no_search.h"
#include "audit/loaded_index.h"

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define MAX_PENDING 4096
#define MAX_NEEDED_BITS 64

struct pending {
	const struct link_map *map;  /* NULL: closed before the phase ended */
	uint64_t searched;           /* bit i: DT_NEEDED entry i was searched for */
};

static struct pending pending[MAX_PENDING];
static unsigned int n_pending;
static bool overflow;

ElfW(Addr) audit_dyn_value(const struct link_map *map, ElfW(Sxword) tag, ElfW(Addr) none)
{
	const ElfW(Dyn) *d;

	if (!map || !map->l_ld)
		return none;
	for (d = map->l_ld; d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return d->d_un.d_val;
	return none;
}

const char *no_search_strtab(const struct link_map *map)
{
	ElfW(Addr) strtab = audit_dyn_value(map, DT_STRTAB, 0);

	if (!strtab)
		return NULL;
	if (strtab < map->l_addr)
		strtab += map->l_addr;
	return (const char *)strtab;
}

const char *no_search_soname(const struct link_map *map)
{
	const char *strtab = no_search_strtab(map);
	ElfW(Addr) off = audit_dyn_value(map, DT_SONAME, (ElfW(Addr))-1);

	return strtab && off != (ElfW(Addr))-1 ? strtab + off : NULL;
}

void no_search_opened(const struct link_map *map, Lmid_t lmid)
{
	(void)lmid;  /* the namespace is the link map's own list */
	if (!map || !map->l_ld)
		return;
	if (n_pending == MAX_PENDING) {
		overflow = true;
		return;
	}
	pending[n_pending++] = (struct pending){ .map = map };
}

static struct pending *pending_of(const struct link_map *map)
{
	unsigned int i;

	/* The requester of a DT_NEEDED search is usually the object mapped last. */
	for (i = n_pending; i-- > 0;)
		if (pending[i].map == map)
			return &pending[i];
	return NULL;
}

void no_search_searched(const struct link_map *requester, const char *name)
{
	struct pending *p = requester ? pending_of(requester) : NULL;
	const char *strtab;
	const ElfW(Dyn) *d;
	unsigned int i = 0;

	if (!p || !(strtab = no_search_strtab(requester)))
		return;
	for (d = requester->l_ld; d->d_tag != DT_NULL && i < MAX_NEEDED_BITS; d++) {
		if (d->d_tag != DT_NEEDED)
			continue;
		if (strcmp(strtab + d->d_un.d_val, name) == 0)
			p->searched |= (uint64_t)1 << i;
		i++;
	}
}

void no_search_closed(const struct link_map *map)
{
	struct pending *p = pending_of(map);

	if (p)
		p->map = NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A DT_NEEDED name being matched, with its hash (loaded_index_name_hash):
 * most objects differ from it in the hashes of their names alone. */
struct wanted {
	const char *name;
	uint64_t hash;
};

static struct wanted wanted(const char *name)
{
	return (struct wanted){ name, loaded_index_name_hash(name) };
}

/* The loader's match (_dl_name_match_p, then the SONAME): its path, the
 * bare name a search found it by, its SONAME. An object loaded by path is
 * not known by its file name alone. */
static bool answers_to(const struct link_map *m, const struct wanted *w)
{
	struct loaded_names names;
	const char *soname;

	if (m->l_name && m->l_name[0] && strcmp(m->l_name, w->name) == 0)
		return true;
	if (!loaded_index_names(m, &names)) {  /* not indexed: its own dynamic section */
		soname = no_search_soname(m);
		return soname && strcmp(soname, w->name) == 0;
	}
	if (names.asked_hash == w->hash && !strchr(w->name, '/') && m->l_name &&
	    strcmp(base_name(m->l_name), w->name) == 0)
		return true;
	return names.soname_hash == w->hash && names.soname && strcmp(names.soname, w->name) == 0;
}

static const struct link_map *namespace_head(const struct link_map *m)
{
	while (m->l_prev)
		m = m->l_prev;
	return m;
}

/* The first object of the namespace (from head) that answers to name, or
 * NULL. */
static const struct link_map *first_answering(const struct link_map *head, const struct wanted *w)
{
	const struct link_map *m;

	for (m = head; m; m = m->l_next)
		if (answers_to(m, w))
			return m;
	return NULL;
}

/* The first answers of one conclusion, by namespace and name. The link map
 * does not change while a phase is concluded (the loader's lock), and the
 * objects of a phase need the same few names (libc.so.6, libstdc++.so.6):
 * without it each name cost a walk of the namespace per object (~1.8 of the
 * ~5.5 ms our callbacks spent in Debian's `import torch` on the build VM,
 * issue 29; bench/README.md section 18). A generation number empties it at
 * each conclusion. */
#define MEMO_SLOTS 512
#define MEMO_PROBES 8
static struct {
	unsigned int gen;
	const struct link_map *head, *first;
	const char *name;
} memo[MEMO_SLOTS];
static unsigned int memo_gen;

static const struct link_map *first_answering_memo(const struct link_map *head, const struct wanted *w)
{
	unsigned int k, slot;

	for (k = 0; k < MEMO_PROBES; k++) {
		slot = ((unsigned int)w->hash + k) & (MEMO_SLOTS - 1);
		if (memo[slot].gen != memo_gen) {
			memo[slot].gen = memo_gen;
			memo[slot].head = head;
			memo[slot].name = w->name;
			memo[slot].first = first_answering(head, w);
			return memo[slot].first;
		}
		if (memo[slot].head == head && strcmp(memo[slot].name, w->name) == 0)
			return memo[slot].first;
	}
	return first_answering(head, w);  /* the probes are full: no memo */
}

/* The first object of requester's namespace, other than requester, that
 * answers to name (head: the namespace's first object). The first of all
 * that answer is the answer unless it is requester itself. */
static const struct link_map *loaded_by_name(const struct link_map *requester, const struct link_map *head,
					     const char *name)
{
	struct wanted w = wanted(name);
	const struct link_map *m = first_answering_memo(head, &w);

	if (m != requester)
		return m;
	for (m = requester->l_next; m; m = m->l_next)
		if (answers_to(m, &w))
			return m;
	return NULL;
}

static void conclude_one(const struct pending *p, no_search_report_fn report)
{
	const char *strtab = no_search_strtab(p->map), *name;
	const struct link_map *by, *head;
	const ElfW(Dyn) *d;
	unsigned int i = 0;

	if (!strtab)
		return;
	head = namespace_head(p->map);
	for (d = p->map->l_ld; d->d_tag != DT_NULL && i < MAX_NEEDED_BITS; d++) {
		if (d->d_tag != DT_NEEDED)
			continue;
		name = strtab + d->d_un.d_val;
		/* A name the loader never reached (the load failed before it)
		 * answers to no object, and is not reported. */
		if (!(p->searched & ((uint64_t)1 << i)) && (by = loaded_by_name(p->map, head, name)) != NULL)
			report(p->map, name, by);
		i++;
	}
}

bool no_search_conclude(no_search_report_fn report)
{
	bool cut = overflow;
	unsigned int i;

	memo_gen++;
	if (memo_gen == 0) {  /* wrapped: slots of generation 0 would read as filled */
		memset(memo, 0, sizeof(memo));
		memo_gen = 1;
	}
	for (i = 0; i < n_pending; i++)
		if (pending[i].map)
			conclude_one(&pending[i], report);
	n_pending = 0;
	overflow = false;
	return cut;
}
