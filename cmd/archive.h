/* A .tar.gz written from memory (gputrace bundle): POSIX ustar members,
 * gzip by zlib. Only the command links zlib; libgputrace.so never does.
 * Why our own writer and not tar(1): the members are made in memory after
 * their secrets are taken out, and must never be on disk in the clear, not
 * even in a temporary folder; and a writer of regular files is 100 lines. */
#ifndef GPUTRACE_CMD_ARCHIVE_H
#define GPUTRACE_CMD_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>

struct cmd_archive;

/* Creates path (never over an existing file, never through a link). NULL,
 * with a one-line reason in err, when it cannot. */
struct cmd_archive *cmd_archive_create(const char *path, char *err, size_t errcap);
/* Adds a regular file (mode 0644) named name ("folder/file", at most 255
 * bytes) holding len bytes of data. False when it cannot be written. */
bool cmd_archive_add(struct cmd_archive *a, const char *name, const void *data, size_t len);
/* Ends the archive and closes it; false (the file removed) when any write
 * failed, with the reason in err. Frees a. */
bool cmd_archive_finish(struct cmd_archive *a, char *err, size_t errcap);

#endif
