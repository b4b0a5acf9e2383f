build-rel/cmd/tracer/launch.o: tracer/launch.c tracer/launch.h
tracer/launch.h:
