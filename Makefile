# gputrace: plain Makefile. `make` builds the release build/gputrace and
# build/libgputrace.so; `make check` builds the command and the tests with
# sanitizers in build/check and runs every test; `make asan` is that build
# alone (build/asan); `make install`, `make uninstall`, `make deb`;
# `make doctor` runs the GPU checks.
BUILD ?= build
CC ?= cc
# CFLAGS, CPPFLAGS and LDFLAGS are the user's (GNU conventions): what the
# build needs is added beside them, never through them, so `make CFLAGS=-O0`
# keeps -fPIC and -fvisibility=hidden on the library.
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes
ifeq ($(WERROR),1)
WARN += -Werror
endif
# The one place the version is written (gputrace --version, man pages, .deb).
VERSION := $(shell cat VERSION)
# Headers are named from the repository root ("common/jline.h"), the
# contract's from include/ ("gputrace/trace_format.h").
ALL_CPPFLAGS = -I. -Iinclude -MMD -MP $(CPPFLAGS)
# Sanitizers for the command and the tests, never in libgputrace.so (it lives
# in other people's processes) and never in the release: SAN is empty unless
# asked for; `make check` and `make asan` ask for SAN_FLAGS.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN ?=

# Every object depends on the flags it was built with, so that another SAN or
# CFLAGS (or a tree built when `make` still meant sanitizers) rebuilds it
# instead of linking release and sanitized objects together.
BUILD_FLAGS := $(CC) | $(CFLAGS) | $(CPPFLAGS) | $(SAN) | $(LDFLAGS) | $(WARN) | $(GVC)
BUILD_FLAGS_FILE := $(BUILD)/flags.txt
ifneq ($(file < $(BUILD_FLAGS_FILE)),$(BUILD_FLAGS))
$(shell mkdir -p $(BUILD))
$(file > $(BUILD_FLAGS_FILE),$(BUILD_FLAGS))
endif

# Folders by where code runs (doc/design-notes.md, Layout): common/ is in both
# binaries; audit/ and preload/ only in the library; host/, read/, rules/,
# report/, render/, compare/ and cmd/ only in the command.
COMMON_SRC := $(wildcard common/*.c)
# The command's allocate-or-abort (common/xalloc.h) never goes into the library;
# nor do the readers' hex spelling (common/hex.h: the writer spells its own)
# and whole-file reading (common/whole_file.h).
LIB_SRC := $(filter-out common/xalloc.c common/hex.c common/whole_file.c,$(COMMON_SRC)) $(wildcard audit/*.c) $(wildcard preload/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/lib/%.o)

.PHONY: all asan cases check test check-fresh check-slurm clean difftest doctor deps install uninstall deb report-picture \
	lint-clang
all: $(BUILD)/libgputrace.so $(BUILD)/gputrace $(BUILD)/gputrace-probe $(BUILD)/torch_doctor.py

# The framework checks' script sits next to the command in the build tree,
# as in ../lib/gputrace/ of an installed one (cmd/doctor.c looks in both).
$(BUILD)/torch_doctor.py: probe/torch_doctor.py
	@mkdir -p $(dir $@)
	cp $< $@

# Debian packages the build and the tests need (root; idempotent).
deps:
	sh tools/install-deps.sh

# The README's two set-up commands on a freshly bootstrapped Debian 12 (root).
check-fresh:
	sh tools/fresh-check.sh

# The README's picture: the HTML report of a trace folder (TRACE=DIR, as
# tests/gpu/html_gpu.sh copies it back from the GPU machine), in headless
# Chromium, into doc/report-mixed-cudnn.png (REPORT_PICTURE=... for another).
REPORT_PICTURE ?= doc/report-mixed-cudnn.png
report-picture: all
	@test -n "$(TRACE)" || { echo "usage: make report-picture TRACE=DIR [REPORT_PICTURE=PNG]" >&2; exit 2; }
	$(BUILD)/gputrace report --html $(BUILD)/report-picture.html $(TRACE); test $$? -le 1
	$(PYTHON) tools/html-screenshot.py $(BUILD)/report-picture.html $(REPORT_PICTURE)

# The main job: the GPU chain checked layer by layer (gputrace doctor);
# exits 1 when a step fails.
doctor: all
	$(BUILD)/gputrace doctor

$(BUILD)/gputrace-probe: probe/gputrace-probe.c probe/ask_version.c $(BUILD)/lib/common/status_names.o $(BUILD_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $(filter %.c %.o,$^)

# The library lives in other people's processes: hidden symbols, no undefined
# ones, and no libraries beyond libc (libgcc linked statically).
$(BUILD)/lib/%.o: %.c $(BUILD_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -ftls-model=initial-exec -c $< -o $@

$(BUILD)/libgputrace.so: $(LIB_OBJ) libgputrace.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -o $@ $(LIB_OBJ) -Wl,--no-undefined -Wl,-z,now -Wl,-z,relro \
		-Wl,--version-script=libgputrace.map -static-libgcc -Wl,--as-needed

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The command: launcher, reader and summary (with sanitizers only when SAN says so).
# Listed lowest layer first, as tools/check-layers.py orders them.
CMD_SRC := $(COMMON_SRC) $(wildcard host/*.c) $(wildcard facts/*.c) $(wildcard read/*.c) $(wildcard rules/*.c) \
	$(wildcard report/*.c) $(wildcard render/*.c) $(wildcard compare/*.c) $(wildcard cmd/*.c)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/cmd/%.o)
JANSSON_LIBS ?= -ljansson
ELF_LIBS ?= -lelf
# zlib, for gputrace bundle's .tar.gz (cmd/archive.c): the command's alone,
# never libgputrace.so's; nothing more when ELF_LIBS links it statically (the
# GPU machine's build, the wheel's).
ZLIB_LIBS ?= $(if $(findstring libz.a,$(ELF_LIBS)),,-lz)
# Graphviz's layout library, for report --svg and --html (render/svg_layout.c):
# the command's alone, never libgputrace.so's, and not linked: it is
# dlopen()ed (libgvc.so.6) the first time a graph is laid out, so that no
# other command pays for loading it at its start (15 ms a process; without
# it, or on a host that has none, Graphviz's dot program draws). The build
# needs Graphviz's headers alone. GVC=0 builds the command without them and
# never loads libgvc (the .deb, the wheel, the build carried to the GPU
# machine): the dot program draws, and without one --svg and --html say to
# install graphviz and exit 125; --dot needs nothing.
GVC ?= 1
ifeq ($(GVC),0)
$(BUILD)/cmd/render/svg_layout.o $(BUILD)/cmd/tests/unit/test_svg_layout.o: ALL_CPPFLAGS += -DGPUTRACE_NO_GVC
endif

$(BUILD)/cmd/%.o: %.c $(BUILD_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(CFLAGS) $(WARN) $(SAN) -c $< -o $@

# main.o alone carries the version, so a new VERSION rebuilds it.
$(BUILD)/cmd/cmd/main.o: ALL_CPPFLAGS += -DGPUTRACE_VERSION='"$(VERSION)"'
$(BUILD)/cmd/cmd/main.o: VERSION

$(BUILD)/gputrace: $(CMD_OBJ)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(CMD_OBJ) $(JANSSON_LIBS) $(ELF_LIBS) $(ZLIB_LIBS) $(LDLIBS)

# Unit tests (Check), with sanitizers, linked against the command's objects.
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/cmd/%.o) $(filter-out $(BUILD)/cmd/cmd/main.o,$(CMD_OBJ))
CHECK_LIBS ?= $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

$(BUILD)/unit_tests: $(UNIT_OBJ)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(UNIT_OBJ) $(CHECK_LIBS) $(JANSSON_LIBS) $(ELF_LIBS) $(ZLIB_LIBS)

-include fixtures/fixtures.mk
include bench/bench.mk
include tests/fuzz/fuzz.mk
include tests/real/real.mk

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
TEST_PROGS += $(patsubst tests/progs_fake/%.c,$(BUILD)/tests/%,$(wildcard tests/progs_fake/*.c))

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

# Fat binaries built by nvcc (tests/unit/test_fatbin.c reads them; it skips
# with a message where there is no nvcc): one tiny kernel, several -gencode
# sets, compressed and not. KERNEL_GENCODE_<name> is each one's flags.
KERNELS := $(BUILD)/fixtures/kernels
KERNEL_GENCODE_sm80 := -gencode arch=compute_80,code=sm_80
KERNEL_GENCODE_sm80_sm90_ptx90 := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
KERNEL_GENCODE_sm90a_sm100f_ptx100f := --no-compress -gencode arch=compute_90a,code=sm_90a \
	-gencode arch=compute_100f,code=[sm_100f,compute_100f]
KERNEL_GENCODE_sm86_ptx80_all_compressed := -Xfatbin=-compress-all -gencode arch=compute_80,code=compute_80 \
	-gencode arch=compute_86,code=sm_86
KERNEL_GENCODE_ptx80_uncompressed := --no-compress -gencode arch=compute_80,code=compute_80
KERNEL_GENCODE_rdc_sm75_ptx75 := -rdc=true -gencode arch=compute_75,code=[sm_75,compute_75]
KERNEL_FIXTURES := $(patsubst KERNEL_GENCODE_%,$(KERNELS)/%.o,$(filter KERNEL_GENCODE_%,$(.VARIABLES)))
# A file with __device__ data and no kernel: nvcc still embeds a cubin, one
# without code (libcufftw.so.12 of CUDA 13.0 carries only such an image).
# (Listed here, before TEST_PROGS takes the list's value.)
KERNEL_FIXTURES += $(KERNELS)/empty_sm75.o
# Programs with those kernels against the fake runtime with a device
# (fixtures cuda-13-kernels/): the no-kernel-image end-to-end tests.
KERNEL_FAKE_RT := $(BUILD)/fixtures/cuda-13-kernels/lib64
KERNEL_PROGS := $(KERNELS)/launch_sm80 $(KERNELS)/launch_sm80_ptx80
KERNEL_PROG_GENCODE_launch_sm80 := -gencode arch=compute_80,code=sm_80
KERNEL_PROG_GENCODE_launch_sm80_ptx80 := -gencode arch=compute_80,code=[sm_80,compute_80]
ifneq ($(NVCC),)
TEST_PROGS += $(KERNEL_FIXTURES) $(KERNEL_PROGS)
endif

$(KERNELS)/empty_sm75.o: tests/progs_cuda/device_data_only.cu
	@mkdir -p $(dir $@)
	$(NVCC) -c -o $@ $< --no-compress -gencode arch=compute_75,code=sm_75

# Shared libraries with device code, named as CUDA libraries (gputrace scan
# --arch, the doctor's device_code step): a fake cuBLAS with sm_80 SASS only,
# its cuBLASLt with compute_80 PTX only, a cuSPARSE with sm_80 and sm_90
# SASS, a cuRAND whose only cubin has no kernel, and a link to the fake
# runtime (no device code at all). They load against cuda-13-kernels/.
KERNEL_LIBS := $(BUILD)/kernel-libs
KERNEL_LIB_FILES := $(KERNEL_LIBS)/libcublas.so.13 $(KERNEL_LIBS)/libcublasLt.so.13 \
	$(KERNEL_LIBS)/libcusparse.so.12 $(KERNEL_LIBS)/libcurand.so.10 $(KERNEL_LIBS)/libcudart.so.13
KERNEL_LIB_NVCC = $(NVCC) -shared -Xcompiler -fPIC -cudart none -L$(KERNEL_FAKE_RT) -l:libcudart.so.13 \
	-Xlinker -soname,$(notdir $@) -Xlinker --enable-new-dtags -Xlinker -rpath,'$$ORIGIN'
ifneq ($(NVCC),)
TEST_PROGS += $(KERNEL_LIB_FILES)
endif

$(KERNEL_LIBS)/libcublasLt.so.13: fixtures/cublaslt.c tests/progs_cuda/kernel.cu $(KERNEL_FAKE_RT)/libcudart.so.13
	@mkdir -p $(dir $@)
	$(KERNEL_LIB_NVCC) -o $@ $(filter %.c %.cu,$^) -gencode arch=compute_80,code=compute_80

$(KERNEL_LIBS)/libcublas.so.13: fixtures/cublas.c tests/progs_cuda/kernel.cu $(KERNEL_LIBS)/libcublasLt.so.13
	$(KERNEL_LIB_NVCC) -o $@ $(filter %.c %.cu,$^) -DV_MAJOR=13 -DV_MINOR=0 -DV_PATCH=0 -DCUDART_VER=13000 \
		-gencode arch=compute_80,code=sm_80 -L$(KERNEL_LIBS) -l:libcublasLt.so.13

$(KERNEL_LIBS)/libcusparse.so.12: tests/progs_cuda/kernel.cu $(KERNEL_FAKE_RT)/libcudart.so.13
	@mkdir -p $(dir $@)
	$(KERNEL_LIB_NVCC) -o $@ $< -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90

$(KERNEL_LIBS)/libcurand.so.10: tests/progs_cuda/device_data_only.cu $(KERNEL_FAKE_RT)/libcudart.so.13
	@mkdir -p $(dir $@)
	$(KERNEL_LIB_NVCC) -o $@ $< --no-compress -gencode arch=compute_75,code=sm_75

$(KERNEL_LIBS)/libcudart.so.13: $(KERNEL_FAKE_RT)/libcudart.so.13
	@mkdir -p $(dir $@)
	ln -sfn $(abspath $<) $@

$(KERNELS)/%.o: tests/progs_cuda/kernel.cu
	@mkdir -p $(dir $@)
	$(NVCC) -c -o $@ $< $(KERNEL_GENCODE_$*)

$(KERNELS)/launch_%: tests/progs_cuda/kernel_launch.cu $(KERNEL_FAKE_RT)/libcudart.so.13
	@mkdir -p $(dir $@)
	$(NVCC) -o $@ $< -cudart none $(KERNEL_PROG_GENCODE_launch_$*) -L$(KERNEL_FAKE_RT) -l:libcudart.so.13 \
		-Xlinker -rpath,$(abspath $(KERNEL_FAKE_RT))

# For the GPU machine (tests/gpu/arch_gpu.sh), built here: the same program
# against the real runtime (linked shared, so that the hooks see its calls),
# and the reader's bench program with libelf linked in.
# make BUILD=build-gpu SAN= JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" all gpu-progs
GPU_RPATH := -Xlinker -rpath,/usr/local/cuda/lib64 -Xlinker -rpath,/usr/local/cuda/targets/x86_64-linux/lib
.PHONY: gpu-progs
gpu-progs: $(BUILD)/gpu/launch_sm80 $(BUILD)/gpu/launch_sm80_ptx80 $(BUILD)/gpu/fatbin_read

$(BUILD)/gpu/launch_%: tests/progs_cuda/kernel_launch.cu
	@mkdir -p $(dir $@)
	$(NVCC) -o $@ $< -cudart shared $(KERNEL_PROG_GENCODE_launch_$*) $(GPU_RPATH)

$(BUILD)/gpu/fatbin_read: bench/fatbin_read.c host/fatbin.c common/xalloc.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) $(ALL_CPPFLAGS) -o $@ $^ $(ELF_LIBS)

# clang's warnings over every C file `all` builds, without code generation:
# CI's second compiler. clang's warnings all come from its front end, so
# -fsyntax-only gives the same ones as a build, in about a third of the time
# (CI must stay under 8 minutes on 2 cores). main.c's version and the GVC
# switch as the build sets them.
CLANG ?= clang
LINT_SRC := $(sort $(LIB_SRC) $(CMD_SRC) probe/gputrace-probe.c probe/ask_version.c)
LINT_OK := $(LINT_SRC:%.c=$(BUILD)/lint/%.ok)
lint-clang: $(LINT_OK)
# What .ci/run lints: the sources its fuzz build (tests/fuzz/fuzz.mk, make
# fuzz-short) does not compile with clang under the same warnings and
# -Werror; the fuzz build reads the rest (host/, read/, facts/, rules/,
# render/, compare/, report/, common/), so each source still meets clang
# once (CI's time: the lint step took 14 s of 8 minutes).
LINT_REST_OK := $(filter-out $(FUZZ_REPORT_SRC:%.c=$(BUILD)/lint/%.ok),$(LINT_OK))
lint-clang-rest: $(LINT_REST_OK)
.PHONY: lint-clang lint-clang-rest
$(BUILD)/lint/%.ok: %.c $(BUILD_FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CLANG) -fsyntax-only -I. -Iinclude -MMD -MP -MT $@ -MF $(@:.ok=.d) $(CPPFLAGS) $(CFLAGS) $(WARN) \
		-DGPUTRACE_VERSION='"$(VERSION)"' $(if $(filter 0,$(GVC)),-DGPUTRACE_NO_GVC) $<
	@touch $@

# The tests run on a sanitizer build of their own (CHECK_BUILD), so that the
# release objects of $(BUILD) are never mixed with sanitized ones.
# `make check CHECK_SAN=` tests a build without sanitizers. At -O1, the level
# ASan's authors advise: its build takes a third less CPU than -O2 (CI must
# stay under 8 minutes on 2 cores) and the tests run as fast; gcc's -O2-only
# warnings stay checked by the wheel's release build (WHEEL_CFLAGS, -Werror
# under WERROR=1), which make check builds too. At -O1 gcc 12 inlines
# differently and sees truncations in snprintf calls that cut on purpose
# (scan_arch.c's why, doctor.c's detail) which it does not at -O2: that one
# warning is left to the -O2 build.
CHECK_BUILD ?= $(BUILD)/check
CHECK_SAN ?= $(SAN_FLAGS)
CHECK_CFLAGS ?= -O1 -g -Wno-format-truncation
# The recipes that run $(CHECK_MAKE) start with '+': make only passes its
# jobserver to a line that names $(MAKE) itself, so without it the check
# build ran at -j1 under `make -j2 check` ("jobserver unavailable"): CI's
# sanitizer build took 100 s, 51 s with it (stop 52).
CHECK_MAKE = $(MAKE) BUILD=$(CHECK_BUILD) SAN="$(CHECK_SAN)" CFLAGS="$(CHECK_CFLAGS)"
check:
	$(PYTHON) tools/check-layers.py
	+$(CHECK_MAKE) test

# scan --for against the real loader (ldd's LD_TRACE_LOADED_OBJECTS=1 ld.so
# FILE) over every dynamic ELF file of these trees: the agreement, then every
# disagreement with its cause (tests/difftest/difftest.py; a sample runs in
# make check, tests/e2e/test_loader_paper.py). DIFFTEST_FLAGS="--sample 300".
DIFFTEST_TREES ?= /usr/local/cuda-13.0 /usr/lib/x86_64-linux-gnu /usr/lib/python3/dist-packages/torch \
	/usr/bin /usr/sbin /usr/libexec /usr/lib/jvm /usr/lib/systemd /usr/lib/llvm-14 /usr/lib/chromium
DIFFTEST_FLAGS ?=
difftest: all
	$(PYTHON) tests/difftest/difftest.py --gputrace $(BUILD)/gputrace $(DIFFTEST_FLAGS) $(DIFFTEST_TREES)

# A one-node Slurm of the test's own (root; skipped where its daemons cannot
# start): srun -n 4 gputrace, srun gputrace scan, the report names the odd task.
check-slurm:
	+$(CHECK_MAKE) all fixtures
	timeout 300 sh tests/slurm/slurm_test.sh $(CHECK_BUILD)

# The corpus of reported failures alone (tests/cases/README.md), in the
# build `make check` made: `make cases CASES="name ..." CASES_FLAGS=-v`.
cases:
	+$(CHECK_MAKE) all fixtures
	BUILD=$(abspath $(CHECK_BUILD)) $(PYTHON) -m tests.cases.corpus $(CASES_FLAGS) $(CASES)

# The sanitizer build of the command alone, for debugging: build/asan/gputrace.
asan:
	$(MAKE) BUILD=$(BUILD)/asan SAN="$(SAN_FLAGS)" all

# The build's own settings, for the tests that run `make install` on it
# (tests/e2e/test_install.py): the same settings rebuild nothing.
TEST_MAKE_VARS = CC='$(CC)' CFLAGS='$(CFLAGS)' CPPFLAGS='$(CPPFLAGS)' LDFLAGS='$(LDFLAGS)' \
	SAN='$(SAN)' WERROR='$(WERROR)' BUILD='$(abspath $(BUILD))'

# What `make check` runs, in whatever build BUILD and SAN name. The e2e
# modules run a few at a time (tools/run-e2e.py: they mostly wait on the
# programs they start); E2E="test_trust test_tracer" runs those alone,
# E2E_JOBS=1 one after the other; by default one more than CPUs (two more,
# tried once in CI, left the 2 CPUs as idle, ~26 s, and took 591 s of CPU
# against 518-540 in earlier runs, on a VM slower that run). The wheel (make wheel, its own release build under
# $(BUILD)/wheel) is for tests/e2e/test_wheel.py.
E2E ?=
E2E_JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: all $(BUILD)/unit_tests $(TEST_PROGS) fixtures wheel
	$(PYTHON) tools/check-pure-rules.py $(BUILD)
	$(BUILD)/unit_tests
	BUILD=$(abspath $(BUILD)) GPUTRACE_MAKE_VARS="$(TEST_MAKE_VARS)" \
		$(PYTHON) tools/run-e2e.py -j $(E2E_JOBS) $(E2E)

# ---- install: the usual layout under $(DESTDIR)$(PREFIX). The command finds
# its library, probe and framework script in ../lib/gputrace/ from its own
# path (/proc/self/exe), so the tree can be moved as a whole.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
PKGLIBDIR ?= $(PREFIX)/lib/gputrace
MANDIR ?= $(PREFIX)/share/man
BASH_COMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPDIR ?= $(PREFIX)/share/zsh/site-functions
INSTALL ?= install
MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)
# gputrace-python(7): the wheel's python -m gputrace and gputrace.check().
MAN7 := $(wildcard man/*.7)
# The JSON Schemas of what gputrace writes, where their $id says
# (file:///usr/share/gputrace/schema/NAME.schema.json under PREFIX=/usr).
SCHEMADIR ?= $(PREFIX)/share/gputrace/schema
SCHEMAS := $(wildcard schema/*.schema.json)
# Every file install writes, for uninstall (the man pages as installed).
INSTALLED = $(BINDIR)/gputrace $(PKGLIBDIR)/libgputrace.so $(PKGLIBDIR)/gputrace-probe \
	$(PKGLIBDIR)/torch_doctor.py $(BASH_COMPDIR)/gputrace $(ZSH_COMPDIR)/_gputrace \
	$(MAN1:man/%=$(MANDIR)/man1/%$(MANSUFFIX)) $(MAN5:man/%=$(MANDIR)/man5/%$(MANSUFFIX)) \
	$(MAN7:man/%=$(MANDIR)/man7/%$(MANSUFFIX)) \
	$(SCHEMAS:schema/%=$(SCHEMADIR)/%)

# The man pages carry the version of VERSION, whatever their .TH line says.
INSTALL_MAN_SED := 's/^\(\.TH .*\)"gputrace [0-9][^"]*"/\1"gputrace $(VERSION)"/'

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(BASH_COMPDIR) $(DESTDIR)$(ZSH_COMPDIR) \
		$(DESTDIR)$(SCHEMADIR)
	$(INSTALL) -m 644 $(SCHEMAS) $(DESTDIR)$(SCHEMADIR)
	$(INSTALL) -m 755 $(BUILD)/gputrace $(DESTDIR)$(BINDIR)/gputrace
	$(INSTALL) -m 644 $(BUILD)/libgputrace.so $(DESTDIR)$(PKGLIBDIR)/libgputrace.so
	$(INSTALL) -m 755 $(BUILD)/gputrace-probe $(DESTDIR)$(PKGLIBDIR)/gputrace-probe
	$(INSTALL) -m 644 $(BUILD)/torch_doctor.py $(DESTDIR)$(PKGLIBDIR)/torch_doctor.py
	$(INSTALL) -m 644 completions/gputrace.bash $(DESTDIR)$(BASH_COMPDIR)/gputrace
	$(INSTALL) -m 644 completions/_gputrace $(DESTDIR)$(ZSH_COMPDIR)/_gputrace
	for m in $(MAN1) $(MAN5) $(MAN7); do \
		d=$(DESTDIR)$(MANDIR)/man$${m##*.}; \
		sed $(INSTALL_MAN_SED) $$m > $$d/$${m##*/} && chmod 644 $$d/$${m##*/} || exit 1; \
		[ -z "$(MANSUFFIX)" ] || gzip -9nf $$d/$${m##*/} || exit 1; \
	done

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(SCHEMADIR) 2>/dev/null
	-rmdir $(DESTDIR)$(PREFIX)/share/gputrace 2>/dev/null

# ---- the Debian package: the release build with Debian's build flags,
# staged by `make install`, the dependencies worked out by dpkg-shlibdeps
# from the binaries themselves, packed by dpkg-deb. Built without libgvc
# (GVC=0): report --svg and --html then run Graphviz's dot program, which
# the package Recommends, so that it does not Depend on libgvc (and X11
# and cairo with it). Bit for bit reproducible: every time stamp is
# SOURCE_DATE_EPOCH (default: the last commit's time), the build folder's
# name is fixed, and `make check-deb-repro` builds it twice and compares.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB := gputrace_$(VERSION)_$(DEB_ARCH).deb
DEB_BUILD := $(BUILD)/deb
DEB_ROOT := $(DEB_BUILD)/root
DEB_MAINTAINER ?= the gputrace authors <gputrace@example.org>
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || stat -c %Y VERSION)
deb: $(DEB)
$(DEB): export SOURCE_DATE_EPOCH := $(SOURCE_DATE_EPOCH)
# DEB_OBJECTS=DIR: a release build folder made with the same flags (the
# wheel's, make check's build/check/wheel/build): its objects are copied in
# and only linked here. Its flags.txt comes with them: built with other
# flags, everything is compiled again (BUILD_FLAGS_FILE), as without it.
DEB_OBJECTS ?=
$(DEB): VERSION packaging/control.in packaging/copyright packaging/changelog.in packaging/lintian-overrides FORCE
	rm -rf $(DEB_BUILD)
	$(if $(DEB_OBJECTS),mkdir -p $(DEB_BUILD)/build && \
		cp -a $(DEB_OBJECTS)/lib $(DEB_OBJECTS)/cmd $(DEB_OBJECTS)/flags.txt $(DEB_BUILD)/build/)
	$(MAKE) BUILD=$(DEB_BUILD)/build SAN= GVC=0 CFLAGS="$$(dpkg-buildflags --get CFLAGS)" \
		CPPFLAGS="$$(dpkg-buildflags --get CPPFLAGS)" LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" \
		install DESTDIR=$(abspath $(DEB_ROOT)) PREFIX=/usr MANSUFFIX=.gz \
		ZSH_COMPDIR=/usr/share/zsh/vendor-completions
	strip --remove-section=.comment --remove-section=.note $(DEB_ROOT)/usr/bin/gputrace \
		$(DEB_ROOT)/usr/lib/gputrace/gputrace-probe
	strip --remove-section=.comment --remove-section=.note --strip-unneeded \
		$(DEB_ROOT)/usr/lib/gputrace/libgputrace.so
	install -d $(DEB_ROOT)/DEBIAN $(DEB_ROOT)/usr/share/doc/gputrace $(DEB_BUILD)/debian
	install -m 644 packaging/copyright $(DEB_ROOT)/usr/share/doc/gputrace/copyright
	install -d $(DEB_ROOT)/usr/share/lintian/overrides
	install -m 644 packaging/lintian-overrides $(DEB_ROOT)/usr/share/lintian/overrides/gputrace
	d=$$(date -R -u -d @$(SOURCE_DATE_EPOCH)) && \
	sed -e 's/@VERSION@/$(VERSION)/' -e 's/@MAINTAINER@/$(DEB_MAINTAINER)/' -e "s/@DATE@/$$d/" \
		packaging/changelog.in | gzip -9n > $(DEB_ROOT)/usr/share/doc/gputrace/changelog.gz
	chmod 644 $(DEB_ROOT)/usr/share/doc/gputrace/changelog.gz
	printf 'Source: gputrace\n\nPackage: gputrace\nArchitecture: any\n' > $(DEB_BUILD)/debian/control
	cd $(DEB_BUILD) && dpkg-shlibdeps -O -e root/usr/bin/gputrace \
		-e root/usr/lib/gputrace/gputrace-probe -e root/usr/lib/gputrace/libgputrace.so \
		> substvars
	sed -e 's/@VERSION@/$(VERSION)/' -e 's/@ARCH@/$(DEB_ARCH)/' -e 's/@MAINTAINER@/$(DEB_MAINTAINER)/' \
		-e "s/@DEPENDS@/$$(sed -n 's/^shlibs:Depends=//p' $(DEB_BUILD)/substvars)/" \
		-e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)/" \
		packaging/control.in > $(DEB_ROOT)/DEBIAN/control
	find $(DEB_ROOT) -newermt @$(SOURCE_DATE_EPOCH) -exec touch -h -d @$(SOURCE_DATE_EPOCH) {} +
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $@

