build-rel/cmd/report/trace_read.o: report/trace_read.c \
 report/trace_read.h include/gputrace/trace_format.h
report/trace_read.h:
include/gputrace/trace_format.h:
