/* Grouping of identical processes: a signature of what a process loaded and
 * what its CUDA calls answered; processes with equal signatures form a group. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/group.h"
#include "common/xalloc.h"

struct sigbuf {
	char *s;
	size_t len, cap;
};

static void sig_add(struct sigbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sig_add(struct sigbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		b->cap = 2 * b->cap + (size_t)n;
		b->s = gt_xrealloc(b->s, b->cap);
	}
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, so that load order (which threads race for) does not split groups. */
static void add_sorted(struct sigbuf *b, char **items, size_t n)
{
	size_t i;

	qsort(items, n, sizeof(char *), by_string);
	for (i = 0; i < n; i++) {
		sig_add(b, "%s\n", items[i]);
		free(items[i]);
	}
	free(items);
}

static char **items_new(size_t n)
{
	char **v = calloc(n ? n : 1, sizeof(char *));

	if (!v)
		abort();
	return v;
}

char *gt_signature(const struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	struct sigbuf b = { NULL, 0, 0 };
	char **items;
	size_t i, n;

	b.cap = 4096;
	b.s = gt_xmalloc(b.cap);
	b.s[0] = 0;
	sig_add(&b, "exe %s\nended %s %d %d\nfork %d %s\n", p->exe ? p->exe : "", m->ended_how,
		m->ended_signal, m->ended_status, p->forked, p->parent_cuda ? p->parent_cuda : "-");
	items = items_new(m->nlibs);
	for (i = 0; i < m->nlibs; i++)
		if (asprintf(&items[i], "lib %s %s %s %s", m->libs[i].fi.component, m->libs[i].version,
			     m->libs[i].obj->path, m->libs[i].found_by != GT_RULE_NONE ? gt_rule_name(m->libs[i].found_by) : "-") < 0)
			abort();
	add_sorted(&b, items, m->nlibs);
	items = items_new(p->ntotals + p->ncalls + p->nalloc_fails);
	for (i = 0, n = 0; i < p->ntotals; i++)
		if (asprintf(&items[n++], "api %s %d", p->totals[i].fn, p->totals[i].status) < 0)
			abort();
	for (i = 0; i < p->ncalls; i++)
		if (asprintf(&items[n++], "api %s %d", p->calls[i].fn, p->calls[i].status) < 0)
			abort();
	for (i = 0; i < p->nalloc_fails; i++)
		if (asprintf(&items[n++], "api %s %d", p->alloc_fails[i].fn, p->alloc_fails[i].status) < 0)
			abort();
	add_sorted(&b, items, n);
	return b.s;
}

const struct gt_group *gt_group_of(const struct gt_proc_model *m)
{
	return (const struct gt_group *)((const char *)m - offsetof(struct gt_group, model));
}

/* Appends "a-b" or "a" for the run of consecutive ranks starting at i. */
static size_t rank_run(const long *ranks, size_t n, size_t i, char *out, size_t cap, size_t *pos)
{
	size_t j = i;

	while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
		j++;
	if (*pos < cap)
		*pos += (size_t)snprintf(out + *pos, cap - *pos, "%s%ld", i ? "," : "", ranks[i]);
	if (j > i && *pos < cap)
		*pos += (size_t)snprintf(out + *pos, cap - *pos, "%s%ld", j == i + 1 ? "," : "-", ranks[j]);
	return j + 1;
}

static int by_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

void gt_describe_members(const struct gt_group *g, char *out, size_t cap)
{
	long *ranks = calloc(g->nmembers, sizeof(long));
	size_t i, k, nr = 0, pos = 0;

	if (!ranks)
		abort();
	for (i = 0; i < g->nmembers; i++)
		if (g->members[i].rank >= 0)
			ranks[nr++] = g->members[i].rank;
	qsort(ranks, nr, sizeof(long), by_long);
	out[0] = 0;
	if (nr) {
		pos += (size_t)snprintf(out, cap, "rank%s ", nr > 1 ? "s" : "");
		for (i = 0; i < nr && pos < cap;)
			i = rank_run(ranks, nr, i, out, cap, &pos);
	} else if (g->nmembers == 1) {
		pos += (size_t)snprintf(out, cap, "pid %ld", g->members[0].pid);
	} else {
		pos += (size_t)snprintf(out, cap, "%zu processes", g->nmembers);
	}
	/* The hosts, each once. */
	for (i = 0; i < g->nmembers && pos < cap; i++) {
		for (k = 0; k < i; k++)
			if (strcmp(g->members[k].host, g->members[i].host) == 0)
				break;
		if (k == i)
			pos += (size_t)snprintf(out + pos, cap - pos, "%s%s", i ? ", " : " on host ",
						g->members[i].host);
	}
	free(ranks);
}
