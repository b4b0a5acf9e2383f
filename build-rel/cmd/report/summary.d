build-rel/cmd/report/summary.o: report/summary.c report/family.h \
 report/trace_read.h
report/family.h:
report/trace_read.h:
