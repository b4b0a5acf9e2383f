/* `ld.so --help`, asked once per boot and loader file (ldso_help.h). The
 * cache is ${XDG_CACHE_HOME:-$HOME/.cache}/gputrace/ld.so-help: one key line,
 * then ld.so's text; written to a temporary file and renamed, so a reader
 * never sees half of one. */
#define _GNU_SOURCE
#include "host/ldso_help.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/whole_file.h"
#include "common/xalloc.h"

#define HELP_MAX (64 * 1024)
#define KEY_MAX 512
#define CACHE_NAME "ld.so-help"

/* ld.so --help with only GLIBC_TUNABLES in its environment (the one
 * variable that changes its answer: glibc.cpu.hwcaps). */
static char *run_ldso_help(const char *ldso)
{
	char *argv[] = { (char *)"ld.so", (char *)"--help", NULL }, *text = NULL, *tun = NULL;
	const char *tunables = getenv("GLIBC_TUNABLES");
	char *envp[2] = { NULL, NULL };
	size_t len;
	posix_spawn_file_actions_t fa;
	int pipefd[2], status;
	pid_t pid = -1;

	if (tunables)
		envp[0] = tun = gt_xasprintf("GLIBC_TUNABLES=%s", tunables);
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		goto out;
	if (posix_spawn_file_actions_init(&fa) == 0) {
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
		if (posix_spawn(&pid, ldso, &fa, NULL, argv, envp) != 0)
			pid = -1;
		posix_spawn_file_actions_destroy(&fa);
	}
	close(pipefd[1]);
	if (pid > 0)
		text = gt_read_whole(pipefd[0], HELP_MAX, &len);
	close(pipefd[0]);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (text && (pid <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !*text)) {
		free(text);
		text = NULL;
	}
out:
	free(tun);
	return text;
}

/* What the answer depends on: the loader file, this boot (the CPU), the tunables. */
static bool cache_key(const char *ldso, char *key, size_t cap)
{
	char boot[64] = "";
	struct stat st;
	FILE *f;

	if (stat(ldso, &st) != 0)
		return false;
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f)
		return false;
	if (!fgets(boot, sizeof(boot), f))
		boot[0] = 0;
	fclose(f);
	boot[strcspn(boot, "\n")] = 0;
	return boot[0] &&
	       snprintf(key, cap, "gputrace ld.so --help: %s %llu:%llu:%lld:%lld.%09ld boot %s tunables %s\n", ldso,
			(unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, boot,
			getenv("GLIBC_TUNABLES") ? getenv("GLIBC_TUNABLES") : "-") < (int)cap;
}

/* The cache folder, made if needed; NULL when there is none to use. */
static char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *base, *dir;

	if (xdg && xdg[0] == '/')
		base = gt_xstrdup(xdg);
	else if (home && home[0] == '/')
		base = gt_xasprintf("%s/.cache", home);
	else
		return NULL;
	dir = gt_xasprintf("%s/gputrace", base);
	if ((mkdir(base, 0700) != 0 && errno != EEXIST) || (mkdir(dir, 0700) != 0 && errno != EEXIST)) {
		free(dir);
		dir = NULL;
	}
	free(base);
	return dir;
}

static char *cached_text(const char *path, const char *key)
{
	size_t klen = strlen(key), len;
	char *text;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return NULL;
	text = gt_read_whole(fd, HELP_MAX, &len);
	close(fd);
	if (!text || strncmp(text, key, klen) != 0 || !text[klen]) {
		free(text);
		return NULL;
	}
	memmove(text, text + klen, strlen(text + klen) + 1);
	return text;
}

static void store(const char *dir, const char *path, const char *key, const char *text)
{
	char *tmp = gt_xasprintf("%s/.%s.XXXXXX", dir, CACHE_NAME);
	int fd = mkstemp(tmp);
	bool ok;

	if (fd < 0) {
		free(tmp);
		return;
	}
	ok = write(fd, key, strlen(key)) == (ssize_t)strlen(key) &&
	     write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
	free(tmp);
}

char *host_ldso_help(const char *ldso)
{
	char key[KEY_MAX], *dir = NULL, *path = NULL, *text = NULL;

	if (cache_key(ldso, key, sizeof(key)) && (dir = cache_dir()) != NULL) {
		path = gt_xasprintf("%s/%s", dir, CACHE_NAME);
		text = cached_text(path, key);
	}
	if (!text) {
		text = run_ldso_help(ldso);
		if (text && path)
			store(dir, path, key, text);
	}
	free(path);
	free(dir);
	return text;
}
