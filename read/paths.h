/* Paths as the report names them: a file's folder and name, the folder a
 * loader candidate stands for, how many folders a search tried. The lowest
 * part of read/: the missing-symbol check uses it without a model. */
#ifndef GPUTRACE_PATHS_H
#define GPUTRACE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

struct gt_search;

/* The folder of a path (all before its last '/'; the path itself when it
 * has none), and its last component. */
void gt_folder_of(const char *path, char *out, size_t cap);
const char *gt_base_name(const char *path);
/* Is path Python's ctypes module (_ctypes.cpython-312-...so)? A dlopen it
 * makes is a ctypes.CDLL call of Python code, not a need of the file. */
bool gt_is_ctypes(const char *path);

/* The folder a tried candidate was in, without the hwcaps and tls
 * subfolders the loader tries inside each folder. */
void gt_tried_folder(const char *path, char *out, size_t cap);
/* How many folders a search tried, each with its hwcaps and tls subfolders
 * folded into it (the places a user would name; the paths are s->ntries). */
size_t gt_search_places(const struct gt_search *s);

/* `/a/b/../c/./d//e` as `/a/c/d/e`, in place, without looking at the disk:
 * for a folder the host cannot resolve. Only an absolute path is changed.
 * Shared by the rules' shown paths and the renderers' folded text. */
void gt_path_lexical_clean(char *path);

#endif
