/* The short listing `gputrace COMMAND` prints at exit: per process, the
 * CUDA-family libraries it loaded (path, version, rule, requester) and the
 * CUDA-family names it searched for in vain. The full diagnosis is the report. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "trace_read.h"

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : (p ? p : "?");
}

static void print_object(FILE *f, const struct gt_object *ob)
{
	struct gt_family_info fi, real_fi;
	char real[PATH_MAX];
	const char *version;

	if (ob->path && ob->cudart_static)
		fprintf(f, "    %-28s %-10s %s (linked into it statically: its runtime calls are "
			"not visible)\n", "cudart", "static", ob->path);
	if (!ob->path || !gt_classify(ob->path, &fi))
		return;
	/* The file's real name carries the full version (libcudart.so.13 -> .13.0.96). */
	version = fi.version;
	if (realpath(ob->path, real) && gt_classify(real, &real_fi) && real_fi.version[0])
		version = real_fi.version;
	fprintf(f, "    %-28s %-10s %s", fi.component, version[0] ? version : "?", ob->path);
	if (ob->rule)
		fprintf(f, " [%s]", ob->rule);
	else if (ob->from_linkmap)
		fprintf(f, " [in link map at exit]");
	if (ob->requester)
		fprintf(f, " by %s", base_name(ob->requester));
	if (ob->closed)
		fprintf(f, " (closed)");
	fputc('\n', f);
}

/* Is a library of this component (cudnn_graph, cuda, ...) in the process? */
static bool component_loaded(const struct gt_process *p, const char *component)
{
	struct gt_family_info fi;
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && gt_classify(p->objects[i].path, &fi) &&
		    strcmp(fi.component, component) == 0 && !p->objects[i].closed)
			return true;
	return false;
}

/* A failed search is worth a line when nothing of its kind got loaded in the
 * end: cuDNN asks for libcudnn_graph.so.9.19.0, then .9.19, then .9, and only
 * the last exists; that is its normal way, not a failure. Each name once. */
static void print_failed(FILE *f, const struct gt_process *p, size_t idx)
{
	const struct gt_search *s = &p->searches[idx];
	struct gt_family_info fi;
	size_t i, times = 1;

	if (!s->name || !gt_classify(s->name, &fi))
		return;
	if (!s->result || strcmp(s->result, "not_found") != 0 || component_loaded(p, fi.component))
		return;
	for (i = 0; i < p->nsearches; i++) {
		const struct gt_search *o = &p->searches[i];

		if (i == idx || !o->name || strcmp(o->name, s->name) != 0 || !o->result ||
		    strcmp(o->result, "not_found") != 0)
			continue;
		if (i < idx)
			return;  /* printed with the first one */
		times++;
	}
	fprintf(f, "    %-28s NOT FOUND  %s: %zu paths tried", fi.component, s->name, s->ntries);
	if (times > 1)
		fprintf(f, ", %zu searches", times);
	fprintf(f, ", asked by %s\n", base_name(s->requester));
}

static bool has_cuda(const struct gt_process *p)
{
	struct gt_family_info fi;
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && (p->objects[i].cudart_static || gt_classify(p->objects[i].path, &fi)))
			return true;
	for (i = 0; i < p->nsearches; i++)
		if (p->searches[i].name && gt_classify(p->searches[i].name, &fi))
			return true;
	return false;
}

static void print_process(FILE *f, const struct gt_process *p)
{
	size_t i;

	fprintf(f, "  pid %ld %s%s\n", p->pid, p->argc ? p->argv[0] : (p->exe ? p->exe : "?"),
		p->clean_end ? "" : "  (no clean exit: killed, crashed, _exit or exec)");
	for (i = 0; i < p->nobjects; i++)
		print_object(f, &p->objects[i]);
	for (i = 0; i < p->nsearches; i++)
		print_failed(f, p, i);
}

void print_summary(const char *dir, int exit_status);
void print_summary(const char *dir, int exit_status)
{
	char **files, err[PATH_MAX + 256];
	int n = gt_list_traces(dir, &files), i, quiet = 0;

	(void)exit_status;
	fprintf(stderr, "gputrace: %d trace file%s in %s\n", n < 0 ? 0 : n, n == 1 ? "" : "s", dir);
	for (i = 0; i < n; i++) {
		struct gt_process p;

		if (!gt_read_trace(files[i], &p, err, sizeof(err))) {
			fprintf(stderr, "gputrace: %s\n", err);
		} else if (has_cuda(&p)) {
			print_process(stderr, &p);
		} else {
			quiet++;
		}
		gt_process_free(&p);
	}
	if (quiet)
		fprintf(stderr, "  %d process%s loaded no CUDA library\n", quiet, quiet == 1 ? "" : "es");
	gt_free_list(files, n);
}
