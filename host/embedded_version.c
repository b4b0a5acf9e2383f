/* Versions compiled into a library (see embedded_version.h). Only .rodata
 * is read: libnccl.so.2 is 200 MB, its .rodata 200 KB. */
#define _GNU_SOURCE
#include "host/embedded_version.h"

#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* No vendor string sits in a larger .rodata than this (cuDNN's graph: 300 KB). */
#define MAX_RODATA (64u << 20)

/* The strings each component carries: a prefix, then the version's fields
 * separated by `sep`. cuDNN 9's graph library: "cudnn_version_9_19_0_56_";
 * NCCL: "NCCL version 2.28.9+cuda13.0". */
static const struct marker {
	const char *component;
	const char *prefix;
	char sep;
} markers[] = {
	{ "cudnn_graph", "cudnn_version_", '_' },
	{ "nccl", "NCCL version ", '.' },
};

static const struct marker *marker_of(const char *component)
{
	size_t i;

	for (i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (strcmp(markers[i].component, component) == 0)
			return &markers[i];
	return NULL;
}

/* The .rodata section's bytes (malloc'd), or NULL. */
static unsigned char *read_rodata(int fd, size_t *len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	unsigned char *buf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!elf)
		return NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0)
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			const char *name;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!name || strcmp(name, ".rodata") != 0 || sh.sh_size == 0 || sh.sh_size > MAX_RODATA)
				continue;
			buf = malloc(sh.sh_size);
			if (buf && pread(fd, buf, sh.sh_size, (off_t)sh.sh_offset) != (ssize_t)sh.sh_size) {
				free(buf);
				buf = NULL;
			}
			*len = sh.sh_size;
			break;
		}
	elf_end(elf);
	return buf;
}

/* Digits separated by m->sep after the prefix at p, as "a.b.c[.d]"; false
 * unless at least major.minor.patch are there. */
static bool fields_at(const struct marker *m, const unsigned char *p, const unsigned char *end, char *out,
		      size_t cap)
{
	size_t n = 0;
	int fields = 0;

	p += strlen(m->prefix);
	while (p < end && isdigit(*p) && fields < 4) {
		while (p < end && isdigit(*p) && n + 2 < cap)
			out[n++] = (char)*p++;
		fields++;
		if (p + 1 < end && *p == (unsigned char)m->sep && isdigit(p[1]) && fields < 4)
			out[n++] = '.', p++;
		else
			break;
	}
	out[n] = 0;
	return fields >= 3;
}

bool host_embedded_version(const char *path, const char *component, char *out, size_t cap)
{
	const struct marker *m = marker_of(component);
	const unsigned char *hit, *p;
	unsigned char *data;
	bool found = false;
	size_t len = 0;
	int fd;

	if (!m || cap < 2 || elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	data = read_rodata(fd, &len);
	close(fd);
	for (p = data; data && !found && (hit = memmem(p, len - (size_t)(p - data), m->prefix, strlen(m->prefix)));
	     p = hit + 1)
		found = fields_at(m, hit, data + len, out, cap);
	free(data);
	return found;
}
