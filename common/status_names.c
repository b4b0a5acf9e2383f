/* Status code to symbolic name, over the tables of status_names.h. Also built
 * into libgputrace.so: const data only, no allocation, no stdio. */
#include "gputrace/status_names.h"

#define GT_STATUS_ENTRY(code, name) { code, name },

static const struct gt_status cudart[] = { GT_CUDART_STATUSES(GT_STATUS_ENTRY) };
static const struct gt_status cu[] = { GT_CU_STATUSES(GT_STATUS_ENTRY) };
static const struct gt_status cudnn9[] = { GT_CUDNN9_STATUSES(GT_STATUS_ENTRY) };
static const struct gt_status cudnn8[] = { GT_CUDNN8_STATUSES(GT_STATUS_ENTRY) };
static const struct gt_status cublas[] = { GT_CUBLAS_STATUSES(GT_STATUS_ENTRY) };
static const struct gt_status nccl[] = { GT_NCCL_STATUSES(GT_STATUS_ENTRY) };

#define GT_TABLE(t) { t, sizeof(t) / sizeof(t[0]) }

static const struct {
	const struct gt_status *v;
	size_t n;
} tables[GT_API_COUNT] = {
	[GT_API_CUDART] = GT_TABLE(cudart),
	[GT_API_CU] = GT_TABLE(cu),
	[GT_API_CUDNN9] = GT_TABLE(cudnn9),
	[GT_API_CUDNN8] = GT_TABLE(cudnn8),
	[GT_API_CUBLAS] = GT_TABLE(cublas),
	[GT_API_NCCL] = GT_TABLE(nccl),
};

const struct gt_status *gt_status_table(enum gt_status_api api, size_t *n)
{
	/* The api may come from a trace file, so it is checked, not trusted. */
	if ((unsigned)api >= GT_API_COUNT) {
		*n = 0;
		return NULL;
	}
	*n = tables[api].n;
	return tables[api].v;
}

/* Binary search: every table is sorted by code (checked by the unit tests). */
const char *gt_status_name(enum gt_status_api api, long code)
{
	size_t lo = 0, hi, mid;
	const struct gt_status *t = gt_status_table(api, &hi);

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t[mid].code == code)
			return t[mid].name;
		if (t[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* cuDNN 9 renumbered its statuses into categories of 1000; cuDNN 8 and older
 * count from 0. cudnnGetVersion() was major*1000+... until 8, major*10000+...
 * since 9. An unknown version (0 or less) is taken to be a current cuDNN. */
enum gt_status_api gt_cudnn_api_for_version(long cudnn_version)
{
	long major = cudnn_version < 10000 ? cudnn_version / 1000 : cudnn_version / 10000;

	if (cudnn_version > 0 && major <= 8)
		return GT_API_CUDNN8;
	return GT_API_CUDNN9;
}
