/* gputrace doctor: checks the GPU chain one layer at a time (driver, runtime,
 * device, memory, cuBLAS, cuDNN, then the framework), each step run by the
 * probe under the tracer, and explains the first layer that fails with the
 * report's findings for it, and the host's conflicts from gputrace scan. */
#define _GNU_SOURCE
#include "cmd/doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/launch.h"
#include "common/nvidia_driver.h"
#include "common/xalloc.h"
#include "rules/arch_fit.h"
#include "rules/scan_rules.h"

/* The layer a step belongs to, in the order the chain is built. */
const char *cmd_doctor_layer_of(const char *step)
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

/* A line "step\tNAME\tSTATUS\tMS\tDETAIL" as a step; false for other lines. */
static bool parse_step_line(const char *line, struct doctor_step *s)
{
	char buf[2048], *f[5] = { 0 }, *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(line, "\n"), line);
	for (f[n] = strtok_r(buf, "\t", &save); f[n] && n < 4; f[++n] = strtok_r(NULL, "\t", &save))
		;
	if (n < 4 || strcmp(f[0], "step") != 0)
		return false;
	snprintf(s->name, sizeof(s->name), "%s", f[1]);
	snprintf(s->status, sizeof(s->status), "%s", f[2]);
	s->ms = atof(f[3]);
	snprintf(s->detail, sizeof(s->detail), "%s", f[4] ? f[4] : "");
	return true;
}

/* Each step line, handed to the caller's on_step as the probe prints it. */
static void stream_line(const char *line, void *data)
{
	struct doctor *d = data;
	struct doctor_step s;

	if (d->on_step && parse_step_line(line, &s))
		d->on_step(&s, d->on_step_data);
}

static void emit_step(struct doctor *d, const struct doctor_step *s)
{
	if (d->on_step)
		d->on_step(s, d->on_step_data);
}

/* Lines "step\tNAME\tSTATUS\tMS\tDETAIL" and "lib\tCOMPONENT\tPATH". */
static void parse_probe(const char *out, struct doctor_probe *r)
{
	const char *line = out;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[2048], *f[5] = { 0 }, *save = NULL;
		int n = 0;

		snprintf(buf, sizeof(buf), "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
		for (f[n] = strtok_r(buf, "\t", &save); f[n] && n < 4; f[++n] = strtok_r(NULL, "\t", &save))
			;
		if (n >= 4 && strcmp(f[0], "step") == 0 && r->nsteps < DOCTOR_MAX_STEPS) {
			struct doctor_step *s = &r->steps[r->nsteps++];

			snprintf(s->name, sizeof(s->name), "%s", f[1]);
			snprintf(s->status, sizeof(s->status), "%s", f[2]);
			s->ms = atof(f[3]);
			snprintf(s->detail, sizeof(s->detail), "%s", f[4] ? f[4] : "");
		} else if (n >= 3 && strcmp(f[0], "lib") == 0 && r->nlibs < DOCTOR_MAX_LIBS) {
			snprintf(r->libs[r->nlibs][0], PATH_MAX, "%s", f[1]);
			snprintf(r->libs[r->nlibs++][1], PATH_MAX, "%s", f[2]);
		}
		line = nl ? nl + 1 : NULL;
	}
}

static const struct doctor_step *find_step(const struct doctor_probe *r, const char *name)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].name, name) == 0)
			return &r->steps[i];
	return NULL;
}

static bool failed(const struct doctor_probe *r, const char *name)
{
	const struct doctor_step *s = find_step(r, name);

	return s && strcmp(s->status, "FAILED") == 0;
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


/* The host's copies and their conflicts, once (gputrace scan's walk). */
static void scan_host(struct doctor *d)
{
	if (d->scanned)
		return;
	host_scan_run(&d->scan, NULL, 0);
	gt_scan_judge(&d->scan, &d->scan_findings);
	d->scanned = true;
}

/* A Python environment at prefix that has torch, whose interpreter is not
 * the one asked (issue 30: on the H200 torch is in a venv, python3 on PATH
 * is the system's): its bin/python in out. */
static bool torch_python_at(const char *prefix, const char *asked, char *out, size_t cap)
{
	char pat[PATH_MAX + 64];
	glob_t g;
	bool has;

	snprintf(pat, sizeof(pat), "%s/lib/python3*/site-packages/torch/__init__.py", prefix);
	has = glob(pat, GLOB_NOSORT, NULL, &g) == 0;
	globfree(&g);
	if ((size_t)snprintf(out, cap, "%s/bin/python", prefix) >= cap || !has || access(out, X_OK) != 0)
		return false;
	/* by name, not by the file it links to: a venv's python is the system's
	 * binary, and its environment is where it sits */
	return !asked || strcmp(out, asked) != 0;
}

/* Where torch is, when the interpreter asked cannot import it: the
 * environment the process was started in (VIRTUAL_ENV, CONDA_PREFIX), then
 * the Python environments the scan found CUDA wheels in (.../lib/python3.X/
 * site-packages/nvidia/...). Empty when none has torch. */
static void find_torch_python(struct doctor *d, char *out, size_t cap)
{
	static const char *const vars[] = { "VIRTUAL_ENV", "CONDA_PREFIX", NULL };
	const char *asked = d->env.python_path[0] ? d->env.python_path : NULL;
	char prefix[PATH_MAX];
	const char *lib;
	size_t i;
	int k;

	out[0] = 0;
	for (k = 0; vars[k]; k++)
		if (getenv(vars[k]) && *getenv(vars[k]) && torch_python_at(getenv(vars[k]), asked, out, cap))
			return;
	scan_host(d);
	for (i = 0; i < d->scan.ncopies; i++) {
		const char *path = d->scan.copies[i].path;

		lib = strstr(path, "/lib/python3");
		if (!lib || !strstr(lib, "/site-packages/") || (size_t)(lib - path) >= sizeof(prefix))
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(lib - path), path);
		if (torch_python_at(prefix, asked, out, cap))
			return;
	}
	out[0] = 0;
}

/* A probe that died is a failed step of its own: the steps after it never ran. */
static void note_death(struct doctor_probe *r, const char *who, int status)
{
	struct doctor_step *s;

	if (status < 128 || r->nsteps >= DOCTOR_MAX_STEPS)
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

	if (!cmd_find_beside("gputrace-probe", probe, sizeof(probe))) {
		fprintf(stderr, "gputrace doctor: gputrace-probe not found next to gputrace\n");
		return -1;
	}
	argv[0] = probe;
	argv[1] = NULL;
	status = cmd_run_traced_stream(argv, d->dir, env, &out, stream_line, d);
	memset(&d->probe, 0, sizeof(d->probe));
	parse_probe(out ? out : "", &d->probe);
	free(out);
	note_death(&d->probe, "probe", status);
	if (status >= 128 && d->probe.nsteps)
		emit_step(d, &d->probe.steps[d->probe.nsteps - 1]);
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
		struct doctor_probe *before = malloc(sizeof(*before));

		if (!before)
			abort();
		*before = d->probe;
		if (d->on_step)
			d->on_step(NULL, d->on_step_data);
		if (run_probe(d, env) < 0)
			d->probe = *before;  /* the first run's steps stand */
		free(before);
	}
}

/* A step the doctor itself concludes, without a probe (the probe's format). */
static void add_step(struct doctor *d, const char *name, const char *status, const char *detail)
{
	struct doctor_probe *r = &d->probe;
	struct doctor_step *s;

	if (r->nsteps >= DOCTOR_MAX_STEPS)
		return;
	s = &r->steps[r->nsteps++];
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->status, sizeof(s->status), "%s", status);
	s->ms = 0;
	snprintf(s->detail, sizeof(s->detail), "%s", detail);
	emit_step(d, s);
}

static void add_model(const char *model, void *data)
{
	char *out = data;
	size_t len = strlen(out);

	snprintf(out + len, 512 - len, "%s%s", len ? ", " : "", model);
}

/* The driver's kernel half, first in the driver layer: the user-space
 * libcuda must be its release (a forward-compatibility copy may be newer).
 * Read from /proc/driver/nvidia; not visible there (no module, or a
 * container without it) is said, not judged. */
static void kernel_module_step(struct doctor_step *s)
{
	char kmod[64], gpus[512] = "";

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "driver_module");
	if (gt_read_kmod_version(kmod, sizeof(kmod))) {
		gt_read_gpu_models(add_model, gpus, 16);
		snprintf(s->detail, sizeof(s->detail), "NVIDIA kernel module %s%s%s", kmod, gpus[0] ? "; GPUs: " : "",
			 gpus);
		snprintf(s->status, sizeof(s->status), "ok");
	} else {
		snprintf(s->detail, sizeof(s->detail), "no NVIDIA kernel module visible (%s/version is absent)",
			 GT_NVIDIA_PROC);
		snprintf(s->status, sizeof(s->status), "skipped");
	}
}

/* The kernel module's step first of all: the probe's come after it. */
static void insert_first(struct doctor_probe *r, const struct doctor_step *s)
{
	if (r->nsteps >= DOCTOR_MAX_STEPS)
		return;
	memmove(&r->steps[1], &r->steps[0], (size_t)r->nsteps * sizeof(r->steps[0]));
	r->steps[0] = *s;
	r->nsteps++;
}

/* The framework checks, when the interpreter (--python, else the python3 on
 * PATH) imports torch. Without torch the layer is one skipped step that says
 * which interpreter was asked, so the choice is never a silent accident of
 * PATH. */
static void run_framework(struct doctor *d)
{
	char script[PATH_MAX], python[PATH_MAX], detail[2 * PATH_MAX + 600], *out = NULL;
	char *argv[] = { python, script, NULL };
	struct doctor_probe fw;
	int i;

	d->framework_status = -1;
	if (!cmd_find_beside("torch_doctor.py", script, sizeof(script)))
		return;
	if (!d->env.python_path[0]) {
		add_step(d, "torch_import", "skipped", "framework checks skipped: no python3 on PATH");
		return;
	}
	snprintf(python, sizeof(python), "%s", d->env.python_path);
	if (!d->env.imports_torch) {
		find_torch_python(d, d->torch_python, sizeof(d->torch_python));
		snprintf(detail, sizeof(detail), "framework checks skipped: %s cannot import torch (%s)%s%s", python,
			 d->env.torch_error, d->torch_python[0] ? "; torch is in " : "", d->torch_python);
		add_step(d, "torch_import", "skipped", detail);
		return;
	}
	d->framework_status = cmd_run_traced_stream(argv, d->dir, NULL, &out, stream_line, d);
	cmd_doctor_env_take_framework(&d->env, out);
	memset(&fw, 0, sizeof(fw));
	parse_probe(out ? out : "", &fw);
	free(out);
	note_death(&fw, "torch_checks", d->framework_status);
	if (d->framework_status >= 128 && fw.nsteps)
		emit_step(d, &fw.steps[fw.nsteps - 1]);
	for (i = 0; i < fw.nsteps && d->probe.nsteps < DOCTOR_MAX_STEPS; i++)
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
		    strcmp(probe_lib->real_path, fw_lib->real_path) != 0 && d->ntested < DOCTOR_MAX_NOTES)
			snprintf(d->tested_note[d->ntested++], sizeof(d->tested_note[0]),
				 "%s: the probe tested %s (%s), the framework loaded %s (%s)", components[c],
				 probe_lib->obj->path, probe_lib->version, fw_lib->obj->path, fw_lib->version);
	}
}

/* The probe's process of the report that named its device's capability
 * (the last run: the retry's, when the doctor retried); *dev its device. */
static const struct gt_proc_model *probe_with_device(const struct gt_report *rep, const struct gt_device **dev)
{
	const struct gt_proc_model *found = NULL;
	size_t i, k;

	for (i = 0; i < rep->ngroups; i++) {
		const struct gt_proc_model *m = &rep->groups[i]->model;
		const char *exe = m->proc->exe ? strrchr(m->proc->exe, '/') : NULL;

		if (!exe || strcmp(exe, "/gputrace-probe") != 0)
			continue;
		for (k = 0; k < m->proc->ndevices; k++)
			if (m->proc->devices[k].cc_major >= 0 && m->proc->devices[k].cc_minor >= 0) {
				found = m;
				*dev = &m->proc->devices[k];
				break;
			}
	}
	return found;
}

/* " NAME (WHAT)" after the names already in out, ", " between. */
static void append_to(char *out, size_t cap, const char *name, const char *what)
{
	size_t used = strlen(out);

	if (used + 1 < cap)
		snprintf(out + used, cap - used, "%s %s%s%s%s", used ? "," : "", name, what[0] ? " (" : "", what,
			 what[0] ? ")" : "");
}

/* What each loaded CUDA library carries for the device, by rules/arch_fit.h's
 * rules: one line per kind of answer. FAILED when a library carries device
 * code and none of it runs there (its kernels fail with 209). */
static void device_code_step(const struct gt_proc_model *m, const struct gt_device *dev, struct doctor_step *s)
{
	char runs[256] = "", jit[256] = "", none[256] = "", unread[256] = "", err[256], list[192], via[32];
	int nnone = 0, judged = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "device_code");
	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *l = &m->libs[i];
		const char *path = l->real_path[0] ? l->real_path : l->obj->path;
		const struct host_fatbin *fb = path && path[0] == '/' ? host_fatbin_of(path, err, sizeof(err)) : NULL;
		const struct host_fatbin_image *im;
		enum gt_fit fit;

		if (!fb || !fb->nimages)
			continue;  /* no device code of its own: nothing to run on the GPU */
		host_fatbin_list(fb, list, sizeof(list));
		fit = gt_fatbin_fit(fb, dev->cc_major, dev->cc_minor, &im);
		via[0] = 0;
		if (im)
			host_fatbin_image_name(im, via, sizeof(via));
		if (fb->code_elsewhere) {
			append_to(unread, sizeof(unread), gt_base_name(path), "");
			continue;
		}
		judged++;
		if (fit == GT_FIT_SASS)
			append_to(runs, sizeof(runs), gt_base_name(path), via);
		else if (fit == GT_FIT_JIT)
			append_to(jit, sizeof(jit), gt_base_name(path), via);
		if (fit == GT_FIT_NONE) {
			char carries[sizeof(list) + 16];

			nnone++;
			snprintf(carries, sizeof(carries), "carries %s", list);
			append_to(none, sizeof(none), gt_base_name(path), carries);
		}
	}
	snprintf(s->detail, sizeof(s->detail), "compute %d.%d%s%s%s: %s%s%s%s%s%s%s%s%s",
		 dev->cc_major, dev->cc_minor, dev->name ? " (" : "", dev->name ? dev->name : "", dev->name ? ")" : "",
		 judged ? "" : "no loaded CUDA library carries device code",
		 runs[0] ? "SASS for it in" : "", runs, jit[0] && runs[0] ? "; " : "",
		 jit[0] ? "only PTX, compiled at start-up (JIT), in" : "", jit,
		 none[0] && (runs[0] || jit[0]) ? "; " : "", none[0] ? "nothing that runs on it in" : "", none);
	if (unread[0] && strlen(s->detail) + 1 < sizeof(s->detail))
		snprintf(s->detail + strlen(s->detail), sizeof(s->detail) - strlen(s->detail),
			 "; not judged (device code in a data section):%s", unread);
	snprintf(s->status, sizeof(s->status), "%s", nnone ? "FAILED" : judged ? "ok" : "skipped");
}

/* After the last step of the device layer, so that the first failing layer
 * keeps the chain's order; printed when it is concluded. */
static void insert_after_device(struct doctor *d, const struct doctor_step *s)
{
	struct doctor_probe *r = &d->probe;
	int at = r->nsteps, i;

	if (r->nsteps >= DOCTOR_MAX_STEPS)
		return;
	for (i = 0; i < r->nsteps; i++)
		if (strcmp(cmd_doctor_layer_of(r->steps[i].name), "device") == 0)
			at = i + 1;
	memmove(&r->steps[at + 1], &r->steps[at], (size_t)(r->nsteps - at) * sizeof(r->steps[0]));
	r->steps[at] = *s;
	r->nsteps++;
	emit_step(d, s);
}

/* The device the probe's calls named, against the libraries it loaded. */
static void check_device_code(struct doctor *d, const struct gt_report *rep)
{
	const struct gt_device *dev = NULL;
	const struct gt_proc_model *m = probe_with_device(rep, &dev);
	struct doctor_step s;

	if (!m)
		return;
	device_code_step(m, dev, &s);
	insert_after_device(d, &s);
}

const char *cmd_doctor_first_failing_layer(const struct doctor_probe *r)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].status, "FAILED") == 0)
			return cmd_doctor_layer_of(r->steps[i].name);
	return NULL;
}


static bool any_failed(const struct doctor_probe *r)
{
	return cmd_doctor_first_failing_layer(r) != NULL;
}

bool cmd_doctor_run(struct doctor *d)
{
	const char *tmp = getenv("TMPDIR");
	char *paths[1], err[8192];
	char python[PATH_MAX];
	struct doctor_step kmod;

	snprintf(d->dir, sizeof(d->dir), "%s/gputrace-doctor.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(d->dir)) {
		perror("gputrace doctor: mkdtemp");
		return false;
	}
	cmd_doctor_env_read(&d->env, cmd_resolve_command(d->python ? d->python : "python3", python,
							  sizeof(python)) == 0 ? python : NULL);
	if (d->on_env)
		d->on_env(&d->env, d->on_step_data);
	kernel_module_step(&kmod);
	emit_step(d, &kmod);
	if (run_probe(d, NULL) < 0)
		return false;
	retry_with_copies(d);
	insert_first(&d->probe, &kmod);
	run_framework(d);
	/* Conflicts on the host are worth a line whenever something failed. */
	if (any_failed(&d->probe))
		scan_host(d);
	paths[0] = d->dir;
	d->have_report = gt_report_load(&d->report, paths, 1, err, sizeof(err));
	if (d->have_report) {
		gt_report_analyse(&d->report);
		check_device_code(d, &d->report);
		compare_with_framework(d, &d->report);
	}
	return true;
}

void cmd_doctor_free(struct doctor *d)
{
	gt_report_free(&d->report);
	if (d->scanned) {
		gt_findings_free(&d->scan_findings);
		host_scan_free(&d->scan);
	}
}
