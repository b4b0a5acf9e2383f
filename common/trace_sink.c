/* The trace sink (see trace_sink.h): lines copied into a shared mapping of
 * the trace file, bytes handed out by one atomic add; write(2) where the
 * file system refuses fallocate or mmap. Runs inside hooks and loader
 * callbacks: no malloc, no stdio, errno kept. */
#define _GNU_SOURCE
#include "common/trace_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/jline.h"
#include "gputrace/trace_format.h"

/* Space is reserved a page at first, then as much again as the file holds,
 * up to GROW_STEP at a time; less (down to a page) when the file system is
 * nearly full. Small at first because the cut at exit must free no block: on
 * ext4 a truncation that frees blocks took 2.5-3.6 ms on the build VM (a
 * synchronous discard, `-o discard`), one inside the last block 12 us, and
 * most processes of a shell loop write 2-3 KiB (bench/README.md, section 8). */
#define GROW_STEP (64u << 10)
#define GROW_MIN 4096u
/* The last bytes reserved are kept for the note that says the trace was cut
 * (under 100 bytes). Small: a process whose lines end in the margin of its
 * last page grew the file by a page its cut at exit frees again. */
#define CUT_MARGIN 128u
/* Lowest fd number of a write(2) sink: shells and daemons take the low
 * numbers for themselves (bash uses 255 and below). */
#define FD_FLOOR 800

void gt_sink_lock(struct gt_sink *s)
{
	while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

/* A writer that must grow the file: it may be a fatal-signal handler that
 * interrupted the very thread holding the lock, so it gives up (the line is
 * lost) rather than wait forever. */
static bool lock_bounded(struct gt_sink *s)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (!__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
			return true;
		sched_yield();
	}
	return false;
}

void gt_sink_unlock(struct gt_sink *s)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}

unsigned long long gt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
}

static int high_fd(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, FD_FLOOR);

	if (high < 0)
		return fd;
	close(fd);
	return high;
}

/* The trace file again, by path, only if it still is the same file. */
static int reopen(const struct gt_sink *s, int flags)
{
	struct stat st;
	int fd = open(s->path, flags | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_dev != s->dev || st.st_ino != s->ino) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

/* Maps the windows that cover the file up to `end`. */
static bool map_windows(struct gt_sink *s, int fd, uint64_t end)
{
	uint64_t k;

	for (k = 0; k * GT_SINK_WINDOW < end; k++) {
		void *w;

		if (k >= GT_SINK_MAX_WINDOWS) {
			errno = EFBIG;
			return false;
		}
		if (s->windows[k])
			continue;
		w = mmap(NULL, GT_SINK_WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)(k * GT_SINK_WINDOW));
		if (w == MAP_FAILED)
			return false;
		/* A fork child writes its own file: the parent's windows are of
		 * no use there. Kept out of it, fork copies less and the child
		 * unmaps nothing. Only where the wiped page tells a child at its
		 * first line: without it, the child keeps them mapped. */
		if (!s->canary || madvise(w, GT_SINK_WINDOW, MADV_DONTFORK) != 0)
			s->windows_inherited = true;
		s->windows[k] = w;
	}
	return true;
}

static void unmap_windows(struct gt_sink *s)
{
	int k;

	for (k = 0; k < GT_SINK_MAX_WINDOWS && s->windows[k]; k++) {
		munmap(s->windows[k], GT_SINK_WINDOW);
		s->windows[k] = NULL;
	}
}

/* The next stretch to reserve: as much as the file holds (a page for an
 * empty file), at most GROW_STEP, ending on a page boundary. */
static uint64_t next_step(const struct gt_sink *s)
{
	uint64_t whole = s->reserved & ~(uint64_t)(GROW_MIN - 1);
	uint64_t step = whole < GROW_MIN ? GROW_MIN : whole > GROW_STEP ? GROW_STEP : whole;

	return whole + step - s->reserved;
}

/* The traced process's file size limit (`ulimit -f`, RLIMIT_FSIZE): growing
 * a file past it raises SIGXFSZ in the process, which kills it by default
 * (`sh -c 'ulimit -f 0; /bin/true'` died traced, exit 153). The file never
 * grows past it; the trace is cut there (EFBIG) instead. */
static uint64_t size_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_cur;
}

/* Allocates [s->reserved, s->reserved + n) in the file, n as large as the
 * disk and the file size limit allow, down to a page (or what the limit
 * leaves). The new stretch is mapped before it is published, so a writer
 * that sees it can copy into it. */
