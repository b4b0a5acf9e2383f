/* CUDA-family classification of library file names (see family.h). */
#include "common/family.h"

#include <stdlib.h>
#include <string.h>

/* Stems, matched against the file name up to ".so". A stem ending in '_' matches
 * any name it starts (cuDNN's sub-libraries), one ending in '*' any name it
 * starts once the '*' is cut (libnccl-net-ofi, libbitsandbytes_cuda121);
 * others must match exactly. */
struct stem { const char *stem; const char *family; };

static const struct stem stems[] = {
	{ "libcuda", "driver" },        { "libcudart", "cudart" },
	{ "libcudnn", "cudnn" },        { "libcudnn_", "cudnn" },
	{ "libcublas", "cublas" },      { "libcublasLt", "cublas" },
	{ "libnccl", "nccl" },          { "libcufft", "cufft" },
	{ "libcufftw", "cufft" },       { "libcurand", "curand" },
	{ "libcusparse", "cusparse" },  { "libcusolver", "cusolver" },
	{ "libcusolverMg", "cusolver" }, { "libnvrtc", "nvrtc" },
	{ "libnvrtc-builtins", "nvrtc" }, { "libnvJitLink", "nvjitlink" },
	{ "libcupti", "cupti" },        { "libnvToolsExt", "nvtx" },
	{ "libnvidia-ml", "nvml" },     { "libcudadevrt", "cudart" },
	/* TensorRT: libnvinfer.so.10, its plug-ins, lean and dispatch runtimes,
	 * parsers and the builder's resource library (libnvinfer_builder_resource.so.10.3.0) */
	{ "libnvinfer", "tensorrt" },   { "libnvinfer_", "tensorrt" },
	{ "libnvonnxparser", "tensorrt" }, { "libnvparsers", "tensorrt" },
	{ "libnvvm", "nvvm" },
	/* NCCL's network plug-ins, chosen by NCCL_NET_PLUGIN: libnccl-net.so, libnccl-net-ofi.so */
	{ "libnccl-net", "nccl-net" },  { "libnccl-net-*", "nccl-net" },
};

/* Frameworks' plug-ins that ship CUDA code (gt_classify_any). */
static const struct stem plugin_stems[] = {
	{ "libtorch_cuda", "torch-cuda" }, { "libtorch_cuda_*", "torch-cuda" },
	{ "libc10_cuda", "torch-cuda" },   { "libcaffe2_nvrtc", "torch-cuda" },
	{ "libbitsandbytes_cuda*", "bitsandbytes" },
	{ "libonnxruntime_providers_cuda", "onnxruntime-cuda" },
	{ "libonnxruntime_providers_tensorrt", "onnxruntime-cuda" },
	{ "xla_cuda_plugin", "jax-cuda" },
	{ "libtensorflow_cc", "tensorflow" },
};

/* s[0..n) into out, cut to cap (snprintf's "%.*s" without its cost: a
 * report classifies every path of a trace several times, issue 29). */
static void copy_cut(char *out, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

static bool stem_matches(const char *stem, const char *name, size_t name_len)
{
	size_t sl = strlen(stem);

	if (stem[sl - 1] == '*')
		return name_len > sl - 1 && strncmp(name, stem, sl - 1) == 0;
	if (stem[sl - 1] == '_')
		return name_len > sl && strncmp(name, stem, sl) == 0;
	return name_len == sl && strncmp(name, stem, sl) == 0;
}

/* The version in "libX.so.13.0.96": what follows ".so." when it is digits and dots. */
static void version_from_name(const char *so, char *out, size_t cap)
{
	const char *v = so + 4;
	size_t i;

	out[0] = 0;
	if (strncmp(so, ".so.", 4) != 0 || *v < '0' || *v > '9')
		return;
	for (i = 0; v[i]; i++)
		if ((v[i] < '0' || v[i] > '9') && v[i] != '.')
			return;
	copy_cut(out, cap, v, i);
}

/* auditwheel's rename of a bundled library: "libcudart-80664282.so.10.2" is
 * libcudart with "-" and the first 8 hex digits of the file's hash inserted
 * before ".so". Only that exact form is taken, so "libnvrtc-builtins" stays
 * a stem of its own. Returns the stem's length without the hash. */
static size_t without_auditwheel_hash(const char *stem, size_t len)
{
	size_t i;

	if (len < 10 || stem[len - 9] != '-')
		return len;
	for (i = len - 8; i < len; i++)
		if (!((stem[i] >= '0' && stem[i] <= '9') || (stem[i] >= 'a' && stem[i] <= 'f')))
			return len;
	return len - 9;
}

static bool classify_by(const struct stem *table, size_t n, const char *path, struct gt_family_info *out)
{
	const char *base = strrchr(path, '/'), *so;
	size_t i, len, lib;

	base = base ? base + 1 : path;
	so = strstr(base, ".so");
	if (!so || (so[3] != 0 && so[3] != '.'))
		return false;
	len = without_auditwheel_hash(base, (size_t)(so - base));
	lib = strncmp(base, "lib", 3) == 0 ? 3 : 0;
	for (i = 0; i < n; i++) {
		if (!stem_matches(table[i].stem, base, len))
			continue;
		out->family = table[i].family;
		copy_cut(out->component, sizeof(out->component), base + lib, len - lib);
		version_from_name(so, out->version, sizeof(out->version));
		return true;
	}
	return false;
}

bool gt_classify(const char *path, struct gt_family_info *out)
{
	return classify_by(stems, sizeof(stems) / sizeof(stems[0]), path, out);
}

bool gt_classify_any(const char *path, struct gt_family_info *out)
{
	return gt_classify(path, out) ||
	       classify_by(plugin_stems, sizeof(plugin_stems) / sizeof(plugin_stems[0]), path, out);
}

bool gt_family_is_plugin(const char *family)
{
	size_t i;

	for (i = 0; i < sizeof(plugin_stems) / sizeof(plugin_stems[0]); i++)
		if (strcmp(plugin_stems[i].family, family) == 0)
			return true;
	return false;
}

int gt_version_major(const char *v)
{
	return v && v[0] >= '0' && v[0] <= '9' ? atoi(v) : -1;
}

bool gt_same_release(const char *a, const char *b)
{
	int field;
	char *ea, *eb;

	if (!a || !b || !a[0] || !b[0])
		return false;
	for (field = 0; field < 3; field++) {
		if (strtol(a, &ea, 10) != strtol(b, &eb, 10) || ea == a || eb == b)
			return false;
		if (*ea != '.' || *eb != '.')
			return true;
		a = ea + 1;
		b = eb + 1;
	}
	return true;
}

void gt_version_key(const char *v, char *out, size_t cap)
{
	int dots = 0;
	size_t i;

	for (i = 0; v[i] && i + 1 < cap; i++) {
		if (v[i] == '.' && ++dots == 3)
			break;
		out[i] = v[i];
	}
	out[i] = 0;
}
