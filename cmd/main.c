/* gputrace: the command. Traces a program's CUDA library loading, and hosts the
 * report, scan and doctor subcommands. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/launch.h"
#include "cmd/retry.h"
#include <unistd.h>

#ifndef GPUTRACE_VERSION
#define GPUTRACE_VERSION "0.1.0"
#endif

/* In sanitizer builds (`make check`, `make asan`): a user's own LD_PRELOAD
 * (jemalloc, say) must not stop gputrace before it starts. The runtime asks
 * for this function; other builds never call it. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "verify_asan_link_order=0";
}

static void usage(void)
{
	fputs("usage: gputrace [-o DIR [--append]] [-q] [--try-fixes] [--color=WHEN] [--] COMMAND [ARG...]\n"
	      "       gputrace report [--json | --tree | --dot | --svg | --html FILE] [--all]\n"
	      "                       [--prometheus FILE] [--save-facts] [--color=WHEN] PATH...\n"
	      "       gputrace scan [--json] [--for FILE [--dot]] [-o DIR] [--prometheus FILE]\n"
	      "                     [--color=WHEN] [ROOT...]\n"
	      "       gputrace doctor [--json] [--python PATH] [--color=WHEN]\n"
	      "       gputrace diff [--json] A B [C...]\n"
	      "       gputrace retry [--fix ID | --all-fixes] [--yes] [--json] [-o DIR] TRACEDIR\n"
	      "       gputrace inspect [--json] [--color=WHEN] PID\n"
	      "       gputrace bundle [-o FILE] TRACEDIR\n"
	      "       gputrace --help | --version\n"
	      "\n"
	      "Runs COMMAND with libgputrace.so loaded (LD_AUDIT and LD_PRELOAD), records\n"
	      "which CUDA library files it loads and why, and lists them when it exits.\n"
	      "Options must come before COMMAND: what follows it is COMMAND's own.\n"
	      "\n"
	      "  -o, --output=DIR  write the traces into DIR (default: $GPUTRACE_DIR, else a\n"
	      "                    new folder under ${TMPDIR:-/tmp}); a DIR that holds traces\n"
	      "                    already is refused\n"
	      "      --append      add this run's traces to those already in DIR\n"
	      "  -q, --quiet       print nothing of gputrace's own at exit\n"
	      "      --try-fixes   then run COMMAND again with each finding's fix of the\n"
	      "                    environment applied, and say what it changed\n"
	      "      --color=WHEN  colour the diagnosis: auto (default), always or never\n"
	      "  -h, --help        this help\n"
	      "  -V, --version     the version\n"
	      "\n"
	      "report, scan, doctor, diff, retry, inspect and bundle must be the first\n"
	      "argument; each has --help.\n"
	      "Exit status: the command's own, 128+N when signal N killed it, 127 when it\n"
	      "was not found, 126 when it could not be run, 125 when gputrace itself\n"
	      "failed (bad usage, no libgputrace.so, an unusable -o DIR).\n"
	      "report, scan, doctor: 0 no error found, 1 an error-level finding, 2 bad\n"
	      "usage or input.\n"
	      "Environment: GPUTRACE_DISABLE=1 runs COMMAND untouched; GPUTRACE_LIB names\n"
	      "libgputrace.so; NO_COLOR turns colour off. See gputrace(1).\n", stdout);
}

static int trace_main(int argc, char **argv)
{
	enum { OPT_APPEND = 256, OPT_COLOR, OPT_TRY_FIXES };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "append", no_argument, NULL, OPT_APPEND },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "try-fixes", no_argument, NULL, OPT_TRY_FIXES },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_launch_opts o = { 0 };
	struct cmd_retry_opts ro = { 0 };
	char path[PATH_MAX], dir[PATH_MAX] = "";
	bool try_fixes = false;
	int c, status, killed_by = 0;

	opterr = 0;
	/* '+': stop at the first non-option, the command's own options are its own. */
	while ((c = getopt_long(argc, argv, "+:ho:qV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			return 0;
		case 'V':
			printf("gputrace %s\n", GPUTRACE_VERSION);
			return 0;
		case 'o':
			o.out_dir = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case OPT_APPEND:
			o.append = true;
			break;
		case OPT_TRY_FIXES:
			try_fixes = true;
			break;
		case OPT_COLOR:
			if (!cmd_parse_color(optarg, &o.color))
				return cmd_usage_error("gputrace", CMD_EXIT_OWN_FAILURE,
						       "--color=%s: say auto, always or never", optarg);
			break;
		default:
			return cmd_bad_option("gputrace", CMD_EXIT_OWN_FAILURE, c, argv);
		}
	}
	if (optind >= argc)
		return cmd_usage_error("gputrace", CMD_EXIT_OWN_FAILURE, "no command given");
	if (o.append && !o.out_dir)
		return cmd_usage_error("gputrace", CMD_EXIT_OWN_FAILURE, "--append needs -o DIR");
	o.argv = argv + optind;
	o.dir_used = dir;
	o.dir_used_cap = sizeof(dir);
	o.killed_by = &killed_by;
	status = cmd_launch_traced(&o);
	/* --try-fixes is the yes for the run it just traced: each fix is tried at
	 * once (a trace that is not this user's on this host is still asked
	 * about); gputrace still exits with the command's own status. */
	if (try_fixes && dir[0] && access(dir, F_OK) == 0) {
		ro.yes_if_own = true;
		fflush(NULL);
		cmd_retry_dir(dir, &ro);
	}
	/* A subcommand is only the first word; a near miss of one that is no
	 * program either was probably meant as the subcommand. */
	if (status == 127 && optind == 1 && !strchr(argv[1], '/') &&
	    cmd_resolve_command(argv[1], path, sizeof(path)) == ENOENT)
		cmd_hint_subcommand(argv[1], argc > 2 ? argv[2] : NULL);
	return cmd_end_like_command(status, killed_by);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return cmd_report_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "scan") == 0)
		return cmd_scan_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "diff") == 0)
		return cmd_diff_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "retry") == 0)
		return cmd_retry_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "bundle") == 0)
		return cmd_bundle_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "inspect") == 0)
		return cmd_inspect_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "doctor") == 0)
		return cmd_doctor_main(argc - 1, argv + 1);
	return trace_main(argc, argv);
}
