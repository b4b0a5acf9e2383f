/* Runs every unit suite; each test in its own forked process (Check's default). */
#include <check.h>
#include <stdlib.h>

#include "tests/unit/unit.h"

int main(void)
{
	SRunner *sr = srunner_create(jline_suite());
	int failed;

	srunner_add_suite(sr, family_suite());
	srunner_add_suite(sr, launch_suite());
	srunner_add_suite(sr, format_suite());
	srunner_add_suite(sr, status_suite());
	srunner_add_suite(sr, elf_package_suite());
	srunner_add_suite(sr, resolve_suite());
	srunner_add_suite(sr, ldcache_suite());
	srunner_add_suite(sr, printable_suite());
	srunner_add_suite(sr, markup_suite());
	srunner_add_suite(sr, trace_read_suite());
	srunner_add_suite(sr, json_line_suite());
	srunner_add_suite(sr, model_suite());
	srunner_add_suite(sr, rules_suite());
	srunner_add_suite(sr, framework_suite());
	srunner_add_suite(sr, symbols_suite());
	srunner_add_suite(sr, fatbin_suite());
	srunner_add_suite(sr, fix_suite());
	srunner_add_suite(sr, fix_json_suite());
	srunner_add_suite(sr, redact_suite());
	srunner_add_suite(sr, svg_layout_suite());
	srunner_add_suite(sr, scan_driver_suite());
	srunner_add_suite(sr, shown_path_suite());
	srunner_add_suite(sr, sink_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