static bool reserve_more(struct gt_sink *s, int fd)
{
	uint64_t step = next_step(s), limit = size_limit();

	if (s->reserved >= limit) {
		errno = EFBIG;
		return false;
	}
	if (step > limit - s->reserved)
		step = limit - s->reserved;
	while (fallocate(fd, 0, (off_t)s->reserved, (off_t)step) != 0) {
		if (errno == EINTR)
			continue;
		if (errno != ENOSPC || step <= GROW_MIN)
			return false;
		step /= 2;
	}
	if (!map_windows(s, fd, s->reserved + step))
		return false;
	__atomic_store_n(&s->reserved, s->reserved + step, __ATOMIC_RELEASE);
	return true;
}

static uint64_t data_end(const struct gt_sink *s)
{
	return s->cut ? s->cut_end : __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
}

static void copy_in(struct gt_sink *s, uint64_t off, const char *line, size_t len)
{
	while (len) {
		uint64_t k = off / GT_SINK_WINDOW, in = off % GT_SINK_WINDOW;
		size_t n = GT_SINK_WINDOW - in < len ? (size_t)(GT_SINK_WINDOW - in) : len;

		memcpy(s->windows[k] + in, line, n);
		off += n;
		line += n;
		len -= n;
	}
}

static const char *errno_name(int err)
{
	switch (err) {
	case ENOSPC: return "ENOSPC";
	case EDQUOT: return "EDQUOT";
	case EFBIG: return "EFBIG";
	case EIO: return "EIO";
	case ESTALE: return "ESTALE";
	case ENOMEM: return "ENOMEM";
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	default: return "error";
	}
}

/* The file cannot grow: the note goes into the margin kept for it (no line
 * that was handed out reaches into it), and no line is written after it.
 * Under the lock. */
static void cut(struct gt_sink *s, int err)
{
	static char note[CUT_MARGIN];
	struct jline j;
	uint64_t at;
	size_t n;

	if (s->cut)
		return;
	at = s->reserved >= CUT_MARGIN ? s->reserved - CUT_MARGIN : 0;
	s->cut_end = at;
	__atomic_store_n(&s->cut, 1, __ATOMIC_RELEASE);
	jl_begin(&j, note, sizeof(note), gt_event_name(GT_EV_NOTE));
	jl_uint(&j, GT_K_TIME, gt_now_us());
	jl_str(&j, GT_K_WHAT, GT_NOTE_TRACE_CUT);
	jl_str(&j, GT_K_REASON, errno_name(err));
	n = jl_end(&j);
	if (n && s->reserved >= CUT_MARGIN) {
		copy_in(s, at, note, n);
		s->cut_end = at + n;
	}
}

/* Everything up to the last byte that is not NUL: where an earlier image of
 * this process (before exec) stopped. A cut line there (a thread killed in
 * its copy) is kept apart from the next by one NUL byte, which the reader
 * takes for the end of a cut line. */
static uint64_t find_data_end(int fd, uint64_t size, bool *needs_newline)
{
	char buf[4096];
	uint64_t end = size;

	*needs_newline = false;
	while (end > 0) {
		size_t n = end < sizeof(buf) ? (size_t)end : sizeof(buf), k;
		uint64_t start = end - n;

		if (pread(fd, buf, n, (off_t)start) != (ssize_t)n)
			return size;
		for (k = n; k > 0 && buf[k - 1] == 0; k--)
			;
		if (k > 0) {
			*needs_newline = buf[k - 1] != '\n';
			return start + k;
		}
		end = start;
	}
	return 0;
}

/* After exec the file of this process has room its earlier image reserved
 * (fallocate: no hole, no SIGBUS): it is mapped as it is, and grows when a
 * line needs it. Reserving more here would grow the file at every exec. */
static bool map_existing(struct gt_sink *s, int fd)
{
	if (s->tail + CUT_MARGIN >= s->reserved)
		return false;
	return map_windows(s, fd, s->reserved);
}

static void use_write(struct gt_sink *s, int fd, const char *why)
{
	s->fallback = why;
	s->fd = high_fd(fd);
	__atomic_store_n(&s->mode, GT_SINK_WRITE, __ATOMIC_RELEASE);
}

