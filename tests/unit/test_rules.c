/* Unit tests: the rules of the diagnosis (rules/rule_*.c), each on a
 * minimal hand-written trace where it fires and on one where it must not,
 * through gt_run_rules on the built model, as the report runs them. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "rules/findings.h"
#include "rules/rules.h"
#include "tests/unit/trace_fixture.h"
#include "tests/unit/unit.h"

#define PROG "/usr/bin/prog"
#define DRIVER "/nonexistent/driver/libcuda.so.1"
#define CUDART "/nonexistent/cuda-13.0/lib64/libcudart.so.13.0.96"
#define CUDNN "/nonexistent/cudnn/lib/libcudnn.so.9"

#define OPEN(path) "{'ev':'open','t_us':1,'path':'" path "','ns':0}"
#define SEARCH(seq, name, requester) \
	"{'ev':'search','t_us':1,'tid':4242,'seq':" #seq ",'name':'" name "','requester':'" requester "'}"
#define OPEN_BY(path, seq, name, rule)                                                     \
	"{'ev':'open','t_us':2,'path':'" path "','ns':0,'search':" #seq ",'name':'" name "',"  \
	"'rule':'" rule "','tries':[{'path':'" path "','rule':'" rule "'}]}"
#define NOT_FOUND(seq, name, tries) \
	"{'ev':'search_end','t_us':3,'search':" #seq ",'name':'" name "','result':'not_found','tries':[" tries "]}"
#define TRY(path, rule) "{'path':'" path "','rule':'" rule "'}"
#define CALL(fn, status, status_name) \
	"{'ev':'call','t_us':4,'tid':4242,'fn':'" fn "','status':" #status ",'status_name':'" status_name "'}"
#define TOTAL(fn, status, status_name) \
	"{'ev':'calls','t_us':9,'fn':'" fn "','status':" #status ",'status_name':'" status_name "','count':1,'bytes':0}"
#define VERSION(lib, fn, value) \
	"{'ev':'version','t_us':5,'lib':'" lib "','fn':'" fn "','status':0,'value':" #value "}"
#define QUERIES_BEGIN "{'ev':'note','t_us':6,'tid':4242,'what':'gputrace_queries_begin'}"
#define QUERIES_END "{'ev':'note','t_us':7,'tid':4242,'what':'gputrace_queries_end'}"

/* The ids found, for failure messages. */
static const char *ids(const struct fx_diag *d)
{
	static char buf[2048];
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < d->findings.n && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ", " : "",
				      gt_finding_name(d->findings.v[i].id));
	return d->findings.n ? buf : "(none)";
}

static const struct gt_finding *must_find(const struct fx_diag *d, enum gt_finding_id id, enum gt_severity sev)
{
	const struct gt_finding *f = fx_finding(d, id);
	const char *name = gt_finding_name(id);

	ck_assert_msg(f, "no %s finding; found: %s", name, ids(d));
	ck_assert_int_eq(f->id, id);
	ck_assert_msg(f->severity == sev, "%s is %s, not %s", name, gt_severity_name(f->severity),
		      gt_severity_name(sev));
	ck_assert_ptr_eq(f->proc, &d->model);
	ck_assert_msg(f->summary && f->summary[0], "%s has no summary", name);
	ck_assert_msg(f->fix && f->fix[0], "%s has no fix", name);
	ck_assert_msg(json_array_size(f->evidence) > 0, "%s has no evidence", name);
	return f;
}

static void must_not_find(const struct fx_diag *d, enum gt_finding_id id)
{
	const struct gt_finding *f = fx_finding(d, id);

	ck_assert_msg(!f, "unexpected %s: %s", gt_finding_name(id), f ? f->summary : "");
}

static void assert_contains(const char *text, const char *part)
{
	ck_assert_msg(text && strstr(text, part), "\"%s\" does not contain \"%s\"", text ? text : "(null)", part);
}

/* The "tried" array of the first evidence item that has one. */
static size_t tried_count(const struct gt_finding *f)
{
	size_t i;
	json_t *e;

	json_array_foreach(f->evidence, i, e)
		if (json_is_array(json_object_get(e, "tried")))
			return json_array_size(json_object_get(e, "tried"));
	return 0;
}

/* ---- the finding table (include/gputrace/findings.h) ---- */

/* Each id once, in the contract's spelling, found again by its name, with a
 * title, a man anchor and a severity range that is not empty. */
START_TEST(test_finding_table)
{
	int id, other, sev, first, last;

	for (id = 0; id < GT_F_COUNT; id++) {
		const char *name = gt_finding_name((enum gt_finding_id)id), *c;

		ck_assert_msg(name[0] >= 'a' && name[0] <= 'z', "id %d: '%s'", id, name);
		for (c = name; *c; c++)
			ck_assert_msg((*c >= 'a' && *c <= 'z') || (*c == '-' && c[1] && c[1] != '-'), "'%s'", name);
		ck_assert_int_eq(gt_finding_from_name(name), id);
		for (other = 0; other < id; other++)
			ck_assert_str_ne(gt_finding_name((enum gt_finding_id)other), name);
		ck_assert_msg(gt_finding_title((enum gt_finding_id)id)[0], "%s has no title", name);
		ck_assert_msg(strchr(gt_finding_anchor((enum gt_finding_id)id), '#'), "%s: anchor", name);
		first = last = -1;
		for (sev = GT_SEV_INFO; sev <= GT_SEV_ERROR; sev++) {
			if (!gt_finding_severity_allowed((enum gt_finding_id)id, (enum gt_severity)sev))
				continue;
			if (first < 0)
				first = sev;
			last = sev;
		}
		ck_assert_msg(first >= 0, "%s allows no severity", name);
		for (sev = first; sev <= last; sev++)
			ck_assert(gt_finding_severity_allowed((enum gt_finding_id)id, (enum gt_severity)sev));
	}
	ck_assert_int_eq(gt_finding_from_name("no-such-finding"), GT_F_COUNT);
	ck_assert_int_eq(gt_finding_from_name(NULL), GT_F_COUNT);
	ck_assert_str_eq(gt_finding_name(GT_F_COUNT), "unknown");
	ck_assert(!gt_finding_severity_allowed(GT_F_COUNT, GT_SEV_ERROR));
	ck_assert(gt_finding_severity_allowed(GT_F_LIBRARY_NOT_FOUND, GT_SEV_INFO));
	ck_assert(!gt_finding_severity_allowed(GT_F_CRASHED, GT_SEV_WARNING));
	ck_assert(!gt_finding_severity_allowed(GT_F_END_UNKNOWN, GT_SEV_ERROR));
}
END_TEST

/* ---- a healthy process: nothing to say ---- */

START_TEST(test_healthy_process_has_no_finding)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER,
		    "{'ev':'open','t_us':1,'path':'" PROG "','ns':0,'main':true}",
		    SEARCH(1, "libcudart.so.13", PROG), OPEN_BY(CUDART, 1, "libcudart.so.13", "runpath"),
		    SEARCH(2, "libcuda.so.1", CUDART), OPEN_BY(DRIVER, 2, "libcuda.so.1", "ld_so_cache"),
		    SEARCH(3, "libcudnn.so.9", PROG), OPEN_BY(CUDNN, 3, "libcudnn.so.9", "runpath"),
		    CALL("cudaGetDeviceCount", 0, "cudaSuccess"), CALL("cudnnCreate", 0, "CUDNN_STATUS_SUCCESS"),
		    QUERIES_BEGIN, VERSION(CUDART, "cudaRuntimeGetVersion", 13000),
		    VERSION(CUDART, "cudaDriverGetVersion", 13000), VERSION(DRIVER, "cuDriverGetVersion", 13000),
		    VERSION(CUDNN, "cudnnGetVersion", 91900), VERSION(CUDNN, "cudnnGetCudartVersion", 13000),
		    QUERIES_END, TOTAL("cudaMalloc", 0, "cudaSuccess"),
		    "{'ev':'allocs','t_us':9,'held_bytes':0,'peak_bytes':1048576,'failed':0,'partial':false}",
		    FX_END, NULL);
	ck_assert_uint_eq(d.model.nlibs, 3);
	ck_assert_msg(d.findings.n == 0, "findings: %s", ids(&d));
	fx_free(&d);
}
END_TEST

/* ---- driver-missing ---- */

START_TEST(test_driver_missing_from_search)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), SEARCH(11, "libcuda.so.1", CUDART),
		    NOT_FOUND(11, "libcuda.so.1", TRY("/nonexistent/cuda-13.0/lib64/libcuda.so.1", "runpath") ","
			      TRY("/usr/lib/libcuda.so.1", "default")),
		    FX_END, NULL);
	f = must_find(&d, GT_F_DRIVER_MISSING, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "no CUDA driver: libcuda.so.1 could not be loaded");
	ck_assert(fx_evidence_has(f, "requester", CUDART));
	ck_assert_uint_eq(tried_count(f), 2);
	fx_free(&d);
}
END_TEST

START_TEST(test_driver_missing_from_status_35)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), CALL("cudaGetDeviceCount", 35, "cudaErrorInsufficientDriver"),
		    FX_END, NULL);
	f = must_find(&d, GT_F_DRIVER_MISSING, GT_SEV_ERROR);
	assert_contains(f->summary, "(the runtime answered 35)");
	ck_assert(fx_evidence_has(f, "fn", "cudaGetDeviceCount"));
	fx_free(&d);

	/* cudaMalloc is only counted: its total says it */
	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), TOTAL("cudaMalloc", 35, "cudaErrorInsufficientDriver"),
		    FX_END, NULL);
	f = must_find(&d, GT_F_DRIVER_MISSING, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "fn", "cudaMalloc"));
	fx_free(&d);
}
END_TEST

START_TEST(test_driver_missing_not_when_loaded)
{
	struct fx_diag d;

	/* the first place missed, the second had it */
	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), SEARCH(1, "libcuda.so.1", CUDART),
		    OPEN_BY(DRIVER, 1, "libcuda.so.1", "ld_so_cache"),
		    CALL("cudaGetDeviceCount", 0, "cudaSuccess"), FX_END, NULL);
	must_not_find(&d, GT_F_DRIVER_MISSING);
	fx_free(&d);
}
END_TEST

/* A search made by gputrace's own version calls is not the program's. */
START_TEST(test_driver_missing_not_for_our_search)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), QUERIES_BEGIN, SEARCH(4, "libcuda.so.1", CUDART), QUERIES_END,
		    NOT_FOUND(4, "libcuda.so.1", TRY("/usr/lib/libcuda.so.1", "default")), FX_END, NULL);
	ck_assert(d.proc.searches[0].ours);
	must_not_find(&d, GT_F_DRIVER_MISSING);
	fx_free(&d);
}
END_TEST

/* ---- driver-stub ---- */

#define STUB "/nonexistent/cuda-13.0/lib64/stubs/libcuda.so.1"

START_TEST(test_driver_stub_by_path)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), SEARCH(2, "libcuda.so.1", CUDART),
		    OPEN_BY(STUB, 2, "libcuda.so.1", "ld_library_path"),
		    CALL("cudaGetDeviceCount", 34, "cudaErrorStubLibrary"), FX_END, NULL);
	f = must_find(&d, GT_F_DRIVER_STUB, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "libcuda.so.1 is the toolkit's stub, not the driver: " STUB);
	ck_assert(fx_evidence_has(f, "path", STUB));
	assert_contains(f->fix, STUB);
	/* a stub is not a driver that is too old, nor a missing one */
	must_not_find(&d, GT_F_DRIVER_TOO_OLD);
	must_not_find(&d, GT_F_DRIVER_MISSING);
	fx_free(&d);
}
END_TEST

/* A stub copied out of stubs/: its status 34 gives it away. */
START_TEST(test_driver_stub_by_status_34)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(DRIVER), CALL("cuInit", 34, "CUDA_ERROR_STUB_LIBRARY"), FX_END, NULL);
	must_find(&d, GT_F_DRIVER_STUB, GT_SEV_ERROR);
	fx_free(&d);
}
END_TEST

START_TEST(test_driver_stub_not_for_real_driver)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(DRIVER), CALL("cuInit", 0, "CUDA_SUCCESS"), FX_END, NULL);
	must_not_find(&d, GT_F_DRIVER_STUB);
	fx_free(&d);
}
END_TEST

/* ---- driver-too-old ---- */

START_TEST(test_driver_too_old_by_versions)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(DRIVER),
		    VERSION(DRIVER, "cuDriverGetVersion", 12040), VERSION(CUDART, "cudaRuntimeGetVersion", 13000),
		    FX_END, NULL);
	f = must_find(&d, GT_F_DRIVER_TOO_OLD, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "the driver supports CUDA 12.4, the runtime loaded is CUDA 13.0");
	ck_assert(fx_evidence_has(f, "cuda_version", "12.4"));
	assert_contains(f->fix, "CUDA 13.0");
	must_not_find(&d, GT_F_DRIVER_MISSING);
	fx_free(&d);
}
END_TEST

/* Without the driver's own answer, the runtime's cudaDriverGetVersion says it. */
START_TEST(test_driver_too_old_by_runtime_answer)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(DRIVER),
		    VERSION(CUDART, "cudaDriverGetVersion", 12020), VERSION(CUDART, "cudaRuntimeGetVersion", 13000),
		    FX_END, NULL);
	f = must_find(&d, GT_F_DRIVER_TOO_OLD, GT_SEV_ERROR);
	assert_contains(f->summary, "CUDA 12.2");
	fx_free(&d);
}
END_TEST

START_TEST(test_driver_too_old_by_status_35)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(DRIVER),
		    CALL("cudaGetDeviceCount", 35, "cudaErrorInsufficientDriver"), FX_END, NULL);
	must_find(&d, GT_F_DRIVER_TOO_OLD, GT_SEV_ERROR);
	must_not_find(&d, GT_F_DRIVER_MISSING);  /* the driver is there */
	fx_free(&d);
}
END_TEST

START_TEST(test_driver_too_old_not_when_new_enough)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(DRIVER),
		    VERSION(DRIVER, "cuDriverGetVersion", 13010), VERSION(CUDART, "cudaRuntimeGetVersion", 13000),
		    CALL("cudaGetDeviceCount", 0, "cudaSuccess"), FX_END, NULL);
	must_not_find(&d, GT_F_DRIVER_TOO_OLD);
	fx_free(&d);

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(DRIVER),
		    VERSION(DRIVER, "cuDriverGetVersion", 13000), VERSION(CUDART, "cudaRuntimeGetVersion", 13000),
		    FX_END, NULL);
	must_not_find(&d, GT_F_DRIVER_TOO_OLD);
	fx_free(&d);
}
END_TEST

/* ---- no-device ---- */

START_TEST(test_no_device)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(DRIVER), CALL("cudaGetDeviceCount", 100, "cudaErrorNoDevice"),
		    FX_END, NULL);
	f = must_find(&d, GT_F_NO_DEVICE, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "the CUDA driver shows this process no GPU");
	assert_contains(f->fix, "nvidia-smi -L");
	fx_free(&d);
}
END_TEST

START_TEST(test_no_device_visible_devices)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER_ENV("'CUDA_VISIBLE_DEVICES':'7'"), OPEN(DRIVER),
		    TOTAL("cudaSetDevice", 100, "cudaErrorNoDevice"), FX_END, NULL);
	f = must_find(&d, GT_F_NO_DEVICE, GT_SEV_ERROR);
	assert_contains(f->summary, "(CUDA_VISIBLE_DEVICES is set)");
	assert_contains(f->fix, "CUDA_VISIBLE_DEVICES is set to \"7\"");
	ck_assert(fx_evidence_has(f, "value", "7"));
	fx_free(&d);
}
END_TEST

START_TEST(test_no_device_not_with_devices)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER_ENV("'CUDA_VISIBLE_DEVICES':'0'"), OPEN(CUDART), OPEN(DRIVER),
		    "{'ev':'call','t_us':4,'tid':4242,'fn':'cudaGetDeviceCount','status':0,"
		    "'status_name':'cudaSuccess','value':1}",
		    FX_END, NULL);
	must_not_find(&d, GT_F_NO_DEVICE);
	fx_free(&d);
}
END_TEST

/* ---- cpu-only-build ---- */

#define TORCH "/nonexistent/site-packages/torch/lib/"

START_TEST(test_cpu_only_build)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(TORCH "libtorch_python.so"), OPEN(TORCH "libtorch_cpu.so"),
		    OPEN(TORCH "libc10.so"), FX_END, NULL);
	f = must_find(&d, GT_F_CPU_ONLY_BUILD, GT_SEV_WARNING);
	/* the core library names the framework, whatever came first */
	ck_assert(fx_evidence_has(f, "path", TORCH "libtorch_cpu.so"));
	fx_free(&d);
}
END_TEST

START_TEST(test_cpu_only_build_not_with_cuda_runtime)
{
	struct fx_diag d;

	/* a runtime loaded */
	fx_diagnose(&d, FX_HEADER, OPEN(TORCH "libtorch_cpu.so"), OPEN(CUDART), FX_END, NULL);
	must_not_find(&d, GT_F_CPU_ONLY_BUILD);
	fx_free(&d);

	/* a runtime looked for, even in vain: another rule's business */
	fx_diagnose(&d, FX_HEADER, OPEN(TORCH "libtorch_cpu.so"), SEARCH(1, "libcudart.so.13", TORCH "libtorch_cuda.so"),
		    NOT_FOUND(1, "libcudart.so.13", TRY("/usr/lib/libcudart.so.13", "default")), FX_END, NULL);
	must_not_find(&d, GT_F_CPU_ONLY_BUILD);
	fx_free(&d);

	/* a program with the runtime linked in */
	fx_diagnose(&d, FX_HEADER,
		    "{'ev':'open','t_us':1,'path':'" PROG "','ns':0,'main':true,'cudart_static':true}",
		    OPEN(TORCH "libtorch_cpu.so"), FX_END, NULL);
	must_not_find(&d, GT_F_CPU_ONLY_BUILD);
	fx_free(&d);
}
END_TEST

START_TEST(test_cpu_only_build_not_without_framework)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN("/lib/x86_64-linux-gnu/libm.so.6"), OPEN("/nonexistent/libtorchvision.so"),
		    FX_END, NULL);
	must_not_find(&d, GT_F_CPU_ONLY_BUILD);
	fx_free(&d);
}
END_TEST

/* ---- library-not-found ---- */

/* The loader tries each folder's hwcaps and tls subfolders first (glibc 2.36
 * on x86-64: glibc-hwcaps/x86-64-v3, tls/haswell/avx512_1/x86_64 ...): one
 * place each, however many paths. */
START_TEST(test_searched_places_fold_hwcaps)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER_ENV("'CUDA_HOME':'$TMP/cuda'"), OPEN(CUDART), SEARCH(3, "libcudnn.so.9", PROG),
		    NOT_FOUND(3, "libcudnn.so.9", TRY("/x/lib/glibc-hwcaps/x86-64-v3/libcudnn.so.9", "default") ","
			      TRY("/x/lib/tls/haswell/avx512_1/x86_64/libcudnn.so.9", "default") ","
			      TRY("/x/lib/haswell/avx512_1/libcudnn.so.9", "default") ","
			      TRY("/x/lib/x86_64/libcudnn.so.9", "default") "," TRY("/x/lib/libcudnn.so.9", "default") ","
			      TRY("/y/lib/glibc-hwcaps/x86-64-v2/libcudnn.so.9", "default") ","
			      TRY("/y/lib/libcudnn.so.9", "default")),
		    FX_END, FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "libcudnn.so.9: cannot open shared object file (searched 2 places)");
	assert_contains(json_string_value(json_object_get(json_array_get(f->evidence, 0), "what")),
			"the loader tried 7 paths in 2 places");
	ck_assert_uint_eq(tried_count(f), 7);
	fx_free(&d);
}
END_TEST

START_TEST(test_library_not_found_with_copy)
{
	struct fx_diag d;
	const struct gt_finding *f;
	char want[4200];

	fx_touch("cuda/lib64/libcudnn.so.9");
	fx_diagnose(&d, FX_HEADER_ENV("'CUDA_HOME':'$TMP/cuda'"), OPEN(CUDART),
		    SEARCH(3, "libcudnn.so.9", PROG),
		    NOT_FOUND(3, "libcudnn.so.9", TRY("/nonexistent/cuda-13.0/lib64/libcudnn.so.9", "runpath")),
		    FX_END, FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "libcudnn.so.9: cannot open shared object file (searched 1 place)");
	snprintf(want, sizeof(want), "A copy exists at %s", fx_path("cuda/lib64/libcudnn.so.9"));
	assert_contains(f->fix, want);
	ck_assert(fx_evidence_has(f, "path", fx_path("cuda/lib64/libcudnn.so.9")));
	ck_assert(fx_evidence_has(f, "requester", PROG));
	ck_assert_uint_eq(tried_count(f), 1);
	fx_free(&d);
}
END_TEST

/* No copy anywhere; a copy the loader already tried does not count. */
START_TEST(test_library_not_found_without_copy)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_touch("cuda/lib64/libcufft.so.77");
	fx_diagnose(&d, FX_HEADER_ENV("'CUDA_HOME':'$TMP/cuda'"), SEARCH(1, "libcufft.so.77", PROG),
		    NOT_FOUND(1, "libcufft.so.77", TRY("$TMP/cuda/lib64/libcufft.so.77", "ld_library_path")),
		    FX_END, FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	assert_contains(f->fix, "Install the library that provides libcufft.so.77");
	ck_assert_uint_eq(json_array_size(f->evidence), 1);  /* no "copy elsewhere" item */
	fx_free(&d);
}
END_TEST

/* The library asked for, in the folder the loader searched, under another
 * name: torch 1.8.1+cu111's wheel shipped NVRTC 11.1's builtins as
 * torch/lib/libnvrtc-builtins.so, and NVRTC asks for
 * libnvrtc-builtins.so.11.1 (pytorch/pytorch#58101); libtorch 2.0.0+cu118
 * shipped libnvrtc-builtins-2dc4bf68.so.11.8 (pytorch/pytorch#99781). */
#define BUILTINS_TRY(folder, v) TRY("$TMP/" folder "/libnvrtc-builtins.so." v, "runpath")
START_TEST(test_library_not_found_renamed_copy)
{
	struct fx_diag d;
	const struct gt_finding *f;
	char want[4200];

	fx_build_lib_soname("torch/lib/libnvrtc-builtins.so", "libnvrtc-builtins.so.11.1");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libnvrtc-builtins.so.11.1", "$TMP/torch/lib/libnvrtc-3a20f2b6.so.11.1"),
		    NOT_FOUND(1, "libnvrtc-builtins.so.11.1", BUILTINS_TRY("torch/lib", "11.1")), FX_END, FX_FAILED,
		    NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "renamed", "soname"));
	ck_assert(fx_evidence_has(f, "path", fx_path("torch/lib/libnvrtc-builtins.so")));
	snprintf(want, sizeof(want), "ln -s libnvrtc-builtins.so %s", fx_path("torch/lib/libnvrtc-builtins.so.11.1"));
	assert_contains(f->fix, want);
	fx_free(&d);

	fx_touch("libtorch/lib/libnvrtc-builtins-2dc4bf68.so.11.8");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libnvrtc-builtins.so.11.8", "$TMP/libtorch/lib/libnvrtc-672ee683.so.11.2"),
		    NOT_FOUND(1, "libnvrtc-builtins.so.11.8", BUILTINS_TRY("libtorch/lib", "11.8")), FX_END,
		    FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "renamed", "hashed"));
	assert_contains(f->fix, "a renamed copy of it (a hash in its name)");
	fx_free(&d);

	/* a release file whose SONAME link was lost (copied without links) */
	fx_build_lib_soname("cudnn/lib/libcudnn.so.8.9.7", "libcudnn.so.8");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libcudnn.so.8", PROG),
		    NOT_FOUND(1, "libcudnn.so.8", TRY("$TMP/cudnn/lib/libcudnn.so.8", "ld_library_path")), FX_END,
		    FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "renamed", "soname"));
	ck_assert(fx_evidence_has(f, "path", fx_path("cudnn/lib/libcudnn.so.8.9.7")));
	fx_free(&d);
}
END_TEST

/* What is not the asked library under another name: another minor's
 * unversioned link (CUDA 11.6's, where 11.1 is asked: yolact_edge#186),
 * NVRTC's alt builtins (their own SONAME), a hashed copy of another
 * version, a name whose "hash" is not eight hex digits, and a copy with the
 * right SONAME in a folder the loader did not search. */
START_TEST(test_library_not_found_renamed_copy_not_for_others)
{
	struct fx_diag d;
	const struct gt_finding *f;
	size_t i;

	fx_build_lib_soname("cuda/lib64/libnvrtc-builtins.so.11.6.55", "libnvrtc-builtins.so.11.6");
	fx_symlink("libnvrtc-builtins.so.11.6.55", "cuda/lib64/libnvrtc-builtins.so.11.6");
	fx_symlink("libnvrtc-builtins.so.11.6", "cuda/lib64/libnvrtc-builtins.so");
	fx_build_lib_soname("cuda/lib64/libnvrtc-builtins.alt.so.11.1", "libnvrtc-builtins.alt.so.11.1");
	fx_touch("cuda/lib64/libnvrtc-builtins-2dc4bf68.so.11.8");
	fx_touch("cuda/lib64/libnvrtc-builtins-2dc4bf6g.so.11.1");
	fx_build_lib_soname("unsearched/libnvrtc-builtins.so", "libnvrtc-builtins.so.11.1");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libnvrtc-builtins.so.11.1", "$TMP/cuda/lib64/libnvrtc.so.11.2"),
		    NOT_FOUND(1, "libnvrtc-builtins.so.11.1", BUILTINS_TRY("cuda/lib64", "11.1")), FX_END, FX_FAILED,
		    NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	for (i = 0; i < json_array_size(f->evidence); i++)
		ck_assert_ptr_null(json_object_get(json_array_get(f->evidence, i), "renamed"));
	ck_assert_ptr_null(strstr(f->fix, "ln -s"));
	fx_free(&d);
}
END_TEST

/* Only another minor of the asked major (yolact_edge#186: CUDA 11.6's
 * lib64 with libnvrtc-builtins.so.11.6 where NVRTC 11.1 asks for
 * libnvrtc-builtins.so.11.1): said with that file, never as a copy or a
 * link to make; the same name without its minor (libcudnn.so.8) never
 * reads as another release. */
START_TEST(test_library_not_found_other_minor)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_touch("cuda-11.6/lib64/libnvrtc-builtins.so.11.6.55");
	fx_symlink("libnvrtc-builtins.so.11.6.55", "cuda-11.6/lib64/libnvrtc-builtins.so.11.6");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libnvrtc-builtins.so.11.1", "$TMP/venv/torch/lib/libnvrtc-3a20f2b6.so.11.1"),
		    NOT_FOUND(1, "libnvrtc-builtins.so.11.1", TRY("$TMP/cuda-11.6/lib64/libnvrtc-builtins.so.11.1",
								  "ld_library_path")),
		    FX_END, FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "other_release", fx_path("cuda-11.6/lib64/libnvrtc-builtins.so.11.6")));
	assert_contains(f->fix, "asks for nvrtc-builtins 11.1 by a name that carries the release");
	ck_assert_ptr_null(strstr(f->fix, "ln -s"));
	fx_free(&d);

	fx_touch("cudnn/lib/libcudnn.so.8.9.7");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libcudnn.so.8", PROG),
		    NOT_FOUND(1, "libcudnn.so.8", TRY("$TMP/cudnn/lib/libcudnn.so.8", "ld_library_path")), FX_END,
		    FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert(!fx_evidence_has(f, "other_release", fx_path("cudnn/lib/libcudnn.so.8.9.7")));
	fx_free(&d);

	/* cuDNN asks for .so.9.19.0, .so.9.19, then .so.9, which any 9.x serves:
	 * the long names are probes, not a release it needs */
	fx_touch("cudnn/lib/libcudnn_graph.so.9.14.0");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libcudnn_graph.so.9.19.0", PROG),
		    NOT_FOUND(1, "libcudnn_graph.so.9.19.0", TRY("$TMP/cudnn/lib/libcudnn_graph.so.9.19.0", "runpath")),
		    SEARCH(2, "libcudnn_graph.so.9", PROG),
		    NOT_FOUND(2, "libcudnn_graph.so.9", TRY("$TMP/cudnn/lib/libcudnn_graph.so.9", "runpath")), FX_END,
		    FX_FAILED, NULL);
	for (size_t i = 0; i < d.findings.n; i++)
		ck_assert(!fx_evidence_has(&d.findings.v[i], "other_release",
					   fx_path("cudnn/lib/libcudnn_graph.so.9.14.0")));
	fx_free(&d);
}
END_TEST

/* NVRTC's .alt builtins beside a plain NVRTC that asks for the plain name
 * (nanoporetech/dorado#1319): said as the other variant's file, found in
 * the requester's own folder though it has no RUNPATH; the .alt name asked
 * for never points at the plain file. */
START_TEST(test_library_not_found_alt_variant)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_touch("dorado/lib/libnvrtc.so.12");
	fx_touch("dorado/lib/libnvrtc-builtins.alt.so.12.8");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libnvrtc-builtins.so.12.8", "$TMP/dorado/lib/libnvrtc.so.12"),
		    NOT_FOUND(1, "libnvrtc-builtins.so.12.8", TRY("/usr/lib/libnvrtc-builtins.so.12.8", "default")),
		    FX_END, FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "alt_variant", fx_path("dorado/lib/libnvrtc-builtins.alt.so.12.8")));
	assert_contains(f->fix, "the other variant's file");
	fx_free(&d);

	fx_touch("cuda/lib64/libnvrtc.alt.so.12");
	fx_touch("cuda/lib64/libnvrtc-builtins.so.12.8");
	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libnvrtc-builtins.alt.so.12.8", "$TMP/cuda/lib64/libnvrtc.alt.so.12"),
		    NOT_FOUND(1, "libnvrtc-builtins.alt.so.12.8",
			      TRY("$TMP/cuda/lib64/libnvrtc-builtins.alt.so.12.8", "runpath")),
		    FX_END, FX_FAILED, NULL);
	for (size_t i = 0; i < d.findings.n; i++)
		ck_assert_ptr_null(strstr(d.findings.v[i].fix, "the other variant's file"));
	fx_free(&d);
}
END_TEST

/* Each name once, however many times it was asked for. */
START_TEST(test_library_not_found_once_per_name)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, SEARCH(1, "libcufft.so.77", PROG), NOT_FOUND(1, "libcufft.so.77", ""),
		    SEARCH(2, "libcufft.so.77", PROG), NOT_FOUND(2, "libcufft.so.77", ""),
		    SEARCH(3, "libcurand.so.77", PROG), NOT_FOUND(3, "libcurand.so.77", ""), FX_END, FX_FAILED, NULL);
	must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	ck_assert_uint_eq(fx_count(&d, GT_F_LIBRARY_NOT_FOUND), 2);
	fx_free(&d);
}
END_TEST

START_TEST(test_library_not_found_not_when_a_version_loaded)
{
	struct fx_diag d;

	/* cuDNN 9 asks for its graph library by the longest name first */
	fx_diagnose(&d, FX_HEADER, OPEN(CUDNN),
		    SEARCH(1, "libcudnn_graph.so.9.19.0", CUDNN), NOT_FOUND(1, "libcudnn_graph.so.9.19.0", ""),
		    SEARCH(2, "libcudnn_graph.so.9", CUDNN),
		    OPEN_BY("/nonexistent/cudnn/lib/libcudnn_graph.so.9", 2, "libcudnn_graph.so.9", "runpath"),
		    FX_END, NULL);
	must_not_find(&d, GT_F_LIBRARY_NOT_FOUND);
	fx_free(&d);
}
END_TEST

/* NCCL without NCCL_NET_PLUGIN looks for libnccl-net.so and goes on with its
 * own transports (NCCL's src/plugin/plugin_open.cc): users take the INFO line
 * for their error (NVIDIA/nccl#1231: the run failed with Cuda failure 802,
 * and the maintainers called the plug-in line harmless). Never the cause of
 * a failed run: info, saying why. */
#define NCCL "/nonexistent/nccl/lib/libnccl.so.2"
START_TEST(test_library_not_found_nccl_default_net_plugin)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(NCCL), SEARCH(3, "libnccl-net.so", NCCL),
		    NOT_FOUND(3, "libnccl-net.so", TRY("/usr/lib/libnccl-net.so", "default")),
		    FX_END, FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_INFO);
	assert_contains(f->summary, "NCCL's optional network plug-in");
	ck_assert_uint_eq(f->fix_data.n, 0);
	fx_free(&d);
}
END_TEST

/* NCCL_NET_PLUGIN=ofi chose libnccl-net-ofi.so and none loaded: NCCL ran on
 * its internal transports, not the one the variable chose. */
START_TEST(test_library_not_found_nccl_chosen_net_plugin)
{
	struct fx_diag d;
	const struct gt_finding *f;
	char want[4200];

	fx_touch("aws-ofi-nccl/lib/libnccl-net-ofi.so");
	fx_diagnose(&d, FX_HEADER_ENV("'NCCL_NET_PLUGIN':'ofi','CONDA_PREFIX':'$TMP/aws-ofi-nccl'"), OPEN(NCCL),
		    SEARCH(3, "libnccl-net-ofi.so", NCCL),
		    NOT_FOUND(3, "libnccl-net-ofi.so", TRY("/usr/lib/libnccl-net-ofi.so", "default")),
		    FX_END, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_WARNING);
	assert_contains(f->summary, "NCCL_NET_PLUGIN=ofi chose");
	ck_assert(fx_evidence_has(f, "variable", "NCCL_NET_PLUGIN"));
	snprintf(want, sizeof(want), "A copy of the plug-in is at %s", fx_path("aws-ofi-nccl/lib/libnccl-net-ofi.so"));
	assert_contains(f->fix, want);
	ck_assert_uint_eq(f->fix_data.n, 1);
	ck_assert_int_eq(f->fix_data.v[0].kind, GT_FIX_LIST_APPEND);
	fx_free(&d);
}
END_TEST

/* The same search with the plug-in loaded under another name: nothing. */
START_TEST(test_library_not_found_nccl_net_plugin_loaded)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER_ENV("'NCCL_NET_PLUGIN':'ofi'"), OPEN(NCCL),
		    SEARCH(3, "libnccl-net.so", NCCL),
		    NOT_FOUND(3, "libnccl-net.so", TRY("/usr/lib/libnccl-net.so", "default")),
		    OPEN("/opt/ofi/lib/libnccl-net-ofi.so"), FX_END, FX_FAILED, NULL);
	must_not_find(&d, GT_F_LIBRARY_NOT_FOUND);
	fx_free(&d);
}
END_TEST

/* numba#9216: export CUDA_HOME=$CUDA_HOME:/usr/local/cuda-11.8 left numba a
 * folder named ":/usr/local/cuda-11.8", and dlopen("libnvvm.so") failed; the
 * maintainer's fix was CUDA_HOME=/usr/local/cuda-11.8. */
START_TEST(test_library_not_found_cuda_home_list)
{
	struct fx_diag d;
	const struct gt_finding *f;
	char want[4200];

	fx_touch("cuda-11.8/nvvm/lib64/libnvvm.so");
	fx_diagnose(&d, FX_HEADER_ENV("'CUDA_HOME':':$TMP/cuda-11.8'"), SEARCH(3, "libnvvm.so", PROG),
		    NOT_FOUND(3, "libnvvm.so", TRY("/usr/lib/libnvvm.so", "default")), FX_END, FX_FAILED, NULL);
	f = must_find(&d, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR);
	snprintf(want, sizeof(want), "export CUDA_HOME=%s", fx_path("cuda-11.8"));
	assert_contains(f->fix, want);
	ck_assert(fx_evidence_has(f, "variable", "CUDA_HOME"));
	ck_assert(fx_evidence_has(f, "path", fx_path("cuda-11.8/nvvm/lib64/libnvvm.so")));
	ck_assert_uint_eq(f->fix_data.n, 1);
	ck_assert_int_eq(f->fix_data.v[0].kind, GT_FIX_SET);
	ck_assert_str_eq(f->fix_data.v[0].u.set.var, "CUDA_HOME");
	ck_assert_str_eq(f->fix_data.v[0].u.set.value, fx_path("cuda-11.8"));
	fx_free(&d);
}
END_TEST

START_TEST(test_library_not_found_not_for_driver_ours_or_others)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER,
		    SEARCH(1, "libcuda.so.1", CUDART), NOT_FOUND(1, "libcuda.so.1", ""),   /* driver-missing's */
		    SEARCH(2, "libfoo.so.1", PROG), NOT_FOUND(2, "libfoo.so.1", ""),       /* not CUDA */
		    QUERIES_BEGIN, SEARCH(3, "libcufft.so.77", CUDNN), QUERIES_END,        /* gputrace's own */
		    NOT_FOUND(3, "libcufft.so.77", ""), FX_END, NULL);
	must_not_find(&d, GT_F_LIBRARY_NOT_FOUND);
	must_find(&d, GT_F_DRIVER_MISSING, GT_SEV_ERROR);
	fx_free(&d);
}
END_TEST

/* ---- mixed-versions ---- */

START_TEST(test_mixed_versions_cudnn_files)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/a/libcudnn.so.9.19.0"),
		    OPEN("/nonexistent/b/libcudnn_graph.so.9.1.0"), FX_END, NULL);
	f = must_find(&d, GT_F_MIXED_VERSIONS, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "cudnn parts of different versions in one process");
	ck_assert(fx_evidence_has(f, "version", "9.19.0"));
	ck_assert(fx_evidence_has(f, "version", "9.1.0"));
	ck_assert_uint_eq(json_array_size(f->evidence), 2);
	fx_free(&d);
}
END_TEST

/* cudnnGetVersion answers for the graph library it got: 9.10 against a 9.19 file. */
START_TEST(test_mixed_versions_cudnn_answer)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/a/libcudnn.so.9.19.0"),
		    OPEN("/nonexistent/system/libcudnn_graph.so.9"),
		    VERSION("/nonexistent/a/libcudnn.so.9.19.0", "cudnnGetVersion", 91000), FX_END, NULL);
	f = must_find(&d, GT_F_MIXED_VERSIONS, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "api_version", "9.10.0"));
	fx_free(&d);

	/* the file names agree, the answer does not: the answer alone tells */
	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/a/libcudnn.so.9.19.0"),
		    OPEN("/nonexistent/a/libcudnn_graph.so.9.19.0"),
		    VERSION("/nonexistent/a/libcudnn.so.9.19.0", "cudnnGetVersion", 91000), FX_END, NULL);
	f = must_find(&d, GT_F_MIXED_VERSIONS, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "api_version", "9.10.0"));
	fx_free(&d);
}
END_TEST

START_TEST(test_mixed_versions_cublas)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/libcublas.so.13.1.0"),
		    OPEN("/nonexistent/old/libcublasLt.so.13.0.2"), FX_END, NULL);
	f = must_find(&d, GT_F_MIXED_VERSIONS, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "cublas parts of different versions in one process");
	fx_free(&d);
}
END_TEST

START_TEST(test_mixed_versions_not_for_one_release)
{
	struct fx_diag d;

	/* compared on three fields: 9.19.0.56 is 9.19.0 */
	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/a/libcudnn.so.9.19.0"),
		    OPEN("/nonexistent/a/libcudnn_graph.so.9.19.0.56"),
		    OPEN("/nonexistent/a/libcudnn_ops.so.9.19.0"),
		    VERSION("/nonexistent/a/libcudnn.so.9.19.0", "cudnnGetVersion", 91900),
		    OPEN("/nonexistent/libcublas.so.13.1.0"), OPEN("/nonexistent/libcublasLt.so.13.1.0"), FX_END, NULL);
	must_not_find(&d, GT_F_MIXED_VERSIONS);
	fx_free(&d);

	/* a bare major says nothing either way */
	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/a/libcudnn.so.9"),
		    OPEN("/nonexistent/b/libcudnn_graph.so.9.19.0"), FX_END, NULL);
	must_not_find(&d, GT_F_MIXED_VERSIONS);
	fx_free(&d);
}
END_TEST

/* ---- duplicate-library ---- */

START_TEST(test_duplicate_library)
{
	struct fx_diag d;
	const struct gt_finding *f;
	char want[8400];

	fx_touch("a/libcudart.so.13");
	fx_touch("b/libcudart.so.13");
	fx_diagnose(&d, FX_HEADER, OPEN("$TMP/a/libcudart.so.13"), OPEN("$TMP/b/libcudart.so.13"), FX_END, NULL);
	f = must_find(&d, GT_F_DUPLICATE_LIBRARY, GT_SEV_WARNING);
	snprintf(want, sizeof(want), "two copies of cudart are loaded: %s and %s", fx_path("a/libcudart.so.13"),
		 fx_path("b/libcudart.so.13"));
	ck_assert_str_eq(f->summary, want);
	ck_assert_uint_eq(json_array_size(f->evidence), 2);
	ck_assert_uint_eq(fx_count(&d, GT_F_DUPLICATE_LIBRARY), 1);
	must_not_find(&d, GT_F_CUDA_MAJOR_MISMATCH);  /* both are 13 */
	fx_free(&d);
}
END_TEST

/* One file under two names (a symbolic link) is one library. */
START_TEST(test_duplicate_library_not_for_one_file)
{
	struct fx_diag d;

	fx_touch("a/libcudart.so.13");
	fx_symlink("../a/libcudart.so.13", "c/libcudart.so.13");
	fx_diagnose(&d, FX_HEADER, OPEN("$TMP/a/libcudart.so.13"), OPEN("$TMP/c/libcudart.so.13"), FX_END, NULL);
	ck_assert_uint_eq(d.model.nlibs, 2);
	must_not_find(&d, GT_F_DUPLICATE_LIBRARY);
	fx_free(&d);
}
END_TEST

/* Two complete copies, each consistent with itself: one duplicate-library
 * (a warning while neither is in the global scope), never mixed-versions. */
#define WHEEL "/nonexistent/nvidia/cudnn/lib"
#define SYS "/nonexistent/x86_64-linux-gnu"
#define TWO_COPIES                                                                             \
	SEARCH(1, WHEEL "/libcudnn.so.9", "/usr/lib/_ctypes.so"),                              \
		OPEN_BY(WHEEL "/libcudnn.so.9", 1, WHEEL "/libcudnn.so.9", "absolute"),        \
		SEARCH(2, "libcudnn_graph.so.9", WHEEL "/libcudnn.so.9"),                      \
		OPEN_BY(WHEEL "/libcudnn_graph.so.9", 2, "libcudnn_graph.so.9", "runpath"),    \
		SEARCH(3, SYS "/libcudnn.so.9.14.0", "/usr/lib/_ctypes.so"),                   \
		OPEN_BY(SYS "/libcudnn.so.9.14.0", 3, SYS "/libcudnn.so.9.14.0", "absolute"),  \
		SEARCH(4, "libcudnn_graph.so.9.14.0", SYS "/libcudnn.so.9.14.0"),              \
		OPEN_BY(SYS "/libcudnn_graph.so.9.14.0", 4, "libcudnn_graph.so.9.14.0", "runpath"), \
		VERSION(WHEEL "/libcudnn_graph.so.9", "cudnnGetVersion", 91900),               \
		VERSION(SYS "/libcudnn.so.9.14.0", "cudnnGetVersion", 91400)

START_TEST(test_duplicate_library_two_local_copies)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, TWO_COPIES, FX_END, NULL);
	f = must_find(&d, GT_F_DUPLICATE_LIBRARY, GT_SEV_WARNING);
	ck_assert_uint_eq(fx_count(&d, GT_F_DUPLICATE_LIBRARY), 1);
	ck_assert_uint_eq(json_array_size(f->evidence), 2);
	ck_assert(fx_evidence_has(f, "scope", "local"));
	ck_assert(!fx_evidence_has(f, "scope", "global"));
	must_not_find(&d, GT_F_MIXED_VERSIONS);
	fx_free(&d);
}
END_TEST

/* A copy that the exit's global-scope lookup found binds the other's calls. */
START_TEST(test_duplicate_library_global_copy_is_an_error)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, TWO_COPIES,
		    "{'ev':'global','t_us':9,'fn':'cudnnGetVersion','lib':'" SYS "/libcudnn.so.9.14.0'}",
		    FX_END, NULL);
	f = must_find(&d, GT_F_DUPLICATE_LIBRARY, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "scope", "global"));
	assert_contains(f->fix, "global scope");
	fx_free(&d);

	/* copies in different namespaces cannot bind each other: a warning */
	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/a/libcudart.so.13"),
		    "{'ev':'open','t_us':1,'path':'/nonexistent/b/libcudart.so.13','ns':1}",
		    "{'ev':'global','t_us':9,'fn':'cudaRuntimeGetVersion','lib':'/nonexistent/a/libcudart.so.13'}",
		    FX_END, NULL);
	must_find(&d, GT_F_DUPLICATE_LIBRARY, GT_SEV_WARNING);
	fx_free(&d);
}
END_TEST

/* One copy whose graph library is another release: mixed, not duplicate. */
START_TEST(test_mixed_versions_within_one_copy_only)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, TWO_COPIES, SEARCH(5, "libcudnn_ops.so.9", WHEEL "/libcudnn.so.9"),
		    OPEN_BY("/nonexistent/old/libcudnn_ops.so.9.1.0", 5, "libcudnn_ops.so.9", "ld_library_path"),
		    FX_END, NULL);
	f = must_find(&d, GT_F_MIXED_VERSIONS, GT_SEV_ERROR);
	ck_assert_uint_eq(fx_count(&d, GT_F_MIXED_VERSIONS), 1);
	assert_contains(f->summary, "in one copy (copy 1 of 2)");
	assert_contains(f->fix, "remove /nonexistent/old from LD_LIBRARY_PATH");
	ck_assert(!fx_evidence_has(f, "path", SYS "/libcudnn.so.9.14.0"));
	fx_free(&d);
}
END_TEST

/* ---- shadowed-library ---- */

/* A framework library whose RUNPATH ($ORIGIN) holds its own cuDNN, and a
 * leftover copy elsewhere. */
static void shadow_setup(void)
{
	fx_build_lib("pkg/lib/libtorch_cuda.so", "$ORIGIN");
	fx_touch("pkg/lib/libcudnn.so.9");
	fx_touch("pkg/lib/libcudnn_graph.so.9");
	fx_touch("old/libcudnn.so.9");
	fx_touch("old/libcudnn_graph.so.9");
}

START_TEST(test_shadowed_library)
{
	struct fx_diag d;
	const struct gt_finding *f;
	char want[8400];

	shadow_setup();
	fx_diagnose(&d, FX_HEADER_ENV("'LD_LIBRARY_PATH':'$TMP/old'"),
		    OPEN("$TMP/pkg/lib/libtorch_cuda.so"),
		    SEARCH(1, "libcudnn.so.9", "$TMP/pkg/lib/libtorch_cuda.so"),
		    OPEN_BY("$TMP/old/libcudnn.so.9", 1, "libcudnn.so.9", "ld_library_path"),
		    SEARCH(2, "libcudnn_graph.so.9", "$TMP/pkg/lib/libtorch_cuda.so"),
		    OPEN_BY("$TMP/old/libcudnn_graph.so.9", 2, "libcudnn_graph.so.9", "ld_library_path"),
		    FX_END, NULL);
	f = must_find(&d, GT_F_SHADOWED_LIBRARY, GT_SEV_WARNING);
	/* "<folder> [<rule>] shadows ...": the rule's name is not asserted on here */
	snprintf(want, sizeof(want), "%s [", fx_path("old"));
	ck_assert_msg(strncmp(f->summary, want, strlen(want)) == 0, "%s", f->summary);
	snprintf(want, sizeof(want), "] shadows the copies next to %s", fx_path("pkg/lib/libtorch_cuda.so"));
	assert_contains(f->summary, want);
	/* one finding for the folder, with both libraries it took */
	ck_assert_uint_eq(fx_count(&d, GT_F_SHADOWED_LIBRARY), 1);
	ck_assert_uint_eq(json_array_size(f->evidence), 2);
	ck_assert(fx_evidence_has(f, "shadowed", fx_path("pkg/lib/libcudnn.so.9")));
	ck_assert(fx_evidence_has(f, "shadowed", fx_path("pkg/lib/libcudnn_graph.so.9")));
	assert_contains(f->fix, fx_path("old"));
	fx_free(&d);
}
END_TEST

/* The same copies from ld.so.cache (a stale system cuDNN): the fix neither
 * talks of LD_LIBRARY_PATH nor takes the system folder out of anything. */
START_TEST(test_shadowed_library_from_the_cache)
{
	struct fx_diag d;
	const struct gt_finding *f;
	char want[8400];

	shadow_setup();
	fx_diagnose(&d, FX_HEADER, OPEN("$TMP/pkg/lib/libtorch_cuda.so"),
		    SEARCH(1, "libcudnn.so.9", "$TMP/pkg/lib/libtorch_cuda.so"),
		    OPEN_BY("$TMP/old/libcudnn.so.9", 1, "libcudnn.so.9", "ld_so_cache"), FX_END, NULL);
	f = must_find(&d, GT_F_SHADOWED_LIBRARY, GT_SEV_WARNING);
	ck_assert_msg(!strstr(f->fix, "Remove"), "%s", f->fix);
	snprintf(want, sizeof(want), "The loader took these from ld.so.cache before the copies %s ships with in %s",
		 fx_path("pkg/lib/libtorch_cuda.so"), fx_path("pkg/lib"));
	assert_contains(f->fix, want);
	ck_assert_uint_eq(f->fix_data.n, 0);
	fx_free(&d);
}
END_TEST

START_TEST(test_shadowed_library_not_when_bundled_taken)
{
	struct fx_diag d;

	shadow_setup();
	fx_diagnose(&d, FX_HEADER, OPEN("$TMP/pkg/lib/libtorch_cuda.so"),
		    SEARCH(1, "libcudnn.so.9", "$TMP/pkg/lib/libtorch_cuda.so"),
		    OPEN_BY("$TMP/pkg/lib/libcudnn.so.9", 1, "libcudnn.so.9", "runpath"), FX_END, NULL);
	must_not_find(&d, GT_F_SHADOWED_LIBRARY);
	fx_free(&d);
}
END_TEST

/* From LD_LIBRARY_PATH, but the requester ships no copy: nothing shadowed. */
START_TEST(test_shadowed_library_not_without_bundled_copy)
{
	struct fx_diag d;

	shadow_setup();
	ck_assert_int_eq(remove(fx_path("pkg/lib/libcudnn.so.9")), 0);
	fx_diagnose(&d, FX_HEADER, OPEN("$TMP/pkg/lib/libtorch_cuda.so"),
		    SEARCH(1, "libcudnn.so.9", "$TMP/pkg/lib/libtorch_cuda.so"),
		    OPEN_BY("$TMP/old/libcudnn.so.9", 1, "libcudnn.so.9", "ld_library_path"), FX_END, NULL);
	must_not_find(&d, GT_F_SHADOWED_LIBRARY);
	fx_free(&d);
}
END_TEST

/* ---- shadowed-library that broke the run ---- */

/* The bundled copy is cuDNN 9.19.0, the leftover on LD_LIBRARY_PATH 9.14.0
 * (file names say so, through their links, as real installs do). */
static void shadow_versions_setup(const char *old_version)
{
	char rel[256];

	fx_build_lib("pkg/lib/libtorch_cuda.so", "$ORIGIN");
	fx_touch("pkg/lib/libcudnn.so.9.19.0");
	fx_symlink("libcudnn.so.9.19.0", "pkg/lib/libcudnn.so.9");
	snprintf(rel, sizeof(rel), "old/libcudnn.so.%s", old_version);
	fx_touch(rel);
	snprintf(rel, sizeof(rel), "libcudnn.so.%s", old_version);
	fx_symlink(rel, "old/libcudnn.so.9");
}

#define SHADOWED_RUN(create_status, create_name)                                                 \
	FX_HEADER_ENV("'LD_LIBRARY_PATH':'$TMP/old'"), OPEN("$TMP/pkg/lib/libtorch_cuda.so"),     \
		SEARCH(1, "libcudnn.so.9", "$TMP/pkg/lib/libtorch_cuda.so"),                       \
		OPEN_BY("$TMP/old/libcudnn.so.9", 1, "libcudnn.so.9", "ld_library_path"),          \
		"{'ev':'call','t_us':4,'tid':4242,'fn':'cudnnCreate','status':" #create_status ","   \
		"'status_name':'" create_name "','lib':'$TMP/old/libcudnn.so.9'}",                  \
		FX_END

