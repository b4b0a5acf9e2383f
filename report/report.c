/* gputrace report: loading traces, running the rules, the command line. */
#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "package.h"

static bool add_file(struct gt_report *r, const char *path, char *err, size_t errcap)
{
	r->procs = realloc(r->procs, (r->n + 1) * sizeof(*r->procs));
	if (!r->procs)
		abort();
	if (!gt_read_trace(path, &r->procs[r->n], err, errcap)) {
		gt_process_free(&r->procs[r->n]);
		return false;
	}
	r->n++;
	return true;
}

static bool add_path(struct gt_report *r, const char *path, char *err, size_t errcap)
{
	struct stat st;
	char **files;
	int n, i;
	bool ok = true;

	if (stat(path, &st) != 0) {
		snprintf(err, errcap, "%s: cannot read: %s", path, strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode))
		return add_file(r, path, err, errcap);
	n = gt_list_traces(path, &files);
	if (n < 0) {
		snprintf(err, errcap, "%s: cannot list: %s", path, strerror(errno));
		return false;
	}
	if (n == 0) {
		snprintf(err, errcap, "%s: no trace files (*.jsonl) in this folder", path);
		ok = false;
	}
	for (i = 0; i < n && ok; i++)
		ok = add_file(r, files[i], err, errcap);
	gt_free_list(files, n);
	return ok;
}

bool gt_report_load(struct gt_report *r, char *const *paths, int npaths, char *err, size_t errcap)
{
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < npaths; i++)
		if (!add_path(r, paths[i], err, errcap))
			return false;
	return true;
}

void gt_report_analyse(struct gt_report *r)
{
	size_t i;

	r->models = calloc(r->n ? r->n : 1, sizeof(*r->models));
	if (!r->models)
		abort();
	for (i = 0; i < r->n; i++)
		if (gt_model_build(&r->procs[i], &r->models[i]))
			gt_run_rules(&r->models[i], &r->findings);
}

void gt_report_free(struct gt_report *r)
{
	size_t i;

	gt_findings_free(&r->findings);
	for (i = 0; i < r->n; i++) {
		if (r->models)
			gt_model_free(&r->models[i]);
		gt_process_free(&r->procs[i]);
	}
	free(r->models);
	free(r->procs);
	gt_package_cache_free();
	memset(r, 0, sizeof(*r));
}

int gt_report_status(const struct gt_report *r)
{
	size_t i;

	for (i = 0; i < r->findings.n; i++)
		if (r->findings.v[i].severity == GT_SEV_ERROR)
			return 1;
	return 0;
}

static bool want_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && *nc);
}

static void report_usage(FILE *f)
{
	fputs("usage: gputrace report [--json | --tree] PATH...\n"
	      "PATH: trace files (*.jsonl) or folders of them, as written by gputrace -o DIR.\n"
	      "Exit status: 0 no error found, 1 an error-level finding, 2 bad usage or input.\n", f);
}

int report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "tree", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gt_report r;
	char err[8192];
	int c, status, mode = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+jth", longopts, NULL)) != -1) {
		if (c == 'h') {
			report_usage(stdout);
			return 0;
		}
		if (c != 'j' && c != 't') {
			report_usage(stderr);
			return 2;
		}
		mode = c;
	}
	if (optind >= argc) {
		fprintf(stderr, "gputrace report: no trace file or folder given (gputrace report --help)\n");
		return 2;
	}
	if (!gt_report_load(&r, argv + optind, argc - optind, err, sizeof(err))) {
		fprintf(stderr, "gputrace report: %s\n", err);
		gt_report_free(&r);
		return 2;
	}
	gt_report_analyse(&r);
	if (mode == 'j')
		gt_render_json(stdout, &r);
	else if (mode == 't')
		gt_render_tree(stdout, &r, want_color(stdout));
	else
		gt_render_text(stdout, &r, want_color(stdout));
	status = gt_report_status(&r);
	gt_report_free(&r);
	return status;
}

void report_after_run(const char *dir, FILE *out)
{
	char *paths[1] = { (char *)dir }, err[8192];
	struct gt_report r;

	if (!gt_report_load(&r, paths, 1, err, sizeof(err))) {
		fprintf(out, "gputrace: %s\n", err);
		gt_report_free(&r);
		return;
	}
	gt_report_analyse(&r);
	fprintf(out, "gputrace: traces in %s (gputrace report %s for this again)\n", dir, dir);
	gt_render_text(out, &r, want_color(out));
	gt_report_free(&r);
}
