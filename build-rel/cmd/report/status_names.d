build-rel/cmd/report/status_names.o: report/status_names.c \
 include/gputrace/status_names.h
include/gputrace/status_names.h:
