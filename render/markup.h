/* Trace text made safe for the report's pictures: paths, argv and versions
 * from a trace may hold any byte ('<', quotes, control bytes, bytes that are
 * not UTF-8). Each function writes them so that they show as text and never
 * as markup: valid UTF-8 kept, a control character as \xHH (as gt_printable
 * writes it), a byte that is not UTF-8 as U+FFFD. */
#ifndef GPUTRACE_MARKUP_H
#define GPUTRACE_MARKUP_H

#include <stdio.h>

/* The text as described, malloc'd (allocation failure aborts); NULL gives "". */
char *gt_clean_text(const char *s);
/* The text inside an HTML element or a double-quoted attribute value. */
void gt_put_html(FILE *f, const char *s);
/* The text inside a DOT double-quoted string (a label, a tooltip): quotes
 * and backslashes escaped, so Graphviz reads no escape sequence of its own. */
void gt_put_dot(FILE *f, const char *s);

#endif
