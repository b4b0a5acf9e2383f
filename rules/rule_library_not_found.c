/* library-not-found: a CUDA library was searched for and not found, while a
 * copy is on disk somewhere the loader was not told to look. cuDNN's own way
 * of asking for libcudnn_graph.so.9.19.0, then .9.19, then .9 is not this:
 * only a name of which nothing got loaded counts. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "host/framework.h"
#include "host/elf_info.h"
#include "rules/rules.h"

/* Folders where CUDA libraries usually live, from the traced environment and
 * the usual install places. */
static const char *const patterns[] = {
	"$CUDA_HOME/lib64", "$CUDA_HOME/lib", "$CUDA_HOME/nvvm/lib64",
	"$CUDA_PATH/lib64", "$CUDA_PATH/lib", "$CUDA_PATH/nvvm/lib64",
	"$CONDA_PREFIX/lib", "$VIRTUAL_ENV/lib/python3*/site-packages/nvidia/*/lib",
	"/usr/local/cuda*/lib64", "/usr/local/cuda*/lib", "/usr/local/cuda*/nvvm/lib64",
	"/usr/lib/x86_64-linux-gnu", "/opt/conda/lib", NULL,
};

/* CUDA_HOME and CUDA_PATH name one folder to the tools that read them
 * (numba's cuda_paths, cupy, torch.utils.cpp_extension); users who treat
 * them like PATH (export CUDA_HOME=$CUDA_HOME:/usr/local/cuda-11.8, numba
 * #9216) leave those tools a folder named ":/usr/local/cuda-11.8". Where a
 * copy is found under one of the list's folders, that folder is what the
 * variable should have been. */
static bool is_folder_list_var(const char *var)
{
	return strcmp(var, "CUDA_HOME") == 0 || strcmp(var, "CUDA_PATH") == 0;
}

static bool was_tried(const struct gt_search *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->ntries; i++)
		if (s->tries[i].path && strcmp(s->tries[i].path, path) == 0)
			return true;
	return false;
}

/* The variable of a "$VAR/rest" pattern, "" for a fixed one. */
static void pattern_var(const char *pat, char *var, size_t cap)
{
	const char *slash = strchr(pat, '/');

	if (pat[0] != '$' || !slash)
		var[0] = 0;
	else
		snprintf(var, cap, "%.*s", (int)(slash - pat - 1), pat + 1);
}

/* The entry-th non-empty entry of a ':' list: its start and length. */
static bool list_entry(const char *list, size_t entry, const char **start, size_t *len)
{
	const char *p = list, *end;
	size_t k = 0;

	for (;; p = end + 1) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (end > p && k++ == entry) {
			*start = p;
			*len = (size_t)(end - p);
			return true;
		}
		if (!*end)
			return false;
	}
}

/* Expands "$VAR/rest" with the traced process's environment. A CUDA_HOME
 * or CUDA_PATH holding a list gives one expansion per non-empty entry
 * (entry = 0, 1, ...); false past the last. */
static bool expand_entry(const struct gt_process *p, const char *pat, size_t entry, char *out, size_t cap)
{
	const char *val, *start;
	char var[64];
	size_t len;

	pattern_var(pat, var, sizeof(var));
	if (!var[0])
		return entry == 0 && (size_t)snprintf(out, cap, "%s", pat) < cap;
	val = gt_process_env(p, var);
	if (!val || !*val)
		return false;
	if (!is_folder_list_var(var))
		return entry == 0 && (size_t)snprintf(out, cap, "%s%s", val, strchr(pat, '/')) < cap;
	return list_entry(val, entry, &start, &len) &&
	       (size_t)snprintf(out, cap, "%.*s%s", (int)len, start, strchr(pat, '/')) < cap;
}

static bool expand(const struct gt_process *p, const char *pat, char *out, size_t cap)
{
	return expand_entry(p, pat, 0, out, cap);
}

/* The CUDA_HOME/CUDA_PATH holding a list of folders, if any ("" if none). */
static const char *folder_list_var(const struct gt_process *p)
{
	static const char *const vars[] = { "CUDA_HOME", "CUDA_PATH", NULL };
	int k;

	for (k = 0; vars[k]; k++) {
		const char *v = gt_process_env(p, vars[k]);

		if (v && strchr(v, ':'))
			return vars[k];
	}
	return "";
}

/* A versioned file of name in folder: name.N..., or auditwheel's renamed
 * copy (libnvrtc-672ee683.so.11.2 in torch/lib). */
static bool versioned_in(const struct gt_proc_model *m, const char *folder, const char *name, char *out, size_t cap)
{
	char pat[4096 + 256], **files;
	int form;
	size_t n;
	bool found = false;

	for (form = 0; form < 2 && !found; form++) {
		int len = form ? snprintf(pat, sizeof(pat), "%s/%.*s-????????.so.[0-9]*", folder,
					  (int)(strlen(name) - 3), name) :
				 snprintf(pat, sizeof(pat), "%s/%s.[0-9]*", folder, name);

		if (len < 0 || (size_t)len >= sizeof(pat))
			continue;
		n = gt_facts_glob(m->facts, pat, false, &files);
		found = n > 0 && (size_t)snprintf(out, cap, "%s", files[0]) < cap;
		host_free_strings(files, n);
	}
	return found;
}

/* An unversioned development name (libnvrtc.so, libcuda.so's kin) that no
 * wheel or runtime package ships, while the process's own install (its
 * VIRTUAL_ENV, CONDA_PREFIX, CUDA_HOME, or the folders of the libraries it
 * loaded) has the versioned file: cuDNN 8 asking for libnvrtc.so beside the
 * nvrtc wheel's libnvrtc.so.11.2. The host's fixed folders are not taken:
 * another toolkit's libnvrtc.so is another CUDA major. */
static bool versioned_only(const struct gt_proc_model *m, const struct gt_search *s, char *out, size_t cap)
{
	static const char *const own[] = { "$VIRTUAL_ENV/lib/python3*/site-packages/nvidia/*/lib",
					   "$CONDA_PREFIX/lib", "$CUDA_HOME/lib64", "$CUDA_HOME/lib", NULL };
	char folder[4096];
	size_t i;
	int k;
	bool found = false;

	if (strchr(s->name, '/') || strlen(s->name) < 4 || strcmp(s->name + strlen(s->name) - 3, ".so") != 0)
		return false;
	for (k = 0; own[k] && !found; k++)
		found = expand(m->proc, own[k], folder, sizeof(folder)) &&
			versioned_in(m, folder, s->name, out, cap);
	for (i = 0; i < m->nlibs && !found; i++) {
		gt_folder_of(m->libs[i].obj->path, folder, sizeof(folder));
		found = versioned_in(m, folder, s->name, out, cap);
	}
	return found;
}

/* Is base "STEM-XXXXXXXX.so.VER", auditwheel's (and PyTorch's libtorch
 * builds') renamed copy of "STEM.so.VER": eight hex digits of the file's
 * hash before ".so", the version left as it was. */
static bool hashed_name_of(const char *base, const char *name)
{
	const char *so = strstr(name, ".so.");
	size_t stem = so ? (size_t)(so - name) : 0, i;

	if (!so || strncmp(base, name, stem) != 0 || base[stem] != '-')
		return false;
	for (i = stem + 1; i < stem + 9; i++)
		if (!((base[i] >= '0' && base[i] <= '9') || (base[i] >= 'a' && base[i] <= 'f')))
			return false;
	return strcmp(base + stem + 9, so) == 0;
}

/* The library asked for, in a folder the loader searched, under another
 * name: the loader opens FOLDER/NAME and matches no SONAME there, so a
 * file whose SONAME is the name asked for (libnvrtc-builtins.so in torch
 * 1.8.1's wheel, where NVRTC 11.1 asks for libnvrtc-builtins.so.11.1; a
 * libcudnn.so.8.9.7 whose libcudnn.so.8 link was lost) or a hashed copy of
 * it (libnvrtc-builtins-2dc4bf68.so.11.8 in libtorch 2.0.0+cu118) is there
 * and not found. Only a versioned name: an unversioned one is the dev
 * branch's. how says which of the two it is. */
static bool renamed_copy(const struct gt_proc_model *m, const struct gt_search *s, char *out, size_t cap,
			 const char **how)
{
	const char *so = strstr(s->name, ".so.");
	char folder[4096], last[4096] = "", pat[4096 + 256], **files;
	struct host_elf_info info;
	size_t i, j, n;
	bool found = false;

	if (!so || strchr(s->name, '/'))
		return false;
	for (i = 0; i < s->ntries && !found; i++) {
		if (!s->tries[i].path)
			continue;
		gt_folder_of(s->tries[i].path, folder, sizeof(folder));
		if (!folder[0] || strcmp(folder, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", folder);
		/* STEM.so, STEM.so.*, STEM-????????.so.*: never another library of
		 * the stem's (libcudnn_ops for libcudnn) */
		if ((size_t)snprintf(pat, sizeof(pat), "%s/%.*s[.-]*so*", folder, (int)(so - s->name), s->name) >=
		    sizeof(pat))
			continue;
		n = gt_facts_glob(m->facts, pat, false, &files);
		for (j = 0; j < n && !found; j++) {
			const char *base = gt_base_name(files[j]);

			if (strcmp(base, s->name) == 0 || was_tried(s, files[j]) || strstr(files[j], "/stubs/"))
				continue;
			memset(&info, 0, sizeof(info));
			if (hashed_name_of(base, s->name))
				*how = "hashed";
			else if (gt_facts_elf(m->facts, files[j], &info) && info.soname && strcmp(info.soname, s->name) == 0)
				*how = "soname";
			else
				*how = NULL;
			host_elf_free(&info);
			found = *how && (size_t)snprintf(out, cap, "%s", files[j]) < cap;
		}
		host_free_strings(files, n);
	}
	return found;
}

/* NVRTC's other variant of the asked file: "STEM.alt.so.VER" in a folder
 * the loader searched or beside the requester. CUDA 13.0's libnvrtc.so.13
 * asks for libnvrtc-builtins.so.13.0 and its libnvrtc.alt.so.13 for
 * libnvrtc-builtins.alt.so.13.0 (their strings, read on this build VM's
 * toolkit): each opens its own variant's name only, so an install that
 * shipped the .alt builtins alone (dorado 0.9.5's lib/, nanoporetech/dorado
 * #1319) leaves the plain NVRTC without any. */
/* The folder of the requester's real file, where "beside it" is. */
static bool requester_folder(const struct gt_proc_model *m, const struct gt_search *s, char *folder, size_t cap)
{
	char real[4096];

	if (!s->requester || s->requester[0] != '/')
		return false;
	if (!gt_facts_real_path(m->facts, s->requester, real, sizeof(real)))
		snprintf(real, sizeof(real), "%s", s->requester);
	gt_folder_of(real, folder, cap);
	return folder[0] != 0;
}

/* folder/STEM.alt.so.VER for the asked STEM.so.VER (so: its ".so."). */
static bool alt_in(const struct gt_proc_model *m, const char *folder, const struct gt_search *s, const char *so,
		   char *out, size_t cap)
{
	return folder[0] &&
	       (size_t)snprintf(out, cap, "%s/%.*s.alt%s", folder, (int)(so - s->name), s->name, so) < cap &&
	       gt_facts_exists(m->facts, out);
}

static bool alt_variant(const struct gt_proc_model *m, const struct gt_search *s, char *out, size_t cap)
{
	const char *so = strstr(s->name, ".so.");
	char folder[4096];
	size_t i;

	if (!so || strchr(s->name, '/') || strstr(s->name, ".alt.") || strncmp(s->name, "libnvrtc", 8) != 0)
		return false;  /* NVRTC's variants only: the message names them */
	for (i = 0; i < s->ntries; i++) {
		if (!s->tries[i].path)
			continue;
		gt_folder_of(s->tries[i].path, folder, sizeof(folder));
		if (alt_in(m, folder, s, so, out, cap))
			return true;
	}
	return requester_folder(m, s, folder, sizeof(folder)) && alt_in(m, folder, s, so, out, cap);
}

/* A copy beside the library that asked: a requester without RUNPATH
 * $ORIGIN does not search its own folder (TensorRT since 8.4.1 dropped it,
 * so libnvinfer's dlopen of its builder resource misses the file next to it). */
static bool copy_beside_requester(const struct gt_proc_model *m, const struct gt_search *s, char *out, size_t cap)
{
	char folder[4096];

	if (strchr(s->name, '/') || !requester_folder(m, s, folder, sizeof(folder)))
		return false;
	return (size_t)snprintf(out, cap, "%s/%s", folder, s->name) < cap && gt_facts_exists(m->facts, out) &&
	       !was_tried(s, out);
}

/* A copy of the name on disk where this process was steered or the usual
 * places; via gets the variable whose folder held it ("" for a fixed
 * place or beside the requester). */
static bool copy_elsewhere(const struct gt_proc_model *m, const struct gt_search *s, char *out, size_t cap,
			   char *via, size_t via_cap)
{
	char pat[4096], **dirs;
	size_t i, n, entry;
	int k;
	bool found = false;

	via[0] = 0;
	if (copy_beside_requester(m, s, out, cap))
		return true;
	for (k = 0; patterns[k] && !found; k++) {
		for (entry = 0; !found && expand_entry(m->proc, patterns[k], entry, pat, sizeof(pat)); entry++) {
			n = gt_facts_glob(m->facts, pat, true, &dirs);
			for (i = 0; i < n && !found; i++) {
				snprintf(out, cap, "%s/%s", dirs[i], s->name);
				found = gt_facts_exists(m->facts, out) && !was_tried(s, out) &&
					!strstr(out, "/stubs/");
			}
			host_free_strings(dirs, n);
		}
		if (found)
			pattern_var(patterns[k], via, via_cap);
	}
	return found;
}

/* The entry of a CUDA_HOME/CUDA_PATH list that holds copy: the folder the
 * variable should name. */
static bool list_entry_holding(const struct gt_process *p, const char *var, const char *copy, char *out,
			       size_t cap)
{
	const char *val = gt_process_env(p, var), *start;
	size_t entry, len;

	if (!val || !strchr(val, ':'))
		return false;
	for (entry = 0; list_entry(val, entry, &start, &len); entry++)
		if (strncmp(copy, start, len) == 0 && copy[len] == '/')
			return (size_t)snprintf(out, cap, "%.*s", (int)len, start) < cap;
	return false;
}

/* Is have another release than want: another major, or with same_major the
 * same major and another minor, where want names its minor (NVRTC opens
 * the builtins of its own release only, libnvrtc-builtins.so.11.1, and
 * TensorRT its builder resource of its exact version). */
static bool other_release(const char *have, const char *want, bool same_major)
{
	const char *hd = strchr(have, '.'), *wd = strchr(want, '.');

	if (gt_version_major(have) <= 0)
		return false;
	if (!same_major)
		return gt_version_major(have) != gt_version_major(want);
	return hd && wd && gt_version_major(have) == gt_version_major(want) && atoi(hd + 1) != atoi(wd + 1);
}

/* A file of another major of the library in folder: libcudnn.so.9* where
 * libcudnn.so.8 was asked for (stem "libcudnn"); with same_major, of
 * another minor of the same major (other_release). */
static bool other_major_in(struct gt_host_facts *facts, const char *folder, const char *stem, int stem_len,
			   const struct gt_family_info *want, bool same_major, char *out, size_t cap)
{
	struct gt_family_info fi;
	char pat[4096 + 256], **files;
	bool found = false;
	size_t i, n;

	if ((size_t)snprintf(pat, sizeof(pat), "%s/%.*s.so.*", folder, stem_len, stem) >= sizeof(pat))
		return false;
	n = gt_facts_glob(facts, pat, false, &files);
	for (i = 0; i < n && !found; i++)
		if (gt_classify(files[i], &fi) && strcmp(fi.component, want->component) == 0 &&
		    other_release(fi.version, want->version, same_major) && !strstr(files[i], "/stubs/")) {
			snprintf(out, cap, "%s", files[i]);
			found = true;
		}
	host_free_strings(files, n);
	return found;
}

/* Another major of the name's library, loaded or on disk where this process
 * was steered (the folders of its CUDA_HOME, CUDA_PATH, CONDA_PREFIX,
 * VIRTUAL_ENV) or where the loader looked: libcudnn.so.9 where libcudnn.so.8
 * was asked for. A newcomer told only "not found" installs the wrong thing;
 * the other major says what the program was built for and what the host
 * has. The host's fixed folders are not searched: what they hold says
 * nothing of this process. With same_major, another minor of the asked
 * major, on disk only (a loaded one of the major ends the rule early). */
static bool other_major_at(const struct gt_proc_model *m, const struct gt_search *s,
			   const struct gt_family_info *want, bool same_major, char *out, size_t cap)
{
	const char *so = strstr(s->name, ".so.");
	char folder[4096];
	size_t i;
	int k;

	for (i = 0; i < m->nlibs && !same_major; i++)
		if (strcmp(m->libs[i].fi.component, want->component) == 0 &&
		    gt_version_major(m->libs[i].file_version) != gt_version_major(want->version)) {
			snprintf(out, cap, "%s", m->libs[i].obj->path);
			return true;
		}
	if (!so)
		return false;
	for (k = 0; patterns[k]; k++)
		if (patterns[k][0] == '$' && expand(m->proc, patterns[k], folder, sizeof(folder)) &&
		    !strchr(folder, '*') &&
		    other_major_in(m->facts, folder, s->name, (int)(so - s->name), want, same_major, out, cap))
			return true;
	for (i = 0; i < s->ntries; i++) {
		if (!s->tries[i].path)
			continue;
		gt_folder_of(s->tries[i].path, folder, sizeof(folder));
		if (folder[0] &&
		    other_major_in(m->facts, folder, s->name, (int)(so - s->name), want, same_major, out, cap))
			return true;
	}
	return false;
}

/* A library of this component and major is loaded: the name was one of
 * several tried for it (cuDNN asks for .so.9.19.0, then .so.9.19, then
 * .so.9). Another major is no stand-in: libcudart.so.10.1 not found while
 * torch's libcudart.so.12 is loaded is still not found. */
static bool loaded_same_major(const struct gt_proc_model *m, const struct gt_family_info *fi)
{
	int want = gt_version_major(fi->version);
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (strcmp(m->libs[i].fi.component, fi->component) == 0 &&
		    (want < 0 || gt_version_major(m->libs[i].file_version) < 0 ||
		     gt_version_major(m->libs[i].file_version) == want))
			return true;
	return false;
}

/* Another major of the component is loaded (cupy asks for the CUDA 12 names
 * before taking the 13 ones; TensorFlow, JAX, bitsandbytes probe several):
 * the failed name was one probe among others. */
static bool loaded_other_major(const struct gt_proc_model *m, const struct gt_family_info *fi)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (strcmp(m->libs[i].fi.component, fi->component) == 0)
			return true;
	return false;
}

static bool family_loaded(const struct gt_proc_model *m, const struct gt_family_info *fi)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (strcmp(m->libs[i].fi.family, fi->family) == 0)
			return true;
	return false;
}

/* Is name a DT_NEEDED of a requester whose load was undone (it is unmapped
 * again): an ONNX Runtime CUDA provider without libcublasLt.so.11, mmcv's
 * _ext without libcudart.so.10.1? A dependency, not a probe. */
static bool needed_by_undone_load(const struct gt_proc_model *m, const struct gt_search *s)
{
	const struct gt_process *p = m->proc;
	struct host_elf_info info;
	bool closed = false, needed = false;
	size_t i;

	for (i = 0; i < p->nobjects && !closed; i++)
		closed = p->objects[i].closed && p->objects[i].path && s->requester &&
			 strcmp(p->objects[i].path, s->requester) == 0;
	if (!closed)
		return false;
	gt_facts_elf(m->facts, s->requester, &info);
	for (i = 0; i < info.nneeded && !needed; i++)
		needed = strcmp(info.needed[i], s->name) == 0;
	host_elf_free(&info);
	return needed;
}

/* Was the family needed, not merely probed? A DT_NEEDED of a load that was
 * undone without it; or the framework that asked declares it was built for
 * this family and this version (TensorFlow's build_info.py: cuda_version
 * '11.0' for libcudart.so.11.0), so that without it the framework ran on
 * the CPU. cupy-cuda13x asking for libcublasLt.so.12 declares 13: a probe.
 * Says which in `why`. */
static bool family_needed(const struct gt_proc_model *m, const struct gt_search *s,
			  const struct gt_family_info *fi, char *why, size_t cap)
{
	struct host_needs needs;
	size_t i;
	bool yes = false;

	if (needed_by_undone_load(m, s)) {
		snprintf(why, cap, "%s needs it (DT_NEEDED): its load was undone", s->requester);
		return true;
	}
	if (!s->requester || !gt_facts_framework_needs(m->facts, s->requester, &needs))
		return false;
	for (i = 0; i < needs.n && !yes; i++)
		if (strcmp(needs.v[i].family, fi->family) == 0 &&
		    host_version_satisfies(needs.v[i].spec, fi->version) != HOST_UNMET) {
			snprintf(why, cap, "%s declares it was built for it (%s, in %s): without it, it "
				 "could not use the GPU", needs.v[i].framework, needs.v[i].what,
				 needs.v[i].declared_by);
			yes = true;
		}
	host_needs_free(&needs);
	return yes;
}

/* A failed load is judged by what followed: a probe answered by another
 * major is info (a warning when the process failed anyway); an error when
 * the process failed or the family was needed; else, in a process that
 * succeeded, a warning (it may have gone on on the CPU). */
static enum gt_severity not_found_severity(const struct gt_proc_model *m, const struct gt_family_info *fi,
					   bool failed, bool needed)
{
	if (needed)
		return GT_SEV_ERROR;
	if (loaded_other_major(m, fi))
		return failed ? GT_SEV_WARNING : GT_SEV_INFO;
	return failed ? GT_SEV_ERROR : GT_SEV_WARNING;
}

/* The requester's own search list: a library's dlopen searches its own
 * DT_RUNPATH (or DT_RPATH), not the program's. Said for every failed search
 * a library made, so that "found only through its RUNPATH" and "missed,
 * it has none" read in the evidence. */
static void requester_search_evidence(const struct gt_proc_model *m, const struct gt_search *s,
				      struct gt_finding *f)
{
	struct host_elf_info info = { 0 };
	json_t *e;

	if (!s->requester || s->requester[0] != '/' || (m->proc->exe && strcmp(s->requester, m->proc->exe) == 0) ||
	    !gt_facts_elf(m->facts, s->requester, &info)) {
		host_elf_free(&info);
		return;
	}
	if (info.runpath || info.rpath) {
		e = gt_evidence_add(f, "%s searches its own %s %s (a library's dlopen uses its own list, not "
				    "the program's)", gt_base_name(s->requester), info.runpath ? "RUNPATH" : "RPATH",
				    info.runpath ? info.runpath : info.rpath);
		gt_evidence_str(e, info.runpath ? "runpath" : "rpath", info.runpath ? info.runpath : info.rpath);
	} else {
		e = gt_evidence_add(f, "%s has no RUNPATH or RPATH: its dlopen searches only LD_LIBRARY_PATH, "
				    "ld.so.cache and the default folders", gt_base_name(s->requester));
		gt_evidence_str(e, "runpath", NULL);
	}
	gt_evidence_str(e, "requester", s->requester);
	host_elf_free(&info);
}

/* ldconfig lists a file under its SONAME, not its name: a copy whose SONAME
 * differs from the name asked for is never found through ld.so.cache
 * (TensorRT's libnvinfer_builder_resource.so.8.5.3 is
 * "do_not_link_against_nvinfer_builder_resource"). */
static void soname_evidence(const struct gt_proc_model *m, const struct gt_search *s, const char *copy,
			    struct gt_finding *f)
{
	struct host_elf_info info = { 0 };
	json_t *e;

	if (gt_facts_elf(m->facts, copy, &info) && info.soname && strcmp(info.soname, s->name) != 0) {
		e = gt_evidence_add(f, "its SONAME is %s: ld.so.cache lists it under that name only, so only a "
				    "folder searched directly (LD_LIBRARY_PATH, the requester's RUNPATH) finds %s",
				    info.soname, s->name);
		gt_evidence_str(e, "soname", info.soname);
	}
	host_elf_free(&info);
}

/* The driver a failed "libcuda.so" points at: the loaded libcuda.so.1, else
 * the one the loader would take for that name. */
static bool driver_at(const struct gt_proc_model *m, const struct gt_search *s, char *out, size_t cap)
{
	const struct gt_lib *drv = gt_model_find(m, "cuda");
	struct host_resolution r;
	bool found;

	if (drv) {
		snprintf(out, cap, "%s", drv->obj->path);
		return true;
	}
	gt_facts_resolve(m->facts, "libcuda.so.1", s->requester, NULL, 0, gt_process_env(m->proc, "LD_LIBRARY_PATH"),
			 &r);
	found = r.winner >= 0 && (size_t)snprintf(out, cap, "%s", r.cand[r.winner].path) < cap;
	host_resolution_free(&r);
	return found;
}

/* The driver's development name libcuda.so searched and not found while
 * libcuda.so.1 is there: ldconfig keys its cache by SONAME, so the cache
 * lists the driver folder's files only as libcuda.so.1, and a dlopen of
 * "libcuda.so" (cuDNN 8, bitsandbytes, cuda-python, Triton) finds it only
 * in a folder it searches itself. WSL's /usr/lib/wsl/lib is the usual case. */
static void driver_dev_name(const struct gt_proc_model *m, const struct gt_search *s, bool failed,
			    struct gt_findings *out)
{
	char drv[4096], real[4096], folder[4096], there[4096 + 16], fix[16384];
	bool wsl, has_dev;
	struct gt_finding *f;
	json_t *e;

	if (!driver_at(m, s, drv, sizeof(drv)))
		return;
	if (!gt_facts_real_path(m->facts, drv, real, sizeof(real)))
		snprintf(real, sizeof(real), "%s", drv);
	gt_folder_of(drv, folder, sizeof(folder));
	snprintf(there, sizeof(there), "%s/libcuda.so", folder);
	has_dev = gt_facts_exists(m->facts, there) && !was_tried(s, there);
	wsl = strlen(folder) >= 16 && strcmp(folder + strlen(folder) - 16, "/usr/lib/wsl/lib") == 0;
	if (has_dev)
		snprintf(fix, sizeof(fix), "Add %s to LD_LIBRARY_PATH: it holds libcuda.so, which the loader's cache "
			 "lists only as libcuda.so.1.", folder);
	else
		snprintf(fix, sizeof(fix), "Make a link named libcuda.so to %s in a folder %s searches (one on "
			 "LD_LIBRARY_PATH, or its own RUNPATH folder): ln -s %s DIR/libcuda.so.", real,
			 s->requester ? gt_base_name(s->requester) : "the program", real);
	f = gt_finding_add(out, GT_F_LIBRARY_NOT_FOUND, failed ? GT_SEV_ERROR : GT_SEV_INFO, m, fix,
			   "libcuda.so: cannot open shared object file (searched %zu place%s): the driver is %s",
			   gt_search_places(s), gt_search_places(s) == 1 ? "" : "s", drv);
	if (has_dev)
		gt_fix_list_append(&f->fix_data, "LD_LIBRARY_PATH", folder);
	e = gt_evidence_add(f, "%s asked for libcuda.so, the driver's unversioned name; the loader tried %zu paths "
			    "in %zu places", s->requester ? s->requester : "the program", s->ntries,
			    gt_search_places(s));
	gt_evidence_str(e, "name", s->name);
	gt_evidence_str(e, "requester", s->requester);
	gt_evidence_tries(e, s);
	e = gt_evidence_add(f, "the driver: %s (the file %s, in %s)%s", drv, real, folder,
			    wsl ? "; WSL's driver folder, listed in ld.so.cache through /etc/ld.so.conf.d/ld.wsl.conf" : "");
	gt_evidence_str(e, "path", drv);
	gt_evidence_str(e, "real_path", real);
	gt_evidence_str(e, "folder", folder);
	gt_evidence_add(f, has_dev ? "%s/libcuda.so exists, but ld.so.cache lists that folder's files by their "
			"SONAME (libcuda.so.1) only, so the name is found only in a folder searched directly" :
			"%s holds no libcuda.so: the unversioned name exists only where a driver package made the link",
			has_dev ? folder : folder);
	if (s->cut_off)
		gt_evidence_add(f, "the process died in this search (an abort right after the failed dlopen): the "
				"places are the loader's search redone on paper");
	requester_search_evidence(m, s, f);
}

/* The bitsandbytes folder the process looked in: where it searched for or
 * loaded one of its libraries ("" if none). */
static bool bitsandbytes_folder(const struct gt_process *p, char *out, size_t cap)
{
	const char *path = NULL;
	size_t i;

	for (i = 0; i < p->nsearches && !path; i++)
		if (p->searches[i].name && strstr(p->searches[i].name, "/bitsandbytes/libbitsandbytes_"))
			path = p->searches[i].name;
	for (i = 0; i < p->nobjects && !path; i++)
		if (p->objects[i].path && strstr(p->objects[i].path, "/bitsandbytes/libbitsandbytes_"))
			path = p->objects[i].path;
	if (!path)
		return false;
	gt_folder_of(path, out, cap);
	return out[0] != 0;
}

/* BNB_CUDA_VERSION=124 makes bitsandbytes load libbitsandbytes_cuda124.so
 * from its folder, whatever CUDA torch runs (bitsandbytes#1559): a build
 * that is not there is tested in Python before any dlopen, so the trace
 * shows only the failed fallback (libbitsandbytes_cpu.so). The variable and
 * the file it chose are the cause. */
static void bnb_cuda_version(const struct gt_proc_model *m, bool failed, struct gt_findings *out)
{
	const char *v = gt_process_env(m->proc, "BNB_CUDA_VERSION");
	char folder[4096], chosen[4096 + 64], pat[4096 + 64], fix[8192], builds[2048] = "", **files;
	struct gt_finding *f;
	size_t i, n;
	json_t *e;

	if (!failed || !v || !v[0] || strspn(v, "0123456789") != strlen(v) ||
	    !bitsandbytes_folder(m->proc, folder, sizeof(folder)))
		return;
	snprintf(chosen, sizeof(chosen), "%s/libbitsandbytes_cuda%s.so", folder, v);
	if (gt_facts_exists(m->facts, chosen))
		return;
	snprintf(pat, sizeof(pat), "%s/libbitsandbytes_cuda*.so", folder);
	n = gt_facts_glob(m->facts, pat, false, &files);
	for (i = 0; i < n; i++)
		snprintf(builds + strlen(builds), sizeof(builds) - strlen(builds), "%s%s", i ? ", " : "",
			 gt_base_name(files[i]));
	snprintf(fix, sizeof(fix), "Unset BNB_CUDA_VERSION (bitsandbytes then takes the build for the CUDA torch "
		 "runs)%s%s%s, or build bitsandbytes for CUDA %s.", n ? ", or set it to a build that is there (" : "",
		 builds, n ? ")" : "", v);
	f = gt_finding_add(out, GT_F_LIBRARY_NOT_FOUND, GT_SEV_ERROR, m, fix,
			   "libbitsandbytes_cuda%s.so: chosen by BNB_CUDA_VERSION=%s, not in %s", v, v, folder);
	gt_fix_unset(&f->fix_data, "BNB_CUDA_VERSION");
	e = gt_evidence_add(f, "BNB_CUDA_VERSION=%s names %s, which does not exist", v, chosen);
	gt_evidence_str(e, "variable", "BNB_CUDA_VERSION");
	gt_evidence_str(e, "path", chosen);
	e = gt_evidence_add(f, "the builds in %s: %s", folder, n ? builds : "none");
	gt_evidence_str(e, "folder", folder);
	host_free_strings(files, n);
}

/* Is a library of this family loaded? */
static bool family_file_loaded(const struct gt_proc_model *m, const char *family)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (strcmp(m->libs[i].fi.family, family) == 0)
			return true;
	return false;
}

/* NCCL's network plug-ins (NCCL's src/plugin/plugin_open.cc and net.cc):
 * without NCCL_NET_PLUGIN, libnccl dlopens libnccl-net.so and, finding none,
 * goes on with its internal IB and Socket transports. Its INFO line
 * "NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared
 * object file" is what users take for their error (NVIDIA/nccl#1231, #352,
 * #259; the maintainers: harmless), so it is info here, saying so, never
 * the cause of a failed run. With NCCL_NET_PLUGIN=NAME (a comma list) NCCL
 * tries NAME, then libnccl-net-NAME.so; when no plug-in loaded, NCCL runs
 * on its internal transports, not on the one the variable chose: a
 * warning, tied to the variable. */
static void nccl_net_plugin(const struct gt_proc_model *m, const struct gt_search *s, struct gt_findings *out)
{
	const char *chosen = gt_process_env(m->proc, "NCCL_NET_PLUGIN");
	char copy[4096 + 256], via[64], dir[4096 + 256], fix[8192];
	struct gt_finding *f;
	json_t *e;

	if (family_file_loaded(m, "nccl-net") || (chosen && strcasecmp(chosen, "none") == 0))
		return;
	if (!chosen || !*chosen) {
		f = gt_finding_add(out, GT_F_LIBRARY_NOT_FOUND, GT_SEV_INFO, m,
				   "Nothing to do: NCCL runs on its internal IB and Socket transports without a "
				   "network plug-in. Install one (aws-ofi-nccl for AWS EFA, the vendor's for "
				   "others) and set NCCL_NET_PLUGIN only where the cluster's network needs it.",
				   "%s: not found (NCCL's optional network plug-in; NCCL went on with its own "
				   "transports)", s->name);
		e = gt_evidence_add(f, "%s looked for %s, the network plug-in NCCL tries when NCCL_NET_PLUGIN "
				    "is unset, and uses its internal transports when there is none: this is not "
				    "an error", s->requester ? s->requester : "NCCL", s->name);
		gt_evidence_str(e, "name", s->name);
		gt_evidence_str(e, "requester", s->requester);
		gt_evidence_tries(e, s);
		return;
	}
	if (copy_elsewhere(m, s, copy, sizeof(copy), via, sizeof(via)))
		snprintf(fix, sizeof(fix), "A copy of the plug-in is at %s: add its folder to LD_LIBRARY_PATH; or "
			 "unset NCCL_NET_PLUGIN to run on NCCL's internal transports on purpose.", copy);
	else {
		copy[0] = 0;
		snprintf(fix, sizeof(fix), "Install the plug-in NCCL_NET_PLUGIN=%s names (aws-ofi-nccl for ofi or "
			 "aws-ofi) in a folder the loader searches (LD_LIBRARY_PATH, or ld.so.conf.d and "
			 "ldconfig); or unset NCCL_NET_PLUGIN to run on NCCL's internal transports on purpose.",
			 chosen);
	}
	f = gt_finding_add(out, GT_F_LIBRARY_NOT_FOUND, GT_SEV_WARNING, m, fix,
			   "%s: cannot open shared object file: the network plug-in NCCL_NET_PLUGIN=%s chose; "
			   "NCCL ran on its internal transports instead", s->name, chosen);
	if (copy[0]) {
		gt_folder_of(copy, dir, sizeof(dir));
		gt_fix_list_append(&f->fix_data, "LD_LIBRARY_PATH", dir);
	}
	e = gt_evidence_add(f, "NCCL_NET_PLUGIN=%s: %s tried %s (and the name itself); the loader tried %zu "
			    "paths in %zu places", chosen, s->requester ? s->requester : "NCCL", s->name,
			    s->ntries, gt_search_places(s));
	gt_evidence_str(e, "variable", "NCCL_NET_PLUGIN");
	gt_evidence_str(e, "value", chosen);
	gt_evidence_str(e, "name", s->name);
	gt_evidence_str(e, "requester", s->requester);
	gt_evidence_tries(e, s);
	if (copy[0]) {
		e = gt_evidence_add(f, "a copy exists elsewhere on disk: %s", copy);
		gt_evidence_str(e, "path", copy);
	}
}

/* The fix when only another major is here. A ctypes.CDLL call is the
 * choice of the Python code that made it (numba-cuda asks for
 * libcudart.so.12 before .13), not a need of Python's _ctypes module: the
 * fix names the call, never "_ctypes was built for". */
static void other_major_fix(const struct gt_search *s, const struct gt_family_info *fi, const char *other_path,
			    char *fix, size_t cap)
{
	const char *hint = strcmp(fi->family, "cudnn") == 0 ? " (the nvidia-cudnn wheel or the cudnn package of "
							      "that major for your CUDA)" : "";
	int major = gt_version_major(fi->version);

	if (gt_is_ctypes(s->requester))
		snprintf(fix, cap, "A ctypes.CDLL call of the program's Python code asked for %s %d; this host has "
			 "another major (%s). If the process needed it, install %s %d%s, or the build of the "
			 "Python package that made the call for the major that is here.", fi->family, major,
			 other_path, fi->family, major, hint);
	else
		snprintf(fix, cap, "%s was built for %s %d; this host has another major (%s). Install %s %d beside "
			 "it%s, or install a build of %s for the major that is here.",
			 s->requester ? s->requester : "The program", fi->family, major, other_path, fi->family, major,
			 hint, s->requester ? s->requester : "the program");
}

/* The fix when the library is in a searched folder under another name:
 * the name asked for, made where the copy is. The copy's own package is
 * what should have shipped that name (PyTorch's wheels and libtorch
 * archives did, once fixed), so its release with it is the lasting fix. */
static void renamed_fix(const struct gt_proc_model *m, const struct gt_search *s, const char *path, const char *how,
			char *fix, size_t cap)
{
	struct host_package pk;
	char folder[4096], owner[256] = "the package";

	gt_folder_of(path, folder, sizeof(folder));
	if (gt_facts_package(m->facts, path, &pk) && pk.name[0])
		snprintf(owner, sizeof(owner), "%s (%s %s here)", pk.name, pk.manager, pk.version);
	snprintf(fix, cap,
		 "%s is %s under another name, in a folder %s searches: the loader opens only the file of "
		 "the name asked for there. Give it that name beside it: ln -s %s %s/%s; or install a "
		 "release of %s that ships it as %s.",
		 path, strcmp(how, "hashed") == 0 ? "a renamed copy of it (a hash in its name)" : "that library",
		 s->requester ? gt_base_name(s->requester) : "the program", gt_base_name(path), folder, s->name,
		 owner, s->name);
}

static void renamed_evidence(const struct gt_search *s, const char *path, const char *how, struct gt_finding *f)
{
	char folder[4096];
	json_t *e;

	gt_folder_of(path, folder, sizeof(folder));
	if (strcmp(how, "hashed") == 0)
		e = gt_evidence_add(f, "%s holds %s: %s with a hash in its name (as auditwheel and PyTorch's "
				    "builds rename what they bundle); nothing there is named %s", folder,
				    gt_base_name(path), s->name, s->name);
	else
		e = gt_evidence_add(f, "%s holds %s, whose SONAME is %s: the file asked for, under another "
				    "name; nothing there is named %s", folder, gt_base_name(path), s->name, s->name);
	gt_evidence_str(e, "path", path);
	gt_evidence_str(e, "renamed", how);
}

/* Did the process also ask for the name's major alone (libcudnn_graph.so.9
 * after .so.9.19.0 and .so.9.19: cuDNN's way, which takes any minor)? Then
 * the long name was one probe among others, not a release it needs. */
static bool asked_major_alone(const struct gt_process *p, const char *name)
{
	const char *so = strstr(name, ".so."), *dot;
	char short_name[512];
	size_t i;

	if (!so || !(dot = strchr(so + 4, '.')) ||
	    (size_t)snprintf(short_name, sizeof(short_name), "%.*s", (int)(dot - name), name) >= sizeof(short_name))
		return false;
	for (i = 0; i < p->nsearches; i++)
		if (p->searches[i].name && strcmp(p->searches[i].name, short_name) == 0)
			return true;
	return false;
}

/* The fix when only another minor of the asked major is here: a name that
 * carries the release is asked by that release (NVRTC 11.1 asks for
 * libnvrtc-builtins.so.11.1 while CUDA 11.6's builtins lie beside it:
 * yolact_edge#186). Never a link to the other release under the asked
 * name: NVRTC's builtins export entry points named for their release
 * (CUDA 13.0's: __nvrtc_builtins__13_0_getArchBuiltins, and libnvrtc.so.13
 * says "is corrupted, can't find entry functions" without them: read on
 * this build VM's toolkit), which is why pytorch/pytorch#68980's link to
 * 11.5's did not help. */
static void other_minor_fix(const struct gt_search *s, const struct gt_family_info *fi, const char *other_path,
			    char *fix, size_t cap)
{
	bool builtins = strncmp(gt_base_name(s->name), "libnvrtc-builtins", 17) == 0;

	snprintf(fix, cap, "%s asks for %s %s by a name that carries the release; %s is another release, "
		 "which that name never opens%s. Install %s %s beside %s%s, or a build of %s for the release "
		 "that is here.",
		 s->requester ? gt_base_name(s->requester) : "The program", fi->component, fi->version, other_path,
		 builtins ? " (and a link would not do: NVRTC calls the builtins' entry points by its own release's "
			    "names)" : "",
		 fi->component, fi->version, s->requester ? gt_base_name(s->requester) : "it",
		 builtins ? " (the builtins of the same CUDA release as the libnvrtc that asks)" : "",
		 s->requester ? gt_base_name(s->requester) : "the program");
}

void rule_library_not_found(const struct gt_proc_model *m, struct gt_findings *out)
{
	const struct gt_process *p = m->proc;
	struct gt_family_info fi;
	char copy[4096 + 256] = "", fix[16384], dir[4096 + 256];  /* copy: "" until copy_elsewhere finds one */
	struct gt_finding *f;
	bool elsewhere, needed, failed = gt_model_failed(m);
	char why[8192 + 1024], other_path[4096], dev_target[4096 + 256];
	bool other, minor, dev, list_home;
	char via[64], home[4096], renamed_path[4096], alt_path[4096 + 256];
	const char *list_var, *renamed_how = NULL;
	bool renamed, alt;
	size_t i;
	json_t *e;

	bnb_cuda_version(m, failed, out);
	for (i = 0; i < p->nsearches; i++) {
		const struct gt_search *s = &p->searches[i];

		/* The driver has its own finding, but for its unversioned name; each
		 * name once. */
		if (s->ours || !s->result || strcmp(s->result, "not_found") || !s->name ||
		    !gt_classify_any(s->name, &fi) || gt_failed_search(p, s->name) != s)
			continue;
		if (strcmp(fi.component, "cuda") == 0) {
			if (!fi.version[0])
				driver_dev_name(m, s, failed, out);
			continue;
		}
		if (strcmp(fi.family, "nccl-net") == 0) {
			nccl_net_plugin(m, s, out);
			continue;
		}
		if (loaded_same_major(m, &fi))
			continue;
		dev = !fi.version[0] && versioned_only(m, s, dev_target, sizeof(dev_target));
		renamed = !dev && renamed_copy(m, s, renamed_path, sizeof(renamed_path), &renamed_how);
		copy[0] = 0;  /* the dev and renamed branches never ask copy_elsewhere */
		elsewhere = !dev && !renamed && copy_elsewhere(m, s, copy, sizeof(copy), via, sizeof(via));
		list_home = elsewhere && via[0] && list_entry_holding(p, via, copy, home, sizeof(home));
		other = !dev && !renamed && !elsewhere &&
			other_major_at(m, s, &fi, false, other_path, sizeof(other_path));
		minor = !dev && !renamed && !elsewhere && !other && !asked_major_alone(p, s->name) &&
			other_major_at(m, s, &fi, true, other_path, sizeof(other_path));
		alt = !dev && !renamed && alt_variant(m, s, alt_path, sizeof(alt_path));
		if (dev)
			snprintf(fix, sizeof(fix),
				 "%s asks for the unversioned name %s, a development link no wheel or runtime "
				 "package ships; %s is the versioned file of the process's own install: make the "
				 "link in a folder %s searches (its RUNPATH folder, or one on LD_LIBRARY_PATH): "
				 "ln -s %s DIR/%s.", s->requester ? gt_base_name(s->requester) : "The program",
				 s->name, dev_target, s->requester ? gt_base_name(s->requester) : "it", dev_target,
				 s->name);
		else if (renamed)
			renamed_fix(m, s, renamed_path, renamed_how, fix, sizeof(fix));
		else if (list_home)
			snprintf(fix, sizeof(fix),
				 "%s holds a list of folders (%s), and the tools that read it (numba, cupy, "
				 "PyTorch's extension builder) take it as one folder: set it to the install "
				 "that has %s: export %s=%s", via, gt_process_env(p, via), s->name, via, home);
		else if (elsewhere)
			snprintf(fix, sizeof(fix),
				 "A copy exists at %s: add its folder to LD_LIBRARY_PATH (or to "
				 "/etc/ld.so.conf.d/ and run ldconfig), or install the package that "
				 "puts %s where %s looks.", copy, s->name,
				 s->requester ? s->requester : "the program");
		else if (alt)
			snprintf(fix, sizeof(fix),
				 "%s asks for %s, and where it looks and beside it there is only %s, the other "
				 "variant's file, which that variant alone opens. Install %s (a CUDA toolkit of that "
				 "release ships both variants' files) where %s looks.",
				 s->requester ? gt_base_name(s->requester) : "The program", s->name, gt_base_name(alt_path),
				 s->name, s->requester ? gt_base_name(s->requester) : "it");
		else if (other)
			other_major_fix(s, &fi, other_path, fix, sizeof(fix));
		else if (minor)
			other_minor_fix(s, &fi, other_path, fix, sizeof(fix));
		else
			snprintf(fix, sizeof(fix),
				 "Install the library that provides %s%s, or add the folder holding it to "
				 "LD_LIBRARY_PATH.", s->name,
				 strcmp(fi.family, "cudnn") == 0 ? " (the nvidia-cudnn wheel or the cudnn package "
								   "matching your CUDA)" : "");
		needed = family_needed(m, s, &fi, why, sizeof(why));
		f = gt_finding_add(out, GT_F_LIBRARY_NOT_FOUND, not_found_severity(m, &fi, failed, needed), m, fix,
				   "%s: cannot open shared object file (searched %zu place%s)", s->name,
				   gt_search_places(s), gt_search_places(s) == 1 ? "" : "s");
		if (list_home)
			gt_fix_set(&f->fix_data, via, home);
		else if (elsewhere) {
			gt_folder_of(copy, dir, sizeof(dir));
			gt_fix_list_append(&f->fix_data, "LD_LIBRARY_PATH", dir);
		}
		e = gt_evidence_add(f, "%s asked for %s; the loader tried %zu paths in %zu places",
				    s->requester ? s->requester : "the program", s->name, s->ntries,
				    gt_search_places(s));
		gt_evidence_str(e, "name", s->name);
		gt_evidence_str(e, "requester", s->requester);
		gt_evidence_tries(e, s);
		/* The loader writes its tries with the conclusion it never reached. */
		if (s->cut_off)
			gt_evidence_add(f, "the process died in this search (the loader's exit 127 at start-up, or "
					"an abort right after the failed dlopen): the places are the loader's search "
					"redone on paper");
		if (needed)
			gt_evidence_add(f, "%s", why);
		else if (loaded_other_major(m, &fi))
			gt_evidence_add(f, "another %s library was loaded: the name was one probe among "
					"others", fi.component);
		else if (!failed && !family_loaded(m, &fi))
			gt_evidence_add(f, "the process succeeded and loaded nothing of %s: it may have "
					"gone on without it (on the CPU)", fi.family);
		if (dev) {
			e = gt_evidence_add(f, "no file has the unversioned name; the process's own install has the "
					    "versioned %s", dev_target);
			gt_evidence_str(e, "path", dev_target);
		}
		if (renamed)
			renamed_evidence(s, renamed_path, renamed_how, f);
		if (other) {
			e = gt_evidence_add(f, "only another major is here: %s (%s %d was asked for)",
					    other_path, fi.family, gt_version_major(fi.version));
			gt_evidence_str(e, "path", other_path);
			/* what the fix's command is made from (rules/fix_command.c) */
			gt_evidence_str(e, "other_major", other_path);
		}
		if (alt) {
			e = gt_evidence_add(f, "%s is the .alt variant's file: libnvrtc.alt.so asks for that name, the "
					    "plain libnvrtc for %s, and each opens only its own", alt_path, s->name);
			gt_evidence_str(e, "path", alt_path);
			gt_evidence_str(e, "alt_variant", alt_path);
		}
		if (minor) {
			struct gt_family_info have;

			if (!gt_classify(other_path, &have))
				have.version[0] = 0;
			e = gt_evidence_add(f, "only another release of that major is here: %s (%s %s; %s was asked "
					    "for, and the name carries the release)", other_path, fi.component,
					    have.version, fi.version);
			gt_evidence_str(e, "path", other_path);
			gt_evidence_str(e, "other_release", other_path);
		}
		list_var = folder_list_var(p);
		if (list_var[0]) {
			e = gt_evidence_add(f, "%s=%s is a list of folders: the tools that read %s take it as one "
					    "folder, \"%s\"", list_var, gt_process_env(p, list_var), list_var,
					    gt_process_env(p, list_var));
			gt_evidence_str(e, "variable", list_var);
			gt_evidence_str(e, "value", gt_process_env(p, list_var));
		}
		requester_search_evidence(m, s, f);
		if (copy[0] && gt_facts_exists(m->facts, copy) && !was_tried(s, copy)) {
			e = gt_evidence_add(f, "a copy exists elsewhere on disk: %s", copy);
			gt_evidence_str(e, "path", copy);
			soname_evidence(m, s, copy, f);
		}
		copy[0] = 0;
	}
}
