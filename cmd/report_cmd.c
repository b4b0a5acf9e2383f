/* gputrace report: the command line and the choice of output; the reading,
 * the model and the rules are read/, rules/ and report/, the output render/.
 * Also the diagnosis printed when a traced command exits. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "render/render.h"
#include "report/report.h"
#include "render/fold.h"
#include "render/printable.h"
#include "compare/diff.h"
#include "render/pictures.h"
#include "common/xalloc.h"
#include "facts/facts.h"

#define WHO "gputrace report"

static void report_usage(void)
{
	fputs("usage: gputrace report [--json | --tree | --dot | --svg | --html FILE] [--all]\n"
	      "                       [--prometheus FILE] [--save-facts] [--color=WHEN] PATH...\n"
	      "PATH: trace files (*.jsonl) or folders of them, as written by gputrace -o DIR;\n"
	      "hosts' scans (*.scan.json, gputrace scan --json -o DIR) or folders of them,\n"
	      "grouped by what they hold, the odd hosts named.\n"
	      "Options may come before or after the PATHs.\n"
	      "  --json             one JSON object for scripts\n"
	      "  --tree             who loaded what, with the rule of each\n"
	      "  --dot              the load graph as Graphviz DOT (a cluster per kind of process)\n"
	      "  --svg              the load graph laid out as SVG (Graphviz's library)\n"
	      "  --html FILE        one self-contained HTML page: findings, graph, libraries,\n"
	      "                     load timeline (FILE - : standard output)\n"
	      "  --all              draw the objects that are not CUDA libraries too\n"
	      "  --save-facts       ask this host about the traced files now and write the\n"
	      "                     answers beside the traces (gputrace-facts.json)\n"
	      "  --prometheus FILE  also write FILE for node_exporter's textfile collector:\n"
	      "                     a gauge per CUDA library copy and per finding\n"
	      "  --color=WHEN       auto (default: on a terminal, unless NO_COLOR or\n"
	      "                     TERM=dumb), always or never\n"
	      "  -h, --help         this help\n"
	      "Exit status: 0 no error found, 1 an error-level finding (or hosts that differ),\n"
	      "2 bad usage or input, 125 a picture that could not be made or written.\n",
	      stdout);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A folder of scans and no traces, or a scan file: a fleet input. */
static bool is_scan_input(const char *path, bool *also_traces)
{
	struct stat st;
	char **files;
	int n;

	*also_traces = false;
	if (stat(path, &st) != 0)
		return false;
	if (!S_ISDIR(st.st_mode))
		return ends_with(path, ".scan.json");
	if (!gt_folder_has_scans(path))
		return false;
	n = gt_list_traces(path, &files);
	gt_free_list(files, n);
	*also_traces = n > 0;
	return true;
}

/* Paths split into traces (kept in argv's order in traces) and the views of
 * the scans; false with a message on bad input. */
static bool split_inputs(char **paths, int n, char **traces, int *ntraces, json_t *views)
{
	char err[8192];
	bool also;
	int i;

	*ntraces = 0;
	for (i = 0; i < n; i++) {
		if (!is_scan_input(paths[i], &also)) {
			traces[(*ntraces)++] = paths[i];
			continue;
		}
		if (also)
			traces[(*ntraces)++] = paths[i];
		if (!gt_view_load_scans(paths[i], views, err, sizeof(err))) {
			fprintf(stderr, WHO ": %s\n", gt_printable(err));
			return false;
		}
	}
	return true;
}

static void fill_prometheus(FILE *f, void *views)
{
	gt_render_prometheus(f, views);
}

/* The pictures: DOT as is, SVG and HTML laid out by libgvc. A layout that
 * fails or a FILE that cannot be written is gputrace's own failure. */
/* A picture drawn by the dot program because libgvc could not be loaded:
 * said once, on stderr, so that a slower or different-looking layout has
 * its reason. */
static void say_how_laid_out(const char *option)
{
	const char *note = gt_layout_svg_note();

	if (note)
		fprintf(stderr, WHO ": %s: %s; laid out by Graphviz's dot program instead\n", option,
			gt_printable(note));
}

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
		say_how_laid_out("--svg");
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
	say_how_laid_out("--html");
	return 0;
}

/* --save-facts: this host's answers written beside each trace folder (or
 * the folder of each trace file) given. */
static bool save_facts_beside(struct gt_report *r, char **paths, int n)
{
	char dir[PATH_MAX], err[8192];
	struct stat st;
	bool ok = true;
	int i;

	for (i = 0; i < n; i++) {
		const char *slash = strrchr(paths[i], '/');

		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			snprintf(dir, sizeof(dir), "%s", paths[i]);
		else if (slash)
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash == paths[i] ? 1 : slash - paths[i]), paths[i]);
		else
			snprintf(dir, sizeof(dir), ".");
		if (!gt_report_save_facts(r, dir, err, sizeof(err))) {
			fprintf(stderr, WHO ": --save-facts: %s\n", gt_printable(err));
			ok = false;
		}
	}
	return ok;
}

