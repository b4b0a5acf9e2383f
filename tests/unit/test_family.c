/* Unit tests: CUDA-family classification of file names (common/family.c). */
#include <check.h>

#include "common/family.h"
#include "common/nvidia_driver.h"
#include "tests/unit/unit.h"

static void expect(const char *path, const char *family, const char *component, const char *version)
{
	struct gt_family_info fi;

	ck_assert_msg(gt_classify(path, &fi), "%s should be CUDA-family", path);
	ck_assert_str_eq(fi.family, family);
	ck_assert_str_eq(fi.component, component);
	ck_assert_str_eq(fi.version, version);
}

START_TEST(test_known_names)
{
	expect("/usr/local/cuda-12/lib64/libcudart.so.12.4.127", "cudart", "cudart", "12.4.127");
	expect("libcudart.so.11.0", "cudart", "cudart", "11.0");
	expect("/x/libcudnn.so.9", "cudnn", "cudnn", "9");
	expect("/x/libcudnn_graph.so.9.19.0", "cudnn", "cudnn_graph", "9.19.0");
	expect("/x/libcudnn_engines_precompiled.so.9", "cudnn", "cudnn_engines_precompiled", "9");
	expect("libcudnn_ops_infer.so.8", "cudnn", "cudnn_ops_infer", "8");
	expect("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "driver", "cuda", "1");
	expect("/usr/local/cuda/lib64/stubs/libcuda.so", "driver", "cuda", "");
	expect("libcublasLt.so.13", "cublas", "cublasLt", "13");
	expect("libnccl.so.2.27.3", "nccl", "nccl", "2.27.3");
}
END_TEST

/* NVIDIA's whole stack is a family (TensorRT with its plug-ins, parsers and
 * builder resources, libnvvm, NCCL's net plug-ins); a framework's CUDA
 * plug-in only through gt_classify_any, never as a part of a family. */
START_TEST(test_nvidia_stack_and_plugins)
{
	struct gt_family_info fi;

	expect("/opt/TensorRT-8.6.1.6/lib/libnvinfer.so.8.6.1", "tensorrt", "nvinfer", "8.6.1");
	expect("libnvinfer_plugin.so.10", "tensorrt", "nvinfer_plugin", "10");
	expect("libnvinfer_builder_resource.so.10.3.0", "tensorrt", "nvinfer_builder_resource", "10.3.0");
	expect("libnvonnxparser.so.8", "tensorrt", "nvonnxparser", "8");
	expect("/usr/local/cuda/nvvm/lib64/libnvvm.so.4", "nvvm", "nvvm", "4");
	expect("libnccl-net.so", "nccl-net", "nccl-net", "");
	expect("libnccl-net-ofi.so", "nccl-net", "nccl-net-ofi", "");
	expect("libnccl.so.2", "nccl", "nccl", "2");
	ck_assert(!gt_classify("/sp/torch/lib/libtorch_cuda.so", &fi));
	ck_assert(gt_classify_any("/sp/torch/lib/libtorch_cuda.so", &fi));
	ck_assert_str_eq(fi.family, "torch-cuda");
	ck_assert(gt_family_is_plugin(fi.family));
	ck_assert(gt_classify_any("/sp/bitsandbytes/libbitsandbytes_cuda121_nocublaslt.so", &fi));
	ck_assert_str_eq(fi.family, "bitsandbytes");
	ck_assert(!gt_classify_any("/sp/bitsandbytes/libbitsandbytes_cpu.so", &fi));
	ck_assert(gt_classify_any("/sp/jax_plugins/xla_cuda12/xla_cuda_plugin.so", &fi));
	ck_assert_str_eq(fi.component, "xla_cuda_plugin");
	ck_assert(gt_classify_any("libonnxruntime_providers_tensorrt.so", &fi));
	ck_assert(!gt_classify_any("libonnxruntime_providers_shared.so", &fi));
	ck_assert(!gt_family_is_plugin("tensorrt"));
	ck_assert(!gt_classify_any("libtorch_cpu.so", &fi));
}
END_TEST

/* auditwheel renames the libraries it grafts into a wheel: "auditwheel appends
 * first 8 symbols of sha256 checksum to the library name" (pytorch/pytorch
 * #52365, which taught torch 1.8 to find its own libnvrtc-<hash>.so; torch
 * 1.x wheels shipped torch/lib/libcudart-80664282.so.10.2 and
 * libnvrtc-672ee683.so.11.2). Same family, same version. */
START_TEST(test_auditwheel_renamed)
{
	struct gt_family_info fi;

	expect("/sp/torch/lib/libcudart-80664282.so.10.2", "cudart", "cudart", "10.2");
	expect("libnvrtc-672ee683.so.11.2", "nvrtc", "nvrtc", "11.2");
	expect("/sp/torch/lib/libcudnn-3a1b2c4d.so.8", "cudnn", "cudnn", "8");
	expect("libcudnn_ops_infer-0123abcd.so.8", "cudnn", "cudnn_ops_infer", "8");
	expect("libnvToolsExt-24de1d56.so.1", "nvtx", "nvToolsExt", "1");
	expect("libcublasLt-feedbeef.so.11", "cublas", "cublasLt", "11");
	/* builtins is a stem of its own, renamed or not */
	expect("libnvrtc-builtins.so.12.4", "nvrtc", "nvrtc-builtins", "12.4");
	expect("libnvrtc-builtins-4730a239.so.11.3", "nvrtc", "nvrtc-builtins", "11.3");
	/* only "-" and exactly 8 lowercase hex digits */
	ck_assert(!gt_classify("libcudart-8066428.so.10.2", &fi));
	ck_assert(!gt_classify("libcudart-806642821.so.10.2", &fi));
	ck_assert(!gt_classify("libcudart-8066428g.so.10.2", &fi));
	ck_assert(!gt_classify("libcudart_80664282.so.10.2", &fi));
	ck_assert(!gt_classify("libcudart-ABCDEF12.so.10.2", &fi));
	ck_assert(!gt_classify("-80664282.so.1", &fi));
	ck_assert(!gt_classify("libfoo-80664282.so.1", &fi));
}
END_TEST

START_TEST(test_not_cuda)
{
	struct gt_family_info fi;

	ck_assert(!gt_classify("/lib/x86_64-linux-gnu/libc.so.6", &fi));
	ck_assert(!gt_classify("libcudaxyz.so.1", &fi));
	ck_assert(!gt_classify("/opt/libcudnn.so.9/readme.txt", &fi));
	ck_assert(!gt_classify("libcudnn.sox", &fi));
	ck_assert(!gt_classify("", &fi));
	ck_assert(!gt_classify("libcudnn_", &fi));
}
END_TEST

/* One release, as an answer (13.0), a file name (13.0.96) or a package
 * (9.19.0.56) say it; compared on the fields both give, three at most. */
START_TEST(test_same_release)
{
	ck_assert(gt_same_release("13.0", "13.0.96"));
	ck_assert(gt_same_release("9.19.0", "9.19.0.56"));
	ck_assert(gt_same_release("9.19.0.1", "9.19.0.56"));
	ck_assert(gt_same_release("9", "9.19.0"));
	ck_assert(!gt_same_release("9.14.0", "9.19.0"));
	ck_assert(!gt_same_release("12.4", "13.0"));
	ck_assert(!gt_same_release("", "13.0"));
	ck_assert(!gt_same_release("13.0", ""));
	ck_assert(!gt_same_release("x", "x"));
}
END_TEST

/* /proc/driver/nvidia/version as the proprietary and the open modules
 * write it, and a GPU's information file. */
START_TEST(test_kernel_module_texts)
{
	char v[64];

	ck_assert(gt_parse_kmod_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
					"Release Build  (dvs-builder@U22-I3-AF03-09-1)  Thu Oct 30 2025\n"
					"GCC version:  gcc version 13.3.0\n", v, sizeof(v)));
	ck_assert_str_eq(v, "580.159.04");
	ck_assert(gt_parse_kmod_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  "
					"Sat Aug 19 01:15:15 UTC 2023\n", v, sizeof(v)));
	ck_assert_str_eq(v, "535.104.05");
	ck_assert(!gt_parse_kmod_version("NVRM version: something else\n", v, sizeof(v)));
	ck_assert(!gt_parse_kmod_version("", v, sizeof(v)));
	ck_assert(gt_parse_gpu_model("Model: \t\t NVIDIA H200\nIRQ:   \t\t 38\n", v, sizeof(v)));
	ck_assert_str_eq(v, "NVIDIA H200");
	ck_assert(!gt_parse_gpu_model("IRQ: 38\n", v, sizeof(v)));
}
END_TEST

START_TEST(test_odd_suffix_has_no_version)
{
	expect("/w/libcudart.so.13.rc1", "cudart", "cudart", "");
}
END_TEST

Suite *family_suite(void)
{
	Suite *s = suite_create("family");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_known_names);
	tcase_add_test(tc, test_nvidia_stack_and_plugins);
	tcase_add_test(tc, test_not_cuda);
	tcase_add_test(tc, test_auditwheel_renamed);
	tcase_add_test(tc, test_odd_suffix_has_no_version);
	tcase_add_test(tc, test_same_release);
	tcase_add_test(tc, test_kernel_module_texts);
	suite_add_tcase(s, tc);
	return s;
}
