/* driver-mismatch: a user-space driver library (libcuda.so.1,
 * libnvidia-ml.so.1) whose version is not the loaded kernel module's. The two
 * halves of the driver must be one release, with one exception: the CUDA
 * forward-compatibility package (/usr/local/cuda-X.Y/compat, cuda-compat-*)
 * may be newer than the kernel module, on data-center GPUs. Seen as error
 * 803 (cudaErrorSystemDriverMismatch, "system has unsupported display driver
 * / cuda driver combination"), 804 (forward compatibility not supported on
 * this device), or NVML's "Driver/library version mismatch". The kernel
 * module's version comes from the trace header (/proc/driver/nvidia/version
 * as the traced process saw it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/driver_stack.h"
#include "rules/rules.h"

static bool is_compat(const struct gt_lib *l)
{
	return gt_driver_is_compat(l->obj->path, l->real_path, l->has_package ? l->package.name : NULL);
}

/* The driver's own version: its real file name, else its package. */
static const char *driver_version(const struct gt_lib *l)
{
	if (strchr(l->file_version, '.'))
		return l->file_version;
	return strchr(l->package_version, '.') ? l->package_version : NULL;
}

static bool is_driver_library(const struct gt_lib *l)
{
	return (strcmp(l->fi.component, "cuda") == 0 || strcmp(l->fi.family, "nvml") == 0) &&
	       !strstr(l->obj->path, "/stubs/");
}

/* The calls that this mismatch makes fail: 803 and 804, both APIs. */
static void add_failed_calls(struct gt_finding *f, const struct gt_process *p)
{
	size_t i;
	json_t *e;

	for (i = 0; i < p->ncalls; i++) {
		const struct gt_call *c = &p->calls[i];

		if (c->status != 803 && c->status != 804)
			continue;
		e = gt_evidence_add(f, "%s returned %d %s: caused by this", c->fn, c->status,
				    c->status_name ? c->status_name : "");
		gt_evidence_str(e, "fn", c->fn);
		gt_evidence_int(e, "status", c->status);
		gt_evidence_str(e, "caused_by", gt_finding_name(GT_F_DRIVER_MISMATCH));
	}
}

/* Where the stale file sits and what takes it away: a folder of
 * LD_LIBRARY_PATH or of ld.so.conf.d is left out; a system folder stays,
 * and its file is replaced by the package that matches the kernel module. */
static void how_to_drop(const struct gt_lib *l, const char *dir, char *out, size_t cap)
{
	if (l->found_by == GT_RULE_LD_LIBRARY_PATH)
		snprintf(out, cap, " (remove that folder from LD_LIBRARY_PATH)");
	else if (l->found_by == GT_RULE_LD_SO_CACHE && gt_system_lib_folder(dir))
		snprintf(out, cap, " (%s is the system's own library folder and stays in the loader's configuration: "
			 "replace the file there, by reinstalling %s%s of the kernel module's release)", dir,
			 l->has_package ? "the package " : "the driver's user-space package",
			 l->has_package ? l->package.name : "");
	else if (l->found_by == GT_RULE_LD_SO_CACHE)
		snprintf(out, cap, " (remove that folder from /etc/ld.so.conf.d and run ldconfig)");
	else
		out[0] = 0;
}

static void report_library(const struct gt_proc_model *m, const struct gt_lib *l, const char *v,
			   const char *reason, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	char fix[9216 + 4608], mech[1024], dir[4096], drop[4096 + 512];
	struct gt_finding *f;
	json_t *e;

	gt_lib_mechanism(l, mech, sizeof(mech));
	gt_folder_of(l->obj->path, dir, sizeof(dir));
	how_to_drop(l, dir, drop, sizeof(drop));
	snprintf(fix, sizeof(fix),
		 "Load the host's %s, the kernel module's release %s: this one came from %s through %s%s. "
		 "%s",
		 l->fi.component[0] == 'c' ? "libcuda.so.1" : "libnvidia-ml.so.1", p->kmod, dir, mech, drop,
		 is_compat(l) ? "Forward compatibility only serves an older kernel driver with a newer "
				"compat library, on data-center GPUs." :
				"In a container, let the NVIDIA container runtime mount the host's driver "
				"libraries instead of the image's.");
	f = gt_finding_add(out, GT_F_DRIVER_MISMATCH, GT_SEV_ERROR, m, fix,
			   "%s %s does not fit the kernel module %s: %s", l->obj->path, v, p->kmod, reason);
	if (l->found_by == GT_RULE_LD_LIBRARY_PATH)
		gt_fix_list_remove(&f->fix_data, "LD_LIBRARY_PATH", dir);
	e = gt_evidence_add(f, "%s %s%s [%s]", l->obj->path, v, is_compat(l) ? " (forward compatibility)" : "",
			    l->found_by != GT_RULE_NONE ? gt_rule_name(l->found_by) : "?");
	gt_evidence_lib(e, l);
	json_object_set_new(e, "compat", json_boolean(is_compat(l)));
	e = gt_evidence_add(f, "the kernel module is %s%s%s", p->kmod, p->gpus ? ", GPUs: " : "",
			    p->gpus ? p->gpus : "");
	gt_evidence_str(e, "kernel_module", p->kmod);
	gt_evidence_str(e, "gpus", p->gpus);
	add_failed_calls(f, p);
}

void rule_driver_mismatch(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	const char *v, *reason;
	size_t i;

	if (!p->kmod)
		return;  /* no module recorded: nothing to hold the library to */
	for (i = 0; i < m->nlibs; i++) {
		const struct gt_lib *l = &m->libs[i];

		if (!is_driver_library(l) || !(v = driver_version(l)))
			continue;
		reason = gt_driver_copy_problem(is_compat(l), v, p->kmod, p->gpus);
		if (reason)
			report_library(m, l, v, reason, out);
	}
}
