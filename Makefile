# gputrace: plain Makefile. `make` builds build/gputrace and build/libgputrace.so;
# `make check` builds and runs every test; `make doctor` runs the GPU checks.
BUILD ?= build
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes
ifeq ($(WERROR),1)
WARN += -Werror
endif
# Headers are named from the repository root ("common/jline.h"), the
# contract's from include/ ("gputrace/trace_format.h").
CPPFLAGS += -I. -Iinclude -MMD -MP
# Sanitizers for the command, the report and the tests; never in libgputrace.so.
SAN ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# Folders by where code runs (doc/design-notes.md, Layout): common/ is in both
# binaries; audit/ and preload/ only in the library; host/, report/ and cmd/
# only in the command.
COMMON_SRC := $(wildcard common/*.c)
# The command's allocate-or-abort (common/xalloc.h) never goes into the library.
LIB_SRC := $(filter-out common/xalloc.c,$(COMMON_SRC)) $(wildcard audit/*.c) $(wildcard preload/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/lib/%.o)

.PHONY: all check check-fresh clean doctor deps
all: $(BUILD)/libgputrace.so $(BUILD)/gputrace $(BUILD)/gputrace-probe

# Debian packages the build and the tests need (root; idempotent).
deps:
	sh tools/install-deps.sh

# The README's two set-up commands on a freshly bootstrapped Debian 12 (root).
check-fresh:
	sh tools/fresh-check.sh

# The main job: the GPU chain checked layer by layer (gputrace doctor);
# exits 1 when a step fails.
doctor: all
	$(BUILD)/gputrace doctor

$(BUILD)/gputrace-probe: probe/gputrace-probe.c $(BUILD)/lib/common/status_names.o
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $(filter %.c %.o,$^)

# The library lives in other people's processes: hidden symbols, no undefined
# ones, and no libraries beyond libc (libgcc linked statically).
$(BUILD)/lib/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -ftls-model=initial-exec -c $< -o $@

$(BUILD)/libgputrace.so: $(LIB_OBJ) libgputrace.map
	$(CC) -shared -o $@ $(LIB_OBJ) -Wl,--no-undefined -Wl,-z,now -Wl,-z,relro \
		-Wl,--version-script=libgputrace.map -static-libgcc -Wl,--as-needed

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The command: launcher, reader and summary, with sanitizers unless SAN= is given.
CMD_SRC := $(COMMON_SRC) $(wildcard host/*.c) $(wildcard report/*.c) $(wildcard report/rules/*.c) \
	$(wildcard cmd/*.c)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/cmd/%.o)
JANSSON_LIBS ?= -ljansson
ELF_LIBS ?= -lelf

$(BUILD)/cmd/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(SAN) -c $< -o $@

$(BUILD)/gputrace: $(CMD_OBJ)
	$(CC) $(CFLAGS) $(SAN) -o $@ $(CMD_OBJ) $(JANSSON_LIBS) $(ELF_LIBS)

# Unit tests (Check), with sanitizers, linked against the command's objects.
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/cmd/%.o) $(filter-out $(BUILD)/cmd/cmd/main.o,$(CMD_OBJ))
CHECK_LIBS ?= $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

$(BUILD)/unit_tests: $(UNIT_OBJ)
	$(CC) $(CFLAGS) $(SAN) -o $@ $(UNIT_OBJ) $(CHECK_LIBS) $(JANSSON_LIBS) $(ELF_LIBS)

-include fixtures/fixtures.mk
include bench/bench.mk
include tests/fuzz/fuzz.mk

PYTHON ?= /usr/bin/python3
TEST_PROGS := $(patsubst tests/progs/%.c,$(BUILD)/tests/%,$(wildcard tests/progs/*.c))

$(BUILD)/tests/static_hello: tests/progs/static_hello.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -static -o $@ $<

$(BUILD)/tests/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -ldl -lpthread

# Programs linked against the real NVIDIA libraries, where this host has them.
CUDA_LIBDIR ?= $(firstword $(dir $(wildcard /usr/local/cuda*/lib*/libcudnn.so)))
ifneq ($(CUDA_LIBDIR),)
TEST_PROGS += $(BUILD)/tests/real_cuda_api
endif

$(BUILD)/tests/real_cuda_api: tests/progs_cuda/real_cuda_api.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -L$(CUDA_LIBDIR) -lcudart -lcudnn

# Programs linked against the fake CUDA libraries of fixtures/.
FAKE_CUDART_DIR = $(BUILD)/fixtures/cuda-13/lib64
TEST_PROGS += $(BUILD)/tests/cuda_ops $(BUILD)/tests/dlerror_kept

$(BUILD)/tests/%: tests/progs_fake/%.c fixtures
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -L$(FAKE_CUDART_DIR) -l:libcudart.so.13 \
		-Wl,-rpath,$(abspath $(FAKE_CUDART_DIR)) -lpthread

# nvcc links the CUDA runtime statically by default: the trace must say so.
NVCC ?= $(firstword $(wildcard /usr/local/cuda*/bin/nvcc))
ifneq ($(NVCC),)
TEST_PROGS += $(BUILD)/tests/static_cudart
endif

$(BUILD)/tests/static_cudart: tests/progs_cuda/static_cudart.cu
	@mkdir -p $(dir $@)
	$(NVCC) -o $@ $<

check: all $(BUILD)/unit_tests $(TEST_PROGS) fixtures
	$(PYTHON) tools/check-layers.py
	$(BUILD)/unit_tests
	BUILD=$(abspath $(BUILD)) $(PYTHON) -m unittest discover -s tests/e2e -t . -v
