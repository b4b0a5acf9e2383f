/* Which CUDA-family library a file is, from its name: family, component and
 * the version its file name carries. Pure logic, unit tested. */
#ifndef GPUTRACE_FAMILY_H
#define GPUTRACE_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

struct gt_family_info {
	const char *family;   /* "driver", "cudart", "cudnn", "cublas", "nccl", ... */
	char component[64];   /* the file's stem without "lib": "cudnn_graph", "cublasLt" */
	char version[32];     /* digits after ".so.", "" when the name has none */
};

/* Classifies a path or a bare file name. False when it is no CUDA-family
 * library: NVIDIA's own stack (the runtime and math libraries, the driver,
 * cuDNN, NCCL and its net plug-ins, TensorRT with its parsers, plug-ins and
 * builder resources, libnvvm). */
bool gt_classify(const char *path, struct gt_family_info *out);
/* The same, and also a framework's plug-in that carries CUDA code of its
 * own under a name of its own (libtorch_cuda.so, libbitsandbytes_cuda121.so,
 * libonnxruntime_providers_cuda.so, JAX's xla_cuda_plugin.so). Such a file
 * is judged like a CUDA library when it fails to load or cannot run, but is
 * not a part of a library family (no versions, no copies). */
bool gt_classify_any(const char *path, struct gt_family_info *out);
/* Is the family a framework plug-in's (gt_classify_any only)? */
bool gt_family_is_plugin(const char *family);

/* Major version of a version string ("9.19.0" -> 9), -1 if none. */
int gt_version_major(const char *v);
/* Two versions name one release when they agree on every field both give,
 * three at most: "13.0" and "13.0.96" agree, "9.19.0" and "9.19.0.56" too,
 * "9.14.0" and "9.19.0" do not. Empty strings agree with nothing. */
bool gt_same_release(const char *a, const char *b);
/* "9.19.0.56" -> "9.19.0": versions compared on three fields at most. */
void gt_version_key(const char *v, char *out, size_t cap);

#endif
