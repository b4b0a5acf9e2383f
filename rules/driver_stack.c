/* The driver's two halves, judged (see driver_stack.h). */
#include "rules/driver_stack.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/family.h"

bool gt_driver_is_compat(const char *path, const char *real_path, const char *package)
{
	return (path && strstr(path, "/compat/")) || (real_path && strstr(real_path, "/compat/")) ||
	       (package && strncmp(package, "cuda-compat", 11) == 0);
}

/* Numeric, field by field: 580.159.04 is newer than 580.95.05. */
static int compare_versions(const char *a, const char *b)
{
	long x, y;
	char *ea, *eb;

	for (;;) {
		x = strtol(a, &ea, 10);
		y = strtol(b, &eb, 10);
		if (x != y)
			return x < y ? -1 : 1;
		if (*ea != '.' || *eb != '.')
			return (*ea == '.') - (*eb == '.');
		a = ea + 1;
		b = eb + 1;
	}
}

/* Forward compatibility is for data-center GPUs: never on GeForce or TITAN. */
static bool consumer_gpu(const char *gpus)
{
	return gpus && (strstr(gpus, "GeForce") || strstr(gpus, "TITAN"));
}

const char *gt_driver_copy_problem(bool compat, const char *version, const char *kmod, const char *gpus)
{
	if (gt_same_release(version, kmod))
		return NULL;
	if (compat && compare_versions(version, kmod) > 0)
		return consumer_gpu(gpus) ? "forward compatibility is not supported on this GPU (only on "
					    "data-center GPUs)" : NULL;
	if (compat)
		return "a forward-compatibility driver must be newer than the kernel module, and this one "
		       "is older";
	return "the user-space driver is another release than the kernel module (a container image's "
	       "own copy, or one left behind by a driver upgrade without a reboot)";
}

bool gt_system_lib_folder(const char *dir)
{
	static const char *const system[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu",
					      "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
					      "/usr/lib/aarch64-linux-gnu", "/usr/local/lib", NULL };
	int i;

	for (i = 0; system[i]; i++)
		if (strcmp(dir, system[i]) == 0)
			return true;
	return false;
}

/* The newest CUDA each driver branch serves in full (the CUDA Toolkit release
 * notes' minimum Linux driver of each release, by branch), newest first. */
static const struct {
	int branch;
	long cuda;
} driver_branches[] = {
	{ 590, 13010 }, { 580, 13000 }, { 575, 12090 }, { 570, 12080 }, { 560, 12060 },
	{ 555, 12050 }, { 550, 12040 }, { 545, 12030 }, { 535, 12020 }, { 530, 12010 },
	{ 525, 12000 }, { 520, 11080 }, { 515, 11070 }, { 510, 11060 }, { 495, 11050 },
	{ 470, 11040 }, { 465, 11030 }, { 460, 11020 }, { 455, 11010 }, { 450, 11000 },
	{ 440, 10020 }, { 418, 10010 }, { 410, 10000 }, { 396, 9020 }, { 387, 9010 }, { 384, 9000 },
	{ 367, 8000 }, { 352, 7050 }, { 346, 7000 }, { 340, 6050 },
};

long gt_cuda_of_driver(const char *version)
{
	int branch = version && isdigit((unsigned char)version[0]) ? atoi(version) : 0;
	size_t i;

	for (i = 0; branch > 0 && i < sizeof(driver_branches) / sizeof(driver_branches[0]); i++)
		if (branch >= driver_branches[i].branch)
			return driver_branches[i].cuda;
	return -1;
}
