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

/* The first CUDA release of each PTX ISA version, from the PTX ISA's
 * release history (its "Release Notes"): 6.3 came with CUDA 10.0, and
 * minor for minor until 8.5 with 12.5 (12.6 kept 8.5), then 8.6 with 12.7,
 * 8.7 with 12.8, 8.8 with 12.9, 9.0 with 13.0, 9.1 with 13.1, and on minor
 * for minor (9.4 with 13.4, 9.5 with 13.5). */
long gt_ptx_isa_cuda(int isa)
{
	if (isa >= 63 && isa <= 65)
		return 10000 + (isa - 63) * 10L;
	if (isa >= 70 && isa <= 78)
		return 11000 + (isa - 70) * 10L;
	if (isa >= 80 && isa <= 85)
		return 12000 + (isa - 80) * 10L;
	if (isa >= 86 && isa <= 88)
		return 12070 + (isa - 86) * 10L;
	if (isa >= 90 && isa <= 95)
		return 13000 + (isa - 90) * 10L;
	return -1;
}

/* Every PTX image the device would compile needs a newer CUDA than the
 * driver's; -1 also when one of them is unknown or compiles: only then is
 * none of its PTX usable. The answer is what the newest of them needs (the
 * one gt_fatbin_fit names: images are sorted by arch). */
long gt_fatbin_ptx_too_new(const struct host_fatbin *fb, int major, int minor, long driver_cuda)
{
	long need = -1, c;
	size_t i;

	if (driver_cuda <= 0)
		return -1;
	for (i = 0; i < fb->nimages; i++) {
		const struct host_fatbin_image *im = &fb->images[i];

		if (!im->ptx || !counted(fb, im) || !gt_image_runs_on(im, major, minor))
			continue;
		c = gt_ptx_isa_cuda(im->ptx_isa);
		if (c <= driver_cuda)  /* compiles, or unknown */
			return -1;
		need = c;
	}
	return need;
}

bool gt_fatbin_ptx_known(const struct host_fatbin *fb, int major, int minor)
{
	size_t i;

	for (i = 0; i < fb->nimages; i++) {
		const struct host_fatbin_image *im = &fb->images[i];

		if (im->ptx && counted(fb, im) && gt_image_runs_on(im, major, minor) &&
		    gt_ptx_isa_cuda(im->ptx_isa) < 0)
			return false;
	}
	return true;
}
