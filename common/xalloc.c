/* Allocate or abort: the command's out-of-memory policy (see xalloc.h). */
#define _GNU_SOURCE
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *or_abort(void *p)
{
	if (!p)
		abort();
	return p;
}

void *gt_xmalloc(size_t size)
{
	return or_abort(malloc(size ? size : 1));
}

void *gt_xcalloc(size_t n, size_t size)
{
	return or_abort(calloc(n ? n : 1, size ? size : 1));
}

void *gt_xrealloc(void *p, size_t size)
{
	return or_abort(realloc(p, size ? size : 1));
}

char *gt_xstrdup(const char *s)
{
	return s ? or_abort(strdup(s)) : NULL;
}

char *gt_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&out, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	return out;
}
