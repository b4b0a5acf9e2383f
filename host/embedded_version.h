/* A library's full version read from its own bytes, for the files whose
 * name stops at the major (libcudnn_graph.so.9, libnccl.so.2): the string
 * the vendor compiled in, found in .rodata. No code of the file runs. */
#ifndef GPUTRACE_HOST_EMBEDDED_VERSION_H
#define GPUTRACE_HOST_EMBEDDED_VERSION_H

#include <stdbool.h>
#include <stddef.h>

/* True, with "9.19.0.56" or "2.28.9" in out, when the file of this component
 * ("cudnn_graph", "nccl") carries its version string. */
bool host_embedded_version(const char *path, const char *component, char *out, size_t cap);

#endif