/* "compiled against X but linked against Y": a leftover older copy shadows
 * the bundled one and the run fails (DESIGN.md's table; pytorch/pytorch
 * #5369, "cuDNN version mismatch: PyTorch was compiled against 6021 but
 * linked against 5110"). The shadowing is the cause. */
START_TEST(test_shadowed_library_other_release_in_failed_run_is_the_cause)
{
	struct fx_diag d;
	const struct gt_finding *f, *init;

	shadow_versions_setup("9.14.0");
	fx_diagnose(&d, SHADOWED_RUN(1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"), NULL);
	f = must_find(&d, GT_F_SHADOWED_LIBRARY, GT_SEV_ERROR);
	assert_contains(f->summary, "with another release (cudnn 9.14.0 instead of 9.19.0)");
	ck_assert(fx_evidence_has(f, "shadowed_version", "9.19.0"));
	init = must_find(&d, GT_F_INIT_FAILED, GT_SEV_ERROR);
	ck_assert(fx_caused_by(init, GT_F_SHADOWED_LIBRARY));
	fx_free(&d);
}
END_TEST

/* The same shadowing in a run that went well: a warning, as before. */
START_TEST(test_shadowed_library_other_release_in_good_run_warns)
{
	struct fx_diag d;

	shadow_versions_setup("9.14.0");
	fx_diagnose(&d, SHADOWED_RUN(0, "CUDNN_STATUS_SUCCESS"), NULL);
	must_find(&d, GT_F_SHADOWED_LIBRARY, GT_SEV_WARNING);
	fx_free(&d);
}
END_TEST

/* The same release shadowed, in a failed run: a warning, and not the cause. */
START_TEST(test_shadowed_library_same_release_is_not_the_cause)
{
	struct fx_diag d;
	const struct gt_finding *init;

	shadow_versions_setup("9.19.0");
	fx_diagnose(&d, SHADOWED_RUN(1001, "CUDNN_STATUS_NOT_INITIALIZED"), NULL);
	must_find(&d, GT_F_SHADOWED_LIBRARY, GT_SEV_WARNING);
	init = must_find(&d, GT_F_INIT_FAILED, GT_SEV_ERROR);
	ck_assert(!fx_caused_by(init, GT_F_SHADOWED_LIBRARY));
	fx_free(&d);
}
END_TEST

/* ---- framework-mismatch ---- */

#define SP "$TMP/sp/site-packages"
#define TORCH_CUDA SP "/torch/lib/libtorch_cuda.so"
#define WHEEL_CUDNN SP "/nvidia/cudnn/lib/libcudnn.so.9"
#define WHEEL_GRAPH SP "/nvidia/cudnn/lib/libcudnn_graph.so.9"
#define SYSTEM_GRAPH "$TMP/system/libcudnn_graph.so.9.14.0"

static void put_text(const char *rel, const char *text)
{
	fx_put(rel, text, strlen(text));
}

/* torch 2.11's wheel (its METADATA pins the cuDNN wheel), that cuDNN wheel
 * (files named by soname, as wheels ship them), and a system cuDNN 9.14. */
static void torch_layout(const char *pin)
{
	char meta[512];

	snprintf(meta, sizeof(meta), "Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\n"
		 "Requires-Dist: %s; platform_system == \"Linux\"\n", pin);
	put_text("sp/site-packages/torch-2.11.0.dist-info/METADATA", meta);
	put_text("sp/site-packages/torch-2.11.0.dist-info/RECORD", "torch/lib/libtorch_cuda.so,,\n");
	fx_touch("sp/site-packages/torch/lib/libtorch_cuda.so");
	put_text("sp/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA",
		 "Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n");
	put_text("sp/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD",
		 "nvidia/cudnn/lib/libcudnn.so.9,,\nnvidia/cudnn/lib/libcudnn_graph.so.9,,\n");
	fx_touch("sp/site-packages/nvidia/cudnn/lib/libcudnn.so.9");
	fx_touch("sp/site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9");
	fx_touch("system/libcudnn_graph.so.9.14.0");
}

/* torch loads the wheel's front; the front's graph library comes from `graph`. */
#define TORCH_RUN(graph, graph_rule)                                                           \
	FX_HEADER, OPEN(TORCH_CUDA), SEARCH(1, "libcudnn.so.9", TORCH_CUDA),                   \
		OPEN_BY(WHEEL_CUDNN, 1, "libcudnn.so.9", "rpath"),                              \
		SEARCH(2, "libcudnn_graph.so.9", WHEEL_CUDNN),                                 \
		OPEN_BY(graph, 2, "libcudnn_graph.so.9", graph_rule), FX_END

/* The GPU machine's failure (DESIGN.md): "PyTorch was compiled against
 * (9, 19, 0) but found runtime version (9, 14, 0)" with the system cuDNN
 * first on LD_LIBRARY_PATH; the field's form of it is pytorch/pytorch
 * #5369 and, for TensorFlow, tensorflow/tensorflow#58986 ("Loaded runtime
 * CuDNN library: 8.0.5 but source was compiled with: 8.1.0"). */
START_TEST(test_framework_mismatch_torch_pin)
{
	struct fx_diag d;
	const struct gt_finding *f;

	torch_layout("nvidia-cudnn-cu13==9.19.0.56");
	fx_diagnose(&d, TORCH_RUN(SYSTEM_GRAPH, "ld_library_path"), NULL);
	f = must_find(&d, GT_F_FRAMEWORK_MISMATCH, GT_SEV_ERROR);
	assert_contains(f->summary, "torch 2.11.0 needs cudnn ==9.19.0.56");
	assert_contains(f->summary, "cudnn_graph 9.14.0 is loaded from ");
	ck_assert(fx_evidence_has(f, "declared_by", fx_path("sp/site-packages/torch-2.11.0.dist-info/METADATA")));
	ck_assert(fx_evidence_has(f, "distribution", "nvidia-cudnn-cu13"));
	ck_assert(fx_evidence_has(f, "path", fx_path("system/libcudnn_graph.so.9.14.0")));
	/* the wheel's own parts satisfy the pin: only the system file is named */
	ck_assert(!fx_evidence_has(f, "path", fx_path("sp/site-packages/nvidia/cudnn/lib/libcudnn.so.9")));
	assert_contains(f->fix, "from LD_LIBRARY_PATH");
	fx_free(&d);
}
END_TEST

START_TEST(test_framework_mismatch_not_when_satisfied)
{
	struct fx_diag d;

	torch_layout("nvidia-cudnn-cu13==9.19.0.56");
	fx_diagnose(&d, TORCH_RUN(WHEEL_GRAPH, "runpath"), NULL);
	must_not_find(&d, GT_F_FRAMEWORK_MISMATCH);
	ck_assert_msg(d.findings.n == 0, "findings: %s", ids(&d));
	fx_free(&d);
}
END_TEST

/* A range the loaded release satisfies, and one it does not. */
START_TEST(test_framework_mismatch_ranges)
{
	struct fx_diag d;

	torch_layout("nvidia-cudnn-cu13<10,>=9.10");
	fx_diagnose(&d, TORCH_RUN(SYSTEM_GRAPH, "ld_library_path"), NULL);
	must_not_find(&d, GT_F_FRAMEWORK_MISMATCH);
	fx_free(&d);
	torch_layout("nvidia-cudnn-cu13~=9.19");
	fx_diagnose(&d, TORCH_RUN(SYSTEM_GRAPH, "ld_library_path"), NULL);
	must_find(&d, GT_F_FRAMEWORK_MISMATCH, GT_SEV_ERROR);
	fx_free(&d);
}
END_TEST

/* A cuDNN copy only another program asked for is not torch's to judge. */
START_TEST(test_framework_mismatch_not_for_a_copy_it_does_not_use)
{
	struct fx_diag d;

	torch_layout("nvidia-cudnn-cu13==9.19.0.56");
	fx_diagnose(&d, FX_HEADER, OPEN(TORCH_CUDA), SEARCH(1, "libcudnn_graph.so.9", PROG),
		    OPEN_BY(SYSTEM_GRAPH, 1, "libcudnn_graph.so.9", "ld_library_path"), FX_END, NULL);
	must_not_find(&d, GT_F_FRAMEWORK_MISMATCH);
	fx_free(&d);
}
END_TEST

/* A version too short to tell (a wheel's libcudnn_graph.so.9 with no
 * package) says nothing. */
START_TEST(test_framework_mismatch_not_when_unknown)
{
	struct fx_diag d;

	torch_layout("nvidia-cudnn-cu13==9.19.0.56");
	fx_touch("other/libcudnn_graph.so.9");
	fx_diagnose(&d, TORCH_RUN("$TMP/other/libcudnn_graph.so.9", "ld_library_path"), NULL);
	must_not_find(&d, GT_F_FRAMEWORK_MISMATCH);
	fx_free(&d);
}
END_TEST

/* A torch wheel that bundles its cuDNN lists it in its own RECORD (older
 * torch wheels ship torch/lib/libcudnn.so.8): 2.0.0 is torch's version, not
 * cuDNN's, and the front's answer (8.7.0) is no mixed-versions against it. */
START_TEST(test_mixed_versions_not_for_a_bundling_framework)
{
	struct fx_diag d;
	const struct gt_lib *front, *ops;

	put_text("sp/site-packages/torch-2.0.0.dist-info/METADATA", "Name: torch\nVersion: 2.0.0\n");
	put_text("sp/site-packages/torch-2.0.0.dist-info/RECORD",
		 "torch/lib/libtorch_cuda.so,,\ntorch/lib/libcudnn.so.8,,\ntorch/lib/libcudnn_ops_infer.so.8,,\n");
	fx_touch("sp/site-packages/torch/lib/libtorch_cuda.so");
	fx_touch("sp/site-packages/torch/lib/libcudnn.so.8");
	fx_touch("sp/site-packages/torch/lib/libcudnn_ops_infer.so.8");
	fx_diagnose(&d, FX_HEADER, OPEN(TORCH_CUDA), SEARCH(1, "libcudnn.so.8", TORCH_CUDA),
		    OPEN_BY(SP "/torch/lib/libcudnn.so.8", 1, "libcudnn.so.8", "runpath"),
		    SEARCH(2, "libcudnn_ops_infer.so.8", SP "/torch/lib/libcudnn.so.8"),
		    OPEN_BY(SP "/torch/lib/libcudnn_ops_infer.so.8", 2, "libcudnn_ops_infer.so.8", "runpath"),
		    QUERIES_BEGIN, VERSION(SP "/torch/lib/libcudnn.so.8", "cudnnGetVersion", 8700), QUERIES_END,
		    FX_END, NULL);
	must_not_find(&d, GT_F_MIXED_VERSIONS);
	ck_assert_msg(d.findings.n == 0, "findings: %s", ids(&d));
	front = gt_model_find(&d.model, "cudnn");
	ops = gt_model_find(&d.model, "cudnn_ops_infer");
	ck_assert_str_eq(front->version, "8.7.0");
	ck_assert_str_eq(front->package.name, "torch");  /* still shown as its owner */
	ck_assert_str_eq(front->package_version, "");
	ck_assert_str_eq(ops->version, "8");
	ck_assert_str_eq(ops->version_source, "file");
	fx_free(&d);
}
END_TEST

/* ---- cuda-major-mismatch ---- */

START_TEST(test_cuda_major_mismatch_two_runtimes)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/cuda-12.4/lib64/libcudart.so.12.4.127"), OPEN(CUDART),
		    FX_END, NULL);
	f = must_find(&d, GT_F_CUDA_MAJOR_MISMATCH, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "CUDA runtimes 12.4.127 and 13.0.96 are both loaded");
	ck_assert(fx_evidence_has(f, "path", CUDART));
	ck_assert_uint_eq(fx_count(&d, GT_F_CUDA_MAJOR_MISMATCH), 1);
	fx_free(&d);
}
END_TEST

/* cuDNN says which CUDA it was built for. */
START_TEST(test_cuda_major_mismatch_built_for_other)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(CUDNN), VERSION(CUDNN, "cudnnGetCudartVersion", 12080),
		    FX_END, NULL);
	f = must_find(&d, GT_F_CUDA_MAJOR_MISMATCH, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "a library was built for CUDA 12.8, the runtime loaded is 13.0.96");
	ck_assert(fx_evidence_has(f, "version", "12.8"));
	ck_assert_uint_eq(fx_count(&d, GT_F_CUDA_MAJOR_MISMATCH), 1);
	fx_free(&d);
}
END_TEST

START_TEST(test_cuda_major_mismatch_not_for_one_major)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(CUDNN), OPEN("/nonexistent/libcublas.so.13"),
		    VERSION(CUDNN, "cudnnGetCudartVersion", 13000),
		    VERSION("/nonexistent/libcublas.so.13", "cublasGetCudartVersion", 13010), FX_END, NULL);
	must_not_find(&d, GT_F_CUDA_MAJOR_MISMATCH);
	fx_free(&d);
	/* A runtime of unknown version beside a 13.0 one is no second major. */
	fx_diagnose(&d, FX_HEADER, OPEN("/nonexistent/x/libcudart.so"), OPEN(CUDART), FX_END, NULL);
	must_not_find(&d, GT_F_CUDA_MAJOR_MISMATCH);
	fx_free(&d);
}
END_TEST

/* ---- out-of-memory ---- */

START_TEST(test_out_of_memory)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART),
		    "{'ev':'alloc_fail','t_us':5,'tid':4242,'fn':'cudaMalloc','size':1073741824,'status':2,"
		    "'status_name':'cudaErrorMemoryAllocation','nth':1}",
		    "{'ev':'allocs','t_us':9,'held_bytes':4096,'peak_bytes':8589934592,'failed':1,'partial':false}",
		    FX_END, NULL);
	f = must_find(&d, GT_F_OUT_OF_MEMORY, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "cudaMalloc of 1073741824 bytes failed: out of device memory "
				     "(this process held 8589934592 bytes at its peak)");
	ck_assert(fx_evidence_has(f, "status_name", "cudaErrorMemoryAllocation"));
	fx_free(&d);
}
END_TEST

/* A failed allocation for another reason (no driver) is not lack of memory. */
START_TEST(test_out_of_memory_not_for_other_status)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART),
		    "{'ev':'alloc_fail','t_us':5,'tid':4242,'fn':'cudaMalloc','size':1048576,'status':35,"
		    "'status_name':'cudaErrorInsufficientDriver','nth':1}",
		    FX_END, NULL);
	must_not_find(&d, GT_F_OUT_OF_MEMORY);
	fx_free(&d);
}
END_TEST

/* ---- fork-after-init ---- */

/* Does any evidence item of f say text? */
static bool evidence_says(const struct gt_finding *f, const char *text)
{
	char *all = json_dumps(f->evidence, 0);
	bool yes = all && strstr(all, text) != NULL;

	free(all);
	return yes;
}

#define FORK_HEADER                                                                        \
	"{'ev':'header','format':'gputrace-trace','version':1,'source':'preload',"        \
	"'pid':4243,'start_ticks':1000,'ppid':4242,'host':'node7','fork':true,"           \
	"'parent_cuda':'cuInit','image':'00000000000000a1','t_us':1700000000000000,"      \
	"'exe':'/usr/bin/python3.11','argv':['python3','train.py'],'env':{}}"

START_TEST(test_fork_after_init)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FORK_HEADER,
		    "{'ev':'alloc_fail','t_us':3,'tid':4243,'fn':'cudaMalloc','size':64,'status':3,"
		    "'status_name':'cudaErrorInitializationError','nth':1}", NULL);
	f = must_find(&d, GT_F_FORK_AFTER_INIT, GT_SEV_ERROR);
	ck_assert(fx_evidence_has(f, "parent_call", "cuInit"));
	fx_free(&d);

	fx_diagnose(&d, FORK_HEADER, CALL("cudnnCreate", 0, "CUDNN_STATUS_SUCCESS"), NULL);
	must_find(&d, GT_F_FORK_AFTER_INIT, GT_SEV_WARNING);
	fx_free(&d);

	/* a child that never calls CUDA (a DataLoader worker) is fine */
	fx_diagnose(&d, FORK_HEADER, OPEN(CUDART), NULL);
	must_not_find(&d, GT_F_FORK_AFTER_INIT);
	fx_free(&d);

	/* ... and one that ends well with os._exit(0) too */
	fx_diagnose(&d, FORK_HEADER, OPEN(CUDART),
		    "{'ev':'end','t_us':9,'pid':4243,'via':'_exit','exit_status':0}", NULL);
	must_not_find(&d, GT_F_FORK_AFTER_INIT);
	fx_free(&d);

	/* no CUDA call seen, but the child failed (os._exit(1) after PyTorch's
	 * "Cannot re-initialize CUDA in forked subprocess"): a warning on it */
	fx_diagnose(&d, FORK_HEADER, OPEN(CUDART),
		    "{'ev':'end','t_us':9,'pid':4243,'via':'_exit','exit_status':1}", NULL);
	f = must_find(&d, GT_F_FORK_AFTER_INIT, GT_SEV_WARNING);
	ck_assert(fx_evidence_has(f, "parent_call", "cuInit"));
	/* the start method is named: a Python image forked, no exec */
	ck_assert(fx_evidence_has(f, "start_method", "fork"));
	ck_assert(evidence_says(f, "multiprocessing's 'fork' start method"));
	fx_free(&d);

	/* a C program's fork is a fork, not multiprocessing's */
	fx_diagnose(&d,
		    "{'ev':'header','format':'gputrace-trace','version':1,'source':'preload',"
		    "'pid':4243,'start_ticks':1000,'ppid':4242,'host':'node7','fork':true,"
		    "'parent_cuda':'cuInit','image':'00000000000000a1','t_us':1700000000000000,"
		    "'exe':'/opt/app/bin/server','argv':['server'],'env':{}}",
		    CALL("cudnnCreate", 0, "CUDNN_STATUS_SUCCESS"), NULL);
	f = must_find(&d, GT_F_FORK_AFTER_INIT, GT_SEV_WARNING);
	ck_assert(fx_evidence_has(f, "start_method", "fork"));
	ck_assert(!evidence_says(f, "multiprocessing"));
	fx_free(&d);
}
END_TEST

/* ---- crashed ---- */

/* Ctrl-C, a launcher's SIGTERM, a closed terminal: stopped, not crashed. */
START_TEST(test_crashed_not_when_stopped)
{
	struct fx_diag d;
	int sigs[] = { 2, 15, 1 };
	size_t i;

	for (i = 0; i < 3; i++) {
		char reaped[128];

		snprintf(reaped, sizeof(reaped), "{'ev':'reaped','pid':4242,'signal':%d}", sigs[i]);
		fx_diagnose(&d, FX_HEADER, OPEN(CUDART), reaped, NULL);
		must_not_find(&d, GT_F_CRASHED);
		ck_assert(d.model.stopped);
		ck_assert(gt_model_failed(&d.model));
		fx_free(&d);
	}
}
END_TEST

/* gputrace's own library is in every traced process: never a suspect. */
START_TEST(test_crashed_never_names_gputrace)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN("/usr/lib/gputrace/libgputrace.so"), OPEN("/lib/x86_64-linux-gnu/libm.so.6"),
		    "{'ev':'reaped','pid':4242,'signal':11}", NULL);
	f = must_find(&d, GT_F_CRASHED, GT_SEV_ERROR);
	ck_assert(!fx_evidence_has(f, "path", "/usr/lib/gputrace/libgputrace.so"));
	ck_assert(fx_evidence_has(f, "path", "/lib/x86_64-linux-gnu/libm.so.6"));
	fx_free(&d);
}
END_TEST

START_TEST(test_crashed_by_signal)
{
	struct fx_diag d;
	const struct gt_finding *f;
	json_t *e;

	fx_diagnose(&d, FX_HEADER, OPEN("/lib/x86_64-linux-gnu/libm.so.6"), OPEN(CUDART), OPEN(CUDNN),
		    "{'ev':'note','t_us':8,'tid':4242,'what':'fatal_signal','signal':11}", NULL);
	f = must_find(&d, GT_F_CRASHED, GT_SEV_ERROR);
	assert_contains(f->summary, "the process was killed by signal 11 (");
	e = json_array_get(f->evidence, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "signal")), 11);
	/* the CUDA libraries loaded last, newest first; libm is no suspect */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(f->evidence, 1), "path")), CUDNN);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(f->evidence, 2), "path")), CUDART);
	ck_assert(!fx_evidence_has(f, "path", "/lib/x86_64-linux-gnu/libm.so.6"));
	fx_free(&d);

	/* the launcher saw the signal */
	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), "{'ev':'reaped','pid':4242,'signal':9}", NULL);
	f = must_find(&d, GT_F_CRASHED, GT_SEV_ERROR);
	assert_contains(f->summary, "signal 9");
	fx_free(&d);
}
END_TEST