void gt_sink_attach(struct gt_sink *s, int fd, bool existing)
{
	bool needs_newline = false;
	struct stat st;

	s->fd = -1;
	s->cut = 0;
	s->cut_end = 0;
	s->fallback = NULL;
	if (fstat(fd, &st) != 0) {
		close(fd);
		__atomic_store_n(&s->mode, GT_SINK_CLOSED, __ATOMIC_RELEASE);
		return;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->reserved = (uint64_t)st.st_size;
	s->tail = existing ? find_data_end(fd, (uint64_t)st.st_size, &needs_newline) : 0;
	if (!S_ISREG(st.st_mode)) {
		use_write(s, fd, "not a regular file");
		return;
	}
	if (getenv("GPUTRACE_WRITER") && strcmp(getenv("GPUTRACE_WRITER"), "write") == 0) {
		use_write(s, fd, "GPUTRACE_WRITER=write");
		return;
	}
	if (!map_existing(s, fd) && !reserve_more(s, fd)) {
		int err = errno;

		unmap_windows(s);
		if (err == EFBIG) {
			/* The file size limit: writing on with write(2) would
			 * raise SIGXFSZ in the process; nothing more is written. */
			close(fd);
			s->cut_end = s->tail;
			__atomic_store_n(&s->cut, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&s->mode, GT_SINK_MMAP, __ATOMIC_RELEASE);
			return;
		}
		if (err == ENOSPC) {
			/* A full disk: the lines that fit are kept, the rest is cut. */
			if (ftruncate(fd, (off_t)s->tail) == 0)
				s->reserved = s->tail;
			use_write(s, fd, "no space to reserve");
		} else {
			if (ftruncate(fd, (off_t)s->tail) == 0)
				s->reserved = s->tail;
			use_write(s, fd, err == EOPNOTSUPP || err == ENOSYS || err == EINVAL ?
				  "fallocate refused" : "mmap refused");
		}
		if (needs_newline)
			gt_write_all(s->fd, "", 1);
		return;
	}
	close(fd);
	__atomic_store_n(&s->mode, GT_SINK_MMAP, __ATOMIC_RELEASE);
	if (needs_newline)
		s->tail++;  /* that byte stays NUL */
}

/* Reserves until the line that ends at `end` fits, the cut margin kept
 * free; cuts the trace when the file cannot grow. Under the lock. */
static bool grow_locked(struct gt_sink *s, uint64_t end)
{
	int fd = -1, err = ENOSPC;
	bool ok = !s->cut;

	while (ok && end + CUT_MARGIN > s->reserved) {
		if (fd < 0 && (fd = reopen(s, O_RDWR)) < 0)
			ok = false;
		else
			ok = reserve_more(s, fd);
		if (!ok)
			err = errno;
	}
	if (fd >= 0)
		close(fd);
	if (!ok)
		cut(s, err);
	return ok;
}

/* The write(2) writer: a line that would take the file past the size limit
 * is not written (SIGXFSZ), nor is any after it. One lseek a line: this
 * writer is the fallback of file systems without fallocate or mmap. */
static void write_fd(struct gt_sink *s, const char *line, size_t len)
{
	off_t end;

	if (__atomic_load_n(&s->cut, __ATOMIC_ACQUIRE))
		return;
	end = lseek(s->fd, 0, SEEK_END);
	if (end < 0 || (uint64_t)end + len > size_limit()) {
		__atomic_store_n(&s->cut, 1, __ATOMIC_RELEASE);
		return;
	}
	gt_write_all(s->fd, line, len);
}

static void write_mapped(struct gt_sink *s, const char *line, size_t len)
{
	uint64_t off, end;
	bool ok;

	if (__atomic_load_n(&s->cut, __ATOMIC_ACQUIRE))
		return;
	off = __atomic_fetch_add(&s->tail, len, __ATOMIC_ACQ_REL);
	end = off + len;
	if (end + CUT_MARGIN > __atomic_load_n(&s->reserved, __ATOMIC_ACQUIRE)) {
		if (!lock_bounded(s))
			return;
		ok = grow_locked(s, end);
		gt_sink_unlock(s);
		if (!ok)
			return;
	}
	copy_in(s, off, line, len);
}

/* How long a writer waits for the trim at exit to end. Bounded: the writer
 * may be a signal handler on top of the very trim it waits for (a pool's
 * SIGTERM reaching a worker inside _exit's end of trace: the fatal-signal
 * note waited forever, the worker spun in sched_yield and the pool's join
 * hung; seen on the H200, 5 runs of 8). Then the line is dropped. */
#define TRIM_WAIT_YIELDS 10000

void gt_sink_write(struct gt_sink *s, const char *line, size_t len)
{
	int saved = errno, mode, waits = 0;

	/* A fork child before it opened its own file (the caller should have
	 * asked gt_trace_ready): nothing of the parent's is written, nor
	 * touched (its windows are not mapped here). */
	if (!len || (s->canary && !*s->canary))
		return;
	for (;;) {
		/* Counted while it may copy: the trim at exit waits for it. */
		__atomic_add_fetch(&s->inflight, 1, __ATOMIC_SEQ_CST);
		mode = __atomic_load_n(&s->mode, __ATOMIC_SEQ_CST);
		if (mode == GT_SINK_MMAP)
			write_mapped(s, line, len);
		__atomic_sub_fetch(&s->inflight, 1, __ATOMIC_SEQ_CST);
		if (mode != GT_SINK_TRIMMING)
			break;
		if (++waits == TRIM_WAIT_YIELDS) {
			errno = saved;
			return;
		}
		sched_yield();
	}
	if (mode == GT_SINK_WRITE && s->fd >= 0)
		write_fd(s, line, len);
	errno = saved;
}

void gt_sink_write_locked(struct gt_sink *s, const char *line, size_t len)
{
	int mode = __atomic_load_n(&s->mode, __ATOMIC_ACQUIRE);
	uint64_t off;

	if (mode == GT_SINK_WRITE && s->fd >= 0) {
		write_fd(s, line, len);
		return;
	}
	if (mode != GT_SINK_MMAP || s->cut || !len)
		return;
	off = __atomic_fetch_add(&s->tail, len, __ATOMIC_ACQ_REL);
	if (off + len + CUT_MARGIN > s->reserved && !grow_locked(s, off + len))
		return;
	copy_in(s, off, line, len);
}

bool gt_sink_fd_still_ours(struct gt_sink *s)
{
	struct stat st;
	int fd;

	if (__atomic_load_n(&s->mode, __ATOMIC_ACQUIRE) != GT_SINK_WRITE)
		return true;
	if (s->fd >= 0 && fstat(s->fd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
		return true;
	fd = reopen(s, O_WRONLY | O_APPEND);
	s->fd = fd >= 0 ? high_fd(fd) : -1;
	return s->fd >= 0;
}

void gt_sink_finish(struct gt_sink *s)
{
	int saved = errno, fd, was_cut, i;

	if (__atomic_load_n(&s->mode, __ATOMIC_ACQUIRE) != GT_SINK_MMAP)
		return;
	__atomic_store_n(&s->mode, GT_SINK_TRIMMING, __ATOMIC_SEQ_CST);
	/* Writers that took their bytes before the switch finish their copy;
	 * one that never does (stopped, or a signal handler on top of it) leaves
	 * the file as it is, reserved space and all. */
	for (i = 0; __atomic_load_n(&s->inflight, __ATOMIC_SEQ_CST); i++) {
		if (i == 10000) {
			__atomic_store_n(&s->mode, GT_SINK_MMAP, __ATOMIC_SEQ_CST);
			errno = saved;
			return;
		}
		sched_yield();
	}
	if (!lock_bounded(s)) {
		__atomic_store_n(&s->mode, GT_SINK_MMAP, __ATOMIC_SEQ_CST);
		errno = saved;
		return;
	}
	fd = reopen(s, O_RDWR | O_APPEND);
	was_cut = s->cut;
	if (fd >= 0 && ftruncate(fd, (off_t)data_end(s)) == 0) {
		/* The windows stay mapped, unused (later lines go by write(2)):
		 * the exit that follows unmaps them for free, an munmap now
		 * costs a TLB flush. The cut already took the pages past the end. */
		s->fd = high_fd(fd);
		/* After a cut nothing more is written, now as before. */
		__atomic_store_n(&s->mode, was_cut ? GT_SINK_CLOSED : GT_SINK_WRITE, __ATOMIC_SEQ_CST);
	} else {
		/* Left as it is: the reserved space stays, NUL bytes the reader skips. */
		if (fd >= 0)
			close(fd);
		__atomic_store_n(&s->mode, GT_SINK_MMAP, __ATOMIC_SEQ_CST);
	}
	gt_sink_unlock(s);
	errno = saved;
}

/* In a fork child: the parent's windows are not mapped here (MADV_DONTFORK),
 * and the child may have mapped something else at those addresses since. */
static void forget_windows(struct gt_sink *s)
{
	int k;

	if (s->windows_inherited) {
		unmap_windows(s);
		return;
	}
	for (k = 0; k < GT_SINK_MAX_WINDOWS && s->windows[k]; k++)
		s->windows[k] = NULL;
}

void gt_sink_forget(struct gt_sink *s)
{
	forget_windows(s);
	s->windows_inherited = false;
	s->fd = -1;  /* the parent's; O_CLOEXEC, and after vfork not ours to close */
	s->tail = s->reserved = s->cut_end = 0;
	s->cut = 0;
	s->inflight = 0;
	s->lock = 0;
	__atomic_store_n(&s->mode, GT_SINK_CLOSED, __ATOMIC_RELEASE);
}
