/* gputrace bundle DIR: one .tar.gz for a bug report. The traces, the facts
 * file, the report as JSON and a SUMMARY.md ready to paste into an issue,
 * every member with its secrets taken out (render/redact.h) before it is
 * written, and the summary saying what was taken (names only). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/archive.h"
#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "common/xalloc.h"
#include "render/printable.h"
#include "render/redact.h"
#include "render/render.h"
#include "render/render_markdown.h"
#include "report/report.h"

#define WHO "gputrace bundle"
#define TOP "gputrace-bundle"

static void bundle_usage(void)
{
	fputs("usage: gputrace bundle [-o FILE] DIR\n"
	      "Packs the trace folder DIR for a bug report: one .tar.gz of the traces, the facts\n"
	      "file (gputrace-facts.json), the report as JSON and a SUMMARY.md ready to paste into\n"
	      "a GitHub issue (verdict, findings with fixes, libraries, host facts). The values of\n"
	      "variables and options whose names hold TOKEN, KEY, SECRET, PASSWORD, CREDENTIAL or\n"
	      "AUTH, and the user info of URLs (user:pass@), are removed from every member;\n"
	      "SUMMARY.md lists what was removed, by name.\n"
	      "  -o, --output=FILE  the archive (default: DIR.tar.gz beside DIR; for a DIR named\n"
	      "                     . or /, gputrace-bundle-<UTC time>.tar.gz here); never\n"
	      "                     written over an existing file\n"
	      "  -h, --help         this help\n"
	      "Exit status: 0 written, 2 bad usage or a DIR without traces, 125 the archive\n"
	      "could not be written.\n",
	      stdout);
}

/* A file of DIR whole, if it is a regular file (never a FIFO's wait). */
static char *read_member(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	ssize_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	buf = gt_xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size && ((got = read(fd, buf + n, (size_t)st.st_size - n)) > 0 ||
					  (got < 0 && errno == EINTR)))
		n += got > 0 ? (size_t)got : 0;
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* data cleaned of its secrets, added as name. */
static bool add_clean(struct cmd_archive *a, const char *name, const char *data, size_t len,
		      struct gt_redactions *log)
{
	size_t n;
	char *clean = gt_redact(data, len, &n, log);
	bool ok = cmd_archive_add(a, name, clean, n);

	free(clean);
	return ok;
}

/* What was removed, by name, for the summary's end. */
static void removed_section(FILE *f, const struct gt_redactions *log)
{
	size_t i;

	fputs("## Removed before sharing\n\n", f);
	if (!log->nnames && !log->urls)
		fputs("Nothing: no variable or option named like a secret (TOKEN, KEY, SECRET, PASSWORD, CREDENTIAL, "
		      "AUTH) and no URL with user info was found.\n", f);
	for (i = 0; i < log->nnames; i++)
		fprintf(f, "- the value of `%s`\n", gt_printable(log->names[i]));
	if (log->urls)
		fprintf(f, "- the user info (user:password@) of %zu URL%s\n", log->urls, log->urls == 1 ? "" : "s");
	fprintf(f, "\nEvery member of the archive was cleaned the same way: `%s` in place of each value.\n",
		GT_REDACTED);
}

typedef void (*render_fn)(FILE *f, const struct gt_report *r);

static char *rendered(const struct gt_report *r, render_fn fn, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	fn(f, r);
	fclose(f);
	return buf;
}

static void text_plain(FILE *f, const struct gt_report *r)
{
	gt_render_text(f, r, false);
}

/* SUMMARY.md: rendered, cleaned, then told what the whole archive lost. */
static bool add_summary(struct cmd_archive *a, const struct gt_report *r, struct gt_redactions *log)
{
	size_t tlen, mlen, clen;
	char *text = rendered(r, text_plain, &tlen), *md = NULL, *clean;
	FILE *f = open_memstream(&md, &mlen);
	bool ok;

	if (!f)
		abort();
	gt_render_markdown(f, r, text);
	fclose(f);
	clean = gt_redact(md, mlen, &clen, log);
	free(md);
	md = NULL;
	f = open_memstream(&md, &mlen);
	if (!f)
		abort();
	fwrite(clean, 1, clen, f);
	removed_section(f, log);
	fclose(f);
	ok = cmd_archive_add(a, TOP "/SUMMARY.md", md, mlen);
	free(text);
	free(clean);
	free(md);
	return ok;
}

static void json_plain(FILE *f, const struct gt_report *r)
{
	gt_render_json(f, r);
}

/* The traces, the facts file and the report as JSON, each cleaned. */
static bool add_data(struct cmd_archive *a, const char *dir, const struct gt_report *r, struct gt_redactions *log,
		     int *ntraces)
{
	char **files, name[PATH_MAX + 64], path[PATH_MAX + 64], *data;
	size_t len;
	bool ok = true;
	int n, i;

	n = gt_list_traces(dir, &files);
	for (i = 0; i < n && ok; i++) {
		const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];

		data = read_member(files[i], &len);
		if (!data)
			continue;
		snprintf(name, sizeof(name), TOP "/traces/%s", base);
		ok = add_clean(a, name, data, len, log);
		free(data);
		(*ntraces)++;
	}
	gt_free_list(files, n);
	snprintf(path, sizeof(path), "%s/" GT_FACTS_FILE, dir);
	data = ok ? read_member(path, &len) : NULL;
	if (data)
		ok = add_clean(a, TOP "/" GT_FACTS_FILE, data, len, log);
	free(data);
	data = rendered(r, json_plain, &len);
	ok = ok && add_clean(a, TOP "/report.json", data, len, log);
	free(data);
	return ok;
}

/* DIR.tar.gz beside DIR, or a dated name here for "." and "/". */
static void default_output(const char *dir, char *out, size_t cap)
{
	char clean[PATH_MAX];
	size_t n;
	time_t now = time(NULL);
	struct tm tm;
	const char *base;

	snprintf(clean, sizeof(clean), "%s", dir);
	for (n = strlen(clean); n > 1 && clean[n - 1] == '/'; n--)
		clean[n - 1] = 0;
	base = strrchr(clean, '/') ? strrchr(clean, '/') + 1 : clean;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		gmtime_r(&now, &tm);
		strftime(out, cap, "gputrace-bundle-%Y%m%dT%H%M%SZ.tar.gz", &tm);
		return;
	}
	snprintf(out, cap, "%s.tar.gz", clean);
}

static int bundle(const char *dir, const char *output)
{
	struct gt_redactions log = { NULL, 0, 0 };
	struct cmd_archive *a;
	struct gt_report r;
	char *paths[1] = { (char *)dir }, err[8192], out[PATH_MAX];
	int ntraces = 0;
	bool ok;

	if (!gt_report_load(&r, paths, 1, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s\n", gt_printable(err));
		gt_report_free(&r);
		return CMD_EXIT_USAGE;
	}
	gt_report_analyse(&r);
	if (output)
		snprintf(out, sizeof(out), "%s", output);
	else
		default_output(dir, out, sizeof(out));
	a = cmd_archive_create(out, err, sizeof(err));
	if (!a) {
		fprintf(stderr, WHO ": %s\n", gt_printable(err));
		gt_report_free(&r);
		return CMD_EXIT_OWN_FAILURE;
	}
	ok = add_data(a, dir, &r, &log, &ntraces) && add_summary(a, &r, &log);
	ok = cmd_archive_finish(a, err, sizeof(err)) && ok;
	if (!ok)
		fprintf(stderr, WHO ": %s\n", gt_printable(err));
	else
		printf(WHO ": %s: %d trace%s, the facts, report.json and SUMMARY.md; %zu value%s and %zu URL user "
		       "info%s removed\nThe summary, to paste into an issue: tar -xOzf %s " TOP "/SUMMARY.md\n",
		       gt_printable(out), ntraces, ntraces == 1 ? "" : "s", log.nnames, log.nnames == 1 ? "" : "s",
		       log.urls, log.urls == 1 ? "" : "s", gt_printable(out));
	gt_redactions_free(&log);
	gt_report_free(&r);
	return ok ? 0 : CMD_EXIT_OWN_FAILURE;
}

int cmd_bundle_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	struct stat st;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			bundle_usage();
			return 0;
		}
		if (c != 'o')
			return cmd_bad_option(WHO, CMD_EXIT_USAGE, c, argv);
		output = optarg;
	}
	if (optind >= argc)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "no trace folder given");
	if (argc - optind > 1)
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "one trace folder at a time");
	if (stat(argv[optind], &st) != 0 || !S_ISDIR(st.st_mode))
		return cmd_usage_error(WHO, CMD_EXIT_USAGE, "%s: not a folder of traces", argv[optind]);
	return bundle(argv[optind], output);
}
