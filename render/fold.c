/* Human text made to fit a terminal: paths without `..`, lines folded to
 * 100 columns (fold.h). Pure text work: no file is looked at. */
#define _GNU_SOURCE
#include "render/fold.h"

#include "read/paths.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void gt_normalise_path(char *path)
{
	size_t len = strlen(path);
	bool trailing = len > 1 && path[len - 1] == '/';

	gt_path_lexical_clean(path);
	/* a folder keeps its final '/' (the cleaned path is shorter by it at least) */
	len = strlen(path);
	if (trailing && path[0] == '/' && len > 1) {
		path[len] = '/';
		path[len + 1] = 0;
	}
}

static bool path_may_start(const char *text, const char *at)
{
	return at == text || strchr(" \t(=:,'\"[", at[-1]) != NULL;
}

static bool needs_normalising(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (p[i] == '/' && p[i + 1] == '.' &&
		    (i + 2 == n || p[i + 2] == '/' || (p[i + 2] == '.' && (i + 3 == n || p[i + 3] == '/'))))
			return true;
	return false;
}

void gt_normalise_paths_in(char *text)
{
	char *p = text, one[8192];

	while ((p = strchr(p, '/')) != NULL) {
		size_t n, m;

		if (!path_may_start(text, p)) {
			p++;
			continue;
		}
		n = strcspn(p, " \t\n)],;'\":");
		if (n >= sizeof(one) || !needs_normalising(p, n)) {
			p += n ? n : 1;
			continue;
		}
		memcpy(one, p, n);
		one[n] = 0;
		gt_normalise_path(one);
		m = strlen(one);
		memcpy(p, one, m);
		memmove(p + m, p + n, strlen(p + n) + 1);
		p += m ? m : 1;
	}
}

/* Columns of s[0..n): ANSI sequences (ESC [ ... letter) take none, a UTF-8
 * character one. */
static size_t columns(const char *s, size_t n)
{
	size_t i = 0, c = 0;

	while (i < n) {
		if (s[i] == '\033' && i + 1 < n && s[i + 1] == '[') {
			i += 2;
			while (i < n && !((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')))
				i++;
			i++;
			continue;
		}
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
		i++;
	}
	return c;
}

/* The line's first word without its colour, for the severity columns. */
static bool is_status_word(const char *w, size_t n)
{
	static const char *const words[] = { "error", "warning", "info", "ok", "FAILED", "skipped", NULL };
	char plain[16];
	size_t i, k = 0;

	for (i = 0; i < n && k + 1 < sizeof(plain); i++) {
		if (w[i] == '\033') {
			while (i < n && w[i] != 'm')
				i++;
			continue;
		}
		plain[k++] = w[i];
	}
	plain[k] = 0;
	for (i = 0; words[i]; i++)
		if (strcmp(plain, words[i]) == 0)
			return true;
	return false;
}

/* The offset of the text after a status word ending at off: past the
 * spaces, and past a colour's reset that comes after its padding
 * ("\033[31merror  \033[0m  id: ..."), which takes no column. */
static size_t status_text_at(const char *line, size_t off)
{
	size_t n;

	for (;;) {
		off += strspn(line + off, " ");
		n = strcspn(line + off, " ");
		if (!n || columns(line + off, n) != 0)
			return off;
		off += n;
	}
}

/* Where a continuation line of this line starts, in columns: under the
 * text of an evidence item ("- "), of a finding or a step (after its
 * severity or status column), of a "fix: " or "searched: "; else four
 * columns in. */
static size_t continuation_indent(const char *line, size_t width)
{
	size_t lead = strspn(line, " "), n = strcspn(line + lead, " "), cols;
	const char *w = line + lead;

	if (w[0] == '-' && w[1] == ' ')
		cols = lead + 2;
	else if (is_status_word(w, n) && w[n] == ' ')
		cols = columns(line, status_text_at(line, lead + n));
	else if (n > 1 && w[n - 1] == ':')
		cols = lead + n + 1;
	else
		cols = lead + 4;
	return cols > width / 2 ? width / 2 : cols;
}

/* A line that shows a command to paste ("run: env -u ... python3 x.py"):
 * it is folded between shell words, with a backslash at each break, and
 * its paths are left as the command has them. */
static bool is_command_line(const char *line)
{
	return strncmp(line + strspn(line, " "), "run: ", 5) == 0;
}

/* The length of the word at w: up to a space, or for a command up to a
 * space outside quotes ('...' and $'...'; the quoting never escapes a
 * quote inside them). */
static size_t word_len(const char *w, bool shell)
{
	bool quoted = false;
	size_t n;

	if (!shell)
		return strcspn(w, " ");
	for (n = 0; w[n] && (quoted || w[n] != ' '); n++)
		if (w[n] == '\'')
			quoted = !quoted;
	return n;
}

void gt_fold_line(FILE *out, const char *line, size_t width)
{
	bool shell = is_command_line(line), first = true;
	size_t indent, col = 0, i, room = shell ? width - 2 : width;
	const char *p = line;

	if (columns(line, strlen(line)) <= width) {
		fputs(line, out);
		fputc('\n', out);
		return;
	}
	indent = continuation_indent(line, width);
	while (*p) {
		const char *w = p + strspn(p, " ");
		size_t gap = (size_t)(w - p), n = word_len(w, shell), wc = columns(w, n);

		if (!*w)
			break;
		if (first || col + gap + wc <= room) {
			/* the leading spaces and the column gaps stay as they are */
			fwrite(p, 1, gap + n, out);
			col += gap + wc;
			first = false;
		} else {
			fputs(shell ? " \\\n" : "\n", out);
			for (i = 0; i < indent; i++)
				fputc(' ', out);
			fwrite(w, 1, n, out);
			col = indent + wc;
		}
		p = w + n;
	}
	fputc('\n', out);
}

FILE *gt_fold_open(struct gt_fold *fb)
{
	fb->buf = NULL;
	fb->len = 0;
	fb->mem = open_memstream(&fb->buf, &fb->len);
	if (!fb->mem)
		abort();
	return fb->mem;
}

void gt_fold_close(struct gt_fold *fb, FILE *out)
{
	char *line, *nl;

	fclose(fb->mem);
	for (line = fb->buf; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (!is_command_line(line))
			gt_normalise_paths_in(line);
		gt_fold_line(out, line, GT_TEXT_WIDTH);
		if (!nl)
			break;
	}
	free(fb->buf);
	fb->buf = NULL;
}
