/* Unit tests: the trace reader (read/trace_read.c) on hand-written traces:
 * what each line kind puts in struct gt_process, and the refusal of bad input
 * with a message naming the file and the line. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/trace_read.h"
#include "tests/unit/trace_fixture.h"
#include "tests/unit/unit.h"

#define CUDART "/opt/cuda/lib64/libcudart.so.13"
#define PROG "/home/u/prog"

/* Reads a trace that must be accepted. */
static void read_ok(const char *path, struct gt_process *p)
{
	char err[4096] = "";

	ck_assert_msg(gt_read_trace(path, p, err, sizeof(err)), "refused: %s", err);
}

/* ---- the header ---- */

START_TEST(test_header_fields)
{
	struct gt_process p;
	const char *path = fx_trace("node7.4242.rank3.jsonl",
		"{'ev':'header','format':'gputrace-trace','version':1,'source':'preload',"
		"'pid':4242,'start_ticks':1000,'ppid':4241,'host':'node7','image':'00000000000000a1',"
		"'exe':'/usr/bin/python3.11','argv':['python3','train.py','--lr','0.1'],"
		"'rank':3,'rank_var':'RANK','world_size':8,"
		"'env':{'LD_LIBRARY_PATH':'/opt/cuda/lib64:/usr/lib','CUDA_VISIBLE_DEVICES':'','RANK':'3'}}",
		NULL);

	read_ok(path, &p);
	ck_assert_str_eq(p.file, path);
	ck_assert_int_eq(p.pid, 4242);
	ck_assert_int_eq(p.ppid, 4241);
	ck_assert_str_eq(p.host, "node7");
	ck_assert_str_eq(p.exe, "/usr/bin/python3.11");
	ck_assert_uint_eq(p.argc, 4);
	ck_assert_str_eq(p.argv[0], "python3");
	ck_assert_str_eq(p.argv[1], "train.py");
	ck_assert_str_eq(p.argv[3], "0.1");
	ck_assert_int_eq(p.rank, 3);
	ck_assert_int_eq(p.world_size, 8);
	ck_assert_str_eq(gt_process_env(&p, "LD_LIBRARY_PATH"), "/opt/cuda/lib64:/usr/lib");
	ck_assert_str_eq(gt_process_env(&p, "CUDA_VISIBLE_DEVICES"), "");  /* set, empty */
	ck_assert_ptr_null(gt_process_env(&p, "CUDA_HOME"));
	ck_assert_int_eq(p.images, 1);
	ck_assert(!p.forked);
	ck_assert(!p.audit_seen);   /* a preload header only */
	ck_assert(!p.clean_end);    /* no end line */
	ck_assert(!p.reaped);
	ck_assert_int_eq(p.fatal_signal, 0);
	ck_assert_uint_eq(p.nobjects, 0);
	ck_assert_uint_eq(p.nsearches, 0);
	gt_process_free(&p);
}
END_TEST

/* An argv element that is not a string (damage: the writer puts strings
 * only) is read as "", in its place; no NULL reaches a renderer (the
 * fuzzer's crash in the DOT graph's label, tests/fuzz/corpus_report/
 * argv_not_a_string.jsonl). */
START_TEST(test_header_argv_not_strings)
{
	struct gt_process p;
	const char *path = fx_trace("h.1.jsonl",
		"{'ev':'header','format':'gputrace-trace','version':1,'source':'preload',"
		"'pid':1,'start_ticks':1,'ppid':0,'host':'h','image':'00000000000000a1',"
		"'exe':'/usr/bin/python3','argv':[{'path':'/x'},'train.py',7]}",
		NULL);

	read_ok(path, &p);
	ck_assert_uint_eq(p.argc, 3);
	ck_assert_str_eq(p.argv[0], "");
	ck_assert_str_eq(p.argv[1], "train.py");
	ck_assert_str_eq(p.argv[2], "");
	gt_process_free(&p);
}
END_TEST

START_TEST(test_header_without_rank)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER, FX_END, NULL), &p);
	ck_assert_int_eq(p.rank, -1);
	ck_assert_int_eq(p.world_size, -1);
	ck_assert_ptr_null(gt_process_env(&p, "LD_LIBRARY_PATH"));
	ck_assert(p.clean_end);
	gt_process_free(&p);
}
END_TEST

/* Both halves write a header for one image: one image, and the audit half seen. */
START_TEST(test_two_halves_one_image)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl",
		"{'ev':'header','format':'gputrace-trace','version':1,'source':'audit','pid':4242,"
		"'ppid':4241,'host':'node7','image':'00000000000000a1','exe':'/usr/bin/python3.11',"
		"'argv':['python3'],'env':{}}",
		FX_HEADER, FX_END, NULL), &p);
	ck_assert_int_eq(p.images, 1);
	ck_assert(p.audit_seen);
	ck_assert(p.clean_end);
	ck_assert_uint_eq(p.argc, 1);  /* the identity stays the first header's */
	ck_assert_str_eq(p.argv[0], "python3");
	gt_process_free(&p);
}
END_TEST

START_TEST(test_read_identity)
{
	struct gt_identity id;

	ck_assert(gt_read_identity("{\"ev\":\"header\",\"format\":\"gputrace-trace\",\"version\":1,"
				   "\"pid\":77,\"ppid\":76,\"host\":\"gpu-3\",\"rank\":5,\"world_size\":16,"
				   "\"argv\":[\"bash\",\"/h/.pyenv/libexec/pyenv-exec\",\"python\"]}", &id));
	ck_assert_str_eq(id.command, "bash /h/.pyenv/libexec/pyenv-exec");
	free(id.command);
	ck_assert_int_eq(id.pid, 77);
	ck_assert_int_eq(id.ppid, 76);
	ck_assert_int_eq(id.rank, 5);
	ck_assert_int_eq(id.world_size, 16);
	ck_assert_str_eq(id.host, "gpu-3");
	free(id.host);

	ck_assert(gt_read_identity("{\"ev\":\"header\",\"format\":\"gputrace-trace\",\"version\":1,"
				   "\"pid\":77}\n", &id));
	ck_assert_int_eq(id.rank, -1);
	ck_assert_int_eq(id.world_size, -1);
	ck_assert_ptr_null(id.host);

	/* Only a header of this format is one (a fingerprint match is never
	 * taken on a line that is not; issue 15, item 11). */
	ck_assert(!gt_read_identity("{\"ev\":\"header\",\"pid\":77}\n", &id));
	ck_assert(!gt_read_identity("{\"ev\":\"open\",\"format\":\"gputrace-trace\",\"version\":1}", &id));
	ck_assert(!gt_read_identity("{\"ev\":\"header\",\"format\":\"gputrace-trace\",\"version\":9}", &id));
	ck_assert(!gt_read_identity("[77]", &id));
	ck_assert(!gt_read_identity("{\"ev\":\"header\",", &id));
}
END_TEST

/* ---- the loader's lines ---- */

START_TEST(test_search_and_open)
{
	struct gt_process p;
	const struct gt_search *s;
	const struct gt_object *o;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','t_us':1,'path':'" PROG "','ns':0,'main':true}",
		"{'ev':'search','t_us':2,'tid':4242,'seq':2,'name':'libcudart.so.13','requester':'" PROG "'}",
		"{'ev':'open','t_us':3,'path':'" CUDART "','soname':'libcudart.so.13','ns':0,'search':2,"
		"'name':'libcudart.so.13','rule':'ld_library_path',"
		"'tries':[{'path':'/opt/old/libcudart.so.13','rule':'ld_library_path'},"
		"{'path':'" CUDART "','rule':'ld_library_path'}]}",
		FX_END, NULL), &p);
	ck_assert_uint_eq(p.nsearches, 1);
	s = &p.searches[0];
	ck_assert_uint_eq(s->seq, 2);
	ck_assert_str_eq(s->name, "libcudart.so.13");
	ck_assert_str_eq(s->requester, PROG);
	ck_assert_str_eq(s->result, "found");
	ck_assert_str_eq(s->path, CUDART);
	ck_assert(!s->ours);
	ck_assert_uint_eq(s->ntries, 2);
	ck_assert_str_eq(s->tries[0].path, "/opt/old/libcudart.so.13");
	ck_assert_int_eq(s->tries[0].rule, GT_RULE_LD_LIBRARY_PATH);
	ck_assert_str_eq(s->tries[1].path, CUDART);

	ck_assert_uint_eq(p.nobjects, 2);
	o = &p.objects[0];
	ck_assert_str_eq(o->path, PROG);
	ck_assert(o->main);
	ck_assert_ptr_null(o->requester);  /* no search led to it */
	ck_assert_int_eq(o->rule, GT_RULE_NONE);
	o = &p.objects[1];
	ck_assert_str_eq(o->path, CUDART);
	ck_assert_str_eq(o->soname, "libcudart.so.13");
	ck_assert_str_eq(o->name, "libcudart.so.13");
	ck_assert_int_eq(o->rule, GT_RULE_LD_LIBRARY_PATH);
	ck_assert_str_eq(o->requester, PROG);        /* copied from the search */
	ck_assert_ptr_ne(o->requester, s->requester); /* a copy of its own */
	ck_assert_int_eq(o->ns, 0);
	ck_assert(!o->main);
	ck_assert(!o->closed);
	ck_assert(!o->from_linkmap);
	ck_assert(!o->cudart_static);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_open_in_other_namespace_and_static_cudart)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','t_us':1,'path':'" PROG "','ns':0,'main':true,'cudart_static':true}",
		"{'ev':'open','t_us':2,'path':'/opt/plugin/libplug.so','ns':2}",
		NULL), &p);
	ck_assert_uint_eq(p.nobjects, 2);
	ck_assert(p.objects[0].cudart_static);
	ck_assert_int_eq(p.objects[1].ns, 2);
	ck_assert_ptr_null(p.objects[1].name);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_search_end_not_found)
{
	struct gt_process p;
	const struct gt_search *s;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'search','t_us':2,'tid':4242,'seq':7,'name':'libcuda.so.1','requester':'" CUDART "'}",
		"{'ev':'search_end','t_us':3,'search':7,'name':'libcuda.so.1','result':'not_found',"
		"'tries':[{'path':'/opt/cuda/lib64/libcuda.so.1','rule':'ld_library_path'},"
		"{'path':'/lib/x86_64-linux-gnu/libcuda.so.1','rule':'default'},"
		"{'path':'/usr/lib/libcuda.so.1','rule':'default'}]}",
		FX_END, NULL), &p);
	ck_assert_uint_eq(p.nsearches, 1);
	s = &p.searches[0];
	ck_assert_str_eq(s->result, "not_found");
	ck_assert_ptr_null(s->path);
	ck_assert_str_eq(s->requester, CUDART);
	ck_assert_uint_eq(s->ntries, 3);
	ck_assert_str_eq(s->tries[1].path, "/lib/x86_64-linux-gnu/libcuda.so.1");
	ck_assert_int_eq(s->tries[2].rule, GT_RULE_DEFAULT);
	ck_assert_uint_eq(p.nobjects, 0);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_search_end_already_loaded)
{
	struct gt_process p;
	const struct gt_search *s;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'search','t_us':2,'tid':4242,'seq':3,'name':'/opt/cuda/lib64/../lib64/libcudart.so.13','requester':'" PROG "'}",
		"{'ev':'search_end','t_us':3,'search':3,'name':'/opt/cuda/lib64/../lib64/libcudart.so.13',"
		"'result':'already_loaded','path':'" CUDART "'}",
		NULL), &p);
	s = &p.searches[0];
	ck_assert_str_eq(s->result, "already_loaded");
	ck_assert_str_eq(s->path, CUDART);
	ck_assert_uint_eq(s->ntries, 0);
	gt_process_free(&p);
}
END_TEST

/* Rules are read into the contract's enum; a name this reader does not know
 * is "unknown", a missing one none. */
START_TEST(test_rule_names)
{
	struct gt_process p;
	const struct gt_search *s;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'search','t_us':1,'tid':4242,'seq':1,'name':'libcublas.so.13','requester':'" PROG "'}",
		"{'ev':'open','t_us':2,'path':'/opt/cuda/lib64/libcublas.so.13','ns':0,'search':1,"
		"'name':'libcublas.so.13','rule':'rpath',"
		"'tries':[{'path':'/a/libcublas.so.13','rule':'runpath'},{'path':'/b/libcublas.so.13','rule':'ld_so_cache'},"
		"{'path':'/c/libcublas.so.13','rule':'from_the_future'},{'path':'/d/libcublas.so.13'},"
		"{'path':'/opt/cuda/lib64/libcublas.so.13','rule':'rpath'}]}",
		"{'ev':'open','t_us':3,'path':'/opt/x/libx.so','ns':0,'rule':'absolute'}",
		NULL), &p);
	s = &p.searches[0];
	ck_assert_uint_eq(s->ntries, 5);
	ck_assert_int_eq(s->tries[0].rule, GT_RULE_RUNPATH);
	ck_assert_int_eq(s->tries[1].rule, GT_RULE_LD_SO_CACHE);
	ck_assert_int_eq(s->tries[2].rule, GT_RULE_UNKNOWN);
	ck_assert_int_eq(s->tries[3].rule, GT_RULE_NONE);
	ck_assert_int_eq(s->tries[4].rule, GT_RULE_RPATH);
	ck_assert_int_eq(p.objects[0].rule, GT_RULE_RPATH);
	ck_assert_int_eq(p.objects[1].rule, GT_RULE_ABSOLUTE);
	ck_assert_ptr_null(p.objects[1].requester);
	gt_process_free(&p);
}
END_TEST

/* A search with no conclusion yet: result unknown. A conclusion of a search
 * never started is ignored. */
START_TEST(test_search_without_conclusion)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'search','t_us':2,'tid':4242,'seq':1,'name':'libcudnn.so.9','requester':'" PROG "'}",
		"{'ev':'search_end','t_us':3,'search':99,'name':'libx.so','result':'not_found'}",
		NULL), &p);
	ck_assert_uint_eq(p.nsearches, 1);
	ck_assert_ptr_null(p.searches[0].result);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_close_marks_closed)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','t_us':1,'path':'/opt/a/libcudnn_ops.so.9','ns':0}",
		"{'ev':'open','t_us':2,'path':'" CUDART "','ns':0}",
		"{'ev':'close','t_us':3,'tid':4242,'path':'/opt/a/libcudnn_ops.so.9'}",
		FX_END, NULL), &p);
	ck_assert_uint_eq(p.nobjects, 2);
	ck_assert(p.objects[0].closed);
	ck_assert(!p.objects[1].closed);
	gt_process_free(&p);
}
END_TEST

/* Opened, closed, opened again, closed again: each close takes one open copy. */
START_TEST(test_close_reopened)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','t_us':1,'path':'" CUDART "','ns':0}",
		"{'ev':'close','t_us':2,'tid':4242,'path':'" CUDART "'}",
		"{'ev':'open','t_us':3,'path':'" CUDART "','ns':0}",
		NULL), &p);
	ck_assert_uint_eq(p.nobjects, 2);
	ck_assert(p.objects[0].closed);
	ck_assert(!p.objects[1].closed);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_linkmap_adds_only_what_is_not_open)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','t_us':1,'path':'" CUDART "','ns':0}",
		"{'ev':'open','t_us':2,'path':'/opt/a/libcudnn.so.9','ns':0}",
		"{'ev':'close','t_us':3,'tid':4242,'path':'/opt/a/libcudnn.so.9'}",
		"{'ev':'linkmap','path':'" CUDART "'}",          /* open: not added */
		"{'ev':'linkmap','path':'/opt/a/libcudnn.so.9'}", /* closed: added again */
		"{'ev':'linkmap','path':'/lib/x86_64-linux-gnu/libm.so.6'}",
		"{'ev':'linkmap'}",                               /* no path: nothing */
		FX_END, NULL), &p);
	ck_assert_uint_eq(p.nobjects, 4);
	ck_assert(!p.objects[0].from_linkmap);
	ck_assert_str_eq(p.objects[2].path, "/opt/a/libcudnn.so.9");
	ck_assert(p.objects[2].from_linkmap);
	ck_assert(!p.objects[2].closed);
	ck_assert_str_eq(p.objects[3].path, "/lib/x86_64-linux-gnu/libm.so.6");
	ck_assert(p.objects[3].from_linkmap);
	gt_process_free(&p);
}
END_TEST

/* LD_PRELOAD alone: the link map is all there is. */
START_TEST(test_linkmap_alone)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'linkmap','path':'" CUDART "'}",
		"{'ev':'linkmap','path':'" CUDART "'}",
		FX_END, NULL), &p);
	ck_assert_uint_eq(p.nobjects, 1);
	ck_assert(p.objects[0].from_linkmap);
	ck_assert(!p.audit_seen);
	gt_process_free(&p);
}
END_TEST

/* A path that is not UTF-8: the exact bytes come from "<key>_hex". */
START_TEST(test_hex_path)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','t_us':1,'path':'/x/\\ufffd.so','path_hex':'2f782fff2e736f','ns':0}",
		NULL), &p);
	ck_assert_uint_eq(p.nobjects, 1);
	ck_assert_str_eq(p.objects[0].path, "/x/\xff.so");
	gt_process_free(&p);
}
END_TEST

/* A "_hex" twin that spells no bytes (odd, or not hex: another writer's, or
 * damaged) is not read as a part of them: the plain value stands. */
START_TEST(test_hex_twin_not_hex)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','t_us':1,'path':'/x/a.so','path_hex':'2f782f612e7z','ns':0}",
		"{'ev':'open','t_us':2,'path':'/x/b.so','path_hex':'2f782','ns':0}",
		"{'ev':'open','t_us':3,'path':'/x/c.so','path_hex':'2F782FFF2E736F','ns':0}",
		NULL), &p);
	ck_assert_uint_eq(p.nobjects, 3);
	ck_assert_str_eq(p.objects[0].path, "/x/a.so");
	ck_assert_str_eq(p.objects[1].path, "/x/b.so");
	ck_assert_str_eq(p.objects[2].path, "/x/\xff.so");
	gt_process_free(&p);
}
END_TEST

/* ---- the CUDA lines ---- */

START_TEST(test_call_lines)
{
	struct gt_process p;
	const struct gt_call *c;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'call','t_us':1,'tid':4242,'fn':'cudaGetDeviceCount','status':0,"
		"'status_name':'cudaSuccess','value':2,'lib':'" CUDART "'}",
		"{'ev':'call','t_us':2,'tid':4242,'fn':'cudnnCreate','status':1001,"
		"'status_name':'CUDNN_STATUS_NOT_INITIALIZED',"
		"'reason':'cudaGetDeviceCount(&count) != cudaSuccess','lib':'/opt/cuda/lib64/libcudnn.so.9'}",
		FX_END, NULL), &p);
	ck_assert_uint_eq(p.ncalls, 2);
	c = &p.calls[0];
	ck_assert_str_eq(c->fn, "cudaGetDeviceCount");
	ck_assert_int_eq(c->status, 0);
	ck_assert_str_eq(c->status_name, "cudaSuccess");
	ck_assert(c->has_value);
	ck_assert_int_eq(c->value, 2);
	ck_assert_str_eq(c->lib, CUDART);
	ck_assert_ptr_null(c->reason);
	c = &p.calls[1];
	ck_assert_str_eq(c->fn, "cudnnCreate");
	ck_assert_int_eq(c->status, 1001);
	ck_assert_str_eq(c->reason, "cudaGetDeviceCount(&count) != cudaSuccess");
	ck_assert(!c->has_value);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_totals_and_allocs)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'alloc_fail','t_us':1,'tid':4242,'fn':'cudaMalloc','size':1048576,'status':2,"
		"'status_name':'cudaErrorMemoryAllocation','nth':1}",
		"{'ev':'calls','t_us':5,'fn':'cudaMalloc','status':0,'status_name':'cudaSuccess',"
		"'count':10,'bytes':5000000000}",
		"{'ev':'calls','t_us':5,'fn':'cudaMalloc','status':2,'status_name':'cudaErrorMemoryAllocation',"
		"'count':1,'bytes':1048576}",
		"{'ev':'allocs','t_us':5,'held_bytes':4096,'peak_bytes':5000000000,'failed':1,"
		"'untracked':0,'unknown_frees':0,'partial':true}",
		FX_END, NULL), &p);
	ck_assert_uint_eq(p.nalloc_fails, 1);
	ck_assert_str_eq(p.alloc_fails[0].fn, "cudaMalloc");
	ck_assert_uint_eq(p.alloc_fails[0].size, 1048576);
	ck_assert_int_eq(p.alloc_fails[0].status, 2);
	ck_assert_str_eq(p.alloc_fails[0].status_name, "cudaErrorMemoryAllocation");
	ck_assert_uint_eq(p.ntotals, 2);
	ck_assert_str_eq(p.totals[0].fn, "cudaMalloc");
	ck_assert_uint_eq(p.totals[0].count, 10);
	ck_assert_uint_eq(p.totals[0].bytes, 5000000000ULL);  /* more than 32 bits */
	ck_assert_int_eq(p.totals[1].status, 2);
	ck_assert_str_eq(p.totals[1].status_name, "cudaErrorMemoryAllocation");
	ck_assert(p.has_allocs);
	ck_assert_int_eq(p.peak_bytes, 5000000000LL);
	ck_assert_int_eq(p.held_bytes, 4096);
	ck_assert_uint_eq(p.failed_allocs, 1);
	ck_assert(p.partial);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_no_allocs_line)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER, FX_END, NULL), &p);
	ck_assert(!p.has_allocs);
	ck_assert(!p.partial);
	ck_assert_uint_eq(p.ntotals, 0);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_version_lines)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'version','t_us':1,'lib':'" CUDART "','fn':'cudaRuntimeGetVersion','status':0,'value':13000}",
		"{'ev':'version','t_us':2,'lib':'/opt/cuda/lib64/libcublas.so.13','fn':'cublasGetProperty',"
		"'property':1,'status':0,'value':1}",
		"{'ev':'version','t_us':3,'lib':'" CUDART "','fn':'cudaDriverGetVersion','status':35,'value':0}",
		NULL), &p);
	ck_assert_uint_eq(p.nversions, 3);
	ck_assert_str_eq(p.versions[0].lib, CUDART);
	ck_assert_str_eq(p.versions[0].fn, "cudaRuntimeGetVersion");
	ck_assert_int_eq(p.versions[0].value, 13000);
	ck_assert_int_eq(p.versions[0].property, -1);  /* none given */
	ck_assert_int_eq(p.versions[1].property, 1);
	ck_assert_int_eq(p.versions[1].value, 1);
	ck_assert_int_eq(p.versions[2].status, 35);
	gt_process_free(&p);
}
END_TEST

/* ---- notes, end, reaped ---- */

START_TEST(test_queries_mark_searches_ours)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'search','t_us':1,'tid':4242,'seq':1,'name':'libcudnn.so.9','requester':'" PROG "'}",
		"{'ev':'note','t_us':2,'tid':4242,'what':'gputrace_queries_begin'}",
		"{'ev':'search','t_us':3,'tid':4242,'seq':2,'name':'libcudnn_graph.so.9.19.0',"
		"'requester':'/opt/cuda/lib64/libcudnn.so.9'}",
		"{'ev':'version','t_us':4,'lib':'/opt/cuda/lib64/libcudnn.so.9','fn':'cudnnGetVersion','status':0,'value':91900}",
		/* another thread's search meanwhile is the program's */
		"{'ev':'search','t_us':4,'tid':777,'seq':4,'name':'libcufft.so.11','requester':'" PROG "'}",
		"{'ev':'note','t_us':5,'tid':4242,'what':'gputrace_queries_end'}",
		/* the conclusion of gputrace's own search comes after the end note */
		"{'ev':'search_end','t_us':6,'search':2,'name':'libcudnn_graph.so.9.19.0','result':'not_found'}",
		"{'ev':'search','t_us':7,'tid':4242,'seq':3,'name':'libcublas.so.13','requester':'" PROG "'}",
		FX_END, NULL), &p);
	ck_assert_uint_eq(p.nsearches, 4);
	ck_assert(!p.searches[0].ours);
	ck_assert(p.searches[1].ours);
	ck_assert_str_eq(p.searches[1].result, "not_found");
	ck_assert_str_eq(p.searches[2].name, "libcufft.so.11");
	ck_assert(!p.searches[2].ours);
	ck_assert(!p.searches[3].ours);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_fatal_signal_note)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'note','t_us':1,'tid':4242,'what':'something_newer','signal':6}",
		"{'ev':'note','t_us':2,'tid':4242}",
		"{'ev':'note','t_us':3,'tid':4242,'what':'fatal_signal','signal':11}",
		NULL), &p);
	ck_assert_int_eq(p.fatal_signal, 11);
	ck_assert(!p.clean_end);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_reaped_exit)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER, FX_END,
		"{'ev':'reaped','pid':4242,'exit_status':3}", NULL), &p);
	ck_assert(p.reaped);
	ck_assert_int_eq(p.exit_status, 3);
	ck_assert_int_eq(p.reaped_signal, 0);
	ck_assert(p.clean_end);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_reaped_signal)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'reaped','pid':4242,'signal':9}", NULL), &p);
	ck_assert(p.reaped);
	ck_assert_int_eq(p.reaped_signal, 9);
	ck_assert(!p.clean_end);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_unknown_event_skipped)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'from_a_newer_writer','path':'" CUDART "'}", FX_END, NULL), &p);
	ck_assert_uint_eq(p.nobjects, 0);
	ck_assert(p.clean_end);
	gt_process_free(&p);
}
END_TEST

