/* Runs a command with libgputrace.so in LD_AUDIT and LD_PRELOAD, its stdio
 * untouched, forwarding the signals someone sent to gputrace, and returns the
 * command's own exit status (128+N when signal N killed it). */
#define _GNU_SOURCE
#include "cmd/launch.h"

#include "cmd/checkers.h"
#include "cmd/cli.h"
#include "cmd/cmd.h"

#include "gputrace/trace_format.h"
#include "common/jline.h"
#include "common/trace_file.h"
#include "facts/facts.h"
#include "host/caches.h"
#include "read/trace_read.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOG_PREFIX "gputrace: "
/* The default limit on the diagnosis at exit, in seconds: far above what a
 * real trace takes (a 20,000-copy trace is about 1 s), well below a hang. */
#define DIAGNOSIS_TIMEOUT_S 60

static volatile sig_atomic_t child_pid;

bool cmd_prepend_path_list(char *out, size_t cap, const char *lib, const char *old)
{
	const char *p;
	size_t ll = strlen(lib);
	int n;

	if (!old || !*old)
		return (size_t)snprintf(out, cap, "%s", lib) < cap;
	/* Already in the list (gputrace under gputrace): keep the list as it is. */
	for (p = old; (p = strstr(p, lib)) != NULL; p += ll)
		if ((p == old || p[-1] == ':' || p[-1] == ' ') &&
		    (p[ll] == 0 || p[ll] == ':' || p[ll] == ' '))
			return (size_t)snprintf(out, cap, "%s", old) < cap;
	n = snprintf(out, cap, "%s:%s", lib, old);
	return n > 0 && (size_t)n < cap;
}

static bool usable_library(const char *path)
{
	return access(path, R_OK) == 0;
}

static void note_looked(char *looked, size_t cap, const char *path)
{
	size_t len = strlen(looked);

	snprintf(looked + len, cap - len, "%s%s", len ? ", " : "", path);
}

bool cmd_own_folder(char *out, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", out, cap - 1);
	char *slash;

	if (n <= 0)
		return false;
	out[n] = 0;
	slash = strrchr(out, '/');
	if (!slash)
		return false;
	*slash = 0;
	return true;
}

bool cmd_find_beside(const char *name, char *out, size_t cap)
{
	static const char *const rel[] = { "", "../lib/gputrace/" };
	char self[PATH_MAX];
	size_t i;

	if (!cmd_own_folder(self, sizeof(self)))
		return false;
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if ((size_t)snprintf(out, cap, "%s/%s%s", self, rel[i], name) < cap && access(out, F_OK) == 0)
			return true;
	return false;
}

bool cmd_find_library(char *out, size_t cap, char *looked, size_t looked_cap)
{
	const char *env = getenv("GPUTRACE_LIB");
	static const char *const rel[] = { "libgputrace.so", "../lib/gputrace/libgputrace.so",
					   "../lib/libgputrace.so" };
	char self[PATH_MAX];
	size_t i;

	looked[0] = 0;
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		if (usable_library(out))
			return true;
		note_looked(looked, looked_cap, out);
		return false;
	}
	if (!cmd_own_folder(self, sizeof(self)))
		return false;
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char cand[PATH_MAX + 64];

		snprintf(cand, sizeof(cand), "%s/%s", self, rel[i]);
		if (usable_library(cand) && realpath(cand, out))
			return true;
		note_looked(looked, looked_cap, cand);
	}
	return false;
}

int cmd_resolve_command(const char *cmd, char *out, size_t cap)
{
	const char *path = getenv("PATH"), *p, *end;
	int err = ENOENT;

	if (strchr(cmd, '/')) {
		snprintf(out, cap, "%s", cmd);
		if (access(out, F_OK) != 0)
			return errno;
		return access(out, X_OK) == 0 ? 0 : EACCES;
	}
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (p = path; ; p = end + 1) {
		struct stat st;
		size_t dl;

		end = strchrnul(p, ':');
		dl = (size_t)(end - p);
		snprintf(out, cap, "%.*s%s%s", (int)dl, p, dl ? "/" : "", cmd);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			err = EACCES;
		}
		if (!*end)
			break;
	}
	return err;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The dynamic loader takes LD_AUDIT and LD_PRELOAD only in dynamically linked
 * programs, and in set-user-ID/set-group-ID ones only from secure folders. */
const char *cmd_untraceable_reason(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	struct stat st;
	int fd, i;
	bool interp = false;

	if (stat(path, &st) != 0)
		return NULL;
	/* Secure mode comes when exec changes the ids: set-user-ID to an owner
	 * who is not us, set-group-ID to a group that is not ours. */
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid()))
		return "is set-user-ID or set-group-ID: the loader ignores LD_AUDIT and LD_PRELOAD "
		       "paths outside its secure folders there";
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		goto out;  /* a script, or not ours to judge: let the kernel decide */
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) != sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			interp = true;
	}
	/* No PT_INTERP: static (or static-pie), unless it is the loader itself. */
	if (!interp && (eh.e_type == ET_EXEC || strncmp(base_of(path), "ld-", 3) != 0)) {
		close(fd);
		return "is statically linked: no dynamic loader runs in it, so LD_AUDIT and "
		       "LD_PRELOAD are not taken and nothing can be traced";
	}
out:
	close(fd);
	return NULL;
}

/* The parent of pid, from /proc/PID/stat (field 4, after the command name in
 * parentheses, which may hold anything): open, read and close only, so that
 * a signal handler may ask. 0 when it cannot be read. */
static pid_t parent_of(pid_t pid)
{
	char path[40], buf[512], *p;
	long ppid = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return 0;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	return (pid_t)ppid;
}

/* Was the signal sent by the command or one of its descendants (a program
 * doing `kill -USR1 $PPID`)? Bare, it would reach the command's parent, not
 * the command: sending it back would kill the command with it. */
static bool sent_by_command(const siginfo_t *si)
{
	pid_t pid = si->si_pid, self = getpid();
	int depth;

	if (si->si_code != SI_USER && si->si_code != SI_QUEUE && si->si_code != SI_TKILL)
		return false;
	for (depth = 0; pid > 1 && depth < 64; depth++) {
		if (pid == child_pid)
			return true;
		if (pid == self)
			return false;
		pid = parent_of(pid);
	}
	return false;
}

/* The same signal from the same sender again within this long is the
 * same event: `timeout` sends its signal to gputrace and at once to its
 * whole group, gputrace again. The kernel merges the two into one pending
 * signal when they meet before the handler runs, as it does for the bare
 * command; when gputrace's handler ran between them (a loaded machine, CI
 * at 9152f0a), both were forwarded and Python, interrupted again while it
 * printed the first KeyboardInterrupt, lost its traceback. */
#define SAME_SIGNAL_NS 50000000LL

static bool repeat_of_last(int sig, const siginfo_t *si)
{
	static int last_sig;
	static pid_t last_pid;
	static long long last_ns;
	struct timespec ts;
	long long now;
	bool repeat;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return false;
	now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	repeat = last_sig == sig && last_pid == si->si_pid && now - last_ns < SAME_SIGNAL_NS;
	last_sig = sig;
	last_pid = si->si_pid;
	last_ns = now;
	return repeat;
}

/* Forward what someone sent to gputrace itself. A terminal's Ctrl-C already
 * reaches the whole foreground group, the command too: forwarding it would
 * deliver it twice, so signals the kernel generated are not forwarded; nor
 * those the command sent to its parent; nor the second of a pair sent at
 * once (repeat_of_last). The handlers run with every forwarded signal
 * blocked (install_forwarding), so repeat_of_last's state is one handler's
 * at a time. */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (child_pid > 0 && si && si->si_code != SI_KERNEL && !sent_by_command(si) && !repeat_of_last(sig, si))
		kill(child_pid, sig);
	errno = saved;
}

static void catch_stop(int sig);

/* Job control, as `timeout --foreground` does it: a stop sent to gputrace
 * stops the command, then gputrace itself (so the shell sees the job
 * stopped); a terminal's Ctrl-Z reached the command already. */
static void stop_with_child(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	sigset_t set;

	(void)uc;
	if (child_pid > 0 && si && si->si_code != SI_KERNEL && !sent_by_command(si))
		kill(child_pid, sig);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	/* Continued: catch the next stop the same way. */
	catch_stop(sig);
	errno = saved;
}

static void continue_child(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	(void)si;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

/* A signal ignored when gputrace starts stays ignored: not caught here, so
 * exec keeps it ignored for the command (nohup works as without us). With
 * block_forwarded, the handler runs with every forwarded signal blocked. */
static void catch_unless_ignored(int sig, void (*fn)(int, siginfo_t *, void *), bool block_forwarded)
{
	struct sigaction sa, old;
	size_t i;

	if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; block_forwarded && i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&sa.sa_mask, forwarded[i]);
	sigaction(sig, &sa, NULL);
}

static void catch_stop(int sig)
{
	catch_unless_ignored(sig, stop_with_child, false);
}

static void install_forwarding(void)
{
	size_t i;

	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		catch_unless_ignored(forwarded[i], forward_signal, true);
	catch_stop(SIGTSTP);
	catch_unless_ignored(SIGCONT, continue_child, false);
}

/* In the child, before exec: the signals gputrace caught go back to their
 * defaults (exec does that too; ignored ones were never touched), and the
 * command ends with gputrace (SIGTERM when gputrace dies) unless
 * GPUTRACE_KEEP_ORPHAN=1 asks to let it run on. */
static void tie_to_parent(pid_t parent)
{
	const char *keep = getenv("GPUTRACE_KEEP_ORPHAN");

	if (keep && strcmp(keep, "1") == 0)
		return;
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != parent)
		raise(SIGTERM);  /* gputrace died before the tie was made */
}

static int status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

/* The child: exec the command; on failure send errno up the CLOEXEC pipe. */
static void exec_child(const char *exe, char *const *argv, int err_fd)
{
	int e;

	if (exe)
		execv(exe, argv);
	else
		execvp(argv[0], argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0) {
		/* nothing more we can say */
	}
	_exit(127);
}

/* Without a controlling terminal (CI, batch jobs, nohup, a container
 * without -t) the command gets a process group of its own. A signal sent to
 * gputrace's group (`timeout` sends its signal to the command and then to
 * its whole group; `kill 0` in a script) then reaches the command once,
 * through gputrace, instead of once directly and once forwarded: a second
 * SIGINT arriving while Python prints the first KeyboardInterrupt loses its
 * traceback ("lost sys.stderr"). With a terminal, the command stays in
 * gputrace's group, so that it keeps the terminal's foreground and job
 * control; a terminal's own signals are not forwarded (see forward_signal). */
static bool command_gets_own_group(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return true;
}

/* What the command's own process sets up between fork and exec: the
 * caller's settings (cmd_launch_opts: environment, folder, stdout), then,
 * when traced, the loader's variables and the trace folder. gputrace's own
 * process keeps its environment, folder and file descriptors as they were. */
struct child_setup {
	const struct cmd_launch_opts *o;
	const char *lib;          /* libgputrace.so, or NULL: run untraced */
	const char *dir;          /* the trace folder */
	const char *resolved;     /* the command's file, for the sanitizer checks, or NULL */
};

static bool set_loader_env(const char *lib);

static void apply_env_edits(char *const *env)
{
	char name[256];
	const char *eq;

	for (; env && *env; env++) {
		eq = strchr(*env, '=');
		if (!eq) {
			unsetenv(*env);
			continue;
		}
		if ((size_t)(eq - *env) < sizeof(name)) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
			setenv(name, eq + 1, 1);
		}
	}
}

/* In the child: false (with a line on stderr) when it cannot be set up. */
static bool setup_child(const struct child_setup *cs)
{
	const struct cmd_launch_opts *o = cs->o;

	apply_env_edits(o->env);
	if (o->cwd && chdir(o->cwd) != 0) {
		fprintf(stderr, LOG_PREFIX "cannot go to %s: %s\n", o->cwd, strerror(errno));
		return false;
	}
	if (o->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return false;
	if (!cs->lib)
		return true;
	if (!set_loader_env(cs->lib) || setenv("GPUTRACE_DIR", cs->dir, 1) != 0)
		return false;
	cmd_checkers_adapt(cs->resolved, cs->lib, o->quiet);
	return true;
}

/* Runs argv as cs sets it up; returns its exit status. Prints a shell-like
 * message and returns 127/126 when it cannot be run. *pid and *wstatus say
 * which process it was and how it ended (pid 0: never ran). */
static int run_command(const struct child_setup *cs, const char *exe, char *const *argv, pid_t *child,
		       int *wstatus_out)
{
	int pipefd[2], e = 0, wstatus;
	pid_t pid, w, parent;
	bool own_group;
	ssize_t n;

	*child = 0;

	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		fprintf(stderr, LOG_PREFIX "pipe: %s\n", strerror(errno));
		return CMD_EXIT_OWN_FAILURE;
	}
	install_forwarding();
	parent = getpid();
	own_group = command_gets_own_group();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, LOG_PREFIX "fork: %s\n", strerror(errno));
		return CMD_EXIT_OWN_FAILURE;
	}
	if (pid == 0) {
		close(pipefd[0]);
		if (own_group)
			setpgid(0, 0);
		tie_to_parent(parent);
		if (!setup_child(cs))
			_exit(CMD_EXIT_OWN_FAILURE);
		exec_child(exe, argv, pipefd[1]);
	}
	/* Both sides set it, so that no signal can come before it is set. */
	if (own_group)
		setpgid(pid, pid);
	child_pid = pid;
	close(pipefd[1]);
	do
		n = read(pipefd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	do
		w = waitpid(pid, &wstatus, 0);
	while (w < 0 && errno == EINTR);
	child_pid = 0;
	if (n == (ssize_t)sizeof(e)) {
		fprintf(stderr, LOG_PREFIX "%s: %s\n", exe ? exe : argv[0],
			e == ENOENT && !exe && !strchr(argv[0], '/') ? "command not found" : strerror(e));
		return e == ENOENT ? 127 : 126;
	}
	if (w < 0)
		return CMD_EXIT_OWN_FAILURE;
	*child = pid;
	*wstatus_out = wstatus;
	return status_of(wstatus);
}

/* The trace of the process we started: <host>.<pid>[.<k>].jsonl in dir whose
 * header names that pid; the newest when a pid repeats. */
static bool find_child_trace(const char *dir, pid_t pid, char *out, size_t cap)
{
	char prefix[300], host[256], **files;
	int n = gt_list_traces(dir, &files), i;
	time_t newest = 0;
	struct stat st;

	/* Our host too: a folder shared by many hosts holds the same pids. */
	gt_host_name(host, sizeof(host));
	snprintf(prefix, sizeof(prefix), "%s.%d.", host, (int)pid);
	out[0] = 0;
	for (i = 0; i < n; i++) {
		const char *base = strrchr(files[i], '/');

		base = base ? base + 1 : files[i];
		if (strncmp(base, prefix, strlen(prefix)) != 0)
			continue;
		if (lstat(files[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime >= newest) {
			newest = st.st_mtime;
			snprintf(out, cap, "%s", files[i]);
		}
	}
	gt_free_list(files, n);
	return out[0] != 0;
}

/* A process killed before its exit leaves the room its writer reserved as
 * NUL bytes at the end of its file (gputrace-trace(5)). Once it is reaped
 * nothing maps that file any more: the NULs go, so that the reaped line
 * follows the last line written and line tools (jq) read the file. A line
 * the kill cut short keeps one NUL and gets its newline: the reader still
 * sees a cut line, and it stays a line of its own. */
static void trim_unwritten_tail(int fd)
{
	char buf[4096];
	struct stat st;
	off_t end;
	ssize_t n, i;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	for (end = st.st_size; end > 0; end -= n) {
		n = end < (off_t)sizeof(buf) ? (ssize_t)end : (ssize_t)sizeof(buf);
		if (pread(fd, buf, (size_t)n, end - n) != n)
			return;
		for (i = n; i > 0 && buf[i - 1] == 0; i--)
			;
		if (i > 0) {
			end = end - n + i;
			break;
		}
	}
	if (end == st.st_size)
		return;
	if (end > 0 && pread(fd, buf, 1, end - 1) == 1 && buf[0] != '\n') {
		if (ftruncate(fd, end + 1) == 0)
			gt_write_all(fd, "\n", 1);      /* after the one NUL kept */
		return;
	}
	if (ftruncate(fd, end) != 0)
		return;                          /* the NULs stay: the reader copes */
}

/* Appends how the process ended to its trace: the process is gone, so this
 * line comes last; the report tells a signal from an exit by it. */
static void record_reaped(const char *dir, pid_t pid, int wstatus)
{
	char path[PATH_MAX], buf[256];
	struct jline j;
	int fd;

	if (!pid || !find_child_trace(dir, pid, path, sizeof(path)))
		return;
	fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	trim_unwritten_tail(fd);
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_REAPED));
	jl_int(&j, GT_K_PID, pid);
	if (WIFSIGNALED(wstatus))
		jl_int(&j, GT_K_SIGNAL, WTERMSIG(wstatus));
	else
		jl_int(&j, GT_K_EXIT_STATUS, WEXITSTATUS(wstatus));
	gt_write_all(fd, buf, jl_end(&j));
	close(fd);
}

/* The folder traces go to: -o DIR (created 0700 if missing), else
 * $GPUTRACE_DIR, else a fresh ${TMPDIR:-/tmp}/gputrace.XXXXXX. Absolute, since
 * the command may change its working folder. */
/* A trace folder is ours to write: not a symbolic link (which anyone who
 * can write its folder may point elsewhere), and not a folder another user
 * owns (who could replace what we write) unless GPUTRACE_SHARED_DIR=1 says
 * that is meant (a job's shared folder). */
static bool trusted_folder(const char *path)
{
	const char *shared = getenv("GPUTRACE_SHARED_DIR");
	struct stat st;

	if (lstat(path, &st) != 0) {
		fprintf(stderr, LOG_PREFIX "cannot use %s: %s\n", path, strerror(errno));
		return false;
	}
	if (shared && strcmp(shared, "1") == 0)
		return true;
	if (S_ISLNK(st.st_mode)) {
		fprintf(stderr, LOG_PREFIX "%s is a symbolic link: name the folder itself (or set "
			"GPUTRACE_SHARED_DIR=1)\n", path);
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, LOG_PREFIX "%s: not a directory\n", path);
		return false;
	}
	if (st.st_uid != geteuid()) {
		fprintf(stderr, LOG_PREFIX "%s belongs to another user (uid %u), who could change the "
			"traces: use a folder of your own (or set GPUTRACE_SHARED_DIR=1)\n", path,
			(unsigned)st.st_uid);
		return false;
	}
	return true;
}

static bool prepare_out_dir(const char *want, char *out, size_t cap, bool *made_temp)
{
	const char *tmp = getenv("TMPDIR");
	char templ[PATH_MAX];

	if (!want || !*want)
		want = getenv("GPUTRACE_DIR");
	if (want && *want) {
		if (mkdir(want, 0700) != 0 && errno != EEXIST) {
			fprintf(stderr, LOG_PREFIX "cannot create %s: %s\n", want, strerror(errno));
			return false;
		}
		if (!trusted_folder(want))
			return false;
		if (!realpath(want, out) || access(out, W_OK | X_OK) != 0) {
			fprintf(stderr, LOG_PREFIX "cannot write traces into %s: %s\n", want,
				strerror(errno));
			return false;
		}
		return true;
	}
	snprintf(templ, sizeof(templ), "%s/gputrace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ)) {
		fprintf(stderr, LOG_PREFIX "cannot create %s: %s\n", templ, strerror(errno));
		return false;
	}
	snprintf(out, cap, "%s", templ);
	*made_temp = true;
	return true;
}

/* LD_AUDIT and LD_PRELOAD split their lists at ':' (LD_PRELOAD at spaces too). */
static bool set_loader_env(const char *lib)
{
	static const char *const vars[] = { "LD_AUDIT", "LD_PRELOAD" };
	char value[16384];
	size_t i;

	/* (a path with ':' or a space is refused before the fork) */
	for (i = 0; i < 2; i++) {
		if (!cmd_prepend_path_list(value, sizeof(value), lib, getenv(vars[i])) ||
		    setenv(vars[i], value, 1) != 0) {
			fprintf(stderr, LOG_PREFIX "cannot set %s\n", vars[i]);
			return false;
		}
	}
	return true;
}


static bool launched_as_rank(void)
{
#define GT_ENV_NAME(name) name,
	static const char *const vars[] = { GT_RANK_VARS(GT_ENV_NAME) NULL };
#undef GT_ENV_NAME
	int i;

	for (i = 0; vars[i]; i++)
		if (getenv(vars[i]) && *getenv(vars[i]))
			return true;
	return false;
}

/* With -o DIR the diagnosis is kept next to the traces, as report.txt. */
/* A report.txt of ours: our own regular file, no other link to it, that
 * reads as a report (its first line is the one gputrace report writes). */
static bool report_is_ours(const char *path)
{
	static const char head[] = "gputrace report: ";
	char first[sizeof(head)] = "";
	struct stat st;
	int fd;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1)
		return false;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (read(fd, first, sizeof(head) - 1) != (ssize_t)sizeof(head) - 1)
		first[0] = 0;
	close(fd);
	return memcmp(first, head, sizeof(head) - 1) == 0;
}

/* Where this run's report goes: DIR/report.txt, unless a report.txt is
 * there that this run may not replace. Only a report of an earlier run
 * into the same folder may go (--append, or the ranks of a job: the folder
 * held traces before this run); anything else there (a user's own
 * report.txt, a report of traces since removed) is left alone, and the
 * report gets the first free report-N.txt, said on stderr. */
static void choose_report_path(const char *dir, bool had_traces, char *out, size_t cap)
{
	struct stat st;
	int k;

	snprintf(out, cap, "%s/report.txt", dir);
	if (lstat(out, &st) != 0 || (had_traces && report_is_ours(out)))
		return;
	for (k = 2; k < 1000; k++) {
		snprintf(out, cap, "%s/report-%d.txt", dir, k);
		if (lstat(out, &st) != 0)
			break;
	}
	fprintf(stderr, LOG_PREFIX "%s/report.txt was there before this run and is left alone; this "
		"run's report goes to %s\n", dir, out);
}

/* The report is made like the traces: a new file (O_EXCL, never through a
 * link), 0600; report.txt of an earlier run into the folder is replaced
 * (choose_report_path said it may be). A write that fails (a full disk) is
 * said in one line and the partial file goes: a cut report would read as a
 * whole one. */
