/* The HTML report: one self-contained page (inline CSS and SVG, no script,
 * no font, no request: its Content-Security-Policy forbids them all), that
 * reads on a narrow screen and on paper. A summary, the findings with their
 * evidence and fixes, then each kind of process (the odd ones out first):
 * its load graph, its CUDA libraries, and its load timeline. Every string
 * from a trace goes through gt_put_html. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "read/failed_load.h"
#include "render/markup.h"
#include "render/pictures.h"
#include "render/render.h"

#define MAX_TRIED_FOLDERS 8

static const char STYLE[] =
	":root{--err:" GT_PIC_ERROR_LINE ";--errbg:" GT_PIC_ERROR_FILL ";--warn:" GT_PIC_WARNING_LINE
	";--warnbg:" GT_PIC_WARNING_FILL ";--ok:#2e7d32;--line:#ddd;--mute:#555}\n"
	"*{box-sizing:border-box}\n"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111;background:#fff;"
	"margin:0 auto;max-width:72rem;padding:0.75rem}\n"
	"h1{font-size:1.5rem;margin:0.2rem 0}h2{font-size:1.2rem;margin:1.4rem 0 0.5rem;"
	"border-bottom:1px solid var(--line)}h3{font-size:1rem;margin:1rem 0 0.4rem}\n"
	"code,.path{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;font-size:0.85em;"
	"overflow-wrap:anywhere;word-break:break-all}\n"
	".summary{font-size:1.05rem}.counts span{display:inline-block;margin-right:0.8rem}\n"
	".n-error{color:var(--err);font-weight:600}.n-warning{color:var(--warn);font-weight:600}"
	".n-ok{color:var(--ok);font-weight:600}\n"
	"dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:0.1rem 0.8rem;margin:0.5rem 0}"
	"dl.meta dt{color:var(--mute)}dl.meta dd{margin:0;min-width:0}\n"
	"ol.findings{list-style:none;padding:0;margin:0}\n"
	".finding{border-left:5px solid var(--line);padding:0.4rem 0.7rem;margin:0.6rem 0;background:#fafafa;"
	"break-inside:avoid;overflow-wrap:anywhere}\n"
	".finding.error{border-color:var(--err);background:var(--errbg)}"
	".finding.warning{border-color:var(--warn);background:var(--warnbg)}\n"
	".finding .head{margin:0;font-weight:600}.sev{text-transform:uppercase;font-size:0.75rem;"
	"letter-spacing:0.05em;padding:0.05rem 0.35rem;border-radius:3px;color:#fff;background:#777}\n"
	".error .sev{background:var(--err)}.warning .sev{background:var(--warn)}\n"
	".finding ul{margin:0.3rem 0;padding-left:1.2rem}.finding p{margin:0.3rem 0}.fix{font-weight:500}\n"
	".tried{color:var(--mute);font-size:0.9em}\n"
	".loadgraph{margin:0.5rem 0;overflow-x:auto}.loadgraph svg{max-width:100%;height:auto}\n"
	".wrap{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:0.9rem}"
	"th,td{border-bottom:1px solid var(--line);padding:0.25rem 0.4rem;text-align:left;vertical-align:top}"
	"th{background:#f3f3f3}\n"
	"tr.error td{color:var(--err);background:var(--errbg)}tr.warning td{color:#7a4a00;background:var(--warnbg)}\n"
	"td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
	"td.barcell{width:40%;min-width:6rem}.track{position:relative;height:0.8rem;background:#eee}"
	".bar{position:absolute;top:0;height:100%;background:#1565c0;min-width:2px}\n"
	".group{border-top:3px solid var(--line);margin-top:1.5rem}.group.error{border-color:var(--err)}"
	".group.warning{border-color:var(--warn)}\n"
	".quiet,.note{color:var(--mute)}footer{margin-top:2rem;color:var(--mute);font-size:0.85rem}\n"
	"@media (max-width:40rem){body{font-size:14px;padding:0.5rem}td.barcell{min-width:4rem}"
	"dl.meta{grid-template-columns:1fr}dl.meta dt{margin-top:0.3rem}"
	"table.libs thead{display:none}table.libs tr{display:block;border-bottom:1px solid var(--line);"
	"padding:0.3rem 0}table.libs td{display:block;border:0;padding:0.05rem 0.4rem}"
	"table.libs td[data-label]::before{content:attr(data-label) \": \";color:var(--mute)}"
	"table.libs td:empty{display:none}}\n"
	"@media print{body{max-width:none;padding:0;font-size:11pt}.loadgraph{overflow:visible}"
	".wrap{overflow:visible}.group{break-before:auto}h2,h3{break-after:avoid}tr{break-inside:avoid}"
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

static const char *sev_class(int sev)
{
	return sev == GT_SEV_ERROR ? "error" : sev == GT_SEV_WARNING ? "warning" : "ok";
}

static const char *program_of(const struct gt_process *p)
{
	return p->argc ? p->argv[0] : p->exe ? p->exe : "?";
}

static void put_command_line(FILE *f, const struct gt_process *p)
{
	size_t i;

	fputs("<code>", f);
	for (i = 0; i < p->argc; i++) {
		if (i)
			fputc(' ', f);
		gt_put_html(f, p->argv[i]);
	}
	if (!p->argc)
		gt_put_html(f, p->exe ? p->exe : "?");
	fputs("</code>", f);
}

/* ---- the findings ---- */

static void put_tried(FILE *f, json_t *tried)
{
	struct gt_tried_place places[MAX_TRIED_FOLDERS];
	size_t i, n;

	if (!json_array_size(tried))
		return;
	n = gt_tried_places(tried, places, MAX_TRIED_FOLDERS);
	fputs("<div class=\"tried\">searched:", f);
	for (i = 0; i < n; i++) {
		fputs(i ? ", <code>" : " <code>", f);
		gt_put_html(f, places[i].folder);
		fputs("</code> [", f);
		gt_put_html(f, places[i].rule);
		fputc(']', f);
	}
	fprintf(f, " (%zu paths)</div>", json_array_size(tried));
}

static void put_finding(FILE *f, const struct gt_report *r, const struct gt_finding *x, size_t n)
{
	const struct gt_group *g = x->members ? x->members : gt_group_of(x->proc);
	char who[1024];
	size_t i;
	json_t *e;
	int k;

	fprintf(f, "<li class=\"finding %s\" id=\"finding-%zu\" data-id=\"", sev_class((int)x->severity), n);
	gt_put_html(f, gt_finding_name(x->id));
	fprintf(f, "\">\n<p class=\"head\"><span class=\"sev\">%s</span> <code>", gt_severity_name(x->severity));
	gt_put_html(f, gt_finding_name(x->id));
	fputs("</code>: ", f);
	gt_put_html(f, x->summary);
	fputs("</p>\n", f);
	if (r->nprocs > 1 && g) {
		gt_describe_members(g, who, sizeof(who));
		fprintf(f, "<p class=\"who\">on %zu of %zu processes: ", g->nmembers, r->nprocs);
		gt_put_html(f, who);
		fputs("</p>\n", f);
	}
	fputs("<ul class=\"evidence\">\n", f);
	json_array_foreach(x->evidence, i, e) {
		fputs("<li>", f);
		gt_put_html(f, json_string_value(json_object_get(e, "what")));
		put_tried(f, json_object_get(e, "tried"));
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
	for (k = 0; k < x->ncaused; k++) {
		fputs(k ? ", <code>" : "<p class=\"cause\">caused by: <code>", f);
		gt_put_html(f, gt_finding_name(x->caused_by[k]));
		fputs(k + 1 == x->ncaused ? "</code></p>\n" : "</code>", f);
	}
	fputs("<p class=\"fix\">Fix: ", f);
	gt_put_html(f, x->fix);
	fputs("</p>\n</li>\n", f);
}

/* A process that failed (a non-zero exit, a signal, a failed CUDA call)
 * is never "clear" nor "consistent", even with no finding. */
static bool any_failed(const struct gt_report *r)
{
	size_t k;

	for (k = 0; k < r->ngroups; k++)
		if (gt_model_failed(&r->groups[k]->model))
			return true;
	return false;
}

/* The findings, the odd ones' first (the order of the groups below). */
static void put_findings(FILE *f, const struct gt_report *r, const size_t *order)
{
	size_t i, k, n = 0;

	fprintf(f, "<section id=\"findings\" data-count=\"%zu\">\n<h2>Findings (%zu)</h2>\n", r->findings.n,
		r->findings.n);
	if (!r->findings.n && any_failed(r))
		fputs("<p class=\"n-warning\">No finding, but a process failed: the traces show no CUDA "
		      "library cause (its section below says how it ended).</p>\n", f);
	else if (!r->findings.n)
		fputs("<p class=\"n-ok\">No finding: the CUDA libraries these processes loaded are "
		      "consistent.</p>\n", f);
	fputs("<ol class=\"findings\">\n", f);
	for (k = 0; k < r->ngroups; k++)
		for (i = 0; i < r->findings.n; i++)
			if (r->findings.v[i].proc == &r->groups[order[k]]->model)
				put_finding(f, r, &r->findings.v[i], ++n);
	for (i = 0; i < r->findings.n; i++) {
		const struct gt_group *g = r->findings.v[i].proc ? gt_group_of(r->findings.v[i].proc) : NULL;

		for (k = 0; g && k < r->ngroups && r->groups[k] != g; k++)
			;
		if (!g || k == r->ngroups)
			put_finding(f, r, &r->findings.v[i], ++n);
	}
	fputs("</ol>\n</section>\n", f);
}

/* ---- one kind of process ---- */

static void put_lib_row(FILE *f, const struct gt_report *r, const struct gt_proc_model *m, const struct gt_lib *l)
{
	const struct gt_copy *c = &m->copies[l->copy];
	size_t ncopies = gt_model_copies_of(m, l->fi.family);

	fprintf(f, "<tr class=\"%s\"><td>", sev_class(gt_severity_naming(&r->findings, m, NULL, l->obj->path)));
	gt_put_html(f, l->fi.component);
	fputs("</td><td data-label=\"version\">", f);
	gt_put_html(f, l->version[0] ? l->version : "?");
	fprintf(f, " <span class=\"note\">(%s)</span></td><td data-label=\"found by\">%s</td>"
		"<td class=\"path\">", l->version_source, l->found_by != GT_RULE_NONE ? gt_rule_name(l->found_by) : "?");
	gt_put_html(f, l->obj->path);
	fputs("</td><td data-label=\"package\">", f);
	if (l->has_package) {
		fprintf(f, "%s ", l->package.manager);
		gt_put_html(f, l->package.name);
		fputc(' ', f);
		gt_put_html(f, l->package.version);
	}
	fputs("</td><td data-label=\"copy\">", f);
	if (ncopies > 1)
		fprintf(f, "%d of %zu", c->number, ncopies);
	fputs("</td></tr>\n", f);
}

static void put_libraries(FILE *f, const struct gt_report *r, const struct gt_proc_model *m)
{
	size_t i;

	fprintf(f, "<h3>CUDA libraries (%zu)</h3>\n", m->nlibs);
	if (!m->nlibs) {
		fputs("<p class=\"quiet\">None loaded.</p>\n", f);
		return;
	}
	fputs("<div class=\"wrap\"><table class=\"libs\">\n<thead><tr><th>component</th><th>version</th>"
	      "<th>found by</th><th>path</th><th>package</th><th>copy</th></tr></thead>\n<tbody>\n", f);
	for (i = 0; i < m->nlibs; i++)
		put_lib_row(f, r, m, &m->libs[i]);
	fputs("</tbody></table></div>\n", f);
	for (i = 0; i < m->nfailed; i++) {
		fputs("<p class=\"n-error\">Failed load: <code>", f);
		gt_put_html(f, m->failed[i].name);
		fputs("</code>, undone by the loader.</p>\n", f);
	}
}

/* The SVG document as an inline element: from <svg on (the XML prolog and
 * DOCTYPE belong to a file, not to a page). */
static void put_svg(FILE *f, const char *svg)
{
	const char *start = strstr(svg, "<svg");

	fputs("<figure class=\"loadgraph\">\n", f);
	fputs(start ? start : "", f);
	fputs("<figcaption class=\"note\">Who loaded what: an edge goes from the requester to the object, "
	      "labelled with the loader's rule; red: named by an error, amber: by a warning; dashed: "
	      "a copy passed over, or a name not found.</figcaption>\n</figure>\n", f);
}

static bool put_graph(FILE *f, const struct gt_report *r, size_t gi, bool all, char *err, size_t cap)
{
	char *dot = NULL, *svg;
	size_t n = 0;
	FILE *mem = open_memstream(&dot, &n);

	if (!mem)
		abort();
	gt_render_dot_group(mem, r, gi, all);
	fclose(mem);
	svg = gt_layout_svg(dot, err, cap);
	free(dot);
	if (!svg)
		return false;
	put_svg(f, svg);
	free(svg);
	return true;
}

static bool put_group(FILE *f, const struct gt_report *r, size_t gi, bool all, char *err, size_t cap)
{
	const struct gt_group *g = r->groups[gi];
	const struct gt_process *p = g->model.proc;
	int sev = gt_group_severity(r, g);
	char who[1024], end[256];

	gt_describe_members(g, who, sizeof(who));
	gt_describe_end(&g->model, end, sizeof(end));
	fprintf(f, "<section class=\"group %s\" id=\"group-%zu\" data-members=\"%zu\">\n<h2>", sev_class(sev), gi,
		g->nmembers);
	if (g->nmembers > 1)
		fprintf(f, "%zu processes like ", g->nmembers);
	fprintf(f, "pid %ld <code>", p->pid);
	gt_put_html(f, gt_base_name(program_of(p)));
	fputs("</code></h2>\n<dl class=\"meta\"><dt>who</dt><dd>", f);
	gt_put_html(f, who);
	fputs("</dd><dt>command</dt><dd>", f);
	put_command_line(f, p);
	fputs("</dd><dt>ended</dt><dd>", f);
	gt_put_html(f, end);
	fputs("</dd></dl>\n", f);
	if (!put_graph(f, r, gi, all, err, cap))
		return false;
	put_libraries(f, r, &g->model);
	gt_render_timeline(f, &g->model);
	fputs("</section>\n", f);
	return true;
}

/* A group the text report also leaves out: no CUDA, nothing to say. */
static bool quiet(const struct gt_report *r, const struct gt_group *g)
{
	const struct gt_process *p = g->model.proc;

	return !g->model.nlibs && gt_group_severity(r, g) < 0 && !p->cut_reason && !p->cut_lines &&
	       !p->last_line_cut && !p->nsearches && !gt_model_failed(&g->model);
}

/* ---- the page ---- */

static void put_counts(FILE *f, const struct gt_report *r)
{
	size_t i, errors = 0, warnings = 0;

	for (i = 0; i < r->findings.n; i++) {
		errors += r->findings.v[i].severity == GT_SEV_ERROR;
		warnings += r->findings.v[i].severity == GT_SEV_WARNING;
	}
	fprintf(f, "<p class=\"summary counts\" id=\"summary\" data-errors=\"%zu\" data-warnings=\"%zu\">"
		"<span>%zu process%s</span><span class=\"%s\">%zu error%s</span>"
		"<span class=\"%s\">%zu warning%s</span></p>\n", errors, warnings, r->nprocs,
		r->nprocs == 1 ? "" : "es", errors ? "n-error" : "n-ok", errors, errors == 1 ? "" : "s",
		warnings ? "n-warning" : "n-ok", warnings, warnings == 1 ? "" : "s");
}

/* The kinds of process, the odd ones out first, each with its count. */
static void put_overview(FILE *f, const struct gt_report *r, const size_t *order)
{
	char who[1024];
	size_t k;

	if (r->ngroups < 2)
		return;
	fputs("<div class=\"wrap\"><table class=\"overview\">\n<thead><tr><th>processes</th><th>who</th>"
	      "<th>program</th><th>status</th></tr></thead>\n<tbody>\n", f);
	for (k = 0; k < r->ngroups; k++) {
		const struct gt_group *g = r->groups[order[k]];
		int sev = gt_group_severity(r, g);

		gt_describe_members(g, who, sizeof(who));
		fprintf(f, "<tr class=\"%s\"><td class=\"num\"><a href=\"#group-%zu\">%zu</a></td><td>", sev_class(sev),
			order[k], g->nmembers);
		gt_put_html(f, who);
		fputs("</td><td><code>", f);
		gt_put_html(f, gt_base_name(program_of(g->model.proc)));
		fprintf(f, "</code></td><td>%s</td></tr>\n",
			sev >= 0 ? gt_severity_name((enum gt_severity)sev) :
			gt_model_failed(&g->model) ? "failed, no cause found" : "clear");
	}
	fputs("</tbody></table></div>\n", f);
}

static void put_head(FILE *f, const struct gt_report *r)
{
	const struct gt_process *p = r->ngroups ? r->groups[0]->model.proc : NULL;
	char when[64] = "";
	time_t t;
	struct tm tm;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>gputrace report", f);
	if (p) {
		fputs(": ", f);
		gt_put_html(f, gt_base_name(program_of(p)));
	}
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>gputrace report</h1>\n", STYLE);
	put_counts(f, r);
	if (!p)
		return;
	t = (time_t)(p->first_us / 1000000);
	if (p->first_us && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fputs("<dl class=\"meta\"><dt>command</dt><dd>", f);
	put_command_line(f, p);
	fputs("</dd><dt>host</dt><dd>", f);
	gt_put_html(f, p->host ? p->host : "?");
	fprintf(f, "</dd><dt>traced</dt><dd>%s</dd></dl>\n", when[0] ? when : "(no time in the trace)");
}

bool gt_render_html(FILE *f, const struct gt_report *r, bool all, char *err, size_t cap)
{
	size_t *order = gt_xcalloc(r->ngroups ? r->ngroups : 1, sizeof(size_t)), k, nquiet = 0;
	bool ok = true;

	gt_groups_in_order(r, order);
	put_head(f, r);
	put_overview(f, r, order);
	fputs("</header>\n<main>\n", f);
	put_findings(f, r, order);
	for (k = 0; k < r->ngroups && ok; k++) {
		if (quiet(r, r->groups[order[k]]))
			nquiet += r->groups[order[k]]->nmembers;
		else
			ok = put_group(f, r, order[k], all, err, cap);
	}
	if (nquiet)
		fprintf(f, "<p class=\"quiet\">%zu process%s loaded no CUDA library and had nothing to report.</p>\n",
			nquiet, nquiet == 1 ? "" : "es");
	fprintf(f, "</main>\n<footer>Written by gputrace report from %zu trace%s. Times are the trace's own "
		"(microseconds since the epoch, per line).</footer>\n</body>\n</html>\n", r->nprocs,
		r->nprocs == 1 ? "" : "s");
	free(order);
	return ok;
}
