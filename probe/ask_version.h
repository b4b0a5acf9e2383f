/* gputrace-probe --ask-version COMPONENT FILE: the library's own answer to
 * "which version are you", for gputrace scan --ask. Run by the scan in a
 * child of its own (host/ask_version.c), never under the tracer: loading a
 * library runs its constructors, and a crash must end this process only. */
#ifndef GPUTRACE_PROBE_ASK_VERSION_H
#define GPUTRACE_PROBE_ASK_VERSION_H

/* Prints "version\tX.Y[.Z]" (exit 0), with "from\tPATH" before it when the
 * answer speaks for another file (cuDNN 9's front answers for the graph
 * library it loads); "error\tWHY" (exit 1); or, for a component with no
 * version function of its own (cuDNN's engine libraries, cuFFTW), "none\tWHY"
 * and PROBE_ASK_NOTHING, without loading the file. */
#define PROBE_ASK_NOTHING 3
int probe_ask_version(const char *component, const char *path);

#endif
