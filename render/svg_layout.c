/* DOT laid out as SVG: by Graphviz's own library (libgvc), loaded the first
 * time a layout is asked, else by Graphviz's `dot` program.
 *
 * Why loaded and not linked: every gputrace command paid for libgvc at its
 * start, layout or not. Linked, libgvc and what it needs (libcgraph, libcdt,
 * libpathplan, libexpat, libltdl ...) were mapped and relocated by every
 * `gputrace scan --for FILE`: 15 ms of CPU a process where the work is 5 ms
 * (bench/results/scan-for-i33.txt). Only report --svg and --html lay graphs
 * out, so only they load it, by SONAME (the loader's search from this
 * command: its own RUNPATH/RPATH, LD_LIBRARY_PATH, ld.so.cache). A host
 * without libgvc still gets its picture from the `dot` program, and is told
 * so. `make GVC=0` (the .deb, the wheel) never loads libgvc: the `dot`
 * program, which the package Recommends, draws. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/whole_file.h"
#include "common/xalloc.h"
#include "render/pictures.h"

/* Why the last layout was not libgvc's, for the command to say ("" when it
 * was, or when this build never loads libgvc). */
static char fallback_note[600];

/* A bound on dot's output, so that a runaway dot cannot take the memory;
 * over it the layout fails with the usual sentence. */
#define SVG_MAX ((size_t)256 << 20)

static bool write_file(int fd, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		s += n;
		len -= (size_t)n;
	}
	return true;
}

/* Graphviz's `dot` program, found on PATH, given the graph in a file of its
 * own (no shell); without it, one sentence says what to install. */
static char *layout_by_dot_program(const char *dot, char *err, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096], *svg = NULL;
	size_t svg_len = 0;
	int fd, pipefd[2], st = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/gputrace-dot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || !write_file(fd, dot) || pipe2(pipefd, O_CLOEXEC) != 0) {
		snprintf(err, cap, "cannot hand the graph to dot: %s", strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return NULL;
	}
	close(fd);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(pipefd[1], STDOUT_FILENO);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		execlp("dot", "dot", "-Tsvg", path, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid > 0)
		svg = gt_read_whole(pipefd[0], SVG_MAX, &svg_len);
	close(pipefd[0]);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	unlink(path);
	if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && svg && strstr(svg, "<svg"))
		return svg;
	free(svg);
	if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
		snprintf(err, cap, "%s Graphviz's dot program on PATH: install graphviz "
			 "(apt-get install graphviz), or use --dot",
			 fallback_note[0] ? "Graphviz's library could not be loaded, and there is no"
					  : "this gputrace lays graphs out with Graphviz's dot program, and there is no");
	else
		snprintf(err, cap, "dot -Tsvg could not lay the graph out (%s)",
			 pid < 0 ? strerror(errno) : "it failed");
	return NULL;
}

const char *gt_layout_svg_note(void)
{
	return fallback_note[0] ? fallback_note : NULL;
}

#ifdef GPUTRACE_NO_GVC
char *gt_layout_svg_with(const char *libgvc, const char *dot, char *err, size_t cap)
{
	(void)libgvc;
	return layout_by_dot_program(dot, err, cap);
}
#else
#include <dlfcn.h>
#include <graphviz/gvc.h>

/* In sanitizer builds (`make check`): Graphviz 2.43 does not free all it
 * allocates (gvContext's plugin configuration, dot's virtual edges,
 * fontconfig's caches behind its text metrics), and LeakSanitizer would fail
 * every --svg and --html run on leaks that are not ours. Leaks whose
 * allocation stack passes through these libraries are not reported; ours
 * (allocated from gputrace's own code) still are. Other builds never call
 * this. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libgvc.so\nleak:libcgraph.so\nleak:libcdt.so\nleak:libgvplugin_\n"
	       "leak:libfontconfig.so\nleak:libpango\nleak:libcairo.so\nleak:libglib-2.0.so\n";
}

/* ... and without the table of suppressions used on every exit. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

/* The Graphviz calls a layout makes, typed by the headers themselves, so
 * that a Graphviz whose calls changed fails the build, not the run. libgvc
 * needs libcgraph: the ag* calls are looked up through libgvc's handle,
 * which searches what it loaded with it. */
struct graphviz {
	__typeof__(&gvContext) context;
	__typeof__(&gvLayout) layout;
	__typeof__(&gvRenderData) render_data;
	__typeof__(&gvFreeRenderData) free_render_data;
	__typeof__(&gvFreeLayout) free_layout;
	__typeof__(&agmemread) memread;
	__typeof__(&agclose) close;
	__typeof__(&agseterrf) seterrf;
	__typeof__(&agseterr) seterr;
};

#define GRAPHVIZ_CALL(field, name) { offsetof(struct graphviz, field), #name }
static const struct {
	size_t offset;
	const char *name;
} graphviz_calls[] = {
	GRAPHVIZ_CALL(context, gvContext), GRAPHVIZ_CALL(layout, gvLayout),
	GRAPHVIZ_CALL(render_data, gvRenderData), GRAPHVIZ_CALL(free_render_data, gvFreeRenderData),
	GRAPHVIZ_CALL(free_layout, gvFreeLayout), GRAPHVIZ_CALL(memread, agmemread),
	GRAPHVIZ_CALL(close, agclose), GRAPHVIZ_CALL(seterrf, agseterrf),
	GRAPHVIZ_CALL(seterr, agseterr),
};

/* Loads libgvc once per run (never unloaded: its plugins and fonts keep
 * pointers into it); NULL, with the reason in fallback_note, when it cannot
 * be loaded or lacks a call; NULL alone when asked for none. */
static const struct graphviz *load_graphviz(const char *libgvc)
{
	static struct graphviz gv;
	static int state; /* 0 not tried, 1 loaded, -1 not here */
	void *h, *fn;
	size_t i;

	if (!libgvc)
		return NULL;
	if (state)
		return state > 0 ? &gv : NULL;
	state = -1;
	h = dlopen(libgvc, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		snprintf(fallback_note, sizeof(fallback_note), "Graphviz's library is not loadable (%s)",
			 dlerror());
		return NULL;
	}
	for (i = 0; i < sizeof(graphviz_calls) / sizeof(graphviz_calls[0]); i++) {
		fn = dlsym(h, graphviz_calls[i].name);
		if (!fn) {
			snprintf(fallback_note, sizeof(fallback_note), "%s has no %s", libgvc,
				 graphviz_calls[i].name);
			return NULL;
		}
		memcpy((char *)&gv + graphviz_calls[i].offset, &fn, sizeof(fn));
	}
	state = 1;
	return &gv;
}

/* Graphviz's own messages: the last one is the reason a layout failed. */
static char last_error[512];

static int keep_error(char *msg)
{
	size_t n;

	snprintf(last_error, sizeof(last_error), "%s", msg);
	n = strlen(last_error);
	while (n && (last_error[n - 1] == '\n' || last_error[n - 1] == ' '))
		last_error[--n] = 0;
	return 0;
}

/* One Graphviz context for the whole run, never freed: Graphviz 2.43's
 * pango plugin keeps font names of the first context in a cache of its own,
 * and a second context after gvFreeContext reads them freed (the HTML report
 * lays out one graph per kind of process). */
static GVC_t *context(const struct graphviz *gv)
{
	static GVC_t *gvc;

	if (!gvc)
		gvc = gv->context();
	return gvc;
}

static char *layout_by_libgvc(const struct graphviz *gv, const char *dot, char *err, size_t cap)
{
	GVC_t *gvc;
	Agraph_t *g;
	char *data = NULL, *svg = NULL;
	unsigned int len = 0;

	last_error[0] = 0;
	gv->seterrf(keep_error);
	gv->seterr(AGERR);
	gvc = context(gv);
	if (!gvc) {
		snprintf(err, cap, "Graphviz could not start (libgvc's plugins missing?)");
		return NULL;
	}
	g = gv->memread(dot);
	if (!g)
		snprintf(err, cap, "Graphviz could not read the graph: %s", last_error[0] ? last_error : "?");
	else if (gv->layout(gvc, g, "dot") != 0)
		snprintf(err, cap, "Graphviz's dot layout failed: %s", last_error[0] ? last_error : "no dot plugin?");
	else if (gv->render_data(gvc, g, "svg", &data, &len) != 0 || !data)
		snprintf(err, cap, "Graphviz could not write SVG: %s", last_error[0] ? last_error : "no svg plugin?");
	else {
		svg = gt_xmalloc((size_t)len + 1);
		memcpy(svg, data, len);
		svg[len] = 0;
	}
	if (data)
		gv->free_render_data(data);
	if (g) {
		gv->free_layout(gvc, g);
		gv->close(g);
	}
	return svg;
}

char *gt_layout_svg_with(const char *libgvc, const char *dot, char *err, size_t cap)
{
	const struct graphviz *gv = load_graphviz(libgvc);

	return gv ? layout_by_libgvc(gv, dot, err, cap) : layout_by_dot_program(dot, err, cap);
}
#endif

char *gt_layout_svg(const char *dot, char *err, size_t cap)
{
	/* Debian 12's libgvc6 (Graphviz 2.42); the SONAME, not libgvc.so,
	 * which only the -dev package installs. */
	return gt_layout_svg_with("libgvc.so.6", dot, err, cap);
}
