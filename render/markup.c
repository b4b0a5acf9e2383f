/* Trace text as safe text for DOT and HTML (render/markup.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "render/markup.h"

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when the bytes
 * there are not one (overlong forms, surrogates, past U+10FFFF, cut short). */
static size_t utf8_seq(const unsigned char *s)
{
	size_t n, i;
	unsigned long cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* C0, DEL, and C1 written as UTF-8 (U+0080..U+009F). */
static bool is_control(const unsigned char *s, size_t n)
{
	return (n == 1 && (s[0] < 0x20 || s[0] == 0x7f)) || (n == 2 && s[0] == 0xc2 && s[1] <= 0x9f);
}

char *gt_clean_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	/* worst case: every byte a 4-byte "\xHH" or a 3-byte U+FFFD */
	char *out = gt_xmalloc(strlen((const char *)p) * 4 + 1), *o = out;
	size_t n;

	while (*p) {
		n = utf8_seq(p);
		if (n && is_control(p, n)) {
			o += sprintf(o, "\\x%02X", p[n - 1]);
		} else if (n) {
			memcpy(o, p, n);
			o += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			n = 1;
		}
		p += n;
	}
	*o = 0;
	return out;
}

void gt_put_html(FILE *f, const char *s)
{
	char *t = gt_clean_text(s), *c;

	for (c = t; *c; c++) {
		switch (*c) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*c, f);
		}
	}
	free(t);
}

void gt_put_dot(FILE *f, const char *s)
{
	char *t = gt_clean_text(s), *c;

	for (c = t; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c, f);
	}
	free(t);
}
