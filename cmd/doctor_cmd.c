/* gputrace doctor: the command line and the output, text or JSON; the
 * checks themselves are cmd/doctor.c. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/doctor.h"
#include "cmd/launch.h"
#include "common/xalloc.h"
#include "report/printable.h"

static void print_text(struct doctor *d, const struct gt_report *rep)
{
	const char *layer = cmd_doctor_first_failing_layer(&d->probe);
	size_t i, shown = 0;
	int k;

	printf("gputrace doctor: the GPU chain, layer by layer (traces in %s)\n", d->dir);
	for (k = 0; k < d->probe.nsteps; k++) {
		const struct doctor_step *s = &d->probe.steps[k];

		printf("  %-8s %-9s %-18s %9.1f ms  %s\n", gt_printable(s->status), cmd_doctor_layer_of(s->name),
		       gt_printable(s->name), s->ms, gt_printable(s->detail));
	}
	for (k = 0; k < d->probe.nlibs; k++)
		printf("  tested %-8s %s\n", gt_printable(d->probe.libs[k][0]), gt_printable(d->probe.libs[k][1]));
	for (k = 0; k < d->ntested; k++)
		printf("  note: %s\n", gt_printable(d->tested_note[k]));
	if (!layer) {
		printf("all steps ran.\n");
	} else {
		printf("\nthe first layer that fails: %s\n", layer);
		for (i = 0; rep && i < rep->findings.n; i++)
			if (rep->findings.v[i].severity >= GT_SEV_WARNING) {
				gt_render_finding(stdout, rep, &rep->findings.v[i], false);
				shown++;
			}
		if (!shown)
			printf("  (the traces show no cause; the step's own message is above)\n");
	}
	if (d->scanned) {
		for (i = 0; i < d->scan_findings.n && i < 8; i++)
			if (d->scan_findings.v[i].severity >= GT_SEV_WARNING)
				printf("%sscan: %s: %s\n", i ? "" : "\n", d->scan_findings.v[i].id,
				       gt_printable(d->scan_findings.v[i].summary));
	}
}

static void print_json(struct doctor *d, const struct gt_report *rep)
{
	json_t *o = json_object(), *steps = json_array(), *libs = json_array(), *notes = json_array();
	const char *layer = cmd_doctor_first_failing_layer(&d->probe);
	int k;

	json_object_set_new(o, "format", json_string("gputrace-doctor"));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "traces", json_string(d->dir));
	for (k = 0; k < d->probe.nsteps; k++) {
		const struct doctor_step *s = &d->probe.steps[k];
		json_t *x = json_object();

		json_object_set_new(x, "layer", json_string(cmd_doctor_layer_of(s->name)));
		json_object_set_new(x, "name", json_string(s->name));
		json_object_set_new(x, "status", json_string(s->status));
		json_object_set_new(x, "ms", json_real(s->ms));
		gt_evidence_str(x, "detail", s->detail);
		json_array_append_new(steps, x);
	}
	for (k = 0; k < d->probe.nlibs; k++) {
		json_t *x = json_object();

		json_object_set_new(x, "component", json_string(d->probe.libs[k][0]));
		json_object_set_new(x, "path", json_string(d->probe.libs[k][1]));
		json_array_append_new(libs, x);
	}
	for (k = 0; k < d->ntested; k++)
		json_array_append_new(notes, json_string(d->tested_note[k]));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "libraries", libs);
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "first_failing_layer", layer ? json_string(layer) : json_null());
	json_object_set_new(o, "findings", gt_findings_json(rep ? &rep->findings : NULL));
	json_object_set_new(o, "scan_findings", gt_findings_json(d->scanned ? &d->scan_findings : NULL));
	json_dumpf(o, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	putchar('\n');
	json_decref(o);
}

int cmd_doctor_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "python", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor *d;
	char python[PATH_MAX];
	const char *interp = NULL;
	bool json = false;
	int c, status;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+jh", longopts, NULL)) != -1) {
		if (c == 'h') {
			puts("usage: gputrace doctor [--json] [--python PATH]");
			return 0;
		}
		if (c == 'j')
			json = true;
		else if (c == 'p')
			interp = optarg;
		else
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "gputrace doctor: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (interp && (c = cmd_resolve_command(interp, python, sizeof(python))) != 0) {
		fprintf(stderr, "gputrace doctor: --python %s: %s\n", interp, strerror(c));
		return 2;
	}
	d = gt_xcalloc(1, sizeof(*d));
	d->python = interp;
	if (!cmd_doctor_run(d)) {
		cmd_doctor_free(d);
		free(d);
		return 2;
	}
	if (json)
		print_json(d, d->have_report ? &d->report : NULL);
	else
		print_text(d, d->have_report ? &d->report : NULL);
	status = cmd_doctor_first_failing_layer(&d->probe) ? 1 : 0;
	cmd_doctor_free(d);
	free(d);
	return status;
}
