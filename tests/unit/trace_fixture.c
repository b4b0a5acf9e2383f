/* Shared helpers of the reader, model and rules suites (see trace_fixture.h). */
#define _GNU_SOURCE
#include "tests/unit/trace_fixture.h"

#include <check.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/caches.h"

#define MAX_LINES 64

/* The folder of a test case's tests (made and removed by the runner's own
 * process), and the current test's folder in it. */
static char base[64], tmp[96];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void remove_tree(char *dir)
{
	if (dir[0])
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	dir[0] = 0;
}

/* Unchecked: in the runner, around all the tests of a case, so that what a
 * failed test leaves (a failed assertion skips its teardown) goes too. */
static void case_setup(void)
{
	snprintf(base, sizeof(base), "/tmp/gt-unit-XXXXXX");
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		abort();
	}
}

static void case_teardown(void)
{
	remove_tree(base);
}

void fx_setup(void)
{
	ck_assert_msg(base[0], "fx_setup without fx_add_fixtures");
	snprintf(tmp, sizeof(tmp), "%s/t-XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	/* An empty dpkg database: no package version can stand in for the file's. */
	ck_assert_int_eq(setenv("GPUTRACE_DPKG_ROOT", tmp, 1), 0);
}

void fx_teardown(void)
{
	remove_tree(tmp);
}

void fx_add_fixtures(TCase *tc)
{
	tcase_add_unchecked_fixture(tc, case_setup, case_teardown);
	tcase_add_checked_fixture(tc, fx_setup, fx_teardown);
}

const char *fx_tmp(void)
{
	return tmp;
}

const char *fx_path(const char *rel)
{
	static char path[4][PATH_MAX];
	static int turn;

	turn = (turn + 1) % 4;
	snprintf(path[turn], sizeof(path[turn]), "%s/%s", tmp, rel);
	return path[turn];
}

/* Makes the folders above tmp/rel. */
static void make_parents(const char *rel)
{
	char path[PATH_MAX], *slash;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	for (slash = strchr(path + strlen(tmp) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
}

void fx_put(const char *rel, const char *data, size_t len)
{
	FILE *f;

	make_parents(rel);
	f = fopen(fx_path(rel), "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

void fx_touch(const char *rel)
{
	fx_put(rel, "", 0);
}

void fx_symlink(const char *target, const char *rel)
{
	make_parents(rel);
	ck_assert_int_eq(symlink(target, fx_path(rel)), 0);
}

/* tmp/rel as a one-function shared library, linked with ld_flags. */
static void build_tiny_lib(const char *rel, const char *ld_flags)
{
	static const char src[] = "int fx_fn(void) { return 1; }\n";
	char cmd[4 * PATH_MAX];

	fx_put("src/fx.c", src, sizeof(src) - 1);
	make_parents(rel);
	snprintf(cmd, sizeof(cmd), "cc -shared -fPIC -o %s %s %s 2>&1", fx_path(rel), fx_path("src/fx.c"), ld_flags);
	ck_assert_msg(system(cmd) == 0, "cannot build %s with cc", rel);
}

void fx_build_lib(const char *rel, const char *runpath)
{
	char flags[PATH_MAX + 64];

	snprintf(flags, sizeof(flags), "-Wl,--enable-new-dtags -Wl,-rpath,'%s'", runpath);
	build_tiny_lib(rel, flags);
}

void fx_build_lib_soname(const char *rel, const char *soname)
{
	char flags[PATH_MAX + 64];

	snprintf(flags, sizeof(flags), "-Wl,-soname,%s", soname);
	build_tiny_lib(rel, flags);
}

/* One line in the notation of trace_fixture.h, as JSON, with its newline. */
static void put_line(FILE *f, const char *line)
{
	const char *s;

	for (s = line; *s; s++) {
		if (*s == '\'')
			fputc('"', f);
		else if (strncmp(s, "$TMP", 4) == 0) {
			fputs(tmp, f);
			s += 3;
		} else
			fputc(*s, f);
	}
	fputc('\n', f);
}

const char *fx_trace_v(const char *name, const char *const *lines)
{
	static char path[PATH_MAX];
	FILE *f;
	size_t i;

	make_parents(name);
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	for (i = 0; lines[i]; i++)
		put_line(f, lines[i]);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

/* first and the arguments after it, up to a NULL, into lines (NULL-terminated too). */
static void collect(const char *lines[MAX_LINES + 1], const char *first, va_list ap)
{
	size_t n = 0;
	const char *s;

	for (s = first; s; s = va_arg(ap, const char *)) {
		ck_assert_msg(n < MAX_LINES, "a fixture trace of more than %d lines", MAX_LINES);
		lines[n++] = s;
	}
	lines[n] = NULL;
}

const char *fx_trace(const char *name, ...)
{
	const char *lines[MAX_LINES + 1];
	va_list ap;

	va_start(ap, name);
	collect(lines, va_arg(ap, const char *), ap);
	va_end(ap);
	return fx_trace_v(name, lines);
}

static void build(struct fx_diag *d, const char *const *lines)
{
	char err[4096];
	const char *path = fx_trace_v("t.jsonl", lines);
	bool ok;

	memset(d, 0, sizeof(*d));
	ok = gt_read_trace(path, &d->proc, err, sizeof(err));
	ck_assert_msg(ok, "the reader refused the fixture trace: %s", err);
	/* This host's facts, asked now, as a report of a trace taken here. */
	d->facts = gt_facts_set_new(GT_FACTS_LIVE);
	ck_assert(gt_model_build(&d->proc, gt_facts_of_host(d->facts, d->proc.host), &d->model));
}

void fx_build(struct fx_diag *d, ...)
{
	const char *lines[MAX_LINES + 1];
	va_list ap;

	va_start(ap, d);
	collect(lines, va_arg(ap, const char *), ap);
	va_end(ap);
	build(d, lines);
}

void fx_diagnose(struct fx_diag *d, ...)
{
	const char *lines[MAX_LINES + 1];
	va_list ap;

	va_start(ap, d);
	collect(lines, va_arg(ap, const char *), ap);
	va_end(ap);
	build(d, lines);
	gt_run_rules(&d->model, &d->findings);
	fx_check_severities(&d->findings);
}

void fx_check_severities(const struct gt_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		ck_assert_msg(gt_finding_severity_allowed(fs->v[i].id, fs->v[i].severity),
			      "%s at %s: the finding table (include/gputrace/findings.h) does not allow it",
			      gt_finding_name(fs->v[i].id), gt_severity_name(fs->v[i].severity));
}

void fx_free(struct fx_diag *d)
{
	gt_findings_free(&d->findings);
	gt_model_free(&d->model);
	/* as at the end of a report: the next diagnosis reads the host anew
	 * (the shared runner of main.c runs the next test in this process) */
	host_caches_free();
	gt_facts_set_free(d->facts);
	gt_process_free(&d->proc);
}

const struct gt_finding *fx_finding(const struct fx_diag *d, enum gt_finding_id id)
{
	return gt_findings_find(&d->findings, id, &d->model);
}

size_t fx_count(const struct fx_diag *d, enum gt_finding_id id)
{
	size_t i, n = 0;

	for (i = 0; i < d->findings.n; i++)
		n += d->findings.v[i].id == id;
	return n;
}

bool fx_evidence_has(const struct gt_finding *f, const char *key, const char *value)
{
	size_t i;
	json_t *e;

	json_array_foreach(f->evidence, i, e) {
		const char *v = json_string_value(json_object_get(e, key));

		if (v && strcmp(v, value) == 0)
			return true;
	}
	return false;
}

bool fx_caused_by(const struct gt_finding *f, enum gt_finding_id id)
{
	int i;

	for (i = 0; i < f->ncaused; i++)
		if (f->caused_by[i] == id)
			return true;
	return false;
}
