/* `scan --for` judged by the trace's rules (see paper.h): the loader's work
 * on paper written as the trace the audit half would have written, read
 * back by the trace reader, and judged like any trace. */
#define _GNU_SOURCE
#include "report/paper.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/trace_file.h"
#include "common/xalloc.h"
#include "rules/scan_rules.h"
#include "gputrace/trace_format.h"

static void put(FILE *f, json_t *line)
{
	json_dumpf(line, f, JSON_COMPACT | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(line);
}

static json_t *tries_of(const struct host_resolution *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->ncand; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", GT_K_PATH, r->cand[i].path, GT_K_RULE,
						   gt_rule_name(r->cand[i].rule)));
	return a;
}

/* The environment the paper loader used, as a header records it. */
static json_t *env_of(const struct host_scan_for *fr)
{
	json_t *env = json_object();
	const char *preload = getenv("LD_PRELOAD");

	if (fr->env.ld_library_path)
		json_object_set_new(env, "LD_LIBRARY_PATH", json_string(fr->env.ld_library_path));
	if (preload)
		json_object_set_new(env, "LD_PRELOAD", json_string(preload));
	return env;
}

static void header(FILE *f, const struct host_scan_for *fr)
{
	char host[256];

	gt_host_name(host, sizeof(host));
	/* pid 0 and the image "paper": no process of this host has them */
	put(f, json_pack("{s:s, s:s, s:i, s:s, s:i, s:i, s:s, s:s, s:s, s:[s], s:o, s:b}", GT_K_EV, "header",
			 GT_K_FORMAT, GT_FORMAT_NAME, GT_K_VERSION, GT_FORMAT_VERSION, GT_K_SOURCE, "audit", GT_K_PID,
			 0, GT_K_PPID, 0, GT_K_HOST, host, GT_K_IMAGE, "paper", GT_K_EXE, fr->consumer, GT_K_ARGV,
			 fr->consumer, GT_K_ENV, env_of(fr), GT_K_PAPER, 1));
	put(f, json_pack("{s:s, s:s, s:i, s:b}", GT_K_EV, "open", GT_K_PATH, fr->consumer, GT_K_NS, 0, GT_K_MAIN,
			 1));
}

/* One name the loader asks for: its search and what concluded it. A name
 * answered by an object already loaded makes no search, as in a trace. */
static bool item(FILE *f, const struct host_scan_for *fr, const struct host_scan_for_item *it, long seq)
{
	const struct host_resolution *r = &it->res;
	const struct host_scan_for_object *ob = it->object >= 0 ? &fr->objects[it->object] : NULL;
	json_t *open;

	if (it->again || (ob && ob->rtld))
		return false;
	put(f, json_pack("{s:s, s:I, s:s, s:s}", GT_K_EV, "search", GT_K_SEQ, (json_int_t)seq, GT_K_NAME, r->name,
			 GT_K_REQUESTER, r->requester ? r->requester : fr->consumer));
	if (r->winner < 0) {
		put(f, json_pack("{s:s, s:I, s:s, s:o}", GT_K_EV, "search_end", GT_K_SEARCH, (json_int_t)seq,
				 GT_K_RESULT, GT_RESULT_NOT_FOUND, GT_K_TRIES, tries_of(r)));
		return it->how == HOST_FOR_NEEDED || it->how == HOST_FOR_PRELOAD;
	}
	open = json_pack("{s:s, s:s, s:i, s:I, s:s, s:s, s:o}", GT_K_EV, "open", GT_K_PATH,
			 r->cand[r->winner].path, GT_K_NS, 0, GT_K_SEARCH, (json_int_t)seq, GT_K_NAME, r->name,
			 GT_K_RULE, gt_rule_name(r->cand[r->winner].rule), GT_K_TRIES, tries_of(r));
	if (ob && ob->elf.soname)
		json_object_set_new(open, GT_K_SONAME, json_string(ob->elf.soname));
	put(f, open);
	return false;
}

/* The end the loader would give it: a name the program cannot start
 * without, or a file it refuses, is the loader's exit 127 before start-up
 * completes. Otherwise paper cannot tell whether start-up completes (a
 * symbol no object defines stops it too): no end is written, so that the
 * symbols of the whole start are checked as for a start the loader gave up
 * (read/failed_load.c), and the model takes a paper process without an
 * end to go on (read/model.c). */
static void ending(FILE *f, bool fails)
{
	if (fails)
		put(f, json_pack("{s:s, s:i, s:i}", GT_K_EV, "reaped", GT_K_PID, 0, GT_K_EXIT_STATUS, 127));
}

static bool write_paper(FILE *f, const struct host_scan_for *fr)
{
	bool fails = fr->fatal >= 0;
	size_t i;

	header(f, fr);
	for (i = 0; i < fr->n; i++)
		fails |= item(f, fr, &fr->items[i], (long)i + 1);
	ending(f, fails);
	return fflush(f) == 0 && !ferror(f);
}

bool gt_report_of_written_trace(struct gt_report *r, const char *what,
				bool (*write)(FILE *f, const void *data), const void *data, char *err, size_t errcap)
{
	char path[64], *paths[1] = { path };
	int fd = memfd_create("gputrace-trace", MFD_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(dup(fd), "w") : NULL;
	bool ok;

	if (!f) {
		snprintf(err, errcap, "%s: %s", what, "cannot make a memory file");
		if (fd >= 0)
			close(fd);
		memset(r, 0, sizeof(*r));
		return false;
	}
	ok = write(f, data);
	fclose(f);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* Judged against this host now: neither paper nor a live process has a
	 * run's folder to keep facts in. */
	ok = ok && gt_report_load_as(r, paths, 1, GT_FACTS_LIVE, err, errcap);
	close(fd);
	if (ok)
		gt_report_analyse(r);
	return ok;
}

static bool write_paper_trace(FILE *f, const void *fr)
{
	return write_paper(f, fr);
}

bool gt_report_on_paper(struct gt_report *r, const struct host_scan_for *fr, char *err, size_t errcap)
{
	return gt_report_of_written_trace(r, "the trace on paper", write_paper_trace, fr, err, errcap);
}

void gt_scan_for_findings(const struct host_scan_for *fr, struct gt_findings *out)
{
	struct gt_report r;
	char err[1024];
	size_t i;

	if (!gt_report_on_paper(&r, fr, err, sizeof(err))) {
		gt_report_free(&r);
		/* Paper that cannot be read is gputrace's own failure: the scan's
		 * own judgement stands in, said in its first finding's words. */
		gt_scan_for_judge(fr, out);
		return;
	}
	for (i = 0; i < r.findings.n; i++) {
		struct gt_finding *x = &r.findings.v[i];

		out->v = gt_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n] = *x;
		/* the paper process goes with its report: a scan's findings are about the host */
		out->v[out->n].proc = NULL;
		out->v[out->n].members = NULL;
		out->n++;
	}
	r.findings.n = 0;  /* moved, not freed */
	gt_report_free(&r);
	gt_scan_for_judge_loader(fr, out);
}
