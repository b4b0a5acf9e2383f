/* The findings gputrace gives: one table, the only place a finding id is
 * spelled. The rules add findings by enum (rules/findings.h gives the id its
 * string), the renderers write the table's id, the JSON schema's "enum"
 * (schema/finding.schema.json), the man page's FINDINGS sections and the
 * tests are checked against it. Ids are part of the interface (scripts match
 * on them): a new one is added here first, and none is ever renamed.
 *
 * X(enum suffix, id, lowest severity, highest severity, title, man anchor)
 * The severities bound what any rule, of a trace or of a scan, may give the
 * id (a test holds every finding to them). The anchor is the man page and
 * its section that explains the id. */
#ifndef GPUTRACE_FINDING_TABLE_H
#define GPUTRACE_FINDING_TABLE_H

enum gt_severity { GT_SEV_INFO, GT_SEV_WARNING, GT_SEV_ERROR };

#define GT_FINDINGS(X)                                                                                          \
	X(DRIVER_MISSING, "driver-missing", ERROR, ERROR, "no CUDA driver could be loaded",                     \
	  "gputrace-report.1#driver-missing")                                                                   \
	X(DRIVER_STUB, "driver-stub", ERROR, ERROR, "libcuda.so.1 is the toolkit's stub",                       \
	  "gputrace-report.1#driver-stub")                                                                      \
	X(DRIVER_MISMATCH, "driver-mismatch", WARNING, ERROR,                                                   \
	  "the user-space driver cannot serve the kernel module", "gputrace-report.1#driver-mismatch")          \
	X(DRIVER_TOO_OLD, "driver-too-old", ERROR, ERROR, "the driver is older than the CUDA runtime",          \
	  "gputrace-report.1#driver-too-old")                                                                   \
	X(NO_DEVICE, "no-device", ERROR, ERROR, "the driver shows the process no GPU",                          \
	  "gputrace-report.1#no-device")                                                                        \
	X(CPU_ONLY_BUILD, "cpu-only-build", WARNING, WARNING, "the framework was built without CUDA",           \
	  "gputrace-report.1#cpu-only-build")                                                                   \
	X(LIBRARY_NOT_FOUND, "library-not-found", INFO, ERROR, "a CUDA library was searched for and not found", \
	  "gputrace-report.1#library-not-found")                                                                \
	X(MISSING_SYMBOL, "missing-symbol", ERROR, ERROR, "a library needs a symbol its provider lacks",        \
	  "gputrace-report.1#missing-symbol")                                                                   \
	X(MIXED_VERSIONS, "mixed-versions", ERROR, ERROR, "the parts of one copy come from different versions", \
	  "gputrace-report.1#mixed-versions")                                                                   \
	X(DUPLICATE_LIBRARY, "duplicate-library", INFO, ERROR, "two copies of one library",                     \
	  "gputrace-report.1#duplicate-library")                                                                \
	X(SHADOWED_LIBRARY, "shadowed-library", WARNING, ERROR, "another copy than the intended one was taken", \
	  "gputrace-report.1#shadowed-library")                                                                 \
	X(CUDA_MAJOR_MISMATCH, "cuda-major-mismatch", ERROR, ERROR, "two CUDA majors in one process",           \
	  "gputrace-report.1#cuda-major-mismatch")                                                              \
	X(FRAMEWORK_MISMATCH, "framework-mismatch", ERROR, ERROR,                                               \
	  "a library falls short of what the framework was built for", "gputrace-report.1#framework-mismatch")  \
	X(OUT_OF_MEMORY, "out-of-memory", ERROR, ERROR, "a device allocation failed for lack of memory",        \
	  "gputrace-report.1#out-of-memory")                                                                    \
	X(FORK_AFTER_INIT, "fork-after-init", WARNING, ERROR, "a child forked after CUDA was initialised",      \
	  "gputrace-report.1#fork-after-init")                                                                  \
	X(NO_KERNEL_IMAGE, "no-kernel-image", INFO, ERROR, "no device code that runs on this GPU",              \
	  "gputrace-report.1#no-kernel-image")                                                                  \
	X(CRASHED, "crashed", ERROR, ERROR, "a signal killed the process", "gputrace-report.1#crashed")         \
	X(END_UNKNOWN, "end-unknown", INFO, INFO, "how the process ended is not known",                         \
	  "gputrace-report.1#end-unknown")                                                                      \
	X(INIT_FAILED, "init-failed", ERROR, ERROR, "a library's create call failed",                           \
	  "gputrace-report.1#init-failed")                                                                      \
	X(DIVERGENT_PROCESSES, "divergent-processes", ERROR, ERROR,                                             \
	  "processes of one job loaded other CUDA libraries", "gputrace-report.1#divergent-processes")          \
	X(MISSING_RANKS, "missing-ranks", WARNING, WARNING, "ranks of a job left no trace",                     \
	  "gputrace-report.1#missing-ranks")                                                                    \
	X(ALREADY_LOADED, "already-loaded", WARNING, ERROR,                                                     \
	  "a library got another package's copy, loaded first", "gputrace-report.1#already-loaded")             \
	X(BROKEN_SYMLINK, "broken-symlink", WARNING, WARNING, "a link that leads nowhere (scan)",               \
	  "gputrace-report.1#broken-symlink")                                                                   \
	X(WRONG_ARCHITECTURE, "wrong-architecture", WARNING, WARNING,                                           \
	  "a library the loader cannot load on this machine (scan)", "gputrace-report.1#wrong-architecture")

enum gt_finding_id {
#define GT_FINDING_ENUM(sym, id, lo, hi, title, anchor) GT_F_##sym,
	GT_FINDINGS(GT_FINDING_ENUM)
#undef GT_FINDING_ENUM
	GT_F_COUNT
};

#endif
