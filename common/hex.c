/* Bytes spelled as hex (common/hex.h). */
#include "common/hex.h"

int gt_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void gt_hex_spell(char *out, const void *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = bytes;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
}

bool gt_hex_read(const char *h, size_t n, void *out)
{
	unsigned char *b = out;
	size_t i;

	if (n % 2)
		return false;
	for (i = 0; i < n / 2; i++) {
		int hi = gt_hex_digit(h[2 * i]), lo = gt_hex_digit(h[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}
