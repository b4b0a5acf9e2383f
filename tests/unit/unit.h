/* The unit test suites, one per file, run by tests/unit/main.c. */
#ifndef GPUTRACE_UNIT_H
#define GPUTRACE_UNIT_H
#include <check.h>
Suite *jline_suite(void);
Suite *family_suite(void);
Suite *launch_suite(void);
Suite *format_suite(void);
Suite *status_suite(void);
Suite *elf_package_suite(void);
Suite *resolve_suite(void);
Suite *ldcache_suite(void);
Suite *printable_suite(void);
Suite *markup_suite(void);
Suite *trace_read_suite(void);
Suite *json_line_suite(void);
Suite *model_suite(void);
Suite *rules_suite(void);
Suite *framework_suite(void);
Suite *symbols_suite(void);
Suite *fatbin_suite(void);
Suite *fix_suite(void);
Suite *fix_json_suite(void);
Suite *redact_suite(void);
Suite *svg_layout_suite(void);
Suite *scan_driver_suite(void);
Suite *shown_path_suite(void);
#endif
