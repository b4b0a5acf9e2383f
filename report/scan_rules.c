/* The findings of gputrace scan, over the set of copies a host holds:
 * duplicate-library, shadowed-library, driver-stub, mixed-versions, and the
 * files the loader would refuse (broken-symlink, wrong-architecture); and over
 * --for's choices, a folder on LD_LIBRARY_PATH that shadows the consumer's own
 * copy (shadowed-library). */
#define _GNU_SOURCE
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/driver_stack.h"
#include "report/scan_report.h"
#include "report/symbol_check.h"

/* Places a program with no RPATH/RUNPATH of its own gets libraries from. */
static bool default_search(const struct host_copy *c)
{
	return strcmp(c->where, "ld.so.cache") == 0 || strcmp(c->where, "LD_LIBRARY_PATH") == 0 ||
	       strcmp(c->where, "ld.so.conf") == 0 || strcmp(c->where, "default") == 0 || c->in_cache;
}

/* The name the loader knows a copy by: its SONAME, else its file name. */
static const char *load_name(const struct host_copy *c)
{
	const char *base = strrchr(c->path, '/');

	return c->elf.ok && c->elf.soname ? c->elf.soname : (base ? base + 1 : c->path);
}

static json_t *copy_evidence(struct gt_finding *f, const struct host_copy *c, const char *fmt_what)
{
	json_t *e = gt_evidence_add(f, "%s %s %s [%s]%s%s%s%s%s%s", fmt_what, c->path, c->version, c->where,
				    c->has_package ? " " : "", c->has_package ? c->package.manager : "",
				    c->has_package ? ":" : "", c->has_package ? c->package.name : "",
				    c->has_package ? " " : "", c->has_package ? c->package.version : "");
	gt_evidence_str(e, "path", c->path);
	gt_evidence_str(e, "real_path", c->real_path);
	gt_evidence_str(e, "version", c->version);
	gt_evidence_str(e, "where", c->where);
	gt_evidence_str(e, "component", c->fi.component);
	if (c->has_package) {
		gt_evidence_str(e, "package", c->package.name);
		gt_evidence_str(e, "package_version", c->package.version);
	}
	return e;
}

static bool same_file(const struct host_copy *a, const struct host_copy *b)
{
	return a->real_path && b->real_path && strcmp(a->real_path, b->real_path) == 0;
}

/* Two files under one SONAME: which one a program gets depends on its search. */
static void duplicates(const struct host_scan *s, struct gt_findings *out)
{
	struct gt_finding *f;
	size_t i, k, j;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *a = &s->copies[i];
		bool visible = default_search(a), first = true;

		if (!a->real_path || !a->elf.ok)
			continue;
		for (j = 0; j < i; j++)  /* each name once, from its first copy */
			if (s->copies[j].real_path && strcmp(load_name(&s->copies[j]), load_name(a)) == 0)
				break;
		if (j < i)
			continue;
		f = NULL;
		for (k = i + 1; k < s->ncopies; k++) {
			const struct host_copy *b = &s->copies[k];
			bool already = false;

			if (!b->real_path || strcmp(load_name(a), load_name(b)) != 0 || same_file(a, b))
				continue;
			for (j = i + 1; j < k; j++)
				already |= same_file(&s->copies[j], b) && strcmp(load_name(&s->copies[j]), load_name(b)) == 0;
			if (already)
				continue;
			visible |= default_search(b);
			if (!f) {
				f = gt_finding_add(out, "duplicate-library", GT_SEV_INFO, NULL,
						   "Know which copy each program gets: gputrace scan --for PROGRAM "
						   "shows it; remove copies that nothing should load.",
						   "%s: several copies on this host", load_name(a));
				copy_evidence(f, a, "copy");
				first = false;
			}
			copy_evidence(f, b, "copy");
		}
		/* Two copies the default search can both reach are a real hazard. */
		if (f && visible && !first)
			f->severity = GT_SEV_WARNING;
	}
}

/* A copy in an LD_LIBRARY_PATH folder hides the ld.so.cache one from every
 * program whose own RUNPATH does not name it first. */
static void shadowed(const struct host_scan *s, struct gt_findings *out)
{
	const struct host_ldcache_entry *ce;
	struct gt_finding *f;
	char fix[2 * PATH_MAX];
	size_t i, k;

	for (i = 0; s->have_cache && i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];

		/* the loader skips what it cannot load: only a loadable copy hides another */
		if (strcmp(c->where, "LD_LIBRARY_PATH") != 0 || !c->real_path || !c->elf.ok ||
		    c->elf.elf_class != ELFCLASS64 || c->elf.machine != EM_X86_64)
			continue;
		ce = host_ldcache_lookup(&s->cache, load_name(c));
		if (!ce)
			continue;
		for (k = 0; k < s->ncopies; k++)
			if (strcmp(s->copies[k].path, ce->path) == 0 && same_file(&s->copies[k], c))
				break;
		if (k < s->ncopies)
			continue;
		snprintf(fix, sizeof(fix), "Remove the folder of %s from LD_LIBRARY_PATH, unless every "
			 "program should get that copy instead of %s.", c->path, ce->path);
		f = gt_finding_add(out, "shadowed-library", GT_SEV_WARNING, NULL, fix,
				   "LD_LIBRARY_PATH's %s hides %s from ld.so.cache", c->path, ce->path);
		copy_evidence(f, c, "found first:");
		gt_evidence_str(gt_evidence_add(f, "ld.so.cache names %s for %s", ce->path, load_name(c)),
				"shadowed", ce->path);
	}
}

static void stubs(const struct host_scan *s, struct gt_findings *out)
{
	struct gt_finding *f;
	size_t i;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];

		if (!c->stub || !default_search(c))
			continue;
		f = gt_finding_add(out, "driver-stub", GT_SEV_ERROR, NULL,
				   "Remove the stubs folder from LD_LIBRARY_PATH and /etc/ld.so.conf.d/, run "
				   "ldconfig; the stub is for linking only, programs need the driver's libcuda.so.1.",
				   "the CUDA driver stub %s is where programs look for libcuda.so.1 [%s]",
				   c->path, c->where);
		copy_evidence(f, c, "stub:");
	}
}

static void folder_of(const char *path, char *out, size_t cap)
{
	char *slash;

	snprintf(out, cap, "%s", path);
	slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(out, cap, ".");
}

/* cuDNN or cuBLAS parts of different versions in one folder: one finding per
 * folder and family. */
static void mixed(const struct host_scan *s, struct gt_findings *out)
{
	char dir_i[PATH_MAX], dir_k[PATH_MAX], vi[32], vk[32];
	struct gt_finding *f;
	size_t i, k, j;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *a = &s->copies[i];
		bool done = false;

		if (strcmp(a->fi.family, "cudnn") && strcmp(a->fi.family, "cublas"))
			continue;
		folder_of(a->path, dir_i, sizeof(dir_i));
		for (j = 0; j < i && !done; j++) {  /* this folder and family judged already? */
			folder_of(s->copies[j].path, dir_k, sizeof(dir_k));
			done = strcmp(s->copies[j].fi.family, a->fi.family) == 0 && strcmp(dir_i, dir_k) == 0;
		}
		if (done)
			continue;
		gt_version_key(a->version, vi, sizeof(vi));
		for (k = i + 1; k < s->ncopies; k++) {
			const struct host_copy *b = &s->copies[k];

			folder_of(b->path, dir_k, sizeof(dir_k));
			gt_version_key(b->version, vk, sizeof(vk));
			if (strcmp(a->fi.family, b->fi.family) || strcmp(dir_i, dir_k) || !strchr(vi, '.') ||
			    !strchr(vk, '.') || gt_version_major(vi) != gt_version_major(vk) || strcmp(vi, vk) == 0)
				continue;
			f = gt_finding_add(out, "mixed-versions", GT_SEV_ERROR, NULL,
					   "Reinstall the library so that all its parts come from one release, "
					   "and remove the stale files of the other.",
					   "%s parts of versions %s and %s side by side in %s", a->fi.family, vi, vk,
					   dir_i);
			copy_evidence(f, a, "part:");
			copy_evidence(f, b, "part:");
			break;
		}
	}
}

static void refused(const struct host_scan *s, struct gt_findings *out)
{
	struct gt_finding *f;
	size_t i;

	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];

		if (!c->real_path) {
			f = gt_finding_add(out, "broken-symlink", GT_SEV_WARNING, NULL,
					   "Remove the link or point it at the file it was meant for.",
					   "%s is a broken link: %s", c->path, c->chain);
			gt_evidence_str(copy_evidence(f, c, "link:"), "chain", c->chain);
		} else if (!c->elf.ok) {
			/* Named like a library, not one: in the loader's folders it
			 * ends a search (the loader gives up on an invalid ELF file). */
			f = gt_finding_add(out, "wrong-architecture",
					   GT_SEV_WARNING, NULL,
					   "Remove the file or move it out of the loader's folders.",
					   "%s is not a loadable library: %s", c->path, c->elf.error);
			copy_evidence(f, c, "file:");
		} else if (c->elf.ok && (c->elf.elf_class != ELFCLASS64 || c->elf.machine != EM_X86_64) &&
			   default_search(c)) {
			f = gt_finding_add(out, "wrong-architecture", GT_SEV_WARNING, NULL,
					   "The loader skips it on this machine: remove it, or install the "
					   "x86-64 build.",
					   "%s is a %d-bit library for machine %d, not x86-64", c->path,
					   c->elf.elf_class == ELFCLASS32 ? 32 : 64, c->elf.machine);
			copy_evidence(f, c, "file:");
		}
	}
}

static const char *driver_copy_problem(const struct host_scan *s, const struct host_copy *c)
{
	bool compat = gt_driver_is_compat(c->path, c->real_path, c->has_package ? c->package.name : NULL);

	return gt_driver_copy_problem(compat, c->version, s->kmod, s->gpus);
}

/* Is any name of this file where programs look? */
static bool any_name_searched(const struct host_scan *s, const struct host_copy *c)
{
	size_t i;

	for (i = 0; i < s->ncopies; i++)
		if ((&s->copies[i] == c || same_file(&s->copies[i], c)) && default_search(&s->copies[i]))
			return true;
	return false;
}

/* Each user-space driver copy (libcuda, libnvidia-ml) against the loaded
 * kernel module: an error where programs look for it by default, a warning
 * elsewhere (it breaks whatever puts it on the search path). */
static void driver_copies(const struct host_scan *s, struct gt_findings *out)
{
	struct gt_finding *f;
	const char *why;
	size_t i;

	if (!s->kmod[0])
		return;
	for (i = 0; i < s->ncopies; i++) {
		const struct host_copy *c = &s->copies[i];
		size_t k;

		/* One finding per file: libcuda.so, .so.1 and .so.580.95.05 are one. */
		for (k = 0; k < i && !same_file(&s->copies[k], c); k++)
			;
		if (k < i)
			continue;
		/* Link-time stubs (libcuda's, and the toolkit's libnvidia-ml in
		 * stubs/, versioned by its cuda-nvml-dev package) are no driver. */
		if (c->stub || strstr(c->path, "/stubs/") ||
		    !(strcmp(c->fi.component, "cuda") == 0 || strcmp(c->fi.family, "nvml") == 0) ||
		    !strchr(c->version, '.') || !(why = driver_copy_problem(s, c)))
			continue;
		f = gt_finding_add(out, "driver-mismatch", any_name_searched(s, c) ? GT_SEV_ERROR : GT_SEV_WARNING, NULL,
				   "Use the host's driver libraries at the kernel module's release; keep this "
				   "copy off LD_LIBRARY_PATH and out of ld.so.conf.",
				   "%s %s is not usable with the kernel module %s: %s [%s]", c->path, c->version,
				   s->kmod, why, c->where);
		copy_evidence(f, c, "driver copy:");
		gt_evidence_str(gt_evidence_add(f, "the kernel module is %s%s%s", s->kmod, s->gpus[0] ? ", GPUs: " : "",
						s->gpus), "kernel_module", s->kmod);
	}
}

void gt_scan_judge(const struct host_scan *s, struct gt_findings *out)
{
	stubs(s, out);
	driver_copies(s, out);
	mixed(s, out);
	shadowed(s, out);
	duplicates(s, out);
	refused(s, out);
}

/* The predicted set of --for: the consumer and every winner, each once. */
static void predicted_scope(const struct host_scan_for *fr, struct gt_sym_scope *scope)
{
	size_t i;

	gt_sym_scope_add(scope, fr->consumer);
	for (i = 0; i < fr->n; i++) {
		const struct host_resolution *r = &fr->items[i].res;

		if (r->winner >= 0)
			gt_sym_scope_add(scope, r->cand[r->winner].path);
	}
}

static void symbol_gap_finding(const struct gt_symbol_gap *g, struct gt_findings *out)
{
	char fix[8192], ver[256] = "";
	struct gt_finding *f;
	json_t *e;

	if (g->version)
		snprintf(ver, sizeof(ver), ", version %s", g->version);
	if (g->good_copy)
		snprintf(fix, sizeof(fix), "Make the loader take %s, which has %s: remove the folder of %s from "
			 "LD_LIBRARY_PATH, or put the good copy's folder first.", g->good_copy, g->symbol, g->provider);
	else
		snprintf(fix, sizeof(fix), "Install the %s that %s was built against (one that defines %s).",
			 strrchr(g->provider, '/') + 1, strrchr(g->consumer, '/') + 1, g->symbol);
	f = gt_finding_add(out, "missing-symbol", GT_SEV_ERROR, NULL, fix,
			   "%s would fail to load: undefined symbol: %s%s: %s lacks it",
			   strrchr(g->consumer, '/') + 1, g->symbol, ver, g->provider);
	e = gt_evidence_add(f, "%s needs %s%s", g->consumer, g->symbol, ver);
	gt_evidence_str(e, "symbol", g->symbol);
	gt_evidence_str(e, "symbol_version", g->version);
	gt_evidence_str(e, "consumer", g->consumer);
	e = gt_evidence_add(f, "provider the loader would take: %s, which does not define it", g->provider);
	gt_evidence_str(e, "path", g->provider);
	gt_evidence_str(e, "role", "provider");
	if (g->good_copy)
		gt_evidence_str(gt_evidence_add(f, "a copy that has it: %s", g->good_copy), "good_copy", g->good_copy);
}

/* The report's missing-symbol check, on paper: what each predicted object
 * needs from a predicted CUDA provider that lacks it. */
static void missing_symbols(const struct host_scan_for *fr, struct gt_findings *out)
{
	struct gt_sym_scope scope = { 0 };
	struct gt_symbol_gap *gaps = NULL;
	size_t i, ngaps = 0;

	predicted_scope(fr, &scope);
	for (i = 0; i < scope.n; i++)
		gt_symbol_gaps(&scope, i, &fr->env, &gaps, &ngaps);
	for (i = 0; i < ngaps; i++)
		symbol_gap_finding(&gaps[i], out);
	gt_symbol_gaps_free(gaps, ngaps);
	gt_sym_scope_free(&scope);
}

/* With --for: LD_LIBRARY_PATH beating a copy in the consumer's own search
 * path is the leftover-library case of the report, seen before the crash;
 * and a provider that lacks a symbol the consumer needs. */
void gt_scan_for_judge(const struct host_scan_for *fr, struct gt_findings *out)
{
	missing_symbols(fr, out);
	struct gt_finding *f;
	size_t i, k;

	for (i = 0; i < fr->n; i++) {
		const struct host_resolution *r = &fr->items[i].res;

		if (r->winner < 0 || !r->nshadowed || r->cand[r->winner].rule != GT_RULE_LD_LIBRARY_PATH)
			continue;
		f = gt_finding_add(out, "shadowed-library", GT_SEV_WARNING, NULL,
				   "Remove that folder from LD_LIBRARY_PATH for this program, or delete the "
				   "stale copy.",
				   "for %s, %s comes from LD_LIBRARY_PATH: %s", fr->consumer, r->name,
				   r->cand[r->winner].path);
		for (k = 0; k < r->nshadowed; k++)
			gt_evidence_str(gt_evidence_add(f, "%s wins over %s", r->cand[r->winner].path,
							r->shadowed[k]), "shadowed", r->shadowed[k]);
	}
}

int gt_scan_status(const struct gt_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->v[i].severity == GT_SEV_ERROR)
			return 1;
	return 0;
}
