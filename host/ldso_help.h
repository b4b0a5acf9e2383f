/* What `ld.so --help` says on this host: the glibc-hwcaps subfolders this CPU
 * takes, AT_PLATFORM, the legacy hwcap names and the default folders (read by
 * host/resolve.c). Running ld.so costs a process (4 ms of a 10 ms scan --for
 * on a busy machine), so its answer is kept in the user's cache, keyed by the
 * loader file, the boot and GLIBC_TUNABLES: none of them changes it otherwise. */
#ifndef GPUTRACE_HOST_LDSO_HELP_H
#define GPUTRACE_HOST_LDSO_HELP_H

/* The text of `ldso --help` (malloc'd), from the cache when its key matches,
 * else from ld.so (then the cache is rewritten, quietly skipped when it
 * cannot be). NULL when ld.so cannot be run. */
char *host_ldso_help(const char *ldso);

#endif
