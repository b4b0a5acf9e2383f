/* no-kernel-image: a loaded file carries device code, but none the device
 * can run: no SASS for its architecture and no PTX the driver could compile
 * for it. Its kernels fail with 209 (cudaErrorNoKernelImageForDevice,
 * CUDA_ERROR_NO_BINARY_FOR_GPU), and a 209 in the trace is caused by this.
 * PTX the driver is too old to compile counts as none: where the device
 * would run a file only through PTX and that PTX's ISA came with a newer
 * CUDA than the driver serves (the PTX ISA version in each entry's header,
 * host/fatbin.c), its kernels fail with 222 (cudaErrorUnsupportedPtxVersion,
 * "the provided PTX was compiled with an unsupported toolchain"), also
 * under minor-version compatibility, which runs a newer runtime of the
 * same major but never compiles its newer PTX (NVIDIA/nvbandwidth#61:
 * driver 580, CUDA 13.2; ComputationalRadiationPhysics/cuda_memtest#31:
 * driver 460, built with CUDA 11.3).
 * Code that only runs through PTX (JIT) is an info line, for the program's
 * own kernels and for a library with at least JIT_WORTH_SAYING of PTX to
 * compile: a few kilobytes of PTX (libcufile's, which torch loads on every
 * H200) compile in milliseconds, and saying so on a healthy run is noise. The
 * device comes from the program's own calls ("device" lines); files are
 * read from disk, headers only (host/fatbin.c), and only for processes that
 * named a device or got a 209. Files without device code are never judged,
 * nor files that keep fat binaries in a data section too (cuFFT). */
#include <stdio.h>
#include <string.h>

#include "rules/arch_fit.h"
#include "rules/driver_stack.h"
#include "rules/rules.h"

#define NO_KERNEL_IMAGE 209
#define UNSUPPORTED_PTX 222  /* the runtime's and the driver API's alike */
#define MAX_JUDGED 512
#define JIT_WORTH_SAYING (1ull << 20)

struct judged {
	const struct gt_object *obj;
	const struct host_fatbin *fb;
	enum gt_fit fit;
	const struct host_fatbin_image *via;
	long ptx_needs;  /* fit none for PTX too new: the CUDA it needs, else 0 */
};

struct device_cc {
	int major, minor;
	const char *name;
};

static const char *const fix_text =
	"Install a build that has code for this GPU: for PyTorch, the wheel of a newer CUDA "
	"(pip install torch --index-url https://download.pytorch.org/whl/cu130, or the index its "
	"\"Get started\" page names for this GPU; torch.cuda.get_arch_list() lists what a build carries), "
	"or, building from source, TORCH_CUDA_ARCH_LIST set to this capability (\"%d.%d\", with \"+PTX\" "
	"for newer GPUs); for your own kernels, nvcc -gencode arch=compute_%d%d,code=sm_%d%d (add "
	"code=compute_%d%d for PTX that later GPUs can compile).";

/* The device's capability: the first device the calls described fully. */
static bool device_of(const struct gt_process *p, struct device_cc *d)
{
	size_t i;

	for (i = 0; i < p->ndevices; i++)
		if (p->devices[i].cc_major >= 0 && p->devices[i].cc_minor >= 0) {
			d->major = p->devices[i].cc_major;
			d->minor = p->devices[i].cc_minor;
			d->name = p->devices[i].name;
			return true;
		}
	return false;
}

/* The failed call: the first that answered 209 or 222, a written call
 * line, else a total. */
struct failed_call {
	const char *fn, *status_name;
	long status;  /* 0: none */
};

static bool no_image_status(long status)
{
	return status == NO_KERNEL_IMAGE || status == UNSUPPORTED_PTX;
}

