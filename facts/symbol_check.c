/* The missing-symbol comparison (see symbol_check.h). */
#define _GNU_SOURCE
#include "facts/symbol_check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/family.h"
#include "common/xalloc.h"
#include "host/elf_info.h"

long gt_sym_scope_add(struct gt_sym_scope *s, const char *path)
{
	struct gt_sym_obj o = { 0 };
	struct host_elf_info info;

	if (!path || path[0] != '/' || !host_symbols_read(path, &o.syms)) {
		host_symbols_free(&o.syms);
		return -1;
	}
	o.path = gt_xstrdup(path);
	if (host_elf_read(path, &info)) {
		o.soname = info.soname ? gt_xstrdup(info.soname) : NULL;
		o.needed = info.needed;
		o.nneeded = info.nneeded;
		info.needed = NULL;
		info.nneeded = 0;
	}
	host_elf_free(&info);
	if (!o.soname)
		o.soname = gt_xstrdup(strrchr(path, '/') + 1);  /* path is absolute */
	s->v = gt_xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n] = o;
	return (long)s->n++;
}

void gt_sym_scope_free(struct gt_sym_scope *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].soname);
		host_free_strings(s->v[i].needed, s->v[i].nneeded);
		host_symbols_free(&s->v[i].syms);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static void add_path(char ***paths, size_t *n, const char *path)
{
	char real[PATH_MAX];
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*paths)[i], path) == 0)
			return;
	if (access(path, R_OK) != 0 || !realpath(path, real))
		return;
	*paths = gt_xrealloc(*paths, (*n + 1) * sizeof(**paths));
	(*paths)[(*n)++] = gt_xstrdup(path);
}

size_t gt_sym_alternatives(const char *name, const char *consumer, const struct host_resolve_env *env,
			   char ***paths)
{
	struct host_resolution r;
	char next_to[PATH_MAX];
	const char *slash = strrchr(consumer, '/');
	size_t i, n = 0;

	*paths = NULL;
	host_resolve(name, consumer, NULL, 0, env, &r);
	for (i = 0; i < r.ncand; i++)
		if (r.cand[i].usable)
			add_path(paths, &n, r.cand[i].path);
	for (i = 0; i < r.nshadowed; i++)
		add_path(paths, &n, r.shadowed[i]);
	host_resolution_free(&r);
	/* A wheel's libraries sit together: the consumer's own folder too. */
	if (slash && (size_t)snprintf(next_to, sizeof(next_to), "%.*s/%s", (int)(slash - consumer), consumer,
				      name) < sizeof(next_to))
		add_path(paths, &n, next_to);
	return n;
}

static bool same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return strcmp(a, b) == 0 || (realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0);
}

/* Some object of the scope binds the reference. */
static bool scope_defines(const struct gt_sym_scope *scope, const char *name, const char *version)
{
	size_t i;

	for (i = 0; i < scope->n; i++)
		if (host_symbols_define(&scope->v[i].syms, name, version))
			return true;
	return false;
}

/* The object of the scope loaded for the name `soname`, or NULL. */
static const struct gt_sym_obj *provider_named(const struct gt_sym_scope *scope, const char *soname)
{
	size_t i;

	for (i = 0; i < scope->n; i++)
		if (strcmp(scope->v[i].soname, soname) == 0)
			return &scope->v[i];
	return NULL;
}

/* Another copy of the provider's name, for consumer, that defines the
 * reference; NULL if none (malloc'd). */
static char *good_copy(const struct gt_sym_obj *provider, const char *consumer, const char *name,
		       const char *version, const struct host_resolve_env *env)
{
	struct host_symbols syms;
	char **alts, *found = NULL;
	size_t i, n = gt_sym_alternatives(provider->soname, consumer, env, &alts);

	for (i = 0; i < n && !found; i++) {
		if (same_file(alts[i], provider->path))
			continue;
		if (host_symbols_read(alts[i], &syms) && host_symbols_define(&syms, name, version))
			found = gt_xstrdup(alts[i]);
		host_symbols_free(&syms);
	}
	host_free_strings(alts, n);
	return found;
}

/* Does the provider define anything of the version node (its own
 * symbol, the node's name, included)? */
static bool defines_version(const struct gt_sym_obj *provider, const char *version)
{
	size_t i;

	for (i = 0; i < provider->syms.ndefined; i++)
		if (provider->syms.defined[i].version && strcmp(provider->syms.defined[i].version, version) == 0)
			return true;
	return false;
}

static void add_gap(struct gt_symbol_gap **gaps, size_t *ngaps, const struct host_symbol *u,
		    const struct gt_sym_obj *consumer, const struct gt_sym_obj *provider, char *good)
{
	struct gt_symbol_gap *g;

	*gaps = gt_xrealloc(*gaps, (*ngaps + 1) * sizeof(**gaps));
	g = &(*gaps)[(*ngaps)++];
	g->symbol = gt_xstrdup(u->name);
	g->version = u->version ? gt_xstrdup(u->version) : NULL;
	g->consumer = gt_xstrdup(consumer->path);
	g->provider = gt_xstrdup(provider->path);
	g->good_copy = good;
	g->no_version_node = u->version && provider->syms.versioned && !defines_version(provider, u->version);
}

