# The real-commands differential test (issue 34, tests/real/run_real.py):
# every command of tests/real/commands.py runs bare twice and traced once in
# the check build, and must do the same, with no error finding on a healthy
# run. Included by the top Makefile:
#   make check-real-commands                         the whole list
#   make check-real-commands REAL_FLAGS="--sample 60 -v" REAL_JOBS=4
# The summary is also written to $(CHECK_BUILD)/real-commands.log.
REAL_FLAGS ?= --all
REAL_JOBS ?= 2

.PHONY: check-real-commands
check-real-commands:
	$(MAKE) BUILD=$(CHECK_BUILD) SAN="$(CHECK_SAN)" all fixtures
	$(PYTHON) tests/real/run_real.py $(REAL_FLAGS) -j $(REAL_JOBS) --build $(abspath $(CHECK_BUILD)) \
		--log $(abspath $(CHECK_BUILD))/real-commands.log
