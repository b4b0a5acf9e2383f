/* The rtld-audit half of libgputrace.so (loaded through LD_AUDIT): records every
 * search the dynamic loader makes, each candidate with its rule, every object
 * mapped and unmapped. It only observes: every callback returns the loader's
 * own values unchanged (invariant 1, doc/design-notes.md).
 *
 * This copy lives in its own link-map namespace with its own libc. All loader
 * callbacks run under the loader's lock (startup is single-threaded; dlopen and
 * dlclose hold dl_load_lock), so the state below needs no lock of its own. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/elf_peek.h"
#include "audit/loaded_index.h"
#include "audit/no_search.h"
#include "common/export.h"
#include "gputrace/trace_format.h"
#include "common/jline.h"
#include "common/trace_file.h"


static struct gt_trace audit_trace = { .source = GT_SOURCE_AUDIT };
/* A line holds a search's whole list of tries: room for both. */
static char line_buf[65536 + 131072];
static char tries_buf[131072];
static struct jline tries;   /* the open search's candidates, as a JSON fragment */

/* The search in progress: set by the LA_SER_ORIG call, closed by the object
 * it mapped or, if none, by the next search or the next loader activity. */
static struct {
	unsigned long seq;          /* 0: none open */
	bool has_runpath;           /* the requester has DT_RUNPATH (else DT_RPATH rules) */
	int tries;
	enum gt_rule last_rule;     /* the rule of the candidate tried last */
	char last_try[PATH_MAX];    /* the candidate tried last */
	char name[PATH_MAX];
} cur;
static unsigned long next_seq = 1;
static bool exiting;          /* the main program's map was closed: _dl_fini runs */
static bool active;           /* la_version accepted us */

/* GPUTRACE_SELF_TIME=1: the time spent in these callbacks, summed and
 * written at exit (a "self_time" note), to measure what the loader's work
 * costs us inside a real program. Off by default: two clock reads a call. */
static struct {
	bool on;
	unsigned long long ns, calls;
} self_time;

static unsigned long long self_clock(void)
{
	struct timespec ts;

	if (!self_time.on)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static void self_add(unsigned long long t0)
{
	if (t0) {
		self_time.ns += self_clock() - t0;
		self_time.calls++;
	}
}

static bool trace_ready(void)
{
	return active && gt_trace_ready(&audit_trace);
}


static void emit(struct jline *j)
{
	gt_trace_write(&audit_trace, line_buf, jl_end(j));
}

/* Every line has a time; only the lines that start something carry the
 * thread (a search's conclusion is on the same thread, under the loader lock). */
static void begin(struct jline *j, enum gt_event ev)
{
	jl_begin(j, line_buf, sizeof(line_buf), gt_event_name(ev));
	jl_uint(j, GT_K_TIME, gt_now_us());
	if (ev == GT_EV_SEARCH || ev == GT_EV_CLOSE)
		jl_int(j, GT_K_TID, gt_trace_tid(&audit_trace));
}

/* Copies a NUL-terminated string into a fixed buffer, truncating; unlike
 * strncpy it does not fill the rest of the buffer with zeros. */
static void copy_bounded(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/* This library's own file, to know the preload copy of it when it maps. */
static struct {
	char base[256];
	dev_t dev;
	ino_t ino;
	bool known;
} self_file;

static void know_self(void)
{
	Dl_info info;
	struct stat st;
	const char *slash;

	if (!dladdr((void *)know_self, &info) || !info.dli_fname || stat(info.dli_fname, &st) != 0)
		return;
	slash = strrchr(info.dli_fname, '/');
	copy_bounded(self_file.base, sizeof(self_file.base), slash ? slash + 1 : info.dli_fname);
	self_file.dev = st.st_dev;
	self_file.ino = st.st_ino;
	self_file.known = true;
}

/* The preload copy of this library: the same file (one stat, only for an
 * object with our file name). It gets our sink, so that the two halves
 * write through one mapping. */
static void hand_over_if_peer(const struct link_map *map)
{
	const char *slash;
	struct stat st;

	if (!self_file.known || !map->l_name || map->l_name[0] != '/')
		return;
	slash = strrchr(map->l_name, '/');
	if (strcmp(slash + 1, self_file.base) != 0 || stat(map->l_name, &st) != 0 ||
	    st.st_dev != self_file.dev || st.st_ino != self_file.ino)
		return;
	gt_trace_hand_over(&audit_trace, map->l_addr);
}


static const char *soname_of(const struct link_map *map)
{
	return no_search_soname(map);
}

/* Does the object name libcudart in DT_NEEDED? */
static bool needs_cudart(const struct link_map *map)
{
	ElfW(Addr) strtab = audit_dyn_value(map, DT_STRTAB, 0);
	const ElfW(Dyn) *d;

	if (!strtab || !map->l_ld)
		return false;
	if (strtab < map->l_addr)
		strtab += map->l_addr;
	for (d = map->l_ld; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED &&
		    strncmp((const char *)(strtab + d->d_un.d_val), "libcudart.so", 12) == 0)
			return true;
	return false;
}

/* nvcc links the CUDA runtime statically by default: such an object carries
 * device code (a fat binary section) but needs no libcudart. Its runtime
 * calls never reach our hooks, and the report must say so. Only the main
 * program is read here (section headers are not mapped, so this costs an open
 * and three reads): libraries are left to the report, which reads the files. */
static bool carries_static_cudart(const struct link_map *map, const char *path)
{
	static const char *const fatbin[] = { ".nvFatBinSegment", ".nv_fatbin" };

	return !needs_cudart(map) && audit_elf_has_section(path, fatbin, 2);
}

/* The main program's l_name is empty; the trace wants a path: the one the
 * header names (read when the trace was opened, which callers made sure of). */
static const char *map_path(const struct link_map *map)
{
	if (map->l_name && map->l_name[0])
		return map->l_name;
	return gt_trace_exe(&audit_trace);
}

static enum gt_rule rule_of(unsigned int flag)
{
	switch (flag) {
	case LA_SER_LIBPATH:
		return GT_RULE_LD_LIBRARY_PATH;
	case LA_SER_RUNPATH:
		/* The loader passes one flag for both; the requester's dynamic
		 * section tells them apart: with DT_RUNPATH, DT_RPATH is ignored. */
		return cur.has_runpath ? GT_RULE_RUNPATH : GT_RULE_RPATH;
	case LA_SER_CONFIG:
		return GT_RULE_LD_SO_CACHE;
	case LA_SER_DEFAULT:
		return GT_RULE_DEFAULT;
	case LA_SER_SECURE:
		return GT_RULE_SECURE;
	default:
		return GT_RULE_UNKNOWN;
	}
}

/* A loaded object that is the same file as `path`, if any: the loader
 * recognises a file it already mapped by device and inode, and then maps
 * nothing and calls no la_objopen (audit/loaded_index.c keeps them). */
static const struct link_map *loaded_as(const char *path, const struct link_map *any)
{
	return loaded_index_find(path, any);
}

static void add_tries(struct jline *j)
{
	if (!cur.tries)
		return;
	jl_raw_array(j, GT_K_TRIES, &tries);
	if (tries.truncated)
		jl_bool(j, GT_K_TRIES_TRUNCATED, true);
}

/* Ends the open search that mapped nothing: not found, or already loaded. */
static void end_search(const struct link_map *any)
{
	const struct link_map *m = NULL;
	struct jline j;
	int saved = errno;

	if (!cur.seq)
		return;
	if (cur.tries)
		m = loaded_as(cur.last_try, any);
	else if (strchr(cur.name, '/'))
		m = loaded_as(cur.name, any);
	if (trace_ready()) {
		begin(&j, GT_EV_SEARCH_END);
		jl_uint(&j, GT_K_SEARCH, cur.seq);
		jl_str(&j, GT_K_NAME, cur.name);
		jl_str(&j, GT_K_RESULT, m ? GT_RESULT_ALREADY_LOADED : GT_RESULT_NOT_FOUND);
		if (m)
			jl_str(&j, GT_K_PATH, m->l_name);
		add_tries(&j);
		emit(&j);
	}
	cur.seq = 0;
	errno = saved;
}

/* A DT_NEEDED name met by an object already loaded (audit/no_search.h):
 * the requester, the name, the object it got. */
static void write_no_search(const struct link_map *requester, const char *name, const struct link_map *by)
{
	struct jline j;

	if (!trace_ready())
		return;
	begin(&j, GT_EV_NO_SEARCH);
	jl_str(&j, GT_K_NAME, name);
	jl_str(&j, GT_K_REQUESTER, map_path(requester));
	jl_str(&j, GT_K_PATH, map_path(by));
	emit(&j);
}

static void write_no_search_cut(void)
{
	struct jline j;

	if (!trace_ready())
		return;
	begin(&j, GT_EV_NOTE);
	jl_str(&j, GT_K_WHAT, GT_NOTE_NO_SEARCH_CUT);
	emit(&j);
}

/* The callbacks' own time, once, as the process exits (GPUTRACE_SELF_TIME=1). */
static void write_self_time(void)
{
	struct jline j;

	if (!self_time.on || !trace_ready())
		return;
	begin(&j, GT_EV_NOTE);
	jl_str(&j, GT_K_WHAT, GT_NOTE_SELF_TIME);
	jl_uint(&j, GT_K_NS, self_time.ns);
	jl_uint(&j, GT_K_CALLBACKS, self_time.calls);
	emit(&j);
}

GT_EXPORT unsigned int la_version(unsigned int version)
{
	if (gt_disabled())
		return 0;  /* the loader then drops this module altogether */
	active = true;
	self_time.on = getenv("GPUTRACE_SELF_TIME") && strcmp(getenv("GPUTRACE_SELF_TIME"), "1") == 0;
	know_self();
	trace_ready();
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

static void start_search(const char *name, const struct link_map *requester)
{
	struct jline j;

	end_search(requester);
	cur.seq = next_seq++;
	cur.tries = 0;
	cur.last_try[0] = 0;
	jl_fragment_begin(&tries, tries_buf, sizeof(tries_buf));
	copy_bounded(cur.name, sizeof(cur.name), name);
	cur.has_runpath = audit_dyn_value(requester, DT_RUNPATH, 0) != 0;
	/* The start of each search is where the fd is checked to be still ours
	 * (gt_trace_ready_checked; free when the trace is mapped): once per
	 * library, not once per line. */
	if (!gt_trace_ready_checked(&audit_trace))
		return;
	begin(&j, GT_EV_SEARCH);
	jl_uint(&j, GT_K_SEQ, cur.seq);
	jl_str(&j, GT_K_NAME, name);
	if (requester)
		jl_str(&j, GT_K_REQUESTER, map_path(requester));
	emit(&j);
}

/* Candidates are kept in memory and written with the search's conclusion:
 * one line per library instead of one per candidate. */
static void record_try(const char *path, unsigned int flag)
{
	cur.tries++;
	cur.last_rule = rule_of(flag);
	copy_bounded(cur.last_try, sizeof(cur.last_try), path);
	if (tries.truncated)
		return;
	jl_object_open(&tries);
	jl_str(&tries, GT_K_PATH, path);
	jl_str(&tries, GT_K_RULE, gt_rule_name(cur.last_rule));
	jl_object_end(&tries);
}

GT_EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	int saved = errno;
	unsigned long long t0 = self_clock();

	if (active && name) {
		if (flag == LA_SER_ORIG) {
			start_search(name, cookie ? (const struct link_map *)*cookie : NULL);
			no_search_searched(cookie ? (const struct link_map *)*cookie : NULL, name);
		}
		else if (cur.seq)
			record_try(name, flag);
	}
	self_add(t0);
	errno = saved;
	return (char *)name;  /* never redirect the loader */
}

/* Why the loader took the object it just mapped at `path`: the rule of the
 * candidate that matched, "absolute" for a name with a slash. */
static enum gt_rule open_rule(const char *path)
{
	if (cur.tries == 0)
		return strchr(cur.name, '/') ? GT_RULE_ABSOLUTE : GT_RULE_UNKNOWN;
	return strcmp(path, cur.last_try) == 0 ? cur.last_rule : GT_RULE_UNKNOWN;
}

GT_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	const char *path, *soname;
	struct jline j;
	int saved = errno;
	unsigned long long t0 = self_clock();

	(void)cookie;  /* the loader's default cookie is the link_map: we keep it */
	if (!active)
		goto out;
	soname = soname_of(map);
	loaded_index_add(map, lmid, cur.seq ? cur.name : NULL, soname);
	no_search_opened(map, lmid);
	hand_over_if_peer(map);
	if (!trace_ready())
		goto out;
	path = map_path(map);
	begin(&j, GT_EV_OPEN);
	jl_str(&j, GT_K_PATH, path);
	jl_str(&j, GT_K_SONAME, map->l_name && map->l_name[0] == '/' ? soname : NULL);
	jl_int(&j, GT_K_NS, (long long)lmid);
	if (!map->l_name || !map->l_name[0])
		jl_bool(&j, GT_K_MAIN, true);
	if ((!map->l_name || !map->l_name[0]) && path[0] == '/' && carries_static_cudart(map, path))
		jl_bool(&j, GT_K_CUDART_STATIC, true);
	if (cur.seq) {
		jl_uint(&j, GT_K_SEARCH, cur.seq);
		jl_str(&j, GT_K_NAME, cur.name);
		jl_str(&j, GT_K_RULE, gt_rule_name(open_rule(path)));
		add_tries(&j);
	}
	emit(&j);
out:
	cur.seq = 0;
	self_add(t0);
	errno = saved;
	/* No LA_FLG_BINDTO/BINDFROM: we want no symbol-binding callbacks, so
	 * function calls in the process cost exactly what they cost without us. */
	return 0;
}

GT_EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	const struct link_map *map = cookie ? (const struct link_map *)*cookie : NULL;
	struct jline j;
	int saved = errno;
	unsigned long long t0 = self_clock();

	if (!active || !map)
		return 0;
	loaded_index_remove(map);
	no_search_closed(map);
	/* At exit the loader closes every object, the main program first; those
	 * closes are the end of the process, not dlclose calls worth a line. */
	if ((!map->l_name || !map->l_name[0]) && !exiting) {
		exiting = true;
		write_self_time();
	}
	if (exiting || !trace_ready())
		goto out;
	begin(&j, GT_EV_CLOSE);
	jl_str(&j, GT_K_PATH, map->l_name);
	emit(&j);
out:
	self_add(t0);
	errno = saved;
	return 0;
}

/* The first consistent state of the main namespace (its head is the program,
 * which has no name) ends start-up: what was mapped until then (the program,
 * LD_PRELOAD, their DT_NEEDED closure) is the global scope, whatever the
 * process does later. One line per image. */
static void note_startup_once(const struct link_map *head)
{
	static bool noted;
	struct jline j;

	if (noted || !head || (head->l_name && head->l_name[0]))
		return;
	noted = true;
	if (!trace_ready())
		return;
	begin(&j, GT_EV_NOTE);
	jl_str(&j, GT_K_WHAT, GT_NOTE_STARTUP_LOADED);
	emit(&j);
}

GT_EXPORT void la_activity(uintptr_t *cookie, unsigned int flag)
{
	int saved = errno;
	unsigned long long t0 = self_clock();

	/* A load phase ended (CONSISTENT) or an unload begins (DELETE, also at
	 * the start of exit, before any destructor): a search still open mapped
	 * nothing. Once exit is under way nothing more is written, so that the
	 * preload half's "end" stays the last line. */
	if (active && !exiting && (flag == LA_ACT_CONSISTENT || flag == LA_ACT_DELETE)) {
		end_search(cookie ? (const struct link_map *)*cookie : NULL);
		if (no_search_conclude(write_no_search))
			write_no_search_cut();
	}
	if (active && flag == LA_ACT_CONSISTENT)
		loaded_index_forget_closed();
	if (active && !exiting && flag == LA_ACT_CONSISTENT)
		note_startup_once(cookie ? (const struct link_map *)*cookie : NULL);
	self_add(t0);
	errno = saved;
}
