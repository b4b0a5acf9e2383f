/* A running process as /proc shows it (gputrace inspect PID): its program,
 * command line, folder, environment and the ELF files it has mapped, read
 * without stopping or touching it. Reads the host; judges nothing. */
#ifndef GPUTRACE_HOST_PROC_LIVE_H
#define GPUTRACE_HOST_PROC_LIVE_H

#include <stdbool.h>
#include <stddef.h>

/* Why a process could not be read. */
enum host_live_status {
	HOST_LIVE_OK,
	HOST_LIVE_NO_SUCH,       /* no process has that pid */
	HOST_LIVE_NOT_PERMITTED, /* another user's process, and we are not root */
	HOST_LIVE_GONE,          /* it exited (or its pid was taken again) while it was read */
	HOST_LIVE_UNREADABLE,    /* /proc said something else (err says what) */
};

/* One mapped file, once, in the order of its first mapping. */
struct host_live_object {
	char *path;              /* as /proc/PID/maps names it: the real path, in the process's mount namespace */
	bool deleted;            /* the file was removed or replaced on disk since it was mapped */
};

struct host_live {
	long pid, ppid;
	unsigned long long start_ticks; /* /proc/PID/stat field 22: with pid, this process */
	long uid;                /* the owner of /proc/PID: the process's user */
	char *exe;               /* the target of /proc/PID/exe, or NULL */
	char *cwd;               /* the target of /proc/PID/cwd, or NULL */
	char **argv;             /* /proc/PID/cmdline, split at NUL */
	size_t argc;
	char **env;              /* /proc/PID/environ: "NAME=value" each, as the process started */
	size_t nenv;
	struct host_live_object *objects;
	size_t nobjects;
};

/* Reads process pid. On failure, err holds one line naming the pid and
 * why; always call host_live_free. */
enum host_live_status host_live_read(long pid, struct host_live *lv, char *err, size_t errcap);
void host_live_free(struct host_live *lv);
/* The value of NAME in the process's environment, or NULL. */
const char *host_live_env(const struct host_live *lv, const char *name);

#endif
