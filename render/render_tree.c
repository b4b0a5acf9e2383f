/* The tree report: who loaded what, with the reason tags of libtree
 * ([rpath], [LD_LIBRARY_PATH] ...) and versions. Only the branches that lead
 * to a CUDA library are drawn; failed searches hang under their requester. */
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "common/xalloc.h"
#include "render/printable.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define RESET "\033[0m"
#define MAX_DEPTH 32

struct tree {
	FILE *f;
	const struct gt_proc_model *m;
	bool color;
	bool *wanted;   /* objects on a path to a CUDA library */
};

static long parent_of(const struct gt_process *p, size_t i)
{
	size_t k;

	if (!p->objects[i].requester)
		return -1;
	for (k = 0; k < p->nobjects; k++)
		if (k != i && p->objects[k].path && strcmp(p->objects[k].path, p->objects[i].requester) == 0)
			return (long)k;
	return -1;
}

static void mark_wanted(struct tree *t)
{
	const struct gt_process *p = t->m->proc;
	struct gt_family_info fi;
	size_t i;
	long k;
	int depth;

	for (i = 0; i < p->nobjects; i++) {
		if (!p->objects[i].path || !gt_classify(p->objects[i].path, &fi))
			continue;
		for (k = (long)i, depth = 0; k >= 0 && depth < MAX_DEPTH; k = parent_of(p, (size_t)k), depth++)
			t->wanted[k] = true;
	}
}

static void print_node(struct tree *t, size_t i, int depth)
{
	const struct gt_process *p = t->m->proc;
	const struct gt_object *ob = &p->objects[i];
	const struct gt_lib *l = gt_lib_of_object(t->m, ob);
	bool ll = ob->rule == GT_RULE_LD_LIBRARY_PATH;
	size_t k;

	fprintf(t->f, "%*s%s%s%s %s", 2 * depth, "", t->color && l ? (ll ? YELLOW : GREEN) : "",
		gt_printable(ob->path), t->color && l ? RESET : "", ob->main ? "" : gt_rule_tag(l ? l->found_by : ob->rule));
	if (l && l->version[0])
		fprintf(t->f, " %s", gt_printable(l->version));
	fputc('\n', t->f);
	if (depth >= MAX_DEPTH)
		return;
	for (k = 0; k < p->nobjects; k++)
		if (t->wanted[k] && parent_of(p, k) == (long)i)
			print_node(t, k, depth + 1);
	for (k = 0; k < p->nsearches; k++) {
		const struct gt_search *s = &p->searches[k];
		struct gt_family_info fi;

		if (!s->ours && s->result && strcmp(s->result, "not_found") == 0 && s->requester &&
		    strcmp(s->requester, ob->path) == 0 && gt_classify(s->name, &fi) &&
		    !gt_model_find(t->m, fi.component))
			fprintf(t->f, "%*s%s%s not found%s (%zu paths tried)\n", 2 * depth + 2, "",
				t->color ? RED : "", gt_printable(s->name), t->color ? RESET : "", s->ntries);
	}
}

void gt_render_tree(FILE *f, const struct gt_report *r, bool color)
{
	size_t i, k;

	for (i = 0; i < r->ngroups; i++) {
		struct tree t = { f, &r->groups[i]->model, color, NULL };
		const struct gt_process *p = r->groups[i]->model.proc;

		t.wanted = gt_xcalloc(p->nobjects ? p->nobjects : 1, sizeof(bool));
		mark_wanted(&t);
		fprintf(f, "pid %ld %s%s\n", p->pid, gt_printable(p->argc ? p->argv[0] : "?"),
			r->groups[i]->nmembers > 1 ? " (and the processes like it)" : "");
		for (k = 0; k < p->nobjects; k++)
			if ((t.wanted[k] || p->objects[k].main) && parent_of(p, k) < 0)
				print_node(&t, k, 1);
		free(t.wanted);
	}
}
