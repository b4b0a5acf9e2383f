/* The process model (see model.h): CUDA-family libraries with their versions
 * from every source, how they were found, and which package owns them. */
#define _GNU_SOURCE
#include "read/model.h"

#include <limits.h>
#include <signal.h>
#include <strings.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace_file.h"
#include "common/xalloc.h"
#include "host/elf_info.h"
#include "read/crash_frames.h"
#include "read/failed_load.h"

void gt_format_cudart_version(long v, char *out, size_t cap)
{
	snprintf(out, cap, "%ld.%ld", v / 1000, (v % 1000) / 10);
}

void gt_format_cudnn_version(long v, char *out, size_t cap)
{
	if (v >= 10000)  /* 9.x numbering: major*10000 + minor*100 + patch */
		snprintf(out, cap, "%ld.%ld.%ld", v / 10000, (v / 100) % 100, v % 100);
	else             /* 8.x: major*1000 + minor*100 + patch */
		snprintf(out, cap, "%ld.%ld.%ld", v / 1000, (v / 100) % 10, v % 100);
}

/* cuBLASLt and NCCL: major*10000 + minor*100 + patch. */
static void format_mmp100(long v, char *out, size_t cap)
{
	snprintf(out, cap, "%ld.%ld.%ld", v / 10000, (v / 100) % 100, v % 100);
}

/* ---- items by the file they name ----
 * Versions by their library, searches by their requester, libraries by
 * their file or SONAME: sorted by that key, so that a library finds its own
 * items by bisection. A walk of every item for every library was quadratic
 * in the copies of a family (issue 29). */
struct keyed {
	char *key;
	size_t at;     /* the item's index: equal keys keep trace order */
};

struct keyed_index {
	struct keyed *v;
	size_t n;
};

/* A file's key: its real path when the facts have one, else the path as
 * named. Two paths gt_facts_same_file() takes for one file have one key
 * (the converse is checked by the callers, who still ask same_file). */
static char *file_key(struct gt_host_facts *facts, const char *path)
{
	char real[PATH_MAX];

	return gt_xstrdup(gt_facts_real_path(facts, path, real, sizeof(real)) ? real : path);
}

static const char *lib_key(const struct gt_lib *l)
{
	return l->real_path[0] ? l->real_path : l->obj->path;
}

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* keys[i] (owned, NULL: no key) of n items, sorted. */
static void keyed_sort(struct keyed_index *ix, char **keys, size_t n)
{
	size_t i;

	ix->v = gt_xcalloc(n ? n : 1, sizeof(*ix->v));
	ix->n = 0;
	for (i = 0; i < n; i++)
		if (keys[i])
			ix->v[ix->n++] = (struct keyed){ keys[i], i };
	qsort(ix->v, ix->n, sizeof(*ix->v), by_key);
}

/* The first position whose key is key (ix->n if none): the items of key
 * follow it, in trace order. */
static size_t keyed_first(const struct keyed_index *ix, const char *key)
{
	size_t lo = 0, hi = ix->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(ix->v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool keyed_is(const struct keyed_index *ix, size_t k, const char *key)
{
	return k < ix->n && strcmp(ix->v[k].key, key) == 0;
}

static void keyed_free(struct keyed_index *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++)
		free(ix->v[i].key);
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

/* What the model is built with, beside the model: the trace's versions and
 * searches by file, and the libraries by file and by SONAME. */
struct build_index {
	struct keyed_index versions;   /* by their library's file */
	struct keyed_index searches;   /* by their requester's file */
	struct keyed_index libs;       /* by their file */
	struct keyed_index sonames;    /* by their SONAME, made when first needed */
	bool have_sonames;
};

static void index_versions_and_searches(struct gt_host_facts *facts, const struct gt_process *p,
					struct build_index *bx)
{
	size_t n = p->nversions > p->nsearches ? p->nversions : p->nsearches, i;
	char **keys = gt_xcalloc(n ? n : 1, sizeof(*keys));

	for (i = 0; i < p->nversions; i++)
		keys[i] = p->versions[i].lib ? file_key(facts, p->versions[i].lib) : NULL;
	keyed_sort(&bx->versions, keys, p->nversions);
	for (i = 0; i < p->nsearches; i++)
		keys[i] = p->searches[i].requester ? file_key(facts, p->searches[i].requester) : NULL;
	keyed_sort(&bx->searches, keys, p->nsearches);
	free(keys);
}

static void index_libs(const struct gt_proc_model *m, struct build_index *bx)
{
	char **keys = gt_xcalloc(m->nlibs ? m->nlibs : 1, sizeof(*keys));
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		keys[i] = gt_xstrdup(lib_key(&m->libs[i]));
	keyed_sort(&bx->libs, keys, m->nlibs);
	free(keys);
}

static const struct keyed_index *libs_by_soname(const struct gt_proc_model *m, struct build_index *bx)
{
	char **keys;
	size_t i;

	if (bx->have_sonames)
		return &bx->sonames;
	keys = gt_xcalloc(m->nlibs ? m->nlibs : 1, sizeof(*keys));
	for (i = 0; i < m->nlibs; i++)
		keys[i] = m->libs[i].obj->soname ? gt_xstrdup(m->libs[i].obj->soname) : NULL;
	keyed_sort(&bx->sonames, keys, m->nlibs);
	free(keys);
	bx->have_sonames = true;
	return &bx->sonames;
}

static void build_index_free(struct build_index *bx)
{
	keyed_free(&bx->versions);
	keyed_free(&bx->searches);
	keyed_free(&bx->libs);
	keyed_free(&bx->sonames);
}

/* cuDNN 9's front library forwards cudnnGetVersion to the graph library it
 * loaded: that answer is the graph library's, never the front's own. */
static bool forwarded_to_graph(const struct gt_lib *l, const struct gt_version *v)
{
	return strcmp(l->fi.component, "cudnn") == 0 && strcmp(v->fn, "cudnnGetVersion") == 0 &&
	       v->value >= 90000;
}

static void set_answer(struct gt_lib *l, const struct gt_version *v, const char *from)
{
	if (strcmp(v->fn, "cudaRuntimeGetVersion") == 0 || strcmp(v->fn, "cuDriverGetVersion") == 0)
		gt_format_cudart_version((long)v->value, l->api_version, sizeof(l->api_version));
	else if (strcmp(v->fn, "cudnnGetVersion") == 0)
		gt_format_cudnn_version((long)v->value, l->api_version, sizeof(l->api_version));
	else if (strcmp(v->fn, "cublasLtGetVersion") == 0 || strcmp(v->fn, "ncclGetVersion") == 0)
		format_mmp100((long)v->value, l->api_version, sizeof(l->api_version));
	else
		return;
	l->api_from = from;
}

/* The answers this very object gave, in the form users know. */
static void own_answers(struct gt_host_facts *facts, const struct gt_process *p, const struct build_index *bx,
			struct gt_lib *l)
{
	int major = -1, minor = -1, patch = -1;
	size_t k;

	for (k = keyed_first(&bx->versions, lib_key(l)); keyed_is(&bx->versions, k, lib_key(l)); k++) {
		const struct gt_version *v = &p->versions[bx->versions.v[k].at];

		if (v->status != 0 || !gt_facts_same_file(facts, v->lib, l->obj->path) || forwarded_to_graph(l, v))
			continue;
		if (strcmp(v->fn, "cublasGetProperty") == 0 && v->property == 0)
			major = (int)v->value;
		else if (strcmp(v->fn, "cublasGetProperty") == 0 && v->property == 1)
			minor = (int)v->value;
		else if (strcmp(v->fn, "cublasGetProperty") == 0 && v->property == 2)
			patch = (int)v->value;
		else
			set_answer(l, v, l->obj->path);
	}
	if (major >= 0 && minor >= 0 && patch >= 0) {
		snprintf(l->api_version, sizeof(l->api_version), "%d.%d.%d", major, minor, patch);
		l->api_from = l->obj->path;
	}
}

/* The graph library a cuDNN 9 front resolved: what its own searches for a
 * graph library gave (the last one), else the only graph part of its copy. */
static struct gt_lib *graph_of_front(struct gt_proc_model *m, const struct build_index *bx,
				     const struct gt_lib *front)
{
	const struct gt_process *p = m->proc;
	const struct gt_copy *c = &m->copies[front->copy];
	struct gt_family_info fi;
	struct gt_lib *only = NULL;
	size_t i, k, first = keyed_first(&bx->searches, lib_key(front)), n = 0;

	/* the front's searches, the last first */
	for (i = first; keyed_is(&bx->searches, i, lib_key(front)); i++)
		;
	while (i-- > first) {
		const struct gt_search *s = &p->searches[bx->searches.v[i].at];
		char *key;

		if (!s->path || !gt_classify(s->path, &fi) || strcmp(fi.component, "cudnn_graph") != 0 ||
		    !gt_facts_same_file(m->facts, s->requester, front->obj->path))
			continue;
		key = file_key(m->facts, s->path);
		for (k = keyed_first(&bx->libs, key); keyed_is(&bx->libs, k, key); k++) {
			struct gt_lib *l = &m->libs[bx->libs.v[k].at];

			if (strcmp(l->fi.component, "cudnn_graph") == 0 && gt_facts_same_file(m->facts, l->obj->path, s->path)) {
				free(key);
				return l;
			}
		}
		free(key);
	}
	for (k = 0; k < c->nparts; k++)
		if (strcmp(m->libs[c->parts[k]].fi.component, "cudnn_graph") == 0) {
			only = &m->libs[c->parts[k]];
			n++;
		}
	if (!n && c->borrowed)
		return (struct gt_lib *)c->borrowed;
	return n == 1 ? only : NULL;
}

/* A front's forwarded answer goes to the graph library that front resolved,
 * unless that graph library answered for itself. */
static void forwarded_answers(struct gt_proc_model *m, const struct build_index *bx)
{
	const struct gt_process *p = m->proc;
	size_t i, k;

	for (i = 0; i < m->nlibs; i++) {
		struct gt_lib *front = &m->libs[i], *graph;

		for (k = keyed_first(&bx->versions, lib_key(front)); keyed_is(&bx->versions, k, lib_key(front)); k++) {
			const struct gt_version *v = &p->versions[bx->versions.v[k].at];

			if (v->status != 0 || !forwarded_to_graph(front, v) ||
			    !gt_facts_same_file(m->facts, v->lib, front->obj->path))
				continue;
			graph = graph_of_front(m, bx, front);
			if (graph && !graph->api_version[0])
				set_answer(graph, v, front->obj->path);
		}
	}
}

/* A version with at least major.minor says more than a bare major. */
static bool detailed(const char *v)
{
	return v[0] && strchr(v, '.');
}

static void choose_version(struct gt_lib *l)
{
	/* The driver's file name carries the driver version users ask about;
	 * its API answer is the CUDA version it supports. */
	bool driver = strcmp(l->fi.component, "cuda") == 0;
	const char *order[4][2] = {
		{ driver ? l->file_version : l->api_version, driver ? "file" : "api" },
		{ driver ? l->api_version : l->file_version, driver ? "api" : "file" },
		{ l->package_version, "package" },
		{ NULL, NULL },
	};
	int i;

	for (i = 0; order[i][0]; i++) {
		if (detailed(order[i][0])) {
			snprintf(l->version, sizeof(l->version), "%s", order[i][0]);
			l->version_source = order[i][1];
			return;
		}
	}
	snprintf(l->version, sizeof(l->version), "%s", l->file_version);
	l->version_source = l->file_version[0] ? "file" : "none";
}

/* The answer, the file name and the package, compared where each says more
 * than a major: when two differ for one file, the report shows all three. */
static void check_agreement(struct gt_lib *l)
{
	/* The driver answers with the CUDA version it supports, not its own. */
	bool driver = strcmp(l->fi.family, "driver") == 0;
	const char *say[3] = { driver ? "" : l->api_version, l->file_version, l->package_version };
	int i, k;

	for (i = 0; i < 3; i++)
		for (k = i + 1; k < 3; k++)
			if (detailed(say[i]) && detailed(say[k]) && !gt_same_release(say[i], say[k]))
				l->disagree = true;
}

/* Is `name` one of the names LD_PRELOAD (or /etc/ld.so.preload) gave the
 * loader? Entries are separated by spaces or colons, as ld.so reads them.
 * An empty name is none of them (and strstr would find it at every step:
 * a trace that said "name":"" hung the report, fuzz_report, stop 45). */
static bool in_preload_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *at;

	if (n == 0)
		return false;
	for (at = list; at && (at = strstr(at, name)); at += n)
		if ((at == list || at[-1] == ':' || at[-1] == ' ' || at[-1] == '\n' || at[-1] == '\t') &&
		    (at[n] == 0 || at[n] == ':' || at[n] == ' ' || at[n] == '\n' || at[n] == '\t'))
			return true;
	return false;
}

static bool preloaded(const struct gt_proc_model *m, const struct gt_object *ob)
{
	const struct gt_process *p = m->proc;
	const char *var = gt_process_env(p, "LD_PRELOAD");

	/* The loader asks for preloads on behalf of the program itself. */
	if (!ob->name || !ob->requester || !p->exe || strcmp(ob->requester, p->exe) != 0)
		return false;
	if (var && in_preload_list(var, ob->name))
		return true;
	return m->etc_preload[0] && in_preload_list(m->etc_preload, ob->name);
}

/* RPATH and RUNPATH share one flag in rtld-audit: the requester's dynamic
 * section on disk says which it was (with DT_RUNPATH, DT_RPATH is ignored).
 * A preloaded library is named by its mechanism, whatever rule found it. */
static enum gt_rule found_by(const struct gt_proc_model *m, const struct gt_object *ob)
{
	struct host_elf_info info;
	enum gt_rule rule = ob->rule;

	if (preloaded(m, ob))
		return GT_RULE_PRELOAD;
	if (!ob->requester || (rule != GT_RULE_RPATH && rule != GT_RULE_RUNPATH))
		return rule;
	if (gt_facts_elf(m->facts, ob->requester, &info))
		rule = info.runpath ? GT_RULE_RUNPATH : info.rpath ? GT_RULE_RPATH : rule;
	host_elf_free(&info);
	return rule;
}

/* Words in the names of a family's own distributions, any installer's:
 * pip nvidia-cudnn-cu13 and nvidia-cuda-runtime, conda cudnn and
 * cuda-cudart, dpkg libcudnn9-cuda-12, cuda-cudart-12-4 and libnccl2. */
static const char *const *own_distribution_words(const char *family)
{
	static const struct { const char *family; const char *words[5]; } table[] = {
		{ "cudnn", { "cudnn", NULL } },
		{ "cudart", { "cudart", "cuda-runtime", "cuda_runtime", "cudatoolkit", NULL } },
		{ "cublas", { "cublas", NULL } },     { "nccl", { "nccl", NULL } },
		{ "cufft", { "cufft", NULL } },       { "curand", { "curand", NULL } },
		{ "cusparse", { "cusparse", NULL } }, { "cusolver", { "cusolver", NULL } },
		{ "nvrtc", { "nvrtc", NULL } },       { "nvjitlink", { "nvjitlink", NULL } },
		{ "cupti", { "cupti", NULL } },       { "nvtx", { "nvtx", NULL } },
		{ "driver", { "nvidia-compute", "libcuda1", "nvidia-driver", "cuda-compat", NULL } },
		{ "nvml", { "nvidia-compute", "libnvidia-ml", "nvidia-driver", NULL } },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].family, family) == 0)
			return table[i].words;
	return NULL;
}

/* torch 2.0.0's RECORD lists the torch/lib/libcudnn.so.8 it bundles, but
 * 2.0.0 is torch's version, not cuDNN's: taken as cuDNN's, it made a false
 * mixed-versions against the front's own answer (8.7.0). */
bool gt_package_speaks_for(const struct host_package *pk, const struct gt_family_info *fi)
{
	const char *const *w = own_distribution_words(fi->family);

	for (; w && *w; w++)
		if (strcasestr(pk->name, *w))
			return true;
	return false;
}

/* l is zeroed already (m->libs is calloc'd): a memset of its 8 KiB would
 * touch every page of a 20,000-copy model for nothing. */
static void build_lib(const struct gt_proc_model *m, const struct build_index *bx, const struct gt_object *ob,
		      struct gt_lib *l)
{
	char real[PATH_MAX];
	struct gt_family_info real_fi;
	struct host_package pk;

	l->obj = ob;
	gt_classify(ob->path, &l->fi);
	/* A file that is gone has no real path: glibc's realpath leaves what it
	 * resolved so far in the buffer, and two copies that are not on this
	 * disk must not look like two files that are. */
	if (!gt_facts_real_path(m->facts, ob->path, real, sizeof(real)))
		real[0] = 0;
	l->real_path = gt_xstrdup(real);
	if (l->real_path[0] && gt_classify(l->real_path, &real_fi))
		snprintf(l->file_version, sizeof(l->file_version), "%s", real_fi.version);
	else
		snprintf(l->file_version, sizeof(l->file_version), "%s", l->fi.version);
	own_answers(m->facts, m->proc, bx, l);
	l->has_package = gt_facts_package(m->facts, ob->path, &pk);
	if (l->has_package) {
		snprintf(l->package.manager, sizeof(l->package.manager), "%s", pk.manager);
		snprintf(l->package.name, sizeof(l->package.name), "%s", pk.name);
		snprintf(l->package.version, sizeof(l->package.version), "%s", pk.version);
	}
	if (l->has_package && gt_package_speaks_for(&pk, &l->fi))
		snprintf(l->package_version, sizeof(l->package_version), "%s", pk.version);
	l->found_by = found_by(m, ob);
}

/* The libraries were made in the order of the trace's objects: their
 * objects' addresses grow with their index, so bisection finds one. */
const struct gt_lib *gt_lib_of_object(const struct gt_proc_model *m, const struct gt_object *ob)
{
	size_t lo = 0, hi = m->nlibs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->libs[mid].obj == ob)
			return &m->libs[mid];
		if ((uintptr_t)m->libs[mid].obj < (uintptr_t)ob)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A library's folder: of its real file when it is on this disk. */
static void folder_of(const struct gt_lib *l, char *out, size_t cap)
{
	gt_folder_of(l->real_path[0] ? l->real_path : l->obj->path, out, cap);
}

/* The family's main library: cuDNN's libcudnn, cuBLAS's libcublas ... (the
 * driver has one part). Parts without one are a partial copy. */
static bool is_front(const struct gt_lib *l)
{
	return strcasecmp(l->fi.component, l->fi.family) == 0 || strcmp(l->fi.family, "driver") == 0 ||
	       (strcmp(l->fi.family, "nvml") == 0);
}

static size_t first_at(const struct gt_proc_model *m, const size_t *order, const char *path);
static size_t *libs_by_path(const struct gt_proc_model *m);

/* The part of the same family loaded before l that asked for it, if any:
 * the parts at the requester's path are found by bisection in order (the
 * libraries sorted by path, then load order). */
static struct gt_lib *family_requester(struct gt_proc_model *m, const size_t *order, size_t i)
{
	const struct gt_lib *l = &m->libs[i];
	size_t k;

	if (!l->obj->requester)
		return NULL;
	for (k = first_at(m, order, l->obj->requester);
	     k < m->nlibs && order[k] < i && strcmp(m->libs[order[k]].obj->path, l->obj->requester) == 0; k++)
		if (strcmp(m->libs[order[k]].fi.family, l->fi.family) == 0)
			return &m->libs[order[k]];
	return NULL;
}

/* c is zeroed already (m->copies is calloc'd; a copy is made once). */
static size_t new_copy(struct gt_proc_model *m, const struct gt_lib *l, const char *folder, size_t at)
{
	struct gt_copy *c = &m->copies[m->ncopies];

	c->family = l->fi.family;
	c->first = at;
	c->folder = gt_xstrdup(folder);
	c->ns = l->obj->ns;
	c->major = gt_version_major(l->file_version);
	return m->ncopies++;
}

static uint64_t copy_key(const char *family, const char *folder, int major)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *s;

	for (s = family; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL;
	for (s = folder; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ (uint64_t)(unsigned)major) * 0x9e3779b97f4a7c15ULL;
}

/* Parts join the copy of the part that loaded them; the others join the copy
 * of their folder and major version, or start one. The copies are found by
 * a hash of (family, folder, major), the requester by bisection: linear in
 * the parts (issue 29). */
static void first_grouping(struct gt_proc_model *m)
{
	char folder[4096];
	size_t i, k, cap = 16, mask, *order = libs_by_path(m), *slot;

	while (cap < 2 * m->nlibs)
		cap *= 2;
	mask = cap - 1;
	slot = calloc(cap, sizeof(*slot));  /* copy + 1; 0: empty */
	if (!slot)
		abort();
	for (i = 0; i < m->nlibs; i++) {
		struct gt_lib *l = &m->libs[i], *parent = family_requester(m, order, i);
		int major = gt_version_major(l->file_version);
		uint64_t h;

		if (parent) {
			l->copy = parent->copy;
			continue;
		}
		folder_of(l, folder, sizeof(folder));
		h = copy_key(l->fi.family, folder, major);
		for (k = (size_t)h & mask; slot[k]; k = (k + 1) & mask) {
			const struct gt_copy *c = &m->copies[slot[k] - 1];

			if (strcmp(c->family, l->fi.family) == 0 && strcmp(c->folder, folder) == 0 && c->major == major)
				break;
		}
		if (!slot[k])
			slot[k] = new_copy(m, l, folder, i) + 1;
		l->copy = slot[k] - 1;
	}
	free(slot);
	free(order);
}

static bool majors_match(int a, int b)
{
	return a < 0 || b < 0 || a == b;
}

/* The copies holding a front, counted per (family, major): a handful of
 * groups, whatever the number of copies. */
struct front_group {
	const char *family;
	int major;
	size_t n, last;   /* how many copies, and the last of them */
};

static size_t group_fronts(const struct gt_proc_model *m, struct front_group *g)
{
	size_t k, i, n = 0;

	for (k = 0; k < m->ncopies; k++) {
		const struct gt_copy *c = &m->copies[k];

		if (!c->has_front)
			continue;
		for (i = 0; i < n && (g[i].major != c->major || strcmp(g[i].family, c->family) != 0); i++)
			;
		if (i == n)
			g[n++] = (struct front_group){ c->family, c->major, 0, 0 };
		g[i].n++;
		g[i].last = k;
	}
	return n;
}

/* Parts with no main library of their own (a graph library found on
 * LD_LIBRARY_PATH) serve the one copy of their family that has one. Linear
 * in the copies and parts: each partial copy looks at the groups of front
 * copies, not at every copy (issue 29). */
static void merge_partial_copies(struct gt_proc_model *m)
{
	size_t i, k, g, ngroups, fronts, into, n = m->ncopies ? m->ncopies : 1;
	struct front_group *groups = gt_xcalloc(n, sizeof(*groups));
	size_t *to = gt_xcalloc(n, sizeof(*to));

	for (i = 0; i < m->nlibs; i++)
		if (is_front(&m->libs[i]))
			m->copies[m->libs[i].copy].has_front = true;
	ngroups = group_fronts(m, groups);
	for (k = 0; k < m->ncopies; k++) {
		to[k] = k;
		if (m->copies[k].has_front)
			continue;
		fronts = 0;
		into = 0;
		for (g = 0; g < ngroups; g++)
			if (strcmp(groups[g].family, m->copies[k].family) == 0 &&
			    majors_match(groups[g].major, m->copies[k].major)) {
				fronts += groups[g].n;
				into = groups[g].last > into ? groups[g].last : into;
			}
		if (fronts == 1)
			to[k] = into;
	}
	for (i = 0; i < m->nlibs; i++)
		m->libs[i].copy = to[m->libs[i].copy];
	free(groups);
	free(to);
}

/* Each copy's parts, in load order, in one array: rules and renderers walk a
 * copy's parts, not every library for every copy. */
static void list_parts(struct gt_proc_model *m)
{
	size_t i, k, at = 0, *next = calloc(m->ncopies ? m->ncopies : 1, sizeof(*next));

	m->part_index = calloc(m->nlibs ? m->nlibs : 1, sizeof(*m->part_index));
	if (!next || !m->part_index)
		abort();
	for (k = 0; k < m->ncopies; k++) {
		m->copies[k].parts = m->part_index + at;
		next[k] = at;
		at += m->copies[k].nparts;
	}
	for (i = 0; i < m->nlibs; i++)
		m->part_index[next[m->libs[i].copy]++] = i;
	free(next);
}

/* Drops the copies left empty, keeps load order, numbers them per family.
 * Linear in parts and copies (issue 29: a walk of every part for every copy
 * was most of a 20,000-copy report). */
static void compact_copies(struct gt_proc_model *m)
{
	size_t i, k, f, kept = 0, nfam = 0, n = m->ncopies ? m->ncopies : 1;
	size_t *to = calloc(n, sizeof(*to)), *parts = calloc(n, sizeof(*parts)), *seen = calloc(n, sizeof(*seen));
	const char **fam = calloc(n, sizeof(*fam));

	if (!to || !parts || !seen || !fam)
		abort();  /* a few words: the command's allocations abort too */
	for (i = 0; i < m->nlibs; i++)
		parts[m->libs[i].copy]++;
	for (k = 0; k < m->ncopies; k++) {
		m->copies[k].nparts = parts[k];
		if (!parts[k]) {
			free(m->copies[k].folder);
			continue;
		}
		to[k] = kept;
		m->copies[kept++] = m->copies[k];
	}
	m->ncopies = kept;
	for (i = m->nlibs; i-- > 0;) {
		m->libs[i].copy = to[m->libs[i].copy];
		m->copies[m->libs[i].copy].first = i;  /* the lowest index wins */
	}
	/* A handful of families: a list of them, each with its count so far. */
	for (k = 0; k < m->ncopies; k++) {
		for (f = 0; f < nfam && strcmp(fam[f], m->copies[k].family) != 0; f++)
			;
		if (f == nfam)
			fam[nfam++] = m->copies[k].family;
		m->copies[k].number = (int)++seen[f];
		to[k] = f;
	}
	for (k = 0; k < m->ncopies; k++)
		m->copies[k].family_copies = (int)seen[to[k]];
	list_parts(m);
	free(to);
	free(parts);
	free(seen);
	free(fam);
}

static void add_user(struct gt_copy *c, const char *requester)
{
	const char *name = gt_base_name(requester);
	size_t len = strlen(c->users), n = strlen(name);
	const char *at;

	/* A requester path ending in '/' (a damaged trace) has no name: and
	 * strstr(s, "") matches at every s, so the walk below would step past
	 * the string's end (found by fuzz_report). */
	if (n == 0)
		return;
	for (at = strstr(c->users, name); at; at = strstr(at + 1, name))
		if ((at == c->users || at[-1] == ' ') && (at[n] == ',' || at[n] == 0))
			return;
	if (len + n + 3 < sizeof(c->users))
		snprintf(c->users + len, sizeof(c->users) - len, "%s%s", len ? ", " : "", name);
}

/* Library indices sorted by path (then load order): the parts at one path
 * are found by bisection, not by a walk of every part of every copy per
 * search (issue 29: 20,000 copies took minutes). */
static const struct gt_proc_model *by_path_model;

static int by_path(const void *a, const void *b)
{
	const struct gt_lib *x = &by_path_model->libs[*(const size_t *)a];
	const struct gt_lib *y = &by_path_model->libs[*(const size_t *)b];
	int c = strcmp(x->obj->path, y->obj->path);

	return c ? c : (x > y) - (x < y);
}

static size_t *libs_by_path(const struct gt_proc_model *m)
{
	size_t i, *order = calloc(m->nlibs ? m->nlibs : 1, sizeof(*order));

	if (!order)
		abort();
	for (i = 0; i < m->nlibs; i++)
		order[i] = i;
	by_path_model = m;
	qsort(order, m->nlibs, sizeof(*order), by_path);
	return order;
}

/* The first position in order whose library is at path (nlibs if none). */
static size_t first_at(const struct gt_proc_model *m, const size_t *order, const char *path)
{
	size_t lo = 0, hi = m->nlibs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(m->libs[order[mid]].obj->path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool family_object(const char *path, const char *family)
{
	struct gt_family_info fi;

	return gt_classify(path, &fi) && strcmp(fi.family, family) == 0;
}

/* Scope (who can bind to its symbols) and users (who asked for it). */
static void describe_copies(struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	size_t i, k, *order;

	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *l = &m->libs[i];
		struct gt_copy *c = &m->copies[l->copy];

		if (!c->global && (l->obj->global || l->obj->startup || l->found_by == GT_RULE_PRELOAD)) {
			c->global = true;
			c->global_part = l;
		}
		if (l->obj->requester && !family_object(l->obj->requester, l->fi.family))
			add_user(c, l->obj->requester);
	}
	order = libs_by_path(m);
	for (i = 0; i < p->nsearches; i++) {
		const struct gt_search *s = &p->searches[i];

		if (s->ours || !s->path || !s->requester)
			continue;
		for (k = first_at(m, order, s->path);
		     k < m->nlibs && strcmp(m->libs[order[k]].obj->path, s->path) == 0; k++) {
			struct gt_copy *c = &m->copies[m->libs[order[k]].copy];

			if (!family_object(s->requester, c->family))
				add_user(c, s->requester);
		}
	}
	free(order);
}

/* Did the front search for a graph library and find none by its longer
 * names? cuDNN 9 asks for libcudnn_graph.so.9.19.0, .9.19, then .9; the last
 * matches an already-loaded graph library's SONAME without any search. */
static bool front_searched_graph_in_vain(const struct gt_process *p, const struct build_index *bx,
					 const struct gt_lib *front)
{
	struct gt_family_info fi;
	bool tried = false;
	size_t k;

	for (k = keyed_first(&bx->searches, lib_key(front)); keyed_is(&bx->searches, k, lib_key(front)); k++) {
		const struct gt_search *s = &p->searches[bx->searches.v[k].at];

		if (!s->name || strcmp(s->requester, front->obj->path) != 0 || !gt_classify(s->name, &fi) ||
		    strcmp(fi.component, "cudnn_graph") != 0)
			continue;
		if (s->result && strcmp(s->result, GT_RESULT_NOT_FOUND) != 0)
			return false;  /* it found one: the copy has it */
		tried = true;
	}
	return tried;
}

static bool copy_has(const struct gt_proc_model *m, size_t copy, const char *component)
{
	const struct gt_copy *c = &m->copies[copy];
	size_t k;

	for (k = 0; k < c->nparts; k++)
		if (strcmp(m->libs[c->parts[k]].fi.component, component) == 0)
			return true;
	return false;
}

/* A cuDNN 9 front with no graph library of its own, that searched for one in
 * vain, got the graph library of another copy loaded under the SONAME it
 * asked for last (libcudnn_graph.so.<major>, same namespace): a 9.19 front
 * running a 9.14 graph library, though no search says so. */
static void find_borrowed_graphs(struct gt_proc_model *m, struct build_index *bx)
{
	const struct keyed_index *by_soname;
	char soname[64];
	size_t i, k;

	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *front = &m->libs[i];
		struct gt_copy *c = &m->copies[front->copy];

		if (strcmp(front->fi.component, "cudnn") != 0 || gt_version_major(front->fi.version) < 9 ||
		    c->borrowed || !front_searched_graph_in_vain(m->proc, bx, front))
			continue;
		if (copy_has(m, front->copy, "cudnn_graph"))
			continue;  /* a graph library of its own */
		snprintf(soname, sizeof(soname), "libcudnn_graph.so.%d", gt_version_major(front->fi.version));
		by_soname = libs_by_soname(m, bx);
		for (k = keyed_first(by_soname, soname); keyed_is(by_soname, k, soname); k++) {
			const struct gt_lib *l = &m->libs[by_soname->v[k].at];

			if (l->copy != front->copy && l->obj->ns == front->obj->ns) {
				c->borrowed = l;
				break;
			}
		}
	}
}

static void build_copies(struct gt_proc_model *m, struct build_index *bx)
{
	m->copies = calloc(m->nlibs ? m->nlibs : 1, sizeof(*m->copies));
	if (!m->copies)
		abort();
	first_grouping(m);
	merge_partial_copies(m);
	compact_copies(m);
	describe_copies(m);
	find_borrowed_graphs(m, bx);
}

/* A trace without its closing line whose process is still there (the same
 * pid and start time, on this host): a daemon child the program left
 * running, not a crash. */
static bool still_running(const struct gt_process *p)
{
	char host[256];

	if (!p->start_ticks || !p->host || p->pid <= 0)
		return false;
	gt_host_name(host, sizeof(host));
	return strcmp(host, p->host) == 0 && gt_start_ticks_of(p->pid) == p->start_ticks;
}

static void ending(struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;

	m->ended_how = "unknown";
	/* Paper has no run: a start the loader would complete is taken to go
	 * on to a plain end, so that only the files are judged. */
	if (p->paper && !p->reaped) {
		m->ended_how = "exit";
		return;
	}
	if (p->reaped && p->reaped_signal) {
		m->ended_how = "signal";
		m->ended_signal = p->reaped_signal;
	} else if (p->fatal_signal) {
		m->ended_how = "signal";
		m->ended_signal = p->fatal_signal;
	} else if (p->reaped || p->clean_end) {
		m->ended_how = "exit";
		m->ended_status = p->reaped ? p->exit_status : p->end_status;
	} else if (still_running(p)) {
		m->ended_how = "running";
	}
	/* Ctrl-C, a launcher's or a pool's terminate, a closed terminal: the
	 * process was stopped, it did not crash. */
	m->stopped = m->ended_signal == SIGINT || m->ended_signal == SIGTERM || m->ended_signal == SIGHUP;
}

bool gt_model_failed(const struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	size_t i;

	/* Stopped by a process of the same run (a pool ending its workers):
	 * that is how such a process ends, not a failure. */
	if (m->stopped_by)
		return false;
	/* SIGPIPE: the reader of its output went away (`yes | head -n 1`). */
	if (strcmp(m->ended_how, "signal") == 0 && m->ended_signal != SIGPIPE)
		return true;
	if (strcmp(m->ended_how, "exit") == 0 && m->ended_status > 0)
		return true;
	for (i = 0; i < p->ncalls; i++)
		if (p->calls[i].status != 0)
			return true;
	for (i = 0; i < p->ntotals; i++)
		if (p->totals[i].status != 0)
			return true;
	return false;
}

static void index_objects(struct gt_proc_model *m);

