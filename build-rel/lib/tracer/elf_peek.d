build-rel/lib/tracer/elf_peek.o: tracer/elf_peek.c tracer/elf_peek.h
tracer/elf_peek.h:
