build-rel/lib/preload/cuda_hooks.o: preload/cuda_hooks.c \
 preload/../tracer/jline.h preload/api_stats.h \
 include/gputrace/trace_format.h include/gputrace/status_names.h \
 preload/preload.h preload/../tracer/trace_file.h
preload/../tracer/jline.h:
preload/api_stats.h:
include/gputrace/trace_format.h:
include/gputrace/status_names.h:
preload/preload.h:
preload/../tracer/trace_file.h:
