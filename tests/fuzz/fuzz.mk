# libFuzzer targets for the readers of untrusted files: the ld.so.cache
# parser, the ELF reader, the whole report pipeline from trace bytes
# (fingerprint, reader, model, rules, every renderer; seeds: real traces of
# torch on the H200, of the real CUDA libraries here and of the fakes, with
# the format's keys as a dictionary), and the same pipeline from a facts
# file's bytes beside one fixed trace (fuzz_facts: facts_case/ holds the
# torch-like scenario's trace, corpus_facts/ its facts file as written and
# with every bytes value spelled {"hex": ...}). Included by the top Makefile:
#   make fuzz-build              builds $(BUILD)/fuzz/fuzz_ldcache, fuzz_elf, fuzz_report, fuzz_facts
#                                fuzz_index and fuzz_site
#   make fuzz-short              runs each for FUZZ_SECONDS (default 20); non-zero on a crash
# Crash inputs land in $(BUILD)/fuzz/crash-<target>/; replay one with
#   $(BUILD)/fuzz/fuzz_elf FILE
# Seeds: corpus_ldcache/ holds caches written by glibc 2.36's ldconfig in the three
# formats (ldconfig -r ROOT -c new|old|compat -C /etc/c -f /etc/tiny.conf, over a
# root with four small libraries) and one cut short; corpus_elf/ holds two tiny
# libraries (64-bit with RPATH and NEEDED, 32-bit with RUNPATH; both with .nv_fatbin).
# corpus_report/ holds traces (a fake CUDA run, the real CUDA 13 libraries with no
# driver, torch's) and the inputs that crashed fuzz_report once, kept so that every
# run replays them: nameless_requester.jsonl (a requester path ending in '/', a
# heap overflow in read/model.c's add_user, found in the hour of session 42),
# argv_not_a_string.jsonl (a NULL argv[0] for the DOT graph's label, stop 44),
# empty_preload_name.jsonl (a search for "" by the program with LD_PRELOAD set:
# read/model.c's in_preload_list looped for ever, a timeout in stop 45's hour).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20
# FUZZ_OPT=-O0 builds in half the time and runs slower: .ci/run's 5-second
# smoke run takes it (CI's 8 minutes); a real fuzzing run keeps -O1. Each
# level builds in a folder of its own, so objects of two levels never mix.
FUZZ_OPT ?= -O1
FUZZ_DIR := $(BUILD)/fuzz$(if $(filter -O1,$(FUZZ_OPT)),,$(FUZZ_OPT))
FUZZ_FLAGS := -g $(FUZZ_OPT) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
# -rss_limit_mb and -timeout turn runaway memory and hangs into failures too.
FUZZ_RUN_FLAGS := -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1

.PHONY: fuzz-build fuzz-short
fuzz-build: $(FUZZ_DIR)/fuzz_ldcache $(FUZZ_DIR)/fuzz_elf $(FUZZ_DIR)/fuzz_report $(FUZZ_DIR)/fuzz_facts \
	$(FUZZ_DIR)/fuzz_index $(FUZZ_DIR)/fuzz_site

