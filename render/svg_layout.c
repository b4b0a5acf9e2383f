/* DOT laid out as SVG by Graphviz's own library (libgvc): no shell, no
 * `dot` program needed at run time. Linked into the command only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "render/pictures.h"

#ifdef GPUTRACE_NO_GVC
/* Built with `make GVC=0`: no Graphviz on the build host. */
char *gt_layout_svg(const char *dot, char *err, size_t cap)
{
	(void)dot;
	snprintf(err, cap, "this gputrace was built without Graphviz (make GVC=0): use --dot and "
		 "`dot -Tsvg`, or a build with libgvc");
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
