/* Paths as the report names them (see paths.h). */
#include "read/paths.h"

#include <stdio.h>
#include <string.h>

#include "read/trace_read.h"

void gt_folder_of(const char *path, char *out, size_t cap)
{
	char *slash;

	snprintf(out, cap, "%s", path);
	slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
}

const char *gt_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool gt_is_ctypes(const char *path)
{
	return path && strncmp(gt_base_name(path), "_ctypes.", 8) == 0;
}

/* "searched /lib/x86_64-linux-gnu" says it, not each hwcaps subfolder. */
void gt_tried_folder(const char *path, char *out, size_t cap)
{
	static const char *const subdirs[] = { "/glibc-hwcaps/", "/tls/", "/tls", "/x86_64/", "/x86_64",
					       "/haswell/", "/haswell", "/avx512_1/", "/avx512_1", NULL };
	char *slash, *cut;
	int k;

	snprintf(out, cap, "%s", path);
	slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
	for (k = 0; subdirs[k]; k++) {
		size_t sl = strlen(subdirs[k]);

		for (cut = strstr(out, subdirs[k]); cut; cut = strstr(cut + 1, subdirs[k])) {
			if (subdirs[k][sl - 1] == '/' || cut[sl] == 0) {
				*cut = 0;
				break;
			}
		}
	}
}

size_t gt_search_places(const struct gt_search *s)
{
	char folder[4096], other[4096];
	size_t i, k, n = 0;

	for (i = 0; i < s->ntries; i++) {
		gt_tried_folder(s->tries[i].path, folder, sizeof(folder));
		for (k = 0; k < i; k++) {
			gt_tried_folder(s->tries[k].path, other, sizeof(other));
			if (strcmp(folder, other) == 0)
				break;
		}
		n += k == i;
	}
	return n;
}

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
