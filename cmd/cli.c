/* The command line's shared parts: colour, usage errors, "did you mean",
 * files written whole. */
#include "cmd/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "render/printable.h"

static const char *const subcommands[] = { "report", "scan", "doctor", "diff", "retry", "inspect", "bundle" };
#define NEAR_ENOUGH 2

bool cmd_parse_color(const char *when, enum cmd_color *out)
{
	if (!when || strcmp(when, "always") == 0)
		*out = CMD_COLOR_ALWAYS;
	else if (strcmp(when, "auto") == 0)
		*out = CMD_COLOR_AUTO;
	else if (strcmp(when, "never") == 0)
		*out = CMD_COLOR_NEVER;
	else
		return false;
	return true;
}

bool cmd_color_on(enum cmd_color c, FILE *f)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

	if (c != CMD_COLOR_AUTO)
		return c == CMD_COLOR_ALWAYS;
	if (no_color && *no_color)
		return false;
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(f));
}

int cmd_usage_error(const char *who, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", who);
	return status;
}

int cmd_bad_option(const char *who, int status, int c, char *const *argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (c == ':')
		return cmd_usage_error(who, status, "option '%s' needs a value", arg);
	if (optopt)
		return cmd_usage_error(who, status, "unknown option '-%c'", optopt);
	return cmd_usage_error(who, status, "unknown option '%s'", arg);
}

/* Levenshtein distance, for short words only (longer ones are never near). */
static int edit_distance(const char *a, const char *b)
{
	int row[32], i, j, diag, up;
	size_t la = strlen(a), lb = strlen(b);

	if (la >= 31 || lb >= 31)
		return NEAR_ENOUGH + 1;
	for (j = 0; j <= (int)lb; j++)
		row[j] = j;
	for (i = 1; i <= (int)la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= (int)lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

void cmd_hint_subcommand(const char *word, const char *next)
{
	size_t i;

	if (strcmp(word, "help") == 0) {
		for (i = 0; next && i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
			if (strcmp(next, subcommands[i]) == 0) {
				fprintf(stderr, "gputrace: did you mean 'gputrace %s --help'?\n", next);
				return;
			}
		fprintf(stderr, "gputrace: did you mean 'gputrace --help'?\n");
		return;
	}
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (edit_distance(word, subcommands[i]) <= NEAR_ENOUGH) {
			fprintf(stderr, "gputrace: did you mean 'gputrace %s'? (a subcommand; "
				"'%s' is not a program on PATH)\n", subcommands[i], word);
			return;
		}
}

int cmd_close_checked(FILE *f)
{
	int err = 0;

	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) != 0 && !err)
		err = errno ? errno : EIO;
	return err;
}

/* Written to a temporary file and renamed: a reader never sees half a file,
 * and a failed write (a full disk) leaves no file and says so. */
bool cmd_write_file_whole(const char *who, const char *path, void (*fill)(FILE *, void *), void *arg)
{
	char *tmp = gt_xasprintf("%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	int err;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", who, gt_printable(tmp), strerror(errno));
		free(tmp);
		return false;
	}
	errno = 0;
	fill(f, arg);
	err = cmd_close_checked(f);
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err) {
		fprintf(stderr, "%s: cannot write %s: %s\n", who, gt_printable(path), strerror(err));
		unlink(tmp);
	}
	free(tmp);
	return !err;
}
