/* What host/ keeps for the process between questions: package indexes,
 * framework installs, folder listings, the programs searches were for. Forgotten together where the host
 * may have changed since they were read: at the end of a report (the next
 * one reads the host anew), and in the diagnosis child of `gputrace
 * COMMAND` (the program may have installed libraries). */
#ifndef GPUTRACE_HOST_CACHES_H
#define GPUTRACE_HOST_CACHES_H

void host_caches_free(void);

#endif