static bool no_image_call(const struct gt_process *p, struct failed_call *c)
{
	size_t i;

	for (i = 0; i < p->ncalls; i++)
		if (no_image_status(p->calls[i].status)) {
			c->fn = p->calls[i].fn;
			c->status_name = p->calls[i].status_name;
			c->status = p->calls[i].status;
			return true;
		}
	for (i = 0; i < p->ntotals; i++)
		if (no_image_status(p->totals[i].status)) {
			c->fn = p->totals[i].fn;
			c->status_name = p->totals[i].status_name;
			c->status = p->totals[i].status;
			return true;
		}
	return false;
}

/* The CUDA the driver serves: as the program asked it, else from the
 * driver file's branch (a stub serves nothing). -1 when unknown. */
static long driver_cuda_of(const struct gt_proc_model *m)
{
	const struct gt_lib *drv = gt_model_find(m, "cuda");
	long long v = gt_driver_version_answer(m->proc);

	if (v > 0)
		return (long)v;
	return drv && !strstr(drv->obj->path, "/stubs/") ? gt_cuda_of_driver(drv->version) : -1;
}

static bool seen_before(const struct judged *v, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].obj->path, path) == 0)
			return true;
	return false;
}

/* Is compiling this file's PTX worth a line? The program's own kernels
 * always (its author can add SASS); a library's when its PTX is large. */
static bool jit_costs(const struct gt_object *o, const struct host_fatbin_image *via)
{
	return o->main || (via && via->bytes >= JIT_WORTH_SAYING);
}

/* The loaded files with device code, each judged against the device (when
 * known) and the driver (whose CUDA is driver_cuda, or -1). *unjudged: the
 * files the device runs through PTX that could not be held to the driver
 * (its CUDA or a PTX version not known). */
static size_t judge_objects(const struct gt_proc_model *m, const struct device_cc *d, long driver_cuda,
			    struct judged *v, size_t *unjudged)
{
	const struct gt_process *p = m->proc;
	char err[256];
	size_t i, n = 0;

	for (i = 0; i < p->nobjects && n < MAX_JUDGED; i++) {
		const struct gt_object *o = &p->objects[i];
		const struct host_fatbin *fb;

		if (!o->path || o->path[0] != '/' || o->closed || seen_before(v, n, o->path))
			continue;
		fb = gt_facts_fatbin(m->facts, o->path, err, sizeof(err));
		/* code we did not read could be the code that runs: not judged */
		if (!fb || !fb->nimages || fb->code_elsewhere)
			continue;
		v[n].obj = o;
		v[n].fb = fb;
		v[n].via = NULL;
		v[n].ptx_needs = 0;
		v[n].fit = d ? gt_fatbin_fit(fb, d->major, d->minor, &v[n].via) : GT_FIT_NONE;
		if (v[n].fit == GT_FIT_JIT &&
		    (v[n].ptx_needs = gt_fatbin_ptx_too_new(fb, d->major, d->minor, driver_cuda)) > 0)
			v[n].fit = GT_FIT_NONE;
		else
			v[n].ptx_needs = 0;
		if (v[n].fit == GT_FIT_JIT && (driver_cuda <= 0 || !gt_fatbin_ptx_known(fb, d->major, d->minor)))
			(*unjudged)++;
		if (v[n].fit == GT_FIT_JIT && !jit_costs(o, v[n].via))
			continue;
		if (v[n].fit != GT_FIT_NO_CODE)
			n++;
	}
	return n;
}

static json_t *evidence_file(struct gt_finding *f, const struct judged *j, const char *what_for,
			     long driver_cuda)
{
	char list[1024], via[32] = "", needs[16], serves[16];
	json_t *e, *arr = json_array();
	size_t i;

	host_fatbin_list(j->fb, list, sizeof(list));
	if (j->via)
		host_fatbin_image_name(j->via, via, sizeof(via));
	if (j->ptx_needs > 0) {
		gt_format_cudart_version(j->ptx_needs, needs, sizeof(needs));
		gt_format_cudart_version(driver_cuda, serves, sizeof(serves));
		e = gt_evidence_add(f, "%s carries %s: no SASS for %s, and its PTX %s is PTX ISA %d.%d, from CUDA "
				    "%s, which a driver of CUDA %s cannot compile", j->obj->path, list, what_for, via,
				    j->via->ptx_isa / 10, j->via->ptx_isa % 10, needs, serves);
		gt_evidence_int(e, "ptx_isa", j->via->ptx_isa);
		gt_evidence_str(e, "ptx_needs_cuda", needs);
	} else if (j->fit == GT_FIT_JIT)
		e = gt_evidence_add(f, "%s carries %s: no SASS for %s, PTX %s is compiled at start-up",
				    j->obj->path, list, what_for, via);
	else
		e = gt_evidence_add(f, "%s carries %s: nothing that runs on %s", j->obj->path, list, what_for);
	gt_evidence_str(e, "path", j->obj->path);
	for (i = 0; i < j->fb->nimages; i++) {
		char name[32];

		host_fatbin_image_name(&j->fb->images[i], name, sizeof(name));
		json_array_append_new(arr, json_string(name));
	}
	json_object_set_new(e, "carries", arr);
	gt_evidence_str(e, "fit", j->fit == GT_FIT_JIT ? "jit" : "none");
	if (via[0] && (j->fit == GT_FIT_JIT || j->ptx_needs > 0))
		gt_evidence_str(e, "via", via);
	if (j->fit == GT_FIT_JIT && j->via)
		gt_evidence_int(e, "ptx_bytes", (long long)j->via->bytes);
	if (j->fb->partial)
		json_object_set_new(e, "partial", json_true());
	return e;
}

static void evidence_device(struct gt_finding *f, const struct device_cc *d)
{
	json_t *e = gt_evidence_add(f, "the device%s%s is compute capability %d.%d (needs sm_%d%d SASS, or "
				    "PTX of compute_%d%d or lower)", d->name ? " " : "", d->name ? d->name : "",
				    d->major, d->minor, d->major, d->minor, d->major, d->minor);
	char cc[16];

	snprintf(cc, sizeof(cc), "%d.%d", d->major, d->minor);
	gt_evidence_str(e, "device_name", d->name);
	gt_evidence_str(e, "compute_capability", cc);
}

static void evidence_call(struct gt_finding *f, const struct failed_call *c)
{
	json_t *e = gt_evidence_add(f, "%s returned %ld %s: caused by this", c->fn, c->status,
				    c->status_name ? c->status_name : "");

	gt_evidence_str(e, "fn", c->fn);
	gt_evidence_int(e, "status", c->status);
	gt_evidence_str(e, "status_name", c->status_name);
}

static void evidence_driver(struct gt_finding *f, const struct gt_proc_model *m, long driver_cuda)
{
	const struct gt_lib *drv = gt_model_find(m, "cuda");
	char serves[16];
	json_t *e;

	gt_format_cudart_version(driver_cuda, serves, sizeof(serves));
	e = gt_evidence_add(f, "the driver%s%s serves CUDA %s: it compiles PTX of that CUDA or older", drv ? " " : "",
			    drv ? drv->obj->path : "", serves);
	if (drv)
		gt_evidence_lib(e, drv);
	gt_evidence_str(e, "cuda_version", serves);
}

static size_t names_of(const struct judged *v, size_t n, enum gt_fit fit, char *out, size_t cap)
{
	size_t i, count = 0, used = 0;
	char list[256];

	out[0] = 0;
	for (i = 0; i < n; i++) {
		if (v[i].fit != fit)
			continue;
		host_fatbin_list(v[i].fb, list, sizeof(list));
		if (count < 3 && used + 1 < cap)
			used += (size_t)snprintf(out + used, cap - used, "%s%s (%s)", count ? ", " : "",
						 gt_base_name(v[i].obj->path), list);
		count++;
	}
	if (count > 3 && used + 1 < cap)
		snprintf(out + used, cap - used, " and %zu more", count - 3);
	return count;
}

/* The newest CUDA any file's PTX needs, and how many files need one. */
static size_t too_new_of(const struct judged *v, size_t n, long *need)
{
	size_t i, count = 0;

	*need = 0;
	for (i = 0; i < n; i++)
		if (v[i].ptx_needs > 0) {
			count++;
			if (v[i].ptx_needs > *need)
				*need = v[i].ptx_needs;
		}
	return count;
}

/* A 222 that no loaded file's PTX explains: the PTX was made at run time
 * (NVRTC, Triton, a program's own PTX text), which no file shows; unless
 * files could not be judged (why_not: the device, the driver's CUDA or a
 * PTX version not known). That the driver is too old for that PTX is what
 * 222 says. */
static void report_runtime_ptx(const struct gt_proc_model *m, const struct failed_call *c, long driver_cuda,
			       const char *why_not, struct gt_findings *out)
{
	char serves[16] = "?", which[256];
	struct gt_finding *f;

	if (driver_cuda > 0)
		gt_format_cudart_version(driver_cuda, serves, sizeof(serves));
	if (why_not)
		snprintf(which, sizeof(which), "which PTX is not known (%s)", why_not);
	else
		snprintf(which, sizeof(which), "no loaded file carries such PTX, so it was made at run time");
	f = gt_finding_add(out, GT_F_NO_KERNEL_IMAGE, GT_SEV_ERROR, m,
			   "Upgrade the NVIDIA driver to the CUDA of the toolchain that made the PTX (the "
			   "NVRTC or compiler the program uses), or make that toolchain write PTX for the "
			   "driver's CUDA (an older NVRTC, or the compiler's PTX version option).",
			   "CUDA error 222: the driver (CUDA %s) cannot compile PTX made by a newer toolchain; %s",
			   serves, which);
	evidence_call(f, c);
	if (driver_cuda > 0)
		evidence_driver(f, m, driver_cuda);
}

static void report_known_device(const struct gt_proc_model *m, const struct device_cc *d,
				struct judged *v, size_t n, size_t unjudged, const struct failed_call *c,
				long driver_cuda, struct gt_findings *out)
{
	char fix[1024], names[1024], what_for[16], needs[16], serves[16], more[160] = "";
	size_t none = names_of(v, n, GT_FIT_NONE, names, sizeof(names)), jit, i, too_new;
	long need;
	bool failed;
	struct gt_finding *f;

	too_new = too_new_of(v, n, &need);
	/* a 209 is any file's; a 222 only a file whose PTX is too new */
	failed = c->status == NO_KERNEL_IMAGE || (c->status == UNSUPPORTED_PTX && too_new);
	snprintf(what_for, sizeof(what_for), "sm_%d%d", d->major, d->minor);
	if (c->status == UNSUPPORTED_PTX && !too_new)
		report_runtime_ptx(m, c, driver_cuda,
				   unjudged ? "a loaded file runs here only through PTX, and the driver's CUDA or "
					      "that PTX's version is not known" : NULL, out);
	if (none) {
		if (too_new) {
			gt_format_cudart_version(need, needs, sizeof(needs));
			gt_format_cudart_version(driver_cuda, serves, sizeof(serves));
			snprintf(more, sizeof(more), "; the driver (CUDA %s) cannot compile the PTX of %zu of them "
				 "(PTX of CUDA %s)", serves, too_new, needs);
		}
		if (too_new == none)
			snprintf(fix, sizeof(fix),
				 "Upgrade the NVIDIA driver to one of CUDA %s or newer: a driver compiles the PTX of "
				 "its own CUDA or older, and minor-version compatibility, which runs a newer CUDA "
				 "runtime of the same major, does not extend to PTX. Or install a build of these "
				 "files with SASS for %s, or made with CUDA %s or older.", needs, what_for, serves);
		else
			snprintf(fix, sizeof(fix), fix_text, d->major, d->minor, d->major, d->minor, d->major,
				 d->minor, d->major, d->minor);
		f = gt_finding_add(out, GT_F_NO_KERNEL_IMAGE, failed ? GT_SEV_ERROR : GT_SEV_WARNING, m, fix,
				   "%sno kernel image for %s (compute %d.%d%s%s) in %zu loaded file%s: %s%s",
				   !failed ? "" : c->status == NO_KERNEL_IMAGE ? "CUDA error 209: " : "CUDA error 222: ",
				   what_for, d->major, d->minor, d->name ? ", " : "", d->name ? d->name : "", none,
				   none == 1 ? "" : "s", names, more);
	} else {
		jit = names_of(v, n, GT_FIT_JIT, names, sizeof(names));
		if (!jit)
			return;
		f = gt_finding_add(out, GT_F_NO_KERNEL_IMAGE, GT_SEV_INFO, m,
				   "Nothing to fix for correctness. The driver compiles this PTX when the kernels are "
				   "loaded (at start-up, or at their first use with CUDA_MODULE_LOADING=LAZY), which "
				   "can take minutes for a large library; the result is cached in "
				   "CUDA_CACHE_PATH (default ~/.nv/ComputeCache), which must be writable and kept, "
				   "up to CUDA_CACHE_MAXSIZE bytes (raise it, up to 4 GiB, when the cache is too "
				   "small for these kernels). A build with SASS for this GPU starts without it.",
				   "%s (compute %d.%d) has no SASS in %zu loaded file%s, only PTX compiled at start-up "
				   "(JIT): %s", what_for, d->major, d->minor, jit, jit == 1 ? "" : "s", names);
	}
	evidence_device(f, d);
	if (too_new)
		evidence_driver(f, m, driver_cuda);
	if (failed)
		evidence_call(f, c);
	for (i = 0; i < n; i++)
		if (v[i].fit == GT_FIT_NONE || v[i].fit == GT_FIT_JIT)
			evidence_file(f, &v[i], what_for, driver_cuda);
}

/* A 209 from a process that never said what its device is: the files'
 * architectures are the evidence, the device's must be looked up. */
static void report_unknown_device(const struct gt_proc_model *m, struct judged *v, size_t n,
				  const struct failed_call *c, struct gt_findings *out)
{
	struct gt_finding *f;
	size_t i;

	f = gt_finding_add(out, GT_F_NO_KERNEL_IMAGE, GT_SEV_ERROR, m,
			   "Find the GPU's compute capability (nvidia-smi --query-gpu=name,compute_cap, or "
			   "gputrace doctor) and install a build that carries it: for PyTorch, the wheel of a "
			   "newer CUDA, or TORCH_CUDA_ARCH_LIST when building from source.",
			   "CUDA error 209: no kernel image for this device in %s (the trace does not say which "
			   "device: the program never asked for its properties)", gt_base_name(c->fn));
	evidence_call(f, c);
	for (i = 0; i < n && i < 16; i++) {
		char list[1024];
		json_t *e;

		host_fatbin_list(v[i].fb, list, sizeof(list));
		e = gt_evidence_add(f, "%s carries %s", v[i].obj->path, list);
		gt_evidence_str(e, "path", v[i].obj->path);
	}
}

void rule_no_kernel_image(const struct gt_proc_model *m, struct gt_findings *out)
{
	static struct judged v[MAX_JUDGED];
	const struct gt_process *p = m->proc;
	struct failed_call c = { NULL, NULL, 0 };
	struct device_cc d = { 0, 0, NULL };
	bool known = device_of(p, &d), failed = no_image_call(p, &c);
	long driver_cuda = driver_cuda_of(m);
	size_t n, unjudged = 0;

	if (!known && !failed)
		return;
	n = judge_objects(m, known ? &d : NULL, driver_cuda, v, &unjudged);
	if (known)
		report_known_device(m, &d, v, n, unjudged, &c, driver_cuda, out);
	else if (c.status == UNSUPPORTED_PTX)
		report_runtime_ptx(m, &c, driver_cuda,
				   "the trace does not say which device: the program never asked for its properties",
				   out);
	else
		report_unknown_device(m, v, n, &c, out);
}
