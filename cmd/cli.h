/* What the command lines of gputrace and its subcommands share: the colour
 * switch, one way to say a usage error, and near-miss subcommand names. */
#ifndef GPUTRACE_CLI_H
#define GPUTRACE_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit status of gputrace's own failures when tracing (as env and timeout
 * have it), apart from the command's 126 (cannot run) and 127 (not found). */
#define CMD_EXIT_OWN_FAILURE 125
/* report, scan and doctor: bad usage or unreadable input. */
#define CMD_EXIT_USAGE 2

enum cmd_color { CMD_COLOR_AUTO, CMD_COLOR_ALWAYS, CMD_COLOR_NEVER };

/* --color[=WHEN]: WHEN is auto, always or never (none: always, as ls has it).
 * False for any other WHEN. */
bool cmd_parse_color(const char *when, enum cmd_color *out);

/* Whether output to f gets colour: always/never as asked; auto only on a
 * terminal, with NO_COLOR unset or empty and TERM not "dumb". */
bool cmd_color_on(enum cmd_color c, FILE *f);

/* Prints "WHO: <message>" and "Try 'WHO --help'." to stderr; returns status. */
int cmd_usage_error(const char *who, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The usage error for what getopt_long (opterr = 0, optstring starting with
 * ':') returned as c: an unknown option, or one that needs a value. */
int cmd_bad_option(const char *who, int status, int c, char *const *argv);

/* After `gputrace WORD` found no program WORD: says which subcommand was
 * probably meant ("help" → --help), or nothing when none is near. */
void cmd_hint_subcommand(const char *word, const char *next);
/* Flushes and closes f: 0, or the errno of the first write that failed. */
int cmd_close_checked(FILE *f);
/* path written whole under a temporary name (path.PID.tmp), then renamed: a
 * collector reading it, or many tasks of one host writing the same file,
 * never see half of it. fill writes the content. False, with a message
 * "who: cannot write path: reason" on stderr and no file left, when it
 * cannot be written (a full disk). */
bool cmd_write_file_whole(const char *who, const char *path, void (*fill)(FILE *, void *), void *arg);

#endif
