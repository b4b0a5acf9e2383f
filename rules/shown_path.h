/* A path as a finding shows it to the user (issue 28): the folder after
 * symlinks and without `.`, `..` or `//` (the loader keeps
 * `torch/lib/../../nvidia/cudnn/lib` as $ORIGIN built it), and the file's
 * own name, which is the name the loader looked for (the SONAME link). */
#ifndef GPUTRACE_RULES_SHOWN_PATH_H
#define GPUTRACE_RULES_SHOWN_PATH_H

#include <stddef.h>

#include "read/paths.h"  /* gt_path_lexical_clean: the folder cleaned without the disk */

struct gt_host_facts;
struct gt_findings;

/* path's real folder (its symlinks and `..` resolved, as facts know it)
 * and its own name; its folder cleaned lexically where facts know none. */
void gt_shown_path(struct gt_host_facts *f, const char *path, char *out, size_t cap);

/* The file that name stands for when it is a symlink to another name (the
 * SONAME link `libcudnn.so.9` to `libcudnn.so.9.19.0`): the real file's
 * name when it is in the same folder, else its real path; "" when path is
 * no link, or is not there. shown is gt_shown_path's answer for path. */
void gt_shown_link_target(struct gt_host_facts *f, const char *path, const char *shown, char *out,
			  size_t cap);

/* text with each absolute path in it that holds `.`, `..` or `//` written
 * as gt_shown_path writes it (f may be NULL: lexically); malloc'd. A path
 * starts a word (or follows '(', '=', ':', ',', a quote or '[') and ends
 * at a space, a quote, ')', ']', ',', ';' or ':'. */
char *gt_shown_paths_in(struct gt_host_facts *f, const char *text);

/* Every finding's words (summary, fix, each evidence item's "what") and
 * the evidence's path values that name no object of the trace (good_copy,
 * other_major, other_path), shown so; once, after all rules ran. The keys
 * that name the trace's objects (path, requester, consumer ...) keep the
 * loader's names: pictures and later rules match them to the model. */
void gt_findings_show_paths(struct gt_findings *fs);

#endif
