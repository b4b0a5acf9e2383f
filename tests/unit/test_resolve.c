/* Unit tests: the loader's search done on paper (host/resolve.c) against the
 * real loader. Each layout runs a fixture scenario with LD_DEBUG=libs,files, takes the
 * file ld.so really mapped for one name, and compares it with host_resolve's winner.
 * Needs `make fixtures`; run from the repository root (BUILD names the build folder). */
#define _GNU_SOURCE
#include <check.h>
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "facts/facts.h"
#include "host/dir_listing.h"
#include "host/resolve.h"
#include "tests/unit/unit.h"

extern char **environ;

/* A name asked for in a fixture scenario, and the loader's answer in scenarios.tsv.
 * Paths are relative to the fixtures folder; llp folders too, ':'-separated. */
struct layout {
	const char *label;
	const char *program;       /* scenario program */
	const char *arg;           /* its argument, or NULL */
	const char *llp;           /* LD_LIBRARY_PATH, or NULL */
	const char *name;          /* what is asked for */
	const char *requester;     /* who asks, as the loader opened it */
	const char *loaders[2];    /* who loaded the requester, main program last */
	const char *rule;          /* expected found_by, NULL when not found */
};

#define SP "site-packages/"
#define TORCH SP "torchlike/lib/libtorchlike_cuda.so"
#define VIA_TORCH SP "torchlike/lib/../../nvidia/"

static const struct layout layouts[] = {
	{ "rpath", "sc_rpath", NULL, NULL, "libsc_leaf.so", "scenarios/sc_rpath", { 0 }, "rpath" },
	{ "runpath", "sc_runpath", NULL, NULL, "libsc_leaf.so", "scenarios/sc_runpath", { 0 }, "runpath" },
	{ "origin_runpath", "sc_origin", NULL, NULL, "libsc_leaf.so", "scenarios/sc_origin", { 0 }, "runpath" },
	{ "llp_over_runpath", "sc_runpath", NULL, "scenarios/d_llp", "libsc_leaf.so", "scenarios/sc_runpath",
	  { 0 }, "ld_library_path" },
	{ "rpath_over_llp", "sc_rpath", NULL, "scenarios/d_llp", "libsc_leaf.so", "scenarios/sc_rpath", { 0 },
	  "rpath" },
	{ "origin_in_library_runpath", "sc_deepbind", NULL, NULL, "libsc_leaf.so", "scenarios/d_deep/libsc_deep.so",
	  { "scenarios/sc_deepbind" }, "runpath" },
	{ "ctor_dlopen", "sc_ctor", NULL, NULL, "libsc_leaf.so", "scenarios/d_ctor/libsc_ctor.so",
	  { "scenarios/sc_ctor" }, "runpath" },
	{ "threads_main_runpath", "sc_threads", NULL, NULL, "libsc_thr_b.so", "scenarios/sc_threads", { 0 },
	  "runpath" },
	{ "cudnn9_wheel_cudart_llp", "sc_cudnn9", SP "nvidia/cudnn/lib", SP "nvidia/cuda_runtime/lib",
	  "libcudart.so.13", SP "nvidia/cudnn/lib/libcudnn.so.9", { "scenarios/sc_cudnn9" }, "ld_library_path" },
	{ "cudnn9_wheel_graph_full_name", "sc_cudnn9", SP "nvidia/cudnn/lib", SP "nvidia/cuda_runtime/lib",
	  "libcudnn_graph.so.9.19.0", SP "nvidia/cudnn/lib/libcudnn.so.9", { "scenarios/sc_cudnn9" }, NULL },
	{ "cudnn9_wheel_graph", "sc_cudnn9", SP "nvidia/cudnn/lib", SP "nvidia/cuda_runtime/lib",
	  "libcudnn_graph.so.9", SP "nvidia/cudnn/lib/libcudnn.so.9", { "scenarios/sc_cudnn9" }, "runpath" },
	{ "cudnn9_system_graph", "sc_cudnn9", "system/lib", NULL, "libcudnn_graph.so.9.14.0",
	  "system/lib/libcudnn.so.9", { "scenarios/sc_cudnn9" }, "runpath" },
	{ "cudnn9_system_cudart", "sc_cudnn9", "system/lib", NULL, "libcudart.so.13", "system/lib/libcudnn.so.9",
	  { "scenarios/sc_cudnn9" }, "runpath" },
	{ "torchlike_cudart_rpath", "sc_torchlike", NULL, "driver", "libcudart.so.13", TORCH,
	  { "scenarios/sc_torchlike" }, "rpath" },
	{ "torchlike_cudnn_rpath", "sc_torchlike", NULL, "driver", "libcudnn.so.9", TORCH,
	  { "scenarios/sc_torchlike" }, "rpath" },
	{ "torchlike_cublaslt_runpath", "sc_torchlike", NULL, "driver", "libcublasLt.so.13",
	  VIA_TORCH "cublas/lib/libcublas.so.13", { TORCH, "scenarios/sc_torchlike" }, "runpath" },
	{ "torchlike_driver_llp", "sc_torchlike", NULL, "driver", "libcuda.so.1",
	  VIA_TORCH "cuda_runtime/lib/libcudart.so.13", { TORCH, "scenarios/sc_torchlike" }, "ld_library_path" },
	{ "torchlike_graph_wheel", "sc_torchlike", NULL, "driver", "libcudnn_graph.so.9",
	  VIA_TORCH "cudnn/lib/libcudnn.so.9", { TORCH, "scenarios/sc_torchlike" }, "runpath" },
	{ "torchlike_graph_system_llp", "sc_torchlike", NULL, "system/lib:driver", "libcudnn_graph.so.9",
	  VIA_TORCH "cudnn/lib/libcudnn.so.9", { TORCH, "scenarios/sc_torchlike" }, "ld_library_path" },
	{ "cudnn8_toolkit", "sc_cudnn8", NULL, "cuda-12/lib64:driver", "libcudnn.so.8", "scenarios/sc_cudnn8",
	  { 0 }, "ld_library_path" },
	{ "cudnn8_toolkit_sublib", "sc_cudnn8", NULL, "cuda-12/lib64:driver", "libcudnn_ops_infer.so.8",
	  "cuda-12/lib64/libcudnn.so.8", { "scenarios/sc_cudnn8" }, "ld_library_path" },
	{ "cudnn8_leftover", "sc_cudnn8", NULL, "cuda-11.8/lib64:cuda-12/lib64:driver", "libcudnn.so.8",
	  "scenarios/sc_cudnn8", { 0 }, "ld_library_path" },
	{ "cudnn8_leftover_sublib", "sc_cudnn8", NULL, "cuda-11.8/lib64:cuda-12/lib64:driver",
	  "libcudnn_ops_infer.so.8", "cuda-11.8/lib64/libcudnn.so.8", { "scenarios/sc_cudnn8" }, "ld_library_path" },
	{ "cuda_stub_llp", "sc_cuda", NULL, "cuda-13/lib64/stubs", "libcuda.so.1", "cuda-13/lib64/libcudart.so.13",
	  { "scenarios/sc_cuda" }, "ld_library_path" },
	{ "cuda_old_driver_llp", "sc_cuda", NULL, "driver-old", "libcuda.so.1", "cuda-13/lib64/libcudart.so.13",
	  { "scenarios/sc_cuda" }, "ld_library_path" },
	/* host-dependent: not found here, from ld.so.cache where a driver is installed */
	{ "cuda_no_driver", "sc_cuda", NULL, NULL, "libcuda.so.1", "cuda-13/lib64/libcudart.so.13",
	  { "scenarios/sc_cuda" }, "*" },
	{ "ld_so_cache", "sc_cache", NULL, NULL, "libm.so.6", "scenarios/sc_cache", { 0 }, "ld_so_cache" },
	{ "missing", "sc_missing", NULL, NULL, "libsc_missing.so.1", "scenarios/sc_missing", { 0 }, NULL },
};

#define NLAYOUTS ((int)(sizeof(layouts) / sizeof(layouts[0])))

static char fix[PATH_MAX];

static void find_fixtures(void)
{
	const char *build = getenv("BUILD");
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/fixtures/scenarios/sc_rpath", build && *build ? build : "build");
	ck_assert_msg(access(rel, X_OK) == 0, "%s missing: run `make fixtures` (and the tests from the repository root)",
		      rel);
	snprintf(rel, sizeof(rel), "%s/fixtures", build && *build ? build : "build");
	ck_assert_ptr_nonnull(realpath(rel, fix));
}

/* fix + "/" + rel, malloc'd; NULL for NULL. */
static char *in_fix(const char *rel)
{
	char *p;

	if (!rel)
		return NULL;
	ck_assert_int_ge(asprintf(&p, "%s/%s", fix, rel), 0);
	return p;
}

/* "a:b" -> "FIX/a:FIX/b"; absolute folders are kept. */
static char *llp_in_fix(const char *llp)
{
	char *out, *copy, *dir, *save = NULL, *grown;

	if (!llp)
		return NULL;
	out = strdup("");
	copy = strdup(llp);
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		ck_assert_int_ge(asprintf(&grown, "%s%s%s%s%s", out, *out ? ":" : "", dir[0] == '/' ? "" : fix,
					  dir[0] == '/' ? "" : "/", dir), 0);
		free(out);
		out = grown;
	}
	free(copy);
	return out;
}

/* The environment for the scenario (made in the child): ours, less what steers the loader. */
static char **child_env(const char *llp, const char *maps)
{
	size_t n = 0, i, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 4, sizeof(*env));
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_", 3) != 0 && strncmp(environ[i], "SCENARIO_MAPS=", 14) != 0)
			env[k++] = environ[i];
	env[k++] = (char *)"LD_DEBUG=libs,files";
	ck_assert_int_ge(asprintf(&env[k++], "SCENARIO_MAPS=%s", maps), 0);
	if (llp)
		ck_assert_int_ge(asprintf(&env[k++], "LD_LIBRARY_PATH=%s", llp), 0);
	return env;
}

/* Runs the program (in the fixtures folder) and returns its stderr. */
static char *run_with_ld_debug(const char *program, const char *arg, const char *llp)
{
	char maps[] = "/tmp/gt-resolve-maps-XXXXXX", *out = NULL, buf[65536], *prog = in_fix(program);
	char *argv[] = { prog, (char *)arg, NULL };
	size_t len = 0;
	int pipefd[2], fd = mkstemp(maps), status;
	ssize_t r;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(pipefd[1], STDERR_FILENO);
		dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO);
		close(pipefd[0]);
		if (chdir(fix) == 0)
			execve(prog, argv, child_env(llp, maps));
		_exit(127);
	}
	close(pipefd[1]);
	while ((r = read(pipefd[0], buf, sizeof(buf))) > 0) {
		out = realloc(out, len + (size_t)r + 1);
		memcpy(out + len, buf, (size_t)r);
		len += (size_t)r;
		out[len] = 0;
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	unlink(maps);
	snprintf(buf, sizeof(buf), "%s.child", maps);
	unlink(buf);
	free(prog);
	return out ? out : strdup("");
}

/* The file ld.so mapped for its first search of name: the last "trying file="
 * of that "find library=" block, if "generating link map" follows. NULL: not found. */
static char *loader_choice(const char *ld_debug, const char *name)
{
	char *copy = strdup(ld_debug), *line, *save = NULL, *tried = NULL, *found = NULL, *p;
	size_t nlen = strlen(name);
	bool in_block = false, done = false;

	for (line = strtok_r(copy, "\n", &save); line && !done; line = strtok_r(NULL, "\n", &save)) {
		if ((p = strstr(line, "find library="))) {
			done = in_block;
			p += strlen("find library=");
			in_block = !done && strncmp(p, name, nlen) == 0 && p[nlen] == ' ';
		} else if (in_block && (p = strstr(line, "trying file="))) {
			free(tried);
			tried = strdup(p + strlen("trying file="));
		} else if (in_block && (p = strstr(line, "file=")) && strstr(p, "generating link map") &&
			   strncmp(p + 5, name, nlen) == 0 && p[5 + nlen] == ' ') {
			found = tried;
			tried = NULL;
			done = true;
		}
	}
	free(tried);
	free(copy);
	return found;
}

static char *real(const char *path)
{
	char *r;

	if (!path)
		return NULL;
	r = realpath(path, NULL);
	ck_assert_msg(r != NULL, "realpath(%s) failed", path);
	return r;
}

static void load_cache(struct host_ldcache *cache, struct host_resolve_env *env)
{
	char err[256];

	memset(cache, 0, sizeof(*cache));
	if (host_ldcache_read("/etc/ld.so.cache", cache, err, sizeof(err)))
		env->cache = cache;
}

/* Predicts name for requester, runs the real loader, asserts the same file. */
static void check_agreement(const char *label, const char *program, const char *arg, const char *llp,
			    const char *name, const char *requester, const char *const *loaders, size_t nloaders,
			    const char *rule, const char *stop_reason)
{
	struct host_resolve_env env = { .ld_library_path = llp };
	struct host_resolution res;
	struct host_ldcache cache;
	char *log, *actual, *predicted, *actual_real, *predicted_real;

	load_cache(&cache, &env);
	host_resolve(name, requester, loaders, nloaders, &env, &res);
	log = run_with_ld_debug(program, arg, llp);
	actual = loader_choice(log, name);
	predicted = res.winner >= 0 ? res.cand[res.winner].path : NULL;
	actual_real = real(actual);
	predicted_real = real(predicted);
	ck_assert_msg((!actual_real && !predicted_real) ||
			      (actual_real && predicted_real && strcmp(actual_real, predicted_real) == 0),
		      "%s: %s: loader took %s, predicted %s (%s)", label, name, actual ? actual : "nothing",
		      predicted ? predicted : "nothing", predicted ? gt_rule_name(res.cand[res.winner].rule) : "-");
	if (rule && strcmp(rule, "*") != 0)
		ck_assert_msg(predicted && strcmp(gt_rule_name(res.cand[res.winner].rule), rule) == 0, "%s: rule %s, expected %s",
			      label, predicted ? gt_rule_name(res.cand[res.winner].rule) : "none", rule);
	if (!rule)
		ck_assert_msg(!predicted, "%s: predicted %s, expected not found", label, predicted);
	ck_assert_msg((!stop_reason && !res.stop_reason) ||
			      (stop_reason && res.stop_reason && strcmp(stop_reason, res.stop_reason) == 0),
		      "%s: stop reason %s, expected %s", label, res.stop_reason ? res.stop_reason : "none",
		      stop_reason ? stop_reason : "none");
	free(actual);
	free(actual_real);
	free(predicted_real);
	free(log);
	host_resolution_free(&res);
	host_ldcache_free(&cache);
}

START_TEST(test_resolve_agrees_with_loader)
{
	const struct layout *l = &layouts[_i];
	char *requester, *llp, *program, *loaders[2] = { NULL, NULL };
	size_t n = 0;

	find_fixtures();
	ck_assert_int_ge(asprintf(&program, "scenarios/%s", l->program), 0);
	requester = in_fix(l->requester);
	llp = llp_in_fix(l->llp);
	while (n < 2 && l->loaders[n]) {
		loaders[n] = in_fix(l->loaders[n]);
		n++;
	}
	check_agreement(l->label, program, l->arg, llp, l->name, requester, (const char *const *)loaders, n,
			l->rule, NULL);
	free(program);
	free(requester);
	free(llp);
	free(loaders[0]);
	free(loaders[1]);
}
END_TEST

/* ---- odd files and subfolders in a scratch tree, searched through LD_LIBRARY_PATH ---- */

/* A copy of the leaf library (or of text) at dir/rel, with one byte patched. */
struct odd_file {
	const char *rel;
	long patch_at;             /* -1: no patch */
	unsigned char patch;
	const char *text;          /* not NULL: these bytes instead of the library */
};

struct odd_layout {
	const char *label;
	struct odd_file files[2];
	const char *rule;          /* expected found_by of the winner, NULL: nothing loaded */
	const char *stop_reason;
	bool shadows_runpath_copy; /* the program's own d_runpath/libsc_leaf.so is listed as shadowed */
};

static const struct odd_layout odd_layouts[] = {
	{ "wrong_class_skipped", { { "libsc_leaf.so", EI_CLASS, ELFCLASS32, NULL } }, "runpath", NULL, false },
	{ "wrong_machine_skipped", { { "libsc_leaf.so", offsetof(Elf64_Ehdr, e_machine), EM_AARCH64, NULL } },
	  "runpath", NULL, false },
	{ "not_elf_stops", { { "libsc_leaf.so", -1, 0, "/* GNU ld script: text where a library is looked for */\nGROUP ( libc.so.6 )\n" } }, NULL,
	  "invalid ELF header", true },
	{ "too_short_stops", { { "libsc_leaf.so", -1, 0, "\177ELF" } }, NULL, "file too short", true },
	{ "glibc_hwcaps_v2", { { "glibc-hwcaps/x86-64-v2/libsc_leaf.so", -1, 0, NULL }, { "libsc_leaf.so", -1, 0, NULL } },
	  "ld_library_path", NULL, true },
	{ "legacy_tls_subfolder", { { "tls/libsc_leaf.so", -1, 0, NULL }, { "libsc_leaf.so", -1, 0, NULL } },
	  "ld_library_path", NULL, true },
};

#define NODD ((int)(sizeof(odd_layouts) / sizeof(odd_layouts[0])))

static char scratch_root[64], scratch[128];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void write_odd_file(const struct odd_file *f)
{
	char *path, *src = in_fix("scenarios/d_llp/libsc_leaf.so"), *slash, *data = NULL;
	size_t len = 0;
	FILE *out, *in;

	ck_assert_int_ge(asprintf(&path, "%s/%s", scratch, f->rel), 0);
	for (slash = strchr(path + strlen(scratch) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
	if (f->text) {
		data = strdup(f->text);
		len = strlen(f->text);
	} else {
		ck_assert_ptr_nonnull(in = fopen(src, "rb"));
		data = malloc(1 << 20);
		len = fread(data, 1, 1 << 20, in);
		fclose(in);
	}
	if (f->patch_at >= 0 && (size_t)f->patch_at < len)
		data[f->patch_at] = (char)f->patch;
	ck_assert_ptr_nonnull(out = fopen(path, "wb"));
	ck_assert_uint_eq(fwrite(data, 1, len, out), len);
	fclose(out);
	free(data);
	free(src);
	free(path);
}

START_TEST(test_resolve_odd_files_and_subfolders)
{
	const struct odd_layout *l = &odd_layouts[_i];
	char *requester, *runpath_copy;
	struct host_resolve_env env = { 0 };
	struct host_resolution res;
	bool listed = false;

	find_fixtures();
	snprintf(scratch, sizeof(scratch), "%s/%d", scratch_root, _i);
	ck_assert_int_eq(mkdir(scratch, 0755), 0);
	for (size_t i = 0; i < 2 && l->files[i].rel; i++)
		write_odd_file(&l->files[i]);
	requester = in_fix("scenarios/sc_runpath");
	runpath_copy = in_fix("scenarios/d_runpath/libsc_leaf.so");
	check_agreement(l->label, "scenarios/sc_runpath", NULL, scratch, "libsc_leaf.so", requester, NULL, 0, l->rule,
			l->stop_reason);
	env.ld_library_path = scratch;
	host_resolve("libsc_leaf.so", requester, NULL, 0, &env, &res);
	for (size_t i = 0; i < res.nshadowed; i++)
		listed |= strcmp(res.shadowed[i], runpath_copy) == 0;
	ck_assert_msg(listed == l->shadows_runpath_copy, "%s: d_runpath copy %s shadowed", l->label,
		      listed ? "is" : "is not");
	host_resolution_free(&res);
	free(requester);
	free(runpath_copy);
}
END_TEST

/* Run in the parent process, before and after every test of the tcase: the
 * scratch tree goes even when a test fails. */
static void make_scratch_root(void)
{
	snprintf(scratch_root, sizeof(scratch_root), "/tmp/gt-resolve-XXXXXX");
	if (!mkdtemp(scratch_root))
		scratch_root[0] = 0;
}

static void remove_scratch_root(void)
{
	if (scratch_root[0])
		nftw(scratch_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The subfolders read from ld.so --help end with the folder itself, and the
 * default folders are Debian's multiarch ones first. */
START_TEST(test_loader_dirs)
{
	const struct host_loader_dirs *d = host_loader_dirs();

	ck_assert(d->from_ldso);
	ck_assert_uint_ge(d->nsubdirs, 1);
	ck_assert_str_eq(d->subdirs[d->nsubdirs - 1], "");
	ck_assert_uint_ge(d->ndefaults, 2);
	ck_assert_str_eq(d->defaults[0], "/lib/x86_64-linux-gnu");
	ck_assert_str_eq(d->defaults[1], "/usr/lib/x86_64-linux-gnu");
}
END_TEST

/* host/dir_listing.c: only "certainly absent" comes from a listing, as
 * open() would say ENOENT or ENOTDIR; the rest is left to the disk. */
static const char *at(const char *dir, const char *rel)
{
	static char buf[2][PATH_MAX + 300];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, rel);
	return buf[k];
}

static void put_file(const char *path)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fclose(f);
}

START_TEST(test_dir_listing_says_absent_only)
{
	char dir[] = "/tmp/gt-dirlist-XXXXXX", cmd[PATH_MAX + 16], longname[NAME_MAX + 2];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	host_dir_listing_free();
	put_file(at(dir, "libfoo.so.1"));
	ck_assert_int_eq(mkdir(at(dir, "sub"), 0755), 0);
	ck_assert_int_eq(symlink("sub", at(dir, "link")), 0);
	ck_assert_int_eq(symlink("nowhere", at(dir, "dangling")), 0);
	ck_assert(!host_dir_lacks(at(dir, "libfoo.so.1")));  /* there: the disk judges it */
	ck_assert(host_dir_lacks(at(dir, "libbar.so.1")));
	ck_assert(!host_dir_lacks(at(dir, "sub")));
	ck_assert(!host_dir_lacks(at(dir, "dangling")));     /* an entry, whatever it points to */
	ck_assert(host_dir_lacks(at(dir, "nosuch/libfoo.so.1")));   /* ENOENT */
	ck_assert(host_dir_lacks(at(dir, "libfoo.so.1/libfoo.so.1"))); /* ENOTDIR */
	ck_assert(host_dir_lacks(at(dir, "link/libfoo.so.1")));    /* the empty folder, by its link */
	/* kept for the process: a file made since is not seen until forgotten */
	put_file(at(dir, "libbar.so.1"));
	ck_assert(host_dir_lacks(at(dir, "libbar.so.1")));
	host_dir_listing_free();
	ck_assert(!host_dir_lacks(at(dir, "libbar.so.1")));
	/* what open() would not answer with ENOENT is left to it */
	memset(longname, 'x', NAME_MAX + 1);
	longname[NAME_MAX + 1] = 0;
	ck_assert(!host_dir_lacks(at(dir, longname)));
	ck_assert(!host_dir_lacks("libfoo.so.1"));
	ck_assert(!host_dir_lacks(at(dir, "")));
	ck_assert(!host_dir_lacks(NULL));
	/* a folder too big to be worth listing (1,000 names: over 16 KiB on
	 * ext4 and tmpfs alike) is asked of the disk */
	ck_assert_int_eq(mkdir(at(dir, "big"), 0755), 0);
	for (int i = 0; i < 1000; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "big/lib%04d.so", i);
		put_file(at(dir, rel));
	}
	ck_assert(!host_dir_lacks(at(dir, "big/libnone.so")));
	ck_assert(!host_dir_lacks(at(dir, "big/lib0007.so")));
	/* a name in the root folder */
	ck_assert(host_dir_lacks("/gt-no-such-entry-in-the-root"));
	ck_assert(!host_dir_lacks("/etc"));
	host_dir_listing_free();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* host_resolve with env.reuse: a search done for one requester answers
 * another in the same folder with the same lists (its $ORIGIN is the same),
 * and nothing else: not a requester in another folder, not another
 * LD_LIBRARY_PATH. */
static void copy_file(const char *from, const char *to)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	ck_assert_int_eq(system(cmd), 0);
}

static void expect_winner(const char *requester, const char *llp, const char *want, const char *rule)
{
	static const char *const program[] = { "/usr/bin/true" };
	struct host_resolve_env env = { .ld_library_path = llp, .reuse = true };
	struct host_resolution r;

	host_resolve("libgt_reuse_target.so", requester, program, 1, &env, &r);
	ck_assert_str_eq(r.requester, requester);
	if (!want) {
		ck_assert_msg(r.winner < 0, "%s: found %s", requester, r.cand[r.winner].path);
	} else {
		ck_assert_msg(r.winner >= 0, "%s: nothing found", requester);
		ck_assert_str_eq(r.cand[r.winner].path, want);
		ck_assert_str_eq(gt_rule_name(r.cand[r.winner].rule), rule);
	}
	host_resolution_free(&r);
}

START_TEST(test_resolve_reuses_same_searches_only)
{
	char dir[] = "/tmp/gt-reuse-XXXXXX", a[PATH_MAX], b[PATH_MAX], want[PATH_MAX], cmd[PATH_MAX + 16];
	char *lib;

	find_fixtures();
	lib = in_fix("scenarios/d_deep/libsc_deep.so");  /* RUNPATH $ORIGIN */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	ck_assert_int_eq(mkdir(a, 0755), 0);
	ck_assert_int_eq(mkdir(b, 0755), 0);
	copy_file(lib, at(a, "r1.so"));
	copy_file(lib, at(a, "r2.so"));
	copy_file(lib, at(b, "r1.so"));
	copy_file(lib, at(a, "libgt_reuse_target.so"));
	snprintf(want, sizeof(want), "%s/libgt_reuse_target.so", a);
	host_resolve_cache_free();
	expect_winner(at(a, "r1.so"), NULL, want, "runpath");
	expect_winner(at(a, "r2.so"), NULL, want, "runpath");  /* the same search, its own requester */
	expect_winner(at(b, "r1.so"), NULL, NULL, NULL);       /* another $ORIGIN */
	expect_winner(at(b, "r1.so"), a, want, "ld_library_path");
	expect_winner(at(a, "r1.so"), NULL, want, "runpath");
	host_resolve_cache_free();
	host_dir_listing_free();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(lib);
}
END_TEST

/* got lists want's candidates, paths in the same order, and the same winner. */
static void expect_same_candidates(const struct host_resolution *got, const struct host_resolution *want)
{
	ck_assert_uint_eq(got->ncand, want->ncand);
	ck_assert_int_eq(got->winner, want->winner);
	for (size_t i = 0; i < want->ncand; i++)
		ck_assert_str_eq(got->cand[i].path, want->cand[i].path);
}

/* torch's libraries share one RPATH list, so a search for what
 * libtorch_cuda.so needs meets each folder again in every loader above it
 * (libtorch.so, libtorch_python.so). The loader tries each path once; the
 * list on paper says each once, in the loader's order, with the same winner
 * as where the folders come once (host/resolve.c skips a folder tried
 * whole; bench/README.md section 20). libm.so.6 is in none of them: the
 * search goes through the repeated list to ld.so.cache. */
START_TEST(test_resolve_lists_a_repeated_folder_once)
{
	struct host_resolve_env env = { 0 };
	struct host_resolution once, twice;
	struct host_ldcache cache;
	char *torch, *program;
	const char *chain1[1], *chain2[2];

	find_fixtures();
	torch = in_fix(TORCH);
	program = in_fix("scenarios/sc_torchlike");
	chain1[0] = program;
	chain2[0] = torch;  /* the same folders again, as a loader's own RPATH */
	chain2[1] = program;
	load_cache(&cache, &env);
	host_resolve("libm.so.6", torch, chain1, 1, &env, &once);
	host_resolve("libm.so.6", torch, chain2, 2, &env, &twice);
	ck_assert_msg(once.winner >= 0, "libm.so.6 not found for %s", torch);
	ck_assert_str_eq(gt_rule_name(once.cand[once.winner].rule), "ld_so_cache");
	ck_assert_msg(once.ncand > 2 * host_loader_dirs()->nsubdirs, "only %zu candidates", once.ncand);
	expect_same_candidates(&twice, &once);
	for (size_t i = 0; i < once.ncand; i++) {
		ck_assert_int_eq(twice.cand[i].rule, once.cand[i].rule);
		ck_assert_int_eq(twice.cand[i].exists, once.cand[i].exists);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(strcmp(once.cand[j].path, once.cand[i].path) != 0, "%s listed twice",
				      once.cand[i].path);
	}
	host_resolution_free(&once);
	host_resolution_free(&twice);
	host_ldcache_free(&cache);
	free(torch);
	free(program);
}
END_TEST

/* A folder whose name is not UTF-8, searched before the one that holds the
 * library: its candidates are in the facts' list as well, in their places,
 * so that the winner named is the file the loader takes, now and when the
 * facts file is read back (a report on another machine); its real path is
 * its own, not "leads nowhere". */
START_TEST(test_facts_keep_a_candidate_that_is_not_utf8)
{
	char dir[] = "/tmp/gt-nonutf8-XXXXXX", bad[PATH_MAX], good[PATH_MAX], llp[2 * PATH_MAX + 2];
	char want[PATH_MAX], cmd[PATH_MAX + 16], err[256] = "", real[PATH_MAX];
	struct gt_facts_set *live, *recorded;
	struct host_resolution direct, asked, read_back;
	struct host_resolve_env env;
	char *requester, *leaf;

	find_fixtures();
	requester = in_fix("scenarios/sc_runpath");
	leaf = in_fix("scenarios/d_runpath/libsc_leaf.so");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(bad, sizeof(bad), "%s/lib\xff\xfe", dir);
	snprintf(good, sizeof(good), "%s/good", dir);
	ck_assert_int_eq(mkdir(bad, 0755), 0);
	ck_assert_int_eq(mkdir(good, 0755), 0);
	copy_file(leaf, at(good, "libsc_leaf.so"));
	snprintf(want, sizeof(want), "%s/libsc_leaf.so", good);
	snprintf(llp, sizeof(llp), "%s:%s", bad, good);
	env = (struct host_resolve_env){ .ld_library_path = llp };
	host_resolve("libsc_leaf.so", requester, NULL, 0, &env, &direct);
	ck_assert_msg(direct.winner > 0, "no winner past the folder that is not UTF-8");
	ck_assert_str_eq(direct.cand[direct.winner].path, want);

	live = gt_facts_set_new(GT_FACTS_LIVE);
	gt_facts_resolve(gt_facts_of_host(live, NULL), "libsc_leaf.so", requester, NULL, 0, llp, &asked);
	expect_same_candidates(&asked, &direct);
	ck_assert_msg(gt_facts_real_path(gt_facts_of_host(live, NULL), bad, real, sizeof(real)), "%s: no real path", bad);
	ck_assert_str_eq(real, bad);
	ck_assert_msg(gt_facts_set_write_folder(live, dir, err, sizeof(err)), "%s", err);

	recorded = gt_facts_set_new(GT_FACTS_RECORDED);
	ck_assert_msg(gt_facts_set_read_folder(recorded, dir, err, sizeof(err)), "%s", err);
	gt_facts_resolve(gt_facts_of_host(recorded, NULL), "libsc_leaf.so", requester, NULL, 0, llp, &read_back);
	expect_same_candidates(&read_back, &direct);
	real[0] = 0;
	ck_assert(gt_facts_real_path(gt_facts_of_host(recorded, NULL), bad, real, sizeof(real)));
	ck_assert_str_eq(real, bad);

	host_resolution_free(&direct);
	host_resolution_free(&asked);
	host_resolution_free(&read_back);
	gt_facts_set_free(live);
	gt_facts_set_free(recorded);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(requester);
	free(leaf);
}
END_TEST

Suite *resolve_suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("loader"), *odd = tcase_create("odd files"), *listing;

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_loader_dirs);
	tcase_add_test(tc, test_resolve_reuses_same_searches_only);
	tcase_add_test(tc, test_resolve_lists_a_repeated_folder_once);
	tcase_add_test(tc, test_facts_keep_a_candidate_that_is_not_utf8);
	tcase_add_loop_test(tc, test_resolve_agrees_with_loader, 0, NLAYOUTS);
	suite_add_tcase(s, tc);
	tcase_set_timeout(odd, 30);
	tcase_add_unchecked_fixture(odd, make_scratch_root, remove_scratch_root);
	tcase_add_loop_test(odd, test_resolve_odd_files_and_subfolders, 0, NODD);
	suite_add_tcase(s, odd);
	listing = tcase_create("folder listings");
	tcase_add_test(listing, test_dir_listing_says_absent_only);
	suite_add_tcase(s, listing);
	return s;
}
