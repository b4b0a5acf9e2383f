build-rel/lib/tracer/trace_file.o: tracer/trace_file.c \
 tracer/trace_file.h include/gputrace/trace_format.h tracer/jline.h
tracer/trace_file.h:
include/gputrace/trace_format.h:
tracer/jline.h:
