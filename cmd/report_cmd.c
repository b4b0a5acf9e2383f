/* gputrace report: the command line and the choice of output; the reading,
 * the model and the rules are report/. Also the diagnosis printed when a
 * traced command exits. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "report/pictures.h"
#include "report/report.h"
#include "report/printable.h"

#define WHO "gputrace report"

static void report_usage(void)
{
	fputs("usage: gputrace report [--json | --tree | --dot | --svg | --html FILE] [--all]\n"
	      "                       [--color=WHEN] PATH...\n"
	      "PATH: trace files (*.jsonl) or folders of them, as written by gputrace -o DIR.\n"
	      "Options may come before or after the PATHs.\n"
	      "  --json        one JSON object for scripts\n"
	      "  --tree        who loaded what, with the rule of each\n"
	      "  --dot         the load graph as Graphviz DOT (a cluster per kind of process)\n"
	      "  --svg         the load graph laid out as SVG (Graphviz's library)\n"
	      "  --html FILE   one self-contained HTML page: findings, graph, libraries,\n"
	      "                load timeline (FILE - : standard output)\n"
	      "  --all         draw the objects that are not CUDA libraries too\n"
	      "  --color=WHEN  auto (default: on a terminal, unless NO_COLOR or TERM=dumb),\n"
	      "                always or never\n"
	      "  -h, --help    this help\n"
	      "Exit status: 0 no error found, 1 an error-level finding, 2 bad usage or input.\n",
	      stdout);
}

/* The pictures: DOT as is, SVG and HTML laid out by libgvc. A layout that
 * fails or a FILE that cannot be written is gputrace's own failure. */
static int render_picture(int mode, const char *html_file, const struct gt_report *r, bool all)
{
	char err[1024];
	FILE *f;
	char *dot = NULL, *svg;
	size_t n = 0;
	bool ok;

	if (mode == 'd') {
		gt_render_dot(stdout, r, all);
		return 0;
	}
	if (mode == 's') {
		f = open_memstream(&dot, &n);
		if (!f)
			abort();
		gt_render_dot(f, r, all);
		fclose(f);
		svg = gt_layout_svg(dot, err, sizeof(err));
		free(dot);
		if (!svg) {
			fprintf(stderr, WHO ": --svg: %s\n", gt_printable(err));
			return CMD_EXIT_OWN_FAILURE;
		}
		fputs(svg, stdout);
		free(svg);
		return 0;
	}
	f = strcmp(html_file, "-") == 0 ? stdout : fopen(html_file, "w");
	if (!f) {
		fprintf(stderr, WHO ": %s: %s\n", gt_printable(html_file), strerror(errno));
		return CMD_EXIT_OWN_FAILURE;
	}
	ok = gt_render_html(f, r, all, err, sizeof(err));
	if ((f != stdout && fclose(f) != 0) || (f == stdout && fflush(f) != 0)) {
		fprintf(stderr, WHO ": %s: %s\n", gt_printable(html_file), strerror(errno));
		return CMD_EXIT_OWN_FAILURE;
	}
	if (!ok) {
		fprintf(stderr, WHO ": --html: %s\n", gt_printable(err));
		return CMD_EXIT_OWN_FAILURE;
	}
	return 0;
}

int cmd_report_main(int argc, char **argv)
{
	enum { OPT_COLOR = 256, OPT_DOT, OPT_SVG, OPT_HTML, OPT_ALL };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "tree", no_argument, NULL, 't' },
		{ "dot", no_argument, NULL, OPT_DOT },
		{ "svg", no_argument, NULL, OPT_SVG },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cmd_color color = CMD_COLOR_AUTO;
	struct gt_report r;
	const char *html_file = NULL;
	char err[8192];
	int c, status, mode = 0, picture_status;
	bool all = false;

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
		if (c == OPT_ALL) {
			all = true;
			continue;
		}
		if (c == OPT_DOT || c == OPT_SVG || c == OPT_HTML) {
			html_file = c == OPT_HTML ? optarg : html_file;
			c = c == OPT_DOT ? 'd' : c == OPT_SVG ? 's' : 'H';
		} else if (c != 'j' && c != 't') {
			return cmd_bad_option(WHO, CMD_EXIT_USAGE, c, argv);
		}
		if (mode && mode != c && (strchr("dsH", mode) || strchr("dsH", c)))
			return cmd_usage_error(WHO, CMD_EXIT_USAGE, "say one of --json, --tree, --dot, --svg "
					       "and --html");
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
	if (mode == 'd' || mode == 's' || mode == 'H') {
		picture_status = render_picture(mode, html_file, &r, all);
		status = picture_status ? picture_status : gt_report_status(&r);
		gt_report_free(&r);
		return status;
	}
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
