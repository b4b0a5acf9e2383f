/* The load timeline of one process, from the trace's own times (every line
 * carries t_us): when each CUDA library was mapped, counted from the
 * process's first line, and how long the loader took from starting the
 * search that found it to mapping it. How much of a run (an `import torch`)
 * went by while CUDA libraries came in is the span from the first to the
 * last of them. Relocation and constructors run after the mapping and are
 * not in the trace: the page says "search to mapped", not "load". */
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "render/markup.h"
#include "render/pictures.h"

static int by_time(const void *a, const void *b)
{
	const struct gt_lib *x = *(const struct gt_lib *const *)a, *y = *(const struct gt_lib *const *)b;

	if (x->obj->t_us != y->obj->t_us)
		return x->obj->t_us < y->obj->t_us ? -1 : 1;
	return x < y ? -1 : x > y;
}

static double ms(unsigned long long us)
{
	return (double)us / 1000.0;
}

/* The libraries that have a time, in load order; their count. */
static size_t timed_libs(const struct gt_proc_model *m, const struct gt_lib **out)
{
	size_t i, n = 0;

	for (i = 0; i < m->nlibs; i++)
		if (m->libs[i].obj->t_us >= m->proc->first_us && m->libs[i].obj->t_us)
			out[n++] = &m->libs[i];
	qsort(out, n, sizeof(*out), by_time);
	return n;
}

static unsigned long long took_us(const struct gt_lib *l)
{
	const struct gt_object *ob = l->obj;

	return ob->search_t_us && ob->search_t_us <= ob->t_us ? ob->t_us - ob->search_t_us : 0;
}

static void put_row(FILE *f, const struct gt_lib *l, unsigned long long start, unsigned long long span)
{
	unsigned long long at = l->obj->t_us - start, took = took_us(l);
	double left = 100.0 * (double)(at - (took <= at ? took : 0)) / (double)span;
	double width = 100.0 * (double)took / (double)span;

	fputs("<tr><td>", f);
	gt_put_html(f, gt_base_name(l->obj->path));
	fprintf(f, "</td><td class=\"num\">%.1f</td><td class=\"num\">", ms(at));
	if (l->obj->search_t_us)
		fprintf(f, "%.2f", ms(took));
	else
		fputs("-", f);
	fprintf(f, "</td><td class=\"barcell\"><div class=\"track\"><div class=\"bar\" "
		"style=\"left:%.2f%%;width:%.2f%%\"></div></div></td></tr>\n", left, width);
}

void gt_render_timeline(FILE *f, const struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	const struct gt_lib **libs = gt_xcalloc(m->nlibs ? m->nlibs : 1, sizeof(*libs));
	size_t n = timed_libs(m, libs), i;
	unsigned long long start = p->first_us, span, sum = 0, first, last;

	fputs("<h3>Load timeline</h3>\n", f);
	if (!n || p->last_us <= start) {
		fputs("<p class=\"quiet\">No CUDA library load with a time in this trace.</p>\n", f);
		free(libs);
		return;
	}
	span = p->last_us - start;
	first = libs[0]->obj->t_us - took_us(libs[0]) - start;
	last = libs[n - 1]->obj->t_us - start;
	for (i = 0; i < n; i++)
		sum += took_us(libs[i]);
	fprintf(f, "<p class=\"timeline-summary\">The trace spans %.1f ms (first to last line). Its %zu CUDA "
		"librar%s came in between %.1f ms and %.1f ms: %.1f ms, %.0f%% of the run. The loader's "
		"searches and mappings of them took %.2f ms in all (relocation and constructors, after the "
		"mapping, are not counted).</p>\n", ms(span), n, n == 1 ? "y" : "ies", ms(first), ms(last),
		ms(last - first), 100.0 * (double)(last - first) / (double)span, ms(sum));
	fputs("<div class=\"wrap\"><table class=\"timeline\">\n<thead><tr><th>library</th><th>mapped at (ms)</th>"
	      "<th>search to mapped (ms)</th><th>when, in the run</th></tr></thead>\n<tbody>\n", f);
	for (i = 0; i < n; i++)
		put_row(f, libs[i], start, span);
	fputs("</tbody></table></div>\n", f);
	free(libs);
}