# ---- the Python package (issue 31): `make wheel` builds
# $(BUILD)/dist/gputrace-$(VERSION)-py3-none-<platform>.whl offline, with
# Debian's setuptools and wheel (tools/build-wheel.py). It bundles a release
# build of its own (no sanitizer) with libjansson, libelf and zlib linked
# statically and without libgvc (GVC=0, as the .deb: report --svg and --html
# run Graphviz's dot), so that the binaries need glibc alone: the tag is then
# manylinux_2_Y_x86_64, Y the newest glibc version their symbols need
# (linux_x86_64 if they need any other library). The time stamps in the wheel
# are SOURCE_DATE_EPOCH's.
WHEEL_BUILD := $(BUILD)/wheel
WHEEL_LIBS := JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a"
.PHONY: wheel
wheel: export SOURCE_DATE_EPOCH := $(SOURCE_DATE_EPOCH)
# The release flags whatever the caller's CFLAGS (make check's are -O1): the
# .deb's, from dpkg-buildflags (-O2, the stack protector, _FORTIFY_SOURCE,
# relro; -O2 -g where there is no dpkg-buildflags), so that the package can
# be linked from the wheel's objects instead of compiling them again
# (DEB_OBJECTS: .ci/run, CI's time). Expanded by the recipe's shell.
WHEEL_CFLAGS ?= $$(dpkg-buildflags --get CFLAGS 2>/dev/null || echo -O2 -g)
WHEEL_CPPFLAGS ?= $$(dpkg-buildflags --get CPPFLAGS 2>/dev/null)
WHEEL_LDFLAGS ?= $$(dpkg-buildflags --get LDFLAGS 2>/dev/null)
wheel:
	$(MAKE) BUILD=$(WHEEL_BUILD)/build SAN= GVC=0 CFLAGS="$(WHEEL_CFLAGS)" CPPFLAGS="$(WHEEL_CPPFLAGS)" \
		LDFLAGS="$(WHEEL_LDFLAGS)" $(WHEEL_LIBS) all
	$(PYTHON) tools/build-wheel.py --build $(WHEEL_BUILD)/build --stage $(WHEEL_BUILD)/stage \
		--dist $(BUILD)/dist

# The package twice, from clean, must be the same bytes (slow: two release
# builds; not part of `make check` or .ci/run).
.PHONY: check-deb-repro
check-deb-repro:
	sh tools/deb-repro.sh

.PHONY: FORCE
FORCE:
