/* Unit tests: ELF facts and rpath expansion (host/elf_info.c), and which installer
 * owns a file (host/package.c), on real system files and fake trees under /tmp. */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/list_index.h"
#include "host/elf_info.h"
#include "host/package.h"
#include "host/real_path.h"
#include "tests/unit/unit.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define CUBLAS "/usr/local/cuda-13.0/lib/libcublas.so.13"

static char tmp[64];

static void make_tmp(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/gt-unit-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void remove_tmp(void)
{
	nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* tmp + "/" + rel into a static buffer: one at a time is all the tests need. */
static const char *at(const char *rel)
{
	static char path[2][PATH_MAX];
	static int turn;

	turn ^= 1;
	snprintf(path[turn], sizeof(path[turn]), "%s/%s", tmp, rel);
	return path[turn];
}

/* Writes tmp/rel, creating its folders. */
static void put(const char *rel, const char *text)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	for (slash = strchr(path + strlen(tmp) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void copy_prefix(const char *from, const char *rel, long bytes)
{
	FILE *in = fopen(from, "rb"), *out;
	char buf[65536];
	size_t n;

	ck_assert_ptr_nonnull(in);
	put(rel, "");
	out = fopen(at(rel), "wb");
	ck_assert_ptr_nonnull(out);
	while (bytes > 0 && (n = fread(buf, 1, bytes < (long)sizeof(buf) ? (size_t)bytes : sizeof(buf), in)) > 0) {
		fwrite(buf, 1, n, out);
		bytes -= (long)n;
	}
	fclose(in);
	fclose(out);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static bool has_needed(const struct host_elf_info *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->nneeded; i++)
		if (strcmp(e->needed[i], name) == 0)
			return true;
	return false;
}

/* ---- ELF ---- */

START_TEST(test_elf_libc)
{
	struct host_elf_info e;

	ck_assert(host_elf_read(LIBC, &e));
	ck_assert(e.ok);
	ck_assert_int_eq(e.elf_class, ELFCLASS64);
	ck_assert_int_eq(e.machine, EM_X86_64);
	ck_assert_str_eq(e.soname, "libc.so.6");
	ck_assert(has_needed(&e, "ld-linux-x86-64.so.2"));
	ck_assert_ptr_null(e.rpath);
	ck_assert_ptr_null(e.runpath);
	ck_assert(!e.has_fatbin);
	host_elf_free(&e);
}
END_TEST

/* Links a tiny library now, with either DT_RUNPATH or DT_RPATH. */
static void build_lib(const char *rel, const char *dtags)
{
	char cmd[1024];

	put("src/gt.c", "int gt_fn(void) { return 1; }\n");
	snprintf(cmd, sizeof(cmd),
		 "cc -shared -fPIC -o %s %s -Wl,-soname,libgt.so.1 -Wl,%s "
		 "-Wl,-rpath,'$ORIGIN/../lib:/opt/gt' -Wl,--no-as-needed -lm",
		 at(rel), at("src/gt.c"), dtags);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_elf_runpath_and_rpath)
{
	struct host_elf_info e;

	make_tmp();
	ck_assert_int_eq(mkdir(at("lib"), 0755), 0);
	build_lib("lib/libgt.so.1", "--enable-new-dtags");
	build_lib("lib/libgt_old.so.1", "--disable-new-dtags");
	ck_assert(host_elf_read(at("lib/libgt.so.1"), &e));
	ck_assert_str_eq(e.soname, "libgt.so.1");
	ck_assert_str_eq(e.runpath, "$ORIGIN/../lib:/opt/gt");
	ck_assert_ptr_null(e.rpath);
	ck_assert(has_needed(&e, "libm.so.6"));
	host_elf_free(&e);
	ck_assert(host_elf_read(at("lib/libgt_old.so.1"), &e));
	ck_assert_str_eq(e.rpath, "$ORIGIN/../lib:/opt/gt");
	ck_assert_ptr_null(e.runpath);
	host_elf_free(&e);
	remove_tmp();
}
END_TEST

START_TEST(test_elf_fatbin)
{
	struct host_elf_info e;

	if (access(CUBLAS, R_OK) != 0)
		return;  /* no CUDA toolkit here */
	ck_assert(host_elf_read(CUBLAS, &e));
	ck_assert(e.has_fatbin);
	ck_assert_str_eq(e.soname, "libcublas.so.13");
	ck_assert_str_eq(e.runpath, "$ORIGIN");
	host_elf_free(&e);
}
END_TEST

START_TEST(test_elf_32bit)
{
	static const char *const candidates[] = { "/usr/lib32/libc.so.6", "/lib/i386-linux-gnu/libc.so.6" };
	struct host_elf_info e;
	size_t i;

	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (access(candidates[i], R_OK) != 0)
			continue;  /* no multilib here */
		ck_assert(host_elf_read(candidates[i], &e));
		ck_assert_int_eq(e.elf_class, ELFCLASS32);
		ck_assert_int_eq(e.machine, EM_386);
		ck_assert_str_eq(e.soname, "libc.so.6");
		host_elf_free(&e);
	}
}
END_TEST

static void expect_not_elf(const char *path, const char *error)
{
	struct host_elf_info e;

	ck_assert_msg(!host_elf_read(path, &e), "%s read as ELF", path);
	ck_assert(!e.ok);
	ck_assert_msg(strncmp(e.error, error, strlen(error)) == 0, "%s: '%s'", path, e.error);
	ck_assert_ptr_null(e.soname);
	host_elf_free(&e);
}

START_TEST(test_elf_corrupt)
{
	long size = file_size(LIBC);
	char noise[4096];
	unsigned seed = 7;
	size_t i;

	make_tmp();
	ck_assert_int_gt(size, 4096);
	copy_prefix(LIBC, "half.so", size / 2);
	copy_prefix(LIBC, "short_tail.so", size - 100);
	copy_prefix(LIBC, "header_only.so", 40);
	for (i = 0; i < sizeof(noise) - 1; i++)
		noise[i] = (char)(1 + rand_r(&seed) % 255);
	noise[sizeof(noise) - 1] = 0;
	put("random.so", noise);
	put("empty.so", "");
	put("libfoo.so", "/* GNU ld script */\nGROUP ( /lib/libfoo.so.1 )\n");
	mkdir(at("dir.so"), 0755);

	expect_not_elf(at("half.so"), "truncated");
	expect_not_elf(at("short_tail.so"), "truncated");
	expect_not_elf(at("header_only.so"), "truncated");
	expect_not_elf(at("random.so"), "not an ELF file");
	expect_not_elf(at("empty.so"), "not an ELF file");
	expect_not_elf(at("libfoo.so"), "not an ELF file");
	expect_not_elf(at("dir.so"), "cannot open: ");
	expect_not_elf(at("missing.so"), "cannot open: ");
	remove_tmp();
}
END_TEST

/* Flipped bytes all over a real library: any answer will do, as long as there is one. */
START_TEST(test_elf_mangled)
{
	long size = file_size(LIBC);
	struct host_elf_info e;
	unsigned seed = 42;
	FILE *f;
	int round, k;

	make_tmp();
	for (round = 0; round < 40; round++) {
		copy_prefix(LIBC, "m.so", size);
		f = fopen(at("m.so"), "r+b");
		ck_assert_ptr_nonnull(f);
		for (k = 0; k < 24; k++) {
			/* the headers at either end are where a bad byte matters */
			long pos = k % 2 ? rand_r(&seed) % 64 : size - 1 - rand_r(&seed) % 8192;

			fseek(f, pos, SEEK_SET);
			fputc(rand_r(&seed) & 0xff, f);
		}
		fclose(f);
		host_elf_read(at("m.so"), &e);
		ck_assert(e.ok || e.error[0]);
		host_elf_free(&e);
	}
	remove_tmp();
}
END_TEST

/* ---- search path expansion ---- */

static void expect_dirs(const char *list, const char *object, bool main_program,
			const char *const *want, size_t nwant)
{
	char **dirs;
	size_t n = host_expand_search_path(list, object, main_program, &dirs), i;

	ck_assert_msg(n == nwant, "'%s': %zu folders, want %zu", list, n, nwant);
	for (i = 0; i < n; i++)
		ck_assert_str_eq(dirs[i], want[i]);
	host_free_strings(dirs, n);
}

#define EXPECT_DIRS(list, object, main_program, ...) do { \
	const char *const want_[] = { __VA_ARGS__ }; \
	expect_dirs(list, object, main_program, want_, sizeof(want_) / sizeof(want_[0])); \
} while (0)

START_TEST(test_expand_tokens)
{
	EXPECT_DIRS("$ORIGIN/../lib:${ORIGIN}/x", "/opt/a/lib/libz.so.1", false,
		    "/opt/a/lib/../lib", "/opt/a/lib/x");
	EXPECT_DIRS("$LIB:/p/$PLATFORM:${LIB}/y", "/opt/a/libz.so", false,
		    "lib/x86_64-linux-gnu", "/p/x86_64", "lib/x86_64-linux-gnu/y");
	/* not tokens to ld.so: kept as written */
	EXPECT_DIRS("$ORIGINAL:/q/$FOO:${ORIGIN", "/opt/a/libz.so", false,
		    "$ORIGINAL", "/q/$FOO", "${ORIGIN");
	EXPECT_DIRS("$ORIGIN", "/libroot.so", false, "/");
}
END_TEST

START_TEST(test_expand_lists)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16];
	char **dirs;
	size_t n;

	EXPECT_DIRS("", "/a/libz.so", false, ".");
	EXPECT_DIRS("/x::/y/", "/a/libz.so", false, "/x", ".", "/y");
	EXPECT_DIRS("/x:/x/:/:$ORIGIN:/a", "/a/libz.so", false, "/x", "/", "/a");
	/* no object, no $ORIGIN: ld.so drops such entries */
	EXPECT_DIRS("$ORIGIN/lib:/keep", NULL, false, "/keep");

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/rel/lib", cwd);
	n = host_expand_search_path("$ORIGIN", "rel/lib/libz.so", false, &dirs);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(dirs[0], want);
	host_free_strings(dirs, n);
	n = host_expand_search_path(NULL, "/a/libz.so", false, &dirs);
	ck_assert_uint_eq(n, 0);
	host_free_strings(dirs, n);
}
END_TEST

/* A library's $ORIGIN is the folder it was opened by; the program's is resolved. */
/* Secure mode (a set-id program) and the loader's $PLATFORM (issue 33):
 * $ORIGIN only alone at the start of an element, and in the program's own
 * lists only under a trusted folder, as _dl_dst_substitute has it. */
START_TEST(test_expand_secure_and_platform)
{
	static const char *const trusted[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib" };
	const struct host_dst secure = { .platform = "haswell", .secure = true, .trusted = trusted, .ntrusted = 4 };
	const struct host_dst plain = { .platform = "haswell" };
	char **dirs;
	size_t n;

	n = host_expand_search_path_as("$ORIGIN/sub:/opt/$ORIGIN:${ORIGIN}:$PLATFORM/x", "/opt/app/libz.so", false,
				       &secure, &dirs);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(dirs[0], "/opt/app/sub");   /* a library's: not checked against the trusted folders */
	ck_assert_str_eq(dirs[1], "/opt/app");
	ck_assert_str_eq(dirs[2], "haswell/x");
	host_free_strings(dirs, n);
	/* the program's own $ORIGIN: kept only under a trusted folder ("." and ".." resolved) */
	n = host_expand_search_path_as("$ORIGIN/sub:$ORIGIN/../../../tmp:$ORIGIN/../lib", "/usr/lib/x86_64-linux-gnu/no-such-prog",
				       true, &secure, &dirs);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(dirs[0], "/usr/lib/x86_64-linux-gnu/sub");
	ck_assert_str_eq(dirs[1], "/usr/lib/x86_64-linux-gnu/../lib");
	host_free_strings(dirs, n);
	n = host_expand_search_path_as("$ORIGIN/sub", "/tmp/no-such-dir/prog", true, &secure, &dirs);
	ck_assert_uint_eq(n, 0);
	host_free_strings(dirs, n);
	n = host_expand_search_path_as("$ORIGIN/sub:/opt/$ORIGIN", "/tmp/no-such-dir/prog", true, &plain, &dirs);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(dirs[1], "/opt//tmp/no-such-dir");
	host_free_strings(dirs, n);
}
END_TEST

START_TEST(test_expand_origin_links)
{
	char real_bin[PATH_MAX];

	make_tmp();
	put("real/bin/prog", "");
	put("real/lib/libz.so", "");
	ck_assert_int_eq(symlink(at("real/bin"), at("linkbin")), 0);
	ck_assert_int_eq(symlink(at("real/lib"), at("linklib")), 0);
	ck_assert_ptr_nonnull(realpath(at("real/bin"), real_bin));
	EXPECT_DIRS("$ORIGIN", at("linklib/libz.so"), false, at("linklib"));
	expect_dirs("$ORIGIN", at("linkbin/prog"), true, (const char *const[]){ real_bin }, 1);
	remove_tmp();
}
END_TEST

/* ---- packages ---- */

static void use_fake_dpkg(void)
{
	put("dpkg/status", "");
	mkdir(at("dpkg/info"), 0755);
	setenv("GPUTRACE_DPKG_ROOT", at("dpkg"), 1);
}

static void expect_package(const char *path, const char *manager, const char *name,
			   const char *version, const char *record)
{
	struct host_package p;

	ck_assert_msg(host_package_of(path, &p), "%s: no package", path);
	ck_assert_str_eq(p.manager, manager);
	ck_assert_str_eq(p.name, name);
	ck_assert_str_eq(p.version, version);
	if (record)
		ck_assert_str_eq(p.record, record);
}

static void expect_no_package(const char *path)
{
	struct host_package p;

	ck_assert_msg(!host_package_of(path, &p), "%s: claimed by %s %s", path, p.manager, p.name);
	ck_assert_str_eq(p.manager, "");
}

START_TEST(test_package_pip)
{
	make_tmp();
	use_fake_dpkg();
	put("venv/lib/python3.11/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA",
	    "Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n\nName: not-this\n");
	put("venv/lib/python3.11/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD",
	    "nvidia/cudnn/lib/libcudnn.so.9,sha256=abc,123\r\n"
	    "\"nvidia/cudnn/lib/odd,\"\"name\"\".so\",,\n"
	    "../../../bin/cudnn-tool,,\n"
	    "nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD,,\n");
	put("venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "x");
	/* no METADATA: name and version from the folder's name */
	put("venv/lib/python3.11/site-packages/torch-2.9.0+cu130.dist-info/RECORD", "torch/lib/libtorch.so,,\n");
	put("venv/lib/python3.11/site-packages/torch/lib/libtorch.so", "x");
	put("venv/lib/python3.11/site-packages/stray.so", "x");
	ck_assert_int_eq(symlink(at("venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9"),
				 at("libcudnn-link.so")), 0);

	expect_package(at("venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9"), "pip",
		       "nvidia-cudnn-cu13", "9.19.0.56",
		       at("venv/lib/python3.11/site-packages/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD"));
	expect_package(at("venv/lib/python3.11/site-packages/nvidia/cudnn/lib/../lib/odd,\"name\".so"),
		       "pip", "nvidia-cudnn-cu13", "9.19.0.56", NULL);
	expect_package(at("libcudnn-link.so"), "pip", "nvidia-cudnn-cu13", "9.19.0.56", NULL);
	expect_package(at("venv/lib/python3.11/site-packages/torch/lib/libtorch.so"), "pip", "torch",
		       "2.9.0+cu130", NULL);
	expect_no_package(at("venv/lib/python3.11/site-packages/stray.so"));
	host_package_cache_free();

	/* A library's question looks only at the lines holding ".so" (found
	 * by memmem, not line by line): one in a file that is no library, two
	 * libraries in a row, a blank line, the last line without its newline. */
	put("venv/lib/python3.11/site-packages/many-1.0.dist-info/RECORD",
	    "many/x.sort.py,,\nmany/lib/liba.so.1,,\nmany/lib/libb.so,,\n\nmany/lib/libc.so.2,,");
	put("venv/lib/python3.11/site-packages/many/lib/liba.so.1", "x");
	put("venv/lib/python3.11/site-packages/many/lib/libb.so", "x");
	put("venv/lib/python3.11/site-packages/many/lib/libc.so.2", "x");
	put("venv/lib/python3.11/site-packages/many/x.sort.py", "x");
	expect_package(at("venv/lib/python3.11/site-packages/many/lib/libb.so"), "pip", "many", "1.0", NULL);
	expect_package(at("venv/lib/python3.11/site-packages/many/lib/liba.so.1"), "pip", "many", "1.0", NULL);
	expect_package(at("venv/lib/python3.11/site-packages/many/lib/libc.so.2"), "pip", "many", "1.0", NULL);
	expect_package(at("venv/lib/python3.11/site-packages/many/x.sort.py"), "pip", "many", "1.0", NULL);
	host_package_cache_free();
	remove_tmp();
}
END_TEST

START_TEST(test_package_conda)
{
	make_tmp();
	use_fake_dpkg();
	put("env/conda-meta/cudnn-9.1.0-h1.json",
	    "{\"name\": \"cudnn\", \"version\": \"9.1.0\", \"build\": \"h1\","
	    " \"files\": [\"lib/libcudnn.so.9\", \"lib/python3.11/site-packages/pkg/x.so\"]}");
	put("env/conda-meta/broken.json", "{\"name\": \"broken\", \"files\": [");
	put("env/conda-meta/odd.json", "{\"name\": 3, \"files\": {}}");
	put("env/conda-meta/history", "");
	put("env/lib/libcudnn.so.9", "x");
	/* conda installs Python packages with a dist-info too: conda-meta says it better */
	put("env/lib/python3.11/site-packages/pkg-1.0.dist-info/RECORD", "pkg/x.so,,\npkg/y.so,,\n");
	put("env/lib/python3.11/site-packages/pkg-1.0.dist-info/INSTALLER", "conda\n");
	put("env/lib/python3.11/site-packages/pkg/x.so", "x");
	put("env/lib/python3.11/site-packages/pkg/y.so", "x");
	put("env/lib/libother.so", "x");

	expect_package(at("env/lib/libcudnn.so.9"), "conda", "cudnn", "9.1.0",
		       at("env/conda-meta/cudnn-9.1.0-h1.json"));
	expect_package(at("env/lib/python3.11/site-packages/pkg/x.so"), "conda", "cudnn", "9.1.0", NULL);
	expect_package(at("env/lib/python3.11/site-packages/pkg/y.so"), "pip", "pkg", "1.0", NULL);
	expect_no_package(at("env/lib/libother.so"));
	host_package_cache_free();
	remove_tmp();
}
END_TEST

START_TEST(test_package_dpkg_fake)
{
	struct stat a, b;

	make_tmp();
	put("dpkg/info/libgtfake1:amd64.list",
	    "/.\n/usr\n/usr/lib\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libgtfake.so.1.2\n"
	    "/usr/lib/x86_64-linux-gnu/libgtfake.so.1\n");
	put("dpkg/info/gtfake-tools.list", "/.\n/usr\n/usr/bin\n/usr/bin/gtfake\n");
	put("dpkg/info/libgtfake1:amd64.md5sums", "0 usr/lib/x86_64-linux-gnu/libgtfake.so.9\n");
	put("dpkg/status",
	    "Package: libgtfake1\nStatus: install ok installed\nArchitecture: i386\nVersion: 0.9-1\n\n"
	    "Package: libgtfake1\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.0-2\n"
	    "Description: fake\n a fake\n\n"
	    "Package: gtfake-tools\nStatus: install ok installed\nArchitecture: all\nVersion: 3\n");
	setenv("GPUTRACE_DPKG_ROOT", at("dpkg"), 1);

	expect_package("/usr/lib/x86_64-linux-gnu/libgtfake.so.1", "dpkg", "libgtfake1", "1.0-2",
		       at("dpkg/info/libgtfake1:amd64.list"));
	expect_package("/usr/bin/gtfake", "dpkg", "gtfake-tools", "3", at("dpkg/info/gtfake-tools.list"));
	expect_package("/usr/lib/x86_64-linux-gnu/./libgtfake.so.1.2", "dpkg", "libgtfake1", "1.0-2", NULL);
	/* merged /usr: the other spelling of the same folder */
	if (stat("/lib", &a) == 0 && stat("/usr/lib", &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		expect_package("/lib/x86_64-linux-gnu/libgtfake.so.1", "dpkg", "libgtfake1", "1.0-2", NULL);
	expect_no_package("/usr/lib/x86_64-linux-gnu/libgtfake.so.9");
	expect_no_package("/usr/lib/x86_64-linux-gnu/libgtfake.so");
	expect_no_package("/nonexistent/file");
	expect_no_package("");
	host_package_cache_free();
	remove_tmp();
}
END_TEST

static size_t index_files(void)
{
	glob_t g;
	size_t n;

	if (glob(at("cache/dpkg-*.idx"), 0, NULL, &g) != 0)
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

static bool index_on_disk(void)
{
	struct list_index *ix = list_index_get(LIST_DPKG, at("dpkg"));
	bool from_disk;

	ck_assert_ptr_nonnull(ix);
	from_disk = list_index_from_disk(ix);
	list_index_free(ix);
	return from_disk;
}

/* Issue 29: dpkg's lists are indexed once, the index kept on disk until the
 * info folder changes; a list still has the last word. */
START_TEST(test_package_dpkg_index)
{
	make_tmp();
	put("dpkg/info/libgtfake1:amd64.list", "/.\n/usr\n/usr/lib/x86_64-linux-gnu/libgtfake.so.1\n");
	put("dpkg/info/gtfake-tools.list", "/.\n/usr\n/usr/bin\n/usr/bin/gtfake\n");
	put("dpkg/status", "Package: libgtfake1\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.0-2\n\n"
	    "Package: gtfake-tools\nStatus: install ok installed\nArchitecture: all\nVersion: 3\n\n"
	    "Package: gtfake-new\nStatus: install ok installed\nArchitecture: all\nVersion: 4\n");
	setenv("GPUTRACE_DPKG_ROOT", at("dpkg"), 1);
	setenv("GPUTRACE_CACHE_DIR", at("cache"), 1);

	expect_package("/usr/lib/x86_64-linux-gnu/libgtfake.so.1", "dpkg", "libgtfake1", "1.0-2",
		       at("dpkg/info/libgtfake1:amd64.list"));
	ck_assert_uint_eq(index_files(), 1);
	ck_assert(index_on_disk());
	host_package_cache_free();
	/* from the file this time: the same answers */
	expect_package("/usr/bin/gtfake", "dpkg", "gtfake-tools", "3", at("dpkg/info/gtfake-tools.list"));
	expect_no_package("/usr/bin/gtnew");
	host_package_cache_free();

	/* a new list: the folder changed, the index is made again */
	usleep(20000);
	put("dpkg/info/gtfake-new.list", "/.\n/usr/bin/gtnew\n");
	ck_assert(!index_on_disk());
	expect_package("/usr/bin/gtnew", "dpkg", "gtfake-new", "4", at("dpkg/info/gtfake-new.list"));
	ck_assert(index_on_disk());
	host_package_cache_free();

	/* a list rewritten in place (the folder unchanged): the index still
	 * names it, the list says no */
	put("dpkg/info/gtfake-tools.list", "/.\n/usr\n/usr/bin\n");
	expect_no_package("/usr/bin/gtfake");
	expect_package("/usr/lib/x86_64-linux-gnu/libgtfake.so.1", "dpkg", "libgtfake1", "1.0-2", NULL);
	host_package_cache_free();

	/* a cache file that is not an index (or was cut) is made again */
	{
		glob_t g;
		FILE *f;

		ck_assert_int_eq(glob(at("cache/dpkg-*.idx"), 0, NULL, &g), 0);
		f = fopen(g.gl_pathv[0], "w");
		ck_assert_ptr_nonnull(f);
		fputs("GTDPKGI1 but cut", f);
		fclose(f);
		globfree(&g);
	}
	ck_assert(!index_on_disk());
	expect_package("/usr/bin/gtnew", "dpkg", "gtfake-new", "4", NULL);
	ck_assert(index_on_disk());
	unsetenv("GPUTRACE_CACHE_DIR");
	host_package_cache_free();
	remove_tmp();
}
END_TEST

static size_t cache_files(const char *pattern)
{
	glob_t g;
	size_t n;

	if (glob(at(pattern), 0, NULL, &g) != 0)
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

static bool pip_index_on_disk(const char *site)
{
	struct list_index *ix = list_index_get(LIST_PIP, at(site));
	bool from_disk;

	ck_assert_ptr_nonnull(ix);
	from_disk = list_index_from_disk(ix);
	list_index_free(ix);
	return from_disk;
}

#define SITE "venv/lib/python3.12/site-packages"

/* Issue 29: reading every RECORD of the H200's venv was 72 ms of each
 * end-of-run diagnosis. The RECORDs are indexed once (kept on disk while the
 * site folder is unchanged: pip adds or removes a dist-info folder on every
 * install, upgrade and uninstall), and only the RECORDs that may name a path
 * are read to answer for it. */
START_TEST(test_package_pip_index)
{
	make_tmp();
	use_fake_dpkg();
	put(SITE "/torch-2.11.0.dist-info/METADATA", "Name: torch\nVersion: 2.11.0\n");
	put(SITE "/torch-2.11.0.dist-info/RECORD",
	    "torch/lib/libtorch_cuda.so,,\n\"torch/lib/a,b.so\",,\ntorch/version.py,,\ntorch/lib/libgomp.so.1,,\n");
	put(SITE "/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA", "Name: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n");
	put(SITE "/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD", "./nvidia/cudnn/lib/libcudnn.so.9,,\n");
	put(SITE "/torch/lib/libtorch_cuda.so", "x");
	put(SITE "/torch/lib/a,b.so", "x");
	put(SITE "/nvidia/cudnn/lib/libcudnn.so.9", "x");
	put(SITE "/stray.so", "x");
	/* small and no GPUTRACE_CACHE_DIR: made in memory, no file */
	setenv("XDG_CACHE_HOME", at("xdg"), 1);
	expect_package(at(SITE "/torch/lib/libtorch_cuda.so"), "pip", "torch", "2.11.0",
		       at(SITE "/torch-2.11.0.dist-info/RECORD"));
	ck_assert_uint_eq(cache_files("xdg/gputrace/pip-*.idx"), 0);
	/* a library's question reads the RECORD's libraries; another file's, the rest */
	put(SITE "/torch/version.py", "x");
	put(SITE "/torch/lib/libgomp.so.1", "x");
	expect_package(at(SITE "/torch/lib/libgomp.so.1"), "pip", "torch", "2.11.0", NULL);
	expect_package(at(SITE "/torch/version.py"), "pip", "torch", "2.11.0", NULL);
	host_package_cache_free();

	setenv("GPUTRACE_CACHE_DIR", at("cache"), 1);
	ck_assert(!pip_index_on_disk(SITE));
	ck_assert_uint_eq(cache_files("cache/pip-*.idx"), 1);
	ck_assert(pip_index_on_disk(SITE));
	expect_package(at(SITE "/torch/lib/a,b.so"), "pip", "torch", "2.11.0", NULL);
	expect_package(at(SITE "/nvidia/cudnn/lib/libcudnn.so.9"), "pip", "nvidia-cudnn-cu13", "9.19.0.56", NULL);
	expect_no_package(at(SITE "/stray.so"));
	host_package_cache_free();

	/* pip installs a wheel: a new dist-info folder, the index is made again */
	usleep(20000);
	put(SITE "/stray-1.0.dist-info/RECORD", "stray.so,,\n");
	ck_assert(!pip_index_on_disk(SITE));
	expect_package(at(SITE "/stray.so"), "pip", "stray", "1.0", NULL);
	ck_assert(pip_index_on_disk(SITE));
	host_package_cache_free();

	/* a RECORD rewritten in place (the folder unchanged): the index still
	 * names it, the RECORD says no */
	put(SITE "/stray-1.0.dist-info/RECORD", "other.so,,\n");
	expect_no_package(at(SITE "/stray.so"));
	/* a dpkg index (of the fake dpkg, asked for stray.so above) is never
	 * taken for a pip one: put in the pip file's place, it is made again */
	{
		glob_t d, p;
		char cmd[3 * PATH_MAX];

		ck_assert_int_eq(glob(at("cache/dpkg-*.idx"), 0, NULL, &d), 0);
		ck_assert_int_eq(glob(at("cache/pip-*.idx"), 0, NULL, &p), 0);
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", d.gl_pathv[0], p.gl_pathv[0]);
		ck_assert_int_eq(system(cmd), 0);
		globfree(&d);
		globfree(&p);
	}
	ck_assert(!pip_index_on_disk(SITE));
	unsetenv("GPUTRACE_CACHE_DIR");
	unsetenv("XDG_CACHE_HOME");
	host_package_cache_free();
	remove_tmp();
}
END_TEST

/* The index's order at scale (list_index.c sorts by a radix sort of the
 * hash since stop 50): each of 6,000 paths in three RECORDs is found in its
 * own RECORD alone, quoted and "./" paths as pip means them; a path that
 * three RECORDs name gives the three, in the order the lists were read
 * (readdir's, as list_index.c reads them), on a fresh index and on one read
 * back from disk. A missorted index fails the binary search here. */
START_TEST(test_list_index_many_paths)
{
	static const char *const dists[] = { "alpha-1.0.dist-info", "beta-2.0.dist-info", "gamma-3.0.dist-info" };
	const char *order[3], *names[8];
	char rel[PATH_MAX], path[64];
	size_t d, i, n, seen = 0;
	struct list_index *ix;
	struct dirent *de;
	int round;
	DIR *dir;

	make_tmp();
	for (d = 0; d < 3; d++) {
		FILE *f;

		snprintf(rel, sizeof(rel), SITE "/%s/RECORD", dists[d]);
		put(rel, "");
		f = fopen(at(rel), "w");
		ck_assert_ptr_nonnull(f);
		fputs("shared/lib/libboth.so,,\n", f);
		for (i = 0; i < 2000; i++) {
			if (i % 100 == 7)
				fprintf(f, "\"pkg%zu/odd,name_%zu.py\",sha256=x,1\n", d, i);
			else if (i % 100 == 9)
				fprintf(f, "./pkg%zu/mod_%zu.py,sha256=x,1\r\n", d, i);
			else
				fprintf(f, "pkg%zu/mod_%zu.py,sha256=x,1\n", d, i);
		}
		fclose(f);
	}
	dir = opendir(at(SITE));
	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)) != NULL)
		for (d = 0; d < 3; d++)
			if (strcmp(de->d_name, dists[d]) == 0)
				order[seen++] = dists[d];
	closedir(dir);
	ck_assert_uint_eq(seen, 3);
	setenv("GPUTRACE_CACHE_DIR", at("cache"), 1);
	for (round = 0; round < 2; round++) {
		ix = list_index_get(LIST_PIP, at(SITE));
		ck_assert_ptr_nonnull(ix);
		ck_assert(list_index_from_disk(ix) == (round == 1));
		for (d = 0; d < 3; d++)
			for (i = 0; i < 2000; i++) {
				if (i % 100 == 7)
					snprintf(path, sizeof(path), "pkg%zu/odd,name_%zu.py", d, i);
				else
					snprintf(path, sizeof(path), "pkg%zu/mod_%zu.py", d, i);
				n = list_index_lists(ix, path, strlen(path), names, 8);
				ck_assert_msg(n == 1 && strcmp(names[0], dists[d]) == 0, "%s: %zu lists", path, n);
			}
		n = list_index_lists(ix, "shared/lib/libboth.so", strlen("shared/lib/libboth.so"), names, 8);
		ck_assert_uint_eq(n, 3);
		for (d = 0; d < 3; d++)
			ck_assert_str_eq(names[d], order[d]);
		/* not the quoted field's raw text, nor a path with its "./" */
		ck_assert_uint_eq(list_index_lists(ix, "\"pkg0/odd", 9, names, 8), 0);
		ck_assert_uint_eq(list_index_lists(ix, "./pkg0/mod_9.py", 15, names, 8), 0);
		list_index_free(ix);
	}
	unsetenv("GPUTRACE_CACHE_DIR");
	remove_tmp();
}
END_TEST

/* A RECORD line's path as list_index.c read it up to stop 49, copying
 * every field a byte at a time: the oracle for its reading in place. */
static size_t record_path_by_copy(const char *line, size_t len, char *out, size_t cap)
{
	size_t i = 0, n = 0;

	if (len && line[0] == '"') {
		for (i = 1; i < len && n + 1 < cap; i++) {
			if (line[i] == '"' && i + 1 < len && line[i + 1] == '"')
				i++;
			else if (line[i] == '"')
				break;
			out[n++] = line[i];
		}
	} else {
		for (; i < len && line[i] != ',' && line[i] != '\r' && n + 1 < cap; i++)
			out[n++] = line[i];
	}
	out[n] = 0;
	if (n >= 2 && out[0] == '.' && out[1] == '/') {
		memmove(out, out + 2, n - 1);
		n -= 2;
	}
	return n;
}

/* 8,000 random lines of quotes, commas, carriage returns, "./" and paths
 * longer than PATH_MAX: each path the copying reader took from a line is in
 * the index the in-place reader made (the hashes on disk from before stop 50
 * stay true only if both read the same bytes), over the radix sort (5,000
 * entries or more). A path named on several lines is there several times. */
START_TEST(test_list_index_record_lines_as_before)
{
	static const char pieces[][8] = { "a", "b/", "./", ".", ",", "\"", "\"\"", "\r", "x.so", "-" };
	char *text, *line, *end, out[PATH_MAX];
	const char *names[8];
	size_t len = 0, cap = 8u << 20, n, found = 0, i, k;
	unsigned seed = 29;
	struct list_index *ix;
	FILE *f;

	make_tmp();
	text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	for (i = 0; i < 8000; i++) {
		size_t pieces_in_line = (seed = seed * 1103515245u + 12345u) >> 16 & 15;

		if (i % 97 == 0)  /* longer than PATH_MAX: the reader keeps its first PATH_MAX - 1 bytes */
			for (k = 0; k < PATH_MAX + 100; k++)
				text[len++] = "abc/"[k % 4];
		for (k = 0; k < pieces_in_line; k++) {
			const char *piece = pieces[((seed = seed * 1103515245u + 12345u) >> 16) % 10];

			memcpy(text + len, piece, strlen(piece));
			len += strlen(piece);
		}
		len += (size_t)sprintf(text + len, "%zu,sha256=x,1\n", i);
	}
	text[len] = 0;
	put(SITE "/random-1.0.dist-info/RECORD", "");
	f = fopen(at(SITE "/random-1.0.dist-info/RECORD"), "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
	unsetenv("GPUTRACE_CACHE_DIR");
	setenv("XDG_CACHE_HOME", at("xdg"), 1);
	ix = list_index_get(LIST_PIP, at(SITE));
	ck_assert_ptr_nonnull(ix);
	for (line = text; *line; line = end + 1) {
		end = strchr(line, '\n');
		n = record_path_by_copy(line, (size_t)(end - line), out, sizeof(out));
		if (n == 0)
			continue;
		ck_assert_msg(list_index_lists(ix, out, n, names, 8) >= 1, "not in the index: %.60s", out);
		found++;
	}
	/* most lines name a path; each one was looked up */
	ck_assert_uint_ge(found, 5000);
	list_index_free(ix);
	unsetenv("XDG_CACHE_HOME");
	free(text);
	remove_tmp();
}
END_TEST

/* Sets the times of tmp/rel to an hour ago (its ctime stays now). */
static void age(const char *rel)
{
	struct timespec hour_ago[2] = { { .tv_sec = time(NULL) - 3600 }, { .tv_sec = time(NULL) - 3600 } };

	ck_assert_int_eq(utimensat(AT_FDCWD, at(rel), hour_ago, 0), 0);
}

/* Issue 29: torch 2.11's RECORD is 1.25 MB, and reading it to confirm what
 * the list index says was ~1 ms of the H200's end-of-run diagnosis (the
 * framework question). A RECORD unchanged since it was hashed says what it
 * said then and is not read again. One changed since (times, size or inode)
 * is read, and so is one changed seconds before the index was made: a change
 * in the same tick of the file system's clock could leave it looking the
 * same. */
#define RECORD_T SITE "/torch-2.11.0.dist-info/RECORD"
START_TEST(test_package_pip_unchanged_record_not_read)
{
	unsigned long reads;

	make_tmp();
	use_fake_dpkg();
	put(SITE "/torch-2.11.0.dist-info/METADATA", "Name: torch\nVersion: 2.11.0\n");
	put(RECORD_T, "torch/lib/libtorch_cuda.so,,\ntorch/lib/libc10.so,,\ntorch/version.py,,\n");
	put(SITE "/torch/lib/libtorch_cuda.so", "x");
	put(SITE "/torch/lib/libc10.so", "x");
	put(SITE "/torch/version.py", "x");
	age(RECORD_T);

	/* its ctime is now: not settled, read to confirm (and kept so on disk) */
	setenv("GPUTRACE_CACHE_DIR", at("cache1"), 1);
	reads = host_pip_records_read();
	expect_package(at(SITE "/torch/lib/libtorch_cuda.so"), "pip", "torch", "2.11.0", at(RECORD_T));
	ck_assert_uint_eq(host_pip_records_read(), reads + 1);
	host_package_cache_free();
	ck_assert(pip_index_on_disk(SITE));
	expect_package(at(SITE "/torch/lib/libc10.so"), "pip", "torch", "2.11.0", NULL);
	ck_assert_uint_eq(host_pip_records_read(), reads + 2);
	host_package_cache_free();

	/* an index made a minute after the RECORD last changed (as the clock
	 * is pretended to say): not read, on the index made now or on the one
	 * read back from its file */
	setenv("GPUTRACE_CACHE_DIR", at("cache2"), 1);
	list_index_pretend_began(time(NULL) + 60);
	reads = host_pip_records_read();
	expect_package(at(SITE "/torch/lib/libtorch_cuda.so"), "pip", "torch", "2.11.0", at(RECORD_T));
	expect_package(at(SITE "/torch/version.py"), "pip", "torch", "2.11.0", at(RECORD_T));
	expect_no_package(at(SITE "/torch/lib/libstray.so"));
	list_index_pretend_began(0);
	host_package_cache_free();
	ck_assert(pip_index_on_disk(SITE));
	expect_package(at(SITE "/torch/lib/libc10.so"), "pip", "torch", "2.11.0", at(RECORD_T));
	ck_assert_uint_eq(host_pip_records_read(), reads);
	host_package_cache_free();

	/* rewritten in place, the same size, its mtime put back: its ctime
	 * moved, so it is read, and it no longer names libc10.so */
	usleep(20000);
	put(RECORD_T, "torch/lib/libtorch_cuda.so,,\ntorch/lib/libc11.so,,\ntorch/version.py,,\n");
	age(RECORD_T);
	ck_assert(pip_index_on_disk(SITE));
	expect_no_package(at(SITE "/torch/lib/libc10.so"));
	ck_assert_uint_eq(host_pip_records_read(), reads + 1);
	expect_package(at(SITE "/torch/lib/libtorch_cuda.so"), "pip", "torch", "2.11.0", at(RECORD_T));
	unsetenv("GPUTRACE_CACHE_DIR");
	host_package_cache_free();
	remove_tmp();
}
END_TEST

START_TEST(test_package_dpkg_libc)
{
	struct host_package p;

	unsetenv("GPUTRACE_DPKG_ROOT");
	if (access("/var/lib/dpkg/status", R_OK) != 0)
		return;  /* not a Debian system */
	ck_assert(host_package_of(LIBC, &p));
	ck_assert_str_eq(p.manager, "dpkg");
	ck_assert_str_eq(p.name, "libc6");
	ck_assert_int_gt(strlen(p.version), 0);
	ck_assert_ptr_nonnull(strstr(p.record, "/info/libc6"));
	host_package_cache_free();
}
END_TEST

/* host_real_path, which keeps every folder's answer, agrees with
 * realpath(3) on every kind of path: links at the end and in the middle,
 * dangling links, gone files, a file taken for a folder, ".", "..",
 * relative paths, doubled and trailing slashes, the root. */
START_TEST(test_real_path_as_realpath)
{
	static const char *const rels[] = {
		"d/file", "d/link_to_file", "linkdir/file", "linkdir/link_to_file", "d/dangling", "d/gone",
		"d/file/below", "d/./file", "d/../d/file", "linkdir/../d/file", "d/sub/..", "d/sub/.",
		"d//file", "d/sub/", "d", "linkdir", "d/chain", "d/loop", "d/abs_link",
	};
	char want[PATH_MAX], got[PATH_MAX], cwd[PATH_MAX];
	const char *others[] = { "/", "/tmp", "/proc/self", "relative/none", ".", ".." };
	size_t i;
	int round;

	make_tmp();
	put("d/file", "x");
	put("d/sub/keep", "x");
	ck_assert_int_eq(symlink("file", at("d/link_to_file")), 0);
	ck_assert_int_eq(symlink("d", at("linkdir")), 0);
	ck_assert_int_eq(symlink("nowhere", at("d/dangling")), 0);
	ck_assert_int_eq(symlink("link_to_file", at("d/chain")), 0);
	ck_assert_int_eq(symlink("loop", at("d/loop")), 0);
	ck_assert_int_eq(symlink(at("d/sub"), at("d/abs_link")), 0);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	/* twice: the second round is answered from what the first kept */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
			const char *path = at(rels[i]);
			bool ok = realpath(path, want) != NULL;

			ck_assert_msg(host_real_path(path, got) == ok, "%s: realpath says %d", rels[i], ok);
			if (ok)
				ck_assert_str_eq(got, want);
		}
		for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
			bool ok = realpath(others[i], want) != NULL;

			ck_assert_msg(host_real_path(others[i], got) == ok, "%s: realpath says %d", others[i], ok);
			if (ok)
				ck_assert_str_eq(got, want);
		}
	}
	/* what was kept goes with host_real_path_forget: a file made since is seen */
	ck_assert(!host_real_path(at("d/gone"), got));
	put("d/gone", "x");
	ck_assert(!host_real_path(at("d/gone"), got));
	host_real_path_forget();
	ck_assert(host_real_path(at("d/gone"), got));
	ck_assert(realpath(at("d/gone"), want) != NULL);
	ck_assert_str_eq(got, want);
	host_real_path_forget();
	remove_tmp();
}
END_TEST

Suite *elf_package_suite(void)
{
	Suite *s = suite_create("elf_package");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_elf_libc);
	tcase_add_test(tc, test_elf_runpath_and_rpath);
	tcase_add_test(tc, test_elf_fatbin);
	tcase_add_test(tc, test_elf_32bit);
	tcase_add_test(tc, test_elf_corrupt);
	tcase_add_test(tc, test_elf_mangled);
	tcase_add_test(tc, test_expand_tokens);
	tcase_add_test(tc, test_expand_lists);
	tcase_add_test(tc, test_expand_secure_and_platform);
	tcase_add_test(tc, test_expand_origin_links);
	tcase_add_test(tc, test_package_pip);
	tcase_add_test(tc, test_package_pip_index);
	tcase_add_test(tc, test_list_index_many_paths);
	tcase_add_test(tc, test_list_index_record_lines_as_before);
	tcase_add_test(tc, test_package_pip_unchanged_record_not_read);
	tcase_add_test(tc, test_package_conda);
	tcase_add_test(tc, test_package_dpkg_fake);
	tcase_add_test(tc, test_package_dpkg_index);
	tcase_add_test(tc, test_package_dpkg_libc);
	tcase_add_test(tc, test_real_path_as_realpath);
	suite_add_tcase(s, tc);
	return s;
}
