build-rel/lib/tracer/audit.o: tracer/audit.c tracer/elf_peek.h \
 include/gputrace/trace_format.h tracer/jline.h tracer/trace_file.h
tracer/elf_peek.h:
include/gputrace/trace_format.h:
tracer/jline.h:
tracer/trace_file.h:
