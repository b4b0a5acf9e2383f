/* The loader's search done on paper (resolve.h): glibc 2.36's _dl_map_object,
 * open_path and open_verify, played against the files on disk. */
#define _GNU_SOURCE
#include "host/resolve.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "host/dir_listing.h"
#include "host/elf_info.h"
#include "host/elf_load.h"
#include "host/ldso_help.h"
#include "host/path_memo.h"

#if defined(__x86_64__)
#define LDSO_PATH "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define LDSO_PATH "/lib/ld-linux-aarch64.so.1"
#else
#error "resolve.c models the 64-bit x86-64 (or aarch64) loader only"
#endif

#define MAX_LEGACY_PARTS 8   /* 2^8 subfolders: far more than any real hwcap list */

/* ---- this host's subfolders and default folders ---- */

/* What ld.so --help says on a plain x86-64-v3 machine with glibc 2.36 (Debian 12). */
static const char *const builtin_subdirs[] = {
	"glibc-hwcaps/x86-64-v3", "glibc-hwcaps/x86-64-v2", "tls/x86_64/x86_64", "tls/x86_64",
	"tls", "x86_64/x86_64", "x86_64", "",
};
static const char *const builtin_defaults[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib",
};

struct str_vec {
	char **v;
	size_t n;
};

static bool vec_has(const struct str_vec *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

/* Takes str (freed when already listed). */
static void vec_push_unique(struct str_vec *s, char *str)
{
	if (vec_has(s, str)) {
		free(str);
		return;
	}
	s->v = gt_xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = str;
}

/* The legacy subfolders of glibc's _dl_important_hwcaps: every combination of
 * parts (path order: tls, the platform, the hwcap names as ld.so lists them),
 * all of them first, down to the single names. */
static void add_legacy_combinations(struct str_vec *subdirs, char **parts, size_t nparts)
{
	size_t total = 0, i;
	unsigned mask;

	for (i = 0; i < nparts; i++)
		total += strlen(parts[i]) + 1;
	for (mask = (1u << nparts) - 1; mask > 0; mask--) {
		char *sub = gt_xcalloc(1, total + 1);

		for (i = 0; i < nparts; i++) {
			if (!(mask & (1u << (nparts - 1 - i))))
				continue;
			if (*sub)
				strcat(sub, "/");
			strcat(sub, parts[i]);
		}
		vec_push_unique(subdirs, sub);
	}
}

enum help_section { SEC_OTHER, SEC_SEARCH, SEC_HWCAPS, SEC_LEGACY };

static enum help_section section_of(const char *line, enum help_section cur)
{
	if (strncmp(line, "  ", 2) == 0)
		return cur;
	if (strncmp(line, "Shared library search path:", 27) == 0)
		return SEC_SEARCH;
	if (strncmp(line, "Subdirectories of glibc-hwcaps directories", 42) == 0)
		return SEC_HWCAPS;
	if (strncmp(line, "Legacy HWCAP subdirectories", 27) == 0)
		return SEC_LEGACY;
	return SEC_OTHER;
}

/* What ld.so --help says, as lists. */
struct help {
	struct str_vec subdirs, defaults, hwcaps;
	char *platform;
};

/* One indented line of a section: "  NAME (notes)" or "  NAME". */
static void take_line(char *line, enum help_section sec, struct help *h, char **legacy, size_t *nlegacy)
{
	struct str_vec *subdirs = &h->subdirs, *defaults = &h->defaults;
	char *name = line + 2, *notes = strstr(name, " (");
	bool searched = notes && strstr(notes, "searched");

	if (notes)
		*notes++ = 0;
	if (sec == SEC_SEARCH && notes && strstr(notes, "system search path") && name[0] == '/') {
		vec_push_unique(defaults, gt_xstrdup(name));
		return;
	}
	if (sec == SEC_HWCAPS && searched) {
		vec_push_unique(subdirs, gt_xasprintf("glibc-hwcaps/%s", name));
		vec_push_unique(&h->hwcaps, gt_xstrdup(name));
		return;
	}
	if (sec == SEC_LEGACY && notes && strstr(notes, "AT_PLATFORM") && !h->platform)
		h->platform = gt_xstrdup(name);
	if (sec != SEC_LEGACY || !searched || *nlegacy >= MAX_LEGACY_PARTS)
		return;
	/* path order: tls, then AT_PLATFORM, then the hwcap names as printed */
	if (strcmp(name, "tls") == 0) {
		memmove(legacy + 1, legacy, *nlegacy * sizeof(*legacy));
		legacy[0] = name;
	} else if (strstr(notes, "AT_PLATFORM")) {
		size_t at = *nlegacy && strcmp(legacy[0], "tls") == 0 ? 1 : 0;

		memmove(legacy + at + 1, legacy + at, (*nlegacy - at) * sizeof(*legacy));
		legacy[at] = name;
	} else {
		legacy[*nlegacy] = name;
	}
	(*nlegacy)++;
}

static bool parse_ldso_help(char *text, struct help *h)
{
	enum help_section sec = SEC_OTHER;
	char *legacy[MAX_LEGACY_PARTS], *line, *save = NULL;
	size_t nlegacy = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sec = section_of(line, sec);
		if (strncmp(line, "  ", 2) == 0)
			take_line(line, sec, h, legacy, &nlegacy);
	}
	add_legacy_combinations(&h->subdirs, legacy, nlegacy);
	vec_push_unique(&h->subdirs, gt_xstrdup(""));
	return h->defaults.n > 0;
}

static struct host_loader_dirs host_dirs;
static pthread_once_t host_dirs_once = PTHREAD_ONCE_INIT;

static void free_vec(struct str_vec *s)
{
	host_free_strings(s->v, s->n);
	s->v = NULL;
	s->n = 0;
}

static const char *const builtin_hwcaps[] = { "x86-64-v3", "x86-64-v2" };

static void init_host_dirs(void)
{
	struct help h = { 0 };
	char *text = host_ldso_help(LDSO_PATH);

	if (text && parse_ldso_help(text, &h)) {
		host_dirs.subdirs = (const char *const *)h.subdirs.v;
		host_dirs.nsubdirs = h.subdirs.n;
		host_dirs.defaults = (const char *const *)h.defaults.v;
		host_dirs.ndefaults = h.defaults.n;
		host_dirs.hwcaps = (const char *const *)h.hwcaps.v;
		host_dirs.nhwcaps = h.hwcaps.n;
		host_dirs.platform = h.platform;
		host_dirs.from_ldso = true;
	} else {
		free_vec(&h.subdirs);
		free_vec(&h.defaults);
		free_vec(&h.hwcaps);
		free(h.platform);
		host_dirs.hwcaps = builtin_hwcaps;
		host_dirs.nhwcaps = sizeof(builtin_hwcaps) / sizeof(builtin_hwcaps[0]);
		host_dirs.subdirs = builtin_subdirs;
		host_dirs.nsubdirs = sizeof(builtin_subdirs) / sizeof(builtin_subdirs[0]);
		host_dirs.defaults = builtin_defaults;
		host_dirs.ndefaults = sizeof(builtin_defaults) / sizeof(builtin_defaults[0]);
	}
	free(text);
}

const struct host_loader_dirs *host_loader_dirs(void)
{
	pthread_once(&host_dirs_once, init_host_dirs);
	return &host_dirs;
}

/* ---- one candidate file: host/elf_load.c judges it as the loader does ---- */

typedef enum host_load_verdict verdict_t;
#define V_ABSENT HOST_LOAD_ABSENT
#define V_SKIPPED HOST_LOAD_SKIPPED
#define V_ENDS_LIST HOST_LOAD_ENDS_LIST
#define V_FATAL HOST_LOAD_FATAL
#define V_USABLE HOST_LOAD_USABLE

/* ---- the search ---- */

struct tried {
	struct host_candidate c;
	uint64_t hash;           /* of c.path: most tries share a long folder, strcmp would walk it */
	verdict_t v;
	dev_t dev;
	ino_t ino;
};

struct search {
	const char *name;
	const struct host_loader_dirs *dirs;
	struct host_dst dst;
	bool winner_only;
	struct tried *t;
	size_t n;
	long stop;               /* the first usable or fatal candidate, -1 */
	const char *stop_reason;
	/* The folders tried, each with every subfolder: the requester's RPATH
	 * list comes again in each loader's above it (torch's six folders in
	 * libtorch_cuda.so, libtorch.so and libtorch_python.so), and each of its
	 * paths would be made and compared with every earlier one only to be
	 * found tried (bench/README.md section 20). */
	char **folders;
	size_t nfolders;
};

static bool already_tried(const struct search *s, const char *path, uint64_t hash)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].hash == hash && strcmp(s->t[i].c.path, path) == 0)
			return true;
	return false;
}

/* The search is over: the loader took a file or gave up. */
static bool done(const struct search *s)
{
	return s->winner_only && s->stop >= 0;
}

/* Takes path. A path tried before gives the same answer again: listed once. */
static void try_path(struct search *s, char *path, enum gt_rule rule, verdict_t *v)
{
	struct host_elf_load l;
	struct tried *t;
	uint64_t hash;

	*v = V_ABSENT;
	if (done(s)) {
		free(path);
		return;
	}
	hash = host_path_hash(path, strlen(path));
	if (already_tried(s, path, hash)) {
		free(path);
		return;
	}
	s->t = gt_xrealloc(s->t, (s->n + 1) * sizeof(*s->t));
	t = &s->t[s->n];
	/* Most tries name nothing: the folder's listing says so without an
	 * open() (host/dir_listing.h); what is there is still judged. */
	if (host_dir_lacks(path))
		l = (struct host_elf_load){ .verdict = HOST_LOAD_ABSENT };  /* as open()'s ENOENT */
	else
		host_elf_load_read(path, false, &l);
	*v = l.verdict;
	*t = (struct tried){ .c = { .path = path, .rule = rule, .exists = l.exists, .usable = *v == V_USABLE },
			     .hash = hash, .v = *v, .dev = l.dev, .ino = l.ino };
	if (s->stop < 0 && (*v == V_USABLE || *v == V_FATAL)) {
		s->stop = (long)s->n;
		s->stop_reason = l.reason;
	}
	s->n++;
	host_elf_load_free(&l);
}

/* dir/sub/name ("dir/name" where sub is ""), by copies: a search makes
 * hundreds and printf's formatting cost more than the rest of it. */
static char *join_path(const char *dir, const char *sub, const char *name)
{
	size_t dl = strlen(dir), sl = strlen(sub), nl = strlen(name);
	bool dir_slash = dl && dir[dl - 1] == '/';
	char *out = gt_xmalloc(dl + 1 + sl + 1 + nl + 1), *at = out;

	memcpy(at, dir, dl);
	at += dl;
	if (!dir_slash)
		*at++ = '/';
	memcpy(at, sub, sl);
	at += sl;
	if (sl)
		*at++ = '/';
	memcpy(at, name, nl + 1);
	return out;
}

/* Was this folder tried whole already? Then each of its paths was, and
 * trying them again changes nothing: try_path would find each tried. */
static bool folder_seen(struct search *s, const char *dir)
{
	for (size_t i = 0; i < s->nfolders; i++)
		if (strcmp(s->folders[i], dir) == 0)
			return true;
	s->folders = gt_xrealloc(s->folders, (s->nfolders + 1) * sizeof(*s->folders));
	s->folders[s->nfolders++] = gt_xstrdup(dir);
	return false;
}

/* One folder with each subfolder the loader tries; true when open_path would
 * leave the rest of its list (an odd error on the folder itself). */
static bool try_folder(struct search *s, const char *dir, enum gt_rule rule)
{
	verdict_t v = V_ABSENT;

	if (done(s) || folder_seen(s, dir))
		return false;
	for (size_t i = 0; i < s->dirs->nsubdirs; i++)
		try_path(s, join_path(dir, s->dirs->subdirs[i], s->name), rule, &v);
	return v == V_ENDS_LIST;
}

static void try_list(struct search *s, char *const *dirs, size_t n, enum gt_rule rule)
{
	for (size_t i = 0; i < n; i++)
		if (try_folder(s, dirs[i], rule))
			break;
}

/* An RPATH/RUNPATH/LD_LIBRARY_PATH string, expanded for object, then searched. */
static void try_search_path(struct search *s, const char *list, const char *object, bool is_main,
			    enum gt_rule rule)
{
	char **dirs = NULL;
	size_t n = host_expand_search_path_as(list, object, is_main, &s->dst, &dirs);

	try_list(s, dirs, n, rule);
	host_free_strings(dirs, n);
}

