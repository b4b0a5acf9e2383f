/* scan --for FILE --dot: the loader's choices for one consumer, done on
 * paper, as a Graphviz graph: the consumer, each file it would get (an edge
 * from the requester, labelled with the rule), the names it would not find
 * (with the folders tried), and the copies passed over, dashed beside the
 * winner. Files the scan's findings name are coloured by severity. */
#include <stdlib.h>
#include <string.h>

#include "common/family.h"
#include "common/xalloc.h"
#include "render/markup.h"
#include "render/pictures.h"

struct nodes {
	const char **path;
	size_t n, cap;
};

/* The node of a path, added on first sight; *added says it was new. */
static size_t node_of(struct nodes *ns, const char *path, bool *added)
{
	size_t i;

	*added = false;
	for (i = 0; i < ns->n; i++)
		if (strcmp(ns->path[i], path) == 0)
			return i;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 64;
		ns->path = gt_xrealloc(ns->path, ns->cap * sizeof(*ns->path));
	}
	ns->path[ns->n] = path;
	*added = true;
	return ns->n++;
}

static void draw_file(FILE *f, const struct gt_findings *fs, size_t id, const char *path, bool dashed,
		      int also)
{
	int sev = gt_severity_naming(fs, NULL, NULL, path);

	fprintf(f, "  n%zu [id=\"n%zu\", label=\"", id, id);
	gt_put_dot(f, gt_base_name(path));
	fprintf(f, "%s\", tooltip=\"", dashed ? "\\npassed over" : "");
	gt_put_dot(f, path);
	fputc('"', f);
	if (dashed)
		fputs(", style=\"dashed,rounded\"", f);
	gt_dot_severity_colors(f, sev > also ? sev : also);
	fputs("];\n", f);
}

/* A finding that names a copy the winner shadows is about the winner: scan's
 * shadowed-library says "WINNER wins over COPY" with COPY as "shadowed". */
static int shadowing_severity(const struct gt_findings *fs, const struct host_resolution *r)
{
	int sev = -1, s;
	size_t k;

	for (k = 0; k < r->nshadowed; k++) {
		s = gt_severity_naming(fs, NULL, "shadowed", r->shadowed[k]);
		sev = s > sev ? s : sev;
	}
	return sev;
}

/* cuDNN's sub-libraries are asked for by their most specific names first
 * (libcudnn_graph.so.9.19.0, then .so.9.19): those misses are expected. */
static bool expected_miss(const char *name)
{
	const char *so = strstr(name, ".so.");

	return strncmp(name, "libcudnn_", 9) == 0 && so && strchr(so + 4, '.');
}

static void draw_item(FILE *f, const struct gt_findings *fs, struct nodes *ns, size_t i,
		      const struct host_resolution *r)
{
	bool added;
	size_t from = node_of(ns, r->requester ? r->requester : "?", &added), to, k;

	if (added)
		draw_file(f, fs, from, ns->path[from], false, -1);
	if (r->winner < 0) {
		if (expected_miss(r->name))
			return;
		fprintf(f, "  miss%zu [id=\"miss%zu\", style=\"dashed,filled\", label=\"", i, i);
		gt_put_dot(f, r->name);
		fprintf(f, "\\nnot found: %zu place%s tried\"", r->ncand, r->ncand == 1 ? "" : "s");
		gt_dot_severity_colors(f, GT_SEV_ERROR);
		fprintf(f, "];\n  n%zu -> miss%zu [label=\"not found\", style=dashed];\n", from, i);
		return;
	}
	to = node_of(ns, r->cand[r->winner].path, &added);
	if (added)
		draw_file(f, fs, to, ns->path[to], false, shadowing_severity(fs, r));
	fprintf(f, "  n%zu -> n%zu [label=\"%s\"];\n", from, to, gt_rule_name(r->cand[r->winner].rule));
	for (k = 0; k < r->nshadowed; k++) {
		size_t sh = node_of(ns, r->shadowed[k], &added);

		if (!added)
			continue;
		draw_file(f, fs, sh, ns->path[sh], true, -1);
		fprintf(f, "  { rank=same; n%zu; n%zu; }\n  n%zu -> n%zu [xlabel=\"shadows\", style=dashed, "
			"arrowhead=none];\n", to, sh, to, sh);
	}
}

/* The picture is of the CUDA libraries and of what fails: a name an object
 * already loaded answers, or a plain library found (libc ...), is left out. */
static bool worth_drawing(const struct host_scan_for_item *it)
{
	struct gt_family_info fi;

	if (it->again)
		return false;
	return it->res.winner < 0 || gt_classify(it->res.cand[it->res.winner].path, &fi);
}

void gt_render_scan_dot(FILE *f, const struct host_scan_for *fr, const struct gt_findings *fs)
{
	struct nodes ns = { NULL, 0, 0 };
	bool added;
	size_t i, root;

	fputs("digraph gputrace_scan {\n"
	      "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11, label=\"", f);
	gt_put_dot(f, fr->consumer);
	fputs(": what the loader would take (gputrace scan --for)\", labelloc=t];\n"
	      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", "
	      "fontsize=10];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n", f);
	root = node_of(&ns, fr->consumer, &added);
	fprintf(f, "  n%zu [id=\"n%zu\", shape=box3d, label=\"", root, root);
	gt_put_dot(f, gt_base_name(fr->consumer));
	fputs("\", tooltip=\"", f);
	gt_put_dot(f, fr->consumer);
	fputs("\"];\n", f);
	for (i = 0; i < fr->n; i++)
		if (worth_drawing(&fr->items[i]))
			draw_item(f, fs, &ns, i, &fr->items[i].res);
	fputs("}\n", f);
	free(ns.path);
}
