/* Unit tests: the process model (read/model.c) built from hand-written
 * traces: which objects are CUDA libraries, their component and family, and
 * their version from the library's own answer or the real file's name. Paths
 * under /nonexistent have no file on disk, as in a trace read on another host. */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/model.h"
#include "tests/unit/trace_fixture.h"
#include "tests/unit/unit.h"

#define CUDART "/nonexistent/lib/libcudart.so.13.0.96"
#define CUDNN "/nonexistent/libcudnn.so.9"
#define OPEN(path) "{'ev':'open','t_us':1,'path':'" path "','ns':0}"
#define VERSION(lib, fn, value) \
	"{'ev':'version','t_us':2,'lib':'" lib "','fn':'" fn "','status':0,'value':" #value "}"

/* The only library of the model, which must have one. */
static const struct gt_lib *only_lib(const struct fx_diag *d)
{
	ck_assert_uint_eq(d->model.nlibs, 1);
	return &d->model.libs[0];
}

/* ---- which objects are libraries ---- */

START_TEST(test_cudart_from_file_name)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER,
		 "{'ev':'open','t_us':1,'path':'/usr/bin/prog','ns':0,'main':true}",
		 OPEN("/lib/x86_64-linux-gnu/libm.so.6"), OPEN(CUDART), FX_END, NULL);
	ck_assert_ptr_eq(d.model.proc, &d.proc);
	l = only_lib(&d);
	ck_assert_ptr_eq(l->obj, &d.proc.objects[2]);
	ck_assert_str_eq(l->fi.family, "cudart");
	ck_assert_str_eq(l->fi.component, "cudart");
	ck_assert_str_eq(l->fi.version, "13.0.96");
	/* a file that is gone has no real path (glibc's realpath would leave
	 * "/nonexistent" in the buffer) */
	ck_assert_str_eq(l->real_path, "");
	ck_assert_str_eq(l->file_version, "13.0.96");
	ck_assert_str_eq(l->api_version, "");
	ck_assert_str_eq(l->version, "13.0.96");
	ck_assert_str_eq(l->version_source, "file");
	ck_assert(!l->has_package);
	ck_assert_str_eq(l->package_version, "");
	fx_free(&d);
}
END_TEST

START_TEST(test_cudart_from_api)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER, OPEN(CUDART), VERSION(CUDART, "cudaRuntimeGetVersion", 13000), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->api_version, "13.0");
	ck_assert_str_eq(l->file_version, "13.0.96");
	ck_assert_str_eq(l->version, "13.0");
	ck_assert_str_eq(l->version_source, "api");
	fx_free(&d);
}
END_TEST

/* An answer counts only for the file that gave it, and only when it succeeded. */
START_TEST(test_api_answer_of_other_file_or_failed)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER, OPEN(CUDART),
		 VERSION("/nonexistent/other/libcudart.so.12", "cudaRuntimeGetVersion", 12040),
		 "{'ev':'version','t_us':2,'lib':'" CUDART "','fn':'cudaRuntimeGetVersion','status':3,'value':11000}",
		 NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->api_version, "");
	ck_assert_str_eq(l->version, "13.0.96");
	ck_assert_str_eq(l->version_source, "file");
	fx_free(&d);
}
END_TEST

/* cuDNN 9's front forwards cudnnGetVersion to its graph library: with no
 * graph library in the trace, the answer belongs to no object shown. */
START_TEST(test_cudnn_version_answered)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER, OPEN(CUDNN), VERSION(CUDNN, "cudnnGetVersion", 91900), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->fi.family, "cudnn");
	ck_assert_str_eq(l->fi.component, "cudnn");
	ck_assert_str_eq(l->file_version, "9");
	ck_assert_str_eq(l->api_version, "");
	ck_assert_ptr_null(l->api_from);
	ck_assert_str_eq(l->version, "9");
	ck_assert_str_eq(l->version_source, "file");
	fx_free(&d);
}
END_TEST

/* cuDNN 8's front answers for itself. */
START_TEST(test_cudnn8_version_answered)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER, OPEN("/nonexistent/libcudnn.so.8"),
		 VERSION("/nonexistent/libcudnn.so.8", "cudnnGetVersion", 8907), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->api_version, "8.9.7");
	ck_assert_str_eq(l->api_from, "/nonexistent/libcudnn.so.8");
	ck_assert_str_eq(l->version, "8.9.7");
	ck_assert_str_eq(l->version_source, "api");
	fx_free(&d);
}
END_TEST

/* No answer, a bare major in the name: the major is all there is. */
START_TEST(test_cudnn_bare_major)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER, OPEN(CUDNN), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->api_version, "");
	ck_assert_str_eq(l->file_version, "9");
	ck_assert_str_eq(l->version, "9");
	ck_assert_str_eq(l->version_source, "file");
	fx_free(&d);
}
END_TEST

/* No version anywhere. */
START_TEST(test_no_version)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER, OPEN("/nonexistent/libcudart.so"), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->version, "");
	ck_assert_str_eq(l->version_source, "none");
	fx_free(&d);
}
END_TEST

/* cudnnGetVersion answers for the graph library cuDNN 9 loaded. */
START_TEST(test_cudnn_graph_takes_cudnn_answer)
{
	struct fx_diag d;
	const struct gt_lib *main_lib, *graph;

	fx_build(&d, FX_HEADER, OPEN(CUDNN), OPEN("/nonexistent/libcudnn_graph.so.9"),
		 VERSION(CUDNN, "cudnnGetVersion", 91900), NULL);
	ck_assert_uint_eq(d.model.nlibs, 2);
	main_lib = gt_model_find(&d.model, "cudnn");
	graph = gt_model_find(&d.model, "cudnn_graph");
	ck_assert_ptr_nonnull(main_lib);
	ck_assert_ptr_nonnull(graph);
	ck_assert_ptr_ne(main_lib, graph);
	ck_assert_str_eq(graph->fi.family, "cudnn");
	ck_assert_str_eq(graph->api_version, "9.19.0");
	ck_assert_str_eq(graph->version_source, "api");
	ck_assert_str_eq(graph->api_from, CUDNN);  /* through the front */
	ck_assert_str_eq(main_lib->api_version, "");
	ck_assert_uint_eq(d.model.ncopies, 1);
	fx_free(&d);
}
END_TEST

/* Two complete cuDNN installs in one process (torch's wheel, and a second
 * framework's system cuDNN loaded RTLD_LOCAL): two copies, and each answer
 * stays with the object that gave it or the graph library its own front
 * resolved, never "the" graph library of the process (issue 13: the wheel's
 * graph library was shown as 9.14.0). */
#define WHEEL "/nonexistent/site-packages/nvidia/cudnn/lib"
#define SYS "/nonexistent/lib/x86_64-linux-gnu"
#define SEARCH(seq, name, requester) \
	"{'ev':'search','t_us':1,'tid':1,'seq':" #seq ",'name':'" name "','requester':'" requester "'}"
#define OPEN_FOR(path, seq, name, rule) \
	"{'ev':'open','t_us':2,'path':'" path "','ns':0,'search':" #seq ",'name':'" name "','rule':'" rule "'}"
START_TEST(test_two_copies_keep_their_answers)
{
	struct fx_diag d;
	const struct gt_lib *l;
	size_t i;

	fx_build(&d, FX_HEADER, SEARCH(1, WHEEL "/libcudnn.so.9", "/usr/lib/_ctypes.so"),
		 OPEN_FOR(WHEEL "/libcudnn.so.9", 1, WHEEL "/libcudnn.so.9", "absolute"),
		 SEARCH(2, "libcudnn_graph.so.9", WHEEL "/libcudnn.so.9"),
		 OPEN_FOR(WHEEL "/libcudnn_graph.so.9", 2, "libcudnn_graph.so.9", "runpath"),
		 SEARCH(3, SYS "/libcudnn.so.9.14.0", "/usr/lib/_ctypes.so"),
		 OPEN_FOR(SYS "/libcudnn.so.9.14.0", 3, SYS "/libcudnn.so.9.14.0", "absolute"),
		 SEARCH(4, "libcudnn_graph.so.9.14.0", SYS "/libcudnn.so.9.14.0"),
		 OPEN_FOR(SYS "/libcudnn_graph.so.9.14.0", 4, "libcudnn_graph.so.9.14.0", "runpath"),
		 VERSION(WHEEL "/libcudnn_graph.so.9", "cudnnGetVersion", 91900),
		 VERSION(SYS "/libcudnn.so.9.14.0", "cudnnGetVersion", 91400), FX_END, NULL);
	ck_assert_uint_eq(d.model.nlibs, 4);
	ck_assert_uint_eq(d.model.ncopies, 2);
	ck_assert_uint_eq(gt_model_copies_of(&d.model, "cudnn"), 2);
	for (i = 0; i < d.model.nlibs; i++) {
		l = &d.model.libs[i];
		ck_assert_uint_eq(l->copy, strncmp(l->obj->path, WHEEL, strlen(WHEEL)) == 0 ? 0 : 1);
		ck_assert(!l->disagree);
	}
	ck_assert_str_eq(d.model.libs[1].api_version, "9.19.0");
	ck_assert_str_eq(d.model.libs[1].api_from, WHEEL "/libcudnn_graph.so.9");
	ck_assert_str_eq(d.model.libs[3].api_version, "9.14.0");
	ck_assert_str_eq(d.model.libs[3].api_from, SYS "/libcudnn.so.9.14.0");
	ck_assert_str_eq(d.model.libs[0].api_version, "");
	ck_assert_str_eq(d.model.libs[2].api_version, "");
	ck_assert_str_eq(d.model.copies[1].users, "_ctypes.so");
	ck_assert(!d.model.copies[0].global && !d.model.copies[1].global);
	fx_free(&d);
}
END_TEST

/* A damaged trace whose requester path ends in '/' has no name to list
 * among the copy's users: it is left out, and the search for the name does
 * not walk past the end of the list (fuzz_report found that walk: strstr of
 * "" matches everywhere, even at the terminating NUL). */
START_TEST(test_nameless_requester_not_a_user)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER, SEARCH(1, WHEEL "/libcudnn.so.9", "/usr/lib/_ctypes.so"),
		 OPEN_FOR(WHEEL "/libcudnn.so.9", 1, WHEEL "/libcudnn.so.9", "absolute"),
		 SEARCH(2, WHEEL "/libcudnn.so.9", "/usr/lib/"),
		 "{'ev':'search_end','t_us':3,'search':2,'name':'" WHEEL "/libcudnn.so.9','result':'already_loaded',"
		 "'path':'" WHEEL "/libcudnn.so.9'}",
		 FX_END, NULL);
	ck_assert_uint_eq(d.model.ncopies, 1);
	ck_assert_str_eq(d.model.copies[0].users, "_ctypes.so");
	fx_free(&d);
}
END_TEST

/* A 9.19 front that got its graph library from another folder: one copy
 * (the front loaded it), the front's answer goes to that graph library, and
 * the answer and the file name disagree when the file says 9.19. */
START_TEST(test_front_with_foreign_graph_is_one_copy)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER, OPEN(WHEEL "/libcudnn.so.9"),
		 SEARCH(2, "libcudnn_graph.so.9", WHEEL "/libcudnn.so.9"),
		 OPEN_FOR(SYS "/libcudnn_graph.so.9.19.0", 2, "libcudnn_graph.so.9", "ld_library_path"),
		 VERSION(WHEEL "/libcudnn.so.9", "cudnnGetVersion", 91400), FX_END, NULL);
	ck_assert_uint_eq(d.model.ncopies, 1);
	ck_assert_str_eq(d.model.libs[1].api_version, "9.14.0");
	ck_assert_str_eq(d.model.libs[1].file_version, "9.19.0");
	ck_assert(d.model.libs[1].disagree);
	fx_free(&d);
}
END_TEST

/* whisper-diarization#343: a system cuDNN 9.14 is loaded first; the wheel's
 * 9.19 front then asks for its graph library by its longer names in vain,
 * and its last name, libcudnn_graph.so.9, matches the system one's SONAME
 * with no search: the front's copy borrows that graph library. */
START_TEST(test_front_borrows_a_graph_library_by_soname)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER, OPEN(SYS "/libcudnn.so.9.14.0"),
		 "{'ev':'open','t_us':1,'path':'" SYS "/libcudnn_graph.so.9.14.0','soname':'libcudnn_graph.so.9','ns':0}",
		 OPEN(WHEEL "/libcudnn.so.9"),
		 SEARCH(7, "libcudnn_graph.so.9.19.0", WHEEL "/libcudnn.so.9"),
		 "{'ev':'search_end','t_us':3,'search':7,'name':'libcudnn_graph.so.9.19.0','result':'not_found'}",
		 FX_END, NULL);
	ck_assert_uint_eq(d.model.ncopies, 2);
	ck_assert_ptr_null(d.model.copies[0].borrowed);
	ck_assert_ptr_eq(d.model.copies[1].borrowed, &d.model.libs[1]);
	fx_free(&d);

	/* a front that found its own graph library borrows nothing */
	fx_build(&d, FX_HEADER, OPEN(SYS "/libcudnn.so.9.14.0"),
		 "{'ev':'open','t_us':1,'path':'" SYS "/libcudnn_graph.so.9.14.0','soname':'libcudnn_graph.so.9','ns':0}",
		 OPEN(WHEEL "/libcudnn.so.9"), SEARCH(7, "libcudnn_graph.so.9", WHEEL "/libcudnn.so.9"),
		 OPEN_FOR(WHEEL "/libcudnn_graph.so.9", 7, "libcudnn_graph.so.9", "runpath"), FX_END, NULL);
	ck_assert_ptr_null(d.model.copies[1].borrowed);
	fx_free(&d);
}
END_TEST

/* A library named in LD_PRELOAD is found by "preload", whatever path rule
 * the loader used, and its copy is in the global scope. */
START_TEST(test_preloaded_copy_is_global)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER_ENV("'LD_PRELOAD':'/x/libgputrace.so " SYS "/libcudnn.so.9.14.0'"),
		 SEARCH(1, SYS "/libcudnn.so.9.14.0", "/usr/bin/python3.11"),
		 OPEN_FOR(SYS "/libcudnn.so.9.14.0", 1, SYS "/libcudnn.so.9.14.0", "absolute"),
		 SEARCH(2, "libcudnn.so.9", "/nonexistent/libtorch_cuda.so"),
		 OPEN_FOR(WHEEL "/libcudnn.so.9", 2, "libcudnn.so.9", "rpath"), FX_END, NULL);
	ck_assert_uint_eq(d.model.ncopies, 2);
	ck_assert_int_eq(d.model.libs[0].found_by, GT_RULE_PRELOAD);
	ck_assert_int_ne(d.model.libs[1].found_by, GT_RULE_PRELOAD);
	ck_assert(d.model.copies[0].global);
	ck_assert(!d.model.copies[1].global);
	ck_assert_str_eq(d.model.copies[1].users, "libtorch_cuda.so");
	fx_free(&d);
}
END_TEST

/* A search for an empty name by the program itself, with LD_PRELOAD set
 * (a damaged or hand-made trace): not a preload, and no hang (strstr finds
 * "" everywhere; fuzz_report found the report stuck there, stop 45). */
START_TEST(test_empty_name_is_not_preloaded)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER_ENV("'LD_PRELOAD':'/x/libgputrace.so'"),
		 SEARCH(1, "", "/usr/bin/python3.11"),
		 OPEN_FOR(SYS "/libcudnn.so.9.14.0", 1, "", "ld_so_cache"), FX_END, NULL);
	ck_assert_uint_eq(d.model.nlibs, 1);
	ck_assert_int_ne(d.model.libs[0].found_by, GT_RULE_PRELOAD);
	fx_free(&d);
}
END_TEST

/* The driver's file name carries the driver version; its answer is the CUDA
 * version it supports, used only when the name says no more than a major. */
START_TEST(test_driver_versions)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER, OPEN("/nonexistent/libcuda.so.580.95.05"),
		 VERSION("/nonexistent/libcuda.so.580.95.05", "cuDriverGetVersion", 13000), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->fi.family, "driver");
	ck_assert_str_eq(l->fi.component, "cuda");
	ck_assert_str_eq(l->api_version, "13.0");
	ck_assert_str_eq(l->file_version, "580.95.05");
	ck_assert_str_eq(l->version, "580.95.05");
	ck_assert_str_eq(l->version_source, "file");
	fx_free(&d);

	fx_build(&d, FX_HEADER, OPEN("/nonexistent/libcuda.so.1"),
		 VERSION("/nonexistent/libcuda.so.1", "cuDriverGetVersion", 12040), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->file_version, "1");
	ck_assert_str_eq(l->version, "12.4");
	ck_assert_str_eq(l->version_source, "api");
	fx_free(&d);
}
END_TEST

START_TEST(test_cublas_properties)
{
	struct fx_diag d;
	const struct gt_lib *l;

#define PROP(n, v)                                                                        \
	"{'ev':'version','t_us':2,'lib':'/nonexistent/libcublas.so.13','fn':'cublasGetProperty'," \
	"'property':" #n ",'status':0,'value':" #v "}"
	fx_build(&d, FX_HEADER, OPEN("/nonexistent/libcublas.so.13"), PROP(0, 13), PROP(1, 1), PROP(2, 0), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->fi.family, "cublas");
	ck_assert_str_eq(l->api_version, "13.1.0");
	ck_assert_str_eq(l->version, "13.1.0");
	ck_assert_str_eq(l->version_source, "api");
	fx_free(&d);

	/* without the patch level, no answer */
	fx_build(&d, FX_HEADER, OPEN("/nonexistent/libcublas.so.13"), PROP(0, 13), PROP(1, 1), NULL);
	l = only_lib(&d);
	ck_assert_str_eq(l->api_version, "");
	ck_assert_str_eq(l->version, "13");
	fx_free(&d);
#undef PROP
}
END_TEST

START_TEST(test_cublaslt_and_nccl)
{
	struct fx_diag d;
	const struct gt_lib *lt, *nccl;

	fx_build(&d, FX_HEADER, OPEN("/nonexistent/libcublasLt.so.13"), OPEN("/nonexistent/libnccl.so.2"),
		 VERSION("/nonexistent/libcublasLt.so.13", "cublasLtGetVersion", 130100),
		 VERSION("/nonexistent/libnccl.so.2", "ncclGetVersion", 22703), NULL);
	lt = gt_model_find(&d.model, "cublasLt");
	nccl = gt_model_find(&d.model, "nccl");
	ck_assert_ptr_nonnull(lt);
	ck_assert_ptr_nonnull(nccl);
	ck_assert_str_eq(lt->fi.family, "cublas");
	ck_assert_str_eq(lt->version, "13.1.0");
	ck_assert_str_eq(nccl->fi.family, "nccl");
	ck_assert_str_eq(nccl->version, "2.27.3");
	ck_assert_str_eq(nccl->version_source, "api");
	fx_free(&d);
}
END_TEST

/* The version of the real file, through the symbolic link the loader named. */
START_TEST(test_real_file_name)
{
	struct fx_diag d;
	const struct gt_lib *l;
	char want[PATH_MAX];

	fx_touch("cuda/lib64/libcudart.so.13.0.96");
	fx_symlink("libcudart.so.13.0.96", "cuda/lib64/libcudart.so.13");
	fx_build(&d, FX_HEADER, OPEN("$TMP/cuda/lib64/libcudart.so.13"), NULL);
	l = only_lib(&d);
	ck_assert_ptr_nonnull(realpath(fx_path("cuda/lib64/libcudart.so.13.0.96"), want));
	ck_assert_str_eq(l->real_path, want);
	ck_assert_str_eq(l->fi.version, "13");         /* the name the loader used */
	ck_assert_str_eq(l->file_version, "13.0.96");  /* the file's own name */
	ck_assert_str_eq(l->version, "13.0.96");
	ck_assert_str_eq(l->version_source, "file");
	fx_free(&d);
}
END_TEST

/* Closed objects are not libraries of the process; an open with no path is
 * not even an object (the reader skips it: nothing downstream guesses). */
START_TEST(test_closed_and_pathless_skipped)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER, OPEN(CUDNN),
		 "{'ev':'close','t_us':2,'tid':4242,'path':'" CUDNN "'}",
		 "{'ev':'open','t_us':3,'ns':0}", NULL);
	ck_assert_uint_eq(d.proc.nobjects, 1);
	ck_assert(d.proc.objects[0].closed);
	ck_assert_uint_eq(d.model.nlibs, 0);
	ck_assert_ptr_null(gt_model_find(&d.model, "cudnn"));
	fx_free(&d);
}
END_TEST

START_TEST(test_find_first_of_component)
{
	struct fx_diag d;
	const struct gt_lib *l;

	fx_build(&d, FX_HEADER, OPEN("/nonexistent/a/libcudart.so.12"), OPEN(CUDART),
		 OPEN("/nonexistent/libcudadevrt.so"), NULL);
	ck_assert_uint_eq(d.model.nlibs, 3);
	l = gt_model_find(&d.model, "cudart");
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l->obj->path, "/nonexistent/a/libcudart.so.12");
	l = gt_model_find(&d.model, "cudadevrt");
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l->fi.family, "cudart");
	ck_assert_ptr_null(gt_model_find(&d.model, "cuda"));
	ck_assert_ptr_null(gt_model_find(&d.model, "cudar"));
	fx_free(&d);
}
END_TEST

/* ---- how the process ended ---- */

START_TEST(test_ended_exit)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER, FX_END, NULL);
	ck_assert_str_eq(d.model.ended_how, "exit");
	ck_assert_int_eq(d.model.ended_status, -1);  /* not known without the launcher */
	ck_assert_int_eq(d.model.ended_signal, 0);
	fx_free(&d);

	fx_build(&d, FX_HEADER, "{'ev':'reaped','pid':4242,'exit_status':3}", NULL);
	ck_assert_str_eq(d.model.ended_how, "exit");
	ck_assert_int_eq(d.model.ended_status, 3);
	fx_free(&d);
}
END_TEST

START_TEST(test_ended_signal)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER, "{'ev':'note','t_us':1,'tid':4242,'what':'fatal_signal','signal':11}", NULL);
	ck_assert_str_eq(d.model.ended_how, "signal");
	ck_assert_int_eq(d.model.ended_signal, 11);
	fx_free(&d);

	/* the launcher's word comes first */
	fx_build(&d, FX_HEADER, "{'ev':'note','t_us':1,'tid':4242,'what':'fatal_signal','signal':6}",
		 "{'ev':'reaped','pid':4242,'signal':9}", NULL);
	ck_assert_str_eq(d.model.ended_how, "signal");
	ck_assert_int_eq(d.model.ended_signal, 9);
	fx_free(&d);
}
END_TEST

START_TEST(test_ended_unknown)
{
	struct fx_diag d;

	fx_build(&d, FX_HEADER, OPEN(CUDART), NULL);
	ck_assert_str_eq(d.model.ended_how, "unknown");
	ck_assert_int_eq(d.model.ended_signal, 0);
	fx_free(&d);
}
END_TEST

/* ---- version formats ---- */

START_TEST(test_format_cudart_version)
{
	char v[32];

	gt_format_cudart_version(13000, v, sizeof(v));
	ck_assert_str_eq(v, "13.0");
	gt_format_cudart_version(12040, v, sizeof(v));
	ck_assert_str_eq(v, "12.4");
	gt_format_cudart_version(11080, v, sizeof(v));
	ck_assert_str_eq(v, "11.8");
	gt_format_cudart_version(12010, v, sizeof(v));
	ck_assert_str_eq(v, "12.1");
	gt_format_cudart_version(13000, v, 3);  /* cut to the buffer */
	ck_assert_str_eq(v, "13");
}
END_TEST

START_TEST(test_format_cudnn_version)
{
	char v[32];

	gt_format_cudnn_version(91900, v, sizeof(v));
	ck_assert_str_eq(v, "9.19.0");
	gt_format_cudnn_version(90100, v, sizeof(v));
	ck_assert_str_eq(v, "9.1.0");
	gt_format_cudnn_version(91002, v, sizeof(v));
	ck_assert_str_eq(v, "9.10.2");
	gt_format_cudnn_version(8907, v, sizeof(v));
	ck_assert_str_eq(v, "8.9.7");
	gt_format_cudnn_version(8600, v, sizeof(v));
	ck_assert_str_eq(v, "8.6.0");
}
END_TEST

Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *libs = tcase_create("libraries"), *end = tcase_create("ending");
	TCase *fmt = tcase_create("version_format");

	fx_add_fixtures(libs);
	tcase_add_test(libs, test_cudart_from_file_name);
	tcase_add_test(libs, test_cudart_from_api);
	tcase_add_test(libs, test_api_answer_of_other_file_or_failed);
	tcase_add_test(libs, test_cudnn_version_answered);
	tcase_add_test(libs, test_cudnn_bare_major);
	tcase_add_test(libs, test_no_version);
	tcase_add_test(libs, test_cudnn_graph_takes_cudnn_answer);
	tcase_add_test(libs, test_cudnn8_version_answered);
	tcase_add_test(libs, test_two_copies_keep_their_answers);
	tcase_add_test(libs, test_nameless_requester_not_a_user);
	tcase_add_test(libs, test_front_with_foreign_graph_is_one_copy);
	tcase_add_test(libs, test_preloaded_copy_is_global);
	tcase_add_test(libs, test_empty_name_is_not_preloaded);
	tcase_add_test(libs, test_front_borrows_a_graph_library_by_soname);
	tcase_add_test(libs, test_driver_versions);
	tcase_add_test(libs, test_cublas_properties);
	tcase_add_test(libs, test_cublaslt_and_nccl);
	tcase_add_test(libs, test_real_file_name);
	tcase_add_test(libs, test_closed_and_pathless_skipped);
	tcase_add_test(libs, test_find_first_of_component);
	suite_add_tcase(s, libs);

	fx_add_fixtures(end);
	tcase_add_test(end, test_ended_exit);
	tcase_add_test(end, test_ended_signal);
	tcase_add_test(end, test_ended_unknown);
	suite_add_tcase(s, end);

	tcase_add_test(fmt, test_format_cudart_version);
	tcase_add_test(fmt, test_format_cudnn_version);
	suite_add_tcase(s, fmt);
	return s;
}
