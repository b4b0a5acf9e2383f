/* DOT laid out as SVG by Graphviz's own library (libgvc): no shell, no
 * `dot` program needed at run time. Linked into the command only; a build
 * without it (GVC=0) runs the `dot` program instead. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "render/pictures.h"

#ifdef GPUTRACE_NO_GVC
/* Built with `make GVC=0` (the Debian package is, so that it needs no
 * libgvc and what comes with it, X11 and cairo, and only Recommends
 * graphviz): the layout is Graphviz's `dot` program's, found on PATH,
 * given the graph in a file of its own; without it, one sentence says what
 * to install. */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

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

static char *read_all(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = gt_xmalloc(cap);
	ssize_t n;

	for (;;) {
		if (len + 1 >= cap)
			buf = gt_xrealloc(buf, cap *= 2);
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return buf;
}

char *gt_layout_svg(const char *dot, char *err, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096], *svg = NULL;
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
		svg = read_all(pipefd[0]);
	close(pipefd[0]);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	unlink(path);
	if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && svg && strstr(svg, "<svg"))
		return svg;
	free(svg);
	if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
		snprintf(err, cap, "this gputrace lays graphs out with Graphviz's dot program, and there is "
			 "none on PATH: install graphviz (apt-get install graphviz), or use --dot");
	else
		snprintf(err, cap, "dot -Tsvg could not lay the graph out (%s)",
			 pid < 0 ? strerror(errno) : "it failed");
	return NULL;
}
#else
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
static GVC_t *context(void)
{
	static GVC_t *gvc;

	if (!gvc)
		gvc = gvContext();
	return gvc;
}

char *gt_layout_svg(const char *dot, char *err, size_t cap)
{
	GVC_t *gvc;
	Agraph_t *g;
	char *data = NULL, *svg = NULL;
	unsigned int len = 0;

	last_error[0] = 0;
	agseterrf(keep_error);
	agseterr(AGERR);
	gvc = context();
	if (!gvc) {
		snprintf(err, cap, "Graphviz could not start (libgvc's plugins missing?)");
		return NULL;
	}
	g = agmemread(dot);
	if (!g)
		snprintf(err, cap, "Graphviz could not read the graph: %s", last_error[0] ? last_error : "?");
	else if (gvLayout(gvc, g, "dot") != 0)
		snprintf(err, cap, "Graphviz's dot layout failed: %s", last_error[0] ? last_error : "no dot plugin?");
	else if (gvRenderData(gvc, g, "svg", &data, &len) != 0 || !data)
		snprintf(err, cap, "Graphviz could not write SVG: %s", last_error[0] ? last_error : "no svg plugin?");
	else {
		svg = gt_xmalloc((size_t)len + 1);
		memcpy(svg, data, len);
		svg[len] = 0;
	}
	if (data)
		gvFreeRenderData(data);
	if (g) {
		gvFreeLayout(gvc, g);
		agclose(g);
	}
	return svg;
}
#endif
