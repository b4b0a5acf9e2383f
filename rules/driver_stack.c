/* The driver's two halves, judged (see driver_stack.h). */
#include "rules/driver_stack.h"

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
