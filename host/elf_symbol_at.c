/* The function of an ELF file at an address (host/elf_symbol_at.h): the
 * symbol tables, searched for the function whose range holds it, or, for
 * symbols without a size, the nearest one below it. */
#define _GNU_SOURCE
#include "host/elf_symbol_at.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct best {
	GElf_Sym sym;
	const char *name;
	bool exact;  /* its range holds the address */
};

static bool is_code(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF;
}

/* One table: a symbol whose range holds off wins over one that only starts
 * below it (a size of 0: hand-written code). */
static void search_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, unsigned long long off,
			 struct best *b)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, i;
	GElf_Sym s;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n && gelf_getsym(data, (int)i, &s); i++) {
		bool inside;
		const char *name;

		if (!is_code(&s) || s.st_value > off)
			continue;
		inside = s.st_size && off < s.st_value + s.st_size;
		if (s.st_size && !inside)
			continue;
		if (b->name && (b->exact || (!inside && s.st_value <= b->sym.st_value)))
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !name[0])
			continue;
		b->sym = s;
		b->name = name;
		b->exact = inside;
	}
}

static bool find_in(Elf *elf, Elf64_Word type, unsigned long long off, struct best *b)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			search_table(elf, scn, &sh, off, b);
	return b->name != NULL;
}

bool host_symbol_at(const char *path, unsigned long long off, char *name, size_t cap,
		    unsigned long long *into)
{
	struct best b = { .name = NULL, .exact = false };
	struct stat st;
	bool ok = false;
	Elf *elf = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		goto out;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	if (!find_in(elf, SHT_SYMTAB, off, &b) && !find_in(elf, SHT_DYNSYM, off, &b))
		goto out;
	snprintf(name, cap, "%s", b.name);
	*into = off - b.sym.st_value;
	ok = true;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ok;
}