/* DT_RPATH of the requester, then of each object that loaded it, up to the
 * main program. An object with DT_RUNPATH has no DT_RPATH to ld.so. */
static void try_rpaths(struct search *s, const struct host_search_object *chain, size_t nchain)
{
	for (size_t i = 0; i < nchain; i++)
		if (chain[i].rpath)
			try_search_path(s, chain[i].rpath, chain[i].path, chain[i].is_main, GT_RULE_RPATH);
}

/* LD_LIBRARY_PATH: ':' or ';' between folders, $ORIGIN of the main program. */
static void try_ld_library_path(struct search *s, const char *llp, const char *main_program)
{
	char *list = gt_xstrdup(llp), *p;

	for (p = list; (p = strchr(p, ';')) != NULL; p++)
		*p = ':';
	try_search_path(s, list, main_program, true, GT_RULE_LD_LIBRARY_PATH);
	free(list);
}

static bool in_default_folder(const struct search *s, const char *path)
{
	for (size_t i = 0; i < s->dirs->ndefaults; i++) {
		size_t n = strlen(s->dirs->defaults[i]);

		if (strncmp(path, s->dirs->defaults[i], n) == 0 && path[n] == '/')
			return true;
	}
	return false;
}

/* The cache's entry (the best glibc-hwcaps one this CPU takes) and the
 * default folders; an object marked DF_1_NODEFLIB takes neither from the
 * default folders. */
static void try_cache_and_defaults(struct search *s, const struct host_ldcache *cache, bool nodeflib)
{
	const struct host_ldcache_entry *e = cache ? host_ldcache_choose(cache, s->name, s->dirs->hwcaps,
									s->dirs->nhwcaps) : NULL;
	verdict_t v;

	if (e && !(nodeflib && in_default_folder(s, e->path)))
		try_path(s, gt_xstrdup(e->path), GT_RULE_LD_SO_CACHE, &v);
	if (!nodeflib)
		try_list(s, (char *const *)s->dirs->defaults, s->dirs->ndefaults, GT_RULE_DEFAULT);
}

/* A name with a slash is opened as it is, after $ORIGIN & co. are expanded. */
static void try_absolute(struct search *s, const struct host_search_object *requester)
{
	char **dirs = NULL, *path;
	size_t n = 0;
	verdict_t v;

	if (strchr(s->name, '$'))
		n = host_expand_search_path_as(s->name, requester ? requester->path : NULL,
					       requester && requester->is_main, &s->dst, &dirs);
	path = gt_xstrdup(n == 1 ? dirs[0] : s->name);
	host_free_strings(dirs, n);
	try_path(s, path, GT_RULE_ABSOLUTE, &v);
}

/* Every candidate, in order, past the winner too (for the shadowed copies)
 * unless env->winner_only. */
static void search_all(struct search *s, const struct host_search_object *chain, size_t nchain,
		       const struct host_resolve_env *env)
{
	const struct host_search_object *requester = nchain ? &chain[0] : NULL;
	const char *main_program = nchain ? chain[nchain - 1].path : NULL;

	if (strchr(s->name, '/')) {
		try_absolute(s, requester);
		return;
	}
	if (!requester || !requester->runpath)
		try_rpaths(s, chain, nchain);
	if (env->ld_library_path && *env->ld_library_path && !env->secure)
		try_ld_library_path(s, env->ld_library_path, main_program);
	if (requester && requester->runpath)
		try_search_path(s, requester->runpath, requester->path, requester->is_main, GT_RULE_RUNPATH);
	try_cache_and_defaults(s, env->cache, requester && requester->nodeflib);
}

static bool same_file(const struct tried *a, const struct tried *b)
{
	return a->ino && a->ino == b->ino && a->dev == b->dev;
}

/* Usable copies after the point where the loader stopped, each file once
 * (/lib is /usr/lib on merged-/usr systems), the winner's own file left out. */
static void collect_shadowed(const struct search *s, struct host_resolution *out)
{
	for (size_t i = (size_t)s->stop + 1; s->stop >= 0 && i < s->n; i++) {
		const struct tried *t = &s->t[i];
		bool seen = s->t[s->stop].v == V_USABLE && same_file(t, &s->t[s->stop]);

		for (size_t j = (size_t)s->stop + 1; j < i && !seen; j++)
			seen = s->t[j].v == V_USABLE && same_file(t, &s->t[j]);
		if (t->v != V_USABLE || seen)
			continue;
		out->shadowed = gt_xrealloc(out->shadowed, (out->nshadowed + 1) * sizeof(*out->shadowed));
		out->shadowed[out->nshadowed++] = gt_xstrdup(t->c.path);
	}
}

/* Moves the candidates up to where the loader stopped into out; frees the rest. */
static void finish(struct search *s, struct host_resolution *out)
{
	size_t keep = s->stop >= 0 ? (size_t)s->stop + 1 : s->n;

	collect_shadowed(s, out);
	out->cand = keep ? gt_xcalloc(keep, sizeof(*out->cand)) : NULL;
	for (size_t i = 0; i < s->n; i++) {
		if (i < keep)
			out->cand[i] = s->t[i].c;
		else
			free(s->t[i].c.path);
	}
	out->ncand = keep;
	out->winner = s->stop >= 0 && s->t[s->stop].v == V_USABLE ? s->stop : -1;
	out->stop_reason = out->winner < 0 ? s->stop_reason : NULL;
	free(s->t);
	s->t = NULL;
	s->n = 0;
	host_free_strings(s->folders, s->nfolders);
	s->folders = NULL;
	s->nfolders = 0;
}

void host_resolve_chain(const char *name, const struct host_search_object *chain, size_t nchain,
			const struct host_resolve_env *env, struct host_resolution *out)
{
	static const struct host_resolve_env no_env;
	struct search s = { .name = name, .stop = -1 };

	memset(out, 0, sizeof(*out));
	out->winner = -1;
	if (!env)
		env = &no_env;
	s.dirs = env->dirs ? env->dirs : host_loader_dirs();
	s.dst = (struct host_dst){ .platform = s.dirs->platform, .secure = env->secure,
				   .trusted = s.dirs->defaults, .ntrusted = s.dirs->ndefaults };
	s.winner_only = env->winner_only;
	out->name = gt_xstrdup(name);
	out->requester = gt_xstrdup(nchain ? chain[0].path : "");
	search_all(&s, chain, nchain, env);
	finish(&s, out);
}

/* Searches already done, by what decides them: the name, the requester's
 * folder ($ORIGIN) and search lists, the loaders' chain, the environment.
 * torch's libraries share one folder, so libcudart.so.13 asked by five of
 * them (an import torch on the H200) is one search where their lists agree. */
static struct done_search {
	char *key;
	struct host_resolution r;
} *searches;
static size_t nsearches;

/* With env->reuse, the requesters' and programs' dynamic sections, read
 * once each: the 19 searches of an import torch each read python3's and
 * their requester's (bench/README.md section 17). Forgotten by
 * host_resolve_cache_free, with the searches. */
static struct read_program {
	char *path;
	struct host_elf_load load;
} *programs;
static size_t nprograms;

static const struct host_elf_load *program_load(const char *path)
{
	size_t i;

	for (i = 0; i < nprograms; i++)
		if (strcmp(programs[i].path, path) == 0)
			return &programs[i].load;
	programs = gt_xrealloc(programs, (nprograms + 1) * sizeof(*programs));
	programs[nprograms].path = gt_xstrdup(path);
	host_elf_load_program(path, &programs[nprograms].load);
	return &programs[nprograms++].load;
}

void host_resolve_cache_free(void)
{
	for (size_t i = 0; i < nprograms; i++) {
		free(programs[i].path);
		host_elf_load_free(&programs[i].load);
	}
	free(programs);
	programs = NULL;
	nprograms = 0;
	for (size_t i = 0; i < nsearches; i++) {
		free(searches[i].key);
		host_resolution_free(&searches[i].r);
	}
	free(searches);
	searches = NULL;
	nsearches = 0;
}

/* The loader's $ORIGIN of a library is the folder part of the name it was
 * opened by (host/elf_info.c origin_of): two requesters in one folder with
 * the same lists search alike. A program's is its real folder: its path. */
static char *search_key(const char *name, const struct host_search_object *chain, size_t n,
			const struct host_resolve_env *env)
{
	char *key = gt_xasprintf("%s\x1f%p\x1f%p\x1f%d%d\x1f%s", name, (const void *)env->cache,
				 (const void *)env->dirs, env->secure, env->winner_only,
				 env->ld_library_path ? env->ld_library_path : "\x1e"), *more;
	const char *slash;
	int as_folder;

	for (size_t i = 0; i < n; i++) {
		slash = strrchr(chain[i].path, '/');
		as_folder = i == 0 && !chain[i].is_main && slash ? (int)(slash - chain[i].path) : INT_MAX;
		more = gt_xasprintf("%s\x1e%.*s\x1f%s\x1f%s\x1f%d%d", key, as_folder, chain[i].path,
				    chain[i].rpath ? chain[i].rpath : "\x1d", chain[i].runpath ? chain[i].runpath : "\x1d",
				    chain[i].is_main, chain[i].nodeflib);
		free(key);
		key = more;
	}
	return key;
}

static void copy_resolution(struct host_resolution *dst, const struct host_resolution *src)
{
	*dst = *src;
	dst->name = gt_xstrdup(src->name);
	dst->requester = src->requester ? gt_xstrdup(src->requester) : NULL;
	dst->cand = src->ncand ? gt_xcalloc(src->ncand, sizeof(*dst->cand)) : NULL;
	for (size_t i = 0; i < src->ncand; i++) {
		dst->cand[i] = src->cand[i];
		dst->cand[i].path = gt_xstrdup(src->cand[i].path);
	}
	dst->shadowed = src->nshadowed ? gt_xcalloc(src->nshadowed, sizeof(*dst->shadowed)) : NULL;
	for (size_t i = 0; i < src->nshadowed; i++)
		dst->shadowed[i] = gt_xstrdup(src->shadowed[i]);
}

/* host_resolve_chain, or (env->reuse) the same search's answer again. */
static void resolve_once(const char *name, const struct host_search_object *chain, size_t n,
			 const struct host_resolve_env *env, struct host_resolution *out)
{
	char *key;
	size_t i;

	if (!env || !env->reuse) {
		host_resolve_chain(name, chain, n, env, out);
		return;
	}
	key = search_key(name, chain, n, env);
	for (i = 0; i < nsearches; i++)
		if (strcmp(searches[i].key, key) == 0) {
			free(key);
			copy_resolution(out, &searches[i].r);
			free(out->requester);
			out->requester = gt_xstrdup(n ? chain[0].path : "");
			return;
		}
	host_resolve_chain(name, chain, n, env, out);
	searches = gt_xrealloc(searches, (nsearches + 1) * sizeof(*searches));
	searches[nsearches].key = key;
	copy_resolution(&searches[nsearches++].r, out);
}

void host_resolve(const char *name, const char *requester, const char *const *loaders, size_t nloaders,
		  const struct host_resolve_env *env, struct host_resolution *out)
{
	struct host_search_object *chain = gt_xcalloc(nloaders + 1, sizeof(*chain));
	struct host_elf_load *own = gt_xcalloc(nloaders + 1, sizeof(*own));
	bool reuse = env && env->reuse;
	size_t n = 0;

	for (size_t i = 0; i <= nloaders; i++) {
		const char *obj = i == 0 ? requester : loaders[i - 1];
		const struct host_elf_load *l = &own[n];

		if (!obj)
			continue;
		if (reuse)
			l = program_load(obj);
		else
			host_elf_load_program(obj, &own[n]);
		chain[n] = (struct host_search_object){ .path = obj, .rpath = l->rpath, .runpath = l->runpath,
							 .is_main = i == nloaders,
							 .nodeflib = (l->flags_1 & DF_1_NODEFLIB) != 0 };
		n++;
	}
	resolve_once(name, chain, n, env, out);
	if (!requester) {
		free(out->requester);
		out->requester = NULL;
	}
	for (size_t i = 0; i < n; i++)
		host_elf_load_free(&own[i]);
	free(own);
	free(chain);
}

void host_resolution_free(struct host_resolution *r)
{
	for (size_t i = 0; r->cand && i < r->ncand; i++)
		free(r->cand[i].path);
	free(r->cand);
	host_free_strings(r->shadowed, r->nshadowed);
	free(r->name);
	free(r->requester);
	memset(r, 0, sizeof(*r));
	r->winner = -1;
}
