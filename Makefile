# gputrace: plain Makefile. `make` builds build/gputrace and build/libgputrace.so;
# `make check` builds and runs every test; `make doctor` runs the GPU checks.
BUILD ?= build
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
CPPFLAGS += -Iinclude
# Sanitizers for the command, the report and the tests; never in libgputrace.so.
SAN ?= -fsanitize=address,undefined -fno-omit-frame-pointer

LIB_SRC := tracer/audit.c tracer/jline.c tracer/trace_file.c tracer/trace_format.c preload/preload.c
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/lib/%.o)

.PHONY: all check clean doctor
all: $(BUILD)/libgputrace.so $(BUILD)/gputrace

# The library lives in other people's processes: hidden symbols, no undefined
# ones, and no libraries beyond libc (libgcc linked statically).
$(BUILD)/lib/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -ftls-model=initial-exec -c $< -o $@

$(BUILD)/libgputrace.so: $(LIB_OBJ) tracer/libgputrace.map
	$(CC) -shared -o $@ $(LIB_OBJ) -Wl,--no-undefined -Wl,-z,now -Wl,-z,relro \
		-Wl,--version-script=tracer/libgputrace.map -static-libgcc -Wl,--as-needed

clean:
	rm -rf $(BUILD)

# The command: launcher, reader and summary, with sanitizers unless SAN= is given.
CMD_SRC := tracer/gputrace.c tracer/launch.c report/trace_read.c report/summary.c report/family.c tracer/trace_format.c
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/cmd/%.o)
JANSSON_LIBS ?= -ljansson

$(BUILD)/cmd/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(SAN) -c $< -o $@

$(BUILD)/gputrace: $(CMD_OBJ)
	$(CC) $(CFLAGS) $(SAN) -o $@ $(CMD_OBJ) $(JANSSON_LIBS)
