/* gputrace scan: the command line and the choice of output; the walk is
 * host/scan.c, --for host/scan_for.c, the findings rules/scan_rules.c, the
 * output render/render_scan.c. */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/launch.h"
#include "host/elf_info.h"
#include "render/pictures.h"
#include "report/paper.h"
#include "render/render_scan.h"
#include "render/printable.h"
#include "compare/diff.h"
#include "common/trace_file.h"
#include "common/xalloc.h"
#include <unistd.h>

#define WHO "gputrace scan"

static void scan_usage(void)
{
	fputs("usage: gputrace scan [--json] [--for FILE [--dot] | --arch sm_XY] [--ask] [-o DIR]\n"
	      "                     [--prometheus FILE] [--color=WHEN] [ROOT...]\n"
	      "Lists the CUDA library files of this host (or under each ROOT) and their\n"
	      "conflicts, without running anything. Options may come before or after ROOTs.\n"
	      "  --json        one JSON object for scripts\n"
	      "  --for FILE    the copies the loader would give FILE, name by name\n"
	      "  -o, --output=DIR  write the JSON to DIR/<host>.scan.json instead (for\n"
	      "                gputrace report DIR over many hosts)\n"
	      "  --prometheus FILE  also write FILE for node_exporter's textfile collector\n"
	      "  --dot         with --for: those choices as a Graphviz DOT graph\n"
	      "  --ask         a version the file does not show (libcublas.so.13): ask the\n"
	      "                library's own version function, in a child process\n"
	      "  --arch sm_XY  which files could run on that GPU architecture, on paper\n"
	      "                (SASS for it, PTX to compile, or nothing); also X.Y\n"
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

/* The ROOTs as absolute paths (the working folder in front of a relative
 * one, links in it kept as named): the scan compares each name with its
 * real path, and a relative ROOT made every file look like a link to itself. */
static char **absolute_roots(char *const *roots, int n)
{
	char **out = gt_xcalloc((size_t)n + 1, sizeof(*out)), cwd[PATH_MAX];
	int i;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	for (i = 0; i < n; i++)
		out[i] = roots[i][0] == '/' || !cwd[0] ? gt_xstrdup(roots[i])
						       : gt_xasprintf("%s/%s", strcmp(cwd, "/") ? cwd : "", roots[i]);
	return out;
}

static void free_roots(char **roots, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(roots[i]);
	free(roots);
}

/* Folders that could not be read and the like: diagnostics, so stderr; the
 * JSON keeps them as data too. */
static void print_problems(const struct host_scan *s)
{
	size_t i;

	for (i = 0; i < s->nproblems; i++)
		fprintf(stderr, WHO ": note: %s\n", gt_printable(s->problems[i]));
}

struct scan_out {
	const struct host_scan *s;
	const struct gt_findings *fs;
	const struct host_scan_for *fr;
	size_t for_from;
	const struct gt_scan_arch *arch;
	json_t *views;
};

static void fill_json(FILE *f, void *arg)
{
	struct scan_out *so = arg;

	gt_render_scan_json(f, so->s, so->fs, so->fr, so->for_from, so->arch);
}

static void fill_prometheus(FILE *f, void *arg)
{
	gt_render_prometheus(f, ((struct scan_out *)arg)->views);
}

/* -o DIR and --prometheus FILE; 2 when one cannot be written. */
static int write_outputs(const char *out_dir, const char *prometheus, const struct scan_out *what)
{
	struct scan_out so = *what;
	char host[256], *path, *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int status = 0;

	if (out_dir) {
		if (mkdir(out_dir, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, WHO ": cannot create %s: %s\n", gt_printable(out_dir), strerror(errno));
			return CMD_EXIT_USAGE;
		}
		gt_host_name(host, sizeof(host));
		path = gt_xasprintf("%s/%s.scan.json", out_dir, host);
		if (!cmd_write_file_whole(WHO, path, fill_json, &so))
			status = CMD_EXIT_USAGE;
		free(path);
	}
	if (prometheus) {
		mem = open_memstream(&buf, &len);
		if (!mem)
			abort();
		gt_render_scan_json(mem, so.s, so.fs, so.fr, so.for_from, so.arch);
		fclose(mem);
		so.views = json_array();
		json_array_append_new(so.views, gt_view_of_scan_text(buf, len, "scan"));
		free(buf);
		if (!cmd_write_file_whole(WHO, prometheus, fill_prometheus, &so))
			status = CMD_EXIT_USAGE;
		json_decref(so.views);
	}
	return status;
}

/* Each child of --ask gets this long: GPUTRACE_ASK_TIMEOUT_MS, else 10 s
 * (loading a large library from a cold disk takes seconds). */
static int ask_timeout_ms(void)
{
	const char *s = getenv("GPUTRACE_ASK_TIMEOUT_MS");
	long v = s ? strtol(s, NULL, 10) : 0;

	return v > 0 && v <= 600000 ? (int)v : 10000;
}

int cmd_scan_main(int argc, char **argv)
{
	enum { OPT_COLOR = 256, OPT_PROMETHEUS, OPT_DOT, OPT_ARCH, OPT_ASK };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "dot", no_argument, NULL, OPT_DOT },
		{ "for", required_argument, NULL, 'f' },
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "ask", no_argument, NULL, OPT_ASK },
		{ "output", required_argument, NULL, 'o' },
		{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cmd_color color = CMD_COLOR_AUTO;
	struct host_scan_for *fr = NULL;
	struct gt_findings findings = { 0 };
	const char *consumer = NULL, *out_dir = NULL, *prometheus = NULL, *arch_arg = NULL;
	struct gt_scan_arch arch, *want_arch = NULL;
	struct scan_out so;
	struct host_elf_info probe;
	struct host_scan s;
	bool json = false, dot = false, ask = false;
	char **roots;
	char helper[PATH_MAX];
	size_t for_from;
	int c, status, major = 0, minor = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jf:o:h", longopts, NULL)) != -1) {
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
		else if (c == 'o')
			out_dir = optarg;
		else if (c == OPT_PROMETHEUS)
			prometheus = optarg;
		else if (c == OPT_ARCH)
			arch_arg = optarg;
		else if (c == OPT_ASK)
			ask = true;
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
	if (arch_arg && !gt_parse_arch(arch_arg, &major, &minor))
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "--arch %s: not a GPU architecture: say sm_XY "
				       "(sm_80, sm_90, sm_120) or a compute capability X.Y (9.0)", arch_arg);
	if (arch_arg && consumer)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "say one of --for and --arch");
	if (ask && !cmd_find_beside("gputrace-probe", helper, sizeof(helper))) {
		fprintf(stderr, WHO ": --ask needs gputrace-probe next to gputrace (or in ../lib/gputrace/)\n");
		return CMD_EXIT_OWN_FAILURE;
	}
	if (!roots_exist(argv + optind, argc - optind))
		return CMD_EXIT_USAGE;
	if (consumer && !host_elf_read(consumer, &probe)) {
		fprintf(stderr, WHO ": %s: %s\n", gt_printable(consumer), gt_printable(probe.error));
		host_elf_free(&probe);
		return CMD_EXIT_USAGE;
	}
	if (consumer)
		host_elf_free(&probe);
	roots = absolute_roots(argv + optind, argc - optind);
	/* --for alone judges what the program would load: the loader reads only
	 * ld.so.cache of the host, and so does the scan (the walk of every
	 * folder took 16 ms of 18); ROOTs still get their listing */
	if (consumer && argc == optind)
		host_scan_cache_only(&s);
	else if (arch_arg)  /* every file with device code or CUDA needs is judged */
		host_scan_run_with_consumers(&s, roots, argc - optind);
	else
		host_scan_run(&s, roots, argc - optind);
	if (ask)
		host_scan_ask(&s, helper, ask_timeout_ms());
	gt_scan_judge(&s, &findings);
	/* GPU, driver and device nodes belong to the host, not to ROOTs */
	if (argc == optind && !consumer) {
		struct host_gpu_presence gpu;

		host_gpu_presence_read(&gpu);
		gt_scan_judge_host(&s, &gpu, &findings);
	}
	for_from = findings.n;
	if (consumer) {
		fr = host_scan_for_run(consumer, &s);
		gt_scan_for_findings(fr, &findings);
	}
	if (arch_arg) {
		gt_scan_arch_judge(&s, major, minor, &arch);
		want_arch = &arch;
	}
	print_problems(&s);
	so = (struct scan_out){ &s, &findings, fr, for_from, want_arch, NULL };
	if (out_dir || prometheus)
		status = write_outputs(out_dir, prometheus, &so);
	else
		status = 0;
	/* with -o DIR the JSON went to the file: stdout stays quiet */
	if (!out_dir && dot)
		gt_render_scan_dot(stdout, fr, &findings);
	else if (!out_dir && json)
		gt_render_scan_json(stdout, &s, &findings, fr, for_from, want_arch);
	else if (!out_dir)
		gt_render_scan_text(stdout, &s, &findings, fr, for_from, want_arch, cmd_color_on(color, stdout));
	if (!status)
		status = gt_scan_status(&findings);
	/* a file that carries device code and none of it runs there: as an error */
	if (!status && want_arch && gt_scan_arch_cannot(want_arch))
		status = 1;
	if (want_arch)
		gt_scan_arch_free(want_arch);
	host_scan_for_free(fr);
	gt_findings_free(&findings);
	host_scan_free(&s);
	free_roots(roots, argc - optind);
	return status;
}
