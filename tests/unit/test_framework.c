/* Unit tests: a framework's declared needs (host/framework.c), read from fake
 * installations with the files and keys the real ones have, and pip
 * specifier semantics on CUDA library versions. */
#define _GNU_SOURCE
#include <check.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

#include "facts/facts.h"
#include "host/elf_info.h"
#include "host/framework.h"
#include "host/package.h"
#include "tests/unit/trace_fixture.h"
#include "tests/unit/unit.h"

static void put_text(const char *rel, const char *text)
{
	fx_put(rel, text, strlen(text));
}

/* A pip install: NAME-VERSION.dist-info with METADATA and a RECORD listing files. */
static void put_wheel(const char *dist_info, const char *metadata, const char *record)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "sp/site-packages/%s/METADATA", dist_info);
	put_text(rel, metadata);
	snprintf(rel, sizeof(rel), "sp/site-packages/%s/RECORD", dist_info);
	put_text(rel, record);
}

static const struct host_need *need_of(const struct host_needs *n, const char *family)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		if (strcmp(n->v[i].family, family) == 0)
			return &n->v[i];
	return NULL;
}

START_TEST(test_spec_equal_is_one_release)
{
	ck_assert_int_eq(host_version_satisfies("==9.19.0.56", "9.19.0.56"), HOST_MET);
	ck_assert_int_eq(host_version_satisfies("==9.19.0.56", "9.19.0"), HOST_MET);   /* a file name */
	ck_assert_int_eq(host_version_satisfies("==13.0.96", "13.0"), HOST_MET);       /* an answer */
	ck_assert_int_eq(host_version_satisfies("==9.19.0.56", "9.14.0"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies("==13.*", "13.2"), HOST_MET);
	ck_assert_int_eq(host_version_satisfies("==13.*", "12.4.127"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies("==8.9.*", "8"), HOST_UNKNOWN);
	ck_assert_int_eq(host_version_satisfies("!=9.14.0", "9.14.0.64"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies("==9.19.0", ""), HOST_UNKNOWN);
	ck_assert_int_eq(host_version_satisfies("==9.19.0", "?"), HOST_UNKNOWN);
}
END_TEST

START_TEST(test_spec_ranges)
{
	/* jax-cuda12-plugin[with-cuda]: nvidia-cudnn-cu12<10.0,>=9.1 */
	ck_assert_int_eq(host_version_satisfies("<10.0,>=9.1", "9.5.1.17"), HOST_MET);
	ck_assert_int_eq(host_version_satisfies("<10.0,>=9.1", "9.0.0"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies("<10.0,>=9.1", "10.0.0"), HOST_UNMET);
	/* a bare major cannot tell ">=9.1" */
	ck_assert_int_eq(host_version_satisfies(">=9.1", "9"), HOST_UNKNOWN);
	ck_assert_int_eq(host_version_satisfies(">=9.1", "10"), HOST_MET);
	ck_assert_int_eq(host_version_satisfies(">9.1", "9.1.0"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies("<=9.1", "9.1.0"), HOST_MET);
	ck_assert_int_eq(host_version_satisfies(">=8.9.2.26", "8.9.2"), HOST_UNKNOWN);
	/* ~=8.9 is >=8.9 and ==8.* */
	ck_assert_int_eq(host_version_satisfies("~=8.9", "8.9.7.29"), HOST_MET);
	ck_assert_int_eq(host_version_satisfies("~=8.9", "8.6.0"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies("~=8.9", "9.1.0"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies("~=8.9.2", "8.9.7"), HOST_MET);
	ck_assert_int_eq(host_version_satisfies("~=8.9.2", "8.10.0"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies("nonsense", "8.9.7"), HOST_UNKNOWN);
}
END_TEST

/* torch's wheel: Requires-Dist pins with platform markers, and torch/version.py. */
START_TEST(test_torch_wheel_needs)
{
	struct host_needs n;
	const struct host_need *cudnn, *cudart;

	put_wheel("torch-2.11.0.dist-info",
		  "Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\n"
		  "Requires-Dist: filelock\n"
		  "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"\n"
		  "Requires-Dist: nvidia-nccl-cu13==2.28.9; platform_system == \"Linux\" and platform_machine == \"x86_64\"\n"
		  "Requires-Dist: nvidia-cufft==12.0.0.61; platform_system == \"Windows\"\n"
		  "Requires-Dist: nvidia-cublas (==13.1.0.3) ; platform_system == \"Linux\"\n"
		  "Requires-Dist: nvidia-cusparselt-cu13==0.8.0; platform_system == \"Linux\"\n"
		  "Requires-Dist: nvidia-cuda-runtime==13.0.96; python_version >= \"3.9\"\n"
		  "\n"
		  "Requires-Dist: nvidia-curand==1.0 (in the description: not a header)\n",
		  "torch/lib/libtorch_cuda.so,,\ntorch/version.py,,\n");
	put_text("sp/site-packages/torch/version.py",
		 "from typing import Optional\n__version__ = '2.11.0+cu130'\ndebug = False\n"
		 "cuda: Optional[str] = '13.0'\nhip: Optional[str] = None\n");
	fx_touch("sp/site-packages/torch/lib/libtorch_cuda.so");
	ck_assert(host_framework_needs(fx_path("sp/site-packages/torch/lib/libtorch_cuda.so"), &n));
	ck_assert_str_eq(n.root, fx_path("sp/site-packages/torch"));
	cudnn = need_of(&n, "cudnn");
	ck_assert_ptr_nonnull(cudnn);
	ck_assert_str_eq(cudnn->spec, "==9.19.0.56");
	ck_assert_str_eq(cudnn->distribution, "nvidia-cudnn-cu13");
	ck_assert_str_eq(cudnn->framework, "torch 2.11.0");
	ck_assert_str_eq(cudnn->declared_by, fx_path("sp/site-packages/torch-2.11.0.dist-info/METADATA"));
	ck_assert(strstr(cudnn->what, "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56"));
	ck_assert_str_eq(need_of(&n, "nccl")->spec, "==2.28.9");
	ck_assert_str_eq(need_of(&n, "cublas")->spec, "==13.1.0.3");
	ck_assert_ptr_null(need_of(&n, "cufft"));   /* Windows only */
	ck_assert_ptr_null(need_of(&n, "curand"));  /* after the header */
	/* an unread marker (python_version) drops the pin: only version.py speaks for cudart */
	cudart = need_of(&n, "cudart");
	ck_assert_ptr_nonnull(cudart);
	ck_assert_str_eq(cudart->spec, "==13.*");
	ck_assert_str_eq(cudart->declared_by, fx_path("sp/site-packages/torch/version.py"));
	ck_assert_str_eq(cudart->what, "cuda = '13.0'");
	ck_assert_uint_eq(n.n, 4);
	host_needs_free(&n);
}
END_TEST

/* Every file of one install declares the same needs: they are read once
 * (a traced torch asks for each of its ~300 files) and read anew after
 * host_framework_cache_free, as the next report does. */
START_TEST(test_one_read_an_install)
{
	struct host_needs a, b, c;

	put_wheel("torch-2.11.0.dist-info",
		  "Name: torch\nVersion: 2.11.0\nRequires-Dist: nvidia-cudnn-cu13==9.19.0.56\n",
		  "torch/lib/libtorch_cuda.so,,\ntorch/lib/libc10_cuda.so,,\n");
	fx_touch("sp/site-packages/torch/lib/libtorch_cuda.so");
	fx_touch("sp/site-packages/torch/lib/libc10_cuda.so");
	ck_assert(host_framework_needs(fx_path("sp/site-packages/torch/lib/libtorch_cuda.so"), &a));
	put_text("sp/site-packages/torch-2.11.0.dist-info/METADATA",
		 "Name: torch\nVersion: 2.11.0\nRequires-Dist: nvidia-cudnn-cu13==9.20.0.1\n");
	ck_assert(host_framework_needs(fx_path("sp/site-packages/torch/lib/libc10_cuda.so"), &b));
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_str_eq(b.v[0].spec, "==9.19.0.56");  /* the install as first read */
	ck_assert_str_eq(b.root, a.root);
	host_framework_cache_free();
	ck_assert(host_framework_needs(fx_path("sp/site-packages/torch/lib/libc10_cuda.so"), &c));
	ck_assert_uint_eq(c.n, 1);
	ck_assert_str_eq(c.v[0].spec, "==9.20.0.1");
	host_needs_free(&a);
	host_needs_free(&b);
	host_needs_free(&c);
	host_framework_cache_free();
}
END_TEST

/* tensorflow[and-cuda]: pins under an extra count only where the pinned
 * wheel is installed; build_info.py gives majors. */
START_TEST(test_tensorflow_needs)
{
	struct host_needs n;

	put_wheel("tensorflow-2.15.0.dist-info",
		  "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.0\n"
		  "Requires-Dist: nvidia-cudnn-cu12==8.9.4.25; extra == \"and-cuda\"\n"
		  "Requires-Dist: nvidia-nccl-cu12==2.16.5; extra == \"and-cuda\"\n",
		  "tensorflow/python/_pywrap_tensorflow_internal.so,,\n");
	put_wheel("nvidia_cudnn_cu12-8.9.4.25.dist-info", "Name: nvidia-cudnn-cu12\nVersion: 8.9.4.25\n",
		  "nvidia/cudnn/lib/libcudnn.so.8,,\n");
	put_text("sp/site-packages/tensorflow/python/platform/build_info.py",
		 "build_info = collections.OrderedDict([('cpu_compiler', '/usr/bin/clang'), "
		 "('cuda_compute_capabilities', ['sm_50', 'compute_90']), ('cuda_version', '12.2'), "
		 "('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False)])\n");
	fx_touch("sp/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so");
	ck_assert(host_framework_needs(fx_path("sp/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so"),
				       &n));
	ck_assert_str_eq(need_of(&n, "cudnn")->spec, "==8.9.4.25");
	ck_assert_ptr_null(need_of(&n, "nccl"));  /* nvidia-nccl-cu12 is not installed */
	ck_assert_str_eq(need_of(&n, "cudart")->spec, "==12.*");
	ck_assert_str_eq(need_of(&n, "cudart")->what, "'cuda_version': '12.2'");
	ck_assert_uint_eq(n.n, 3);  /* the pin, and build_info's cuda_version and cudnn_version */
	host_needs_free(&n);
}
END_TEST

/* Windows' build_info ('64_112') declares nothing a Linux library can meet. */
START_TEST(test_tensorflow_windows_build_info_says_nothing)
{
	struct host_needs n;

	put_text("sp/site-packages/tensorflow/python/platform/build_info.py",
		 "build_info = {'cuda_version': '64_101', 'cudnn_version': '64_7', 'is_cuda_build': True}\n");
	fx_touch("sp/site-packages/tensorflow/libtensorflow_framework.so.2");
	ck_assert(host_framework_needs(fx_path("sp/site-packages/tensorflow/libtensorflow_framework.so.2"), &n));
	ck_assert_uint_eq(n.n, 0);
	host_needs_free(&n);
}
END_TEST

/* jaxlib 0.4.x wheels carry their build in the local version label;
 * ONNX Runtime in capi/version_info.py; CuPy in .data/_wheel.json. */
START_TEST(test_jaxlib_onnxruntime_cupy_needs)
{
	struct host_needs n;

	put_wheel("jaxlib-0.4.28+cuda12.cudnn89.dist-info", "Name: jaxlib\nVersion: 0.4.28+cuda12.cudnn89\n",
		  "jaxlib/xla_extension.so,,\n");
	fx_touch("sp/site-packages/jaxlib/xla_extension.so");
	ck_assert(host_framework_needs(fx_path("sp/site-packages/jaxlib/xla_extension.so"), &n));
	ck_assert_str_eq(need_of(&n, "cudnn")->spec, ">=8.9,==8.*");
	ck_assert_str_eq(need_of(&n, "cudart")->spec, "==12.*");
	ck_assert_int_eq(host_version_satisfies(need_of(&n, "cudnn")->spec, "8.6.0"), HOST_UNMET);
	host_needs_free(&n);

	put_text("sp/site-packages/onnxruntime/capi/version_info.py",
		 "use_cuda = True\ncuda_version = \"12.2\"\ncudnn_version = \"9\"\n");
	fx_touch("sp/site-packages/onnxruntime/capi/libonnxruntime_providers_cuda.so");
	ck_assert(host_framework_needs(fx_path("sp/site-packages/onnxruntime/capi/libonnxruntime_providers_cuda.so"),
				       &n));
	ck_assert_str_eq(need_of(&n, "cudnn")->spec, "==9.*");
	ck_assert_str_eq(need_of(&n, "cudart")->what, "cuda_version = '12.2'");
	host_needs_free(&n);

	put_text("sp/site-packages/cupy/.data/_wheel.json",
		 "{\"packaging\": \"pip\", \"cuda\": \"12.x\", \"cudnn\": {\"version\": \"8.8.1\", "
		 "\"filename\": \"libcudnn.so.8\"}}");
	fx_touch("sp/site-packages/cupy/_core/core.cpython-311-x86_64-linux-gnu.so");
	ck_assert(host_framework_needs(fx_path("sp/site-packages/cupy/_core/core.cpython-311-x86_64-linux-gnu.so"), &n));
	ck_assert_str_eq(need_of(&n, "cudart")->spec, "==12.*");
	ck_assert_str_eq(need_of(&n, "cudnn")->spec, "==8.*");
	host_needs_free(&n);
}
END_TEST

/* A JAX CUDA plugin's "with-cuda" extra pins cuDNN at its build
 * (jax_plugins/cuda/plugin_setup.py), and XLA holds any cuDNN to it:
 * jax-ml/jax#24180, jax[cuda12-local] with a system cuDNN 9.0. That pin
 * counts without the wheel (no distribution named then); the extra's other
 * pins, and another framework's extras, still count only with theirs. */
START_TEST(test_jax_plugin_cudnn_pin_counts_for_a_local_cudnn)
{
	const char *plugin = "sp/site-packages/jax_cuda12_plugin/xla_cuda_plugin.so";
	struct host_needs n;

	put_wheel("jax_cuda12_plugin-0.4.34.dist-info",
		  "Metadata-Version: 2.1\nName: jax-cuda12-plugin\nVersion: 0.4.34\n"
		  "Requires-Dist: jax-cuda12-pjrt==0.4.34\n"
		  "Provides-Extra: with-cuda\n"
		  "Requires-Dist: nvidia-cublas-cu12>=12.1.3.1; extra == \"with-cuda\"\n"
		  "Requires-Dist: nvidia-cudnn-cu12<10.0,>=9.1; extra == \"with-cuda\"\n"
		  "Requires-Dist: nvidia-nccl-cu12>=2.18.1; extra == \"with-cuda\"\n",
		  "jax_cuda12_plugin/xla_cuda_plugin.so,,\n");
	fx_touch(plugin);
	ck_assert(host_framework_needs(fx_path(plugin), &n));
	ck_assert_uint_eq(n.n, 1);
	ck_assert_str_eq(need_of(&n, "cudnn")->spec, "<10.0,>=9.1");
	ck_assert_str_eq(need_of(&n, "cudnn")->distribution, "");
	ck_assert_str_eq(need_of(&n, "cudnn")->framework, "jax-cuda12-plugin 0.4.34");
	ck_assert_int_eq(host_version_satisfies(need_of(&n, "cudnn")->spec, "9.0.0"), HOST_UNMET);
	ck_assert_int_eq(host_version_satisfies(need_of(&n, "cudnn")->spec, "9.10.2"), HOST_MET);
	host_needs_free(&n);
	host_framework_cache_free();

	/* jax[cuda12]: the wheels are there, every pin counts, named */
	put_wheel("nvidia_cudnn_cu12-9.1.0.70.dist-info", "Name: nvidia-cudnn-cu12\nVersion: 9.1.0.70\n",
		  "nvidia/cudnn/lib/libcudnn.so.9,,\n");
	put_wheel("nvidia_nccl_cu12-2.21.5.dist-info", "Name: nvidia-nccl-cu12\nVersion: 2.21.5\n",
		  "nvidia/nccl/lib/libnccl.so.2,,\n");
	ck_assert(host_framework_needs(fx_path(plugin), &n));
	ck_assert_str_eq(need_of(&n, "cudnn")->distribution, "nvidia-cudnn-cu12");
	ck_assert_str_eq(need_of(&n, "nccl")->spec, ">=2.18.1");
	ck_assert_ptr_null(need_of(&n, "cublas"));  /* nvidia-cublas-cu12 is not installed */
	host_needs_free(&n);
	host_framework_cache_free();
}
END_TEST

START_TEST(test_not_a_framework)
{
	struct host_needs n;

	fx_touch("sp/site-packages/numpy/core/_multiarray_umath.so");
	ck_assert(!host_framework_needs(fx_path("sp/site-packages/numpy/core/_multiarray_umath.so"), &n));
	ck_assert(!host_framework_needs("/usr/lib/x86_64-linux-gnu/libtorch_cuda.so", &n));
	ck_assert(!host_framework_needs(NULL, &n));
	ck_assert_uint_eq(n.n, 0);
}
END_TEST

/* A torch wheel under a folder whose name is Latin-1 ("Biblioth\xe8que"),
 * its library's RUNPATH naming another such folder: the facts keep the
 * needs, the package (its RECORD's path) and the RUNPATH, live and read
 * back from the facts file (a report on another machine). Before, json_pack
 * refused the strings that are not UTF-8: no needs, no package, no RUNPATH
 * (the search on paper then skipped the folder the loader searches). */
#define LATIN1_SP "Biblioth\xe8que/site-packages"
#define LATIN1_RUNPATH "/opt/caf\xe9/lib"

static void expect_latin1_facts(struct gt_host_facts *f, const char *lib)
{
	struct host_needs n;
	struct host_package pk;
	struct host_elf_info elf;
	char pattern[4096], **paths;

	ck_assert_msg(gt_facts_framework_needs(f, lib, &n), "no needs");
	ck_assert_str_eq(n.root, fx_path(LATIN1_SP "/torch"));
	ck_assert_uint_eq(n.n, 1);
	ck_assert_str_eq(n.v[0].spec, "==9.19.0.56");
	ck_assert_str_eq(n.v[0].declared_by, fx_path(LATIN1_SP "/torch-2.11.0.dist-info/METADATA"));
	host_needs_free(&n);
	ck_assert_msg(gt_facts_package(f, lib, &pk), "no package");
	ck_assert_str_eq(pk.manager, "pip");
	ck_assert_str_eq(pk.name, "torch");
	ck_assert_str_eq(pk.record, fx_path(LATIN1_SP "/torch-2.11.0.dist-info/RECORD"));
	ck_assert(gt_facts_elf(f, lib, &elf));
	ck_assert_ptr_nonnull(elf.runpath);
	ck_assert_str_eq(elf.runpath, LATIN1_RUNPATH);
	host_elf_free(&elf);
	/* the folder's listing (a library's siblings: cuDNN's parts) */
	snprintf(pattern, sizeof(pattern), "%s", fx_path(LATIN1_SP "/torch/lib/*.so"));
	ck_assert_uint_eq(gt_facts_glob(f, pattern, false, &paths), 1);
	ck_assert_str_eq(paths[0], lib);
	host_free_strings(paths, 1);
}

START_TEST(test_facts_keep_bytes_that_are_not_utf8)
{
	struct gt_facts_set *live, *recorded;
	char lib[4096], dir[4096], err[256] = "";

	fx_put("dpkg/status", "", 0);
	fx_put("dpkg/info/none.list", "", 0);
	setenv("GPUTRACE_DPKG_ROOT", fx_path("dpkg"), 1);
	setenv("GPUTRACE_CACHE_DIR", fx_path("cache"), 1);
	put_text(LATIN1_SP "/torch-2.11.0.dist-info/METADATA",
		 "Name: torch\nVersion: 2.11.0\nRequires-Dist: nvidia-cudnn-cu13==9.19.0.56\n");
	put_text(LATIN1_SP "/torch-2.11.0.dist-info/RECORD", "torch/lib/libtorch_cuda.so,,\n");
	fx_build_lib(LATIN1_SP "/torch/lib/libtorch_cuda.so", LATIN1_RUNPATH);
	snprintf(lib, sizeof(lib), "%s", fx_path(LATIN1_SP "/torch/lib/libtorch_cuda.so"));
	snprintf(dir, sizeof(dir), "%s", fx_path("facts"));
	ck_assert_int_eq(mkdir(dir, 0755), 0);

	live = gt_facts_set_new(GT_FACTS_LIVE);
	expect_latin1_facts(gt_facts_of_host(live, NULL), lib);
	ck_assert_msg(gt_facts_set_write_folder(live, dir, err, sizeof(err)), "%s", err);
	recorded = gt_facts_set_new(GT_FACTS_RECORDED);
	ck_assert_msg(gt_facts_set_read_folder(recorded, dir, err, sizeof(err)), "%s", err);
	expect_latin1_facts(gt_facts_of_host(recorded, NULL), lib);
	gt_facts_set_free(live);
	gt_facts_set_free(recorded);
	host_framework_cache_free();
	host_package_cache_free();
}
END_TEST

/* /etc/ld.so.preload's text, recorded on a host whose preloaded path is
 * not UTF-8: read back as its bytes (was: "", as if the file were empty). */
START_TEST(test_facts_etc_preload_bytes)
{
	static const char doc[] = "{\"format\":\"gputrace-facts\",\"version\":1,\"hosts\":{\"h\":{\"etc_preload\":"
				  "{\"/etc/ld.so.preload\":{\"hex\":\"2f6f70742f636166e92f6c6962686f6f6b2e736f0a\"}}}}}";
	struct gt_facts_set *recorded;
	char err[256] = "";

	fx_put("facts/gputrace-facts.json", doc, sizeof(doc) - 1);
	recorded = gt_facts_set_new(GT_FACTS_RECORDED);
	ck_assert_msg(gt_facts_set_read_folder(recorded, fx_path("facts"), err, sizeof(err)), "%s", err);
	ck_assert_str_eq(gt_facts_etc_preload(gt_facts_of_host(recorded, "h")), "/opt/caf\xe9/libhook.so\n");
	gt_facts_set_free(recorded);
}
END_TEST

Suite *framework_suite(void)
{
	Suite *s = suite_create("framework");
	TCase *tc = tcase_create("needs");

	fx_add_fixtures(tc);
	tcase_add_test(tc, test_spec_equal_is_one_release);
	tcase_add_test(tc, test_spec_ranges);
	tcase_add_test(tc, test_torch_wheel_needs);
	tcase_add_test(tc, test_one_read_an_install);
	tcase_add_test(tc, test_tensorflow_needs);
	tcase_add_test(tc, test_tensorflow_windows_build_info_says_nothing);
	tcase_add_test(tc, test_jaxlib_onnxruntime_cupy_needs);
	tcase_add_test(tc, test_jax_plugin_cudnn_pin_counts_for_a_local_cudnn);
	tcase_add_test(tc, test_not_a_framework);
	tcase_add_test(tc, test_facts_keep_bytes_that_are_not_utf8);
	tcase_add_test(tc, test_facts_etc_preload_bytes);
	suite_add_tcase(s, tc);
	return s;
}
