/* Unit tests: the fat-binary reader (host/fatbin.c) on objects nvcc 13.0
 * built here (Makefile, KERNEL_GENCODE_*), the compatibility rules
 * (rules/arch_fit.c), and the no-kernel-image rule on hand-written traces
 * whose objects are those files. Without nvcc the fixture tests say so and
 * pass; with nvcc a missing fixture is a failure. */
#define _GNU_SOURCE
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/fatbin.h"
#include "rules/arch_fit.h"
#include "tests/unit/trace_fixture.h"
#include "tests/unit/unit.h"

static bool have_nvcc(void)
{
	glob_t g;
	bool found = glob("/usr/local/cuda*/bin/nvcc", 0, NULL, &g) == 0 && g.gl_pathc > 0;

	globfree(&g);
	return found;
}

/* The fixture's path, or NULL (after a message) when nvcc is missing here. */
static const char *kernel_fixture(const char *name)
{
	static char path[4096];
	const char *build = getenv("BUILD");

	snprintf(path, sizeof(path), "%s/fixtures/kernels/%s", build && *build ? build : "build", name);
	if (access(path, R_OK) == 0)
		return path;
	if (!have_nvcc()) {
		fprintf(stderr, "test_fatbin: skipped %s: no nvcc on this host (/usr/local/cuda*/bin/nvcc)\n", name);
		return NULL;
	}
	ck_abort_msg("%s is missing although nvcc exists: make check builds it", path);
	return NULL;
}

static const struct host_fatbin *read_fixture(const char *name)
{
	const char *path = kernel_fixture(name);
	const struct host_fatbin *fb;
	char err[256];

	if (!path)
		return NULL;
	fb = host_fatbin_of(path, err, sizeof(err));
	ck_assert_msg(fb, "%s: %s", path, err);
	ck_assert(fb->has_device_code);
	ck_assert(!fb->partial);
	return fb;
}

static void assert_lists(const char *name, const char *want, unsigned want_compressed)
{
	const struct host_fatbin *fb = read_fixture(name);
	unsigned compressed = 0;
	char list[512];
	size_t i;

	if (!fb)
		return;
	host_fatbin_list(fb, list, sizeof(list));
	ck_assert_str_eq(list, want);
	for (i = 0; i < fb->nimages; i++)
		compressed += fb->images[i].compressed;
	ck_assert_uint_eq(compressed, want_compressed);
}

/* nvcc 13's default compresses PTX only; -Xfatbin=-compress-all every entry. */
START_TEST(test_sass_only)
{
	assert_lists("sm80.o", "sm_80", 0);
}
END_TEST

START_TEST(test_two_sass_and_compressed_ptx)
{
	assert_lists("sm80_sm90_ptx90.o", "sm_80, sm_90, compute_90", 1);
}
END_TEST

START_TEST(test_arch_specific_and_family_uncompressed)
{
	assert_lists("sm90a_sm100f_ptx100f.o", "sm_90a, sm_100f, compute_100f", 0);
}
END_TEST

START_TEST(test_all_compressed)
{
	assert_lists("sm86_ptx80_all_compressed.o", "sm_86, compute_80", 2);
}
END_TEST

START_TEST(test_ptx_only_uncompressed)
{
	assert_lists("ptx80_uncompressed.o", "compute_80", 0);
}
END_TEST

/* -rdc=true puts the code in __nv_relfatbin. */
START_TEST(test_relocatable)
{
	const struct host_fatbin *fb = read_fixture("rdc_sm75_ptx75.o");
	char list[256];

	if (!fb)
		return;
	host_fatbin_list(fb, list, sizeof(list));
	ck_assert_str_eq(list, "sm_75, compute_75");
	ck_assert(fb->images[0].relocatable && fb->images[1].relocatable);
}
END_TEST

START_TEST(test_no_device_code)
{
	char err[256];
	const struct host_fatbin *fb = host_fatbin_of("/proc/self/exe", err, sizeof(err));

	ck_assert_msg(fb, "%s", err);
	ck_assert(!fb->has_device_code);
	ck_assert_uint_eq(fb->nimages, 0);
}
END_TEST

/* __device__ data and no kernel: nvcc embeds an sm_75 cubin without a code
 * section; it is no image (nothing there could fail to run), while the
 * one-kernel fixtures' cubins are. */
START_TEST(test_cubin_without_kernel)
{
	const struct host_fatbin *fb = read_fixture("empty_sm75.o"), *kernel;

	if (!fb)
		return;
	ck_assert(fb->has_device_code);
	ck_assert_uint_eq(fb->nimages, 0);
	ck_assert_uint_eq(fb->empty_entries, 1);
	ck_assert_uint_eq(fb->entries, 1);
	kernel = read_fixture("sm80.o");
	ck_assert_ptr_nonnull(kernel);
	ck_assert_uint_eq(kernel->empty_entries, 0);
	ck_assert_uint_eq(kernel->nimages, 1);
}
END_TEST

START_TEST(test_not_elf)
{
	char err[256] = "";

	fx_put("text.so", "not an ELF file at all", 22);
	ck_assert_ptr_null(host_fatbin_of(fx_path("text.so"), err, sizeof(err)));
	ck_assert_str_eq(err, "not an ELF file");
	ck_assert_ptr_null(host_fatbin_of(fx_path("missing.so"), err, sizeof(err)));
	ck_assert(strstr(err, "cannot open") != NULL);
}
END_TEST

/* A container header then one entry header, as the format has them (fatbin.c). */
static size_t put_container(unsigned char *b, unsigned kind, unsigned arch, unsigned long long payload,
			    unsigned long long claimed_body)
{
	memset(b, 0, 16 + 64);
	b[0] = 0x50, b[1] = 0xed, b[2] = 0x55, b[3] = 0xba, b[4] = 1, b[6] = 16;
	memcpy(b + 8, &claimed_body, 8);
	b[16] = (unsigned char)kind, b[18] = 1, b[19] = 1, b[20] = 64;
	memcpy(b + 16 + 8, &payload, 8);
	memcpy(b + 16 + 28, &arch, 4);
	return 16 + 64 + payload;
}

/* Zero padding between containers is skipped; an entry that claims more
 * than its container holds makes the answer partial, never a crash. */
START_TEST(test_hand_made_sections)
{
	unsigned char buf[1024] = { 0 };
	struct host_fatbin fb;
	size_t n;
	FILE *f;

	n = put_container(buf, 2, 90, 8, 64 + 8);
	n += 24;  /* zeros */
	n += put_container(buf + n, 1, 80, 0, 64);
	fx_put("raw.bin", (const char *)buf, n);
	f = fopen(fx_path("raw.bin"), "rb");
	memset(&fb, 0, sizeof(fb));
	host_fatbin_read_section(fileno(f), 0, n, false, &fb);
	ck_assert_uint_eq(fb.containers, 2);
	ck_assert_uint_eq(fb.nimages, 2);
	ck_assert(!fb.partial);
	fclose(f);

	n = put_container(buf, 2, 90, 1000, 64 + 1000);  /* the payload is not there */
	fx_put("cut.bin", (const char *)buf, 16 + 64 + 8);
	f = fopen(fx_path("cut.bin"), "rb");
	memset(&fb, 0, sizeof(fb));
	host_fatbin_read_section(fileno(f), 0, 16 + 64 + 8, false, &fb);
	ck_assert(fb.partial);
	ck_assert_uint_eq(fb.nimages, 0);
	fclose(f);
}
END_TEST

/* A PTX entry's size is what the driver compiles: the payload as it is, or
 * for a compressed one the size its header gives uncompressed (@56). */
START_TEST(test_ptx_bytes)
{
	unsigned char buf[512] = { 0 };
	unsigned long long big = 2ull << 20, flags = 0x8000;
	struct host_fatbin fb;
	size_t n;
	FILE *f;

	n = put_container(buf, 1, 80, 8, 64 + 8);
	memcpy(buf + 16 + 40, &flags, 8);
	memcpy(buf + 16 + 56, &big, 8);
	n += put_container(buf + n, 1, 90, 16, 64 + 16);
	fx_put("ptx.bin", (const char *)buf, n);
	f = fopen(fx_path("ptx.bin"), "rb");
	memset(&fb, 0, sizeof(fb));
	host_fatbin_read_section(fileno(f), 0, n, false, &fb);
	fclose(f);
	ck_assert_uint_eq(fb.nimages, 2);
	ck_assert(fb.images[0].ptx && fb.images[0].arch == 80 && fb.images[0].compressed == 1);
	ck_assert_uint_eq(fb.images[0].bytes, big);
	ck_assert(fb.images[1].ptx && fb.images[1].arch == 90);
	ck_assert_uint_eq(fb.images[1].bytes, 16);
}
END_TEST

/* A PTX entry's header holds its PTX ISA version (minor u16 @24, major u16
 * @26: nvcc 13.0 writes 9.0, cuDNN 9.19's engines carry 9.1); the newest of
 * an image's entries is kept. SASS entries hold 1.8 there: not a PTX ISA. */
START_TEST(test_ptx_isa_version)
{
	const struct host_fatbin *real = read_fixture("ptx80_uncompressed.o");
	unsigned char buf[512] = { 0 };
	unsigned short v87[2] = { 7, 8 }, v91[2] = { 1, 9 }, sass18[2] = { 8, 1 };
	struct host_fatbin fb;
	size_t n;
	FILE *f;

	if (real) {  /* nvcc 13.0's own */
		ck_assert(real->images[0].ptx);
		ck_assert_int_eq(real->images[0].ptx_isa, 90);
	}
	real = read_fixture("sm80_sm90_ptx90.o");
	if (real) {  /* a compressed PTX entry's header says it too; SASS has none */
		ck_assert(!real->images[0].ptx && real->images[0].ptx_isa == 0);
		ck_assert(real->images[2].ptx && real->images[2].ptx_isa == 90);
	}
	n = put_container(buf, 1, 80, 8, 64 + 8);
	memcpy(buf + 16 + 24, v87, 4);
	n += put_container(buf + n, 1, 80, 8, 64 + 8);
	memcpy(buf + (16 + 64 + 8) + 16 + 24, v91, 4);
	n += put_container(buf + n, 2, 90, 8, 64 + 8);
	memcpy(buf + 2 * (16 + 64 + 8) + 16 + 24, sass18, 4);
	fx_put("isa.bin", (const char *)buf, n);
	f = fopen(fx_path("isa.bin"), "rb");
	memset(&fb, 0, sizeof(fb));
	host_fatbin_read_section(fileno(f), 0, n, false, &fb);
	fclose(f);
	ck_assert_uint_eq(fb.nimages, 2);  /* in reading order: sorted by host_fatbin_of */
	ck_assert(fb.images[0].ptx && fb.images[0].entries == 2);
	ck_assert_int_eq(fb.images[0].ptx_isa, 91);
	ck_assert(!fb.images[1].ptx && fb.images[1].ptx_isa == 0);
}
END_TEST

/* The PTX ISA release history: the CUDA each version came with. */
START_TEST(test_ptx_isa_cuda)
{
	ck_assert_int_eq(gt_ptx_isa_cuda(63), 10000);
	ck_assert_int_eq(gt_ptx_isa_cuda(65), 10020);
	ck_assert_int_eq(gt_ptx_isa_cuda(73), 11030);  /* cuda_memtest#31's CUDA 11.3 */
	ck_assert_int_eq(gt_ptx_isa_cuda(78), 11080);
	ck_assert_int_eq(gt_ptx_isa_cuda(85), 12050);
	ck_assert_int_eq(gt_ptx_isa_cuda(86), 12070);
	ck_assert_int_eq(gt_ptx_isa_cuda(88), 12090);
	ck_assert_int_eq(gt_ptx_isa_cuda(90), 13000);
	ck_assert_int_eq(gt_ptx_isa_cuda(91), 13010);
	ck_assert_int_eq(gt_ptx_isa_cuda(92), 13020);  /* nvbandwidth#61's CUDA 13.2 */
	ck_assert_int_eq(gt_ptx_isa_cuda(95), 13050);
	ck_assert_int_eq(gt_ptx_isa_cuda(0), -1);
	ck_assert_int_eq(gt_ptx_isa_cuda(79), -1);
	ck_assert_int_eq(gt_ptx_isa_cuda(96), -1);  /* not known yet */
}
END_TEST

static struct host_fatbin_image image(bool ptx, int arch, char variant)
{
	struct host_fatbin_image im = { .ptx = ptx, .arch = arch, .variant = variant };

	return im;
}

START_TEST(test_compatibility_rules)
{
	struct host_fatbin_image sm80 = image(false, 80, 0), sm90a = image(false, 90, 'a'),
				 sm100f = image(false, 100, 'f'), sm103f = image(false, 103, 'f'),
				 ptx80 = image(true, 80, 0), ptx90a = image(true, 90, 'a'),
				 ptx100f = image(true, 100, 'f');

	ck_assert(gt_image_runs_on(&sm80, 8, 0) && gt_image_runs_on(&sm80, 8, 6) && gt_image_runs_on(&sm80, 8, 9));
	ck_assert(!gt_image_runs_on(&sm80, 9, 0) && !gt_image_runs_on(&sm80, 7, 5));
	ck_assert(gt_image_runs_on(&sm90a, 9, 0) && !gt_image_runs_on(&sm90a, 10, 0));
	ck_assert(gt_image_runs_on(&sm100f, 10, 0) && gt_image_runs_on(&sm100f, 10, 3));
	ck_assert(!gt_image_runs_on(&sm100f, 11, 0) && !gt_image_runs_on(&sm100f, 12, 0));
	ck_assert(!gt_image_runs_on(&sm103f, 10, 0) && gt_image_runs_on(&sm103f, 10, 3));
	ck_assert(gt_image_runs_on(&ptx80, 9, 0) && gt_image_runs_on(&ptx80, 12, 1) && !gt_image_runs_on(&ptx80, 7, 5));
	ck_assert(gt_image_runs_on(&ptx90a, 9, 0) && !gt_image_runs_on(&ptx90a, 10, 0));
	ck_assert(gt_image_runs_on(&ptx100f, 10, 3) && !gt_image_runs_on(&ptx100f, 12, 0));
}
END_TEST

START_TEST(test_fit_prefers_sass_and_skips_relocatable)
{
	struct host_fatbin fb = { .has_device_code = true, .nimages = 3 };
	const struct host_fatbin_image *via;

	fb.images[0] = image(false, 80, 0);
	fb.images[1] = image(false, 90, 0);
	fb.images[1].relocatable = true;  /* device-link input, not run */
	fb.images[2] = image(true, 80, 0);
	ck_assert_int_eq(gt_fatbin_fit(&fb, 9, 0, &via), GT_FIT_JIT);
	ck_assert(via == &fb.images[2]);
	ck_assert_int_eq(gt_fatbin_fit(&fb, 8, 6, &via), GT_FIT_SASS);
	ck_assert(via == &fb.images[0]);
	ck_assert_int_eq(gt_fatbin_fit(&fb, 7, 5, &via), GT_FIT_NONE);
	ck_assert_ptr_null(via);
	fb.images[0].relocatable = fb.images[2].relocatable = true;  /* only relocatable: counted */
	ck_assert_int_eq(gt_fatbin_fit(&fb, 9, 0, &via), GT_FIT_SASS);
}
END_TEST

/* Only when every PTX image the device would compile is too new for the
 * driver: one that compiles, or one of unknown ISA, says nothing. */
START_TEST(test_ptx_too_new_for_the_driver)
{
	struct host_fatbin fb = { 0 };

	/* sorted as host_fatbin_of sorts: SASS first, then by arch */
	fb.images[0] = image(false, 90, 0);
	fb.images[1] = image(true, 80, 0);
	fb.images[1].ptx_isa = 90;
	fb.nimages = 2;
	ck_assert_int_eq(gt_fatbin_ptx_too_new(&fb, 8, 6, 12080), 13000);  /* sm_86 on driver 570 */
	ck_assert_int_eq(gt_fatbin_ptx_too_new(&fb, 8, 6, 13000), -1);     /* driver 580 */
	ck_assert_int_eq(gt_fatbin_ptx_too_new(&fb, 8, 6, -1), -1);        /* driver unknown */
	ck_assert_int_eq(gt_fatbin_ptx_too_new(&fb, 7, 5, 12080), -1);     /* no PTX for 7.5 */
	fb.images[2] = fb.images[1];
	fb.images[1] = image(true, 75, 0);
	fb.images[1].ptx_isa = 85;
	fb.nimages = 3;
	ck_assert_int_eq(gt_fatbin_ptx_too_new(&fb, 8, 6, 12080), -1);     /* compute_75 compiles */
	fb.images[1].ptx_isa = 0;
	ck_assert_int_eq(gt_fatbin_ptx_too_new(&fb, 8, 6, 12080), -1);     /* unknown ISA */
	fb.images[1].ptx_isa = 88;
	ck_assert_int_eq(gt_fatbin_ptx_too_new(&fb, 8, 6, 12080), 13000);  /* both too new: the newest's */
}
END_TEST

START_TEST(test_parse_arch)
{
	int major = -1, minor = -1;

	ck_assert(gt_parse_arch("sm_90", &major, &minor) && major == 9 && minor == 0);
	ck_assert(gt_parse_arch("sm_120a", &major, &minor) && major == 12 && minor == 0);
	ck_assert(gt_parse_arch("8.6", &major, &minor) && major == 8 && minor == 6);
	ck_assert(gt_parse_arch("103", &major, &minor) && major == 10 && minor == 3);
	ck_assert(gt_parse_arch("compute_75", &major, &minor) && major == 7 && minor == 5);
	ck_assert(!gt_parse_arch("sm_", &major, &minor));
	ck_assert(!gt_parse_arch("sm_90x", &major, &minor));
	ck_assert(!gt_parse_arch("9.10", &major, &minor));
	ck_assert(!gt_parse_arch("hopper", &major, &minor));
}
END_TEST

/* ---- the rule, on traces whose program is a copy of a fixture ---- */

static bool copy_fixture(const char *name, const char *rel)
{
	const char *path = kernel_fixture(name);
	char cmd[8192];

	if (!path)
		return false;
	snprintf(cmd, sizeof(cmd), "cp %s %s", path, fx_path(rel));
	ck_assert(system(cmd) == 0);
	return true;
}

#define DEVICE_90 "{'ev':'device','t_us':1700000000000100,'tid':4242,'fn':'cudaGetDeviceProperties'," \
		  "'device':0,'name':'NVIDIA H200','cc_major':9,'cc_minor':0}"
#define DEVICE_86 "{'ev':'device','t_us':1700000000000100,'tid':4242,'fn':'cudaDeviceGetAttribute'," \
		  "'device':0,'cc_major':8}", \
		  "{'ev':'device','t_us':1700000000000100,'tid':4242,'fn':'cudaDeviceGetAttribute'," \
		  "'device':0,'cc_minor':6}"
#define OPEN_PROG "{'ev':'open','t_us':1700000000000050,'path':'$TMP/prog','ns':0,'main':true}"
#define CALL_209 "{'ev':'call','t_us':1700000000000200,'tid':4242,'fn':'__cudaLaunchKernel','status':209," \
		 "'status_name':'cudaErrorNoKernelImageForDevice','lib':'/usr/lib/libcudart.so.13'}"

START_TEST(test_rule_209_names_the_file_and_the_device)
{
	struct fx_diag d;
	const struct gt_finding *f;

	if (!copy_fixture("sm80.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, CALL_209, FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_ERROR);
	ck_assert(strstr(f->summary, "sm_90") && strstr(f->summary, "prog (sm_80)"));
	ck_assert(fx_evidence_has(f, "compute_capability", "9.0"));
	ck_assert(fx_evidence_has(f, "fn", "__cudaLaunchKernel"));
	ck_assert(fx_evidence_has(f, "fit", "none"));
	ck_assert(strstr(f->fix, "TORCH_CUDA_ARCH_LIST") && strstr(f->fix, "code=sm_90"));
	fx_free(&d);
}
END_TEST

/* Healthy stays healthy: SASS for the same major and a lower minor runs. */
START_TEST(test_rule_matching_sass_is_silent)
{
	struct fx_diag d;

	if (!copy_fixture("sm80.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_86, FX_END, NULL);
	ck_assert_uint_eq(fx_count(&d, GT_F_NO_KERNEL_IMAGE), 0);
	fx_free(&d);
	if (!copy_fixture("sm80_sm90_ptx90.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, FX_END, NULL);
	ck_assert_uint_eq(fx_count(&d, GT_F_NO_KERNEL_IMAGE), 0);
	fx_free(&d);
}
END_TEST

START_TEST(test_rule_without_a_209_is_a_warning)
{
	struct fx_diag d;
	const struct gt_finding *f;

	if (!copy_fixture("sm90a_sm100f_ptx100f.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_86, FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_WARNING);
	fx_free(&d);
}
END_TEST

START_TEST(test_rule_ptx_only_is_info)
{
	struct fx_diag d;
	const struct gt_finding *f;

	if (!copy_fixture("ptx80_uncompressed.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_INFO);
	ck_assert(fx_evidence_has(f, "fit", "jit") && fx_evidence_has(f, "via", "compute_80"));
	ck_assert(strstr(f->fix, "CUDA_CACHE_PATH") && strstr(f->fix, "CUDA_CACHE_MAXSIZE"));
	fx_free(&d);
}
END_TEST

#define OPEN_LIB(name) "{'ev':'open','t_us':1700000000000060,'path':'$TMP/" name "','soname':'" name "','ns':0}"

/* As on the H200 with torch 2.11: libcufile.so.0 carries sm_75, sm_80,
 * sm_86 and a little compute_86 PTX. A library's few kilobytes of PTX
 * compile in milliseconds: no line on a healthy run. */
START_TEST(test_rule_small_ptx_in_a_library_is_silent)
{
	struct fx_diag d;

	fx_build_lib("prog", NULL);
	if (!copy_fixture("ptx80_uncompressed.o", "libsmallptx.so"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, OPEN_LIB("libsmallptx.so"), DEVICE_90, FX_END, NULL);
	ck_assert_uint_eq(fx_count(&d, GT_F_NO_KERNEL_IMAGE), 0);
	fx_free(&d);
}
END_TEST

/* A library with megabytes of PTX for the device and no SASS: the info
 * line, with the size to compile. */
START_TEST(test_rule_large_ptx_in_a_library_is_info)
{
	unsigned char buf[256] = { 0 };
	unsigned long long big = 3ull << 20, flags = 0x8000;
	char cmd[8192];
	struct fx_diag d;
	const struct gt_finding *f;
	size_t n;

	fx_build_lib("prog", NULL);
	fx_build_lib("libbigptx.so", NULL);
	n = put_container(buf, 1, 80, 8, 64 + 8);
	memcpy(buf + 16 + 40, &flags, 8);
	memcpy(buf + 16 + 56, &big, 8);
	fx_put("bigptx.bin", (const char *)buf, n);
	snprintf(cmd, sizeof(cmd), "objcopy --add-section .nv_fatbin=%s --set-section-flags .nv_fatbin=alloc,readonly %s",
		 fx_path("bigptx.bin"), fx_path("libbigptx.so"));
	ck_assert_int_eq(system(cmd), 0);
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, OPEN_LIB("libbigptx.so"), DEVICE_90, FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_INFO);
	ck_assert(fx_evidence_has(f, "via", "compute_80"));
	fx_free(&d);
}
END_TEST

#define CALL_222 "{'ev':'call','t_us':1700000000000200,'tid':4242,'fn':'__cudaLaunchKernel','status':222," \
		 "'status_name':'cudaErrorUnsupportedPtxVersion','lib':'/usr/lib/libcudart.so.13'}"
#define DRIVER_IS(v) "{'ev':'version','t_us':1700000000000150,'lib':'/usr/lib/libcuda.so.1','fn':'cuDriverGetVersion'," \
		     "'status':0,'value':" #v "}"

/* NVIDIA/nvbandwidth#61, ComputationalRadiationPhysics/cuda_memtest#31: a
 * program whose only code for the GPU is PTX of a newer CUDA than the
 * driver's (nvcc 13.0's PTX ISA 9.0 on a driver of CUDA 12.8): its kernels
 * answer 222. The file is named, with the driver's CUDA and the PTX's. */
START_TEST(test_rule_222_ptx_too_new_for_the_driver)
{
	struct fx_diag d;
	const struct gt_finding *f;

	if (!copy_fixture("ptx80_uncompressed.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, DRIVER_IS(12080), CALL_222, FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_ERROR);
	ck_assert_msg(strstr(f->summary, "CUDA error 222: ") && strstr(f->summary, "prog (compute_80)") &&
			      strstr(f->summary, "driver (CUDA 12.8) cannot compile the PTX of 1 of them (PTX of CUDA 13.0)"),
		      "%s", f->summary);
	ck_assert(fx_evidence_has(f, "fit", "none") && fx_evidence_has(f, "via", "compute_80"));
	ck_assert(fx_evidence_has(f, "ptx_needs_cuda", "13.0"));
	ck_assert(fx_evidence_has(f, "cuda_version", "12.8"));
	ck_assert(fx_evidence_has(f, "status_name", "cudaErrorUnsupportedPtxVersion"));
	ck_assert_msg(strstr(f->fix, "Upgrade the NVIDIA driver to one of CUDA 13.0") && strstr(f->fix, "SASS for sm_90"),
		      "%s", f->fix);
	ck_assert_uint_eq(fx_count(&d, GT_F_NO_KERNEL_IMAGE), 1);
	fx_free(&d);

	/* no launch yet: the same files are a warning */
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, DRIVER_IS(12080), FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_WARNING);
	fx_free(&d);

	/* healthy: a driver of CUDA 13.0 compiles it (the info line, as before) */
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, DRIVER_IS(13000), FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_INFO);
	ck_assert(fx_evidence_has(f, "fit", "jit"));
	fx_free(&d);
}
END_TEST

/* A 222 with SASS for the device in every file: the PTX came from no file
 * (NVRTC, Triton): said so, with no file blamed. */
START_TEST(test_rule_222_from_run_time_ptx)
{
	struct fx_diag d;
	const struct gt_finding *f;

	if (!copy_fixture("sm80_sm90_ptx90.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, DRIVER_IS(12080), CALL_222, FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_ERROR);
	ck_assert_msg(strstr(f->summary, "CUDA error 222: the driver (CUDA 12.8) cannot compile PTX") &&
			      strstr(f->summary, "made at run time"), "%s", f->summary);
	ck_assert(!strstr(f->summary, "prog"));
	ck_assert(fx_evidence_has(f, "fn", "__cudaLaunchKernel"));
	ck_assert_uint_eq(fx_count(&d, GT_F_NO_KERNEL_IMAGE), 1);
	fx_free(&d);

	/* a program that runs here only through PTX, and a driver whose CUDA
	 * the trace does not say: its PTX may be the one, so "made at run time"
	 * is not said */
	if (!copy_fixture("ptx80_uncompressed.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, CALL_222, FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_ERROR);
	ck_assert_msg(strstr(f->summary, "CUDA error 222") && strstr(f->summary, "which PTX is not known") &&
			      !strstr(f->summary, "run time"), "%s", f->summary);
	fx_free(&d);
}
END_TEST

START_TEST(test_rule_209_without_device)
{
	struct fx_diag d;
	const struct gt_finding *f;

	if (!copy_fixture("sm80.o", "prog"))
		return;
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, CALL_209, FX_END, NULL);
	f = fx_finding(&d, GT_F_NO_KERNEL_IMAGE);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, GT_SEV_ERROR);
	ck_assert(strstr(f->summary, "does not say which device"));
	fx_free(&d);
}
END_TEST

/* A library with no device code is never judged. */
START_TEST(test_rule_ignores_files_without_device_code)
{
	struct fx_diag d;

	fx_build_lib("prog", NULL);
	fx_diagnose(&d, FX_HEADER, OPEN_PROG, DEVICE_90, FX_END, NULL);
	ck_assert_uint_eq(fx_count(&d, GT_F_NO_KERNEL_IMAGE), 0);
	fx_free(&d);
}
END_TEST

Suite *fatbin_suite(void)
{
	Suite *s = suite_create("fatbin");
	TCase *tc = tcase_create("fatbin");

	fx_add_fixtures(tc);
	tcase_add_test(tc, test_sass_only);
	tcase_add_test(tc, test_two_sass_and_compressed_ptx);
	tcase_add_test(tc, test_arch_specific_and_family_uncompressed);
	tcase_add_test(tc, test_all_compressed);
	tcase_add_test(tc, test_ptx_only_uncompressed);
	tcase_add_test(tc, test_relocatable);
	tcase_add_test(tc, test_no_device_code);
	tcase_add_test(tc, test_cubin_without_kernel);
	tcase_add_test(tc, test_not_elf);
	tcase_add_test(tc, test_hand_made_sections);
	tcase_add_test(tc, test_ptx_bytes);
	tcase_add_test(tc, test_compatibility_rules);
	tcase_add_test(tc, test_fit_prefers_sass_and_skips_relocatable);
	tcase_add_test(tc, test_parse_arch);
	tcase_add_test(tc, test_ptx_isa_version);
	tcase_add_test(tc, test_ptx_isa_cuda);
	tcase_add_test(tc, test_ptx_too_new_for_the_driver);
	tcase_add_test(tc, test_rule_222_ptx_too_new_for_the_driver);
	tcase_add_test(tc, test_rule_222_from_run_time_ptx);
	tcase_add_test(tc, test_rule_209_names_the_file_and_the_device);
	tcase_add_test(tc, test_rule_matching_sass_is_silent);
	tcase_add_test(tc, test_rule_without_a_209_is_a_warning);
	tcase_add_test(tc, test_rule_ptx_only_is_info);
	tcase_add_test(tc, test_rule_small_ptx_in_a_library_is_silent);
	tcase_add_test(tc, test_rule_large_ptx_in_a_library_is_info);
	tcase_add_test(tc, test_rule_209_without_device);
	tcase_add_test(tc, test_rule_ignores_files_without_device_code);
	suite_add_tcase(s, tc);
	return s;
}
