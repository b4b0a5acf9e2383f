/* The report as GitHub Markdown, for a bug report (gputrace bundle's
 * SUMMARY.md): the verdict, the findings with their evidence and fixes, a
 * table of the libraries, the processes, the host's facts, and the text
 * report folded away in a <details> block. Tables are GFM pipe tables: a
 * cell never holds a newline or an unescaped '|'. */
#include "render/render_markdown.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "render/printable.h"
#include "render/render.h"

/* Text with Markdown's special characters escaped, control characters as
 * \xHH, newlines as spaces: safe in a paragraph, a list item or a cell. */
static void md_text(FILE *f, const char *s)
{
	const char *p;

	for (p = gt_printable(s ? s : ""); *p; p++) {
		if (strchr("\\`*_[]<>|#~", *p))
			fputc('\\', f);
		fputc(*p == '\n' ? ' ' : *p, f);
	}
}

/* A path, a command or a value as code: in backticks, two of them (with
 * spaces) when it holds one; '|' escaped, which GFM takes out again in a
 * table cell. */
static void md_code(FILE *f, const char *s)
{
	const char *p, *text = gt_printable(s ? s : "");
	bool tick = strchr(text, '`') != NULL;

	fputs(tick ? "`` " : "`", f);
	for (p = text; *p; p++) {
		if (*p == '|')
			fputc('\\', f);
		fputc(*p == '\n' ? ' ' : *p, f);
	}
	fputs(tick ? " ``" : "`", f);
}

static void counts(const struct gt_report *r, size_t *errors, size_t *warnings)
{
	size_t i;

	*errors = *warnings = 0;
	for (i = 0; i < r->findings.n; i++) {
		*errors += r->findings.v[i].severity == GT_SEV_ERROR;
		*warnings += r->findings.v[i].severity == GT_SEV_WARNING;
	}
}

/* The verdict: NOT OK / works, with warnings / failed without a certain
 * cause / all clear, and the ids of the worst severity, as the text
 * report's first line says it. */
static void verdict(FILE *f, const struct gt_report *r)
{
	size_t errors, warnings, i, k, shown = 0;
	enum gt_severity want;
	bool failed = false;

	counts(r, &errors, &warnings);
	want = errors ? GT_SEV_ERROR : GT_SEV_WARNING;
	for (i = 0; i < r->ngroups; i++)
		failed |= gt_model_failed(&r->groups[i]->model);
	fprintf(f, "# gputrace: %s", errors ? "NOT OK" : failed && warnings ? "a process failed; no certain CUDA "
		"library cause, warnings" : failed ? "a process failed, no CUDA library cause found" :
		warnings ? "works, with warnings" : "no error found");
	for (i = 0; i < r->findings.n && (errors || warnings); i++) {
		for (k = 0; k < i && (r->findings.v[k].id != r->findings.v[i].id || r->findings.v[k].severity != want);
		     k++)
			;
		if (r->findings.v[i].severity != want || k < i)
			continue;
		fprintf(f, "%s`%s`", shown++ ? ", " : " (", gt_finding_name(r->findings.v[i].id));
	}
	fprintf(f, "%s\n\n**Verdict:** %zu process%s, %zu error%s, %zu warning%s.\n\n", shown ? ")" : "", r->nprocs,
		r->nprocs == 1 ? "" : "es", errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
}

static void finding(FILE *f, const struct gt_finding *x, size_t n)
{
	json_t *e;
	size_t i;
	int k;

	fprintf(f, "### %zu. %s `%s`\n\n", n, gt_severity_name(x->severity), gt_finding_name(x->id));
	md_text(f, x->summary);
	fputs("\n\n", f);
	json_array_foreach(x->evidence, i, e) {
		fputs("- ", f);
		md_text(f, json_string_value(json_object_get(e, "what")));
		fputc('\n', f);
	}
	if (x->ncaused) {
		fputs("\nCaused by:", f);
		for (k = 0; k < x->ncaused; k++)
			fprintf(f, "%s `%s`", k ? "," : "", gt_finding_name(x->caused_by[k]));
		fputc('\n', f);
	}
	if (x->fix && x->fix[0]) {
		fputs("\n**Fix:** ", f);
		md_text(f, x->fix);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void findings(FILE *f, const struct gt_report *r)
{
	size_t i;

	fputs("## Findings\n\n", f);
	if (!r->findings.n)
		fputs("No finding.\n\n", f);
	for (i = 0; i < r->findings.n; i++)
		finding(f, &r->findings.v[i], i + 1);
}

static void library_row(FILE *f, const struct gt_group *g, const struct gt_lib *l)
{
	fprintf(f, "| %ld%s | ", g->members[0].pid, g->nmembers > 1 ? " (and others like it)" : "");
	md_text(f, l->fi.component);
	fputs(" | ", f);
	md_text(f, l->version[0] ? l->version : "?");
	fprintf(f, " (%s) | %s | ", l->version_source ? l->version_source : "none",
		gt_rule_name_or_null(l->found_by) ? gt_rule_name_or_null(l->found_by) : "not known");
	if (l->has_package) {
		md_text(f, l->package.manager);
		fputc(' ', f);
		md_text(f, l->package.name);
		fputc(' ', f);
		md_text(f, l->package.version);
	} else {
		fputs("none", f);
	}
	fputs(" | ", f);
	md_code(f, l->real_path[0] ? l->real_path : l->obj->path);
	fputs(" |\n", f);
}

static void libraries(FILE *f, const struct gt_report *r)
{
	size_t i, k, n = 0;

	fputs("## Libraries\n\n", f);
	for (i = 0; i < r->ngroups; i++)
		n += r->groups[i]->model.nlibs;
	if (!n) {
		fputs("No CUDA library was loaded.\n\n", f);
		return;
	}
	fputs("| pid | library | version (from) | found by | package | file |\n"
	      "| --- | --- | --- | --- | --- | --- |\n", f);
	for (i = 0; i < r->ngroups; i++)
		for (k = 0; k < r->groups[i]->model.nlibs; k++)
			library_row(f, r->groups[i], &r->groups[i]->model.libs[k]);
	fputc('\n', f);
}

static void command_of(FILE *f, const struct gt_process *p)
{
	char cmd[1024];
	size_t i, len = 0;

	cmd[0] = 0;
	for (i = 0; i < p->argc && len < sizeof(cmd) - 1; i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "%s%s", i ? " " : "", p->argv[i]);
	md_code(f, p->argc ? cmd : p->exe ? p->exe : "?");
}

static void processes(FILE *f, const struct gt_report *r)
{
	char end[256];
	size_t i;

	fputs("## Processes\n\n| pid | processes like it | command | ended |\n| --- | --- | --- | --- |\n", f);
	for (i = 0; i < r->ngroups; i++) {
		const struct gt_group *g = r->groups[i];

		gt_describe_end(&g->model, end, sizeof(end));
		fprintf(f, "| %ld | %zu | ", g->members[0].pid, g->nmembers);
		command_of(f, g->model.proc);
		fputs(" | ", f);
		md_text(f, end);
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

static void fact(FILE *f, const char *name, const char *value, bool code)
{
	fputs("| ", f);
	md_text(f, name);
	fputs(" | ", f);
	if (code)
		md_code(f, value);
	else
		md_text(f, value);
	fputs(" |\n", f);
}

/* The first process's host, driver and loading variables, and where the
 * answers about its files came from. */
static void host(FILE *f, const struct gt_report *r)
{
	const struct gt_process *p = r->ngroups ? r->groups[0]->model.proc : NULL;
	const char *key;
	json_t *v;
	char line[256];

	fputs("## Host\n\n| fact | value |\n| --- | --- |\n", f);
	if (p) {
		fact(f, "host", p->host ? p->host : "?", false);
		fact(f, "NVIDIA kernel module", p->kmod ? p->kmod : "not recorded", false);
		fact(f, "GPUs", p->gpus ? p->gpus : "not recorded", false);
		if (p->cwd)
			fact(f, "working folder", p->cwd, true);
		json_object_foreach((json_t *)p->env, key, v)
			if (json_is_string(v))
				fact(f, key, json_string_value(v), true);
	}
	snprintf(line, sizeof(line), "%zu from the facts file, %zu asked of the reading host, %zu unanswered",
		 r->facts_tally.recorded, r->facts_tally.asked, r->facts_tally.unanswered);
	fact(f, "facts", line, false);
	fputc('\n', f);
}

void gt_render_markdown(FILE *f, const struct gt_report *r, const char *text_report)
{
	verdict(f, r);
	findings(f, r);
	libraries(f, r);
	processes(f, r);
	host(f, r);
	if (text_report) {
		/* four backticks: the text holds none, and three would be safe
		 * only as long as it never did */
		fputs("<details><summary>The text report</summary>\n\n````text\n", f);
		fputs(text_report, f);
		fputs("````\n\n</details>\n\n", f);
	}
}
