/* Runs every unit suite, in two runners.
 *
 * Why two: under ASan a forked test pays LeakSanitizer's scan at its exit
 * (about 110 ms on the 2-core CI VM: 36 of the 62 s the 317 checks took),
 * and CI must stay under 8 minutes. The suites whose tests share nothing by
 * construction (each works in its own mkdtemp folder, the fixture's
 * diagnosis frees the host caches at its end as a report does, no variable
 * but the fixture's GPUTRACE_DPKG_ROOT, which each test sets anew, and no
 * working folder is changed) run one after the other in
 * this process: their leaks are still all found, by one scan at exit. The
 * suites that set variables, change folder, start processes or load
 * libraries once a process (svg_layout's libgvc) keep a forked process a
 * test. CK_FORK=yes (or no) in the environment puts every suite in that
 * mode: CK_FORK=yes to isolate a test that crashes the shared process. */
#include <check.h>
#include <stdlib.h>

#include "tests/unit/unit.h"

static Suite *(*const shared[])(void) = {
	jline_suite, family_suite, status_suite, printable_suite, markup_suite, trace_read_suite,
	json_line_suite, model_suite, rules_suite, symbols_suite, fatbin_suite, fix_suite,
	fix_json_suite, shown_path_suite,
};

static Suite *(*const forked[])(void) = {
	launch_suite, format_suite, elf_package_suite, resolve_suite, ldcache_suite, framework_suite,
	redact_suite, svg_layout_suite, scan_driver_suite, sink_suite, whole_file_suite,
};

static int run(Suite *(*const *suites)(void), size_t n, enum fork_status mode)
{
	SRunner *sr = srunner_create(suites[0]());
	int failed;
	size_t i;

	for (i = 1; i < n; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_set_fork_status(sr, getenv("CK_FORK") ? CK_FORK_GETENV : mode);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

/* The forked ones first: each child's leak scan covers the heap it
 * inherited, which the shared runner's tests would have grown. */
int main(void)
{
	int failed = run(forked, sizeof(forked) / sizeof(forked[0]), CK_FORK);

	failed += run(shared, sizeof(shared) / sizeof(shared[0]), CK_NOFORK);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
