/* gputrace diff: two runs or two hosts side by side; many, grouped. The
 * views and their comparison are compare/diff.c and compare/fleet.c. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "compare/diff.h"
#include "render/printable.h"

#define WHO "gputrace diff"

static void diff_usage(void)
{
	fputs("usage: gputrace diff [--json] A B [C...]\n"
	      "A, B: trace folders or files (gputrace -o DIR), or the JSON of gputrace report\n"
	      "--json or gputrace scan --json, from this host or copied from others; a folder\n"
	      "of scans (gputrace scan --json -o DIR) counts one input per host.\n"
	      "Two inputs: what differs, family by family (path, version, rule, package,\n"
	      "requester), which findings appear or vanish, and the environment that steers\n"
	      "loading side by side. More: groups of identical inputs, the odd ones named.\n"
	      "  --json      one JSON object for scripts\n"
	      "  -h, --help  this help\n"
	      "Exit status: 0 the same CUDA libraries, 1 a CUDA library differs, 2 bad usage\n"
	      "or input.\n", stdout);
}

int cmd_diff_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *views = json_array(), *out;
	bool json = false, pair;
	char err[8192];
	int c, i, status;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", longopts, NULL)) != -1) {
		if (c == 'h') {
			diff_usage();
			json_decref(views);
			return 0;
		}
		if (c != 'j') {
			json_decref(views);
			return cmd_bad_option(WHO, CMD_EXIT_USAGE, c, argv);
		}
		json = true;
	}
	for (i = optind; i < argc; i++)
		if (!gt_view_load(argv[i], views, err, sizeof(err))) {
			fprintf(stderr, WHO ": %s\n", gt_printable(err));
			json_decref(views);
			return CMD_EXIT_USAGE;
		}
	if (json_array_size(views) < 2) {
		json_decref(views);
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "give two inputs to compare (or a folder of scans "
				       "of several hosts)");
	}
	pair = json_array_size(views) == 2;
	out = pair ? gt_diff(json_array_get(views, 0), json_array_get(views, 1)) : gt_fleet(views);
	if (json) {
		json_dumpf(out, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
	} else if (pair) {
		gt_render_diff_text(stdout, out);
	} else {
		gt_render_fleet_text(stdout, out);
	}
	status = pair ? json_is_true(json_object_get(out, "libraries_differ")) : gt_fleet_status(out);
	json_decref(out);
	json_decref(views);
	return status;
}
