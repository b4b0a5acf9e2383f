build-rel/lib/preload/preload.o: preload/preload.c \
 preload/../tracer/jline.h preload/api_stats.h \
 include/gputrace/trace_format.h preload/preload.h \
 preload/../tracer/trace_file.h
preload/../tracer/jline.h:
preload/api_stats.h:
include/gputrace/trace_format.h:
preload/preload.h:
preload/../tracer/trace_file.h:
