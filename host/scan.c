/* gputrace scan: finding the CUDA library files of a host (see scan.h). The
 * places come from the loader's own configuration (ld.so.cache, ld.so.conf,
 * LD_LIBRARY_PATH, the default folders) and from where installers put them
 * (CUDA toolkits, /opt, conda, Python environments). */
#define _GNU_SOURCE
#include "common/nvidia_driver.h"
#include "host/scan.h"
#include "host/ask_version.h"
#include "host/embedded_version.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <elf.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_VISITED 65536
#define MAX_LINK_HOPS 40

struct walker {
	struct host_scan *s;
	dev_t dev[MAX_VISITED];
	ino_t ino[MAX_VISITED];
	int depth[MAX_VISITED];  /* how deep below it the folder was walked */
	size_t nvisited;
};

static void problem(struct host_scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct host_scan *s, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		abort();
	va_end(ap);
	s->problems = gt_xrealloc(s->problems, (s->nproblems + 1) * sizeof(char *));
	s->problems[s->nproblems++] = line;
}

static bool seen_copy(const struct host_scan *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->ncopies; i++)
		if (strcmp(s->copies[i].path, path) == 0)
			return true;
	return false;
}

/* One more step of a copy's chain: the path, then each link target as the
 * link holds it (the JSON's "chain" array; the text joins them with " -> "). */
static void add_link(struct host_copy *c, const char *step)
{
	c->links = gt_xrealloc(c->links, (c->nlinks + 1) * sizeof(*c->links));
	c->links[c->nlinks++] = gt_xstrdup(step);
}

/* "a -> b -> c" for a symlink, each step also in c->links; *broken when it
 * ends nowhere or loops. */
static char *link_chain(struct host_copy *c, const char *path, bool *broken)
{
	char cur[PATH_MAX + 64], target[PATH_MAX], *chain = NULL, *tmp;
	struct stat st;
	ssize_t n;
	int hops;

	dev_t seen_dev[MAX_LINK_HOPS];
	ino_t seen_ino[MAX_LINK_HOPS];
	int k;

	*broken = false;
	snprintf(cur, sizeof(cur), "%s", path);
	if (asprintf(&chain, "%s", path) < 0)
		abort();
	add_link(c, path);
	for (hops = 0; hops < MAX_LINK_HOPS; hops++) {
		if (lstat(cur, &st) != 0) {
			*broken = true;
			return chain;
		}
		if (!S_ISLNK(st.st_mode))
			return chain;
		/* a link met before: a loop, said once */
		for (k = 0; k < hops; k++)
			if (seen_dev[k] == st.st_dev && seen_ino[k] == st.st_ino) {
				*broken = true;
				return chain;
			}
		seen_dev[hops] = st.st_dev;
		seen_ino[hops] = st.st_ino;
		n = readlink(cur, target, sizeof(target) - 1);
		if (n <= 0) {
			*broken = true;
			return chain;
		}
		target[n] = 0;
		if (target[0] != '/') {  /* relative to the link's folder */
			char dir[PATH_MAX], *slash;

			snprintf(dir, sizeof(dir), "%.*s", (int)sizeof(dir) - 1, cur);
			slash = strrchr(dir, '/');
			if (slash)
				*slash = 0;
			else
				snprintf(dir, sizeof(dir), ".");
			if ((size_t)snprintf(cur, sizeof(cur), "%s/%s", dir, target) >= sizeof(cur)) {
				*broken = true;
				return chain;
			}
		} else {
			snprintf(cur, sizeof(cur), "%s", target);
		}
		if (asprintf(&tmp, "%s -> %s", chain, target) < 0)
			abort();
		add_link(c, target);
		free(chain);
		chain = tmp;
	}
	*broken = true;  /* a loop, or a chain too long for the loader too */
	return chain;
}

/* A name that stops at the major (libcudnn_graph.so.9): the version the
 * file itself carries, when it carries one. */
static void embedded_version(struct host_copy *c)
{
	char v[sizeof(c->version)];

	if (!c->real_path || !c->elf.ok || strchr(c->version, '.') ||
	    !host_embedded_version(c->real_path, c->fi.component, v, sizeof(v)))
		return;
	snprintf(c->version, sizeof(c->version), "%s", v);
	c->version_source = "embedded";
}

/* X.Y.Z or longer: nothing to ask. */
static bool full_version(const char *v)
{
	const char *dot = strchr(v, '.');

	return dot && strchr(dot + 1, '.');
}

static bool same_folder(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');

	return sa && sb && sa - a == sb - b && strncmp(a, b, (size_t)(sa - a)) == 0;
}

static void ask_one(struct host_copy *c, const char *helper, int timeout_ms)
{
	char version[64], from[PATH_MAX], err[sizeof(c->ask_error)];

	if (host_ask_refused(c->real_path, c->ask_error, sizeof(c->ask_error)))
		return;
	if (!host_ask_version(helper, c->fi.component, c->real_path, timeout_ms, version, sizeof(version), from,
			      sizeof(from), err, sizeof(err))) {
		snprintf(c->ask_error, sizeof(c->ask_error), "%s", err);
		return;
	}
	/* an answer for another install's file is not this file's version */
	if (from[0] && !same_folder(from, c->real_path)) {
		snprintf(c->ask_error, sizeof(c->ask_error), "the answer, %.24s, is that of %.160s, from another folder",
			 version, from);
		return;
	}
	snprintf(c->version, sizeof(c->version), "%s", version);
	c->version_source = "asked";
}

void host_scan_ask(struct host_scan *s, const char *helper, int timeout_ms)
{
	size_t i, k;

	for (i = 0; i < s->ncopies; i++) {
		struct host_copy *c = &s->copies[i];

		if (!c->real_path || !c->elf.ok || c->stub || full_version(c->version) ||
		    strcmp(c->version_source, "embedded") == 0)
			continue;
		for (k = 0; k < i; k++)  /* a file's other names were asked already */
			if (s->copies[k].real_path && strcmp(s->copies[k].real_path, c->real_path) == 0)
				break;
		if (k == i) {
			ask_one(c, helper, timeout_ms);
			continue;
		}
		memcpy(c->version, s->copies[k].version, sizeof(c->version));
		c->version_source = s->copies[k].version_source;
		memcpy(c->ask_error, s->copies[k].ask_error, sizeof(c->ask_error));
	}
}

/* Does the ELF file carry device code or need a CUDA library? */
static bool uses_cuda(const struct host_elf_info *elf)
{
	struct gt_family_info fi;
	size_t k;

	if (elf->has_fatbin)
		return true;
	for (k = 0; k < elf->nneeded; k++)
		if (gt_classify_any(elf->needed[k], &fi))
			return true;
	return false;
}

/* A shared object that is no CUDA library: kept as a consumer when it carries
 * device code, needs a CUDA library or is a CUDA plug-in by name. */
static void add_consumer(struct host_scan *s, const char *path, const char *where)
{
	struct host_copy c = { 0 };
	char real[PATH_MAX];
	size_t i;

	if (!realpath(path, real))
		return;
	for (i = 0; i < s->nconsumers; i++)
		if (strcmp(s->consumers[i].real_path, real) == 0)
			return;
	if (!host_elf_read(real, &c.elf) || !(gt_classify_any(path, &c.fi) || uses_cuda(&c.elf))) {
		host_elf_free(&c.elf);
		return;
	}
	if (!c.fi.family) {
		c.fi.family = "consumer";
		snprintf(c.fi.component, sizeof(c.fi.component), "%s", strrchr(real, '/') + 1);
	}
	c.path = strdup(path);
	c.real_path = strdup(real);
	c.where = where;
	c.version_source = "none";
	s->consumers = gt_xrealloc(s->consumers, (s->nconsumers + 1) * sizeof(*s->consumers));
	s->consumers[s->nconsumers++] = c;
}

static void add_copy(struct host_scan *s, const char *path, const char *where)
{
	struct gt_family_info fi;
	struct host_copy *c;
	char real[PATH_MAX];
	bool broken;

	if (!gt_classify(path, &fi)) {
		if (s->want_consumers)
			add_consumer(s, path, where);
		return;
	}
	if (seen_copy(s, path))
		return;
	s->copies = gt_xrealloc(s->copies, (s->ncopies + 1) * sizeof(*s->copies));
	c = &s->copies[s->ncopies++];
	memset(c, 0, sizeof(*c));
	c->path = strdup(path);
	c->where = where;
	c->chain = link_chain(c, path, &broken);
	if (!broken && realpath(path, real))
		c->real_path = strdup(real);
	if (!c->real_path || !gt_classify(c->real_path, &c->fi))
		c->fi = fi;
	snprintf(c->version, sizeof(c->version), "%s", c->fi.version);
	c->version_source = c->version[0] ? "file" : "none";
	host_package_want(path);  /* its package: after the walk, with all the others' */
	if (c->real_path)
		host_elf_read(c->real_path, &c->elf);
	embedded_version(c);
	c->stub = strcmp(c->fi.component, "cuda") == 0 &&
		  (strstr(path, "/stubs/") || (c->real_path && strstr(c->real_path, "/stubs/")));
}

/* Each real folder once, unless it is now to be walked deeper than before
 * (a loader folder first seen alone, then inside a toolkit walked whole). */
static bool visited(struct walker *w, const char *dir, int depth)
{
	struct stat st;
	size_t i;

	if (stat(dir, &st) != 0)
		return true;
	for (i = 0; i < w->nvisited; i++) {
		if (w->dev[i] != st.st_dev || w->ino[i] != st.st_ino)
			continue;
		if (w->depth[i] >= depth)
			return true;
		w->depth[i] = depth;
		return false;
	}
	if (w->nvisited < MAX_VISITED) {
		w->dev[w->nvisited] = st.st_dev;
		w->depth[w->nvisited] = depth;
		w->ino[w->nvisited++] = st.st_ino;
	}
	return false;
}

static bool is_dir_entry(const char *dir, const struct dirent *e)
{
	char path[PATH_MAX];
	struct stat st;

	if (e->d_type == DT_DIR)
		return true;
	if (e->d_type != DT_UNKNOWN)
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every CUDA-family file in dir, and below it to the given depth (symlinked
 * folders are not followed: each real folder once). */
static void walk(struct walker *w, const char *dir, const char *where, int depth)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (visited(w, dir, depth))
		return;
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT && errno != ENOTDIR)
			problem(w->s, "%s: cannot read this folder: %s", dir, strerror(errno));
		return;
	}
	w->s->nfolders++;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (strncmp(e->d_name, "lib", 3) == 0 && strstr(e->d_name, ".so"))
			add_copy(w->s, path, where);
		else if (w->s->want_consumers && strstr(e->d_name, ".so") && !is_dir_entry(dir, e))
			add_consumer(w->s, path, where);  /* xla_cuda_plugin.so, _C.cpython-312-*.so */
		else if (depth > 0 && is_dir_entry(dir, e))
			walk(w, path, where, depth - 1);
	}
	closedir(d);
}

/* A folder and the glibc-hwcaps subfolders the loader looks into. */
static void walk_loader_dir(struct walker *w, const char *dir, const char *where)
{
	char sub[PATH_MAX + 16];

	walk(w, dir, where, 0);
	snprintf(sub, sizeof(sub), "%s/glibc-hwcaps", dir);
	walk(w, sub, where, 1);
}

static void walk_glob(struct walker *w, const char *pattern, const char *where, int depth)
{
	glob_t g;
	size_t i;

	if (glob(pattern, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++)
		walk(w, g.gl_pathv[i], where, depth);
	globfree(&g);
}

/* A configuration file, never blocking on something that is not one. */
static FILE *open_config(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	FILE *f = NULL;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		f = fdopen(fd, "r");
	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* /etc/ld.so.conf and its includes: the folders ldconfig put in the cache. */
static void walk_ld_so_conf(struct walker *w, const char *conf, int level)
{
	char line[PATH_MAX], *p, *end;
	FILE *f;
	glob_t g;
	size_t i;

	if (level > 8 || !(f = open_config(conf)))
		return;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " \t");
		end = p + strcspn(p, "#\n");
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = 0;
		if (!*p)
			continue;
		if (strncmp(p, "include", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
			p += 8 + strspn(p + 8, " \t");
			if (glob(p, GLOB_NOSORT, NULL, &g) == 0) {
				for (i = 0; i < g.gl_pathc; i++)
					walk_ld_so_conf(w, g.gl_pathv[i], level + 1);
				globfree(&g);
			}
		} else if (p[0] == '/') {
			walk_loader_dir(w, p, HOST_WHERE_LD_SO_CONF);
		}
	}
	fclose(f);
}

/* The Python environments of the python3 on PATH, by their folders alone:
 * running python3 to ask would be running something. */
static void walk_python(struct walker *w, const char *prefix)
{
	static const char *const where_in_site[] = { "nvidia/*/lib", "torch/lib", "tensorflow*", "jaxlib*",
						     "nvidia/*/lib64", NULL };
	char pat[PATH_MAX];
	int k;

	for (k = 0; where_in_site[k]; k++) {
		snprintf(pat, sizeof(pat), "%s/lib/python3*/site-packages/%s", prefix, where_in_site[k]);
		walk_glob(w, pat, "site-packages", 2);
		snprintf(pat, sizeof(pat), "%s/lib/python3*/dist-packages/%s", prefix, where_in_site[k]);
		walk_glob(w, pat, "site-packages", 2);
		snprintf(pat, sizeof(pat), "%s/lib/python3/dist-packages/%s", prefix, where_in_site[k]);
		walk_glob(w, pat, "site-packages", 2);
	}
}

static void walk_python_on_path(struct walker *w)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX], real[PATH_MAX], *slash;
	const char *p, *e;

	for (p = path; p && *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/python3", (int)(e - p), p);
		if (access(buf, X_OK) != 0 || !realpath(buf, real))
			continue;
		/* <prefix>/bin/python3.x -> <prefix>; a venv's bin/python3 -> the venv too */
		slash = strrchr(buf, '/');
		*slash = 0;
		slash = strrchr(buf, '/');
		if (slash)
			*slash = 0;
		walk_python(w, buf);
		slash = strrchr(real, '/');
		*slash = 0;
		slash = strrchr(real, '/');
		if (slash)
			*slash = 0;
		walk_python(w, real);
		break;
	}
	walk_python(w, "/usr");
	walk_python(w, "/usr/local");
}

static void walk_conda(struct walker *w)
{
	static const char *const prefixes[] = { "$CONDA_PREFIX", "$HOME/miniconda3", "$HOME/anaconda3",
						"$HOME/miniforge3", "/opt/conda", NULL };
	char pat[PATH_MAX];
	const char *v;
	int k;

	for (k = 0; prefixes[k]; k++) {
		const char *pre = prefixes[k];

		if (pre[0] == '$') {
			const char *slash = strchr(pre, '/');
			char var[32];

			snprintf(var, sizeof(var), "%.*s", (int)(slash ? slash - pre - 1 : (long)strlen(pre) - 1), pre + 1);
			v = getenv(var);
			if (!v || !*v)
				continue;
			snprintf(pat, sizeof(pat), "%s%s", v, slash ? slash : "");
		} else {
			snprintf(pat, sizeof(pat), "%s", pre);
		}
		{
			char lib[PATH_MAX + 16], envs[PATH_MAX + 16];

			snprintf(lib, sizeof(lib), "%s/lib", pat);
			walk(w, lib, "conda", 0);
			snprintf(envs, sizeof(envs), "%s/envs/*/lib", pat);
			walk_glob(w, envs, "conda", 0);
			walk_python(w, pat);
		}
	}
}

/* $GPUTRACE_LD_SO_CACHE names another cache (tests, or a container's image). */
static const char *cache_path(void)
{
	const char *p = getenv("GPUTRACE_LD_SO_CACHE");

	return p && *p ? p : "/etc/ld.so.cache";
}

static void read_cache(struct host_scan *s)
{
	s->have_cache = host_ldcache_read(cache_path(), &s->cache, s->cache_error, sizeof(s->cache_error));
	if (!s->have_cache)
		problem(s, "%s: %s", cache_path(), s->cache_error);
}

static void scan_cache(struct host_scan *s, struct walker *w)
{
	size_t i;

	read_cache(s);
	if (!s->have_cache)
		return;
	for (i = 0; i < s->cache.n; i++)
		add_copy(s, s->cache.entries[i].path, HOST_WHERE_LD_SO_CACHE);
	(void)w;
}

static void scan_usual_places(struct host_scan *s, struct walker *w)
{
	static const char *const defaults[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
						"/lib", "/usr/lib", "/lib64", "/usr/lib64", NULL };
	const char *llp = getenv("LD_LIBRARY_PATH");
	char dir[PATH_MAX];
	const char *p, *e;
	int k;

	scan_cache(s, w);
	for (p = llp; p && *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		snprintf(dir, sizeof(dir), "%.*s", (int)(e - p), p);
		if (dir[0])
			walk_loader_dir(w, dir, HOST_WHERE_LD_LIBRARY_PATH);
	}
	walk_ld_so_conf(w, "/etc/ld.so.conf", 0);
	for (k = 0; defaults[k]; k++)
		walk_loader_dir(w, defaults[k], "default");
	walk_glob(w, "/usr/local/cuda*", "cuda", 4);
	walk(w, "/opt", "opt", 6);
	walk_conda(w);
	walk_python_on_path(w);
}

/* The installer of each copy, asked once the walk has found them all, so
 * that the dpkg lists are read once; a version the file name lacks comes
 * from the package. */
static void fill_packages(struct host_scan *s)
{
	size_t i;

	for (i = 0; i < s->ncopies; i++) {
		struct host_copy *c = &s->copies[i];

		c->has_package = host_package_of(c->path, &c->package);
		if (c->has_package && !strchr(c->version, '.') && c->package.version[0]) {
			snprintf(c->version, sizeof(c->version), "%s", c->package.version);
			c->version_source = "package";
		}
	}
}

static void mark_cached(struct host_scan *s)
{
	size_t i, k;

	for (i = 0; s->have_cache && i < s->ncopies; i++)
		for (k = 0; k < s->cache.n; k++)
			if (strcmp(s->cache.entries[k].path, s->copies[i].path) == 0)
				s->copies[i].in_cache = true;
}

static void add_gpu_model(const char *model, void *data)
{
	char *out = data;
	size_t len = strlen(out);

	snprintf(out + len, sizeof(((struct host_scan *)0)->gpus) - len, "%s%s", len ? ", " : "", model);
}

/* The driver's kernel half: every user-space libcuda the loader could pick
 * must be its release. */
static void read_kernel_driver(struct host_scan *s)
{
	if (gt_read_kmod_version(s->kmod, sizeof(s->kmod)))
		gt_read_gpu_models(add_gpu_model, s->gpus, 16);
	else
		s->kmod[0] = 0;
}

static void scan_run(struct host_scan *s, char *const *roots, int nroots, bool consumers)
{
	struct walker *w = calloc(1, sizeof(*w));
	int i;

	if (!w)
		abort();
	memset(s, 0, sizeof(*s));
	s->want_consumers = consumers;
	w->s = s;
	if (nroots == 0) {
		scan_usual_places(s, w);
	} else {
		read_cache(s);
		for (i = 0; i < nroots; i++) {
			struct stat st;

			if (stat(roots[i], &st) != 0)
				problem(s, "%s: %s", roots[i], strerror(errno));
			else if (S_ISDIR(st.st_mode))
				walk(w, roots[i], "root", 16);
			else
				add_copy(s, roots[i], "root");
		}
	}
	free(w);
	mark_cached(s);
	fill_packages(s);
	read_kernel_driver(s);
}

void host_scan_run(struct host_scan *s, char *const *roots, int nroots)
{
	scan_run(s, roots, nroots, false);
}

void host_scan_run_with_consumers(struct host_scan *s, char *const *roots, int nroots)
{
	scan_run(s, roots, nroots, true);
}

void host_scan_cache_only(struct host_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->cache_only = true;
	read_cache(s);
}

const char *host_where_label(const char *where)
{
	if (strcmp(where, HOST_WHERE_LD_SO_CACHE) == 0)
		return "ld.so.cache";
	if (strcmp(where, HOST_WHERE_LD_LIBRARY_PATH) == 0)
		return "LD_LIBRARY_PATH";
	if (strcmp(where, HOST_WHERE_LD_SO_CONF) == 0)
		return "ld.so.conf";
	return where;
}

void host_scan_free(struct host_scan *s)
{
	size_t i, k;

	for (i = 0; i < s->ncopies; i++) {
		free(s->copies[i].path);
		free(s->copies[i].real_path);
		free(s->copies[i].chain);
		for (k = 0; k < s->copies[i].nlinks; k++)
			free(s->copies[i].links[k]);
		free(s->copies[i].links);
		host_elf_free(&s->copies[i].elf);
	}
	for (i = 0; i < s->nconsumers; i++) {
		free(s->consumers[i].path);
		free(s->consumers[i].real_path);
		host_elf_free(&s->consumers[i].elf);
	}
	free(s->consumers);
	for (i = 0; i < s->nproblems; i++)
		free(s->problems[i]);
	free(s->problems);
	free(s->copies);
	if (s->have_cache)
		host_ldcache_free(&s->cache);
	host_package_cache_free();
	memset(s, 0, sizeof(*s));
}