static int report_traces(char **paths, int n, int mode, bool color, json_t *fleet, json_t *views,
			 const char *html_file, bool all, bool save_facts)
{
	struct gt_report r;
	char err[8192];
	int status;

	if (!gt_report_load_as(&r, paths, n, save_facts ? GT_FACTS_LIVE : GT_FACTS_RECORDED, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s\n", gt_printable(err));
		gt_report_free(&r);
		return CMD_EXIT_USAGE;
	}
	gt_report_analyse(&r);
	if (save_facts && !save_facts_beside(&r, paths, n)) {
		gt_report_free(&r);
		return CMD_EXIT_OWN_FAILURE;
	}
	if (mode == 'd' || mode == 's' || mode == 'H') {
		status = render_picture(mode, html_file, &r, all);
		if (!status)
			status = gt_report_status(&r);
		gt_report_free(&r);
		return status;
	}
	if (mode == 'j')
		gt_render_json_fleet(stdout, &r, fleet);
	else if (mode == 't')
		gt_render_tree(stdout, &r, color);
	else
		gt_render_text(stdout, &r, color);
	if (fleet && mode != 'j')
		gt_render_fleet_text(stdout, fleet);
	if (views)
		json_array_insert_new(views, 0, gt_view_of_report(&r, paths[0]));
	status = gt_report_status(&r);
	gt_report_free(&r);
	return status;
}

int cmd_report_main(int argc, char **argv)
{
	enum { OPT_COLOR = 256, OPT_PROMETHEUS, OPT_DOT, OPT_SVG, OPT_HTML, OPT_ALL, OPT_SAVE_FACTS };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "tree", no_argument, NULL, 't' },
		{ "dot", no_argument, NULL, OPT_DOT },
		{ "svg", no_argument, NULL, OPT_SVG },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "save-facts", no_argument, NULL, OPT_SAVE_FACTS },
		{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cmd_color color = CMD_COLOR_AUTO;
	const char *prometheus = NULL, *html_file = NULL;
	json_t *views, *fleet = NULL;
	char **traces;
	int c, status = 0, mode = 0, ntraces;
	bool all = false, save_facts = false;

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
		if (c == OPT_PROMETHEUS) {
			prometheus = optarg;
			continue;
		}
		if (c == OPT_ALL) {
			all = true;
			continue;
		}
		if (c == OPT_SAVE_FACTS) {
			save_facts = true;
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
	views = json_array();
	traces = gt_xcalloc((size_t)(argc - optind), sizeof(*traces));
	if (!split_inputs(argv + optind, argc - optind, traces, &ntraces, views)) {
		free(traces);
		json_decref(views);
		return CMD_EXIT_USAGE;
	}
	if (!ntraces && mode && strchr("dsH", mode)) {
		free(traces);
		json_decref(views);
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "--dot, --svg and --html draw traces: "
				       "no trace file or folder given");
	}
	if (json_array_size(views))
		fleet = gt_fleet(views);
	if (ntraces)
		status = report_traces(traces, ntraces, mode, cmd_color_on(color, stdout), fleet,
				       prometheus ? views : NULL, html_file, all, save_facts);
	else if (mode == 'j') {
		json_dumpf(fleet, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
	} else {
		gt_render_fleet_text(stdout, fleet);
	}
	if (fleet && status != CMD_EXIT_USAGE && (gt_fleet_status(fleet) || gt_fleet_inputs_status(fleet)))
		status = 1;
	if (prometheus && status != CMD_EXIT_USAGE && !cmd_write_file_whole(WHO, prometheus, fill_prometheus, views))
		status = CMD_EXIT_USAGE;
	json_decref(fleet);
	json_decref(views);
	free(traces);
	return status;
}

void cmd_keep_facts(char **traces, int n, const char *dir)
{
	struct gt_report r;
	char err[8192];

	if (!gt_report_load_as(&r, traces, n, GT_FACTS_LIVE, err, sizeof(err))) {
		fprintf(stderr, "gputrace: no facts kept: %s\n", gt_printable(err));
		gt_report_free(&r);
		return;
	}
	gt_report_analyse(&r);
	if (!gt_report_save_facts(&r, dir, err, sizeof(err)))
		fprintf(stderr, "gputrace: the facts of this host were not kept beside the traces: %s\n",
			gt_printable(err));
	gt_report_free(&r);
}

/* The verdict first; where the traces are, last (issue 30). */
static void print_after_run(FILE *out, const struct gt_report *r, const char *dir, bool color)
{
	char where[2 * PATH_MAX + 64];

	gt_render_text(out, r, color);
	snprintf(where, sizeof(where), "gputrace: traces in %s (gputrace report %s for this again)", dir, dir);
	gt_fold_line(out, where, GT_TEXT_WIDTH);
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* GPUTRACE_FACTS_PROFILE=1: the CPU time of each phase of the diagnosis
 * (bench/README.md section 17), said when the phase ends. */
static double phase_done(const char *name, double since)
{
	double now = cpu_ms();

	gt_facts_profile_phase(name, now - since);
	return now;
}

void cmd_report_after_run(const char *dir, FILE *out, bool color, FILE *kept, bool gather_facts)
{
	char *paths[1] = { (char *)dir }, err[8192];
	struct gt_report r;
	double t = cpu_ms();
	bool ok;

	ok = gt_report_load_as(&r, paths, 1, gather_facts ? GT_FACTS_LIVE : GT_FACTS_RECORDED, err, sizeof(err));
	t = phase_done("load", t);
	if (!ok) {
		if (out)
			fprintf(out, "gputrace: %s\n", gt_printable(err));
		if (kept)
			fprintf(kept, "gputrace: %s\n", gt_printable(err));
		gt_report_free(&r);
		return;
	}
	gt_report_analyse(&r);
	t = phase_done("rules", t);
	/* The traces stay readable without the facts: a folder that cannot
	 * take them is said, and the report goes on. */
	if (gather_facts && !gt_report_save_facts(&r, dir, err, sizeof(err)))
		fprintf(stderr, "gputrace: the facts of this host were not kept beside the traces: %s\n",
			gt_printable(err));
	t = phase_done("facts", t);
	if (out)
		print_after_run(out, &r, dir, color);
	if (kept)
		print_after_run(kept, &r, dir, false);
	phase_done("render", t);
	/* No gt_report_free: the child's memory goes with it at its _exit, and
	 * freeing a report of an import torch, object by object, cost 0.2-0.7
	 * ms here of a diagnosis that should take 10 (bench/README.md 17). */
}
