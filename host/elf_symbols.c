/* Reads .dynsym, .gnu.version, .gnu.version_r and .gnu.version_d through
 * libelf (see elf_symbols.h). Section contents are taken only from sections
 * libelf hands over whole; an index out of range is an unversioned symbol. */
#include "host/elf_symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"

/* A version index's name, and for DT_VERNEED the file that must define it. */
struct version_name {
	const char *name;
	const char *file;
};

struct tables {
	Elf *elf;
	Elf_Scn *dynsym, *versym, *verneed, *verdef;
	GElf_Shdr dynsym_sh, verneed_sh, verdef_sh;
	struct version_name *names;  /* by version index */
	size_t nnames;
};

static void find_sections(struct tables *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(t->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM && !t->dynsym) {
			t->dynsym = scn;
			t->dynsym_sh = sh;
		} else if (sh.sh_type == SHT_GNU_versym && !t->versym) {
			t->versym = scn;
		} else if (sh.sh_type == SHT_GNU_verneed && !t->verneed) {
			t->verneed = scn;
			t->verneed_sh = sh;
		} else if (sh.sh_type == SHT_GNU_verdef && !t->verdef) {
			t->verdef = scn;
			t->verdef_sh = sh;
		}
	}
}

static void name_version(struct tables *t, size_t index, const char *name, const char *file)
{
	/* Indexes are 15 bits; the table grows to the largest seen. */
	if (index >= 0x8000 || !name)
		return;
	if (index >= t->nnames) {
		/* grown geometrically: one realloc per new index was quadratic */
		size_t want = index + 1 > 2 * t->nnames ? index + 1 : 2 * t->nnames;

		if (want > 0x8000)
			want = 0x8000;
		t->names = gt_xrealloc(t->names, want * sizeof(*t->names));
		memset(t->names + t->nnames, 0, (want - t->nnames) * sizeof(*t->names));
		t->nnames = want;
	}
	t->names[index].name = name;
	t->names[index].file = file;
}

/* DT_VERNEED: each file needed, and the versions required from it. */
static void read_verneed(struct tables *t)
{
	Elf_Data *d = t->verneed ? elf_getdata(t->verneed, NULL) : NULL;
	GElf_Verneed vn;
	GElf_Vernaux va;
	size_t off = 0, aoff, guard = 0;

	while (d && guard++ < 4096 && gelf_getverneed(d, (int)off, &vn)) {
		const char *file = elf_strptr(t->elf, t->verneed_sh.sh_link, vn.vn_file);
		size_t k;

		aoff = off + vn.vn_aux;
		for (k = 0; k < vn.vn_cnt && gelf_getvernaux(d, (int)aoff, &va); k++) {
			name_version(t, va.vna_other, elf_strptr(t->elf, t->verneed_sh.sh_link, va.vna_name), file);
			if (!va.vna_next)
				break;
			aoff += va.vna_next;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
}

/* DT_VERDEF: the versions this file defines (the first aux is the name). */
static void read_verdef(struct tables *t)
{
	Elf_Data *d = t->verdef ? elf_getdata(t->verdef, NULL) : NULL;
	GElf_Verdef vd;
	GElf_Verdaux va;
	size_t off = 0, guard = 0;

	while (d && guard++ < 4096 && gelf_getverdef(d, (int)off, &vd)) {
		if (!(vd.vd_flags & VER_FLG_BASE) && gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
			name_version(t, vd.vd_ndx, elf_strptr(t->elf, t->verdef_sh.sh_link, va.vda_name), NULL);
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
}

/* Appends to an array that read_dynsym sized for every symbol of the
 * table: no realloc per symbol (one per symbol copied the whole array each
 * time under ASan's allocator: 0.6 s of a 0.7 s traced run in make check). */
static void push(struct host_symbol *v, size_t *n, const struct host_symbol *s)
{
	v[(*n)++] = *s;
}

/* One .dynsym entry, sorted into needed or defined (local and hidden ones
 * bind nothing from outside and are left out). */
static void take_symbol(struct tables *t, struct host_symbols *out, const GElf_Sym *sym, const char *name,
			GElf_Versym ver)
{
	int bind = GELF_ST_BIND(sym->st_info), vis = GELF_ST_VISIBILITY(sym->st_other);
	size_t index = ver & 0x7fff;
	const struct version_name *vn = index >= 2 && index < t->nnames ? &t->names[index] : NULL;
	struct host_symbol s = { 0 };

	if (!name || !name[0] || (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE))
		return;
	s.weak = bind == STB_WEAK;
	s.version = vn ? vn->name : NULL;
	s.name = name;
	if (sym->st_shndx == SHN_UNDEF) {
		s.file = vn ? vn->file : NULL;
		push(out->needed, &out->nneeded, &s);
	} else if (vis == STV_DEFAULT || vis == STV_PROTECTED) {
		s.hidden = (ver & 0x8000) != 0;
		push(out->defined, &out->ndefined, &s);
	}
}

static void read_dynsym(struct tables *t, struct host_symbols *out)
{
	Elf_Data *syms = elf_getdata(t->dynsym, NULL);
	Elf_Data *vers = t->versym ? elf_getdata(t->versym, NULL) : NULL;
	GElf_Sym sym;
	GElf_Versym ver;
	size_t i, n;

	if (!syms || !t->dynsym_sh.sh_entsize)
		return;
	n = syms->d_size / t->dynsym_sh.sh_entsize;
	if (n < 2)
		return;
	/* room for every entry but the null one, in each list */
	out->needed = gt_xmalloc((n - 1) * sizeof(*out->needed));
	out->defined = gt_xmalloc((n - 1) * sizeof(*out->defined));
	for (i = 1; i < n && gelf_getsym(syms, (int)i, &sym); i++) {
		if (!vers || !gelf_getversym(vers, (int)i, &ver))
			ver = 1;  /* VER_NDX_GLOBAL: unversioned */
		take_symbol(t, out, &sym, elf_strptr(t->elf, t->dynsym_sh.sh_link, sym.st_name), ver);
	}
}

/* djb2, as the loader's DT_GNU_HASH: cheap, and names spread well. */
static size_t name_hash(const char *name)
{
	size_t h = 5381;

	while (*name)
		h = h * 33 + (unsigned char)*name++;
	return h;
}

/* The index of defined by name: each question is then one probe, where a
 * sorted copy cost a qsort of every table (tens of thousands of strcmp for
 * a scope of 25 libraries, most of the symbol check's time). */
static void index_defined(struct host_symbols *s)
{
	size_t i, slot, mask;

	for (s->nslots = 16; s->nslots < 2 * s->ndefined; s->nslots *= 2)
		;
	mask = s->nslots - 1;
	s->by_name = gt_xcalloc(s->nslots, sizeof(*s->by_name));
	for (i = 0; i < s->ndefined; i++) {
		for (slot = name_hash(s->defined[i].name) & mask; s->by_name[slot]; slot = (slot + 1) & mask)
			;
		s->by_name[slot] = i + 1;
	}
}

bool host_symbols_read(const char *path, struct host_symbols *out)
{
	struct tables t = { 0 };
	struct stat st;
	int fd;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(out->error, sizeof(out->error), "cannot open: %s", strerror(errno));
		return false;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(out->error, sizeof(out->error), "cannot open: not a regular file");
		close(fd);
		return false;
	}
	elf_version(EV_CURRENT);
	t.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!t.elf || elf_kind(t.elf) != ELF_K_ELF) {
		snprintf(out->error, sizeof(out->error), "not an ELF file");
	} else {
		find_sections(&t);
		out->versioned = t.verdef != NULL;
		read_verneed(&t);
		read_verdef(&t);
		if (t.dynsym)
			read_dynsym(&t, out);
		index_defined(out);
		out->ok = t.dynsym != NULL;
		if (!out->ok)
			snprintf(out->error, sizeof(out->error), "no dynamic symbol table");
	}
	free(t.names);
	/* The names point into the tables libelf read (ELF_C_READ: its own
	 * memory, not a mapping a shrinking file could fault), kept until
	 * host_symbols_free; the file is no longer needed. */
	if (t.elf)
		elf_cntl(t.elf, ELF_C_FDDONE);
	out->elf = t.elf;
	close(fd);
	return out->ok;
}

void host_symbols_free(struct host_symbols *s)
{
	free(s->needed);
	free(s->defined);
	free(s->by_name);
	if (s->elf)
		elf_end(s->elf);
	memset(s, 0, sizeof(*s));
}

bool host_symbols_define(const struct host_symbols *s, const char *name, const char *version)
{
	size_t slot, mask = s->nslots - 1;

	if (!s->by_name)
		return false;
	for (slot = name_hash(name) & mask; s->by_name[slot]; slot = (slot + 1) & mask) {
		const struct host_symbol *d = &s->defined[s->by_name[slot] - 1];

		if (strcmp(d->name, name) != 0)
			continue;
		if (!version && !d->hidden)
			return true;
		if (version && (!d->version || !s->versioned || strcmp(d->version, version) == 0))
			return true;
	}
	return false;
}
