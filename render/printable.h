/* Strings from traces and from the disk, made safe to print on a terminal:
 * a path or an argv may hold ESC, OSC or other control sequences, which must
 * never reach the user's terminal raw. Every human output (text, tree, scan,
 * doctor, error messages) passes such strings through gt_printable. */
#ifndef GPUTRACE_PRINTABLE_H
#define GPUTRACE_PRINTABLE_H

#include <stddef.h>

/* s with each control character (C0, DEL, C1, as a byte or as UTF-8) written
 * as \xHH, and a backslash as \\ when it is followed by 'x'; s itself when it
 * has none. The result lives until the 16th call after this one (a ring of
 * buffers, enough for one printf); NULL gives "(null)". */
const char *gt_printable(const char *s);
/* The same into out; returns out. */
char *gt_printable_into(const char *s, char *out, size_t cap);

#endif
