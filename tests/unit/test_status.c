/* Unit tests: status code names (common/status_names.c) and the tables behind
 * them, whose order and uniqueness the binary search relies on. */
#include <check.h>
#include <string.h>

#include "gputrace/status_names.h"
#include "tests/unit/unit.h"

static void expect(enum gt_status_api api, long code, const char *name)
{
	const char *got = gt_status_name(api, code);

	ck_assert_msg(got, "api %d code %ld should be %s, is unknown", api, code, name);
	ck_assert_str_eq(got, name);
}

START_TEST(test_cudart)
{
	expect(GT_API_CUDART, 0, "cudaSuccess");
	expect(GT_API_CUDART, 2, "cudaErrorMemoryAllocation");
	expect(GT_API_CUDART, 3, "cudaErrorInitializationError");
	expect(GT_API_CUDART, 34, "cudaErrorStubLibrary");
	expect(GT_API_CUDART, 35, "cudaErrorInsufficientDriver");
	expect(GT_API_CUDART, 100, "cudaErrorNoDevice");
	expect(GT_API_CUDART, 209, "cudaErrorNoKernelImageForDevice");
	expect(GT_API_CUDART, 700, "cudaErrorIllegalAddress");
	expect(GT_API_CUDART, 803, "cudaErrorSystemDriverMismatch");
	expect(GT_API_CUDART, 999, "cudaErrorUnknown");
	expect(GT_API_CUDART, 10000, "cudaErrorApiFailureBase");
}
END_TEST

START_TEST(test_cu)
{
	expect(GT_API_CU, 0, "CUDA_SUCCESS");
	expect(GT_API_CU, 2, "CUDA_ERROR_OUT_OF_MEMORY");
	expect(GT_API_CU, 3, "CUDA_ERROR_NOT_INITIALIZED");
	expect(GT_API_CU, 34, "CUDA_ERROR_STUB_LIBRARY");
	expect(GT_API_CU, 100, "CUDA_ERROR_NO_DEVICE");
	expect(GT_API_CU, 209, "CUDA_ERROR_NO_BINARY_FOR_GPU");
	expect(GT_API_CU, 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
	expect(GT_API_CU, 916, "CUDA_ERROR_KEY_ROTATION");
	expect(GT_API_CU, 999, "CUDA_ERROR_UNKNOWN");
	/* cuda.h has no 35: only the runtime names an insufficient driver. */
	ck_assert_ptr_null(gt_status_name(GT_API_CU, 35));
}
END_TEST

START_TEST(test_cudnn9)
{
	expect(GT_API_CUDNN9, 0, "CUDNN_STATUS_SUCCESS");
	expect(GT_API_CUDNN9, 1001, "CUDNN_STATUS_NOT_INITIALIZED");
	expect(GT_API_CUDNN9, 1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH");
	expect(GT_API_CUDNN9, 1008, "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED");
	expect(GT_API_CUDNN9, 2000, "CUDNN_STATUS_BAD_PARAM");
	expect(GT_API_CUDNN9, 2001, "CUDNN_STATUS_INVALID_VALUE");
	expect(GT_API_CUDNN9, 3000, "CUDNN_STATUS_NOT_SUPPORTED");
	expect(GT_API_CUDNN9, 3007, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH");
	expect(GT_API_CUDNN9, 4003, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED");
	expect(GT_API_CUDNN9, 5000, "CUDNN_STATUS_EXECUTION_FAILED");
	expect(GT_API_CUDNN9, 5004, "CUDNN_STATUS_EXECUTION_FAILED_CURAND");
	/* 8.x numbers mean nothing to cuDNN 9, and 2001 is the only gap filled. */
	ck_assert_ptr_null(gt_status_name(GT_API_CUDNN9, 1));
	ck_assert_ptr_null(gt_status_name(GT_API_CUDNN9, 1000));
}
END_TEST

START_TEST(test_cudnn8)
{
	expect(GT_API_CUDNN8, 0, "CUDNN_STATUS_SUCCESS");
	expect(GT_API_CUDNN8, 1, "CUDNN_STATUS_NOT_INITIALIZED");
	expect(GT_API_CUDNN8, 2, "CUDNN_STATUS_ALLOC_FAILED");
	expect(GT_API_CUDNN8, 3, "CUDNN_STATUS_BAD_PARAM");
	expect(GT_API_CUDNN8, 9, "CUDNN_STATUS_NOT_SUPPORTED");
	expect(GT_API_CUDNN8, 14, "CUDNN_STATUS_VERSION_MISMATCH");
	ck_assert_ptr_null(gt_status_name(GT_API_CUDNN8, 15));
	ck_assert_ptr_null(gt_status_name(GT_API_CUDNN8, 1001));
}
END_TEST

START_TEST(test_cublas)
{
	expect(GT_API_CUBLAS, 0, "CUBLAS_STATUS_SUCCESS");
	expect(GT_API_CUBLAS, 1, "CUBLAS_STATUS_NOT_INITIALIZED");
	expect(GT_API_CUBLAS, 3, "CUBLAS_STATUS_ALLOC_FAILED");
	expect(GT_API_CUBLAS, 13, "CUBLAS_STATUS_EXECUTION_FAILED");
	expect(GT_API_CUBLAS, 16, "CUBLAS_STATUS_LICENSE_ERROR");
	ck_assert_ptr_null(gt_status_name(GT_API_CUBLAS, 2));
}
END_TEST

START_TEST(test_nccl)
{
	expect(GT_API_NCCL, 0, "ncclSuccess");
	expect(GT_API_NCCL, 1, "ncclUnhandledCudaError");
	expect(GT_API_NCCL, 2, "ncclSystemError");
	expect(GT_API_NCCL, 7, "ncclInProgress");
	/* ncclNumResults is a count, not a status. */
	ck_assert_ptr_null(gt_status_name(GT_API_NCCL, 8));
}
END_TEST

START_TEST(test_unknown)
{
	ck_assert_ptr_null(gt_status_name(GT_API_CUDART, -1));
	ck_assert_ptr_null(gt_status_name(GT_API_CUDART, 10));
	ck_assert_ptr_null(gt_status_name(GT_API_CUDART, 10001));
	ck_assert_ptr_null(gt_status_name(GT_API_CU, 123456789L));
	ck_assert_ptr_null(gt_status_name(GT_API_NCCL, -2147483648L));
	ck_assert_ptr_null(gt_status_name(GT_API_COUNT, 0));
	ck_assert_ptr_null(gt_status_name((enum gt_status_api)-1, 0));
}
END_TEST

START_TEST(test_cudnn_version)
{
	ck_assert_int_eq(gt_cudnn_api_for_version(7605), GT_API_CUDNN8);
	ck_assert_int_eq(gt_cudnn_api_for_version(8000), GT_API_CUDNN8);
	ck_assert_int_eq(gt_cudnn_api_for_version(8907), GT_API_CUDNN8);
	ck_assert_int_eq(gt_cudnn_api_for_version(9999), GT_API_CUDNN9);
	ck_assert_int_eq(gt_cudnn_api_for_version(90000), GT_API_CUDNN9);
	ck_assert_int_eq(gt_cudnn_api_for_version(91900), GT_API_CUDNN9);
	ck_assert_int_eq(gt_cudnn_api_for_version(100000), GT_API_CUDNN9);
	ck_assert_int_eq(gt_cudnn_api_for_version(0), GT_API_CUDNN9);
	ck_assert_int_eq(gt_cudnn_api_for_version(-1), GT_API_CUDNN9);
}
END_TEST

/* Each table must be non-empty, named with its API's prefix, and every entry
 * must be found again by the lookup. */
START_TEST(test_tables_walk)
{
	static const char *const prefix[GT_API_COUNT] = {
		[GT_API_CUDART] = "cuda", [GT_API_CU] = "CUDA_",
		[GT_API_CUDNN9] = "CUDNN_STATUS_", [GT_API_CUDNN8] = "CUDNN_STATUS_",
		[GT_API_CUBLAS] = "CUBLAS_STATUS_", [GT_API_NCCL] = "nccl",
	};
	const struct gt_status *t;
	size_t i, n;
	int api;

	for (api = 0; api < GT_API_COUNT; api++) {
		t = gt_status_table(api, &n);
		ck_assert_msg(t && n > 0, "api %d has no table", api);
		for (i = 0; i < n; i++) {
			ck_assert_ptr_nonnull(t[i].name);
			ck_assert_msg(!strncmp(t[i].name, prefix[api], strlen(prefix[api])),
				      "api %d: %s lacks prefix %s", api, t[i].name, prefix[api]);
			ck_assert_str_eq(gt_status_name(api, t[i].code), t[i].name);
		}
	}
}
END_TEST

/* No code and no name twice within one table, whatever the order. */
START_TEST(test_tables_no_duplicates)
{
	const struct gt_status *t;
	size_t i, j, n;
	int api;

	for (api = 0; api < GT_API_COUNT; api++) {
		t = gt_status_table(api, &n);
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++) {
				ck_assert_msg(t[i].code != t[j].code, "api %d: code %ld twice",
					      api, t[i].code);
				ck_assert_msg(strcmp(t[i].name, t[j].name), "api %d: %s twice",
					      api, t[i].name);
			}
	}
}
END_TEST

/* The binary search needs every table in ascending order of code. */
START_TEST(test_tables_sorted)
{
	const struct gt_status *t;
	size_t i, n;
	int api;

	for (api = 0; api < GT_API_COUNT; api++) {
		t = gt_status_table(api, &n);
		for (i = 1; i < n; i++)
			ck_assert_msg(t[i - 1].code < t[i].code, "api %d: %ld before %ld",
				      api, t[i - 1].code, t[i].code);
	}
}
END_TEST

Suite *status_suite(void)
{
	Suite *s = suite_create("status");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cudart);
	tcase_add_test(tc, test_cu);
	tcase_add_test(tc, test_cudnn9);
	tcase_add_test(tc, test_cudnn8);
	tcase_add_test(tc, test_cublas);
	tcase_add_test(tc, test_nccl);
	tcase_add_test(tc, test_unknown);
	tcase_add_test(tc, test_cudnn_version);
	tcase_add_test(tc, test_tables_walk);
	tcase_add_test(tc, test_tables_no_duplicates);
	tcase_add_test(tc, test_tables_sorted);
	suite_add_tcase(s, tc);
	return s;
}
