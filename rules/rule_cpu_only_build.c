/* cpu-only-build: a deep-learning framework ran and no CUDA runtime was ever
 * loaded or even looked for: the framework was built without CUDA. */
#include <string.h>

#include "rules/rules.h"

/* Libraries only a framework loads, by file name prefix. */
static const char *const frameworks[] = {
	"libtorch_cpu.so", "libtorch.so", "libtorch_python.so", "libtensorflow_framework.so",
	"_pywrap_tensorflow_internal.so", "xla_extension.so", "libjax", NULL,
};

/* The framework's core library, in the order of the table: libtorch_cpu
 * says more than the Python binding that loads it. */
static const char *framework_of(const struct gt_process *p)
{
	size_t i;
	int k;

	for (k = 0; frameworks[k]; k++) {
		for (i = 0; i < p->nobjects; i++) {
			const char *base = p->objects[i].path ? strrchr(p->objects[i].path, '/') : NULL;

			if (base && strncmp(base + 1, frameworks[k], strlen(frameworks[k])) == 0)
				return p->objects[i].path;
		}
	}
	return NULL;
}

static bool cuda_runtime_sought(const struct gt_proc_model *m)
{
	size_t i;

	if (gt_model_find(m, "cudart"))
		return true;
	for (i = 0; i < m->proc->nobjects; i++)
		if (m->proc->objects[i].cudart_static)
			return true;
	for (i = 0; i < m->proc->nsearches; i++)
		if (m->proc->searches[i].name && strstr(m->proc->searches[i].name, "libcudart"))
			return true;
	return false;
}

void rule_cpu_only_build(const struct gt_proc_model *m, struct gt_findings *out)
{
	const char *fw = framework_of(m->proc);
	struct gt_finding *f;
	json_t *e;

	if (!fw || cuda_runtime_sought(m))
		return;
	f = gt_finding_add(out, GT_F_CPU_ONLY_BUILD, GT_SEV_WARNING, m,
			   "Install a CUDA build of the framework (for PyTorch: the wheel for your CUDA "
			   "from https://pytorch.org/get-started/, e.g. pip install torch --index-url "
			   "https://download.pytorch.org/whl/cu130); a distribution's CPU-only package "
			   "cannot use the GPU.",
			   m->proc->live ? "the framework is a CPU-only build: no CUDA runtime is loaded"
					 : "the framework is a CPU-only build: no CUDA runtime was ever loaded");
	/* where it was installed decides how: its own pip, conda, or a venv */
	if (strstr(gt_base_name(fw), "torch"))
		gt_fix_pip_install(&f->fix_data, m->proc, fw, "torch", "--index-url https://download.pytorch.org/whl/cu130",
				   "-c conda-forge pytorch-gpu");
	/* a live process (gputrace inspect) shows what is mapped, not what was searched */
	e = gt_evidence_add(f, m->proc->live ? "framework library %s loaded, and no libcudart is mapped (read live: "
			       "what was searched for is not seen)"
			    : "framework library %s loaded, and no libcudart was loaded or searched for", fw);
	gt_evidence_str(e, "path", fw);
}
