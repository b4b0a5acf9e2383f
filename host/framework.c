/* A framework's declared needs, read from its installation (see framework.h). */
#define _GNU_SOURCE
#include "host/framework.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "common/family.h"
#include "common/xalloc.h"
#include "host/package.h"

#define MAX_DECLARATION (1u << 20)  /* METADATA, version.py, build_info.py: a few KiB each */

/* The top-level package folders of the frameworks whose declarations are read. */
static const char *const framework_tops[] = { "torch", "tensorflow", "jaxlib", "jax_plugins",
					      "jax_cuda12_plugin", "jax_cuda13_plugin", "onnxruntime",
					      "cupy", "cupy_backends", NULL };

/* ---- version specifiers ---- */

/* Up to 8 numeric fields of a version ("9.19.0.56", "12.0.146~12.0.1-4"
 * stops at "~"); *wild when it ends in ".*". Returns how many. */
static int version_fields(const char *v, long f[8], bool *wild)
{
	int n = 0;
	char *end;

	*wild = false;
	while (n < 8 && *v >= '0' && *v <= '9') {
		f[n++] = strtol(v, &end, 10);
		v = end;
		if (v[0] != '.')
			break;
		if (v[1] == '*') {
			*wild = true;
			break;
		}
		v++;
	}
	return n;
}

/* Ordering of version against a specifier's version, padded with zeros as
 * pip pads; *known false when version runs out before they differ. */
static int compare(const char *version, const char *bound, bool *known)
{
	long a[8], b[8];
	bool wa, wb;
	int na = version_fields(version, a, &wa), nb = version_fields(bound, b, &wb), i;

	*known = true;
	for (i = 0; i < (na > nb ? na : nb); i++) {
		long x = i < na ? a[i] : 0, y = i < nb ? b[i] : 0;

		if (i >= na && y != 0) {
			*known = false;  /* "9" against "9.1": more of the version was never said */
			return 0;
		}
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* ==V.* : the fields before the star agree. */
static enum host_verdict prefix_match(const char *version, const char *bound)
{
	long a[8], b[8];
	bool wa, wb;
	int na = version_fields(version, a, &wa), nb = version_fields(bound, b, &wb), i;

	for (i = 0; i < nb; i++) {
		if (i >= na)
			return HOST_UNKNOWN;
		if (a[i] != b[i])
			return HOST_UNMET;
	}
	return HOST_MET;
}

static enum host_verdict equal_release(const char *version, const char *bound)
{
	long a[8], b[8];
	bool wa, wb;

	if (strstr(bound, ".*"))
		return prefix_match(version, bound);
	if (version_fields(version, a, &wa) == 0 || version_fields(bound, b, &wb) == 0)
		return HOST_UNKNOWN;
	return gt_same_release(version, bound) ? HOST_MET : HOST_UNMET;
}

static enum host_verdict negate(enum host_verdict v)
{
	return v == HOST_MET ? HOST_UNMET : v == HOST_UNMET ? HOST_MET : HOST_UNKNOWN;
}

/* ~=9.1.2 is >=9.1.2 together with ==9.1.* */
static enum host_verdict compatible_release(const char *version, const char *bound)
{
	char prefix[64];
	char *dot;
	bool known;
	int c = compare(version, bound, &known);

	snprintf(prefix, sizeof(prefix) - 2, "%s", bound);
	dot = strrchr(prefix, '.');
	if (!dot)
		return HOST_UNKNOWN;  /* ~=9 is not a valid specifier */
	strcpy(dot, ".*");
	if (prefix_match(version, prefix) == HOST_UNMET || (known && c < 0))
		return HOST_UNMET;
	return known && prefix_match(version, prefix) == HOST_MET ? HOST_MET : HOST_UNKNOWN;
}

static enum host_verdict one_specifier(const char *s, const char *version)
{
	static const char *const ops[] = { "===", "==", "!=", "~=", "<=", ">=", "<", ">", NULL };
	const char *bound;
	bool known;
	int k, c;

	while (*s == ' ')
		s++;
	for (k = 0; ops[k] && strncmp(s, ops[k], strlen(ops[k])) != 0; k++)
		;
	if (!ops[k])
		return HOST_UNKNOWN;
	for (bound = s + strlen(ops[k]); *bound == ' '; bound++)
		;
	if (k <= 1)
		return equal_release(version, bound);
	if (k == 2)
		return negate(equal_release(version, bound));
	if (k == 3)
		return compatible_release(version, bound);
	c = compare(version, bound, &known);
	if (!known)
		return HOST_UNKNOWN;
	if (k == 4)
		return c <= 0 ? HOST_MET : HOST_UNMET;
	if (k == 5)
		return c >= 0 ? HOST_MET : HOST_UNMET;
	if (k == 6)
		return c < 0 ? HOST_MET : HOST_UNMET;
	return c > 0 ? HOST_MET : HOST_UNMET;
}

enum host_verdict host_version_satisfies(const char *spec, const char *version)
{
	char buf[256], *save = NULL, *part;
	bool unknown = false;
	enum host_verdict v;

	if (!spec || !version || !version[0] || !spec[0])
		return HOST_UNKNOWN;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (part = strtok_r(buf, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
		v = one_specifier(part, version);
		if (v == HOST_UNMET)
			return HOST_UNMET;
		unknown |= v == HOST_UNKNOWN;
	}
	return unknown ? HOST_UNKNOWN : HOST_MET;
}

/* ---- reading the declarations ---- */

/* dir + "/" + name into out; false when it does not fit. */
static bool join(char *out, size_t cap, const char *dir, const char *name)
{
	int n = snprintf(out, cap, "%s/%s", dir, name);

	return n >= 0 && (size_t)n < cap;
}

static char *read_small(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = gt_xmalloc(MAX_DECLARATION + 1);
	n = fread(buf, 1, MAX_DECLARATION, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void add_need(struct host_needs *out, const char *family, const char *spec, const char *distribution,
		     const char *file, const char *what, const char *framework)
{
	struct host_need *n;

	out->v = gt_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	n = &out->v[out->n++];
	memset(n, 0, sizeof(*n));
	snprintf(n->family, sizeof(n->family), "%s", family);
	snprintf(n->spec, sizeof(n->spec), "%s", spec);
	snprintf(n->distribution, sizeof(n->distribution), "%s", distribution ? distribution : "");
	snprintf(n->declared_by, sizeof(n->declared_by), "%s", file);
	snprintf(n->what, sizeof(n->what), "%s", what);
	snprintf(n->framework, sizeof(n->framework), "%s", framework);
}

/* A toolkit version as a build declares it ("12.3", "12.x", "8"): the need
 * is its major, the part a loaded library must share. */
static void add_major_need(struct host_needs *out, const char *family, const char *value, const char *file,
			   const char *what, const char *framework)
{
	char spec[32];

	if (!isdigit((unsigned char)value[0]))
		return;
	snprintf(spec, sizeof(spec), "==%d.*", atoi(value));
	add_need(out, family, spec, NULL, file, what, framework);
}

/* The NVIDIA wheel a pin names, as the family it installs:
 * nvidia-cudnn-cu13 -> cudnn, nvidia-cuda-runtime -> cudart. */
static const char *family_of_distribution(const char *dist)
{
	static const struct { const char *stem, *family; } map[] = {
		{ "cudnn", "cudnn" },       { "nccl", "nccl" },         { "cublas", "cublas" },
		{ "cuda-runtime", "cudart" }, { "cuda-nvrtc", "nvrtc" }, { "cufft", "cufft" },
		{ "curand", "curand" },     { "cusolver", "cusolver" }, { "cusparse", "cusparse" },
		{ "nvjitlink", "nvjitlink" }, { "cuda-cupti", "cupti" }, { "nvtx", "nvtx" },
	};
	char name[128], *cu;
	size_t i;

	snprintf(name, sizeof(name), "%s", dist);
	for (i = 0; name[i]; i++)
		name[i] = name[i] == '_' || name[i] == '.' ? '-' : (char)tolower((unsigned char)name[i]);
	if (strncmp(name, "nvidia-", 7) != 0)
		return NULL;
	cu = strrchr(name, '-');
	if (cu && strncmp(cu, "-cu", 3) == 0 && isdigit((unsigned char)cu[3]))
		*cu = 0;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(name + 7, map[i].stem) == 0)
			return map[i].family;
	return NULL;
}

/* A distribution name as pip compares them: case and "-", "_", "." folded. */
static void normalized(const char *name, size_t n, char *out, size_t cap)
{
	size_t i;

	for (i = 0; i < n && name[i] && i + 1 < cap; i++)
		out[i] = strchr("-_.", name[i]) ? '_' : (char)tolower((unsigned char)name[i]);
	out[i] = 0;
}

/* Is a distribution of this name installed in site (its NAME-VERSION.dist-info)? */
static bool installed_in(const char *site, const char *dist)
{
	char want[160], have[256];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(site);

	if (!d)
		return false;
	normalized(dist, strlen(dist), want, sizeof(want));
	while (!found && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 10 || strcmp(de->d_name + len - 10, ".dist-info") != 0)
			continue;
		normalized(de->d_name, strcspn(de->d_name, "-"), have, sizeof(have));
		found = strcmp(have, want) == 0;
	}
	closedir(d);
	return found;
}

/* Does one clause of an environment marker hold here? Only what a Linux
 * host can answer: platform_system, sys_platform, platform_machine, and
 * extra (asked for when the pinned distribution is installed, or always
 * when it is the build's own, build_extra). Anything else is unknown, and
 * an unknown marker drops the pin. */
static int marker_clause(const char *c, const char *site, const char *dist, const char *build_extra)
{
	char key[32], op[3], value[64];
	struct utsname u;

	if (sscanf(c, " %31[a-z_] %2[=!] \"%63[^\"]\"", key, op, value) != 3 &&
	    sscanf(c, " %31[a-z_] %2[=!] '%63[^']'", key, op, value) != 3)
		return -1;
	if (strcmp(op, "==") != 0 && strcmp(op, "!=") != 0)
		return -1;
	if (uname(&u) != 0)
		return -1;
	if (strcmp(key, "extra") == 0 && strcmp(op, "==") == 0 && build_extra) {
		char a[64], b[64];

		normalized(value, strlen(value), a, sizeof(a));
		normalized(build_extra, strlen(build_extra), b, sizeof(b));
		if (strcmp(a, b) == 0)
			return 1;
	}
	if (strcmp(key, "extra") == 0)
		return strcmp(op, "==") == 0 ? installed_in(site, dist) : -1;
	if (strcmp(key, "platform_system") == 0)
		return (strcmp(value, "Linux") == 0) == (op[0] == '=');
	if (strcmp(key, "sys_platform") == 0)
		return (strcmp(value, "linux") == 0) == (op[0] == '=');
	if (strcmp(key, "platform_machine") == 0)
		return (strcmp(value, u.machine) == 0) == (op[0] == '=');
	return -1;
}

/* A marker of clauses joined by "and" holds when each does; "or" and
 * parentheses are not read (unknown). */
static bool marker_holds(const char *marker, const char *site, const char *dist, const char *build_extra)
{
	char buf[512], *at, *clause;

	snprintf(buf, sizeof(buf), "%s", marker);
	if (strstr(buf, " or ") || strchr(buf, '('))
		return false;
	for (clause = buf; clause; clause = at) {
		at = strstr(clause, " and ");
		if (at) {
			*at = 0;
			at += 5;
		}
		if (marker_clause(clause, site, dist, build_extra) != 1)
			return false;
	}
	return true;
}

/* A JAX CUDA plugin's "with-cuda" extra pins the cuDNN wheel from the
 * release the plugin was built with up (jax_plugins/cuda/plugin_setup.py:
 * "nvidia-cudnn-cu12>=9.8,<10.0"), and XLA refuses at start-up a cuDNN
 * older than its build, or of another major, whatever install it comes
 * from: jax-ml/jax#24180, jax[cuda12_local] with a system cuDNN 9.0 ("Loaded
 * runtime CuDNN library: 9.0.0 but source was compiled with: 9.1.1"). So
 * that pin speaks for a local cuDNN too. The extra's other pins (cuBLAS
 * >=12.1.3.1 ...) are floors that were not checked against JAX's own
 * run-time checks: they keep the rule of extras. Returns the extra whose
 * pin holds without its wheel, or NULL. */
static const char *build_extra_of(const char *name, const char *family)
{
	char n[128];
	size_t len;

	normalized(name, strlen(name), n, sizeof(n));
	len = strlen(n);
	if (strcmp(family, "cudnn") != 0 || strncmp(n, "jax_cuda", 8) != 0 || len < 15 ||
	    strcmp(n + len - 7, "_plugin") != 0)
		return NULL;
	return "with-cuda";
}

/* "nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"", or the older
 * "nvidia-cudnn-cu12 (==8.9.2.26)": name, specifiers, marker. A pin that
 * holds without its wheel installed names no distribution: the fix is then
 * the library the build wants, not a pip command for a wheel the user chose
 * not to have. */
static void requires_dist(const char *line, const char *site, const char *file, const char *name,
			  const char *framework, struct host_needs *out)
{
	const char *build_extra;
	char dist[128], spec[128], what[512];
	const char *p = line, *family, *semi = strchr(line, ';');
	size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
	size_t k = 0;

	if (!n || n >= sizeof(dist))
		return;
	snprintf(dist, sizeof(dist), "%.*s", (int)n, p);
	family = family_of_distribution(dist);
	if (!family)
		return;
	for (p += n; *p == ' ' || *p == '('; p++)
		;
	if (*p == '[')
		p = strchr(p, ']') ? strchr(p, ']') + 1 : p;
	for (; *p && *p != ';' && k + 1 < sizeof(spec); p++)
		if (*p != ' ' && *p != '(' && *p != ')')
			spec[k++] = *p;
	spec[k] = 0;
	build_extra = build_extra_of(name, family);
	if (!spec[0] || (semi && !marker_holds(semi + 1, site, dist, build_extra)))
		return;
	snprintf(what, sizeof(what), "Requires-Dist: %.480s", line);
	if (build_extra && semi && strstr(semi, "extra") && !installed_in(site, dist))
		dist[0] = 0;  /* the build's pin, the wheel not asked for */
	add_need(out, family, spec, dist, file, what, framework);
}

/* jaxlib's local version label says its build: "0.4.28+cuda12.cudnn89". JAX
 * needs a cuDNN "at least as new as the version against which JAX was
 * built", of the same major. */
static void jaxlib_label(const char *version, const char *file, const char *framework, struct host_needs *out)
{
	const char *plus = strchr(version, '+'), *cuda, *cudnn;
	char spec[64], what[256];

	if (!plus)
		return;
	snprintf(what, sizeof(what), "Version: %s", version);
	cuda = strstr(plus, "cuda");
	if (cuda && isdigit((unsigned char)cuda[4]))
		add_major_need(out, "cudart", cuda + 4, file, what, framework);
	cudnn = strstr(plus, "cudnn");
	if (cudnn && isdigit((unsigned char)cudnn[5]) && isdigit((unsigned char)cudnn[6])) {
		snprintf(spec, sizeof(spec), ">=%c.%d,==%c.*", cudnn[5], atoi(cudnn + 6), cudnn[5]);
		add_need(out, "cudnn", spec, NULL, file, what, framework);
	}
}

/* The lines of METADATA's header, up to its first blank line, one at a time
 * into line (without its end). Returns where the next one starts, or NULL. */
static const char *header_line(const char *at, char *line, size_t cap)
{
	size_t n = strcspn(at, "\r\n");

	if (n == 0)
		return NULL;
	snprintf(line, cap, "%.*s", (int)n, at);
	at += n;
	if (*at == '\r')
		at++;
	return *at == '\n' ? at + 1 : at;
}

/* Name, Version, and every Requires-Dist that pins an NVIDIA library wheel. */
static void read_metadata(const char *dist_dir, const char *site, struct host_needs *out, char *framework,
			  size_t fcap)
{
	char path[PATH_MAX], name[128] = "", version[128] = "", line[1024];
	const char *at;
	char *meta;

	meta = join(path, sizeof(path), dist_dir, "METADATA") ? read_small(path) : NULL;
	if (!meta)
		return;
	for (at = meta; (at = header_line(at, line, sizeof(line)));) {
		if (strncmp(line, "Name: ", 6) == 0)
			snprintf(name, sizeof(name), "%.127s", line + 6);
		else if (strncmp(line, "Version: ", 9) == 0)
			snprintf(version, sizeof(version), "%.127s", line + 9);
	}
	/* "torch 2.11.0"; a longer name and version are cut, as said */
	if (name[0] && snprintf(framework, fcap, "%s%s%s", name, version[0] ? " " : "", version) >= (int)fcap)
		framework[fcap - 1] = 0;
	for (at = meta; (at = header_line(at, line, sizeof(line)));)
		if (strncmp(line, "Requires-Dist: ", 15) == 0)
			requires_dist(line + 15, site, path, name, framework, out);
	if (strcasecmp(name, "jaxlib") == 0)
		jaxlib_label(version, path, framework, out);
	free(meta);
}

/* name = 'value' (or name: Optional[str] = "value") at the start of a line
 * of a generated Python file. */
static bool py_assignment(const char *text, const char *name, char *out, size_t cap)
{
	size_t n = strlen(name);
	const char *line, *p;
	char quote;
	size_t k = 0;

	for (line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, name, n) != 0 || (line[n] != ' ' && line[n] != '=' && line[n] != ':'))
			continue;
		p = line + n + strcspn(line + n, "=\n");
		if (*p != '=')
			continue;
		for (p++; *p == ' '; p++)
			;
		if (*p != '\'' && *p != '"')
			return false;  /* None, a number, an expression: nothing declared */
		for (quote = *p++; *p && *p != quote && *p != '\n' && k + 1 < cap; p++)
			out[k++] = *p;
		out[k] = 0;
		return true;
	}
	return false;
}

/* 'key': 'value' or ('key', 'value') inside TensorFlow's build_info dict. */
static bool dict_value(const char *text, const char *key, char *out, size_t cap)
{
	char quoted[64];
	const char *p;
	size_t k = 0;

	snprintf(quoted, sizeof(quoted), "'%s'", key);
	p = strstr(text, quoted);
	if (!p)
		return false;
	for (p += strlen(quoted); *p == ' ' || *p == ':' || *p == ','; p++)
		;
	if (*p != '\'')
		return false;
	for (p++; *p && *p != '\'' && k + 1 < cap; p++)
		out[k++] = *p;
	out[k] = 0;
	return true;
}

/* A version as builds write it on Linux: digits and dots ("12.3", "8");
 * Windows writes "64_112", which says nothing here. */
static bool plain_version(const char *v)
{
	return isdigit((unsigned char)v[0]) && strspn(v, "0123456789.x") == strlen(v);
}

static void read_python_build_file(const char *site, const char *rel, bool dict, const char *const keys[2],
				   const char *framework, struct host_needs *out)
{
	static const char *const families[2] = { "cudart", "cudnn" };
	char path[PATH_MAX], value[64], what[256];
	char *text;
	int k;

	text = join(path, sizeof(path), site, rel) ? read_small(path) : NULL;
	if (!text)
		return;
	for (k = 0; k < 2; k++) {
		if (!keys[k] || !(dict ? dict_value(text, keys[k], value, sizeof(value))
				       : py_assignment(text, keys[k], value, sizeof(value))) ||
		    !plain_version(value))
			continue;
		snprintf(what, sizeof(what), dict ? "'%s': '%s'" : "%s = '%s'", keys[k], value);
		add_major_need(out, families[k], value, path, what, framework);
	}
	free(text);
}

/* CuPy's wheels: cupy/.data/_wheel.json, {"cuda": "12.x", "cudnn": {"version": ...}}. */
static void read_cupy_wheel_json(const char *site, const char *framework, struct host_needs *out)
{
	char path[PATH_MAX], what[256];
	const char *cuda, *cudnn;
	json_t *root;

	root = join(path, sizeof(path), site, "cupy/.data/_wheel.json") ? json_load_file(path, 0, NULL) : NULL;
	if (!root)
		return;
	cuda = json_string_value(json_object_get(root, "cuda"));
	if (cuda && plain_version(cuda)) {
		snprintf(what, sizeof(what), "\"cuda\": \"%s\"", cuda);
		add_major_need(out, "cudart", cuda, path, what, framework);
	}
	cudnn = json_string_value(json_object_get(json_object_get(root, "cudnn"), "version"));
	if (cudnn && plain_version(cudnn)) {
		snprintf(what, sizeof(what), "\"cudnn\": {\"version\": \"%s\"}", cudnn);
		add_major_need(out, "cudnn", cudnn, path, what, framework);
	}
	json_decref(root);
}

/* The framework's own build files, by its top-level package. */
static void read_build_files(const char *site, const char *top, const char *framework, struct host_needs *out)
{
	static const char *const torch_keys[2] = { "cuda", NULL };
	static const char *const tf_keys[2] = { "cuda_version", "cudnn_version" };
	static const char *const ort_keys[2] = { "cuda_version", "cudnn_version" };

	if (strcmp(top, "torch") == 0)
		read_python_build_file(site, "torch/version.py", false, torch_keys, framework, out);
	else if (strcmp(top, "tensorflow") == 0)
		read_python_build_file(site, "tensorflow/python/platform/build_info.py", true, tf_keys, framework,
				       out);
	else if (strcmp(top, "onnxruntime") == 0)
		read_python_build_file(site, "onnxruntime/capi/version_info.py", false, ort_keys, framework, out);
	else if (strcmp(top, "cupy") == 0 || strcmp(top, "cupy_backends") == 0)
		read_cupy_wheel_json(site, framework, out);
}

/* ".../site-packages/torch/lib/libtorch_cuda.so": the site-packages folder
 * and "torch", when that is one of the frameworks read here. */
static bool framework_install(const char *path, char *site, size_t cap, char *top, size_t tcap)
{
	static const char *const roots[] = { "/site-packages/", "/dist-packages/", NULL };
	const char *at = NULL, *p, *end;
	int k;

	for (k = 0; roots[k]; k++)
		for (p = strstr(path, roots[k]); p; p = strstr(p + 1, roots[k]))
			if (!at || p > at)
				at = p;
	if (!at)
		return false;
	p = at + strlen("/site-packages/");
	end = strchr(p, '/');
	if (!end)
		return false;
	snprintf(site, cap, "%.*s", (int)(p - 1 - path), path);
	snprintf(top, tcap, "%.*s", (int)(end - p), p);
	for (k = 0; framework_tops[k]; k++)
		if (strcmp(top, framework_tops[k]) == 0)
			return true;
	return false;
}

/* The dist-info folder of the pip install that owns path, from its RECORD. */
static bool dist_info_of(const char *path, char *out, size_t cap)
{
	struct host_package pk;
	char *slash;

	if (!host_pip_package_of(path, &pk))
		return false;
	snprintf(out, cap, "%s", pk.record);
	slash = strrchr(out, '/');
	if (!slash)
		return false;
	*slash = 0;
	return true;
}

/* What was read, by install: every file of an install declares the same
 * needs, and a traced torch run asks for each of its ~300 files (reading
 * METADATA, evaluating each pin's marker, reading version.py each time: 23
 * ms of a 40 ms diagnosis here, most of one on the H200). Kept until
 * host_framework_cache_free; the files are not expected to change during
 * one report. */
struct read_install {
	char *key;  /* site, top and dist-info folder, joined by '\x1f' */
	struct host_needs needs;
};
static struct read_install *installs;
static size_t ninstalls;

static void needs_copy(struct host_needs *dst, const struct host_needs *src)
{
	*dst = *src;
	dst->v = src->n ? malloc(src->n * sizeof(*src->v)) : NULL;
	if (src->n && !dst->v)
		dst->n = 0;
	else if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof(*src->v));
}

static void remember_install(const char *key, const struct host_needs *needs)
{
	struct read_install *grown = realloc(installs, (ninstalls + 1) * sizeof(*installs));
	char *k = strdup(key);

	if (!grown || !k) {
		free(k);
		if (grown)
			installs = grown;
		return;
	}
	installs = grown;
	installs[ninstalls].key = k;
	needs_copy(&installs[ninstalls].needs, needs);
	ninstalls++;
}

bool host_framework_root(const char *lib_path, char *root, size_t cap)
{
	char site[PATH_MAX], top[128];

	return lib_path && framework_install(lib_path, site, sizeof(site), top, sizeof(top)) &&
	       join(root, cap, site, top);
}

bool host_framework_needs(const char *lib_path, struct host_needs *out)
{
	char site[PATH_MAX], top[128], dist_dir[PATH_MAX] = "", framework[192], key[2 * PATH_MAX + 160];
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!lib_path || !framework_install(lib_path, site, sizeof(site), top, sizeof(top)))
		return false;
	snprintf(framework, sizeof(framework), "%s", top);
	if (!join(out->root, sizeof(out->root), site, top))
		return false;
	if (!dist_info_of(lib_path, dist_dir, sizeof(dist_dir)))
		dist_dir[0] = 0;
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s", site, top, dist_dir);
	for (i = 0; i < ninstalls; i++)
		if (strcmp(installs[i].key, key) == 0) {
			needs_copy(out, &installs[i].needs);
			return true;
		}
	if (dist_dir[0])
		read_metadata(dist_dir, site, out, framework, sizeof(framework));
	read_build_files(site, top, framework, out);
	remember_install(key, out);
	return true;
}

void host_framework_cache_free(void)
{
	size_t i;

	for (i = 0; i < ninstalls; i++) {
		free(installs[i].key);
		free(installs[i].needs.v);
	}
	free(installs);
	installs = NULL;
	ninstalls = 0;
}

void host_needs_free(struct host_needs *needs)
{
	free(needs->v);
	memset(needs, 0, sizeof(*needs));
}
