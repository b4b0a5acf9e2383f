build-rel/lib/tracer/trace_format.o: tracer/trace_format.c \
 include/gputrace/trace_format.h
include/gputrace/trace_format.h:
