/* libFuzzer target: any bytes as the installers' and frameworks' files that
 * `gputrace scan` and the end-of-run diagnosis read from a host
 * (host/package.c, host/framework.c, host/list_index.c): a dist-info's
 * METADATA and RECORD, a framework's build file (torch/version.py,
 * TensorFlow's build_info.py, ONNX Runtime's version_info.py, CuPy's
 * _wheel.json), dpkg's status file and one .list, a conda-meta JSON, and a
 * version specifier with a version. A site-packages folder or a conda
 * prefix is often writable by whoever can pip install into it.
 *
 * Input: byte 0 picks the framework (bits 0-1: torch, tensorflow,
 * onnxruntime, cupy); then the eight files' bytes, NUL between them, in the
 * order of `parts` below (a missing one is empty).
 *
 * What must hold, beyond no crash, leak or hang: every answer's strings end
 * within their arrays; a package found names pip, conda or dpkg; a verdict is
 * one of the three. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/framework.h"
#include "host/package.h"
#include "tests/fuzz/fuzz_files.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { METADATA, RECORD, BUILD_FILE, DPKG_STATUS, DPKG_LIST, CONDA_JSON, SPEC, VERSION, N_PARTS };

static const char *const tops[4] = { "torch", "tensorflow", "onnxruntime", "cupy" };
static const char *const build_files[4] = { "torch/version.py", "tensorflow/python/platform/build_info.py",
					    "onnxruntime/capi/version_info.py", "cupy/.data/_wheel.json" };
#define MAX_ASKED 16

static char top[64], env[PATH_MAX], site[PATH_MAX], dist[PATH_MAX], dpkg[PATH_MAX], cache[PATH_MAX];
static char paths[N_PARTS][PATH_MAX];

static void mkdirs(const char *dir)
{
	char tmp[PATH_MAX], *s;

	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (s = tmp + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(tmp, 0700);
			*s = '/';
		}
	mkdir(tmp, 0700);
}

static void remove_top(void)
{
	fuzz_remove_tree(top);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[PATH_MAX];
	int k;

	(void)argc;
	(void)argv;
	snprintf(top, sizeof(top), "/tmp/fuzz_site.XXXXXX");
	if (!mkdtemp(top))
		abort();
	snprintf(env, sizeof(env), "%s/env", top);
	snprintf(site, sizeof(site), "%s/lib/python3.12/site-packages", env);
	snprintf(dist, sizeof(dist), "%s/fw-1.0.dist-info", site);
	snprintf(dpkg, sizeof(dpkg), "%s/dpkg", top);
	snprintf(cache, sizeof(cache), "%s/cache", top);
	mkdirs(dist);
	snprintf(path, sizeof(path), "%s/conda-meta", env);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/info", dpkg);
	mkdirs(path);
	mkdirs(cache);
	for (k = 0; k < 4; k++) {
		char *slash;

		snprintf(path, sizeof(path), "%s/%s/lib", site, tops[k]);
		mkdirs(path);
		snprintf(path, sizeof(path), "%s/%s/lib/libfw.so", site, tops[k]);
		fuzz_write_file(path, "", 0);
		snprintf(path, sizeof(path), "%s/%s", site, build_files[k]);
		slash = strrchr(path, '/');
		*slash = 0;
		mkdirs(path);
	}
	snprintf(path, sizeof(path), "%s/INSTALLER", dist);
	fuzz_write_file(path, "pip\n", 4);
	snprintf(paths[METADATA], PATH_MAX, "%s/METADATA", dist);
	snprintf(paths[RECORD], PATH_MAX, "%s/RECORD", dist);
	snprintf(paths[DPKG_STATUS], PATH_MAX, "%s/status", dpkg);
	snprintf(paths[DPKG_LIST], PATH_MAX, "%s/info/libcudnn9-cuda-13:amd64.list", dpkg);
	snprintf(paths[CONDA_JSON], PATH_MAX, "%s/conda-meta/cudnn-9.19.0.56-h0.json", env);
	setenv("GPUTRACE_DPKG_ROOT", dpkg, 1);
	/* the lists' indexes go there, never to the user's cache */
	setenv("GPUTRACE_CACHE_DIR", cache, 1);
	atexit(remove_top);
	return 0;
}

static void check_string(const char *s, size_t cap)
{
	if (!memchr(s, 0, cap))
		abort(); /* an answer's string runs off its array */
}

static void ask_package(const char *path)
{
	struct host_package pk;

	memset(&pk, 0x5a, sizeof(pk));
	if (host_package_of(path, &pk)) {
		check_string(pk.manager, sizeof(pk.manager));
		if (strcmp(pk.manager, "pip") && strcmp(pk.manager, "conda") && strcmp(pk.manager, "dpkg"))
			abort();
		check_string(pk.name, sizeof(pk.name));
		check_string(pk.version, sizeof(pk.version));
		check_string(pk.record, sizeof(pk.record));
	}
}

static void ask_needs(const char *lib)
{
	struct host_needs needs;
	char root[PATH_MAX];
	size_t i;

	if (host_framework_needs(lib, &needs)) {
		check_string(needs.root, sizeof(needs.root));
		for (i = 0; i < needs.n; i++) {
			const struct host_need *n = &needs.v[i];

			check_string(n->family, sizeof(n->family));
			check_string(n->spec, sizeof(n->spec));
			check_string(n->distribution, sizeof(n->distribution));
			check_string(n->declared_by, sizeof(n->declared_by));
			check_string(n->what, sizeof(n->what));
			check_string(n->framework, sizeof(n->framework));
			(void)host_version_satisfies(n->spec, "9.19.0.56");
		}
	}
	host_needs_free(&needs);
	(void)host_framework_root(lib, root, sizeof(root));
}

static void ask_verdict(const char *spec, const char *version)
{
	enum host_verdict v = host_version_satisfies(spec, version);

	if (v != HOST_UNKNOWN && v != HOST_MET && v != HOST_UNMET)
		abort();
}

/* Up to MAX_ASKED of a list's lines, as the paths they would name: a
 * RECORD's first field under the site, a dpkg line as it is. */
static size_t lines_as_paths(const char *text, const char *under, char out[][PATH_MAX], size_t max)
{
	size_t n = 0, len;
	const char *line, *next;

	for (line = text; *line && n < max; line = next) {
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + len;
		if (under)
			len = strcspn(line, ",\r\n") < len ? strcspn(line, ",\r\n") : len;
		if (len && snprintf(out[n], PATH_MAX, "%s%s%.*s", under ? under : "", under ? "/" : "", (int)len,
				    line) < PATH_MAX)
			n++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char asked[2 * MAX_ASKED + 2][PATH_MAX];
	char *part[N_PARTS] = { 0 }, lib[PATH_MAX], path[PATH_MAX];
	size_t len[N_PARTS] = { 0 }, i, n;
	int fw, k;

	if (size < 1)
		return 0;
	fw = data[0] & 3;
	data++;
	size--;
	for (k = 0; k < N_PARTS; k++) {
		const uint8_t *nul = memchr(data, 0, size);

		len[k] = nul ? (size_t)(nul - data) : size;
		part[k] = strndup((const char *)data, len[k]);
		if (!part[k])
			abort();
		data += len[k] + (nul ? 1 : 0);
		size -= len[k] + (nul ? 1 : 0);
	}
	for (k = 0; k < 4; k++) {
		snprintf(path, sizeof(path), "%s/%s", site, build_files[k]);
		fuzz_write_file(path, k == fw ? part[BUILD_FILE] : "", k == fw ? len[BUILD_FILE] : 0);
	}
	for (k = 0; k < N_PARTS; k++)
		if (paths[k][0])
			fuzz_write_file(paths[k], part[k], len[k]);

	snprintf(lib, sizeof(lib), "%s/%s/lib/libfw.so", site, tops[fw]);
	n = lines_as_paths(part[RECORD], site, asked, MAX_ASKED);
	n += lines_as_paths(part[DPKG_LIST], NULL, asked + n, MAX_ASKED);
	snprintf(asked[n++], PATH_MAX, "%s", lib);
	snprintf(asked[n++], PATH_MAX, "%s/lib/libcudnn.so.9", env);
	for (i = 0; i < n; i++)
		host_package_want(asked[i]);
	for (i = 0; i < n; i++)
		ask_package(asked[i]);
	ask_needs(lib);
	ask_verdict(part[SPEC], part[VERSION]);
	ask_verdict(part[SPEC], "2.11.0+cu130");
	ask_verdict(">=9.1,<10.0", part[VERSION]);

	/* every input on its own: nothing read is kept for the next */
	host_package_cache_free();
	host_framework_cache_free();
	/* the lists' indexes saved by this input: dpkg's would be taken as
	 * true for the next (the info folder's mtime does not change when a
	 * list is rewritten in place) */
	fuzz_remove_files(cache, ".idx");
	for (k = 0; k < N_PARTS; k++)
		free(part[k]);
	return 0;
}
