/* gputrace doctor: checks the GPU chain one layer at a time (driver, runtime,
 * device, memory, cuBLAS, cuDNN, then the framework), each step run by the
 * probe under the tracer, and explains the first layer that fails with the
 * report's findings for it, and the host's conflicts from gputrace scan. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/launch.h"
#include "report/report.h"
#include "report/scan_report.h"

#define MAX_STEPS 64
#define MAX_LIBS 16

struct step {
	char name[40];
	char status[12];
	double ms;
	char detail[768];
};

struct probe_result {
	struct step steps[MAX_STEPS];
	int nsteps;
	char libs[MAX_LIBS][2][PATH_MAX];  /* component, path */
	int nlibs;
};

/* The layer a step belongs to, in the order the chain is built. */
static const char *layer_of(const char *step)
{
	static const char *const map[][2] = {
		{ "driver_", "driver" },   { "runtime_", "runtime" }, { "device", "device" },
		{ "malloc", "memory" },    { "cublas", "cublas" },    { "sgemm", "cublas" },
		{ "cudnn", "cudnn" },      { "torch", "framework" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strncmp(step, map[i][0], strlen(map[i][0])) == 0)
			return map[i][1];
	return "other";
}

/* Lines "step\tNAME\tSTATUS\tMS\tDETAIL" and "lib\tCOMPONENT\tPATH". */
static void parse_probe(const char *out, struct probe_result *r)
{
	const char *line = out;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[2048], *f[5] = { 0 }, *save = NULL;
		int n = 0;

		snprintf(buf, sizeof(buf), "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
		for (f[n] = strtok_r(buf, "\t", &save); f[n] && n < 4; f[++n] = strtok_r(NULL, "\t", &save))
			;
		if (n >= 4 && strcmp(f[0], "step") == 0 && r->nsteps < MAX_STEPS) {
			struct step *s = &r->steps[r->nsteps++];

			snprintf(s->name, sizeof(s->name), "%s", f[1]);
			snprintf(s->status, sizeof(s->status), "%s", f[2]);
			s->ms = atof(f[3]);
			snprintf(s->detail, sizeof(s->detail), "%s", f[4] ? f[4] : "");
		} else if (n >= 3 && strcmp(f[0], "lib") == 0 && r->nlibs < MAX_LIBS) {
			snprintf(r->libs[r->nlibs][0], PATH_MAX, "%s", f[1]);
			snprintf(r->libs[r->nlibs++][1], PATH_MAX, "%s", f[2]);
		}
		line = nl ? nl + 1 : NULL;
	}
}

static const struct step *find_step(const struct probe_result *r, const char *name)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].name, name) == 0)
			return &r->steps[i];
	return NULL;
}

static bool failed(const struct probe_result *r, const char *name)
{
	const struct step *s = find_step(r, name);

	return s && strcmp(s->status, "FAILED") == 0;
}

/* Next to the gputrace command, as the build and an install put it. */
static bool beside_us(const char *rel, char *out, size_t cap)
{
	char self[PATH_MAX];

	if (!cmd_own_folder(self, sizeof(self)))
		return false;
	return (size_t)snprintf(out, cap, "%s/%s", self, rel) < cap && access(out, F_OK) == 0;
}

/* A copy of component the scan found, the Python environment's first. */
static const char *copy_of(const struct host_scan *s, const char *component)
{
	const struct host_copy *best = NULL;
	size_t i;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];

		if (strcmp(c->fi.component, component) || !c->real_path || !c->elf.ok || c->stub)
			continue;
		if (!best || (strcmp(c->where, "site-packages") == 0 && strcmp(best->where, "site-packages")))
			best = c;
	}
	return best ? best->path : NULL;
}

struct doctor {
	bool json;
	char dir[PATH_MAX];
	struct probe_result probe;
	char tested_note[6][2 * PATH_MAX + 128];
	int ntested;
	bool scanned;
	struct host_scan scan;
	struct gt_findings scan_findings;  /* the scan judged (report/scan_report.h) */
	int framework_status;     /* -1: the framework steps did not run */
	const char *python;       /* --python, or NULL: the python3 on PATH */
};

/* The host's copies and their conflicts, once (gputrace scan's walk). */
static void scan_host(struct doctor *d)
{
	if (d->scanned)
		return;
	host_scan_run(&d->scan, NULL, 0);
	gt_scan_judge(&d->scan, &d->scan_findings);
	d->scanned = true;
}

/* A probe that died is a failed step of its own: the steps after it never ran. */
static void note_death(struct probe_result *r, const char *who, int status)
{
	struct step *s;

	if (status < 128 || r->nsteps >= MAX_STEPS)
		return;
	s = &r->steps[r->nsteps++];
	snprintf(s->name, sizeof(s->name), "%s", who);
	snprintf(s->status, sizeof(s->status), "FAILED");
	snprintf(s->detail, sizeof(s->detail), "killed by signal %d after the steps above", status - 128);
}

static int run_probe(struct doctor *d, char *const *env)
{
	char probe[PATH_MAX], *argv[2], *out = NULL;
	int status;

	if (!beside_us("gputrace-probe", probe, sizeof(probe)) &&
	    !beside_us("../lib/gputrace/gputrace-probe", probe, sizeof(probe))) {
		fprintf(stderr, "gputrace doctor: gputrace-probe not found next to gputrace\n");
		return -1;
	}
	argv[0] = probe;
	argv[1] = NULL;
	status = cmd_run_traced_capture(argv, d->dir, env, &out);
	memset(&d->probe, 0, sizeof(d->probe));
	parse_probe(out ? out : "", &d->probe);
	free(out);
	note_death(&d->probe, "probe", status);
	if (!d->probe.nsteps) {
		fprintf(stderr, "gputrace doctor: the probe ran no step (exit status %d)\n", status);
		return -1;
	}
	return status;
}

/* A library the loader could not find by its name is tried once more, from
 * a copy the scan finds, so the layers above it can still be checked. */
static void retry_with_copies(struct doctor *d)
{
	static const char *const what[][3] = {
		{ "runtime_load", "cudart", "GPUTRACE_PROBE_CUDART" },
		{ "cublas_load", "cublas", "GPUTRACE_PROBE_CUBLAS" },
		{ "cudnn_load", "cudnn", "GPUTRACE_PROBE_CUDNN" },
	};
	static char settings[3][PATH_MAX + 32];
	/* (notes: up to 3 copies tested here, 3 differences with the framework) */
	char *env[4] = { 0 };
	const char *copy;
	size_t i;
	int n = 0;

	for (i = 0; i < 3; i++) {
		if (!failed(&d->probe, what[i][0]))
			continue;
		scan_host(d);
		copy = copy_of(&d->scan, what[i][1]);
		if (!copy)
			continue;
		snprintf(settings[n], sizeof(settings[n]), "%s=%s", what[i][2], copy);
		snprintf(d->tested_note[d->ntested++], sizeof(d->tested_note[0]),
			 "%s is not on the loader's search path: tested the copy the scan found, %s",
			 what[i][1], copy);
		env[n] = settings[n];
		n++;
	}
	if (n) {
		struct probe_result *before = malloc(sizeof(*before));

		if (!before)
			abort();
		*before = d->probe;
		if (run_probe(d, env) < 0)
			d->probe = *before;  /* the first run's steps stand */
		free(before);
	}
}

/* Whether `python -c "import torch"` succeeds, run untraced and silent. */
static bool imports_torch(const char *python)
{
	char *argv[] = { (char *)python, "-c", "import torch", NULL };
	posix_spawn_file_actions_t fa;
	int status = -1, err;
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return false;
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, python, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err != 0)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A step the doctor itself concludes, without a probe (the probe's format). */
static void add_step(struct probe_result *r, const char *name, const char *status, const char *detail)
{
	struct step *s;

	if (r->nsteps >= MAX_STEPS)
		return;
	s = &r->steps[r->nsteps++];
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->status, sizeof(s->status), "%s", status);
	s->ms = 0;
	snprintf(s->detail, sizeof(s->detail), "%s", detail);
}

/* The framework checks, when the interpreter (--python, else the python3 on
 * PATH) imports torch. Without torch the layer is one skipped step that says
 * which interpreter was asked, so the choice is never a silent accident of
 * PATH. */
static void run_framework(struct doctor *d)
{
	char script[PATH_MAX], python[PATH_MAX], detail[PATH_MAX + 64], *out = NULL;
	char *argv[] = { python, script, NULL };
	struct probe_result fw;
	int i;

	d->framework_status = -1;
	if (!beside_us("../probe/torch_doctor.py", script, sizeof(script)) &&
	    !beside_us("../lib/gputrace/torch_doctor.py", script, sizeof(script)))
		return;
	if (cmd_resolve_command(d->python ? d->python : "python3", python, sizeof(python)) != 0) {
		add_step(&d->probe, "torch_import", "skipped", "no python3 on PATH");
		return;
	}
	if (!imports_torch(python)) {
		snprintf(detail, sizeof(detail), "%s does not import torch", python);
		add_step(&d->probe, "torch_import", "skipped", detail);
		return;
	}
	d->framework_status = cmd_run_traced_capture(argv, d->dir, NULL, &out);
	memset(&fw, 0, sizeof(fw));
	parse_probe(out ? out : "", &fw);
	free(out);
	note_death(&fw, "torch_checks", d->framework_status);
	for (i = 0; i < fw.nsteps && d->probe.nsteps < MAX_STEPS; i++)
		d->probe.steps[d->probe.nsteps++] = fw.steps[i];
}

/* The probe loads each library by its usual name; a framework may load
 * another copy by its own path (PyTorch's wheels do). When the two differ,
 * both are said: the probe's verdict is about the copy it tested. */
static void compare_with_framework(struct doctor *d, const struct gt_report *rep)
{
	static const char *const components[] = { "cudnn", "cudart", "cublas", NULL };
	const struct gt_lib *probe_lib, *fw_lib;
	size_t i, k;
	int c;

	for (c = 0; components[c]; c++) {
		probe_lib = fw_lib = NULL;
		for (i = 0; i < rep->ngroups; i++) {
			const struct gt_proc_model *m = &rep->groups[i]->model;
			const char *exe = m->proc->exe ? strrchr(m->proc->exe, '/') : NULL;

			for (k = 0; k < m->nlibs; k++) {
				if (strcmp(m->libs[k].fi.component, components[c]) != 0)
					continue;
				if (exe && strcmp(exe, "/gputrace-probe") == 0)
					probe_lib = &m->libs[k];
				else if (m->proc->exe && strstr(m->proc->exe, "python"))
					fw_lib = &m->libs[k];
			}
		}
		if (probe_lib && fw_lib && probe_lib->real_path[0] && fw_lib->real_path[0] &&
		    strcmp(probe_lib->real_path, fw_lib->real_path) != 0 && d->ntested < 6)
			snprintf(d->tested_note[d->ntested++], sizeof(d->tested_note[0]),
				 "%s: the probe tested %s (%s), the framework loaded %s (%s)", components[c],
				 probe_lib->obj->path, probe_lib->version, fw_lib->obj->path, fw_lib->version);
	}
}

static const char *first_failing_layer(const struct probe_result *r)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].status, "FAILED") == 0)
			return layer_of(r->steps[i].name);
	return NULL;
}

static void print_text(struct doctor *d, const struct gt_report *rep)
{
	const char *layer = first_failing_layer(&d->probe);
	size_t i, shown = 0;
	int k;

	printf("gputrace doctor: the GPU chain, layer by layer (traces in %s)\n", d->dir);
	for (k = 0; k < d->probe.nsteps; k++) {
		const struct step *s = &d->probe.steps[k];

		printf("  %-8s %-9s %-18s %9.1f ms  %s\n", s->status, layer_of(s->name), s->name, s->ms, s->detail);
	}
	for (k = 0; k < d->probe.nlibs; k++)
		printf("  tested %-8s %s\n", d->probe.libs[k][0], d->probe.libs[k][1]);
	for (k = 0; k < d->ntested; k++)
		printf("  note: %s\n", d->tested_note[k]);
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
				       d->scan_findings.v[i].summary);
	}
}

static void print_json(struct doctor *d, const struct gt_report *rep)
{
	json_t *o = json_object(), *steps = json_array(), *libs = json_array(), *notes = json_array();
	const char *layer = first_failing_layer(&d->probe);
	int k;

	json_object_set_new(o, "format", json_string("gputrace-doctor"));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "traces", json_string(d->dir));
	for (k = 0; k < d->probe.nsteps; k++) {
		const struct step *s = &d->probe.steps[k];
		json_t *x = json_object();

		json_object_set_new(x, "layer", json_string(layer_of(s->name)));
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

static bool any_failed(const struct probe_result *r)
{
	return first_failing_layer(r) != NULL;
}

int cmd_doctor_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "python", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor *d = calloc(1, sizeof(*d));
	char *paths[1], err[8192], python[PATH_MAX];
	struct gt_report rep;
	const char *tmp = getenv("TMPDIR");
	bool have_report;
	int c, status;

	if (!d)
		abort();
	optind = 1;
	while ((c = getopt_long(argc, argv, "+jh", longopts, NULL)) != -1) {
		if (c == 'h') {
			puts("usage: gputrace doctor [--json] [--python PATH]");
			free(d);
			return 0;
		}
		if (c == 'j') {
			d->json = true;
		} else if (c == 'p') {
			d->python = optarg;
		} else {
			free(d);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gputrace doctor: unexpected argument '%s'\n", argv[optind]);
		free(d);
		return 2;
	}
	if (d->python && (c = cmd_resolve_command(d->python, python, sizeof(python))) != 0) {
		fprintf(stderr, "gputrace doctor: --python %s: %s\n", d->python, strerror(c));
		free(d);
		return 2;
	}
	snprintf(d->dir, sizeof(d->dir), "%s/gputrace-doctor.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(d->dir)) {
		perror("gputrace doctor: mkdtemp");
		free(d);
		return 2;
	}
	if (run_probe(d, NULL) < 0) {
		free(d);
		return 2;
	}
	retry_with_copies(d);
	run_framework(d);
	/* Conflicts on the host are worth a line whenever something failed. */
	if (any_failed(&d->probe))
		scan_host(d);
	paths[0] = d->dir;
	have_report = gt_report_load(&rep, paths, 1, err, sizeof(err));
	if (have_report) {
		gt_report_analyse(&rep);
		compare_with_framework(d, &rep);
	}
	if (d->json)
		print_json(d, have_report ? &rep : NULL);
	else
		print_text(d, have_report ? &rep : NULL);
	status = any_failed(&d->probe) ? 1 : 0;
	gt_report_free(&rep);
	if (d->scanned) {
		gt_findings_free(&d->scan_findings);
		host_scan_free(&d->scan);
	}
	free(d);
	return status;
}