# The whole report pipeline from trace bytes: everything the command reads
# a trace with, but the command's main. One object a source file, so that
# make -j builds them at once (one clang call for all took most of CI's
# fuzzing minute); the instrumentation is the same (fuzzer-no-link).
FUZZ_REPORT_SRC := $(wildcard common/*.c host/*.c facts/*.c read/*.c rules/*.c report/*.c render/*.c compare/*.c)
FUZZ_REPORT_OBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_REPORT_SRC))
FUZZ_OBJ_FLAGS := -g $(FUZZ_OPT) -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_OBJ_FLAGS) $(WARN) -I. -Iinclude -MMD -MP -c -o $@ $<
-include $(FUZZ_REPORT_OBJ:.o=.d)
$(FUZZ_DIR)/fuzz_report: tests/fuzz/fuzz_report.c tests/fuzz/report_pipeline.h $(FUZZ_REPORT_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(WARN) -I. -Iinclude -o $@ tests/fuzz/fuzz_report.c $(FUZZ_REPORT_OBJ) \
		-ljansson -lelf -lz

# The same pipeline from a facts file's bytes, beside one fixed trace.
$(FUZZ_DIR)/fuzz_facts: tests/fuzz/fuzz_facts.c tests/fuzz/report_pipeline.h $(FUZZ_REPORT_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(WARN) -I. -Iinclude -o $@ tests/fuzz/fuzz_facts.c $(FUZZ_REPORT_OBJ) \
		-ljansson -lelf -lz

$(FUZZ_DIR)/fuzz_ldcache: tests/fuzz/fuzz_ldcache.c host/ldcache.c host/ldcache.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(WARN) -I. -o $@ tests/fuzz/fuzz_ldcache.c host/ldcache.c

# The installers' lists (pip RECORDs, dpkg .list files) and the index file
# made of them (host/list_index.c): corpus_index/ holds a RECORD with quoted,
# "./" and CR-ended paths, a dpkg list, and each with bytes that spoil the
# saved index (tests/fuzz/fuzz_index.c says how an input is read).
$(FUZZ_DIR)/fuzz_index: tests/fuzz/fuzz_index.c tests/fuzz/fuzz_files.h host/list_index.c host/list_index.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(WARN) -I. -Iinclude -o $@ tests/fuzz/fuzz_index.c host/list_index.c

# The installers' and frameworks' files a host holds (host/package.c,
# host/framework.c): corpus_site/ holds torch 2.11's METADATA and RECORD
# lines, version.py, a dpkg status and list, a conda-meta JSON, and the other
# frameworks' build files (tests/fuzz/fuzz_site.c says how an input is read).
$(FUZZ_DIR)/fuzz_site: tests/fuzz/fuzz_site.c tests/fuzz/fuzz_files.h $(FUZZ_REPORT_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(WARN) -I. -Iinclude -o $@ tests/fuzz/fuzz_site.c $(FUZZ_REPORT_OBJ) \
		-ljansson -lelf -lz

$(FUZZ_DIR)/fuzz_elf: tests/fuzz/fuzz_elf.c host/elf_info.c host/elf_info.h common/xalloc.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(WARN) -I. -Iinclude -o $@ tests/fuzz/fuzz_elf.c host/elf_info.c common/xalloc.c -lelf -lz

# The first corpus folder is the writable one libFuzzer grows; the seeds stay
# untouched. The targets run at once (CI has two cores and 8 minutes);
# each one's log is printed when it fails.
FUZZ_TARGETS := ldcache elf report facts index site
fuzz-short: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/corpus-$$t $(FUZZ_DIR)/crash-$$t || exit 1; \
		$(FUZZ_DIR)/fuzz_$$t $(FUZZ_RUN_FLAGS) -artifact_prefix=$(FUZZ_DIR)/crash-$$t/ \
			$$( [ -f tests/fuzz/$$t.dict ] && echo -dict=tests/fuzz/$$t.dict ) \
			$(FUZZ_DIR)/corpus-$$t tests/fuzz/corpus_$$t \
			>$(FUZZ_DIR)/fuzz_$$t.log 2>&1 & \
		echo $$! >$(FUZZ_DIR)/fuzz_$$t.pid; \
	done; \
	echo "fuzz-short: $(FUZZ_TARGETS), $(FUZZ_SECONDS) s each, at once"; \
	failed=0; \
	for t in $(FUZZ_TARGETS); do \
		if wait $$(cat $(FUZZ_DIR)/fuzz_$$t.pid); then \
			echo "fuzz_$$t:"; \
			grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)' $(FUZZ_DIR)/fuzz_$$t.log; \
		else \
			tail -n 60 $(FUZZ_DIR)/fuzz_$$t.log; \
			echo "fuzz_$$t failed: see $(FUZZ_DIR)/fuzz_$$t.log"; failed=1; \
		fi; \
	done; \
	exit $$failed
