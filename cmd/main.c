/* gputrace: the command. Traces a program's CUDA library loading, and hosts the
 * report, scan and doctor subcommands. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/launch.h"

#ifndef GPUTRACE_VERSION
#define GPUTRACE_VERSION "0.1.0"
#endif

/* In sanitizer builds (the default of `make`, for the tests): a user's own
 * LD_PRELOAD (jemalloc, say) must not stop gputrace before it starts. The
 * runtime asks for this function; other builds never call it. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "verify_asan_link_order=0";
}

static void usage(FILE *f)
{
	fputs("usage: gputrace [-o DIR] [-q] [--] COMMAND [ARG...]\n"
	      "       gputrace report [--json | --tree] PATH...\n"
	      "       gputrace scan [--json] [--for FILE] [ROOT...]\n"
	      "       gputrace doctor [--json] [--python PATH]\n"
	      "       gputrace --help | --version\n"
	      "\n"
	      "Runs COMMAND with libgputrace.so loaded (LD_AUDIT and LD_PRELOAD), records\n"
	      "which CUDA library files it loads and why, and lists them when it exits.\n"
	      "\n"
	      "  -o DIR     write the traces into DIR (default: $GPUTRACE_DIR, else a new\n"
	      "             folder under ${TMPDIR:-/tmp})\n"
	      "  -q         print nothing of gputrace's own at exit\n"
	      "  -h, --help     this help\n"
	      "  -V, --version  the version\n"
	      "\n"
	      "Exit status: the command's own, 128+N when signal N killed it, 127 when it\n"
	      "could not be started (126 when it is not executable).\n"
	      "report: 0 no error found, 1 an error-level finding, 2 bad usage or input.\n"
	      "Environment: GPUTRACE_DISABLE=1 runs COMMAND untouched; GPUTRACE_LIB names\n"
	      "libgputrace.so. See gputrace(1).\n", f);
}



int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_launch_opts o = { 0 };
	int c;

	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return cmd_report_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "scan") == 0)
		return cmd_scan_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "doctor") == 0)
		return cmd_doctor_main(argc - 1, argv + 1);
	/* '+': stop at the first non-option, the command's own options are its own. */
	while ((c = getopt_long(argc, argv, "+ho:qV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
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
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "gputrace: no command given\n");
		usage(stderr);
		return 2;
	}
	o.argv = argv + optind;
	return cmd_launch_traced(&o);
}
