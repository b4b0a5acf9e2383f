/* What a framework installation says it was built for, read from its files
 * on disk: pip Requires-Dist pins in its METADATA, torch/version.py,
 * TensorFlow's build_info.py, ONNX Runtime's capi/version_info.py, CuPy's
 * .data/_wheel.json and jaxlib's local version label (+cuda12.cudnn89).
 * Reads and reports; judging is the report's. */
#ifndef GPUTRACE_FRAMEWORK_H
#define GPUTRACE_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>

/* One declared need: a library family and the versions that satisfy it. */
struct host_need {
	char family[16];          /* a common/family.h family: "cudnn", "cudart", "nccl" ... */
	char spec[128];           /* pip specifiers: "==9.19.0.56", ">=9.1,<10.0", "==13.*" */
	char distribution[128];   /* the pinned pip distribution ("nvidia-cudnn-cu13"), or "" */
	char declared_by[4096];   /* the file that says so */
	char what[512];           /* its words: "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56" */
	char framework[192];      /* the declaring install: "torch 2.11.0" */
};

struct host_needs {
	struct host_need *v;
	size_t n;
	char root[4096];          /* the framework's package folder: ".../site-packages/torch" */
};

/* The needs declared by the installation that holds lib_path (a framework's
 * own library: torch/lib/libtorch_cuda.so, tensorflow/..., jaxlib/...,
 * onnxruntime/capi/..., cupy/...). False, with no needs, when lib_path is no
 * such library. Pins under a pip extra count only where the pinned
 * distribution is installed beside it (the extra was asked for), except a
 * JAX CUDA plugin's cuDNN pin of its "with-cuda" extra, which says its
 * build (framework.c, build_extra_of): that one counts for any cuDNN, with
 * no distribution named when the wheel is not there. */
bool host_framework_needs(const char *lib_path, struct host_needs *out);
/* The root host_framework_needs would give for lib_path, from the path's
 * words alone (nothing read): false where it would give false. */
bool host_framework_root(const char *lib_path, char *root, size_t cap);
void host_needs_free(struct host_needs *needs);
/* Forget the installs read (host_framework_needs reads each install once). */
void host_framework_cache_free(void);

enum host_verdict { HOST_UNKNOWN, HOST_MET, HOST_UNMET };
/* Does version satisfy every comma-separated specifier of spec (==, ===, !=,
 * <, <=, >, >=, ~=, with a trailing .* for ==/!=)? Releases compare as
 * gt_same_release does ("13.0" is "13.0.96"); a version too short to tell
 * ("9" against ">=9.1") is unknown. */
enum host_verdict host_version_satisfies(const char *spec, const char *version);

#endif
