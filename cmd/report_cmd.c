/* gputrace report: the command line and the choice of output; the reading,
 * the model and the rules are report/. Also the diagnosis printed when a
 * traced command exits. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "report/report.h"
#include "report/printable.h"

#define WHO "gputrace report"

static void report_usage(void)
{
	fputs("usage: gputrace report [--json | --tree] [--color=WHEN] PATH...\n"
	      "PATH: trace files (*.jsonl) or folders of them, as written by gputrace -o DIR.\n"
	      "Options may come before or after the PATHs.\n"
	      "  --json        one JSON object for scripts\n"
	      "  --tree        who loaded what, with the rule of each\n"
	      "  --color=WHEN  auto (default: on a terminal, unless NO_COLOR or TERM=dumb),\n"
	      "                always or never\n"
	      "  -h, --help    this help\n"
	      "Exit status: 0 no error found, 1 an error-level finding, 2 bad usage or input.\n",
	      stdout);
}

int cmd_report_main(int argc, char **argv)
{
	enum { OPT_COLOR = 256 };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "tree", no_argument, NULL, 't' },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cmd_color color = CMD_COLOR_AUTO;
	struct gt_report r;
	char err[8192];
	int c, status, mode = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jth", longopts, NULL)) != -1) {
		if (c == 'h') {
			report_usage();
			return 0;
		}
		if (c == OPT_COLOR && !cmd_parse_color(optarg, &color))
			return cmd_usage_error(WHO, CMD_EXIT_USAGE, "--color=%s: say auto, always or never",
					       optarg);
		if (c == OPT_COLOR)
			continue;
		if (c != 'j' && c != 't')
			return cmd_bad_option(WHO, CMD_EXIT_USAGE, c, argv);
		mode = c;
	}
	if (optind >= argc)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "no trace file or folder given");
	if (!gt_report_load(&r, argv + optind, argc - optind, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s\n", gt_printable(err));
		gt_report_free(&r);
		return CMD_EXIT_USAGE;
	}
	gt_report_analyse(&r);
	if (mode == 'j')
		gt_render_json(stdout, &r);
	else if (mode == 't')
		gt_render_tree(stdout, &r, cmd_color_on(color, stdout));
	else
		gt_render_text(stdout, &r, cmd_color_on(color, stdout));
	status = gt_report_status(&r);
	gt_report_free(&r);
	return status;
}

void cmd_report_after_run(const char *dir, FILE *out, bool color)
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
	gt_render_text(out, &r, color);
	gt_report_free(&r);
}
