build-rel/lib/tracer/jline.o: tracer/jline.c tracer/jline.h
tracer/jline.h:
