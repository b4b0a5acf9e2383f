/* rules/scan_rules.c's driver-mismatch fix (issue 28): a stale user-space
 * driver in the loader's own folder is replaced by its package; the folder
 * is never to be taken out of the loader's configuration. A copy elsewhere
 * (a compat folder, an image's own) is kept off the search path. */
#define _GNU_SOURCE
#include <check.h>
#include <string.h>

#include "common/family.h"
#include "rules/findings.h"
#include "rules/scan_rules.h"
#include "tests/unit/unit.h"

static struct gt_finding *judge_one_copy(const char *path, struct gt_findings *out)
{
	static struct host_copy c;
	static struct host_scan s;
	size_t i;

	memset(&c, 0, sizeof(c));
	memset(&s, 0, sizeof(s));
	c.path = (char *)path;
	c.real_path = (char *)path;
	c.where = "root";
	ck_assert(gt_classify(path, &c.fi));
	strcpy(c.version, "570.86.15");
	s.copies = &c;
	s.ncopies = 1;
	strcpy(s.kmod, "580.159.04");
	strcpy(s.gpus, "NVIDIA H200");
	gt_scan_judge(&s, out);
	for (i = 0; i < out->n; i++)
		if (out->v[i].id == GT_F_DRIVER_MISMATCH)
			return &out->v[i];
	ck_abort_msg("no driver-mismatch among %zu findings (%s)", out->n,
		     out->n ? out->v[0].summary : "none");
	return NULL;
}

START_TEST(test_stale_driver_in_system_folder_is_replaced)
{
	struct gt_findings out = { 0 };
	struct gt_finding *f = judge_one_copy("/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.15", &out);

	ck_assert_msg(strstr(f->fix, "reinstall the driver's user-space package") != NULL, "%s", f->fix);
	ck_assert_msg(strstr(f->fix, "stays in the loader's configuration") != NULL, "%s", f->fix);
	ck_assert_msg(strstr(f->fix, "out of ld.so.conf") == NULL, "%s", f->fix);
	gt_findings_free(&out);
}
END_TEST

START_TEST(test_stale_driver_elsewhere_is_kept_off_the_search_path)
{
	struct gt_findings out = { 0 };
	struct gt_finding *f = judge_one_copy("/opt/image/lib/libcuda.so.570.86.15", &out);

	ck_assert_msg(strstr(f->fix, "out of ld.so.conf") != NULL, "%s", f->fix);
	ck_assert_msg(strstr(f->fix, "reinstall") == NULL, "%s", f->fix);
	gt_findings_free(&out);
}
END_TEST

Suite *scan_driver_suite(void)
{
	Suite *s = suite_create("scan_driver");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_stale_driver_in_system_folder_is_replaced);
	tcase_add_test(tc, test_stale_driver_elsewhere_is_kept_off_the_search_path);
	suite_add_tcase(s, tc);
	return s;
}
