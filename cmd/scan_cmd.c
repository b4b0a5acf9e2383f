/* gputrace scan: the command line and the choice of output; the walk is
 * host/scan.c, --for host/scan_for.c, the findings and the output report/. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "host/elf_info.h"
#include "report/scan_report.h"
#include "report/printable.h"

int cmd_scan_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "for", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct host_scan_for *fr = NULL;
	struct gt_findings findings = { 0 };
	const char *consumer = NULL;
	struct host_elf_info probe;
	struct host_scan s;
	bool json = false;
	int c, status;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+jf:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			puts("usage: gputrace scan [--json] [--for FILE] [ROOT...]");
			return 0;
		}
		if (c == 'j')
			json = true;
		else if (c == 'f')
			consumer = optarg;
		else
			return 2;
	}
	if (consumer && !host_elf_read(consumer, &probe)) {
		fprintf(stderr, "gputrace scan: %s: %s\n", gt_printable(consumer), gt_printable(probe.error));
		host_elf_free(&probe);
		return 2;
	}
	if (consumer)
		host_elf_free(&probe);
	host_scan_run(&s, argv + optind, argc - optind);
	gt_scan_judge(&s, &findings);
	if (consumer) {
		fr = host_scan_for_run(consumer, &s);
		gt_scan_for_judge(fr, &findings);
	}
	if (json)
		gt_render_scan_json(stdout, &s, &findings, fr);
	else
		gt_render_scan_text(stdout, &s, &findings, fr);
	status = gt_scan_status(&findings);
	host_scan_for_free(fr);
	gt_findings_free(&findings);
	host_scan_free(&s);
	return status;
}
