/* Trace file handling for libgputrace.so: one JSON Lines file per process,
 * created O_EXCL|O_NOFOLLOW|O_CLOEXEC with mode 0600, never a library call
 * that allocates (this runs inside loader callbacks and fork handlers). */
#define _GNU_SOURCE
#include "common/trace_file.h"
#include "common/nvidia_driver.h"
#include "common/small_file.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "gputrace/trace_format.h"
#include "common/jline.h"

/* The environment that steers loading, recorded in every header. */
static const char *const header_env[] = {
	"LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT", "LD_BIND_NOW",
	"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "CUDA_MODULE_LOADING",
	"CONDA_PREFIX", "VIRTUAL_ENV", "PYTHONPATH",
	/* variables that choose CUDA files (the report ties each to the file it chose) */
	"BNB_CUDA_VERSION", "XLA_FLAGS", "TRITON_LIBCUDA_PATH", "NCCL_NET_PLUGIN",
	"GPUTRACE_MODE",  /* how the command adapted the run to a checker (cmd/checkers.c) */
#define GT_ENV_NAME(name) name,
	GT_RANK_VARS(GT_ENV_NAME) GT_WORLD_SIZE_VARS(GT_ENV_NAME)
#undef GT_ENV_NAME
	GT_LOCAL_RANK_VAR, GT_LOCAL_WORLD_SIZE_VAR,
};

const char *const *gt_header_env_names(size_t *n)
{
	*n = sizeof(header_env) / sizeof(header_env[0]);
	return header_env;
}

/* Static buffers: the header is written once per process, and callers
 * serialise (loader lock in the audit half, one-time init in the preload half). */
static char header_buf[65536];
static char cmdline_buf[32768];

pid_t gt_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* gettid is a system call, and the loader's searches put the thread on a
 * line once per library: each thread asks once. A fork child's thread has a
 * new id and the parent's cache: the cache holds the sink's generation too,
 * which the child's own file bumps before its first line (after exec the
 * cache starts empty). */
static __thread struct {
	pid_t tid;
	unsigned generation;
} tid_cache;

pid_t gt_trace_tid(const struct gt_trace *t)
{
	unsigned gen = t->sink ? __atomic_load_n(&t->sink->generation, __ATOMIC_ACQUIRE) : 0;

	if (!gen)
		return gt_gettid();
	if (tid_cache.generation != gen || !tid_cache.tid) {
		tid_cache.tid = gt_gettid();
		tid_cache.generation = gen;
	}
	return tid_cache.tid;
}

bool gt_disabled(void)
{
	const char *d = getenv(GT_DISABLE_VAR);

	return d && *d && strcmp(d, "0") != 0;
}

const char *gt_image_id(void)
{
	static char id[17];
	const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
	static const char hex[] = "0123456789abcdef";
	int i;

	if (!r)
		return "0";
	for (i = 0; i < 8; i++) {
		id[2 * i] = hex[r[i] >> 4];
		id[2 * i + 1] = hex[r[i] & 15];
	}
	id[16] = 0;
	return id;
}

#define PROC_CMDLINE "/proc/self/cmdline"

/* A file of /proc/self whose whole text one read returns (stat, cmdline: the
 * kernel fills the buffer as far as the text goes), NUL-terminated: one
 * system call less than reading to the end. Its length, -1 on error. */
