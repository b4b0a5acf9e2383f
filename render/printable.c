/* Control characters escaped for human output (see printable.h). */
#include "render/printable.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define RING 16
#define SLOT 32768

/* Bytes of the control character at s (C0, DEL, a lone C1 byte, or U+0080
 * to U+009F in UTF-8), 0 when s starts with a printable one. */
static size_t control_at(const unsigned char *s)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return s[0] == '\t' ? 0 : 1;
	if (s[0] >= 0x80 && s[0] <= 0x9f)
		return 1;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

static bool needs_escape(const char *s)
{
	for (; *s; s++)
		if (control_at((const unsigned char *)s) || (s[0] == '\\' && s[1] == 'x'))
			return true;
	return false;
}

char *gt_printable_into(const char *s, char *out, size_t cap)
{
	size_t o = 0, k;

	if (!cap)
		return out;
	for (; *s && o + 5 < cap; s++) {
		size_t n = control_at((const unsigned char *)s);

		if (n) {
			for (k = 0; k < n; k++)
				o += (size_t)snprintf(out + o, cap - o, "\\x%02x", (unsigned char)s[k]);
			s += n - 1;
		} else if (s[0] == '\\' && s[1] == 'x') {
			out[o++] = '\\';
			out[o++] = '\\';
		} else {
			out[o++] = *s;
		}
	}
	if (*s && cap > 4) {
		if (o > cap - 4)
			o = cap - 4;
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
	return out;
}

const char *gt_printable(const char *s)
{
	static char ring[RING][SLOT];
	static unsigned next;
	char *out;

	if (!s)
		return "(null)";
	if (!needs_escape(s))
		return s;
	out = ring[next++ % RING];
	return gt_printable_into(s, out, SLOT);
}
