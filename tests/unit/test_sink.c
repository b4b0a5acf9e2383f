/* Unit tests: the trace writer's waits are bounded (common/trace_sink.c). */
#include <check.h>
#include <string.h>

#include "common/trace_sink.h"
#include "tests/unit/unit.h"

/* A signal handler that writes while the code it interrupted is trimming
 * the file at exit (a pool's SIGTERM reaching a worker inside _exit) must
 * give up, not wait for a trim that cannot go on until it returns: the
 * forked Pool workers of tests/gpu/longtail.sh spun in sched_yield and
 * hung their parent's join, 5 runs of 8 on the H200. Checked runs each test
 * in its own process with a timeout: a wait without end fails it. */
START_TEST(test_write_during_trim_gives_up)
{
	struct gt_sink s;

	memset(&s, 0, sizeof(s));
	s.fd = -1;
	__atomic_store_n(&s.mode, GT_SINK_TRIMMING, __ATOMIC_SEQ_CST);
	gt_sink_write(&s, "{\"ev\":\"note\"}\n", 14);
	ck_assert_int_eq(__atomic_load_n(&s.inflight, __ATOMIC_SEQ_CST), 0);
	ck_assert_int_eq(__atomic_load_n(&s.mode, __ATOMIC_SEQ_CST), GT_SINK_TRIMMING);
}
END_TEST

Suite *sink_suite(void)
{
	Suite *s = suite_create("sink");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_write_during_trim_gives_up);
	suite_add_tcase(s, tc);
	return s;
}
