/* What CUDA device code a file carries: the SASS architectures and PTX
 * versions of the fat binaries in its .nv_fatbin and __nv_relfatbin sections,
 * read from their headers only (payloads are skipped by size, never
 * decompressed), once per file. Judging what runs where is rules/arch_fit.c. */
#ifndef GPUTRACE_HOST_FATBIN_H
#define GPUTRACE_HOST_FATBIN_H

#include <stdbool.h>
#include <stddef.h>

/* One kind of image a file carries, all its entries of that kind and arch together. */
struct host_fatbin_image {
	bool ptx;              /* PTX (compute_XY), else SASS (sm_XY) */
	int arch;              /* major*10 + minor, as nvcc names it: 90, 100, 121 */
	char variant;          /* 0, 'a' (this arch only) or 'f' (its family) */
	bool relocatable;      /* only in __nv_relfatbin: code for a later device link */
	unsigned entries;      /* how many entries of this kind */
	unsigned compressed;   /* how many of them are compressed */
	unsigned long long bytes; /* their payloads, uncompressed (what the driver gets) */
	int ptx_isa;           /* PTX: the newest PTX ISA version of its entries, major*10+minor
	                          (90 for 9.0, which nvcc 13.0 writes); 0 when unknown, and for SASS */
};

#define HOST_FATBIN_MAX_IMAGES 64

struct host_fatbin {
	bool has_device_code;  /* a fat-binary section with at least one container */
	unsigned containers, entries;
	unsigned other_entries;  /* neither SASS nor PTX (LTO IR ...): not judged */
	unsigned empty_entries;  /* SASS without a kernel (a cubin with no .text section, as
	                            nvcc makes for a file with only __device__ data): nothing
	                            there could fail to run, so no image of its own */
	unsigned long long section_bytes;
	struct host_fatbin_image images[HOST_FATBIN_MAX_IMAGES]; /* sorted: SASS first, by arch */
	size_t nimages;
	bool partial;          /* a header could not be read, or too many kinds: a lower bound */
	bool code_elsewhere;   /* fat binaries also sit in a data section (cuFFT keeps
	                          thousands in .ldata and loads them itself): not read,
	                          so the lists above are not all the file carries */
};

/* The device code of the file at path, read at the first call for this file
 * (device, inode, size and mtime) and kept for later calls; NULL with a reason
 * in err when the file cannot be read as ELF. The answer lives until
 * host_fatbin_cache_clear. A file without device code gives has_device_code
 * false, not NULL. */
const struct host_fatbin *host_fatbin_of(const char *path, char *err, size_t errcap);
void host_fatbin_cache_clear(void);

/* "sm_90a", "compute_80", "sm_100f". */
void host_fatbin_image_name(const struct host_fatbin_image *im, char *out, size_t cap);
/* The images, by name, ", " between: "sm_80, sm_90, compute_90". */
void host_fatbin_list(const struct host_fatbin *fb, char *out, size_t cap);

/* Reads the fat binaries of one section's bytes (for tests, and the reader
 * itself); adds to fb. off is the section's offset in the file fd. */
void host_fatbin_read_section(int fd, unsigned long long off, unsigned long long size, bool relocatable,
			      struct host_fatbin *fb);

#endif