static ssize_t read_proc(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, cap - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/* Field 22 of /proc/self/stat: when the process started, in clock ticks since
 * boot. With the pid it names one process on this host for all time. */
unsigned long long gt_start_ticks_of(long pid)
{
	char buf[1024], path[64] = "/proc/self/stat", digits[24];
	const char *p;
	int field, n = 0;

	/* No stdio here (this file is in the library): "/proc/" PID "/stat". */
	for (; pid > 0 && n < (int)sizeof(digits); pid /= 10)
		digits[n++] = (char)('0' + pid % 10);
	if (n) {
		memcpy(path, "/proc/", 6);
		for (field = 0; field < n; field++)
			path[6 + field] = digits[n - 1 - field];
		memcpy(path + 6 + n, "/stat", 6);
	}
	if (read_proc(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* After ") " comes field 3; walk to field 22. */
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	return strtoull(p, NULL, 10);
}

void gt_host_name(char *out, size_t cap)
{
	const char *env = getenv("GPUTRACE_HOST");
	struct utsname u;
	size_t i;

	if (env && *env) {
		strncpy(out, env, cap - 1);
	} else if (uname(&u) == 0) {
		strncpy(out, u.nodename, cap - 1);
	} else {
		strncpy(out, "unknown", cap - 1);
	}
	out[cap - 1] = 0;
	/* The host becomes part of a file name. */
	for (i = 0; out[i]; i++)
		if (out[i] == '/' || (unsigned char)out[i] < 0x20)
			out[i] = '_';
}

/* Appends decimal v to s at *pos. */
static void put_num(char *s, size_t cap, size_t *pos, unsigned long long v)
{
	char d[24];
	int n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && *pos + 1 < cap)
		s[(*pos)++] = d[--n];
	s[*pos] = 0;
}

static void put_str(char *s, size_t cap, size_t *pos, const char *add)
{
	while (*add && *pos + 1 < cap)
		s[(*pos)++] = *add++;
	s[*pos] = 0;
}

#define GT_ENV_NAME(name) name,
static const char *const rank_vars[] = { GT_RANK_VARS(GT_ENV_NAME) NULL };
static const char *const size_vars[] = { GT_WORLD_SIZE_VARS(GT_ENV_NAME) NULL };
#undef GT_ENV_NAME
static char environ_buf[131072];

/* A variable as it was when this program image started: the file's name
 * must not depend on the program's own changes to its environment. The
 * audit namespace's libc has that environment (the program never touches
 * it), so the audit half asks getenv; the preload half, whose getenv sees
 * the program's changes, reads /proc/self/environ. */
static const char *initial_env(const char *name, bool audit)
{
	static ssize_t len = -1;
	size_t nl = strlen(name);
	ssize_t i = 0;

	if (audit)
		return getenv(name);
	if (len < 0)
		len = gt_read_small("/proc/self/environ", environ_buf, sizeof(environ_buf));
	while (i < len) {
		const char *entry = environ_buf + i;
		size_t el = strlen(entry);

		if (el > nl && strncmp(entry, name, nl) == 0 && entry[nl] == '=')
			return entry + nl + 1;
		i += (ssize_t)el + 1;
	}
	return NULL;
}

/* The first of the variables that holds a plain number; -1 if none. */
static long env_number(const char *const *names, const char **which, bool audit)
{
	const char *v;
	char *end;
	long n;
	int i;

	for (i = 0; names[i]; i++) {
		v = initial_env(names[i], audit);
		if (!v || !*v)
			continue;
		n = strtol(v, &end, 10);
		if (*end == 0 && n >= 0) {
			if (which)
				*which = names[i];
			return n;
		}
	}
	return -1;
}

/* <dir>/<host>.<pid>[.rank<R>].jsonl, with .<k> before .jsonl when an older
 * process with the same pid left its file there. Host, pid and rank keep the
 * names of many hosts apart in one shared folder, without locks. Returns false
 * if it does not fit. */
static bool trace_name_of(char *out, size_t cap, const char *host, pid_t pid, long rank, int k)
{
	const char *dir = getenv("GPUTRACE_DIR");
	size_t pos = 0;

	out[0] = 0;
	put_str(out, cap, &pos, dir && *dir ? dir : ".");
	put_str(out, cap, &pos, "/");
	put_str(out, cap, &pos, host);
	put_str(out, cap, &pos, ".");
	put_num(out, cap, &pos, (unsigned long long)pid);
	if (rank >= 0) {
		put_str(out, cap, &pos, ".rank");
		put_num(out, cap, &pos, (unsigned long long)rank);
	}
	if (k) {
		put_str(out, cap, &pos, ".");
		put_num(out, cap, &pos, (unsigned long long)k);
	}
	put_str(out, cap, &pos, ".jsonl");
	return pos + 1 < cap;
}

static bool trace_name(char *out, size_t cap, const struct gt_facts *f, pid_t pid, int k)
{
	return trace_name_of(out, cap, f->host, pid, f->rank, k);
}

/* The name without a rank: what a fork child's file is called before the
 * exec that gives it a rank. */
static bool trace_name_plain(char *out, size_t cap, const char *host, pid_t pid)
{
	return trace_name_of(out, cap, host, pid, -1, 0);
}

/* Does the existing trace at fd belong to this process (same pid and start)? */
static bool trace_is_ours(int fd, pid_t pid, unsigned long long start)
{
	char buf[4096], want[96];
	size_t pos = 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return false;
	buf[n] = 0;
	put_str(want, sizeof(want), &pos, "\"pid\":");
	put_num(want, sizeof(want), &pos, (unsigned long long)pid);
	put_str(want, sizeof(want), &pos, ",\"start_ticks\":");
	put_num(want, sizeof(want), &pos, start);
	put_str(want, sizeof(want), &pos, ",");
	return strstr(buf, want) != NULL;
}

static void add_argv(struct jline *j, const struct gt_facts *f)
{
	const char *argv = f->argv;
	ssize_t n = f->argv_len, i = 0;
	bool lossy = false;

	jl_array_begin(j, GT_K_ARGV);
	while (i < n) {
		size_t len = strnlen(argv + i, (size_t)(n - i));
		bool l;

		jl_escape(NULL, 0, argv + i, len, &l);
		lossy |= l;
		jl_array_str(j, argv + i, len);
		i += (ssize_t)len + 1;
	}
	jl_array_end(j);
	if (n >= (ssize_t)sizeof(cmdline_buf) - 1)
		jl_bool(j, GT_K_ARGV_TRUNCATED, true);
	if (lossy)
		jl_bool(j, GT_K_ARGV_LOSSY, true);
}

#define MAX_GPUS 16

/* The kernel side of the driver, read once per program image: a fork
 * child's header reuses its parent's reading (the module does not change
 * under a running process). */
static struct {
	bool read, have;
	char kmod[64];
	char gpus[MAX_GPUS][128];
	int ngpus;
} kernel_driver;

static void keep_gpu_model(const char *model, void *data)
{
	size_t n = strnlen(model, sizeof(kernel_driver.gpus[0]) - 1);

	(void)data;
	memcpy(kernel_driver.gpus[kernel_driver.ngpus], model, n);
	kernel_driver.gpus[kernel_driver.ngpus++][n] = 0;
}

/* The kernel side of the driver (no driver call): the user-space driver a
 * process loads must match it. In the preload header. */
static void add_kernel_driver(struct jline *j)
{
	int i;

	if (!kernel_driver.read) {
		kernel_driver.read = true;
		kernel_driver.have = gt_read_kmod_version(kernel_driver.kmod, sizeof(kernel_driver.kmod));
		if (kernel_driver.have)
			gt_read_gpu_models(keep_gpu_model, NULL, MAX_GPUS);
	}
	if (!kernel_driver.have)
		return;
	jl_str(j, GT_K_NVIDIA_KMOD, kernel_driver.kmod);
	jl_array_begin(j, GT_K_NVIDIA_GPUS);
	for (i = 0; i < kernel_driver.ngpus; i++)
		jl_array_str(j, kernel_driver.gpus[i], strlen(kernel_driver.gpus[i]));
	jl_array_end(j);
}

/* This copy's header line, in header_buf; returns its length. What /proc
 * says comes from the facts the opener read (gather_facts). */
static size_t build_header(struct gt_trace *t)
{
	const struct gt_facts *f = &t->sink->facts;
	struct jline j;
	char cwd[PATH_MAX];
	size_t i;

	jl_begin(&j, header_buf, sizeof(header_buf), gt_event_name(GT_EV_HEADER));
	jl_str(&j, GT_K_FORMAT, GT_FORMAT_NAME);
	jl_int(&j, GT_K_VERSION, GT_FORMAT_VERSION);
	jl_str(&j, GT_K_SOURCE, t->source);
	jl_int(&j, GT_K_PID, t->sink->pid);
	jl_uint(&j, GT_K_START_TICKS, f->start);
	jl_int(&j, GT_K_PPID, getppid());
	jl_str(&j, GT_K_HOST, f->host);
	jl_str(&j, GT_K_IMAGE, gt_image_id());
	if (t->forked)
		jl_bool(&j, GT_K_FORK, true);
	if (t->forked && t->parent_cuda)
		jl_str(&j, GT_K_PARENT_CUDA, t->parent_cuda);
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_int(&j, GT_K_UID, getuid());
	jl_int(&j, GT_K_EUID, geteuid());
	if (f->exe)
		jl_strn(&j, GT_K_EXE, f->exe, f->exe_len);
	if (getcwd(cwd, sizeof(cwd)))
		jl_str(&j, GT_K_CWD, cwd);
	jl_str(&j, GT_K_GLIBC, gnu_get_libc_version());
	jl_str(&j, GT_K_WRITER, t->sink->fallback ? "write" : "mmap");
	jl_str(&j, GT_K_WRITER_WHY, t->sink->fallback);
	if (f->rank >= 0) {
		jl_int(&j, GT_K_RANK, f->rank);
		jl_str(&j, GT_K_RANK_VAR, f->rank_var);
	}
	if (f->world_size >= 0)
		jl_int(&j, GT_K_WORLD_SIZE, f->world_size);
	add_argv(&j, f);
	if (strcmp(t->source, GT_SOURCE_PRELOAD) == 0)
		add_kernel_driver(&j);
	/* env: only the variables that steer loading, and the rank variables. */
	jl_object_begin(&j, GT_K_ENV);
	for (i = 0; i < sizeof(header_env) / sizeof(header_env[0]); i++)
		jl_str(&j, header_env[i], getenv(header_env[i]));
	jl_object_end(&j);
	return jl_end(&j);
}

/* Is the file at fd nothing but header lines (a fork child's first words)? */
static bool only_headers(int fd)
{
	static const char head[] = "{\"ev\":\"header\"";
	char buf[65536];
	ssize_t n = pread(fd, buf, sizeof(buf), 0), i = 0;
	const char *nul = n > 0 ? memchr(buf, 0, (size_t)n) : NULL;

	/* The lines end where the room reserved ahead (NUL bytes) begins. */
	if (nul)
		n = nul - buf;
	else if (n == (ssize_t)sizeof(buf))
		return false;
	if (n <= 0)
		return false;
	while (i < n) {
		const char *nl = memchr(buf + i, '\n', (size_t)(n - i));

		if (!nl || strncmp(buf + i, head, sizeof(head) - 1) != 0)
			return false;
		i = nl - buf + 1;
	}
	return true;
}

/* A fork child that exec'd into a rank (mpirun starts ranks so) goes on in
 * its rank's file; the file of its fork, named without the rank and holding
 * only the fork's header, would count as one more process: it goes. Only a
 * file of this very process (pid and start time) is touched. */
static void drop_prefork_stub(const struct gt_facts *f, pid_t pid)
{
	char path[PATH_MAX];
	int fd;

	if (f->rank < 0 || !trace_name_plain(path, sizeof(path), f->host, pid))
		return;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (trace_is_ours(fd, pid, f->start) && only_headers(fd))
		unlink(path);
	close(fd);
}

/* Creates the trace, or joins this process's own (after exec), and gives it
 * to the sink. Under the sink's lock. */
static void open_trace(struct gt_trace *t)
{
	struct gt_sink *s = t->sink;
	const struct gt_facts *f = &s->facts;
	pid_t pid = s->pid;
	struct stat st;
	int k, fd;

	for (k = 0; k < 16; k++) {
		if (!trace_name(s->path, sizeof(s->path), f, pid, k))
			return;
		fd = open(s->path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			gt_sink_attach(s, fd, false);
			drop_prefork_stub(f, pid);
			return;
		}
		if (errno != EEXIST)
			return;
		fd = open(s->path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Only our own regular file, only this process's (an earlier
		 * image of it, before exec). */
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    trace_is_ours(fd, pid, f->start)) {
			gt_sink_attach(s, fd, true);
			return;
		}
		close(fd);
	}
}

/* After fork the child must write its own file. getpid() is a system call
 * on every line; a page the kernel wipes in the child tells it for free. */
static void arm_canary(struct gt_sink *s)
{
	if (!s->canary) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return;
		if (madvise(p, 4096, MADV_WIPEONFORK) != 0) {
			munmap(p, 4096);
			return;  /* older kernels: getpid() on every line */
		}
		s->canary = p;
	}
	*s->canary = 1;
}

