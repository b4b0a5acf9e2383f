/* Bytes spelled as hex, two digits a byte: the "<key>_hex" twins that the
 * trace writer adds where a value is not UTF-8 (include/gputrace/
 * trace_format.h, GT_HEX_SUFFIX), the facts' {"hex": ...} values, and the
 * redactor, which reads such a twin and writes it again. One spelling and
 * one reading, so that a byte read back is the byte written.
 *
 * Nothing here allocates: the caller gives the room (2 * n digits to spell
 * n bytes, n / 2 bytes to read n digits). The library's writer
 * (common/jline.c) spells its twins into its line buffer by itself; the
 * command's readers use these. */
#ifndef GPUTRACE_HEX_H
#define GPUTRACE_HEX_H

#include <stdbool.h>
#include <stddef.h>

/* 0..15 for 0-9, a-f and A-F; -1 for anything else. */
int gt_hex_digit(char c);

/* The n bytes at bytes as 2 * n lowercase digits at out (no NUL added). */
void gt_hex_spell(char *out, const void *bytes, size_t n);

/* The n / 2 bytes that the n digits at h spell, written at out. False when n
 * is odd or a character is not a hex digit; out is then partly written. */
bool gt_hex_read(const char *h, size_t n, void *out);

#endif