bool gt_model_build(struct gt_process *p, struct gt_host_facts *facts, struct gt_proc_model *m)
{
	struct build_index bx = { 0 };
	struct gt_family_info fi;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->proc = p;
	m->facts = facts;
	m->etc_preload = gt_facts_etc_preload(facts);
	index_objects(m);
	m->libs = calloc(p->nobjects ? p->nobjects : 1, sizeof(*m->libs));
	if (!m->libs)
		return false;
	/* The installers' records are read once for all the libraries. */
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && gt_classify(p->objects[i].path, &fi) && !p->objects[i].closed)
			gt_facts_package_want(facts, p->objects[i].path);
	index_versions_and_searches(facts, p, &bx);
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && gt_classify(p->objects[i].path, &fi) && !p->objects[i].closed)
			build_lib(m, &bx, &p->objects[i], &m->libs[m->nlibs++]);
	index_libs(m, &bx);
	build_copies(m, &bx);
	forwarded_answers(m, &bx);
	build_index_free(&bx);
	for (i = 0; i < m->nlibs; i++) {
		choose_version(&m->libs[i]);
		check_agreement(&m->libs[i]);
	}
	ending(m);
	m->nfailed = gt_failed_loads_build(p, facts, &m->failed);
	m->nframes = gt_crash_frames_build(p, facts, &m->frames);
	for (i = 0; i < m->nframes; i++)
		m->frames[i].lib = m->frames[i].obj ? gt_lib_of_object(m, m->frames[i].obj) : NULL;
	return true;
}

void gt_model_free(struct gt_proc_model *m)
{
	size_t i;

	gt_failed_loads_free(m->failed, m->nfailed);
	free(m->frames);
	for (i = 0; i < m->ncopies; i++)
		free(m->copies[i].folder);
	for (i = 0; i < m->nlibs; i++)
		free(m->libs[i].real_path);
	free(m->copies);
	free(m->part_index);
	free(m->objects_by_path);
	free(m->libs);
	memset(m, 0, sizeof(*m));
}

const char *gt_object_preloaded_root(const struct gt_proc_model *m, const struct gt_object *ob)
{
	const struct gt_object *req;
	size_t depth;

	for (depth = 0; ob && depth < 32; depth++) {
		if (preloaded(m, ob))
			return ob->path;
		if (!ob->requester)
			break;
		req = gt_model_object_at(m, ob->requester);
		ob = req != ob ? req : NULL;
	}
	return NULL;
}

static int by_object_path(const void *a, const void *b)
{
	const struct gt_object *x = &by_path_model->proc->objects[*(const size_t *)a];
	const struct gt_object *y = &by_path_model->proc->objects[*(const size_t *)b];
	int c = strcmp(x->path, y->path);

	return c ? c : (x > y) - (x < y);
}

/* The objects with a path, sorted by it, then trace order. */
static void index_objects(struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	size_t i;

	m->objects_by_path = gt_xcalloc(p->nobjects ? p->nobjects : 1, sizeof(*m->objects_by_path));
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path)
			m->objects_by_path[m->nobjects_by_path++] = i;
	by_path_model = m;
	qsort(m->objects_by_path, m->nobjects_by_path, sizeof(*m->objects_by_path), by_object_path);
}

const size_t *gt_model_objects_at(const struct gt_proc_model *m, const char *path, size_t *n)
{
	const struct gt_object *v = m->proc->objects;
	size_t lo = 0, hi = m->nobjects_by_path, mid, end;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(v[m->objects_by_path[mid]].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < m->nobjects_by_path && strcmp(v[m->objects_by_path[end]].path, path) == 0; end++)
		;
	*n = end - lo;
	return m->objects_by_path + lo;
}

const struct gt_object *gt_model_object_at(const struct gt_proc_model *m, const char *path)
{
	size_t n;
	const size_t *at = gt_model_objects_at(m, path, &n);

	return n ? &m->proc->objects[at[0]] : NULL;
}

const char *gt_model_preloaded_root(const struct gt_proc_model *m, const struct gt_lib *l)
{
	return gt_object_preloaded_root(m, l->obj);
}

size_t gt_model_copies_of(const struct gt_proc_model *m, const char *family)
{
	size_t k, n = 0;

	for (k = 0; k < m->ncopies; k++)
		n += strcmp(m->copies[k].family, family) == 0;
	return n;
}

void gt_lib_mechanism(const struct gt_lib *l, char *out, size_t cap)
{
	const char *req = l->obj->requester ? gt_base_name(l->obj->requester) : NULL;

	switch (l->found_by) {
	case GT_RULE_PRELOAD:
		snprintf(out, cap, "LD_PRELOAD");
		break;
	case GT_RULE_LD_LIBRARY_PATH:
		snprintf(out, cap, "LD_LIBRARY_PATH");
		break;
	case GT_RULE_RPATH:
	case GT_RULE_RUNPATH:
		snprintf(out, cap, "the %s of %s", l->found_by == GT_RULE_RPATH ? "RPATH" : "RUNPATH",
			 req ? req : "its requester");
		break;
	case GT_RULE_LD_SO_CACHE:
		snprintf(out, cap, "ld.so.cache (ldconfig's folders)");
		break;
	case GT_RULE_DEFAULT:
		snprintf(out, cap, "the loader's default folders");
		break;
	case GT_RULE_ABSOLUTE:
		if (req)
			snprintf(out, cap, "an absolute dlopen by %s", req);
		else
			snprintf(out, cap, "an absolute path");
		break;
	default:
		snprintf(out, cap, "a rule the trace does not say");
		break;
	}
}

const struct gt_lib *gt_model_find(const struct gt_proc_model *m, const char *component)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (strcmp(m->libs[i].fi.component, component) == 0)
			return &m->libs[i];
	return NULL;
}
