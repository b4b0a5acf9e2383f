/* gputrace inspect PID: a running process judged without a restart. The
 * command line and the choice of output; /proc is read by host/proc_live.c,
 * written as a trace and judged by report/live.c with the trace's rules. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "render/fold.h"
#include "render/printable.h"
#include "render/render.h"
#include "report/live.h"

#define WHO "gputrace inspect"

static void inspect_usage(void)
{
	fputs("usage: gputrace inspect [--json] [--color=WHEN] PID\n"
	      "Reads a running process (of your own user, or any as root) from /proc without\n"
	      "stopping it: the ELF files it has mapped now, its command line and environment,\n"
	      "and judges them with the report's rules and this host's files. The findings\n"
	      "that need the loader's searches or the results of CUDA calls cannot be judged\n"
	      "from a live process: they are listed as not judged.\n"
	      "  --json             one JSON object for scripts: gputrace report's, with \"live\"\n"
	      "  --color=WHEN       auto (default: on a terminal, unless NO_COLOR or\n"
	      "                     TERM=dumb), always or never\n"
	      "  -h, --help         this help\n"
	      "Exit status: 0 no error found, 1 an error-level finding, 2 bad usage, no such\n"
	      "process, another user's process, or a process that exited as it was read.\n",
	      stdout);
}

static bool parse_pid(const char *s, long *pid)
{
	char *end;

	errno = 0;
	*pid = strtol(s, &end, 10);
	return s[0] >= '0' && s[0] <= '9' && !*end && !errno && *pid > 0;
}

static json_t *live_json(const struct host_live *lv)
{
	const struct gt_live_unjudged *nj;
	json_t *o = json_object(), *objects = json_array(), *not_judged = json_array();
	char from[64];
	size_t i, n;

	snprintf(from, sizeof(from), "/proc/%ld", lv->pid);
	json_object_set_new(o, "pid", json_integer(lv->pid));
	json_object_set_new(o, "read_from", json_string(from));
	for (i = 0; i < lv->nobjects; i++) {
		json_t *ob = json_object();

		gt_evidence_str(ob, "path", lv->objects[i].path);
		json_object_set_new(ob, "deleted", json_boolean(lv->objects[i].deleted));
		json_array_append_new(objects, ob);
	}
	json_object_set_new(o, "objects", objects);
	nj = gt_live_not_judged(&n);
	for (i = 0; i < n; i++)
		json_array_append_new(not_judged, json_pack("{s:s, s:s}", "id", gt_finding_name(nj[i].id), "why",
							     nj[i].why));
	json_object_set_new(o, "not_judged", not_judged);
	return o;
}

/* The ids not judged, one line per reason. */
static void not_judged_text(FILE *f)
{
	const struct gt_live_unjudged *nj = NULL;
	char line[1024];
	size_t i, n, len = 0;

	nj = gt_live_not_judged(&n);
	fputs("not judged from a live process (trace a run for these):\n", f);
	for (i = 0; i < n; i++) {
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? ", " : "  - ",
					gt_finding_name(nj[i].id));
		if (i + 1 == n || nj[i + 1].why != nj[i].why) {
			snprintf(line + len, sizeof(line) - len, ": %s", nj[i].why);
			gt_fold_line(f, line, GT_TEXT_WIDTH);
			len = 0;
		}
	}
}

static void live_text(FILE *f, const struct host_live *lv)
{
	char line[8192];
	size_t i;

	snprintf(line, sizeof(line), "read from /proc/%ld: %zu ELF file%s mapped", lv->pid, lv->nobjects,
		 lv->nobjects == 1 ? "" : "s");
	gt_fold_line(f, line, GT_TEXT_WIDTH);
	for (i = 0; i < lv->nobjects; i++)
		if (lv->objects[i].deleted) {
			/* pip install -U under a running job: what runs is no longer on disk */
			snprintf(line, sizeof(line), "  - %s: removed or replaced on disk since it was mapped",
				 gt_printable(lv->objects[i].path));
			gt_fold_line(f, line, GT_TEXT_WIDTH);
		}
	not_judged_text(f);
}

static int inspect(long pid, bool json, bool color)
{
	struct host_live lv;
	struct gt_report r;
	char err[1024];
	int status;

	if (host_live_read(pid, &lv, err, sizeof(err)) != HOST_LIVE_OK) {
		fprintf(stderr, WHO ": %s\n", gt_printable(err));
		host_live_free(&lv);
		return CMD_EXIT_USAGE;
	}
	if (!gt_report_live(&r, &lv, err, sizeof(err))) {
		fprintf(stderr, WHO ": pid %ld: %s\n", pid, gt_printable(err));
		gt_report_free(&r);
		host_live_free(&lv);
		return CMD_EXIT_USAGE;
	}
	if (json) {
		json_t *live = live_json(&lv);

		gt_render_json_live(stdout, &r, live);
		json_decref(live);
	} else {
		gt_render_text(stdout, &r, color);
		live_text(stdout, &lv);
	}
	status = gt_report_status(&r);
	gt_report_free(&r);
	host_live_free(&lv);
	return status;
}

int cmd_inspect_main(int argc, char **argv)
{
	enum { OPT_COLOR = 256 };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cmd_color color = CMD_COLOR_AUTO;
	bool json = false;
	long pid;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", longopts, NULL)) != -1) {
		if (c == 'h') {
			inspect_usage();
			return 0;
		}
		if (c == 'j')
			json = true;
		else if (c == OPT_COLOR && !cmd_parse_color(optarg, &color))
			return cmd_usage_error(WHO, CMD_EXIT_USAGE, "--color=%s: say auto, always or never", optarg);
		else if (c != OPT_COLOR)
			return cmd_bad_option(WHO, CMD_EXIT_USAGE, c, argv);
	}
	if (optind >= argc)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "no PID given");
	if (argc - optind > 1)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "one PID at a time");
	if (!parse_pid(argv[optind], &pid))
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "%s: a PID is a positive number", argv[optind]);
	return inspect(pid, json, cmd_color_on(color, stdout));
}