START_TEST(test_crashed_no_end)
{
	struct fx_diag d;
	const struct gt_finding *f;

	/* No end line, nobody saw a signal: not known, said as info, never a
	 * crash (dash, SIGPIPE, an exec that dropped the tracer end so). */
	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), NULL);
	f = must_find(&d, GT_F_END_UNKNOWN, GT_SEV_INFO);
	ck_assert_ptr_nonnull(strstr(f->summary, "left no end line"));
	must_not_find(&d, GT_F_CRASHED);
	fx_free(&d);
}
END_TEST

/* A fork child that exec'd is expected to have an end line: without one,
 * its end is not known (info). */
START_TEST(test_crashed_fork_child_after_exec)
{
	struct fx_diag d;

	fx_diagnose(&d,
		    "{'ev':'header','format':'gputrace-trace','version':1,'source':'preload','pid':4243,"
		    "'ppid':4242,'host':'node7','image':'00000000000000a1','exe':'/usr/bin/python3.11',"
		    "'argv':['python3'],'fork':true,'env':{}}",
		    "{'ev':'header','format':'gputrace-trace','version':1,'source':'preload','pid':4243,"
		    "'ppid':4242,'host':'node7','image':'00000000000000b2','exe':'" PROG "',"
		    "'argv':['prog'],'env':{}}",
		    OPEN(CUDART), NULL);
	ck_assert(d.proc.forked);
	ck_assert_int_eq(d.proc.images, 2);
	must_find(&d, GT_F_END_UNKNOWN, GT_SEV_INFO);
	must_not_find(&d, GT_F_CRASHED);
	fx_free(&d);
}
END_TEST

START_TEST(test_crashed_not_after_exit)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), FX_END, NULL);
	must_not_find(&d, GT_F_CRASHED);
	fx_free(&d);

	/* SIGPIPE: the reader went away (`yes | head -n 1`), a normal end */
	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), "{'ev':'reaped','pid':4242,'signal':13}", NULL);
	must_not_find(&d, GT_F_CRASHED);
	must_not_find(&d, GT_F_END_UNKNOWN);
	ck_assert(!gt_model_failed(&d.model));
	fx_free(&d);

	/* _exit(3) seen by the preload half's hook: an exit with its status */
	fx_diagnose(&d, FX_HEADER, OPEN(CUDART),
		    "{'ev':'end','t_us':1700000000900000,'pid':4242,'via':'_exit','exit_status':3}", NULL);
	must_not_find(&d, GT_F_CRASHED);
	must_not_find(&d, GT_F_END_UNKNOWN);
	ck_assert_str_eq(d.model.ended_how, "exit");
	ck_assert_int_eq(d.model.ended_status, 3);
	fx_free(&d);

	/* _exit(7): no end line, but the launcher saw an exit */
	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), "{'ev':'reaped','pid':4242,'exit_status':7}", NULL);
	must_not_find(&d, GT_F_CRASHED);
	fx_free(&d);
}
END_TEST

/* A worker of Python's multiprocessing leaves with _exit: no end line expected. */
START_TEST(test_crashed_not_for_fork_child)
{
	struct fx_diag d;

	fx_diagnose(&d,
		    "{'ev':'header','format':'gputrace-trace','version':1,'source':'preload','pid':4243,"
		    "'ppid':4242,'host':'node7','image':'00000000000000a1','exe':'/usr/bin/python3.11',"
		    "'argv':['python3'],'fork':true,'env':{}}",
		    OPEN(CUDART), NULL);
	ck_assert(d.proc.forked);
	must_not_find(&d, GT_F_CRASHED);
	fx_free(&d);
}
END_TEST

/* ---- init-failed ---- */

START_TEST(test_init_failed_with_cause)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(CUDART), OPEN(CUDNN), SEARCH(11, "libcuda.so.1", CUDART),
		    NOT_FOUND(11, "libcuda.so.1", TRY("/usr/lib/libcuda.so.1", "default")),
		    "{'ev':'call','t_us':4,'tid':4242,'fn':'cudnnCreate','status':1001,"
		    "'status_name':'CUDNN_STATUS_NOT_INITIALIZED',"
		    "'reason':'cudaGetDeviceCount(&count) != cudaSuccess','lib':'" CUDNN "'}",
		    FX_END, NULL);
	f = must_find(&d, GT_F_INIT_FAILED, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "cudnnCreate returned 1001 CUDNN_STATUS_NOT_INITIALIZED "
				     "(\"cudaGetDeviceCount(&count) != cudaSuccess\")");
	ck_assert(fx_caused_by(f, GT_F_DRIVER_MISSING));
	ck_assert_int_eq(f->ncaused, 1);
	ck_assert(fx_evidence_has(f, "path", CUDNN));
	assert_contains(f->fix, "caused by");
	fx_free(&d);
}
END_TEST

/* No cause in the trace: the fix says where to look; a reason that is the
 * status name again is not repeated. Each failed creator has its finding. */
START_TEST(test_init_failed_without_cause)
{
	struct fx_diag d;
	const struct gt_finding *f;

	fx_diagnose(&d, FX_HEADER, OPEN(DRIVER), OPEN(CUDNN),
		    "{'ev':'call','t_us':4,'tid':4242,'fn':'cudnnCreate','status':4000,"
		    "'status_name':'CUDNN_STATUS_INTERNAL_ERROR','reason':'CUDNN_STATUS_INTERNAL_ERROR'}",
		    CALL("cuInit", 999, "CUDA_ERROR_UNKNOWN"), FX_END, NULL);
	f = must_find(&d, GT_F_INIT_FAILED, GT_SEV_ERROR);
	ck_assert_str_eq(f->summary, "cudnnCreate returned 4000 CUDNN_STATUS_INTERNAL_ERROR");
	ck_assert_int_eq(f->ncaused, 0);
	assert_contains(f->fix, "No cause was found in the trace");
	ck_assert_uint_eq(fx_count(&d, GT_F_INIT_FAILED), 2);
	fx_free(&d);
}
END_TEST

START_TEST(test_init_failed_not_on_success)
{
	struct fx_diag d;

	fx_diagnose(&d, FX_HEADER, OPEN(DRIVER), OPEN(CUDNN), CALL("cudnnCreate", 0, "CUDNN_STATUS_SUCCESS"),
		    CALL("cuInit", 0, "CUDA_SUCCESS"), CALL("cublasCreate_v2", 0, "CUBLAS_STATUS_SUCCESS"), FX_END, NULL);
	must_not_find(&d, GT_F_INIT_FAILED);
	fx_free(&d);
}
END_TEST

Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	struct {
		const char *name;
		const TTest *tests[16];
	} cases[] = {
		{ "finding_table", { test_finding_table } },
		{ "healthy", { test_healthy_process_has_no_finding } },
		{ "driver_missing", { test_driver_missing_from_search, test_driver_missing_from_status_35,
				      test_driver_missing_not_when_loaded, test_driver_missing_not_for_our_search } },
		{ "driver_stub", { test_driver_stub_by_path, test_driver_stub_by_status_34,
				   test_driver_stub_not_for_real_driver } },
		{ "driver_too_old", { test_driver_too_old_by_versions, test_driver_too_old_by_runtime_answer,
				      test_driver_too_old_by_status_35, test_driver_too_old_not_when_new_enough } },
		{ "no_device", { test_no_device, test_no_device_visible_devices, test_no_device_not_with_devices } },
		{ "cpu_only_build", { test_cpu_only_build, test_cpu_only_build_not_with_cuda_runtime,
				      test_cpu_only_build_not_without_framework } },
		{ "library_not_found", { test_searched_places_fold_hwcaps, test_library_not_found_with_copy,
					 test_library_not_found_without_copy,
					 test_library_not_found_renamed_copy,
					 test_library_not_found_renamed_copy_not_for_others,
					 test_library_not_found_other_minor,
					 test_library_not_found_alt_variant,
					 test_library_not_found_once_per_name,
					 test_library_not_found_not_when_a_version_loaded,
					 test_library_not_found_not_for_driver_ours_or_others,
					 test_library_not_found_nccl_default_net_plugin,
					 test_library_not_found_nccl_chosen_net_plugin,
					 test_library_not_found_nccl_net_plugin_loaded,
					 test_library_not_found_cuda_home_list } },
		{ "mixed_versions", { test_mixed_versions_cudnn_files, test_mixed_versions_cudnn_answer,
				      test_mixed_versions_cublas, test_mixed_versions_not_for_one_release } },
		{ "duplicate_library", { test_duplicate_library, test_duplicate_library_not_for_one_file,
					 test_duplicate_library_two_local_copies,
					 test_duplicate_library_global_copy_is_an_error,
					 test_mixed_versions_within_one_copy_only } },
		{ "fork_after_init", { test_fork_after_init } },
		{ "shadowed_library", { test_shadowed_library, test_shadowed_library_from_the_cache,
					test_shadowed_library_not_when_bundled_taken,
					test_shadowed_library_not_without_bundled_copy,
					test_shadowed_library_other_release_in_failed_run_is_the_cause,
					test_shadowed_library_other_release_in_good_run_warns,
					test_shadowed_library_same_release_is_not_the_cause } },
		{ "framework_mismatch", { test_framework_mismatch_torch_pin, test_framework_mismatch_not_when_satisfied,
					  test_framework_mismatch_ranges,
					  test_framework_mismatch_not_for_a_copy_it_does_not_use,
					  test_framework_mismatch_not_when_unknown,
					  test_mixed_versions_not_for_a_bundling_framework } },
		{ "cuda_major_mismatch", { test_cuda_major_mismatch_two_runtimes, test_cuda_major_mismatch_built_for_other,
					   test_cuda_major_mismatch_not_for_one_major } },
		{ "out_of_memory", { test_out_of_memory, test_out_of_memory_not_for_other_status } },
		{ "crashed", { test_crashed_by_signal, test_crashed_no_end, test_crashed_fork_child_after_exec,
			       test_crashed_not_after_exit, test_crashed_not_for_fork_child,
			       test_crashed_not_when_stopped, test_crashed_never_names_gputrace } },
		{ "init_failed", { test_init_failed_with_cause, test_init_failed_without_cause,
				   test_init_failed_not_on_success } },
	};
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);

		fx_add_fixtures(tc);
		/* the shadowed-library cases run cc */
		tcase_set_timeout(tc, 30);
		for (k = 0; k < sizeof(cases[i].tests) / sizeof(cases[i].tests[0]) && cases[i].tests[k]; k++)
			tcase_add_test(tc, cases[i].tests[k]);
		suite_add_tcase(s, tc);
	}
	return s;
}
