/* Human text made to fit a terminal (issue 30): lines folded to 100 columns,
 * a long path put on a line of its own under its item, and the `..` of a
 * path the loader built from $ORIGIN (`torch/lib/../../nvidia/...`) taken
 * out. Every text output writes into a buffer (gt_fold_open) and hands it to
 * gt_fold_close, which writes it folded. */
#ifndef GPUTRACE_FOLD_H
#define GPUTRACE_FOLD_H

#include <stddef.h>
#include <stdio.h>

/* The width every text output keeps to. */
#define GT_TEXT_WIDTH 100

/* A path with its `.` and `..` components taken out lexically, in place:
 * `/a/lib/../../b/x` is `/b/x`. Only an absolute path is changed; symlinks
 * are not followed (the loader's own name of the file stays readable). */
void gt_normalise_path(char *path);

/* text's absolute paths normalised (a path is a run of bytes from a '/'
 * that starts a word, or follows '(' or '=' at its start, up to a space). */
void gt_normalise_paths_in(char *text);

/* One line (no '\n') folded to width columns, written to out with the
 * newline: breaks fall between words; a continuation line is indented
 * under the line's item (after "- ", after "error    id: ", after a
 * leading "word: ", else four more columns). A word wider than the room
 * (a path) gets a line of its own, and is never cut. ANSI colour sequences
 * take no column. */
void gt_fold_line(FILE *out, const char *line, size_t width);

/* A buffer to render into; gt_fold_close writes what it holds to out,
 * paths normalised and every line folded to GT_TEXT_WIDTH, and frees it. */
struct gt_fold {
	FILE *mem;
	char *buf;
	size_t len;
};
FILE *gt_fold_open(struct gt_fold *fb);
void gt_fold_close(struct gt_fold *fb, FILE *out);

#endif
