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
static void own_answers(struct gt_host_facts *facts, const struct gt_process *p, struct gt_lib *l)
{
	int major = -1, minor = -1, patch = -1;
	size_t i;

	for (i = 0; i < p->nversions; i++) {
		const struct gt_version *v = &p->versions[i];

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
static struct gt_lib *graph_of_front(struct gt_proc_model *m, const struct gt_lib *front)
{
	const struct gt_process *p = m->proc;
	struct gt_family_info fi;
	struct gt_lib *only = NULL;
	size_t i, k, n = 0;

	for (i = p->nsearches; i-- > 0;) {
		const struct gt_search *s = &p->searches[i];

		if (!s->path || !s->requester || !gt_classify(s->path, &fi) ||
		    strcmp(fi.component, "cudnn_graph") != 0 ||
		    !gt_facts_same_file(m->facts, s->requester, front->obj->path))
			continue;
		for (k = 0; k < m->nlibs; k++)
			if (strcmp(m->libs[k].fi.component, "cudnn_graph") == 0 &&
			    gt_facts_same_file(m->facts, m->libs[k].obj->path, s->path))
				return &m->libs[k];
	}
	for (k = 0; k < m->nlibs; k++)
		if (m->libs[k].copy == front->copy && strcmp(m->libs[k].fi.component, "cudnn_graph") == 0) {
			only = &m->libs[k];
			n++;
		}
	if (!n && m->copies[front->copy].borrowed)
		return (struct gt_lib *)m->copies[front->copy].borrowed;
	return n == 1 ? only : NULL;
}

/* A front's forwarded answer goes to the graph library that front resolved,
 * unless that graph library answered for itself. */
static void forwarded_answers(struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	size_t i, k;

	for (i = 0; i < m->nlibs; i++) {
		struct gt_lib *front = &m->libs[i], *graph;

		for (k = 0; k < p->nversions; k++) {
			const struct gt_version *v = &p->versions[k];

			if (v->status != 0 || !forwarded_to_graph(front, v) ||
			    !gt_facts_same_file(m->facts, v->lib, front->obj->path))
				continue;
			graph = graph_of_front(m, front);
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
 * loader? Entries are separated by spaces or colons, as ld.so reads them. */
static bool in_preload_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *at;

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
static void build_lib(const struct gt_proc_model *m, const struct gt_object *ob, struct gt_lib *l)
{
	struct gt_family_info real_fi;

	l->obj = ob;
	gt_classify(ob->path, &l->fi);
	/* A file that is gone has no real path: glibc's realpath leaves what it
	 * resolved so far in the buffer, and two copies that are not on this
	 * disk must not look like two files that are. */
	if (!gt_facts_real_path(m->facts, ob->path, l->real_path, sizeof(l->real_path)))
		l->real_path[0] = 0;
	if (l->real_path[0] && gt_classify(l->real_path, &real_fi))
		snprintf(l->file_version, sizeof(l->file_version), "%s", real_fi.version);
	else
		snprintf(l->file_version, sizeof(l->file_version), "%s", l->fi.version);
	own_answers(m->facts, m->proc, l);
	l->has_package = gt_facts_package(m->facts, ob->path, &l->package);
	if (l->has_package && gt_package_speaks_for(&l->package, &l->fi))
		snprintf(l->package_version, sizeof(l->package_version), "%s", l->package.version);
	l->found_by = found_by(m, ob);
}

const struct gt_lib *gt_lib_of_object(const struct gt_proc_model *m, const struct gt_object *ob)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (m->libs[i].obj == ob)
			return &m->libs[i];
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

/* c is zeroed already (m->copies is calloc'd; a copy is made once): a memset
 * of its 5 KiB would touch every page of 20,000 copies for nothing. */
static size_t new_copy(struct gt_proc_model *m, const struct gt_lib *l, size_t at)
{
	struct gt_copy *c = &m->copies[m->ncopies];

	c->family = l->fi.family;
	c->first = at;
	folder_of(l, c->folder, sizeof(c->folder));
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
			slot[k] = new_copy(m, l, i) + 1;
		l->copy = slot[k] - 1;
	}
	free(slot);
	free(order);
}

static bool majors_match(int a, int b)
{
	return a < 0 || b < 0 || a == b;
}

/* Parts with no main library of their own (a graph library found on
 * LD_LIBRARY_PATH) serve the one copy of their family that has one. */
static void merge_partial_copies(struct gt_proc_model *m)
{
	size_t i, k, into, fronts;

	for (i = 0; i < m->nlibs; i++)
		if (is_front(&m->libs[i]))
			m->copies[m->libs[i].copy].has_front = true;
	for (k = 0; k < m->ncopies; k++) {
		if (m->copies[k].has_front)
			continue;
		into = 0;
		fronts = 0;
		for (i = 0; i < m->ncopies; i++)
			if (m->copies[i].has_front && strcmp(m->copies[i].family, m->copies[k].family) == 0 &&
			    majors_match(m->copies[i].major, m->copies[k].major)) {
				into = i;
				fronts++;
			}
		if (fronts != 1)
			continue;
		for (i = 0; i < m->nlibs; i++)
			if (m->libs[i].copy == k)
				m->libs[i].copy = into;
	}
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
		if (!parts[k])
			continue;
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
static bool front_searched_graph_in_vain(const struct gt_process *p, const struct gt_lib *front)
{
	struct gt_family_info fi;
	bool tried = false;
	size_t i;

	for (i = 0; i < p->nsearches; i++) {
		const struct gt_search *s = &p->searches[i];

		if (!s->requester || !s->name || strcmp(s->requester, front->obj->path) != 0 ||
		    !gt_classify(s->name, &fi) || strcmp(fi.component, "cudnn_graph") != 0)
			continue;
		if (s->result && strcmp(s->result, GT_RESULT_NOT_FOUND) != 0)
			return false;  /* it found one: the copy has it */
		tried = true;
	}
	return tried;
}

static bool copy_has(const struct gt_proc_model *m, size_t copy, const char *component)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (m->libs[i].copy == copy && strcmp(m->libs[i].fi.component, component) == 0)
			return true;
	return false;
}

/* A cuDNN 9 front with no graph library of its own, that searched for one in
 * vain, got the graph library of another copy loaded under the SONAME it
 * asked for last (libcudnn_graph.so.<major>, same namespace): a 9.19 front
 * running a 9.14 graph library, though no search says so. */
static void find_borrowed_graphs(struct gt_proc_model *m)
{
	char soname[64];
	size_t i, k;

	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *front = &m->libs[i];
		struct gt_copy *c = &m->copies[front->copy];

		if (strcmp(front->fi.component, "cudnn") != 0 || gt_version_major(front->fi.version) < 9 ||
		    c->borrowed || !front_searched_graph_in_vain(m->proc, front))
			continue;
		if (copy_has(m, front->copy, "cudnn_graph"))
			continue;  /* a graph library of its own */
		snprintf(soname, sizeof(soname), "libcudnn_graph.so.%d", gt_version_major(front->fi.version));
		for (k = 0; k < m->nlibs; k++)
			if (m->libs[k].copy != front->copy && m->libs[k].obj->ns == front->obj->ns &&
			    m->libs[k].obj->soname && strcmp(m->libs[k].obj->soname, soname) == 0) {
				c->borrowed = &m->libs[k];
				break;
			}
	}
}

static void build_copies(struct gt_proc_model *m)
{
	m->copies = calloc(m->nlibs ? m->nlibs : 1, sizeof(*m->copies));
	if (!m->copies)
		abort();
	first_grouping(m);
	merge_partial_copies(m);
	compact_copies(m);
	describe_copies(m);
	find_borrowed_graphs(m);
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

bool gt_model_build(struct gt_process *p, struct gt_host_facts *facts, struct gt_proc_model *m)
{
	struct gt_family_info fi;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->proc = p;
	m->facts = facts;
	m->etc_preload = gt_facts_etc_preload(facts);
	m->libs = calloc(p->nobjects ? p->nobjects : 1, sizeof(*m->libs));
	if (!m->libs)
		return false;
	/* The installers' records are read once for all the libraries. */
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && gt_classify(p->objects[i].path, &fi) && !p->objects[i].closed)
			gt_facts_package_want(facts, p->objects[i].path);
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && gt_classify(p->objects[i].path, &fi) && !p->objects[i].closed)
			build_lib(m, &p->objects[i], &m->libs[m->nlibs++]);
	build_copies(m);
	forwarded_answers(m);
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
	gt_failed_loads_free(m->failed, m->nfailed);
	free(m->frames);
	free(m->copies);
	free(m->part_index);
	free(m->libs);
	memset(m, 0, sizeof(*m));
}

const char *gt_object_preloaded_root(const struct gt_proc_model *m, const struct gt_object *ob)
{
	const struct gt_process *p = m->proc;
	size_t depth, i;

	for (depth = 0; ob && depth < 32; depth++) {
		if (preloaded(m, ob))
			return ob->path;
		if (!ob->requester)
			break;
		for (i = 0; i < p->nobjects && (!p->objects[i].path ||
						strcmp(p->objects[i].path, ob->requester) != 0); i++)
			;
		ob = i < p->nobjects && &p->objects[i] != ob ? &p->objects[i] : NULL;
	}
	return NULL;
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