/* ---- exec and fork ---- */

#define HDR_IMAGE(src, image, exe, extra)                                                  \
	"{'ev':'header','format':'gputrace-trace','version':1,'source':'" src "','pid':4242," \
	"'ppid':4241,'host':'node7','image':'" image "','exe':'" exe "','argv':['" exe "'],"  \
	"'env':{}" extra "}"

START_TEST(test_exec_new_image)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl",
		HDR_IMAGE("preload", "00000000000000a1", "/bin/sh", ""),
		HDR_IMAGE("audit", "00000000000000a1", "/bin/sh", ""),
		"{'ev':'open','t_us':1,'path':'/bin/sh','ns':0,'main':true}",
		HDR_IMAGE("audit", "00000000000000b2", "/usr/bin/python3.11", ""),
		HDR_IMAGE("preload", "00000000000000b2", "/usr/bin/python3.11", ""),
		"{'ev':'open','t_us':2,'path':'/usr/bin/python3.11','ns':0,'main':true}",
		FX_END, NULL), &p);
	ck_assert_int_eq(p.images, 2);
	ck_assert_str_eq(p.exe, "/usr/bin/python3.11");  /* the last image's identity */
	ck_assert_uint_eq(p.argc, 1);
	ck_assert_str_eq(p.argv[0], "/usr/bin/python3.11");
	ck_assert(p.audit_seen);
	ck_assert(p.clean_end);
	ck_assert(!p.forked);
	ck_assert_uint_eq(p.nobjects, 2);  /* objects of both images are kept */
	gt_process_free(&p);
}
END_TEST

/* The end line belongs to the last image: an end before an exec does not count. */
START_TEST(test_exec_after_end)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl",
		HDR_IMAGE("preload", "00000000000000a1", "/bin/sh", ""),
		FX_END,
		HDR_IMAGE("preload", "00000000000000b2", "/usr/bin/python3.11", ""),
		NULL), &p);
	ck_assert_int_eq(p.images, 2);
	ck_assert(!p.clean_end);
	gt_process_free(&p);
}
END_TEST

START_TEST(test_fork_child)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl",
		HDR_IMAGE("preload", "00000000000000a1", "/usr/bin/python3.11", ",'fork':true"),
		HDR_IMAGE("audit", "00000000000000a1", "/usr/bin/python3.11", ""),
		NULL), &p);
	ck_assert(p.forked);
	ck_assert_int_eq(p.images, 1);
	ck_assert(!p.clean_end);
	gt_process_free(&p);
}
END_TEST

/* Only the first image's header says whether the process is a fork child. */
START_TEST(test_fork_only_first_image)
{
	struct gt_process p;

	read_ok(fx_trace("t.jsonl",
		HDR_IMAGE("preload", "00000000000000a1", "/usr/bin/python3.11", ""),
		HDR_IMAGE("preload", "00000000000000b2", "/usr/bin/python3.11", ",'fork':true"),
		NULL), &p);
	ck_assert(!p.forked);
	ck_assert_int_eq(p.images, 2);
	gt_process_free(&p);
}
END_TEST

/* ---- bad input: refused, with the file and the line named ---- */

/* Reads path, which must be refused; err gets the message. */
static void read_bad(const char *path, char *err, size_t cap)
{
	struct gt_process p;

	err[0] = 0;
	ck_assert_msg(!gt_read_trace(path, &p, err, cap), "accepted %s", path);
	ck_assert_msg(err[0], "refused with no message");
	gt_process_free(&p);
}

/* The message names the file and the line: "<path>:<line>: ...why...". */
static void assert_names_line(const char *err, const char *path, int line, const char *why)
{
	char prefix[4200];

	snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
	ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "\"%s\" does not start with \"%s\"", err, prefix);
	ck_assert_msg(strstr(err, why), "\"%s\" does not say \"%s\"", err, why);
}

START_TEST(test_bad_empty_file)
{
	char err[4096];
	const char *path;

	fx_put("empty.jsonl", "", 0);
	path = fx_path("empty.jsonl");
	read_bad(path, err, sizeof(err));
	ck_assert_msg(strstr(err, path) == err, "%s", err);
	ck_assert_msg(strstr(err, "empty"), "%s", err);
}
END_TEST

START_TEST(test_bad_missing_file)
{
	char err[4096];
	const char *path = fx_path("no-such.jsonl");

	read_bad(path, err, sizeof(err));
	ck_assert_msg(strstr(err, path) == err, "%s", err);
	ck_assert_msg(strstr(err, strerror(ENOENT)), "%s", err);
}
END_TEST

START_TEST(test_bad_first_line_not_header)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl",
		"{'ev':'search','t_us':1,'tid':4242,'seq':1,'name':'libcudart.so.13','requester':'" PROG "'}",
		FX_HEADER, NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 1, "not a gputrace header");
}
END_TEST

START_TEST(test_bad_format_name)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl",
		"{'ev':'header','format':'otherprof-trace','version':1,'pid':1,'env':{}}", FX_END, NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 1, "format");
}
END_TEST

START_TEST(test_bad_no_format)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl", "{'ev':'header','version':1,'pid':1}", NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 1, "format");
}
END_TEST

START_TEST(test_bad_version)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl",
		"{'ev':'header','format':'gputrace-trace','version':2,'pid':1,'env':{}}", FX_END, NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 1, "version");
}
END_TEST

/* Every header is checked, not only the first (an exec's header at line 3). */
START_TEST(test_bad_version_in_later_header)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','t_us':1,'path':'/bin/sh','ns':0,'main':true}",
		"{'ev':'header','format':'gputrace-trace','version':99,'pid':4242,'image':'00000000000000b2','env':{}}",
		NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 3, "version");
}
END_TEST

START_TEST(test_bad_not_an_object)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl", FX_HEADER, "['ev','end']", NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 2, "not a JSON object");
}
END_TEST

START_TEST(test_bad_not_json)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl", FX_HEADER, FX_END, "ev=end garbage", NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 3, "not a JSON object");
}
END_TEST

START_TEST(test_bad_no_ev)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl", FX_HEADER, "{'what':'end','pid':4242}", NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 2, "\"ev\"");
}
END_TEST

START_TEST(test_bad_duplicate_key)
{
	char err[4096];
	const char *path = fx_trace("t.jsonl", FX_HEADER,
		"{'ev':'open','path':'/a/libcudart.so.13','path':'/b/libcudart.so.13','ns':0}", NULL);

	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 2, "not a JSON object");
}
END_TEST

/* The last line has no newline (a disk that filled as it was written):
 * everything before it is read, and the reader says the last line is cut,
 * even where what there is of it would parse (issue 15, item 7). */
static void read_cut(const char *name, const char *data)
{
	struct gt_process p;
	char err[4096];

	fx_put(name, data, strlen(data));
	ck_assert_msg(gt_read_trace(fx_path(name), &p, err, sizeof(err)), "%s", err);
	ck_assert(p.last_line_cut);
	ck_assert_uint_eq(p.nobjects, 1);
	ck_assert_str_eq(p.objects[0].path, "/bin/sh");
	ck_assert_uint_eq(p.nsearches, 0);
	ck_assert(!p.clean_end);
	gt_process_free(&p);
}

START_TEST(test_bad_cut_last_line)
{
	static const char hdr[] =
		"{\"ev\":\"header\",\"format\":\"gputrace-trace\",\"version\":1,\"pid\":4242,\"ppid\":1,"
		"\"host\":\"node7\",\"image\":\"00000000000000a1\",\"env\":{}}\n"
		"{\"ev\":\"open\",\"t_us\":1,\"path\":\"/bin/sh\",\"ns\":0,\"main\":true}\n";
	char data[1024];

	snprintf(data, sizeof(data), "%s%s", hdr, "{\"ev\":\"search\",\"t_us\":2,\"seq\":1,\"name\":\"libcu");
	read_cut("cut.jsonl", data);
	snprintf(data, sizeof(data), "%s%s", hdr, "{\"ev\":\"end\",\"t_us\":3,\"pid\":4242}");
	read_cut("cut2.jsonl", data);
}
END_TEST

START_TEST(test_bad_line_too_long)
{
	static const char hdr[] =
		"{\"ev\":\"header\",\"format\":\"gputrace-trace\",\"version\":1,\"pid\":4242,\"env\":{}}\n";
	size_t big = (1u << 20) + 64, n = strlen(hdr);
	char *data = malloc(n + big + 32), err[4096];
	const char *path;

	ck_assert_ptr_nonnull(data);
	memcpy(data, hdr, n);
	n += (size_t)sprintf(data + n, "{\"ev\":\"note\",\"what\":\"");
	memset(data + n, 'x', big);
	n += big;
	n += (size_t)sprintf(data + n, "\"}\n");
	fx_put("long.jsonl", data, n);
	free(data);
	path = fx_path("long.jsonl");
	read_bad(path, err, sizeof(err));
	assert_names_line(err, path, 2, "too long");
}
END_TEST

/* ---- the folder listing ---- */

START_TEST(test_list_traces)
{
	char **list = NULL;
	int n;

	fx_touch("d/node7.20.jsonl");
	fx_touch("d/node7.10.jsonl");
	fx_touch("d/node7.10.rank0.jsonl");
	fx_touch("d/notes.txt");
	fx_touch("d/.jsonl");            /* no name before the suffix */
	fx_touch("d/node7.30.jsonl.bak");
	n = gt_list_traces(fx_path("d"), &list);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(list[0], fx_path("d/node7.10.jsonl"));
	ck_assert_str_eq(list[1], fx_path("d/node7.10.rank0.jsonl"));
	ck_assert_str_eq(list[2], fx_path("d/node7.20.jsonl"));
	gt_free_list(list, n);
}
END_TEST

START_TEST(test_list_traces_empty_and_missing)
{
	char **list = (char **)1;

	fx_touch("d/readme");
	ck_assert_int_eq(gt_list_traces(fx_path("d"), &list), 0);
	ck_assert_ptr_null(list);
	gt_free_list(list, 0);
	list = (char **)1;
	ck_assert_int_eq(gt_list_traces(fx_path("no-such-folder"), &list), -1);
	ck_assert_ptr_null(list);
}
END_TEST

Suite *trace_read_suite(void)
{
	Suite *s = suite_create("trace_read");
	TCase *hdr = tcase_create("header"), *loader = tcase_create("loader");
	TCase *cuda = tcase_create("cuda"), *life = tcase_create("lifecycle");
	TCase *bad = tcase_create("bad_input"), *list = tcase_create("list");
	TCase *all[] = { hdr, loader, cuda, life, bad, list };
	size_t i;

	tcase_add_test(hdr, test_header_fields);
	tcase_add_test(hdr, test_header_argv_not_strings);
	tcase_add_test(hdr, test_header_without_rank);
	tcase_add_test(hdr, test_two_halves_one_image);
	tcase_add_test(hdr, test_read_identity);

	tcase_add_test(loader, test_search_and_open);
	tcase_add_test(loader, test_open_in_other_namespace_and_static_cudart);
	tcase_add_test(loader, test_search_end_not_found);
	tcase_add_test(loader, test_search_end_already_loaded);
	tcase_add_test(loader, test_rule_names);
	tcase_add_test(loader, test_search_without_conclusion);
	tcase_add_test(loader, test_close_marks_closed);
	tcase_add_test(loader, test_close_reopened);
	tcase_add_test(loader, test_linkmap_adds_only_what_is_not_open);
	tcase_add_test(loader, test_linkmap_alone);
	tcase_add_test(loader, test_hex_path);
	tcase_add_test(loader, test_hex_twin_not_hex);

	tcase_add_test(cuda, test_call_lines);
	tcase_add_test(cuda, test_totals_and_allocs);
	tcase_add_test(cuda, test_no_allocs_line);
	tcase_add_test(cuda, test_version_lines);

	tcase_add_test(life, test_queries_mark_searches_ours);
	tcase_add_test(life, test_fatal_signal_note);
	tcase_add_test(life, test_reaped_exit);
	tcase_add_test(life, test_reaped_signal);
	tcase_add_test(life, test_unknown_event_skipped);
	tcase_add_test(life, test_exec_new_image);
	tcase_add_test(life, test_exec_after_end);
	tcase_add_test(life, test_fork_child);
	tcase_add_test(life, test_fork_only_first_image);

	tcase_add_test(bad, test_bad_empty_file);
	tcase_add_test(bad, test_bad_missing_file);
	tcase_add_test(bad, test_bad_first_line_not_header);
	tcase_add_test(bad, test_bad_format_name);
	tcase_add_test(bad, test_bad_no_format);
	tcase_add_test(bad, test_bad_version);
	tcase_add_test(bad, test_bad_version_in_later_header);
	tcase_add_test(bad, test_bad_not_an_object);
	tcase_add_test(bad, test_bad_not_json);
	tcase_add_test(bad, test_bad_no_ev);
	tcase_add_test(bad, test_bad_duplicate_key);
	tcase_add_test(bad, test_bad_cut_last_line);
	tcase_add_test(bad, test_bad_line_too_long);

	tcase_add_test(list, test_list_traces);
	tcase_add_test(list, test_list_traces_empty_and_missing);

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		fx_add_fixtures(all[i]);
		suite_add_tcase(s, all[i]);
	}
	return s;
}
