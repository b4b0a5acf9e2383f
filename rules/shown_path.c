/* Paths as findings show them: real folders, no `..` (shown_path.h). Pure:
 * the disk is asked through facts only (realpath of a folder, recorded
 * beside the traces like every other answer). */
#define _GNU_SOURCE
#include "rules/shown_path.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "facts/facts.h"
#include "read/paths.h"
#include "rules/findings.h"
#include "read/model.h"

void gt_shown_path(struct gt_host_facts *f, const char *path, char *out, size_t cap)
{
	char folder[PATH_MAX], real[PATH_MAX];
	const char *name = gt_base_name(path);

	snprintf(out, cap, "%s", path);
	if (path[0] != '/' || name == path)
		return;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		/* the path is a folder: no name of its own to keep */
		if (!f || !gt_facts_real_path(f, path, out, cap))
			gt_path_lexical_clean(out);
		return;
	}
	gt_folder_of(path, folder, sizeof(folder));
	if (!folder[0])
		snprintf(folder, sizeof(folder), "/");
	if (f && gt_facts_real_path(f, folder, real, sizeof(real)))
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

static bool starts_path(const char *text, const char *at)
{
	if (at > text && at[-1] == ':' && at[1] == '/')
		return false;   /* a URL's "scheme://" */
	return at == text || strchr(" \t(=:,'\"[", at[-1]) != NULL;
}

static bool needs_showing(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (p[i] != '/')
			continue;
		if (p[i + 1] == '/')
			return true;
		if (p[i + 1] == '.' && (i + 2 == n || p[i + 2] == '/' ||
					(p[i + 2] == '.' && (i + 3 == n || p[i + 3] == '/'))))
			return true;
	}
	return false;
}

char *gt_shown_paths_in(struct gt_host_facts *f, const char *text)
{
	char *buf = NULL, one[PATH_MAX], shown[PATH_MAX];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const char *p = text;

	if (!out)
		abort();
	while (*p) {
		size_t n = *p == '/' && starts_path(text, p) ? strcspn(p, " \t\n)],;'\":") : 0;

		if (n && n < sizeof(one) && needs_showing(p, n)) {
			memcpy(one, p, n);
			one[n] = 0;
			gt_shown_path(f, one, shown, sizeof(shown));
			fputs(shown, out);
			p += n;
		} else {
			n = n ? n : 1;
			fwrite(p, 1, n, out);
			p += n;
		}
	}
	fclose(out);
	return buf;
}

/* key of e rewritten by gt_shown_paths_in, where it changes and stays
 * valid JSON text (a real folder's bytes need not be UTF-8). */
static void show_paths_of(struct gt_host_facts *f, json_t *e, const char *key)
{
	const char *was = json_string_value(json_object_get(e, key));
	char *now;
	json_t *s;

	if (!was)
		return;
	now = gt_shown_paths_in(f, was);
	if (strcmp(now, was) != 0 && (s = json_string(now)) != NULL)
		json_object_set_new(e, key, s);
	free(now);
}

static void show_paths_of_text(struct gt_host_facts *f, char **text)
{
	char *now;

	if (!*text)
		return;
	now = gt_shown_paths_in(f, *text);
	free(*text);
	*text = now;
}

void gt_findings_show_paths(struct gt_findings *fs)
{
	static const char *const free_keys[] = { "what", "good_copy", "other_major", "other_path", NULL };
	size_t i, k;
	json_t *e;

	for (i = 0; i < fs->n; i++) {
		struct gt_finding *x = &fs->v[i];
		struct gt_host_facts *f = x->proc ? x->proc->facts : NULL;

		show_paths_of_text(f, &x->summary);
		show_paths_of_text(f, &x->fix);
		json_array_foreach(x->evidence, k, e)
			for (size_t j = 0; free_keys[j]; j++)
				show_paths_of(f, e, free_keys[j]);
	}
}
