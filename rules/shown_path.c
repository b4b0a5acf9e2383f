/* Paths as findings show them: real folders, no `..` (shown_path.h). Pure:
 * the disk is asked through facts only (realpath of a folder, recorded
 * beside the traces like every other answer). */
#define _GNU_SOURCE
#include "rules/shown_path.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "facts/facts.h"
#include "read/paths.h"

void gt_path_lexical_clean(char *path)
{
	char *in = path, *out = path;

	if (path[0] != '/')
		return;
	/* out[0..) holds "/a/b" with no '/' at its end; in reads ahead of it */
	while (*in) {
		size_t n;

		while (*in == '/')
			in++;
		n = strcspn(in, "/");
		if (!n)
			break;
		if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > path && *--out != '/')
				;
		} else if (!(n == 1 && in[0] == '.')) {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	if (out == path)
		*out++ = '/';
	*out = 0;
}

void gt_shown_path(struct gt_host_facts *f, const char *path, char *out, size_t cap)
{
	char folder[PATH_MAX], real[PATH_MAX];
	const char *name = gt_base_name(path);

	snprintf(out, cap, "%s", path);
	if (path[0] != '/' || name == path)
		return;
	gt_folder_of(path, folder, sizeof(folder));
	if (!folder[0])
		snprintf(folder, sizeof(folder), "/");
	if (gt_facts_real_path(f, folder, real, sizeof(real)))
		snprintf(out, cap, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", name);
	else
		gt_path_lexical_clean(out);
}

void gt_shown_link_target(struct gt_host_facts *f, const char *path, const char *shown, char *out,
			  size_t cap)
{
	char real[PATH_MAX], shown_folder[PATH_MAX], real_folder[PATH_MAX];

	out[0] = 0;
	if (!gt_facts_real_path(f, path, real, sizeof(real)) || strcmp(real, shown) == 0)
		return;
	gt_folder_of(shown, shown_folder, sizeof(shown_folder));
	gt_folder_of(real, real_folder, sizeof(real_folder));
	snprintf(out, cap, "%s", strcmp(shown_folder, real_folder) == 0 ? gt_base_name(real) : real);
}