static bool same_process(const struct gt_sink *s)
{
	if (s->canary)
		return *s->canary != 0;
	return s->pid == getpid();
}

static struct gt_sink own_sink;
static struct gt_handover own_handover;
const struct gt_handover *gt_handed;

void gt_trace_hand_over(struct gt_trace *t, uintptr_t peer_base)
{
	/* The linker's symbol for our own ELF header: where this copy is mapped.
	 * The peer is the same file, so the variable sits at the same offset. */
	extern const char __ehdr_start[] __attribute__((visibility("hidden")));
	const struct gt_handover **slot = (const struct gt_handover **)(peer_base +
		((uintptr_t)&gt_handed - (uintptr_t)__ehdr_start));

	if (!t->sink)
		t->sink = &own_sink;
	/* dlopen and friends as this copy links them: the audit namespace's libc. */
	own_handover = (struct gt_handover){ t->sink, dlopen, dlsym, dlclose };
	*slot = &own_handover;
}

static char exe_buf[PATH_MAX];

/* What the headers say about this process, read once for both halves. A
 * fork child (`forked`) runs its parent's image: the host, the executable
 * and the environment the image started with are the parent's, already
 * read; its start time is its own, and so is argv, which the parent may
 * have rewritten since its header. */
static void gather_facts(struct gt_trace *t, bool forked)
{
	struct gt_facts *f = &t->sink->facts;
	bool audit = strcmp(t->source, GT_SOURCE_AUDIT) == 0;
	ssize_t n;

	f->start = gt_start_ticks_of(0);
	f->argv_len = read_proc(PROC_CMDLINE, cmdline_buf, sizeof(cmdline_buf));
	f->argv = cmdline_buf;
	if (forked)
		return;
	gt_host_name(f->host, sizeof(f->host));
	n = readlink("/proc/self/exe", exe_buf, sizeof(exe_buf) - 1);
	exe_buf[n > 0 ? n : 0] = 0;
	f->exe = n > 0 ? exe_buf : NULL;
	f->exe_len = n > 0 ? (size_t)n : 0;
	f->rank = env_number(rank_vars, &f->rank_var, audit);
	f->world_size = env_number(size_vars, NULL, audit);
}

/* First use, or the first use in a child after fork: the file of this
 * process is opened (created, or joined after exec) and the opener's header
 * written, both under the lock, so no line of this file comes before it. */
static void open_for_this_process(struct gt_trace *t)
{
	struct gt_sink *s = t->sink;
	bool forked;
	size_t len;

	/* In a fork child the lock may be a copy of one a parent's thread held:
	 * the child's first use (its fork handler, one thread) starts it free. */
	if (s->pid && !same_process(s))
		__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
	gt_sink_lock(s);
	if (__atomic_load_n(&s->mode, __ATOMIC_ACQUIRE) != GT_SINK_CLOSED && same_process(s)) {
		gt_sink_unlock(s);
		return;
	}
	forked = s->pid && !same_process(s);
	if (forked)
		gt_sink_forget(s);
	s->pid = getpid();
	gather_facts(t, forked);
	/* Before the file is mapped: its windows stay out of fork children
	 * only where the child can tell it is one (trace_sink.c). */
	arm_canary(s);
	open_trace(t);
	if (__atomic_load_n(&s->mode, __ATOMIC_ACQUIRE) != GT_SINK_CLOSED) {
		s->generation++;
		t->gen = s->generation;
		len = build_header(t);
		gt_sink_write_locked(s, header_buf, len);
		t->forked = false;
	}
	gt_sink_unlock(s);
}

bool gt_trace_ready(struct gt_trace *t)
{
	struct gt_sink *s;
	unsigned gen;
	int saved;

	if (t->off)
		return false;
	if (!t->sink)
		t->sink = &own_sink;
	s = t->sink;
	if (__atomic_load_n(&s->mode, __ATOMIC_ACQUIRE) == GT_SINK_CLOSED || !same_process(s)) {
		saved = errno;
		/* A closed sink that this process opened is one that failed, or
		 * that was cut: it stays closed. */
		if (!(s->pid == getpid() && same_process(s)))
			open_for_this_process(t);
		errno = saved;
	}
	if (__atomic_load_n(&s->mode, __ATOMIC_ACQUIRE) == GT_SINK_CLOSED)
		return false;
	gen = __atomic_load_n(&s->generation, __ATOMIC_ACQUIRE);
	if (__atomic_exchange_n(&t->gen, gen, __ATOMIC_ACQ_REL) != gen) {
		/* The other half opened this file: this half's own header, from
		 * the facts that half read. */
		saved = errno;
		gt_sink_write(s, header_buf, build_header(t));
		t->forked = false;
		errno = saved;
	}
	return true;
}

const char *gt_trace_exe(const struct gt_trace *t)
{
	return t->sink && t->sink->facts.exe ? t->sink->facts.exe : "";
}

bool gt_trace_ready_checked(struct gt_trace *t)
{
	int saved = errno;
	bool ok = gt_trace_ready(t) && gt_sink_fd_still_ours(t->sink);

	errno = saved;
	return ok;
}

void gt_trace_write(struct gt_trace *t, const char *line, size_t len)
{
	if (t->sink && !t->off && len)
		gt_sink_write(t->sink, line, len);
}

void gt_trace_finish(struct gt_trace *t)
{
	if (t->sink && !t->off && same_process(t->sink))
		gt_sink_finish(t->sink);
}
