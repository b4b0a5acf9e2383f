/* Running a command under the tracer: environment, exec, signals, exit status. */
#ifndef GPUTRACE_LAUNCH_H
#define GPUTRACE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/cli.h"

struct cmd_launch_opts {
	const char *out_dir;   /* -o DIR, or NULL for a fresh temporary folder */
	bool quiet;            /* -q: no summary at exit */
	bool append;           /* --append: out_dir may hold traces already */
	enum cmd_color color;  /* --color: of the summary at exit */
	char *const *argv;     /* the command and its arguments */
	const char *exe;       /* run this file with argv (argv[0] as the program's name);
	                          NULL: argv[0], found as execvp finds it */
	char *dir_used;        /* if set, gets the trace folder (dir_used_cap bytes) */
	size_t dir_used_cap;
	int *killed_by;        /* if set, gets the signal that killed the command, else 0 */
	/* What the command runs with, set in its own process after the fork:
	 * gputrace never changes its own environment, folder or outputs (retry
	 * runs a command several times from one process). */
	char *const *env;      /* "NAME=value" to set, "NAME" to unset, in order; NULL-ended, or NULL */
	const char *cwd;       /* its working folder, or NULL for gputrace's */
	bool stdout_to_stderr; /* its stdout goes where gputrace's stderr goes */
};

/* Runs the command traced; returns the exit status gputrace must exit with
 * (128+N when signal N killed the command: see cmd_end_like_command). */
int cmd_launch_traced(const struct cmd_launch_opts *o);
/* gputrace's own end after the command's: killed by the same signal when
 * one killed the command (killed_by), else exit status `status`. */
int cmd_end_like_command(int status, int killed_by);

/* The folder the gputrace command runs from (/proc/self/exe's). */
bool cmd_own_folder(char *out, size_t cap);
/* A file installed with the command (gputrace-probe, torch_doctor.py): next
 * to it (the build tree) or in ../lib/gputrace/ (an installed tree, wherever
 * it was moved). False when in neither. */
bool cmd_find_beside(const char *name, char *out, size_t cap);

/* Where libgputrace.so is: $GPUTRACE_LIB, next to the command, ../lib/gputrace/.
 * Writes the path to out; on failure writes the places it looked to `looked`. */
bool cmd_find_library(char *out, size_t cap, char *looked, size_t looked_cap);

/* Prepends `lib` to the colon-separated list `old` (which may be NULL) unless
 * it is already there. The result is written to out; false if it won't fit. */
bool cmd_prepend_path_list(char *out, size_t cap, const char *lib, const char *old);

/* Resolves a command the way execvp does (PATH search when no slash).
 * Returns 0 and the path, or an errno value. */
int cmd_resolve_command(const char *cmd, char *out, size_t cap);

/* Runs argv traced into the folder dir, with the "NAME=value" settings of env
 * (NULL-terminated, may be NULL) for it alone, its stdout captured into *out
 * (malloc'd). Returns its exit status (128+N for signal N, 127: not run). */
int cmd_run_traced_capture(char *const *argv, const char *dir, char *const *env, char **out);
/* The same, and each line of its stdout handed to on_line as it comes. */
int cmd_run_traced_stream(char *const *argv, const char *dir, char *const *env, char **out,
			  void (*on_line)(const char *line, void *data), void *data);

/* Why the loader would ignore LD_AUDIT/LD_PRELOAD for this executable, or NULL. */
const char *cmd_untraceable_reason(const char *path);

#endif
