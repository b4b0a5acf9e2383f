/* Section lookup in ELF files on disk (see elf_peek.h). Bounded reads only:
 * a corrupt or hostile file yields "no", never a crash. */
#include "audit/elf_peek.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define MAX_SECTIONS 512
#define MAX_SHSTRTAB 65536

static Elf64_Shdr shdrs[MAX_SECTIONS];
static char shstrtab[MAX_SHSTRTAB];

static bool read_at(int fd, void *buf, size_t len, Elf64_Off off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

static bool name_matches(Elf64_Word name, const char *const *names, int n, size_t tab_len)
{
	int i;

	if (name >= tab_len)
		return false;
	for (i = 0; i < n; i++)
		if (strncmp(shstrtab + name, names[i], tab_len - name) == 0)
			return true;
	return false;
}

bool audit_elf_has_section(const char *path, const char *const *names, int n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), i;
	Elf64_Ehdr eh;
	Elf64_Shdr *strsec;
	bool found = false;
	size_t tab_len;

	if (fd < 0)
		return false;
	if (!read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shnum == 0 || eh.e_shnum > MAX_SECTIONS || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	if (!read_at(fd, shdrs, eh.e_shnum * sizeof(Elf64_Shdr), eh.e_shoff))
		goto out;
	strsec = &shdrs[eh.e_shstrndx];
	tab_len = strsec->sh_size < MAX_SHSTRTAB ? strsec->sh_size : MAX_SHSTRTAB;
	if (!read_at(fd, shstrtab, tab_len, strsec->sh_offset))
		goto out;
	for (i = 0; i < eh.e_shnum && !found; i++)
		found = name_matches(shdrs[i].sh_name, names, n, tab_len);
out:
	close(fd);
	return found;
}
