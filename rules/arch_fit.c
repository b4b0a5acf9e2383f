/* Device code against a device (arch_fit.h). */
#include "rules/arch_fit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bool gt_image_runs_on(const struct host_fatbin_image *im, int major, int minor)
{
	int im_major = im->arch / 10, im_minor = im->arch % 10;

	if (im->variant == 'a')
		return major == im_major && minor == im_minor;
	if (!im->ptx || im->variant == 'f')
		return major == im_major && minor >= im_minor;
	return major > im_major || (major == im_major && minor >= im_minor);
}

static bool counted(const struct host_fatbin *fb, const struct host_fatbin_image *im)
{
	size_t i;

	if (!im->relocatable)
		return true;
	for (i = 0; i < fb->nimages; i++)
		if (!fb->images[i].relocatable)
			return false;
	return true;
}

enum gt_fit gt_fatbin_fit(const struct host_fatbin *fb, int major, int minor,
			  const struct host_fatbin_image **via)
{
	const struct host_fatbin_image *sass = NULL, *ptx = NULL;
	bool any = false;
	size_t i;

	*via = NULL;
	for (i = 0; i < fb->nimages; i++) {
		const struct host_fatbin_image *im = &fb->images[i];

		if (!counted(fb, im))
			continue;
		any = true;
		if (!gt_image_runs_on(im, major, minor))
			continue;
		/* sorted by arch: the last that fits is the newest */
		if (im->ptx)
			ptx = im;
		else
			sass = im;
	}
	if (!any)
		return GT_FIT_NO_CODE;
	*via = sass ? sass : ptx;
	return sass ? GT_FIT_SASS : ptx ? GT_FIT_JIT : GT_FIT_NONE;
}

bool gt_parse_arch(const char *s, int *major, int *minor)
{
	char *end;
	long n;

	if (strncmp(s, "sm_", 3) == 0)
		s += 3;
	else if (strncmp(s, "compute_", 8) == 0)
		s += 8;
	if (!isdigit((unsigned char)s[0]))
		return false;
	n = strtol(s, &end, 10);
	if (*end == '.') {
		if (!isdigit((unsigned char)end[1]) || n < 1 || n > 99)
			return false;
		*major = (int)n;
		n = strtol(end + 1, &end, 10);
		if (n > 9 || *end)
			return false;
		*minor = (int)n;
		return true;
	}
	if ((*end && strcmp(end, "a") && strcmp(end, "f")) || n < 10 || n > 999)
		return false;
	*major = (int)(n / 10);
	*minor = (int)(n % 10);
	return true;
}