static FILE *open_report(const char *path)
{
	FILE *f;
	int fd;

	if (report_is_ours(path))
		unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, LOG_PREFIX "cannot write %s: %s; the report is not kept\n", path,
			strerror(errno));
		return NULL;
	}
	return f;
}

static void close_report(FILE *f, const char *dir, const char *path)
{
	int err = cmd_close_checked(f);

	if (err) {
		unlink(path);
		fprintf(stderr, LOG_PREFIX "cannot write %s: %s; the report is not kept (the traces "
			"are: gputrace report %s)\n", path, strerror(err), dir);
	}
}

/* Seconds the diagnosis at exit may take (GPUTRACE_DIAGNOSIS_TIMEOUT; 0: no
 * limit): a trace the reader is slow on must not hold the command's exit. */
static double diagnosis_limit(void)
{
	const char *v = getenv("GPUTRACE_DIAGNOSIS_TIMEOUT");
	char *end;
	double s;

	if (!v || !*v)
		return DIAGNOSIS_TIMEOUT_S;
	s = strtod(v, &end);
	if (*end || s < 0 || s != s) {
		fprintf(stderr, LOG_PREFIX "GPUTRACE_DIAGNOSIS_TIMEOUT=%s is not a number of seconds; "
			"using %d\n", v, DIAGNOSIS_TIMEOUT_S);
		return DIAGNOSIS_TIMEOUT_S;
	}
	return s;
}

/* Waits for the diagnosis child up to limit seconds (0: for ever). SIGCHLD
 * is blocked by the caller, so that sigtimedwait sleeps until the child
 * ends instead of polling. Returns false when the time ran out. */
static bool wait_limited(pid_t pid, int *st, double limit)
{
	struct timespec now, end, left;
	sigset_t chld;
	pid_t r;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)limit;
	end.tv_nsec += (long)((limit - (double)(time_t)limit) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		r = waitpid(pid, st, limit > 0 ? WNOHANG : 0);
		if (r == pid || (r < 0 && errno != EINTR))
			return true;
		if (r != 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return false;
		sigtimedwait(&chld, NULL, &left);
	}
}

/* The diagnosis ran out of time: it goes, with any report it had begun. */
static void cut_diagnosis(pid_t pid, const char *dir, const char *report, double limit)
{
	struct stat st;

	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (report && lstat(report, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		unlink(report);
	fprintf(stderr, LOG_PREFIX "the diagnosis was cut short after %g s "
		"(GPUTRACE_DIAGNOSIS_TIMEOUT); the traces are in %s: gputrace report %s\n",
		limit, dir, dir);
}

/* The diagnosis at exit runs in a child of its own: whatever happens in it
 * (a trace that crashes the reader, memory, a signal, a trace it is slow
 * on), gputrace still exits with the command's status, in bounded time. */
/* One rank's traces in a folder the job shares: this host's files of this
 * rank (<host>.<pid>.rank<R>[.<k>].jsonl), never the other ranks'. */
static void keep_rank_facts(const char *dir)
{
#define GT_ENV_NAME(name) name,
	static const char *const vars[] = { GT_RANK_VARS(GT_ENV_NAME) NULL };
#undef GT_ENV_NAME
	char host[256], want[320], **files, **mine;
	const char *v = NULL, *base;
	long rank = -1;
	char *end;
	int n, i, k = 0;

	for (i = 0; vars[i] && rank < 0; i++)
		if ((v = getenv(vars[i])) && *v && (rank = strtol(v, &end, 10)) >= 0 && *end)
			rank = -1;
	if (rank < 0)
		return;
	gt_host_name(host, sizeof(host));
	snprintf(want, sizeof(want), ".rank%ld.", rank);
	n = gt_list_traces(dir, &files);
	if (n <= 0)
		return;
	mine = calloc((size_t)n, sizeof(*mine));
	for (i = 0; mine && i < n; i++) {
		base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
		if (strncmp(base, host, strlen(host)) == 0 && base[strlen(host)] == '.' && strstr(base, want))
			mine[k++] = files[i];
	}
	if (k)
		cmd_keep_facts(mine, k, dir);
	free(mine);
	gt_free_list(files, n);
}

/* GPUTRACE_FACTS_PROFILE=1 (facts/facts.c) also says what the diagnosis
 * child cost, as the launcher saw it: the CPU time its reaping added to
 * RUSAGE_CHILDREN (the command was reaped before) and the wall time from
 * the fork to the reaping. That is the end-of-run diagnosis as users pay
 * it: forked, not a `gputrace report` process started anew. */
static double children_cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void diagnose_apart(const char *dir, bool print, bool keep, bool had_traces, bool color, bool rank_only)
{
	double limit = diagnosis_limit();
	double cpu0 = children_cpu_ms(), wall0 = mono_ms();
	char report[PATH_MAX + 32];
	sigset_t chld, old;
	pid_t pid;
	int st = 0;

	if (keep)
		choose_report_path(dir, had_traces, report, sizeof(report));
	fflush(stderr);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, LOG_PREFIX "no diagnosis: fork: %s (gputrace report %s)\n", strerror(errno), dir);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return;
	}
	if (pid == 0) {
		FILE *kept = NULL;

		sigprocmask(SIG_SETMASK, &old, NULL);
		/* The program may have added libraries (a pip install it ran):
		 * nothing the launcher read of the host before is kept. */
		host_caches_free();
		if (rank_only)
			keep_rank_facts(dir);
		if (keep)
			kept = open_report(report);
		/* one reading of the traces for the screen and the kept report */
		if (print || kept)
			cmd_report_after_run(dir, print ? stderr : NULL, color, kept, true);
		if (kept)
			close_report(kept, dir, report);
		gt_facts_profile_flush();
		fflush(NULL);
		_exit(0);
	}
	if (!wait_limited(pid, &st, limit))
		cut_diagnosis(pid, dir, keep ? report : NULL, limit);
	else if (WIFSIGNALED(st))
		fprintf(stderr, LOG_PREFIX "the diagnosis failed (signal %d); the traces are in %s\n",
			WTERMSIG(st), dir);
	if (gt_facts_profile_wanted())
		fprintf(stderr, "gputrace facts profile: diagnosis child %.3f ms CPU, %.3f ms wall\n",
			children_cpu_ms() - cpu0, mono_ms() - wall0);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Traces of an earlier run left in DIR would join this run's diagnosis
 * silently ("42 processes"), so -o DIR must be empty of them unless --append
 * says to add to them (ranks of one job share a folder: they always add). Only
 * regular files named like traces count, as the reader takes no others. */
static size_t count_traces(const char *dir)
{
	size_t n = 0, len;
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d)
		return 0;  /* prepare_out_dir has just checked it: let the run say */
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (len > 6 && strcmp(e->d_name + len - 6, ".jsonl") == 0 &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			n++;
	}
	closedir(d);
	return n;
}

static bool refuse_old_traces(const char *dir, const char *as_given)
{
	size_t n = count_traces(dir);

	if (!n)
		return false;
	fprintf(stderr, LOG_PREFIX "%s already holds %zu trace file%s of an earlier run; use an empty "
		"or new folder, or --append to add this run's traces to them\n", as_given, n,
		n == 1 ? "" : "s");
	return true;
}

/* The command was killed by a signal: gputrace dies by it too, as `timeout`
 * and strace do, so that its caller sees WIFSIGNALED with that signal (a
 * shell prints the same message and $? is 128+N). No core of its own: the
 * command's is the one that matters. Returns only when the signal cannot
 * end gputrace. */
int cmd_end_like_command(int status, int killed_by)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;

	if (killed_by <= 0)
		return status;
	fflush(NULL);
	setrlimit(RLIMIT_CORE, &none);
	prctl(PR_SET_DUMPABLE, 0);
	signal(killed_by, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, killed_by);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(killed_by);
	return status;
}

static int passed_on(const struct cmd_launch_opts *o, int status, pid_t child, int wstatus)
{
	if (o->killed_by)
		*o->killed_by = child && WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
	return status;
}

int cmd_launch_traced(const struct cmd_launch_opts *o)
{
	char lib[PATH_MAX], looked[4 * PATH_MAX], dir[PATH_MAX], cmd[PATH_MAX];
	const char *why;
	int status, err, wstatus = 0;
	bool made_temp = false, had_traces;
	pid_t child;

	struct child_setup cs = { .o = o };

	if (gt_disabled()) {
		status = run_command(&cs, o->exe, o->argv, &child, &wstatus);
		return passed_on(o, status, child, wstatus);
	}
	if (!cmd_find_library(lib, sizeof(lib), looked, sizeof(looked))) {
		fprintf(stderr, LOG_PREFIX "libgputrace.so not found; looked in: %s "
			"(set GPUTRACE_LIB to its path)\n", looked[0] ? looked : "(nowhere)");
		return CMD_EXIT_OWN_FAILURE;
	}
	err = o->exe ? cmd_resolve_command(o->exe, cmd, sizeof(cmd)) :
		       cmd_resolve_command(o->argv[0], cmd, sizeof(cmd));
	if (err == 0 && (why = cmd_untraceable_reason(cmd)) != NULL && !o->quiet)
		fprintf(stderr, LOG_PREFIX "%s %s; running it untraced.\n", cmd, why);
	if (!prepare_out_dir(o->out_dir, dir, sizeof(dir), &made_temp))
		return CMD_EXIT_OWN_FAILURE;
	if (o->out_dir && !o->append && !launched_as_rank() && refuse_old_traces(dir, o->out_dir))
		return CMD_EXIT_OWN_FAILURE;
	had_traces = count_traces(dir) > 0;
	if (strpbrk(lib, ": \t")) {
		fprintf(stderr, LOG_PREFIX "the path %s holds ':' or a space, which the loader "
			"takes as a list separator; install gputrace elsewhere\n", lib);
		return CMD_EXIT_OWN_FAILURE;
	}
	cs.lib = lib;
	cs.dir = dir;
	cs.resolved = err == 0 ? cmd : NULL;
	if (o->dir_used)
		snprintf(o->dir_used, o->dir_used_cap, "%s", dir);
	status = run_command(&cs, o->exe, o->argv, &child, &wstatus);
	record_reaped(dir, child, wstatus);
	/* A folder of our own making that nothing was written to goes again
	 * (the command could not be run, or was static). */
	if (made_temp && rmdir(dir) == 0)
		return passed_on(o, status, child, wstatus);
	/* One rank of a parallel job sees only the traces written so far: the
	 * report of the whole job is `gputrace report DIR` once it is over. */
	if (launched_as_rank()) {
		/* Its own files' facts, for the report of the whole job (on
		 * whichever host it runs): this host's answers, by this rank. */
		diagnose_apart(dir, false, false, true, false, true);
		if (!o->quiet)
			fprintf(stderr, LOG_PREFIX "traces in %s; when the job is over: gputrace report %s\n",
				dir, dir);
		return passed_on(o, status, child, wstatus);
	}
	if (!o->quiet || o->out_dir)
		diagnose_apart(dir, !o->quiet, o->out_dir != NULL, had_traces, cmd_color_on(o->color, stderr), false);
	return passed_on(o, status, child, wstatus);
}

/* Reads all of fd into a malloc'd, NUL-terminated buffer, handing each
 * complete line to on_line (when not NULL) as it arrives. */
static char *read_lines(int fd, void (*on_line)(const char *line, void *data), void *data)
{
	size_t len = 0, cap = 4096, done = 0;
	char *buf = malloc(cap), *nl;
	ssize_t n;

	if (!buf)
		abort();
	for (;;) {
		if (len + 1 >= cap && !(buf = realloc(buf, cap *= 2)))
			abort();
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = 0;
		while (on_line && (nl = memchr(buf + done, '\n', len - done)) != NULL) {
			*nl = 0;
			on_line(buf + done, data);
			*nl = '\n';
			done = (size_t)(nl - buf) + 1;
		}
	}
	buf[len] = 0;
	if (on_line && done < len)
		on_line(buf + done, data);
	return buf;
}

int cmd_run_traced_capture(char *const *argv, const char *dir, char *const *env, char **out)
{
	return cmd_run_traced_stream(argv, dir, env, out, NULL, NULL);
}

int cmd_run_traced_stream(char *const *argv, const char *dir, char *const *env, char **out,
			  void (*on_line)(const char *line, void *data), void *data)
{
	char lib[PATH_MAX], looked[4 * PATH_MAX], cmd[PATH_MAX];
	int pipefd[2], wstatus = 0;
	pid_t pid, w;

	*out = NULL;
	if (!cmd_find_library(lib, sizeof(lib), looked, sizeof(looked))) {
		fprintf(stderr, LOG_PREFIX "libgputrace.so not found; looked in: %s\n", looked);
		return 127;
	}
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return 127;
	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		/* The child alone gets the tracer and the settings, set up as
		 * every traced command is (setup_child): the caller runs
		 * several of these with different ones. */
		struct cmd_launch_opts o = { .argv = argv, .env = env };
		struct child_setup cs = { .o = &o, .lib = lib, .dir = dir };

		cs.resolved = cmd_resolve_command(argv[0], cmd, sizeof(cmd)) == 0 ? cmd : NULL;
		if (dup2(pipefd[1], STDOUT_FILENO) < 0 || !setup_child(&cs))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	*out = read_lines(pipefd[0], on_line, data);
	close(pipefd[0]);
	do
		w = waitpid(pid, &wstatus, 0);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return 127;
	record_reaped(dir, pid, wstatus);
	return status_of(wstatus);
}
