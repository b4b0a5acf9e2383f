/* gputrace scan --for: the loader's choices for one consumer, on paper. */
#define _GNU_SOURCE
#include "common/xalloc.h"
#include "host/scan_for.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/family.h"
#include "host/elf_info.h"
#include "host/package.h"

#define MAX_DEPTH 6

static bool already_resolved(const struct host_scan_for *fr, const char *name)
{
	size_t i;

	for (i = 0; i < fr->n; i++)
		if (strcmp(fr->items[i].res.name, name) == 0)
			return true;
	return false;
}

static const char *winner_of(const struct host_scan_for_item *it)
{
	return it->res.winner >= 0 ? it->res.cand[it->res.winner].path : NULL;
}

static void resolve_needed(struct host_scan_for *fr, const char *requester, int depth);

/* Resolves one name asked by requester (loaded by the consumer), and goes on
 * into what the winner needs. */
static const struct host_scan_for_item *resolve_one(struct host_scan_for *fr, const char *name, const char *requester, int depth)
{
	const char *loaders[1] = { fr->consumer };
	struct host_scan_for_item *it;

	if (fr->n >= HOST_SCAN_FOR_MAX_NAMES || already_resolved(fr, name))
		return NULL;
	it = &fr->items[fr->n++];
	it->depth = depth;
	host_resolve(name, requester, strcmp(requester, fr->consumer) ? loaders : NULL,
		     strcmp(requester, fr->consumer) ? 1 : 0, &fr->env, &it->res);
	if (winner_of(it) && depth < MAX_DEPTH)
		resolve_needed(fr, winner_of(it), depth + 1);
	return it;
}

/* cuDNN loads its sub-libraries by name, the most specific name first:
 * libcudnn_graph.so.9.19.0, .9.19, .9 (as the traces of real runs show). */
static void cudnn_sublibraries(struct host_scan_for *fr, const char *cudnn, const char *version, int depth)
{
	static const char *const subs9[] = { "graph", "engines_precompiled", "engines_runtime_compiled",
					     "heuristic", "ops", "cnn", "adv", NULL };
	static const char *const subs8[] = { "ops_infer", "ops_train", "cnn_infer", "cnn_train",
					     "adv_infer", "adv_train", NULL };
	const char *const *subs = gt_version_major(version) >= 9 ? subs9 : subs8;
	char v[32], names[3][128];
	const char *dot;
	int k, j;

	gt_version_key(version, v, sizeof(v));
	for (k = 0; subs[k]; k++) {
		snprintf(names[0], sizeof(names[0]), "libcudnn_%s.so.%s", subs[k], v);
		dot = strrchr(v, '.');
		snprintf(names[1], sizeof(names[1]), "libcudnn_%s.so.%.*s", subs[k],
			 dot ? (int)(dot - v) : (int)strlen(v), v);
		snprintf(names[2], sizeof(names[2]), "libcudnn_%s.so.%d", subs[k], gt_version_major(v));
		for (j = 0; j < 3; j++) {
			const struct host_scan_for_item *it;

			if (j && strcmp(names[j], names[j - 1]) == 0)
				continue;
			it = resolve_one(fr, names[j], cudnn, depth);
			if (it && winner_of(it))
				break;
		}
	}
}

static void resolve_needed(struct host_scan_for *fr, const char *requester, int depth)
{
	struct gt_family_info fi;
	struct host_elf_info elf;
	char real[PATH_MAX];
	size_t i;

	if (!host_elf_read(requester, &elf))
		return;
	for (i = 0; i < elf.nneeded; i++)
		if (gt_classify(elf.needed[i], &fi))
			resolve_one(fr, elf.needed[i], requester, depth);
	/* The runtime loads the driver by name when it starts: that search too. */
	if (gt_classify(requester, &fi) && strcmp(fi.component, "cudart") == 0)
		resolve_one(fr, "libcuda.so.1", requester, depth + 1);
	if (gt_classify(requester, &fi) && strcmp(fi.component, "cudnn") == 0 && realpath(requester, real)) {
		struct gt_family_info rfi;
		struct host_package pkg;
		const char *v = gt_classify(real, &rfi) && strchr(rfi.version, '.') ? rfi.version :
				host_package_of(requester, &pkg) ? pkg.version : fi.version;

		cudnn_sublibraries(fr, requester, v, depth);
	}
	host_elf_free(&elf);
}

struct host_scan_for *host_scan_for_run(const char *consumer, const struct host_scan *s)
{
	struct host_scan_for *fr = calloc(1, sizeof(*fr));

	if (!fr)
		abort();
	fr->consumer = consumer;
	fr->env.ld_library_path = getenv("LD_LIBRARY_PATH");
	fr->env.cache = s->have_cache ? &s->cache : NULL;
	resolve_needed(fr, consumer, 0);
	return fr;
}

void host_scan_for_free(struct host_scan_for *fr)
{
	size_t i;

	for (i = 0; fr && i < fr->n; i++)
		host_resolution_free(&fr->items[i].res);
	free(fr);
}
