/* gputrace scan: the command line and the choice of output; the walk is
 * host/scan.c, --for host/scan_for.c, the findings and the output report/. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "host/elf_info.h"
#include "report/pictures.h"
#include "report/scan_report.h"
#include "report/printable.h"

#define WHO "gputrace scan"

static void scan_usage(void)
{
	fputs("usage: gputrace scan [--json] [--for FILE [--dot]] [--color=WHEN] [ROOT...]\n"
	      "Lists the CUDA library files of this host (or under each ROOT) and their\n"
	      "conflicts, without running anything. Options may come before or after ROOTs.\n"
	      "  --json        one JSON object for scripts\n"
	      "  --for FILE    the copies the loader would give FILE, name by name\n"
	      "  --dot         with --for: those choices as a Graphviz DOT graph\n"
	      "  --color=WHEN  auto (default: on a terminal, unless NO_COLOR or TERM=dumb),\n"
	      "                always or never\n"
	      "  -h, --help    this help\n"
	      "Exit status: 0 no error found, 1 an error-level finding, 2 bad usage, a ROOT\n"
	      "that does not exist, or a --for FILE that is not ELF.\n", stdout);
}

/* A ROOT that is not there is a typo, not an empty host: say so. */
static bool roots_exist(char *const *roots, int n)
{
	struct stat st;
	int i;

	for (i = 0; i < n; i++)
		if (stat(roots[i], &st) != 0) {
			fprintf(stderr, WHO ": %s: %s\n", gt_printable(roots[i]), strerror(errno));
			return false;
		}
	return true;
}

/* Folders that could not be read and the like: diagnostics, so stderr; the
 * JSON keeps them as data too. */
static void print_problems(const struct host_scan *s)
{
	size_t i;

	for (i = 0; i < s->nproblems; i++)
		fprintf(stderr, WHO ": note: %s\n", gt_printable(s->problems[i]));
}

int cmd_scan_main(int argc, char **argv)
{
	enum { OPT_COLOR = 256, OPT_DOT };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "dot", no_argument, NULL, OPT_DOT },
		{ "for", required_argument, NULL, 'f' },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cmd_color color = CMD_COLOR_AUTO;
	struct host_scan_for *fr = NULL;
	struct gt_findings findings = { 0 };
	const char *consumer = NULL;
	struct host_elf_info probe;
	struct host_scan s;
	bool json = false, dot = false;
	int c, status;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jf:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			scan_usage();
			return 0;
		}
		if (c == 'j')
			json = true;
		else if (c == OPT_DOT)
			dot = true;
		else if (c == 'f')
			consumer = optarg;
		else if (c != OPT_COLOR)
			return cmd_bad_option(WHO, CMD_EXIT_USAGE, c, argv);
		else if (!cmd_parse_color(optarg, &color))
			return cmd_usage_error(WHO, CMD_EXIT_USAGE, "--color=%s: say auto, always or never",
					       optarg);
	}
	if (dot && !consumer)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "--dot draws the choices of --for FILE: say --for");
	if (dot && json)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "say one of --json and --dot");
	if (!roots_exist(argv + optind, argc - optind))
		return CMD_EXIT_USAGE;
	if (consumer && !host_elf_read(consumer, &probe)) {
		fprintf(stderr, WHO ": %s: %s\n", gt_printable(consumer), gt_printable(probe.error));
		host_elf_free(&probe);
		return CMD_EXIT_USAGE;
	}
	if (consumer)
		host_elf_free(&probe);
	host_scan_run(&s, argv + optind, argc - optind);
	gt_scan_judge(&s, &findings);
	if (consumer) {
		fr = host_scan_for_run(consumer, &s);
		gt_scan_for_judge(fr, &findings);
	}
	print_problems(&s);
	if (dot)
		gt_render_scan_dot(stdout, fr, &findings);
	else if (json)
		gt_render_scan_json(stdout, &s, &findings, fr);
	else
		gt_render_scan_text(stdout, &s, &findings, fr, cmd_color_on(color, stdout));
	status = gt_scan_status(&findings);
	host_scan_for_free(fr);
	gt_findings_free(&findings);
	host_scan_free(&s);
	return status;
}
