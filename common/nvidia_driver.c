/* The kernel side of the NVIDIA driver (see nvidia_driver.h). No stdio: this
 * file is in the library too. */
#define _GNU_SOURCE
#include "common/nvidia_driver.h"
#include "common/small_file.h"

#include <dirent.h>
#include <string.h>
#include <unistd.h>

static bool is_version_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.';
}

static void copy_span(const char *s, size_t n, char *out, size_t cap)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

bool gt_parse_kmod_version(const char *text, char *out, size_t cap)
{
	const char *at = strstr(text, "Kernel Module"), *end;

	if (!at || !cap)
		return false;
	/* The first word after "Kernel Module" made of digits and dots, with a
	 * dot (" for x86_64" sits between them in the open module's line). */
	for (at += 13; *at && *at != '\n'; at++) {
		if (at[-1] != ' ' || *at < '0' || *at > '9')
			continue;
		for (end = at; is_version_char(*end); end++)
			;
		if (memchr(at, '.', (size_t)(end - at)) && (*end == ' ' || *end == '\n' || !*end)) {
			copy_span(at, (size_t)(end - at), out, cap);
			return true;
		}
	}
	return false;
}

bool gt_parse_gpu_model(const char *text, char *out, size_t cap)
{
	const char *at = strstr(text, "Model:"), *end;

	if (!at || !cap)
		return false;
	for (at += 6; *at == ' ' || *at == '\t'; at++)
		;
	for (end = at; *end && *end != '\n'; end++)
		;
	while (end > at && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == at)
		return false;
	copy_span(at, (size_t)(end - at), out, cap);
	return true;
}

static bool read_text(const char *path, char *buf, size_t cap)
{
	return gt_read_small(path, buf, cap) > 0;
}

bool gt_read_kmod_version(char *out, size_t cap)
{
	char text[1024];

	return read_text(GT_NVIDIA_PROC "/version", text, sizeof(text)) &&
	       gt_parse_kmod_version(text, out, cap);
}

void gt_read_gpu_models(void (*fn)(const char *model, void *data), void *data, int max)
{
	char path[512], text[2048], model[256];
	struct dirent *d;
	size_t n;
	DIR *dir = opendir(GT_NVIDIA_PROC "/gpus");
	int count = 0;

	if (!dir)
		return;
	while ((d = readdir(dir)) && count < max) {
		n = strlen(d->d_name);
		if (d->d_name[0] == '.' || n + sizeof(GT_NVIDIA_PROC "/gpus//information") > sizeof(path))
			continue;
		memcpy(path, GT_NVIDIA_PROC "/gpus/", sizeof(GT_NVIDIA_PROC "/gpus/") - 1);
		memcpy(path + sizeof(GT_NVIDIA_PROC "/gpus/") - 1, d->d_name, n);
		memcpy(path + sizeof(GT_NVIDIA_PROC "/gpus/") - 1 + n, "/information", sizeof("/information"));
		if (read_text(path, text, sizeof(text)) && gt_parse_gpu_model(text, model, sizeof(model))) {
			fn(model, data);
			count++;
		}
	}
	closedir(dir);
}
