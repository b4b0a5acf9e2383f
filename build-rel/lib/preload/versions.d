build-rel/lib/preload/versions.o: preload/versions.c \
 preload/../report/family.h preload/../tracer/jline.h \
 include/gputrace/trace_format.h preload/preload.h \
 preload/../tracer/trace_file.h
preload/../report/family.h:
preload/../tracer/jline.h:
include/gputrace/trace_format.h:
preload/preload.h:
preload/../tracer/trace_file.h:
