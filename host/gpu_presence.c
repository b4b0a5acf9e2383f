/* GPU, kernel driver and device nodes, as the host's /sys, /proc and /dev
 * show them: the scan needs to say which of the three is missing, and a test
 * needs a fake tree (GPUTRACE_SYSROOT), since most build machines have none. */
#define _GNU_SOURCE
#include "host/gpu_presence.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/nvidia_driver.h"
#include "common/small_file.h"

/* A root too long for PATH_MAX leaves the path empty: looked at, not there. */
static void rooted(const struct host_gpu_presence *g, const char *path, char *out, size_t cap)
{
	if (strlen(g->sysroot) + strlen(path) >= cap)
		out[0] = 0;
	else
		memcpy(mempcpy(out, g->sysroot, strlen(g->sysroot)), path, strlen(path) + 1);
}

/* The first line of a small sysfs file, without its newline. */
static bool first_line(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(out, (int)cap, f) != NULL;
	fclose(f);
	if (ok)
		out[strcspn(out, "\n")] = 0;
	return ok;
}

/* Vendor 0x10de and a display class (0x03xxxx): NVIDIA's audio functions and
 * switches are no GPU. A device whose class cannot be read counts. */
static bool nvidia_display(const char *dev)
{
	char path[PATH_MAX + 16], v[64];

	snprintf(path, sizeof(path), "%s/vendor", dev);
	if (!first_line(path, v, sizeof(v)) || strcasecmp(v, HOST_GPU_NVIDIA_VENDOR) != 0)
		return false;
	snprintf(path, sizeof(path), "%s/class", dev);
	return !first_line(path, v, sizeof(v)) || strncmp(v, "0x03", 4) == 0;
}

static void read_pci(struct host_gpu_presence *g)
{
	char dev[PATH_MAX];
	struct dirent *e;
	DIR *d;

	rooted(g, "/sys/bus/pci/devices", g->pci_dir, sizeof(g->pci_dir));
	d = opendir(g->pci_dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		g->npci++;
		if (snprintf(dev, sizeof(dev), "%s/%s", g->pci_dir, e->d_name) >= (int)sizeof(dev))
			continue;
		if (!g->nvidia_pci[0] && nvidia_display(dev))
			snprintf(g->nvidia_pci, sizeof(g->nvidia_pci), "%s", dev);
	}
	closedir(d);
}

static void read_kmod(struct host_gpu_presence *g)
{
	char text[1024];

	rooted(g, GT_NVIDIA_PROC "/version", g->proc_version, sizeof(g->proc_version));
	if (gt_read_small(g->proc_version, text, sizeof(text)) < 0 ||
	    !gt_parse_kmod_version(text, g->kmod, sizeof(g->kmod)))
		g->kmod[0] = 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

void host_gpu_presence_read(struct host_gpu_presence *g)
{
	const char *root = getenv("GPUTRACE_SYSROOT");

	memset(g, 0, sizeof(*g));
	/* "/" and "" are the real host; a trailing slash would double up */
	snprintf(g->sysroot, sizeof(g->sysroot), "%s", root && strcmp(root, "/") ? root : "");
	g->sysroot[strcspn(g->sysroot, "\n")] = 0;
	while (g->sysroot[0] && g->sysroot[strlen(g->sysroot) - 1] == '/')
		g->sysroot[strlen(g->sysroot) - 1] = 0;
	read_pci(g);
	read_kmod(g);
	rooted(g, "/dev/nvidiactl", g->dev_ctl, sizeof(g->dev_ctl));
	rooted(g, "/dev/nvidia0", g->dev_gpu0, sizeof(g->dev_gpu0));
	rooted(g, "/dev/dxg", g->dev_dxg, sizeof(g->dev_dxg));
	g->has_ctl = exists(g->dev_ctl);
	g->has_gpu0 = exists(g->dev_gpu0);
	g->has_dxg = exists(g->dev_dxg);
}
