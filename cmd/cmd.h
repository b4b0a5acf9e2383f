/* The gputrace command's subcommands, one file each (cmd/<name>_cmd.c): each
 * parses its arguments, chooses the output and returns the exit status; the
 * work is done by the layers below (host/, read/, rules/, report/, render/,
 * compare/). */
#ifndef GPUTRACE_CMD_H
#define GPUTRACE_CMD_H

#include <stdbool.h>
#include <stdio.h>

/* `gputrace report [--json|--tree] [--color=WHEN] PATH...` */
int cmd_report_main(int argc, char **argv);
/* `gputrace scan [--json] [--for FILE] [--color=WHEN] [ROOT...]` */
int cmd_scan_main(int argc, char **argv);
/* `gputrace diff [--json] A B [C...]` */
int cmd_diff_main(int argc, char **argv);
/* `gputrace retry [--fix ID | --all-fixes] [--yes] DIR` */
int cmd_retry_main(int argc, char **argv);

/* `gputrace inspect [--json] [--color=WHEN] PID` */
int cmd_inspect_main(int argc, char **argv);

/* `gputrace bundle [-o FILE] DIR` */
int cmd_bundle_main(int argc, char **argv);

/* `gputrace doctor [--json] [--python PATH] [--color=WHEN]` */
int cmd_doctor_main(int argc, char **argv);

/* The diagnosis `gputrace COMMAND` prints when the command exits: to out
 * (the screen) and to kept (the report kept beside the traces, never in
 * colour), either NULL, from one reading of the traces (issue 29: a second
 * for the kept report doubled the cost at exit). With gather_facts, this
 * host's files are asked now and the answers written beside the traces
 * (facts/facts.h), else the facts file is read. For a process that ends
 * right after (the launcher's forked diagnosis child, which leaves by
 * _exit): what the report holds is not freed. */
void cmd_report_after_run(const char *dir, FILE *out, bool color, FILE *kept, bool gather_facts);
/* The facts of these traces' files, asked of this host and written into
 * dir's facts file, with nothing printed: what one rank of a job leaves. */
void cmd_keep_facts(char **traces, int n, const char *dir);

#endif
