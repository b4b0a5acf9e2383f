/* The index of loaded objects (see loaded_index.h): an array of the objects
 * in the order they were mapped and two open-addressing tables of positions
 * in it, one by link_map address, one by (device, inode). The objects past
 * `statted` are not in the second table yet: a question stats them first,
 * each once. Memory comes from mmap and grows by doubling; unloaded objects
 * stay as dead entries until the next growth drops them. */
#define _GNU_SOURCE
#include "audit/loaded_index.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

struct loaded_obj {
	const struct link_map *map;   /* NULL: unloaded */
	Lmid_t lmid;
	dev_t dev;
	ino_t ino;
	bool has_file;                /* stat'ed, and its file is in by_file */
	bool closing;                 /* la_objclose came: gone at the next consistent state */
	uint64_t asked;               /* hash of the bare name a search found it by, 0: none */
	const char *soname;           /* its DT_SONAME, or NULL */
	uint64_t soname_hash;         /* its hash, 0: none */
};

static struct loaded_obj *objs;
static uint32_t n_objs, cap;      /* cap: entries of objs; each table has 2 * cap slots */
static uint32_t statted;          /* objs[0, statted) have been stat'ed */
/* Slots hold a position + 1; 0 is empty. */
static uint32_t *by_map, *by_file;

static uint32_t mask(void)
{
	return 2 * cap - 1;
}

static uint32_t hash_map(const struct link_map *map)
{
	return (uint32_t)(((uintptr_t)map >> 4) * 0x9e3779b97f4a7c15ULL >> 32);
}

static uint32_t hash_file(dev_t dev, ino_t ino)
{
	return (uint32_t)(((uint64_t)ino * 0x9e3779b97f4a7c15ULL ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4fULL) >> 32);
}

static void put(uint32_t *table, uint32_t h, uint32_t pos)
{
	while (table[h & mask()])
		h++;
	table[h & mask()] = pos + 1;
}

static void *map_zeroed(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Room for one more object: the live ones are moved into arrays twice as big
 * as they need, the tables rebuilt. False when memory is refused (the object
 * is then left out: its searches read "not found" rather than break). */
static bool make_room(void)
{
	uint32_t live = 0, new_cap = cap ? cap : 256, i, j, new_statted = 0;
	struct loaded_obj *new_objs;
	uint32_t *new_by_map, *new_by_file;

	if (n_objs < cap)
		return true;
	for (i = 0; i < n_objs; i++)
		live += objs[i].map != NULL;
	while (new_cap < 2 * (live + 1))
		new_cap *= 2;
	new_objs = map_zeroed(new_cap * sizeof(*new_objs));
	new_by_map = map_zeroed(2 * new_cap * sizeof(uint32_t));
	new_by_file = map_zeroed(2 * new_cap * sizeof(uint32_t));
	if (!new_objs || !new_by_map || !new_by_file) {
		if (new_objs)
			munmap(new_objs, new_cap * sizeof(*new_objs));
		if (new_by_map)
			munmap(new_by_map, 2 * new_cap * sizeof(uint32_t));
		if (new_by_file)
			munmap(new_by_file, 2 * new_cap * sizeof(uint32_t));
		return false;
	}
	for (i = j = 0; i < n_objs; i++) {
		if (!objs[i].map)
			continue;
		new_objs[j] = objs[i];
		if (i < statted)
			new_statted = j + 1;
		j++;
	}
	if (objs) {
		munmap(objs, cap * sizeof(*objs));
		munmap(by_map, 2 * cap * sizeof(uint32_t));
		munmap(by_file, 2 * cap * sizeof(uint32_t));
	}
	objs = new_objs;
	by_map = new_by_map;
	by_file = new_by_file;
	cap = new_cap;
	n_objs = j;
	statted = new_statted;
	for (i = 0; i < n_objs; i++) {
		put(by_map, hash_map(objs[i].map), i);
		if (objs[i].has_file)
			put(by_file, hash_file(objs[i].dev, objs[i].ino), i);
	}
	return true;
}

/* FNV-1a, never 0 (0 says "none"). */
uint64_t loaded_index_name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ULL;
	return h ? h : 1;
}

void loaded_index_add(const struct link_map *map, Lmid_t lmid, const char *asked, const char *soname)
{
	if (!map || !make_room())
		return;
	objs[n_objs] = (struct loaded_obj){ .map = map, .lmid = lmid, .soname = soname,
					    .soname_hash = soname ? loaded_index_name_hash(soname) : 0,
					    .asked = asked && !strchr(asked, '/') ? loaded_index_name_hash(asked) : 0 };
	put(by_map, hash_map(map), n_objs);
	n_objs++;
}

/* The live entry of map, or NULL. */
static struct loaded_obj *entry_of(const struct link_map *map)
{
	uint32_t h, slot;

	if (!cap || !map)
		return NULL;
	for (h = hash_map(map); (slot = by_map[h & mask()]) != 0; h++)
		if (objs[slot - 1].map == map)
			return &objs[slot - 1];
	return NULL;
}

bool loaded_index_names(const struct link_map *map, struct loaded_names *out)
{
	const struct loaded_obj *o = entry_of(map);

	if (!o)
		return false;
	*out = (struct loaded_names){ .soname = o->soname, .soname_hash = o->soname_hash, .asked_hash = o->asked };
	return true;
}

static uint32_t n_closing;

/* Still found until the unload is over: glibc calls la_objclose before
 * la_activity(LA_ACT_DELETE), where a search still open is ended, and the
 * object is in the link map until then. */
void loaded_index_remove(const struct link_map *map)
{
	struct loaded_obj *o = entry_of(map);

	if (o && !o->closing) {
		o->closing = true;
		n_closing++;
	}
}

void loaded_index_forget_closed(void)
{
	uint32_t i;

	for (i = 0; n_closing && i < n_objs; i++)
		if (objs[i].closing && objs[i].map) {
			objs[i].map = NULL;
			n_closing--;
		}
	n_closing = 0;
}

/* Each object mapped since the last question, stat'ed once. */
static void stat_new_objects(void)
{
	struct stat st;

	for (; statted < n_objs; statted++) {
		struct loaded_obj *o = &objs[statted];

		if (!o->map || !o->map->l_name || o->map->l_name[0] != '/' || stat(o->map->l_name, &st) != 0)
			continue;
		o->dev = st.st_dev;
		o->ino = st.st_ino;
		o->has_file = true;
		put(by_file, hash_file(o->dev, o->ino), statted);
	}
}

const struct link_map *loaded_index_find(const char *path, const struct link_map *requester)
{
	const struct loaded_obj *req = entry_of(requester);
	struct stat want;
	uint32_t h, slot;
	int saved = errno;

	if (!requester || !cap || stat(path, &want) != 0) {
		errno = saved;
		return NULL;
	}
	stat_new_objects();
	errno = saved;
	for (h = hash_file(want.st_dev, want.st_ino); (slot = by_file[h & mask()]) != 0; h++) {
		const struct loaded_obj *o = &objs[slot - 1];

		if (o->map && o->dev == want.st_dev && o->ino == want.st_ino && (!req || o->lmid == req->lmid))
			return o->map;
	}
	return NULL;
}
