/* gputrace doctor: the command line and the output, text or JSON; the
 * checks themselves are cmd/doctor.c. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/doctor.h"
#include "cmd/launch.h"
#include "common/xalloc.h"
#include "render/fold.h"
#include "render/printable.h"
#include "render/render.h"

#define WHO "gputrace doctor"
#define RED "\033[31m"
#define GREEN "\033[32m"
#define RESET "\033[0m"

/* The text output (issue 30): what a newcomer needs first comes first. On
 * a terminal each step shows on one line of standard error as it finishes,
 * with a spinner while the next one runs, and the line goes when the
 * doctor is done; then standard output gets the verdict and the first
 * failing layer with its cause, the steps, the environment block, all
 * folded to 100 columns. Without a terminal nothing is shown before. */

/* A step's status word, red when it failed and green when ok. */
static void print_status(FILE *f, const char *status, bool color)
{
	const char *c = !color ? "" : strcmp(status, "FAILED") == 0 ? RED : strcmp(status, "ok") == 0 ? GREEN : "";

	fprintf(f, "  %s%-8s%s ", c, gt_printable(status), *c ? RESET : "");
}

static const char *or_none(const char *s, const char *none)
{
	return *s ? gt_printable(s) : none;
}

struct stream {
	const struct doctor *d;  /* first: print_env reads it */
	bool color;
	bool live;               /* standard error is a terminal: the progress line */
	struct gt_fold env, steps;
};

/* ---- the progress line, on a terminal only */

static const char spinner[] = "|/-\\";
static volatile sig_atomic_t spin;

/* Turns the spinner at the start of the progress line (write(2) only: a
 * signal handler). */
static void turn_spinner(int sig)
{
	char buf[4] = { '\r', ' ', ' ', 0 };

	(void)sig;
	buf[3] = spinner[spin++ % 4];
	if (write(STDERR_FILENO, buf, sizeof(buf)) < 0)
		return;
}

static void progress(const struct stream *st, const char *what)
{
	if (!st->live)
		return;
	fprintf(stderr, "\r\033[K  %c %s", spinner[spin % 4], what);
	fflush(stderr);
}

static void progress_start(struct stream *st)
{
	struct itimerval every = { { 0, 150000 }, { 0, 150000 } };
	struct sigaction sa;

	if (!st->live)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = turn_spinner;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	progress(st, "gputrace doctor: reading the environment ...");
}

static void progress_end(const struct stream *st)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	if (!st->live)
		return;
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	fputs("\r\033[K", stderr);
	fflush(stderr);
}

/* ---- what is gathered as it comes */

/* The block users paste into issues. */
static void print_env(const struct doctor_env *e, void *data)
{
	struct stream *st = data;
	FILE *f = st->env.mem;
	int k;

	fprintf(f, "environment (traces in %s):\n", gt_printable(st->d->dir));
	fprintf(f, "  OS            %s\n", or_none(e->os, "unknown (no /etc/os-release)"));
	fprintf(f, "  kernel        %s\n", or_none(e->kernel, "unknown"));
	fprintf(f, "  glibc         %s\n", or_none(e->glibc, "unknown"));
	fprintf(f, "  driver        %s\n", or_none(e->driver, "none visible (no /proc/driver/nvidia/version)"));
	fprintf(f, "  CUDA toolkit  %s\n", or_none(e->cuda_toolkit, "none (no CUDA_HOME, no /usr/local/cuda)"));
	fprintf(f, "  Python        %s\n", or_none(e->python, "none (no python3 on PATH)"));
	/* Before the framework checks ran, a CUDA build's cuDNN is not known yet
	 * (it takes torch imported): the checks' torch_cudnn step says it. */
	for (k = 0; k < e->nframeworks; k++)
		fprintf(f, "  %-13s %s, CUDA %s%s%s\n", e->frameworks[k].name, gt_printable(e->frameworks[k].version),
			or_none(e->frameworks[k].cuda, "none (CPU-only build)"),
			e->frameworks[k].cudnn_known || !e->frameworks[k].cuda[0] ? ", cuDNN " : "",
			e->frameworks[k].cudnn_known || !e->frameworks[k].cuda[0] ?
			or_none(e->frameworks[k].cudnn, "none") : "");
	if (e->python[0] && !e->imports_torch)
		fprintf(f, "  framework checks skipped: %s cannot import torch (%s)\n", gt_printable(e->python_path),
			gt_printable(e->torch_error));
	progress(st, "gputrace doctor: checking the driver ...");
}

/* Each step's line as the step finishes. */
static void print_step(const struct doctor_step *s, void *data)
{
	struct stream *st = data;
	char line[600];

	if (!s) {
		fprintf(st->steps.mem, "  again, on the copies the scan found:\n");
		return;
	}
	print_status(st->steps.mem, s->status, st->color);
	fprintf(st->steps.mem, "%-9s %-18s %9.1f ms  %s\n", cmd_doctor_layer_of(s->name), gt_printable(s->name),
		s->ms, gt_printable(s->detail));
	snprintf(line, sizeof(line), "%-8s %-9s %-18s (then the next step ...)", s->status,
		 cmd_doctor_layer_of(s->name), s->name);
	progress(st, gt_printable(line));
}

/* ---- the output, once every step ran */

static const struct doctor_step *first_failed_step(const struct doctor_probe *r)
{
	int k;

	for (k = 0; k < r->nsteps; k++)
		if (strcmp(r->steps[k].status, "FAILED") == 0)
			return &r->steps[k];
	return NULL;
}

/* The steps that were skipped, "NAME, NAME" (their lines say why): not
 * checked, so no verdict of "all steps ran" may hide them (issue 30: torch
 * not importable by the interpreter asked is a layer left unchecked). */
static int skipped_steps(const struct doctor_probe *r, char *out, size_t cap)
{
	size_t len = 0;
	int k, n = 0;

	out[0] = 0;
	for (k = 0; k < r->nsteps; k++) {
		if (strcmp(r->steps[k].status, "skipped") != 0)
			continue;
		if (len < cap)
			len += (size_t)snprintf(out + len, cap - len, "%s%s", n ? ", " : "", r->steps[k].name);
		n++;
	}
	return n;
}

/* The verdict, then the first failing layer and its cause. */
static void print_verdict(FILE *f, struct doctor *d, const struct gt_report *rep, bool color)
{
	const char *layer = cmd_doctor_first_failing_layer(&d->probe);
	const struct doctor_step *s = first_failed_step(&d->probe);
	char skipped[4096];
	int nskipped = skipped_steps(&d->probe, skipped, sizeof(skipped));
	size_t i, shown = 0;

	if (!layer && !nskipped)
		fprintf(f, "gputrace doctor: the GPU chain, layer by layer: all steps ran.\n");
	else if (!layer)
		fprintf(f, "gputrace doctor: the GPU chain, layer by layer: no step failed, %d skipped, not "
			"checked (%s)\n", nskipped, gt_printable(skipped));
	else
		fprintf(f, "gputrace doctor: the GPU chain, layer by layer: FAILED at the %s layer (%s: %s)\n",
			layer, s ? s->name : "?", s ? gt_printable(s->detail) : "?");
	if (d->torch_python[0])
		fprintf(f, "  %s cannot import torch, and %s can: gputrace doctor --python %s\n",
			gt_printable(d->env.python_path), gt_printable(d->torch_python), gt_printable(d->torch_python));
	if (!layer)
		return;
	fprintf(f, "the first layer that fails: %s\n", layer);
	for (i = 0; rep && i < rep->findings.n; i++)
		if (rep->findings.v[i].severity >= GT_SEV_WARNING) {
			gt_render_finding(f, rep, &rep->findings.v[i], color);
			shown++;
		}
	if (!shown)
		fprintf(f, "  (the traces show no cause; the step's own message is below)\n");
}

/* The steps, the libraries tested, notes; the environment; the scan. */
static void print_text(struct stream *st, struct doctor *d, const struct gt_report *rep)
{
	struct gt_fold out;
	FILE *f = gt_fold_open(&out);
	size_t i;
	int k;

	print_verdict(f, d, rep, st->color);
	fclose(st->steps.mem);
	fprintf(f, "\nsteps:\n%s", st->steps.buf ? st->steps.buf : "");
	free(st->steps.buf);
	for (k = 0; k < d->probe.nlibs; k++)
		fprintf(f, "  tested %-8s %s\n", gt_printable(d->probe.libs[k][0]), gt_printable(d->probe.libs[k][1]));
	for (k = 0; k < d->ntested; k++)
		fprintf(f, "  note: %s\n", gt_printable(d->tested_note[k]));
	fclose(st->env.mem);
	fprintf(f, "\n%s", st->env.buf ? st->env.buf : "");
	free(st->env.buf);
	if (d->scanned) {
		for (i = 0; i < d->scan_findings.n && i < 8; i++)
			if (d->scan_findings.v[i].severity >= GT_SEV_WARNING)
				fprintf(f, "%sscan: %s: %s\n", i ? "" : "\n", gt_finding_name(d->scan_findings.v[i].id),
					gt_printable(d->scan_findings.v[i].summary));
	}
	gt_fold_close(&out, stdout);
}

static json_t *str_or_null(const char *s)
{
	return *s ? gt_json_text(s) : json_null();
}

static json_t *env_json(const struct doctor_env *e)
{
	json_t *o = json_object(), *fws = json_array();
	int k;

	json_object_set_new(o, "os", str_or_null(e->os));
	json_object_set_new(o, "kernel", gt_json_text(e->kernel));
	json_object_set_new(o, "glibc", gt_json_text(e->glibc));
	json_object_set_new(o, "driver", str_or_null(e->driver));
	json_object_set_new(o, "cuda_toolkit", str_or_null(e->cuda_toolkit));
	json_object_set_new(o, "python", str_or_null(e->python));
	for (k = 0; k < e->nframeworks; k++) {
		json_t *f = json_object();

		json_object_set_new(f, "name", gt_json_text(e->frameworks[k].name));
		json_object_set_new(f, "version", gt_json_text(e->frameworks[k].version));
		json_object_set_new(f, "cuda", str_or_null(e->frameworks[k].cuda));
		json_object_set_new(f, "cudnn", str_or_null(e->frameworks[k].cudnn));
		json_array_append_new(fws, f);
	}
	json_object_set_new(o, "frameworks", fws);
	return o;
}

static void print_json(struct doctor *d, const struct gt_report *rep)
{
	json_t *o = json_object(), *steps = json_array(), *libs = json_array(), *notes = json_array();
	const char *layer = cmd_doctor_first_failing_layer(&d->probe);
	int k;

	json_object_set_new(o, "format", json_string("gputrace-doctor"));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "traces", json_string(d->dir));
	json_object_set_new(o, "environment", env_json(&d->env));
	/* added (issue 30): the interpreter that has torch, when the one asked has not */
	json_object_set_new(o, "torch_python", str_or_null(d->torch_python));
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

static void doctor_usage(void)
{
	fputs("usage: gputrace doctor [--json] [--python PATH] [--color=WHEN]\n"
	      "Checks the GPU chain step by step: driver, runtime, devices, device memory,\n"
	      "cuBLAS, cuDNN, then PyTorch through the interpreter.\n"
	      "  --json         one JSON object for scripts\n"
	      "  --python PATH  the interpreter of the framework steps (default: python3 on PATH)\n"
	      "  --color=WHEN   auto (default: on a terminal, unless NO_COLOR or TERM=dumb),\n"
	      "                 always or never\n"
	      "  -h, --help     this help\n"
	      "Exit status: 0 every step ran, 1 a step failed, 2 bad usage.\n", stdout);
}

int cmd_doctor_main(int argc, char **argv)
{
	enum { OPT_COLOR = 256 };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "python", required_argument, NULL, 'p' },
		{ "color", optional_argument, NULL, OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum cmd_color color = CMD_COLOR_AUTO;
	struct doctor *d;
	char python[PATH_MAX];
	const char *interp = NULL;
	struct stream st;
	bool json = false, ok;
	int c, status;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", longopts, NULL)) != -1) {
		if (c == 'h') {
			doctor_usage();
			return 0;
		}
		if (c == 'j')
			json = true;
		else if (c == 'p')
			interp = optarg;
		else if (c != OPT_COLOR)
			return cmd_bad_option(WHO, CMD_EXIT_USAGE, c, argv);
		else if (!cmd_parse_color(optarg, &color))
			return cmd_usage_error(WHO, CMD_EXIT_USAGE, "--color=%s: say auto, always or never",
					       optarg);
	}
	if (optind < argc)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
	if (interp && (c = cmd_resolve_command(interp, python, sizeof(python))) != 0) {
		fprintf(stderr, WHO ": --python %s: %s\n", interp, strerror(c));
		return CMD_EXIT_USAGE;
	}
	d = gt_xcalloc(1, sizeof(*d));
	d->python = interp;
	memset(&st, 0, sizeof(st));
	st.d = d;
	st.color = cmd_color_on(color, stdout);
	st.live = !json && isatty(STDERR_FILENO);
	if (!json) {  /* the text: gathered as it comes, printed verdict first */
		gt_fold_open(&st.env);
		gt_fold_open(&st.steps);
		d->on_env = print_env;
		d->on_step = print_step;
		d->on_step_data = &st;
		progress_start(&st);
	}
	ok = cmd_doctor_run(d);
	progress_end(&st);
	if (!ok) {
		if (!json) {
			fclose(st.env.mem);
			fclose(st.steps.mem);
			free(st.env.buf);
			free(st.steps.buf);
		}
		cmd_doctor_free(d);
		free(d);
		return 2;
	}
	if (json)
		print_json(d, d->have_report ? &d->report : NULL);
	else
		print_text(&st, d, d->have_report ? &d->report : NULL);
	status = cmd_doctor_first_failing_layer(&d->probe) ? 1 : 0;
	cmd_doctor_free(d);
	free(d);
	return status;
}
