build-rel/cmd/tracer/gputrace.o: tracer/gputrace.c tracer/launch.h
tracer/launch.h:
