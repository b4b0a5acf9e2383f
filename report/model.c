/* The process model (see model.h): CUDA-family libraries with their versions
 * from every source, how they were found, and which package owns them. */
#define _GNU_SOURCE
#include "report/model.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/elf_info.h"

void gt_format_cudart_version(long v, char *out, size_t cap)
{
	snprintf(out, cap, "%ld.%ld", v / 1000, (v % 1000) / 10);
}

void gt_format_cudnn_version(long v, char *out, size_t cap)
{
	if (v >= 10000)  /* 9.x numbering: major*10000 + minor*100 + patch */
		snprintf(out, cap, "%ld.%ld.%ld", v / 10000, (v / 100) % 100, v % 100);
	else             /* 8.x: major*1000 + minor*100 + patch */
		snprintf(out, cap, "%ld.%ld.%ld", v / 1000, (v / 100) % 10, v % 100);
}

/* cuBLASLt and NCCL: major*10000 + minor*100 + patch. */
static void format_mmp100(long v, char *out, size_t cap)
{
	snprintf(out, cap, "%ld.%ld.%ld", v / 10000, (v / 100) % 100, v % 100);
}

static bool same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (!a || !b)
		return false;
	if (strcmp(a, b) == 0)
		return true;
	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

/* The library's own answer, in the form users know. */
static void api_version_of(const struct gt_process *p, struct gt_lib *l)
{
	int major = -1, minor = -1, patch = -1;
	size_t i;

	for (i = 0; i < p->nversions; i++) {
		const struct gt_version *v = &p->versions[i];

		/* cudnnGetVersion answers for the graph library cuDNN loaded. */
		if (v->status == 0 && strcmp(l->fi.component, "cudnn_graph") == 0 &&
		    strcmp(v->fn, "cudnnGetVersion") == 0) {
			gt_format_cudnn_version((long)v->value, l->api_version, sizeof(l->api_version));
			continue;
		}
		if (v->status != 0 || !same_file(v->lib, l->obj->path))
			continue;
		if (strcmp(v->fn, "cudaRuntimeGetVersion") == 0 || strcmp(v->fn, "cuDriverGetVersion") == 0)
			gt_format_cudart_version((long)v->value, l->api_version, sizeof(l->api_version));
		else if (strcmp(v->fn, "cudnnGetVersion") == 0)
			gt_format_cudnn_version((long)v->value, l->api_version, sizeof(l->api_version));
		else if (strcmp(v->fn, "cublasLtGetVersion") == 0 || strcmp(v->fn, "ncclGetVersion") == 0)
			format_mmp100((long)v->value, l->api_version, sizeof(l->api_version));
		else if (strcmp(v->fn, "cublasGetProperty") == 0 && v->property == 0)
			major = (int)v->value;
		else if (strcmp(v->fn, "cublasGetProperty") == 0 && v->property == 1)
			minor = (int)v->value;
		else if (strcmp(v->fn, "cublasGetProperty") == 0 && v->property == 2)
			patch = (int)v->value;
	}
	if (major >= 0 && minor >= 0 && patch >= 0)
		snprintf(l->api_version, sizeof(l->api_version), "%d.%d.%d", major, minor, patch);
}

/* A version with at least major.minor says more than a bare major. */
static bool detailed(const char *v)
{
	return v[0] && strchr(v, '.');
}

static void choose_version(struct gt_lib *l)
{
	/* The driver's file name carries the driver version users ask about;
	 * its API answer is the CUDA version it supports. */
	bool driver = strcmp(l->fi.component, "cuda") == 0;
	const char *order[4][2] = {
		{ driver ? l->file_version : l->api_version, driver ? "file" : "api" },
		{ driver ? l->api_version : l->file_version, driver ? "api" : "file" },
		{ l->package_version, "package" },
		{ NULL, NULL },
	};
	int i;

	for (i = 0; order[i][0]; i++) {
		if (detailed(order[i][0])) {
			snprintf(l->version, sizeof(l->version), "%s", order[i][0]);
			l->version_source = order[i][1];
			return;
		}
	}
	snprintf(l->version, sizeof(l->version), "%s", l->file_version);
	l->version_source = l->file_version[0] ? "file" : "none";
}

/* RPATH and RUNPATH share one flag in rtld-audit: the requester's dynamic
 * section on disk says which it was (with DT_RUNPATH, DT_RPATH is ignored). */
static enum gt_rule found_by(const struct gt_object *ob)
{
	struct host_elf_info info;
	enum gt_rule rule = ob->rule;

	if (!ob->requester || (rule != GT_RULE_RPATH && rule != GT_RULE_RUNPATH))
		return rule;
	if (host_elf_read(ob->requester, &info)) {
		rule = info.runpath ? GT_RULE_RUNPATH : info.rpath ? GT_RULE_RPATH : rule;
		host_elf_free(&info);
	}
	return rule;
}

static void build_lib(const struct gt_process *p, const struct gt_object *ob, struct gt_lib *l)
{
	struct gt_family_info real_fi;

	memset(l, 0, sizeof(*l));
	l->obj = ob;
	gt_classify(ob->path, &l->fi);
	/* A file that is gone has no real path: glibc's realpath leaves what it
	 * resolved so far in the buffer, and two copies that are not on this
	 * disk must not look like two files that are. */
	if (!realpath(ob->path, l->real_path))
		l->real_path[0] = 0;
	if (l->real_path[0] && gt_classify(l->real_path, &real_fi))
		snprintf(l->file_version, sizeof(l->file_version), "%s", real_fi.version);
	else
		snprintf(l->file_version, sizeof(l->file_version), "%s", l->fi.version);
	api_version_of(p, l);
	l->has_package = host_package_of(ob->path, &l->package);
	if (l->has_package)
		snprintf(l->package_version, sizeof(l->package_version), "%s", l->package.version);
	choose_version(l);
	l->found_by = found_by(ob);
}

static void ending(struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;

	m->ended_how = "unknown";
	if (p->reaped && p->reaped_signal) {
		m->ended_how = "signal";
		m->ended_signal = p->reaped_signal;
	} else if (p->fatal_signal) {
		m->ended_how = "signal";
		m->ended_signal = p->fatal_signal;
	} else if (p->reaped || p->clean_end) {
		m->ended_how = "exit";
		m->ended_status = p->reaped ? p->exit_status : -1;
	}
}

bool gt_model_build(struct gt_process *p, struct gt_proc_model *m)
{
	struct gt_family_info fi;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->proc = p;
	m->libs = calloc(p->nobjects ? p->nobjects : 1, sizeof(*m->libs));
	if (!m->libs)
		return false;
	/* The installers' records are read once for all the libraries. */
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && gt_classify(p->objects[i].path, &fi) && !p->objects[i].closed)
			host_package_want(p->objects[i].path);
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path && gt_classify(p->objects[i].path, &fi) && !p->objects[i].closed)
			build_lib(p, &p->objects[i], &m->libs[m->nlibs++]);
	ending(m);
	return true;
}

void gt_model_free(struct gt_proc_model *m)
{
	free(m->libs);
	memset(m, 0, sizeof(*m));
}

const struct gt_lib *gt_model_find(const struct gt_proc_model *m, const char *component)
{
	size_t i;

	for (i = 0; i < m->nlibs; i++)
		if (strcmp(m->libs[i].fi.component, component) == 0)
			return &m->libs[i];
	return NULL;
}