static bool is_cuda_name(const char *name)
{
	struct gt_family_info fi;

	return gt_classify(name, &fi);
}

/* Does the symbol carry the provider's own API prefix (ncclCommRegister for
 * libnccl, cudnnGetLibConfig for libcudnn_graph's family)? */
static bool named_for(const char *symbol, const char *provider_soname)
{
	struct gt_family_info fi;
	size_t n;

	if (!gt_classify(provider_soname, &fi))
		return false;
	n = strlen(fi.family);
	while (*symbol == '_')
		symbol++;
	return n >= 4 && strncmp(symbol, fi.family, n) == 0;
}

/* An unversioned reference names no provider: it is blamed on a CUDA
 * library the consumer needs only when another copy of that library
 * defines it, or, in a load known to have failed, when the symbol carries
 * that library's own API prefix (ncclCommWindowRegister from libnccl.so.2);
 * else it may be meant for the program, or a plug-in. */
static const struct gt_sym_obj *unversioned_provider(const struct gt_sym_scope *scope, const struct gt_sym_obj *c,
						     const struct host_symbol *u, const struct host_resolve_env *env,
						     char **good)
{
	const struct gt_sym_obj *p;
	size_t k;

	for (k = 0; k < c->nneeded; k++) {
		p = is_cuda_name(c->needed[k]) ? provider_named(scope, c->needed[k]) : NULL;
		if (p && (*good = good_copy(p, c->path, u->name, NULL, env)) != NULL)
			return p;
	}
	for (k = 0; scope->load_failed && k < c->nneeded; k++) {
		p = is_cuda_name(c->needed[k]) ? provider_named(scope, c->needed[k]) : NULL;
		if (p && named_for(u->name, c->needed[k])) {
			*good = NULL;
			return p;
		}
	}
	return NULL;
}

size_t gt_symbol_gaps(const struct gt_sym_scope *scope, size_t consumer, const struct host_resolve_env *env,
		      struct gt_symbol_gap **gaps, size_t *ngaps)
{
	const struct gt_sym_obj *c = &scope->v[consumer], *p;
	size_t i, before = *ngaps;
	char *good = NULL;

	for (i = 0; i < c->syms.nneeded; i++) {
		const struct host_symbol *u = &c->syms.needed[i];

		if (u->weak || scope_defines(scope, u->name, u->version))
			continue;
		if (u->version && u->file) {
			/* A versioned reference names its file: proof for any provider. */
			p = provider_named(scope, u->file);
			if (p)
				add_gap(gaps, ngaps, u, c, p, good_copy(p, c->path, u->name, u->version, env));
		} else if (!u->version && (p = unversioned_provider(scope, c, u, env, &good)) != NULL) {
			add_gap(gaps, ngaps, u, c, p, good);
		}
	}
	return *ngaps - before;
}

void gt_symbol_gaps_free(struct gt_symbol_gap *gaps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(gaps[i].symbol);
		free(gaps[i].version);
		free(gaps[i].good_copy);
		free(gaps[i].consumer);
		free(gaps[i].provider);
	}
	free(gaps);
}

/* Only a consumer that is a CUDA library or plug-in, or needs one, is
 * judged (its versioned needs of any file, a CUDA library's unversioned
 * ones): when none is, no symbol table needs reading (a program of 300
 * plain libraries on paper). */
static bool any_consumer_needs_cuda(const struct gt_sym_question *q)
{
	struct gt_family_info fi;
	struct host_elf_info info;
	bool yes = false;
	size_t i, k;

	for (i = 0; i < q->nconsumers && !yes; i++) {
		memset(&info, 0, sizeof(info));
		yes = gt_classify_any(q->consumers[i], &fi);
		if (!yes && q->consumers[i][0] == '/' && host_elf_read(q->consumers[i], &info))
			for (k = 0; k < info.nneeded && !yes; k++)
				yes = gt_classify_any(info.needed[k], &fi);
		host_elf_free(&info);
	}
	return yes;
}

size_t gt_sym_question_answer(const struct gt_sym_question *q, const struct host_resolve_env *env,
			      struct gt_symbol_gap **gaps, size_t *ngaps)
{
	struct gt_sym_scope scope = { .load_failed = q->load_failed };
	struct host_resolve_env e = *env;
	size_t i, k, before = *ngaps;

	if (!any_consumer_needs_cuda(q))
		return 0;
	e.ld_library_path = q->ld_library_path;
	for (i = 0; i < q->nscope; i++)
		gt_sym_scope_add(&scope, q->scope[i]);
	for (k = 0; k < q->nconsumers; k++)
		for (i = 0; i < scope.n; i++)
			if (strcmp(scope.v[i].path, q->consumers[k]) == 0)
				gt_symbol_gaps(&scope, i, &e, gaps, ngaps);
	gt_sym_scope_free(&scope);
	return *ngaps - before;
}
