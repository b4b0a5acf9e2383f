/* The one way libgputrace.so exports a symbol: it is built with
 * -fvisibility=hidden, and libgputrace.map lists what may be seen (the
 * loader's la_* entry points and the hooks). */
#ifndef GPUTRACE_EXPORT_H
#define GPUTRACE_EXPORT_H

#define GT_EXPORT __attribute__((visibility("default")))

#endif
