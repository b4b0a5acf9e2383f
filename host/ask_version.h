/* gputrace scan --ask: a library's version from its own version function
 * (cudaRuntimeGetVersion, cudnnGetVersion, cublasGetProperty ...), called in
 * a separate, short-lived child process (the helper, gputrace-probe
 * --ask-version), never in the scan's own: loading a library runs its code,
 * and a crash or a hang there is reported, never inherited. */
#ifndef GPUTRACE_HOST_ASK_VERSION_H
#define GPUTRACE_HOST_ASK_VERSION_H

#include <stdbool.h>
#include <stddef.h>

/* The helper run as HELPER --ask-version COMPONENT PATH, without the
 * variables that steer loading (LD_LIBRARY_PATH, LD_PRELOAD, LD_AUDIT: the
 * file's dependencies come from its own RUNPATH and the cache) and without a
 * core dump, killed after timeout_ms. True with the version in version;
 * false with why in err (the function is missing, the child crashed or
 * hung ...). from: the file the answer speaks for when another one (cuDNN
 * 9's front answers for the graph library it loaded), else "". False with
 * err "" when the component has no version function to ask (the helper
 * exits 3: cuDNN's engine libraries, cuFFTW). */
/* Whether to refuse asking the file at path: run as root, gputrace runs no
 * code that another user could have put there (a file not owned by root or
 * writable by others, or a folder on its path that is, a sticky one like
 * /tmp excepted). True with the reason, a whole line's worth, in why. */
bool host_ask_refused(const char *path, char *why, size_t cap);
bool host_ask_version(const char *helper, const char *component, const char *path, int timeout_ms,
		      char *version, size_t vcap, char *from, size_t fcap, char *err, size_t ecap);

#endif
