/* A running process read from /proc (see proc_live.h). Nothing here stops,
 * signals or writes to the process: /proc's files are read as any tool
 * (ps, pmap) reads them, and the start time read first and last says
 * whether the same process answered throughout. */
#define _GNU_SOURCE
#include "host/proc_live.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/trace_file.h"
#include "common/whole_file.h"
#include "common/xalloc.h"

#define LIVE_MAX_FILE (64u << 20)  /* no /proc file of one process is larger */

/* NUL-separated strings (cmdline, environ) as an array. */
static char **split_nul(const char *buf, size_t len, size_t *count)
{
	char **v = NULL;
	size_t i = 0, n = 0;

	while (i < len) {
		size_t k = strnlen(buf + i, len - i);

		v = gt_xrealloc(v, (n + 1) * sizeof(*v));
		v[n] = gt_xmalloc(k + 1);
		memcpy(v[n], buf + i, k);
		v[n++][k] = 0;
		i += k + 1;
	}
	*count = n;
	return v;
}

static char *link_target(long pid, const char *what)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return gt_xstrdup(buf);
}

/* Is the file at path an ELF object? A file that cannot be opened (deleted,
 * or in another mount namespace) is taken as one: the kernel mapped it
 * executable, and only loaded code is mapped so. */
static bool looks_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	unsigned char magic[4];
	struct stat st;
	bool elf;

	if (fd < 0)
		return true;
	elf = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pread(fd, magic, 4, 0) == 4 &&
	      memcmp(magic, "\177ELF", 4) == 0;
	close(fd);
	return elf;
}

struct seen_file {
	char *path;
	bool exec, deleted;
};

/* One maps line's file: its path (after the inode column), whether the
 * mapping is executable. False for anonymous and special mappings. */
static bool maps_line_file(char *line, char **path, bool *exec, bool *deleted)
{
	char perms[8];
	unsigned long long inode;
	int at = 0;
	size_t n;

	if (sscanf(line, "%*s %7s %*s %*s %llu %n", perms, &inode, &at) < 2 || !at || !inode)
		return false;
	*path = line + at;
	if (**path != '/')
		return false;
	n = strcspn(*path, "\n");
	(*path)[n] = 0;
	*deleted = n > 10 && strcmp(*path + n - 10, " (deleted)") == 0;
	if (*deleted)
		(*path)[n - 10] = 0;
	*exec = perms[2] == 'x';
	return true;
}

/* The files of maps, each once in the order of its first mapping, kept
 * when one of its mappings is executable and it is an ELF object. */
static void take_objects(struct host_live *lv, char *maps)
{
	struct seen_file *seen = NULL;
	size_t nseen = 0, i;
	char *line, *save = NULL, *path;
	bool exec, deleted;

	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!maps_line_file(line, &path, &exec, &deleted))
			continue;
		for (i = 0; i < nseen && strcmp(seen[i].path, path) != 0; i++)
			;
		if (i == nseen) {
			seen = gt_xrealloc(seen, (nseen + 1) * sizeof(*seen));
			seen[nseen].path = gt_xstrdup(path);
			seen[nseen].exec = seen[nseen].deleted = false;
			nseen++;
		}
		seen[i].exec |= exec;
		seen[i].deleted |= deleted;
	}
	lv->objects = gt_xcalloc(nseen ? nseen : 1, sizeof(*lv->objects));
	for (i = 0; i < nseen; i++) {
		if (seen[i].exec && (seen[i].deleted || looks_elf(seen[i].path))) {
			lv->objects[lv->nobjects].path = seen[i].path;
			lv->objects[lv->nobjects++].deleted = seen[i].deleted;
		} else {
			free(seen[i].path);
		}
	}
	free(seen);
}

/* ppid and start time from /proc/PID/stat (after the command's last ')',
 * which may itself hold spaces and parentheses); false for a zombie. */
static bool parse_stat(const char *stat, struct host_live *lv, bool *zombie)
{
	const char *p = strrchr(stat, ')');
	char state;
	int field;

	*zombie = false;
	if (!p || sscanf(p + 1, " %c %ld", &state, &lv->ppid) != 2)
		return false;
	*zombie = state == 'Z' || state == 'X';
	/* field 3 is the state; the start time is field 22 */
	for (field = 3, p += 2; field < 22 && p; field++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	return p && sscanf(p, "%llu", &lv->start_ticks) == 1;
}

static const char *user_name(long uid, char *buf, size_t cap)
{
	struct passwd *pw = getpwuid((uid_t)uid);

	snprintf(buf, cap, "%s", pw ? pw->pw_name : "another user");
	return buf;
}

/* The first read: the process exists, is whose, and who we are. */
static enum host_live_status first_look(long pid, struct host_live *lv, char *err, size_t errcap)
{
	char path[64], *stat_text, who[128];
	struct stat st;
	size_t len;
	bool zombie;

	snprintf(path, sizeof(path), "/proc/%ld", pid);
	if (pid <= 0 || stat(path, &st) != 0) {
		snprintf(err, errcap, "no process has pid %ld", pid);
		return HOST_LIVE_NO_SUCH;
	}
	lv->uid = (long)st.st_uid;
	if (geteuid() != 0 && st.st_uid != geteuid()) {
		snprintf(err, errcap, "pid %ld is %s's process (uid %ld): not permitted; inspect reads processes "
			 "of your own user, or any process as root", pid, user_name(lv->uid, who, sizeof(who)),
			 lv->uid);
		return HOST_LIVE_NOT_PERMITTED;
	}
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	stat_text = gt_read_whole_path(path, LIVE_MAX_FILE, &len);
	if (!stat_text) {
		snprintf(err, errcap, "pid %ld exited as it was read", pid);
		return HOST_LIVE_GONE;
	}
	if (!parse_stat(stat_text, lv, &zombie) || zombie) {
		snprintf(err, errcap, zombie ? "pid %ld has exited (a zombie: its parent has not reaped it)"
			 : "pid %ld: /proc/%ld/stat cannot be read", pid, pid);
		free(stat_text);
		return zombie ? HOST_LIVE_GONE : HOST_LIVE_UNREADABLE;
	}
	free(stat_text);
	return HOST_LIVE_OK;
}

/* What a failed read of /proc/PID/<what> means. */
static enum host_live_status read_failed(long pid, const char *what, int e, char *err, size_t errcap)
{
	if (e == ENOENT || e == ESRCH || !gt_start_ticks_of(pid)) {
		snprintf(err, errcap, "pid %ld exited as it was read", pid);
		return HOST_LIVE_GONE;
	}
	if (e == EACCES || e == EPERM) {
		snprintf(err, errcap, "pid %ld: /proc/%ld/%s: not permitted (a set-user-ID program, or "
			 "ptrace access is restricted: kernel.yama.ptrace_scope)", pid, pid, what);
		return HOST_LIVE_NOT_PERMITTED;
	}
	snprintf(err, errcap, "pid %ld: /proc/%ld/%s: %s", pid, pid, what, strerror(e));
	return HOST_LIVE_UNREADABLE;
}

enum host_live_status host_live_read(long pid, struct host_live *lv, char *err, size_t errcap)
{
	static const char *const files[] = { "maps", "cmdline", "environ" };
	char *text[3] = { NULL, NULL, NULL }, path[64];
	enum host_live_status st;
	size_t len[3] = { 0, 0, 0 }, i;

	memset(lv, 0, sizeof(*lv));
	lv->pid = pid;
	st = first_look(pid, lv, err, errcap);
	for (i = 0; i < 3 && st == HOST_LIVE_OK; i++) {
		snprintf(path, sizeof(path), "/proc/%ld/%s", pid, files[i]);
		text[i] = gt_read_whole_path(path, LIVE_MAX_FILE, &len[i]);
		if (!text[i])
			st = read_failed(pid, files[i], errno, err, errcap);
	}
	if (st == HOST_LIVE_OK) {
		lv->exe = link_target(pid, "exe");
		lv->cwd = link_target(pid, "cwd");
		take_objects(lv, text[0]);
		lv->argv = split_nul(text[1], len[1], &lv->argc);
		lv->env = split_nul(text[2], len[2], &lv->nenv);
		/* Another process with the pid now, or none: what was read may be
		 * half of one and half of the other. */
		if (gt_start_ticks_of(pid) != lv->start_ticks) {
			snprintf(err, errcap, "pid %ld exited as it was read", pid);
			st = HOST_LIVE_GONE;
		}
	}
	for (i = 0; i < 3; i++)
		free(text[i]);
	return st;
}

const char *host_live_env(const struct host_live *lv, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < lv->nenv; i++)
		if (strncmp(lv->env[i], name, n) == 0 && lv->env[i][n] == '=')
			return lv->env[i] + n + 1;
	return NULL;
}

void host_live_free(struct host_live *lv)
{
	size_t i;

	for (i = 0; i < lv->nobjects; i++)
		free(lv->objects[i].path);
	for (i = 0; i < lv->argc; i++)
		free(lv->argv[i]);
	for (i = 0; i < lv->nenv; i++)
		free(lv->env[i]);
	free(lv->objects);
	free(lv->argv);
	free(lv->env);
	free(lv->exe);
	free(lv->cwd);
	memset(lv, 0, sizeof(*lv));
}
