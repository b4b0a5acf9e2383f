build-rel/lib/preload/api_stats.o: preload/api_stats.c \
 preload/api_stats.h include/gputrace/trace_format.h \
 preload/../tracer/jline.h preload/../tracer/trace_file.h \
 include/gputrace/status_names.h
preload/api_stats.h:
include/gputrace/trace_format.h:
preload/../tracer/jline.h:
preload/../tracer/trace_file.h:
include/gputrace/status_names.h:
