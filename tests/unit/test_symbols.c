/* Unit tests: the symbol tables (host/elf_symbols.c), the missing-symbol
 * comparison (facts/symbol_check.c), and the rule on a hand-written trace
 * whose objects are small libraries built here with cc and version scripts. */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "facts/facts.h"
#include "facts/symbol_check.h"
#include "host/elf_symbols.h"
#include "rules/fix.h"
#include "tests/unit/trace_fixture.h"
#include "tests/unit/unit.h"

/* Builds tmp/rel from C source, with an optional version script and extra
 * cc arguments (the libraries it links against). */
static void build(const char *rel, const char *soname, const char *src, const char *map, const char *extra)
{
	char cmd[8192], srcrel[256], maprel[256];

	snprintf(srcrel, sizeof(srcrel), "src/%s.c", soname);
	fx_put(srcrel, src, strlen(src));
	snprintf(maprel, sizeof(maprel), "src/%s.map", soname);
	if (map)
		fx_put(maprel, map, strlen(map));
	snprintf(cmd, sizeof(cmd), "mkdir -p $(dirname %s) && cc -shared -fPIC -o %s %s -Wl,-soname,%s %s%s %s 2>&1",
		 fx_path(rel), fx_path(rel), fx_path(srcrel), soname, map ? "-Wl,--version-script=" : "",
		 map ? fx_path(maprel) : "", extra ? extra : "");
	ck_assert_msg(system(cmd) == 0, "cannot build %s", rel);
}

#define JIT_MAP_OLD "libnvJitLink.so.12 { global: __nvJitLinkCreate_12_1; local: *; };"
#define JIT_MAP_NEW "libnvJitLink.so.12 { global: __nvJitLinkCreate_12_1; __nvJitLinkComplete_12_4; local: *; };"
#define JIT_SRC "int __nvJitLinkCreate_12_1(void) { return 0; }\n"
#define JIT_SRC_NEW JIT_SRC "int __nvJitLinkComplete_12_4(void) { return 0; }\n"
#define CUSPARSE_SRC                                                                        \
	"int __nvJitLinkComplete_12_4(void); int __nvJitLinkCreate_12_1(void);\n"           \
	"int optional_hook(void) __attribute__((weak));\n"                                  \
	"int from_elsewhere(void);\n"                                                         \
	"int cusparseCreate(void) { return __nvJitLinkCreate_12_1() + __nvJitLinkComplete_12_4() +" \
	" (optional_hook ? optional_hook() : 0) + from_elsewhere(); }\n"

/* new/: the good nvJitLink, old/: one without the 12.4 symbol, cusparse
 * built against new/ (it also takes a weak symbol nobody has and a symbol
 * that only helper.so, another loaded library, defines). */
static void build_layout(void)
{
	char extra[4096];

	build("new/libnvJitLink.so.12", "libnvJitLink.so.12", JIT_SRC_NEW, JIT_MAP_NEW, NULL);
	build("old/libnvJitLink.so.12", "libnvJitLink.so.12", JIT_SRC, JIT_MAP_OLD, NULL);
	build("helper/libhelper.so", "libhelper.so", "int from_elsewhere(void) { return 0; }\n", NULL, NULL);
	snprintf(extra, sizeof(extra), "%s -Wl,--enable-new-dtags -Wl,-rpath,%s", fx_path("new/libnvJitLink.so.12"),
		 fx_path("new"));
	build("cusparse/libcusparse.so.12", "libcusparse.so.12", CUSPARSE_SRC, NULL, extra);
}

START_TEST(test_tables_versions_and_weak)
{
	struct host_symbols s;
	size_t i;
	bool saw_weak = false, saw_versioned = false;

	build_layout();
	ck_assert(host_symbols_read(fx_path("cusparse/libcusparse.so.12"), &s));
	for (i = 0; i < s.nneeded; i++) {
		const struct host_symbol *u = &s.needed[i];

		if (strcmp(u->name, "optional_hook") == 0)
			saw_weak = u->weak;
		if (strcmp(u->name, "__nvJitLinkComplete_12_4") == 0) {
			ck_assert_str_eq(u->version, "libnvJitLink.so.12");
			ck_assert_str_eq(u->file, "libnvJitLink.so.12");
			saw_versioned = true;
		}
	}
	ck_assert(saw_weak && saw_versioned);
	ck_assert(host_symbols_define(&s, "cusparseCreate", NULL));
	host_symbols_free(&s);

	ck_assert(host_symbols_read(fx_path("old/libnvJitLink.so.12"), &s));
	ck_assert(s.versioned);
	ck_assert(host_symbols_define(&s, "__nvJitLinkCreate_12_1", "libnvJitLink.so.12"));
	ck_assert(host_symbols_define(&s, "__nvJitLinkCreate_12_1", NULL));
	ck_assert(!host_symbols_define(&s, "__nvJitLinkComplete_12_4", "libnvJitLink.so.12"));
	ck_assert(!host_symbols_define(&s, "__nvJitLinkCreate_12_1", "libnvJitLink.so.13"));
	host_symbols_free(&s);
}
END_TEST

/* The index of definitions by name (host_symbols_define's probe): one name
 * at two version nodes, the old one hidden (foo@V1, foo@@V2, as glibc's
 * memcpy@GLIBC_2.2.5 and memcpy@@GLIBC_2.14), and a table of 3,000 names,
 * enough to fill chains of the open addressing; none is found that is not
 * there. */
START_TEST(test_index_versions_and_many_names)
{
	static const char two[] = "int foo_v1(void) { return 1; }\n"
				  "int foo_v2(void) { return 2; }\n"
				  "__asm__(\".symver foo_v1, foo@V1\");\n"
				  "__asm__(\".symver foo_v2, foo@@V2\");\n";
	struct host_symbols s;
	char *src, name[32];
	size_t off = 0, cap = 3000 * 48;
	int i;

	build("two/libtwo.so", "libtwo.so", two, "V1 { global: foo; }; V2 { global: foo; } V1;", NULL);
	ck_assert(host_symbols_read(fx_path("two/libtwo.so"), &s));
	ck_assert(s.versioned);
	ck_assert(host_symbols_define(&s, "foo", "V1"));
	ck_assert(host_symbols_define(&s, "foo", "V2"));
	ck_assert(host_symbols_define(&s, "foo", NULL));  /* the default, V2 */
	ck_assert(!host_symbols_define(&s, "foo", "V3"));
	ck_assert(!host_symbols_define(&s, "foo_v3", NULL));
	host_symbols_free(&s);

	src = malloc(cap);
	ck_assert_ptr_nonnull(src);
	for (i = 0; i < 3000; i++)
		off += (size_t)snprintf(src + off, cap - off, "int sym_%d(void) { return %d; }\n", i, i);
	build("many/libmany.so", "libmany.so", src, NULL, NULL);
	free(src);
	ck_assert(host_symbols_read(fx_path("many/libmany.so"), &s));
	ck_assert(!s.versioned);
	ck_assert_uint_ge(s.ndefined, 3000);
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "sym_%d", i);
		ck_assert_msg(host_symbols_define(&s, name, NULL), "%s not found", name);
		/* a file without version information serves any version */
		ck_assert(host_symbols_define(&s, name, "ANY_1.0"));
	}
	for (i = 3000; i < 6000; i++) {
		snprintf(name, sizeof(name), "sym_%d", i);
		ck_assert_msg(!host_symbols_define(&s, name, NULL), "%s found", name);
	}
	host_symbols_free(&s);
}
END_TEST

static size_t gaps_with(const char *jit, bool with_helper, struct gt_symbol_gap **gaps)
{
	struct gt_sym_scope scope = { 0 };
	struct host_resolve_env env = { 0 };
	size_t n = 0;
	long c;

	c = gt_sym_scope_add(&scope, fx_path("cusparse/libcusparse.so.12"));
	gt_sym_scope_add(&scope, fx_path(jit));
	if (with_helper)
		gt_sym_scope_add(&scope, fx_path("helper/libhelper.so"));
	ck_assert_int_ge(c, 0);
	*gaps = NULL;
	gt_symbol_gaps(&scope, (size_t)c, &env, gaps, &n);
	/* the gaps keep their own copies of the paths */
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq((*gaps)[i].provider, fx_path(jit));
	gt_sym_scope_free(&scope);
	return n;
}

START_TEST(test_gap_names_symbol_provider_and_good_copy)
{
	struct gt_symbol_gap *gaps;
	size_t n;

	build_layout();
	n = gaps_with("old/libnvJitLink.so.12", true, &gaps);
	/* weak optional_hook and from_elsewhere (helper has it) are not missing */
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(gaps[0].symbol, "__nvJitLinkComplete_12_4");
	ck_assert_str_eq(gaps[0].version, "libnvJitLink.so.12");
	/* the RUNPATH folder of cusparse holds the copy that has it */
	ck_assert_ptr_nonnull(gaps[0].good_copy);
	ck_assert_str_eq(gaps[0].good_copy, fx_path("new/libnvJitLink.so.12"));
	gt_symbol_gaps_free(gaps, n);
}
END_TEST

START_TEST(test_no_gap_when_provider_has_it)
{
	struct gt_symbol_gap *gaps;

	build_layout();
	ck_assert_uint_eq(gaps_with("new/libnvJitLink.so.12", true, &gaps), 0);
	gt_symbol_gaps_free(gaps, 0);
	/* an unversioned symbol no CUDA copy defines (meant for another library
	 * of the process) is never blamed on a CUDA provider */
	ck_assert_uint_eq(gaps_with("new/libnvJitLink.so.12", false, &gaps), 0);
	gt_symbol_gaps_free(gaps, 0);
}
END_TEST

START_TEST(test_unversioned_gap_needs_a_copy_that_has_it)
{
	struct gt_sym_scope scope = { 0 };
	struct host_resolve_env env = { 0 };
	struct gt_symbol_gap *gaps = NULL;
	char extra[4096];
	size_t n = 0;

	build("nccl-new/libnccl.so.2", "libnccl.so.2", "int ncclGetVersion(void){return 0;} int ncclCommRegister(void){return 0;}\n",
	      NULL, NULL);
	build("nccl-old/libnccl.so.2", "libnccl.so.2", "int ncclGetVersion(void){return 0;}\n", NULL, NULL);
	snprintf(extra, sizeof(extra), "%s -Wl,--enable-new-dtags -Wl,-rpath,%s", fx_path("nccl-new/libnccl.so.2"),
		 fx_path("nccl-new"));
	build("fw/libfw.so", "libfw.so", "int ncclGetVersion(void); int ncclCommRegister(void);\n"
	      "int fw(void) { return ncclGetVersion() + ncclCommRegister(); }\n", NULL, extra);
	gt_sym_scope_add(&scope, fx_path("fw/libfw.so"));
	gt_sym_scope_add(&scope, fx_path("nccl-old/libnccl.so.2"));
	gt_symbol_gaps(&scope, 0, &env, &gaps, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(gaps[0].symbol, "ncclCommRegister");
	ck_assert_ptr_null(gaps[0].version);
	ck_assert_str_eq(gaps[0].good_copy, fx_path("nccl-new/libnccl.so.2"));
	gt_symbol_gaps_free(gaps, n);
	gt_sym_scope_free(&scope);
}
END_TEST

/* The rule on a hand-written trace: cusparse and the old nvJitLink opened,
 * then closed together, is an undone load with missing-symbol; the same
 * closes with the new nvJitLink are a plain dlclose. */
#define TR_OPEN(path, seq, name, rule, req)                                                        \
	"{'ev':'search','t_us':1,'tid':4242,'seq':" #seq ",'name':'" name "','requester':'" req "'}", \
	"{'ev':'open','t_us':2,'path':'" path "','ns':0,'search':" #seq ",'name':'" name "','rule':'" rule "'}"
#define TR_CLOSE(path) "{'ev':'close','t_us':3,'tid':4242,'path':'" path "'}"

static void diagnose_load(struct fx_diag *d, bool old)
{
	if (old)
		fx_diagnose(d, FX_HEADER_ENV("'LD_LIBRARY_PATH':'$TMP/old'"),
			    TR_OPEN("$TMP/cusparse/libcusparse.so.12", 1, "$TMP/cusparse/libcusparse.so.12", "absolute",
				    "/usr/bin/python3.11"),
			    TR_OPEN("$TMP/old/libnvJitLink.so.12", 2, "libnvJitLink.so.12", "ld_library_path",
				    "$TMP/cusparse/libcusparse.so.12"),
			    TR_CLOSE("$TMP/cusparse/libcusparse.so.12"), TR_CLOSE("$TMP/old/libnvJitLink.so.12"),
			    TR_OPEN("$TMP/helper/libhelper.so", 3, "$TMP/helper/libhelper.so", "absolute",
				    "/usr/bin/python3.11"), FX_END, NULL);
	else
		fx_diagnose(d, FX_HEADER,
			    TR_OPEN("$TMP/helper/libhelper.so", 3, "$TMP/helper/libhelper.so", "absolute",
				    "/usr/bin/python3.11"),
			    TR_OPEN("$TMP/cusparse/libcusparse.so.12", 1, "$TMP/cusparse/libcusparse.so.12", "absolute",
				    "/usr/bin/python3.11"),
			    TR_OPEN("$TMP/new/libnvJitLink.so.12", 2, "libnvJitLink.so.12", "runpath",
				    "$TMP/cusparse/libcusparse.so.12"),
			    TR_CLOSE("$TMP/cusparse/libcusparse.so.12"), TR_CLOSE("$TMP/new/libnvJitLink.so.12"),
			    FX_END, NULL);
}

START_TEST(test_rule_missing_symbol_on_undone_load)
{
	struct fx_diag d;
	const struct gt_finding *f;

	build_layout();
	diagnose_load(&d, true);
	f = fx_finding(&d, GT_F_MISSING_SYMBOL);
	ck_assert_msg(f, "no missing-symbol");
	ck_assert(f->severity == GT_SEV_ERROR);
	ck_assert(strstr(f->summary, "__nvJitLinkComplete_12_4, version libnvJitLink.so.12"));
	ck_assert(fx_evidence_has(f, "good_copy", fx_path("new/libnvJitLink.so.12")));
	ck_assert(fx_evidence_has(f, "rule", "ld_library_path"));
	ck_assert(strstr(f->fix, fx_path("old")));
	ck_assert_uint_eq(d.model.nfailed, 1);
	fx_free(&d);
}
END_TEST

START_TEST(test_rule_not_for_healthy_dlclose)
{
	struct fx_diag d;

	build_layout();
	diagnose_load(&d, false);
	ck_assert_ptr_null(fx_finding(&d, GT_F_MISSING_SYMBOL));
	ck_assert_uint_eq(d.model.nfailed, 0);
	fx_free(&d);
}
END_TEST

/* vllm-project/vllm#4195: torch's libtorch_cuda.so needs ncclCommRegister
 * (unversioned), and the NCCL its RPATH finds (2.18) lacks it; no copy on
 * disk has it. The load and its undoing are a run of opens and closes. When
 * Python asked for it (import, ctypes: RTLD_NOW, never unloaded) that is a
 * failed load, and the symbol's prefix names libnccl.so.2; when another
 * program asked, the closes may be a dlclose of a lazily bound library that
 * loaded fine: no finding. The symbol is ncclCommRegisterSoon, which no
 * NCCL has: the build VM's CUDA 13 NCCL (in ld.so.cache) defines
 * ncclCommRegister, and a copy that has it makes the gap provable anyway. */
static void diagnose_nccl_load(struct fx_diag *d, const char *requester)
{
	char open_fw[1024], open_nccl[1024];

	snprintf(open_fw, sizeof(open_fw),
		 "{'ev':'search','t_us':1,'tid':4242,'seq':1,'name':'$TMP/torch/lib/libtorch_cuda.so','requester':'%s'}",
		 requester);
	snprintf(open_nccl, sizeof(open_nccl), "%s",
		 "{'ev':'open','t_us':2,'path':'$TMP/torch/lib/libtorch_cuda.so','ns':0,'search':1,"
		 "'name':'$TMP/torch/lib/libtorch_cuda.so','rule':'absolute'}");
	fx_diagnose(d, FX_HEADER, open_fw, open_nccl,
		    TR_OPEN("$TMP/nvidia/nccl/lib/libnccl.so.2", 2, "libnccl.so.2", "rpath",
			    "$TMP/torch/lib/libtorch_cuda.so"),
		    TR_CLOSE("$TMP/torch/lib/libtorch_cuda.so"), TR_CLOSE("$TMP/nvidia/nccl/lib/libnccl.so.2"),
		    FX_END, NULL);
}

START_TEST(test_python_load_undone_for_an_unversioned_symbol)
{
	static const char *const python_loaders[] = {
		"/usr/bin/python3.10",
		"/opt/conda/lib/libpython3.12.so.1.0",
		"/usr/lib/python3.11/lib-dynload/_ctypes.cpython-311-x86_64-linux-gnu.so",
	};
	struct fx_diag d;
	const struct gt_finding *f;
	char extra[4096];
	size_t i;

	build("nccl-2.19/libnccl.so.2", "libnccl.so.2",
	      "int ncclGetVersion(void){return 0;} int ncclCommRegisterSoon(void){return 0;}\n", NULL, NULL);
	build("nvidia/nccl/lib/libnccl.so.2", "libnccl.so.2", "int ncclGetVersion(void){return 0;}\n", NULL, NULL);
	snprintf(extra, sizeof(extra), "%s -Wl,-rpath,%s", fx_path("nccl-2.19/libnccl.so.2"),
		 fx_path("nvidia/nccl/lib"));
	build("torch/lib/libtorch_cuda.so", "libtorch_cuda.so",
	      "int ncclGetVersion(void); int ncclCommRegisterSoon(void);\n"
	      "int torch_nccl(void) { return ncclGetVersion() + ncclCommRegisterSoon(); }\n", NULL, extra);
	ck_assert_int_eq(unlink(fx_path("nccl-2.19/libnccl.so.2")), 0);  /* no good copy on disk */
	for (i = 0; i < sizeof(python_loaders) / sizeof(python_loaders[0]); i++) {
		diagnose_nccl_load(&d, python_loaders[i]);
		f = fx_finding(&d, GT_F_MISSING_SYMBOL);
		ck_assert_msg(f, "no missing-symbol when %s asked", python_loaders[i]);
		ck_assert(f->severity == GT_SEV_ERROR);
		ck_assert(strstr(f->summary, "ncclCommRegisterSoon"));
		ck_assert(strstr(f->summary, fx_path("nvidia/nccl/lib/libnccl.so.2")));
		ck_assert_uint_eq(d.model.nfailed, 1);
		fx_free(&d);
	}
	diagnose_nccl_load(&d, "/opt/app/bin/server");
	ck_assert_ptr_null(fx_finding(&d, GT_F_MISSING_SYMBOL));
	ck_assert_uint_eq(d.model.nfailed, 0);
	fx_free(&d);
	diagnose_nccl_load(&d, "/opt/app/bin/python-helper");  /* not the interpreter */
	ck_assert_ptr_null(fx_finding(&d, GT_F_MISSING_SYMBOL));
	fx_free(&d);
}
END_TEST

/* A text file at dir/rel under the test's folder. */
static void put_text(const char *dir, const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fx_put(path, text, strlen(text));
}

/* The same failed import with torch's wheel around it: torch 2.2.0's
 * METADATA pins nvidia-nccl-cu12==2.19.3, and the fix names that pin and
 * its pip command (vllm-project/vllm#4195: "you installed pytorch 2.2, but
 * has nvidia-nccl-cu12==2.18"). */
START_TEST(test_python_load_undone_fix_names_the_framework_pin)
{
	const char *sp = "venv/lib/python3.10/site-packages";
	char rel[512], extra[4096];
	struct fx_diag d;
	const struct gt_finding *f;

	snprintf(rel, sizeof(rel), "%s/nvidia/nccl/lib/libnccl.so.2", sp);
	build("nccl-2.19/libnccl.so.2", "libnccl.so.2",
	      "int ncclGetVersion(void){return 0;} int ncclCommRegisterSoon(void){return 0;}\n", NULL, NULL);
	build(rel, "libnccl.so.2", "int ncclGetVersion(void){return 0;}\n", NULL, NULL);
	snprintf(rel, sizeof(rel), "%s/nvidia/nccl/lib", sp);
	snprintf(extra, sizeof(extra), "%s -Wl,-rpath,%s", fx_path("nccl-2.19/libnccl.so.2"), fx_path(rel));
	snprintf(rel, sizeof(rel), "%s/torch/lib/libtorch_cuda.so", sp);
	build(rel, "libtorch_cuda.so",
	      "int ncclGetVersion(void); int ncclCommRegisterSoon(void);\n"
	      "int torch_nccl(void) { return ncclGetVersion() + ncclCommRegisterSoon(); }\n", NULL, extra);
	ck_assert_int_eq(unlink(fx_path("nccl-2.19/libnccl.so.2")), 0);
	put_text(sp, "torch-2.2.0.dist-info/METADATA",
		 "Metadata-Version: 2.1\nName: torch\nVersion: 2.2.0\nRequires-Dist: nvidia-nccl-cu12==2.19.3; "
		 "platform_system == \"Linux\" and platform_machine == \"x86_64\"\n");
	put_text(sp, "torch-2.2.0.dist-info/RECORD", "torch/lib/libtorch_cuda.so,,\n");
	put_text(sp, "nvidia_nccl_cu12-2.18.1.dist-info/METADATA", "Name: nvidia-nccl-cu12\nVersion: 2.18.1\n");
	put_text(sp, "nvidia_nccl_cu12-2.18.1.dist-info/RECORD", "nvidia/nccl/lib/libnccl.so.2,,\n");
	fx_diagnose(&d, FX_HEADER,
		    TR_OPEN("$TMP/venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so", 1,
			    "$TMP/venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so", "absolute",
			    "/usr/bin/python3.10"),
		    TR_OPEN("$TMP/venv/lib/python3.10/site-packages/nvidia/nccl/lib/libnccl.so.2", 2, "libnccl.so.2",
			    "rpath", "$TMP/venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so"),
		    TR_CLOSE("$TMP/venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so"),
		    TR_CLOSE("$TMP/venv/lib/python3.10/site-packages/nvidia/nccl/lib/libnccl.so.2"), FX_END, NULL);
	f = fx_finding(&d, GT_F_MISSING_SYMBOL);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->fix, "Install the release torch 2.2.0 declares") &&
			      strstr(f->fix, "pip install 'nvidia-nccl-cu12==2.19.3'"), "%s", f->fix);
	ck_assert_ptr_nonnull(gt_fix_install_command(&f->fix_data));
	ck_assert_msg(strstr(gt_fix_install_command(&f->fix_data), "pip install nvidia-nccl-cu12==2.19.3"), "%s",
		      gt_fix_install_command(&f->fix_data));
	fx_free(&d);
}
END_TEST

/* The layout's libraries under a folder whose name is Latin-1 ("caf\xe9"):
 * the facts keep the gap (its consumer and provider are paths there), live
 * and read back from the facts file. Before, json_pack refused the paths
 * and the gap was dropped: no missing-symbol finding. */
static void expect_latin1_gap(struct gt_host_facts *f, const struct gt_sym_question *q)
{
	struct gt_symbol_gap *gaps = NULL;
	size_t n = 0;

	gt_facts_symbol_gaps(f, q, &gaps, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(gaps[0].symbol, "__nvJitLinkComplete_12_4");
	ck_assert_str_eq(gaps[0].version, "libnvJitLink.so.12");
	ck_assert_str_eq(gaps[0].consumer, q->scope[0]);
	ck_assert_str_eq(gaps[0].provider, q->scope[1]);
	ck_assert_ptr_nonnull(gaps[0].good_copy);
	ck_assert_str_eq(gaps[0].good_copy, fx_path("new/libnvJitLink.so.12"));
	gt_symbol_gaps_free(gaps, n);
}

START_TEST(test_facts_keep_a_gap_under_a_latin1_folder)
{
	char *scope[3], cmd[8192], dir[4096], err[256] = "";
	struct gt_sym_question q = { 0 };
	struct gt_facts_set *live, *recorded;

	build_layout();
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir 'caf\xe9' facts && cp -r cusparse old helper 'caf\xe9/'", fx_tmp());
	ck_assert_int_eq(system(cmd), 0);
	scope[0] = strdup(fx_path("caf\xe9/cusparse/libcusparse.so.12"));
	scope[1] = strdup(fx_path("caf\xe9/old/libnvJitLink.so.12"));
	scope[2] = strdup(fx_path("caf\xe9/helper/libhelper.so"));
	snprintf(dir, sizeof(dir), "%s", fx_path("facts"));
	q.scope = (const char *const *)scope;
	q.nscope = 3;
	q.consumers = (const char *const *)scope;
	q.nconsumers = 1;

	live = gt_facts_set_new(GT_FACTS_LIVE);
	expect_latin1_gap(gt_facts_of_host(live, NULL), &q);
	ck_assert_msg(gt_facts_set_write_folder(live, dir, err, sizeof(err)), "%s", err);
	recorded = gt_facts_set_new(GT_FACTS_RECORDED);
	ck_assert_msg(gt_facts_set_read_folder(recorded, dir, err, sizeof(err)), "%s", err);
	expect_latin1_gap(gt_facts_of_host(recorded, NULL), &q);
	gt_facts_set_free(live);
	gt_facts_set_free(recorded);
	for (size_t i = 0; i < 3; i++)
		free(scope[i]);
}
END_TEST

/* A function's name longer than the answer keeps (511 bytes), cut inside
 * a UTF-8 sequence: the facts keep the bytes, live and read back (before,
 * json_pack refused the name and the frame had none). */
START_TEST(test_facts_symbol_at_keeps_a_cut_name)
{
	char src[2048], name[600], want[512], got[512], cmd[4096], line[1024], err[256] = "";
	struct gt_facts_set *live, *recorded;
	unsigned long long addr = 0, into = 0;
	FILE *nm;

	memset(name, 'a', 510);
	memcpy(name + 510, "\xc3\xa9tail", 7);
	snprintf(src, sizeof(src), "int long_one(void) __asm__(\"%s\");\nint long_one(void) { return 7; }\n", name);
	build("long/liblong.so", "liblong.so", src, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "nm --defined-only %s", fx_path("long/liblong.so"));
	ck_assert_ptr_nonnull(nm = popen(cmd, "r"));
	while (fgets(line, sizeof(line), nm))
		if (strstr(line, " T aaaa"))
			addr = strtoull(line, NULL, 16);
	pclose(nm);
	ck_assert_msg(addr, "no address for the long name");
	memcpy(want, name, 511);
	want[511] = 0;
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", fx_path("facts"));
	ck_assert_int_eq(system(cmd), 0);

	live = gt_facts_set_new(GT_FACTS_LIVE);
	ck_assert(gt_facts_symbol_at(gt_facts_of_host(live, NULL), fx_path("long/liblong.so"), addr + 1, got,
				     sizeof(got), &into));
	ck_assert_str_eq(got, want);
	ck_assert_uint_eq(into, 1);
	ck_assert_msg(gt_facts_set_write_folder(live, fx_path("facts"), err, sizeof(err)), "%s", err);
	recorded = gt_facts_set_new(GT_FACTS_RECORDED);
	ck_assert_msg(gt_facts_set_read_folder(recorded, fx_path("facts"), err, sizeof(err)), "%s", err);
	got[0] = 0;
	ck_assert(gt_facts_symbol_at(gt_facts_of_host(recorded, NULL), fx_path("long/liblong.so"), addr + 1, got,
				     sizeof(got), &into));
	ck_assert_str_eq(got, want);
	gt_facts_set_free(live);
	gt_facts_set_free(recorded);
}
END_TEST

Suite *symbols_suite(void)
{
	Suite *s = suite_create("symbols");
	TCase *tc = tcase_create("symbols");

	fx_add_fixtures(tc);
	tcase_set_timeout(tc, 60);  /* each test runs cc */
	tcase_add_test(tc, test_tables_versions_and_weak);
	tcase_add_test(tc, test_index_versions_and_many_names);
	tcase_add_test(tc, test_gap_names_symbol_provider_and_good_copy);
	tcase_add_test(tc, test_no_gap_when_provider_has_it);
	tcase_add_test(tc, test_unversioned_gap_needs_a_copy_that_has_it);
	tcase_add_test(tc, test_rule_missing_symbol_on_undone_load);
	tcase_add_test(tc, test_rule_not_for_healthy_dlclose);
	tcase_add_test(tc, test_python_load_undone_for_an_unversioned_symbol);
	tcase_add_test(tc, test_python_load_undone_fix_names_the_framework_pin);
	tcase_add_test(tc, test_facts_keep_a_gap_under_a_latin1_folder);
	tcase_add_test(tc, test_facts_symbol_at_keeps_a_cut_name);
	suite_add_tcase(s, tc);
	return s;
}
