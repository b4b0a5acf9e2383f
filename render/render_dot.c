/* The load graph as Graphviz DOT: per group of identical processes one
 * cluster; nodes are the objects loaded (short name, version, package),
 * edges go from the requester to the object, labelled with the loader's
 * rule. What a finding names is coloured by its severity; a copy a finding
 * says was passed over is drawn dashed beside the winner; a CUDA name that
 * was not found is a node of its own with the folders tried. Objects that
 * are not CUDA libraries and lead to none are folded unless asked for. */
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "read/failed_load.h"
#include "render/markup.h"
#include "render/pictures.h"

#define MAX_DEPTH 32
#define MAX_FOLDERS_SHOWN 4
#define NO_SEVERITY (-1)

struct graph {
	FILE *f;
	const struct gt_report *r;
	const struct gt_proc_model *m;
	size_t gi;          /* the group's index: node ids are unique across clusters */
	bool all;
	long *parent;       /* per object: the index of its requester, -1 if none */
	bool *shown;        /* per object: drawn */
	long root;          /* the program's own object, -1 when the trace has none */
};

/* ---- what the findings name ---- */

/* The evidence's key names value: its text, or its exact bytes in key_hex
 * (gt_evidence_str keeps a path that is not UTF-8 so). */
static bool names(json_t *e, const char *key, const char *value)
{
	char hexkey[64], *hex;
	const char *v, *h;
	size_t i, n;
	bool same;

	if (!value || !json_is_object(e))
		return false;
	snprintf(hexkey, sizeof(hexkey), "%s_hex", key);
	h = json_string_value(json_object_get(e, hexkey));
	if (!h) {
		v = json_string_value(json_object_get(e, key));
		return v && strcmp(v, value) == 0;
	}
	n = strlen(value);
	hex = gt_xmalloc(2 * n + 1);
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)value[i]);
	hex[2 * n] = 0;
	same = strcmp(hex, h) == 0;
	free(hex);
	return same;
}

/* An evidence item that names path as an object of the process: the keys a
 * rule puts a library's path under, and the minority's side of a divergence. */
static bool evidence_names_path(json_t *e, const char *path)
{
	static const char *const keys[] = { "path", "real_path", "consumer", "provider", NULL };
	int k;

	for (k = 0; keys[k]; k++)
		if (names(e, keys[k], path))
			return true;
	return names(json_object_get(e, "minority"), "path", path);
}

static int worse(int a, int b)
{
	return a > b ? a : b;
}

int gt_severity_naming(const struct gt_findings *fs, const struct gt_proc_model *m, const char *key,
		       const char *value)
{
	int sev = NO_SEVERITY;
	size_t i, k;
	json_t *e;

	for (i = 0; i < fs->n; i++) {
		const struct gt_finding *x = &fs->v[i];

		if (x->proc != m || x->severity == GT_SEV_INFO)
			continue;
		json_array_foreach(x->evidence, k, e)
			if (key ? names(e, key, value) : evidence_names_path(e, value))
				sev = worse(sev, (int)x->severity);
	}
	return sev;
}

static int severity_naming(const struct gt_report *r, const struct gt_proc_model *m, const char *key,
			   const char *value)
{
	return gt_severity_naming(&r->findings, m, key, value);
}

int gt_group_severity(const struct gt_report *r, const struct gt_group *g)
{
	int sev = NO_SEVERITY;
	size_t i;

	for (i = 0; i < r->findings.n; i++)
		if (r->findings.v[i].proc == &g->model)
			sev = worse(sev, (int)r->findings.v[i].severity);
	return sev;
}

static const struct gt_report *order_report;

/* The odd ones out first: the worse severity, then the fewer members. */
static int by_oddness(const void *a, const void *b)
{
	const struct gt_group *ga = order_report->groups[*(const size_t *)a];
	const struct gt_group *gb = order_report->groups[*(const size_t *)b];
	int sa = gt_group_severity(order_report, ga), sb = gt_group_severity(order_report, gb);

	if (sa != sb)
		return sb - sa;
	if (ga->nmembers != gb->nmembers)
		return ga->nmembers < gb->nmembers ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

void gt_groups_in_order(const struct gt_report *r, size_t *order)
{
	size_t i;

	for (i = 0; i < r->ngroups; i++)
		order[i] = i;
	order_report = r;
	qsort(order, r->ngroups, sizeof(*order), by_oddness);
	order_report = NULL;
}

/* ---- the objects and who asked for them ---- */

static long object_at(const struct gt_process *p, const char *path)
{
	size_t k;

	for (k = 0; path && k < p->nobjects; k++)
		if (p->objects[k].path && strcmp(p->objects[k].path, path) == 0)
			return (long)k;
	return -1;
}

static void find_parents(struct graph *g)
{
	const struct gt_process *p = g->m->proc;
	size_t i;

	g->root = -1;
	for (i = 0; i < p->nobjects; i++) {
		g->parent[i] = object_at(p, p->objects[i].requester);
		if (g->parent[i] == (long)i)
			g->parent[i] = -1;
		if (p->objects[i].main && g->root < 0)
			g->root = (long)i;
	}
}

/* The CUDA libraries, what a finding names, and every object on the way to
 * one of them (all: everything). */
static size_t choose_shown(struct graph *g)
{
	const struct gt_process *p = g->m->proc;
	struct gt_family_info fi;
	size_t i, n = 0;
	long k;
	int depth;

	for (i = 0; i < p->nobjects; i++) {
		if (!p->objects[i].path)
			continue;
		/* what a finding names is drawn even when it is no CUDA library
		 * (cpu-only-build names the framework's library) */
		if (!g->all && !p->objects[i].main && !gt_classify(p->objects[i].path, &fi) &&
		    severity_naming(g->r, g->m, NULL, p->objects[i].path) < GT_SEV_WARNING)
			continue;
		for (k = (long)i, depth = 0; k >= 0 && depth < MAX_DEPTH; k = g->parent[k], depth++)
			g->shown[k] = true;
	}
	for (i = 0; i < p->nobjects; i++)
		n += g->shown[i];
	return n;
}

/* ---- drawing ---- */

void gt_dot_severity_colors(FILE *f, int sev)
{
	if (sev == GT_SEV_ERROR)
		fprintf(f, ", color=\"%s\", fillcolor=\"%s\", penwidth=2, class=\"error\"", GT_PIC_ERROR_LINE,
			GT_PIC_ERROR_FILL);
	else if (sev == GT_SEV_WARNING)
		fprintf(f, ", color=\"%s\", fillcolor=\"%s\", penwidth=2, class=\"warning\"", GT_PIC_WARNING_LINE,
			GT_PIC_WARNING_FILL);
}

static void draw_object(struct graph *g, size_t i)
{
	const struct gt_object *ob = &g->m->proc->objects[i];
	const struct gt_lib *l = gt_lib_of_object(g->m, ob);
	FILE *f = g->f;

	fprintf(f, "    g%zu_o%zu [id=\"g%zu_o%zu\", label=\"", g->gi, i, g->gi, i);
	gt_put_dot(f, gt_base_name(ob->path));
	if (l && l->version[0]) {
		fputs("\\n", f);
		gt_put_dot(f, l->version);
	}
	if (l && l->has_package) {
		fprintf(f, "\\n%s ", l->package.manager);
		gt_put_dot(f, l->package.name);
		fputc(' ', f);
		gt_put_dot(f, l->package.version);
	}
	if (ob->closed)
		fputs("\\n(unloaded)", f);
	fputs("\", tooltip=\"", f);
	gt_put_dot(f, ob->path);
	fputc('"', f);
	if (ob->main)
		fputs(", shape=box3d", f);
	else if (!l)
		fputs(", fillcolor=\"#f5f5f5\", fontcolor=\"#555555\"", f);
	gt_dot_severity_colors(f, severity_naming(g->r, g->m, NULL, ob->path));
	fputs("];\n", f);
}

static void draw_edge(struct graph *g, size_t i)
{
	const struct gt_object *ob = &g->m->proc->objects[i];
	const struct gt_lib *l = gt_lib_of_object(g->m, ob);
	enum gt_rule rule = l ? l->found_by : ob->rule;
	long from = g->parent[i] >= 0 ? g->parent[i] : g->root;

	if (ob->main || from < 0 || from == (long)i)
		return;
	fprintf(g->f, "    g%zu_o%ld -> g%zu_o%zu [label=\"%s\"%s];\n", g->gi, from, g->gi, i,
		rule != GT_RULE_NONE ? gt_rule_name(rule) : "?",
		g->parent[i] < 0 ? ", style=dotted" : "");
}

/* The distinct folders of a search's tries, as lines of a label. */
static void put_folders(FILE *f, const struct gt_search *s)
{
	char seen[MAX_FOLDERS_SHOWN][1024], folder[1024];
	size_t i, k, nseen = 0, more = 0;

	for (i = 0; i < s->ntries; i++) {
		gt_tried_folder(s->tries[i].path, folder, sizeof(folder));
		for (k = 0; k < nseen && strcmp(seen[k], folder) != 0; k++)
			;
		if (k < nseen)
			continue;
		if (nseen == MAX_FOLDERS_SHOWN) {
			more++;
			continue;
		}
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", folder);
		fputs("\\l", f);
		gt_put_dot(f, folder);
		fprintf(f, " [%s]", gt_rule_name(s->tries[i].rule));
	}
	if (more)
		fprintf(f, "\\l(and more folders)");
	fputs("\\l", f);
}

/* A CUDA name the program's loader did not find, when no copy of its
 * component came in another way (cuDNN 9's most specific names first are
 * expected to miss): one node per name, an edge from each requester. */
static void draw_not_found(struct graph *g)
{
	const struct gt_process *p = g->m->proc;
	struct gt_family_info fi;
	size_t i, k;
	long from;

	for (i = 0; i < p->nsearches; i++) {
		const struct gt_search *s = &p->searches[i];
		int sev;

		if (s->ours || !s->result || strcmp(s->result, GT_RESULT_NOT_FOUND) != 0 ||
		    !gt_classify(s->name, &fi) || gt_model_find(g->m, fi.component))
			continue;
		for (k = 0; k < i; k++)
			if (p->searches[k].result && strcmp(p->searches[k].result, GT_RESULT_NOT_FOUND) == 0 &&
			    strcmp(p->searches[k].name, s->name) == 0)
				break;
		if (k == i) {
			sev = severity_naming(g->r, g->m, "name", s->name);
			fprintf(g->f, "    g%zu_n%zu [id=\"g%zu_n%zu\", shape=box, style=\"dashed,filled\", "
				"label=\"", g->gi, i, g->gi, i);
			gt_put_dot(g->f, s->name);
			fprintf(g->f, "\\nnot found: %zu path%s tried in", s->ntries, s->ntries == 1 ? "" : "s");
			put_folders(g->f, s);
			fputc('"', g->f);
			gt_dot_severity_colors(g->f, sev);
			fputs("];\n", g->f);
		}
		from = object_at(p, s->requester);
		if (from < 0)
			from = g->root;
		if (from >= 0 && g->shown[from])
			fprintf(g->f, "    g%zu_o%ld -> g%zu_n%zu [label=\"not found\", style=dashed];\n", g->gi,
				from, g->gi, k);
	}
}

/* A load the loader undid: a node with what it asked for, beside its requester. */
static void draw_undone(struct graph *g)
{
	size_t i;
	long from;

	for (i = 0; i < g->m->nfailed; i++) {
		const struct gt_failed_load *fl = g->m->failed;
		int sev = severity_naming(g->r, g->m, "name", fl[i].name);

		fprintf(g->f, "    g%zu_u%zu [id=\"g%zu_u%zu\", shape=box, style=\"dashed,filled\", label=\"",
			g->gi, i, g->gi, i);
		gt_put_dot(g->f, fl[i].name ? gt_base_name(fl[i].name) : "?");
		fprintf(g->f, "\\n%s\"", fl[i].at_startup ? "start-up failed (exit 127)" : "load undone by the loader");
		gt_dot_severity_colors(g->f, sev);
		fputs("];\n", g->f);
		from = object_at(g->m->proc, fl[i].requester);
		if (from < 0)
			from = g->root;
		if (from >= 0 && g->shown[from])
			fprintf(g->f, "    g%zu_o%ld -> g%zu_u%zu [label=\"failed\", style=dashed];\n", g->gi,
				from, g->gi, i);
	}
}

/* The copies a finding says were passed over: dashed, on the winner's rank. */
static void draw_passed_over(struct graph *g)
{
	const struct gt_process *p = g->m->proc;
	size_t i, k, n = 0;
	json_t *e;

	for (i = 0; i < g->r->findings.n; i++) {
		const struct gt_finding *x = &g->r->findings.v[i];

		if (x->proc != g->m)
			continue;
		json_array_foreach(x->evidence, k, e) {
			const char *copy = json_string_value(json_object_get(e, "shadowed"));
			const char *ver = json_string_value(json_object_get(e, "shadowed_version"));
			long won = -1;
			size_t o;

			for (o = 0; o < p->nobjects && won < 0; o++)
				if (g->shown[o] && evidence_names_path(e, p->objects[o].path))
					won = (long)o;
			if (!copy || won < 0)
				continue;
			fprintf(g->f, "    g%zu_s%zu [id=\"g%zu_s%zu\", style=\"dashed,rounded\", label=\"", g->gi, n,
				g->gi, n);
			gt_put_dot(g->f, gt_base_name(copy));
			if (ver) {
				fputs("\\n", g->f);
				gt_put_dot(g->f, ver);
			}
			fputs("\\npassed over\", tooltip=\"", g->f);
			gt_put_dot(g->f, copy);
			fputs("\"];\n", g->f);
			fprintf(g->f, "    { rank=same; g%zu_o%ld; g%zu_s%zu; }\n", g->gi, won, g->gi, n);
			fprintf(g->f, "    g%zu_o%ld -> g%zu_s%zu [xlabel=\"shadows\", style=dashed, "
				"arrowhead=none];\n", g->gi, won, g->gi, n);
			n++;
		}
	}
}

static void cluster_label(FILE *f, const struct gt_group *g)
{
	const struct gt_process *p = g->model.proc;
	char who[1024];

	gt_describe_members(g, who, sizeof(who));
	if (g->nmembers > 1)
		fprintf(f, "%zu processes like ", g->nmembers);
	fprintf(f, "pid %ld ", p->pid);
	gt_put_dot(f, p->argc ? gt_base_name(p->argv[0]) : p->exe ? gt_base_name(p->exe) : "?");
	fputs("\\n", f);
	gt_put_dot(f, who);
}

static void draw_group(FILE *f, const struct gt_report *r, size_t gi, bool all)
{
	const struct gt_group *grp = r->groups[gi];
	const struct gt_process *p = grp->model.proc;
	size_t n = p->nobjects ? p->nobjects : 1, i, nshown;
	struct graph g = { f, r, &grp->model, gi, all, NULL, NULL, -1 };
	int sev = gt_group_severity(r, grp);

	g.parent = gt_xcalloc(n, sizeof(long));
	g.shown = gt_xcalloc(n, sizeof(bool));
	find_parents(&g);
	nshown = choose_shown(&g);
	fprintf(f, "  subgraph cluster_g%zu {\n    id=\"cluster_g%zu\"; label=\"", gi, gi);
	cluster_label(f, grp);
	fputs("\";\n", f);
	if (sev == GT_SEV_ERROR || sev == GT_SEV_WARNING)
		fprintf(f, "    color=\"%s\"; penwidth=2;\n", sev == GT_SEV_ERROR ? GT_PIC_ERROR_LINE : GT_PIC_WARNING_LINE);
	for (i = 0; i < p->nobjects; i++)
		if (g.shown[i])
			draw_object(&g, i);
	for (i = 0; i < p->nobjects; i++)
		if (g.shown[i])
			draw_edge(&g, i);
	draw_not_found(&g);
	draw_undone(&g);
	draw_passed_over(&g);
	if (nshown < p->nobjects)
		fprintf(f, "    g%zu_folded [shape=note, fontcolor=\"#555555\", label=\"%zu other object%s, not "
			"CUDA\\n(report --all draws them)\"];\n", gi, p->nobjects - nshown,
			p->nobjects - nshown == 1 ? "" : "s");
	fputs("  }\n", f);
	free(g.parent);
	free(g.shown);
}

static void graph_head(FILE *f)
{
	fputs("digraph gputrace {\n"
	      "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11, nodesep=0.15, ranksep=0.5];\n"
	      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", "
	      "fontsize=10];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n", f);
}

void gt_render_dot(FILE *f, const struct gt_report *r, bool all)
{
	size_t *order = gt_xcalloc(r->ngroups ? r->ngroups : 1, sizeof(size_t)), i;

	gt_groups_in_order(r, order);
	graph_head(f);
	for (i = 0; i < r->ngroups; i++)
		draw_group(f, r, order[i], all);
	fputs("}\n", f);
	free(order);
}

void gt_render_dot_group(FILE *f, const struct gt_report *r, size_t group, bool all)
{
	graph_head(f);
	draw_group(f, r, group, all);
	fputs("}\n", f);
}
