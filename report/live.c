/* `gputrace inspect PID` judged by the trace's rules (see live.h): what
 * /proc shows of a running process written as a trace, read back by the
 * trace reader, and judged like any trace (the path scan --for takes in
 * paper.c). */
#define _GNU_SOURCE
#include "report/live.h"
#include "report/paper.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/nvidia_driver.h"
#include "common/trace_file.h"
#include "gputrace/trace_format.h"

#define MAX_GPUS 16

static const char *const why_searches =
	"needs the loader's searches, which only a traced run records (gputrace COMMAND)";
static const char *const why_calls = "needs the results of the program's CUDA calls, which only a traced run records";
static const char *const why_end = "needs how the process ends, or its children's traces";
static const char *const why_many = "needs the traces of the other processes of the run or job";

static const struct gt_live_unjudged not_judged[] = {
	{ GT_F_LIBRARY_NOT_FOUND, why_searches },
	{ GT_F_MISSING_SYMBOL, why_searches },
	{ GT_F_ALREADY_LOADED, why_searches },
	/* which rule found each file: a live process shows the files, not the rules */
	{ GT_F_SHADOWED_LIBRARY, why_searches },
	{ GT_F_DRIVER_MISSING, why_calls },
	{ GT_F_NO_DEVICE, why_calls },
	{ GT_F_INIT_FAILED, why_calls },
	{ GT_F_OUT_OF_MEMORY, why_calls },
	/* the device's compute capability comes from the program's own calls;
	 * gputrace scan --arch judges the files against a capability given */
	{ GT_F_NO_KERNEL_IMAGE, why_calls },
	{ GT_F_CRASHED, why_end },
	{ GT_F_END_UNKNOWN, why_end },
	{ GT_F_FORK_AFTER_INIT, why_end },
	{ GT_F_DIVERGENT_PROCESSES, why_many },
	{ GT_F_MISSING_RANKS, why_many },
};

const struct gt_live_unjudged *gt_live_not_judged(size_t *n)
{
	*n = sizeof(not_judged) / sizeof(not_judged[0]);
	return not_judged;
}

static void put(FILE *f, json_t *line)
{
	json_dumpf(line, f, JSON_COMPACT | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(line);
}

/* The variables a traced run's header records, as the process has them. */
static json_t *env_of(const struct host_live *lv)
{
	json_t *env = json_object();
	const char *const *names;
	size_t n, i;

	names = gt_header_env_names(&n);
	for (i = 0; i < n; i++)
		if (host_live_env(lv, names[i]))
			json_object_set_new(env, names[i], json_string(host_live_env(lv, names[i])));
	return env;
}

static json_t *argv_of(const struct host_live *lv)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < lv->argc; i++)
		json_array_append_new(a, json_string(lv->argv[i]));
	return a;
}

static void keep_gpu(const char *model, void *data)
{
	json_array_append_new((json_t *)data, json_string(model));
}

/* The kernel side of the driver, as the preload half's header has it: the
 * process runs on this host, so its module is this host's. */
static void add_kernel_driver(json_t *header)
{
	char kmod[64];
	json_t *gpus;

	if (!gt_read_kmod_version(kmod, sizeof(kmod)))
		return;
	gpus = json_array();
	gt_read_gpu_models(keep_gpu, gpus, MAX_GPUS);
	json_object_set_new(header, GT_K_NVIDIA_KMOD, json_string(kmod));
	json_object_set_new(header, GT_K_NVIDIA_GPUS, gpus);
}

/* Strings that are not UTF-8 are left out of the header rather than
 * failing it: jansson refuses them, and the objects' paths matter more. */
static void set_if(json_t *o, const char *key, const char *value)
{
	json_t *s = value ? json_string(value) : NULL;

	if (s)
		json_object_set_new(o, key, s);
}

static void header(FILE *f, const struct host_live *lv)
{
	char host[256];
	json_t *h;

	gt_host_name(host, sizeof(host));
	/* the image "live": no run's image id looks like it */
	h = json_pack("{s:s, s:s, s:i, s:s, s:b, s:I, s:I, s:I, s:s, s:s, s:I, s:o, s:o}", GT_K_EV, "header",
		      GT_K_FORMAT, GT_FORMAT_NAME, GT_K_VERSION, GT_FORMAT_VERSION, GT_K_SOURCE, GT_SOURCE_LIVE,
		      GT_K_LIVE, 1, GT_K_PID, (json_int_t)lv->pid, GT_K_PPID, (json_int_t)lv->ppid,
		      GT_K_START_TICKS, (json_int_t)lv->start_ticks, GT_K_HOST, host, GT_K_IMAGE, "live",
		      GT_K_UID, (json_int_t)lv->uid, GT_K_ARGV, argv_of(lv), GT_K_ENV, env_of(lv));
	set_if(h, GT_K_EXE, lv->exe);
	set_if(h, GT_K_CWD, lv->cwd);
	add_kernel_driver(h);
	put(f, h);
}

/* One mapped object, as the audit half's open line has it, without the
 * search that led there (none was seen). */
static void object(FILE *f, const struct host_live *lv, const struct host_live_object *ob)
{
	json_t *open = json_pack("{s:s, s:s, s:i}", GT_K_EV, "open", GT_K_PATH, ob->path, GT_K_NS, 0);

	if (!open)
		return;
	if (lv->exe && strcmp(lv->exe, ob->path) == 0)
		json_object_set_new(open, GT_K_MAIN, json_true());
	put(f, open);
}

static bool write_live(FILE *f, const struct host_live *lv)
{
	size_t i;

	header(f, lv);
	for (i = 0; i < lv->nobjects; i++)
		object(f, lv, &lv->objects[i]);
	return fflush(f) == 0 && !ferror(f);
}

static bool write_live_trace(FILE *f, const void *lv)
{
	return write_live(f, lv);
}

bool gt_report_live(struct gt_report *r, const struct host_live *lv, char *err, size_t errcap)
{
	/* judged against this host now: the process runs here */
	return gt_report_of_written_trace(r, "the live trace", write_live_trace, lv, err, errcap);
}
