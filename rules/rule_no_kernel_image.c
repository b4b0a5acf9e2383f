/* no-kernel-image: a loaded file carries device code, but none the device
 * can run: no SASS for its architecture and no PTX the driver could compile
 * for it. Its kernels fail with 209 (cudaErrorNoKernelImageForDevice,
 * CUDA_ERROR_NO_BINARY_FOR_GPU), and a 209 in the trace is caused by this.
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
#include "rules/rules.h"

#define NO_KERNEL_IMAGE 209
#define MAX_JUDGED 512
#define JIT_WORTH_SAYING (1ull << 20)

struct judged {
	const struct gt_object *obj;
	const struct host_fatbin *fb;
	enum gt_fit fit;
	const struct host_fatbin_image *via;
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

/* The first call that answered 209: a written call line, else a total. */
static bool no_image_call(const struct gt_process *p, const char **fn, const char **status_name)
{
	size_t i;

	for (i = 0; i < p->ncalls; i++)
		if (p->calls[i].status == NO_KERNEL_IMAGE) {
			*fn = p->calls[i].fn;
			*status_name = p->calls[i].status_name;
			return true;
		}
	for (i = 0; i < p->ntotals; i++)
		if (p->totals[i].status == NO_KERNEL_IMAGE) {
			*fn = p->totals[i].fn;
			*status_name = p->totals[i].status_name;
			return true;
		}
	return false;
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

/* The loaded files with device code, each judged against the device (when known). */
static size_t judge_objects(const struct gt_proc_model *m, const struct device_cc *d, struct judged *v)
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
		v[n].fit = d ? gt_fatbin_fit(fb, d->major, d->minor, &v[n].via) : GT_FIT_NONE;
		if (v[n].fit == GT_FIT_JIT && !jit_costs(o, v[n].via))
			continue;
		if (v[n].fit != GT_FIT_NO_CODE)
			n++;
	}
	return n;
}

static json_t *evidence_file(struct gt_finding *f, const struct judged *j, const char *what_for)
{
	char list[1024], via[32] = "";
	json_t *e, *arr = json_array();
	size_t i;

	host_fatbin_list(j->fb, list, sizeof(list));
	if (j->via)
		host_fatbin_image_name(j->via, via, sizeof(via));
	if (j->fit == GT_FIT_JIT)
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
	if (via[0])
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

static void evidence_call(struct gt_finding *f, const char *fn, const char *status_name)
{
	json_t *e = gt_evidence_add(f, "%s returned 209 %s: caused by this", fn,
				    status_name ? status_name : "");

	gt_evidence_str(e, "fn", fn);
	gt_evidence_int(e, "status", NO_KERNEL_IMAGE);
	gt_evidence_str(e, "status_name", status_name);
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

static void report_known_device(const struct gt_proc_model *m, const struct device_cc *d,
				struct judged *v, size_t n, bool failed_209, const char *fn,
				const char *status_name, struct gt_findings *out)
{
	char fix[1024], names[1024], what_for[16];
	size_t none = names_of(v, n, GT_FIT_NONE, names, sizeof(names)), jit, i;
	struct gt_finding *f;

	snprintf(what_for, sizeof(what_for), "sm_%d%d", d->major, d->minor);
	if (none) {
		snprintf(fix, sizeof(fix), fix_text, d->major, d->minor, d->major, d->minor, d->major, d->minor,
			 d->major, d->minor);
		f = gt_finding_add(out, GT_F_NO_KERNEL_IMAGE, failed_209 ? GT_SEV_ERROR : GT_SEV_WARNING, m, fix,
				   "%sno kernel image for %s (compute %d.%d%s%s) in %zu loaded file%s: %s",
				   failed_209 ? "CUDA error 209: " : "", what_for, d->major, d->minor,
				   d->name ? ", " : "", d->name ? d->name : "", none, none == 1 ? "" : "s", names);
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
	if (failed_209)
		evidence_call(f, fn, status_name);
	for (i = 0; i < n; i++)
		if (v[i].fit == GT_FIT_NONE || v[i].fit == GT_FIT_JIT)
			evidence_file(f, &v[i], what_for);
}

/* A 209 from a process that never said what its device is: the files'
 * architectures are the evidence, the device's must be looked up. */
static void report_unknown_device(const struct gt_proc_model *m, struct judged *v, size_t n, const char *fn,
				  const char *status_name, struct gt_findings *out)
{
	struct gt_finding *f;
	size_t i;

	f = gt_finding_add(out, GT_F_NO_KERNEL_IMAGE, GT_SEV_ERROR, m,
			   "Find the GPU's compute capability (nvidia-smi --query-gpu=name,compute_cap, or "
			   "gputrace doctor) and install a build that carries it: for PyTorch, the wheel of a "
			   "newer CUDA, or TORCH_CUDA_ARCH_LIST when building from source.",
			   "CUDA error 209: no kernel image for this device in %s (the trace does not say which "
			   "device: the program never asked for its properties)", gt_base_name(fn));
	evidence_call(f, fn, status_name);
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
	const char *fn = NULL, *status_name = NULL;
	struct device_cc d = { 0, 0, NULL };
	bool known = device_of(p, &d), failed_209 = no_image_call(p, &fn, &status_name);
	size_t n;

	if (!known && !failed_209)
		return;
	n = judge_objects(m, known ? &d : NULL, v);
	if (known)
		report_known_device(m, &d, v, n, failed_209, fn, status_name, out);
	else
		report_unknown_device(m, v, n, fn, status_name, out);
}
