/* gputrace report: the command line and the choice of output; the reading,
 * the model and the rules are report/. Also the diagnosis printed when a
 * traced command exits. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "report/report.h"
#include "report/printable.h"

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

int cmd_report_main(int argc, char **argv)
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
		fprintf(stderr, "gputrace report: %s\n", gt_printable(err));
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

void cmd_report_after_run(const char *dir, FILE *out)
{
	char *paths[1] = { (char *)dir }, err[8192];
	struct gt_report r;

	if (!gt_report_load(&r, paths, 1, err, sizeof(err))) {
		fprintf(out, "gputrace: %s\n", gt_printable(err));
		gt_report_free(&r);
		return;
	}
	gt_report_analyse(&r);
	fprintf(out, "gputrace: traces in %s (gputrace report %s for this again)\n", dir, dir);
	gt_render_text(out, &r, want_color(out));
	gt_report_free(&r);
}
