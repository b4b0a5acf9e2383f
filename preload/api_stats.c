/* Statistics of intercepted CUDA calls (see api_stats.h). Hot calls write
 * only memory of their own thread: counts, bytes held, the thread's peak and
 * the table of its live allocations are per thread (no locked instruction,
 * no shared cache line, when a thread allocates and frees its own memory);
 * totals are summed at flush. What does not fit goes to shared tables with
 * relaxed atomics, so 8 threads calling cudaMalloc at once still get exact
 * totals without a lock. */
#include "preload/api_stats.h"
#include "preload/state.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/jline.h"
#include "common/trace_file.h"
#include "gputrace/status_names.h"

#define STATUS_SLOTS 8       /* distinct statuses kept per function */
#define ALLOC_SLOTS (1u << 16) /* live device allocations tracked by pointer */
#define ALLOC_PROBES 64      /* bounded probing: a hook never walks the table */
#define SLOT_FREE 0
#define SLOT_CLAIMING 1
#define SLOT_READY 2
#define TOMBSTONE ((uintptr_t)1)

struct status_slot {
	int state;
	int status;
	unsigned long long count;
	unsigned long long bytes;
};

struct alloc_slot {
	uintptr_t ptr;
	unsigned long long size;
};

static struct status_slot slots[GT_FN_COUNT][STATUS_SLOTS];

/* Hot calls are counted per thread, in blocks no other thread writes: no
 * shared cache line bounces between threads calling cudaMalloc at once. A
 * block outlives its thread (its counts stay valid); the flush sums them all.
 * A registry the flush walks, rather than a fold into shared totals when a
 * thread ends (a pthread key's destructor): the block's table of live
 * allocations is still needed after its thread is gone (another thread frees
 * them), a thread that calls _exit or is ended by another's exit() runs no
 * destructor, and registering a key would be a libc call in a hook. When the
 * pool is used up (a program that started more than THREAD_BLOCKS threads
 * that allocate), later threads count through the shared atomics: exact,
 * only slower. */
#define THREAD_BLOCKS 512
/* A thread's own live allocations, mapped at its first one (no malloc in a
 * hook): 4096 pointers, bounded probing as in the shared table. */
#define THREAD_ALLOC_SLOTS 4096u
struct thread_counts {
	unsigned long long count[GT_FN_COUNT][STATUS_SLOTS];
	unsigned long long bytes[GT_FN_COUNT][STATUS_SLOTS];
	long long held;              /* this thread's allocations minus its frees */
	long long peak;              /* the most this thread held at once */
	struct alloc_slot *allocs;   /* THREAD_ALLOC_SLOTS, or NULL */
	bool no_allocs;              /* mapping the table failed: the shared one */
	/* The fast path's (preload_stats_fast_*): bit fn is set once a call of
	 * fn that succeeded went the whole slow way on this thread (the exit
	 * flush armed, its library asked for its version, status 0's slot
	 * claimed), and ok_slot[fn] is that slot. Only this thread reads and
	 * writes them, so a later call reads one line it owns. */
	uint32_t fast;
	unsigned char ok_slot[GT_FN_COUNT];
	/* 128, not 64: x86's adjacent-line prefetcher moves lines in pairs, and
	 * with 64 the end of one thread's block (held, peak: written on every
	 * allocation) shared a pair with the next thread's first counts. */
} __attribute__((aligned(128)));

_Static_assert(GT_FN_COUNT <= 32, "one bit of thread_counts.fast a hooked function");
_Static_assert(STATUS_SLOTS <= 256, "a slot's index fits ok_slot");

static struct thread_counts blocks[THREAD_BLOCKS];
static int blocks_used;
static __thread struct thread_counts *my_block;
static __thread bool no_block;
static struct alloc_slot allocs[ALLOC_SLOTS];
static long long held, peak;
static unsigned long long n_alloc_failed, n_untracked_allocs, n_unknown_frees;
static bool partial, used;

static const enum gt_status_api fn_apis[] = {
#define GT_FN_API(sym, fam, api, hot) api,
	GT_HOOKED(GT_FN_API)
#undef GT_FN_API
};

const char *preload_status_name(enum gt_hooked_fn fn, int status)
{
	enum gt_status_api api = fn_apis[fn];

	if (api == GT_API_CUDNN9 && status > 0 && status < 1000)
		api = GT_API_CUDNN8;
	return gt_status_name(api, status);
}

/* The slot of (fn, status), claimed on first use. */
static struct status_slot *slot_of(enum gt_hooked_fn fn, int status)
{
	struct status_slot *s = slots[fn];
	int i, st;

	for (i = 0; i < STATUS_SLOTS; i++) {
		st = __atomic_load_n(&s[i].state, __ATOMIC_ACQUIRE);
		if (st == SLOT_FREE) {
			int expect = SLOT_FREE;

			if (__atomic_compare_exchange_n(&s[i].state, &expect, SLOT_CLAIMING, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				s[i].status = status;
				__atomic_store_n(&s[i].state, SLOT_READY, __ATOMIC_RELEASE);
				return &s[i];
			}
			st = expect;
		}
		/* Another thread is filling this slot: its status is a moment away. */
		while (st == SLOT_CLAIMING)
			st = __atomic_load_n(&s[i].state, __ATOMIC_ACQUIRE);
		if (s[i].status == status)
			return &s[i];
	}
	return NULL;
}

static struct thread_counts *thread_block(void)
{
	int i;

	if (my_block || no_block)
		return my_block;
	i = __atomic_fetch_add(&blocks_used, 1, __ATOMIC_RELAXED);
	if (i < THREAD_BLOCKS)
		my_block = &blocks[i];
	else
		no_block = true;
	return my_block;
}

void preload_stats_count_hot(enum gt_hooked_fn fn, int status, unsigned long long bytes)
{
	struct status_slot *s = slot_of(fn, status);
	struct thread_counts *b;

	if (!used)
		used = true;
	if (!s) {
		partial = true;
		return;
	}
	b = thread_block();
	if (!b) {
		__atomic_fetch_add(&s->bytes, bytes, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->count, 1, __ATOMIC_RELAXED);
		return;
	}
	b->count[fn][s - slots[fn]]++;
	b->bytes[fn][s - slots[fn]] += bytes;
}

unsigned long long preload_stats_count(enum gt_hooked_fn fn, int status, unsigned long long bytes)
{
	struct status_slot *s = slot_of(fn, status);

	used = true;
	if (!s) {
		partial = true;
		return 0;
	}
	if (bytes)
		__atomic_fetch_add(&s->bytes, bytes, __ATOMIC_RELAXED);
	return __atomic_add_fetch(&s->count, 1, __ATOMIC_RELAXED);
}

static size_t alloc_hash(uintptr_t p)
{
	/* Device pointers are aligned to 256 bytes or more: mix the high bits. */
	return (size_t)((p >> 8) * 0x9e3779b97f4a7c15ULL >> 48) & (ALLOC_SLOTS - 1);
}

/* Claims a slot of table for ptr, by compare-and-swap (the shared table,
 * where several threads insert). */
static bool claim_shared(uintptr_t ptr, unsigned long long size)
{
	size_t h = alloc_hash(ptr), i;

	for (i = 0; i < ALLOC_PROBES; i++) {
		struct alloc_slot *a = &allocs[(h + i) & (ALLOC_SLOTS - 1)];
		uintptr_t k = __atomic_load_n(&a->ptr, __ATOMIC_RELAXED);

		if ((k == 0 || k == TOMBSTONE) &&
		    __atomic_compare_exchange_n(&a->ptr, &k, ptr, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			a->size = size;
			return true;
		}
	}
	return false;
}

/* The thread's own table: only this thread inserts, so plain stores do (the
 * size first, then the pointer, for a thread that frees it elsewhere). */
static bool claim_own(struct thread_counts *b, uintptr_t ptr, unsigned long long size)
{
	size_t h = alloc_hash(ptr), i;

	if (!b->allocs && !b->no_allocs) {
		void *t = mmap(NULL, THREAD_ALLOC_SLOTS * sizeof(struct alloc_slot), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (t == MAP_FAILED)
			b->no_allocs = true;
		else
			__atomic_store_n(&b->allocs, (struct alloc_slot *)t, __ATOMIC_RELEASE);
	}
	for (i = 0; b->allocs && i < ALLOC_PROBES; i++) {
		struct alloc_slot *a = &b->allocs[(h + i) & (THREAD_ALLOC_SLOTS - 1)];
		uintptr_t k = __atomic_load_n(&a->ptr, __ATOMIC_RELAXED);

		if (k == 0 || k == TOMBSTONE) {
			a->size = size;
			__atomic_store_n(&a->ptr, ptr, __ATOMIC_RELEASE);
			return true;
		}
	}
	return false;
}

static void add_shared_held(long long size)
{
	long long now = __atomic_add_fetch(&held, size, __ATOMIC_RELAXED), top;

	top = __atomic_load_n(&peak, __ATOMIC_RELAXED);
	while (now > top && !__atomic_compare_exchange_n(&peak, &top, now, true, __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED))
		;
}

/* An allocation of the thread whose block is b (NULL: it has none). */
static void alloc_of(struct thread_counts *b, uintptr_t ptr, unsigned long long size)
{
	if (b && claim_own(b, ptr, size)) {
		b->held += (long long)size;
		if (b->held > b->peak)
			b->peak = b->held;
		return;
	}
	if (!claim_shared(ptr, size)) {
		/* No room: the bytes still count as held, but their free cannot be matched. */
		__atomic_fetch_add(&n_untracked_allocs, 1, __ATOMIC_RELAXED);
		partial = true;
	}
	add_shared_held((long long)size);
}

void preload_stats_alloc(uintptr_t ptr, unsigned long long size)
{
	alloc_of(thread_block(), ptr, size);
}

/* Takes ptr out of table (mask: its size - 1); its size, or -1 when absent.
 * Another thread's table is taken from with compare-and-swap. */
static long long take(struct alloc_slot *table, size_t mask, uintptr_t ptr, bool shared)
{
	size_t h = alloc_hash(ptr), i;

	for (i = 0; i < ALLOC_PROBES; i++) {
		struct alloc_slot *a = &table[(h + i) & mask];
		uintptr_t k = __atomic_load_n(&a->ptr, __ATOMIC_ACQUIRE);
		unsigned long long size;

		if (k == 0)
			return -1;
		if (k != ptr)
			continue;
		size = a->size;
		if (!shared) {
			__atomic_store_n(&a->ptr, TOMBSTONE, __ATOMIC_RELEASE);
			return (long long)size;
		}
		if (__atomic_compare_exchange_n(&a->ptr, &k, TOMBSTONE, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return (long long)size;
	}
	return -1;
}

/* A free by the thread whose block is b (NULL: it has none). */
static void free_of(struct thread_counts *b, uintptr_t ptr)
{
	long long size = -1;
	int i, n;

	if (!ptr)
		return;
	/* The fast case: this thread allocated it. */
	if (b && b->allocs && (size = take(b->allocs, THREAD_ALLOC_SLOTS - 1, ptr, false)) >= 0) {
		b->held -= size;
		return;
	}
	if ((size = take(allocs, ALLOC_SLOTS - 1, ptr, true)) >= 0) {
		__atomic_sub_fetch(&held, size, __ATOMIC_RELAXED);
		return;
	}
	/* Another thread allocated it: found in its table, the bytes leave this
	 * thread's count (the sum over threads is what the process holds). */
	n = __atomic_load_n(&blocks_used, __ATOMIC_RELAXED);
	for (i = 0; i < n && i < THREAD_BLOCKS; i++) {
		struct alloc_slot *t = __atomic_load_n(&blocks[i].allocs, __ATOMIC_ACQUIRE);

		if (t && &blocks[i] != b && (size = take(t, THREAD_ALLOC_SLOTS - 1, ptr, true)) >= 0) {
			if (b)
				b->held -= size;
			else
				__atomic_sub_fetch(&held, size, __ATOMIC_RELAXED);
			return;
		}
	}
	/* Allocated before tracing began, or by a path we do not see. */
	__atomic_fetch_add(&n_unknown_frees, 1, __ATOMIC_RELAXED);
}

void preload_stats_free(uintptr_t ptr)
{
	free_of(thread_block(), ptr);
}

/* The thread's block when its calls of fn may take the fast path, else NULL.
 * A plain read of a thread-local pointer and of a word of the thread's own
 * block: no shared line, no locked instruction. The fast path raises no
 * re-entrancy flag: a hooked call made by a signal handler that interrupted
 * this thread's own fast path (CUDA is not async-signal-safe) could lose
 * one count or the bytes of one allocation, never more. */
static inline struct thread_counts *fast_block(enum gt_hooked_fn fn, int status)
{
	struct thread_counts *b = my_block;

	return b && status == 0 && (b->fast & (1u << fn)) ? b : NULL;
}

/* The slot of ptr's first probe in the thread's own table, or NULL when the
 * thread has none: the case the fast path settles inline, the rest (a
 * collision, the shared table, another thread's pointer) left to
 * alloc_of/free_of. */
static inline struct alloc_slot *first_probe(const struct thread_counts *b, uintptr_t ptr)
{
	return b->allocs ? &b->allocs[alloc_hash(ptr) & (THREAD_ALLOC_SLOTS - 1)] : NULL;
}

bool preload_stats_fast_count(enum gt_hooked_fn fn, int status, unsigned long long bytes)
{
	struct thread_counts *b = fast_block(fn, status);

	if (!b)
		return false;
	b->count[fn][b->ok_slot[fn]]++;
	b->bytes[fn][b->ok_slot[fn]] += bytes;
	return true;
}

bool preload_stats_fast_alloc(enum gt_hooked_fn fn, int status, void *const *ptr, unsigned long long size)
{
	struct thread_counts *b = fast_block(fn, status);
	struct alloc_slot *a;
	uintptr_t p;

	if (!b || !ptr)
		return false;
	b->count[fn][b->ok_slot[fn]]++;
	b->bytes[fn][b->ok_slot[fn]] += size;
	p = (uintptr_t)*ptr;
	a = first_probe(b, p);
	if (!a || __atomic_load_n(&a->ptr, __ATOMIC_RELAXED) > TOMBSTONE) {
		alloc_of(b, p, size);
		return true;
	}
	/* As claim_own: the size first, for a thread that frees it elsewhere. */
	a->size = size;
	__atomic_store_n(&a->ptr, p, __ATOMIC_RELEASE);
	b->held += (long long)size;
	if (b->held > b->peak)
		b->peak = b->held;
	return true;
}

bool preload_stats_fast_free(enum gt_hooked_fn fn, int status, uintptr_t ptr)
{
	struct thread_counts *b = fast_block(fn, status);
	struct alloc_slot *a;

	if (!b)
		return false;
	b->count[fn][b->ok_slot[fn]]++;
	a = ptr ? first_probe(b, ptr) : NULL;
	if (!a || __atomic_load_n(&a->ptr, __ATOMIC_ACQUIRE) != ptr) {
		free_of(b, ptr);
		return true;
	}
	/* As take() on the thread's own table. */
	b->held -= (long long)a->size;
	__atomic_store_n(&a->ptr, TOMBSTONE, __ATOMIC_RELEASE);
	return true;
}

void preload_stats_fast_ready(enum gt_hooked_fn fn)
{
	struct thread_counts *b = thread_block();
	struct status_slot *s;

	if (!b || (b->fast & (1u << fn)))
		return;
	s = slot_of(fn, 0);
	if (!s)
		return;
	b->ok_slot[fn] = (unsigned char)(s - slots[fn]);
	b->fast |= 1u << fn;
}

unsigned long long preload_stats_alloc_failed(void)
{
	return __atomic_add_fetch(&n_alloc_failed, 1, __ATOMIC_RELAXED);
}

bool preload_stats_any(void)
{
	return used;
}

void preload_stats_reset(void)
{
	if (!used)
		return;
	/* The forking thread keeps its block pointer: the block is zeroed with the
	 * rest and becomes the child's first. The tables of live allocations are
	 * the parent's copies: gone. */
	for (int i = 0; i < THREAD_BLOCKS; i++)
		if (blocks[i].allocs)
			munmap(blocks[i].allocs, THREAD_ALLOC_SLOTS * sizeof(struct alloc_slot));
	memset(blocks, 0, sizeof(blocks));
	blocks_used = my_block ? 1 : 0;
	if (my_block)
		my_block = &blocks[0];
	memset(slots, 0, sizeof(slots));
	memset(allocs, 0, sizeof(allocs));
	held = peak = 0;
	n_alloc_failed = n_untracked_allocs = n_unknown_frees = 0;
	partial = used = false;
}

/* The shared count plus every thread's. */
static unsigned long long total(int f, int i, bool count)
{
	int b, n = __atomic_load_n(&blocks_used, __ATOMIC_RELAXED);
	unsigned long long sum = __atomic_load_n(count ? &slots[f][i].count : &slots[f][i].bytes,
						 __ATOMIC_RELAXED);

	if (n > THREAD_BLOCKS)
		n = THREAD_BLOCKS;
	for (b = 0; b < n; b++)
		sum += count ? blocks[b].count[f][i] : blocks[b].bytes[f][i];
	return sum;
}

/* Bytes held now, or the peak: the shared tables' plus every thread's. The
 * peak is the sum of each thread's own highest: exact when the allocations
 * and frees of a moment are one thread's, else an upper bound. */
static long long held_total(bool want_peak)
{
	int b, n = __atomic_load_n(&blocks_used, __ATOMIC_RELAXED);
	long long sum = __atomic_load_n(want_peak ? &peak : &held, __ATOMIC_RELAXED);

	if (n > THREAD_BLOCKS)
		n = THREAD_BLOCKS;
	for (b = 0; b < n; b++)
		sum += want_peak ? blocks[b].peak : blocks[b].held;
	return sum;
}

/* Runs at exit and inside fatal-signal handlers: stack buffers, the sink only. */
void preload_stats_flush(void)
{
	char buf[512];
	struct jline j;
	unsigned long long now = gt_now_us();
	int f, i;

	if (!used || !preload_tracing())
		return;
	for (f = 0; f < GT_FN_COUNT; f++) {
		for (i = 0; i < STATUS_SLOTS; i++) {
			struct status_slot *s = &slots[f][i];

			if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_READY)
				continue;
			jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_CALLS));
			jl_uint(&j, GT_K_TIME, now);
			jl_str(&j, GT_K_FN, gt_hooked_name(f));
			jl_int(&j, GT_K_STATUS, s->status);
			jl_str(&j, GT_K_STATUS_NAME, preload_status_name((enum gt_hooked_fn)f, s->status));
			jl_uint(&j, GT_K_COUNT, total(f, i, true));
			jl_uint(&j, GT_K_BYTES, total(f, i, false));
			preload_write(buf, jl_end(&j));
		}
	}
	jl_begin(&j, buf, sizeof(buf), gt_event_name(GT_EV_ALLOCS));
	jl_uint(&j, GT_K_TIME, now);
	jl_int(&j, GT_K_HELD_BYTES, held_total(false));
	jl_int(&j, GT_K_PEAK_BYTES, held_total(true));
	jl_uint(&j, GT_K_FAILED, __atomic_load_n(&n_alloc_failed, __ATOMIC_RELAXED));
	jl_uint(&j, GT_K_UNTRACKED, __atomic_load_n(&n_untracked_allocs, __ATOMIC_RELAXED));
	jl_uint(&j, GT_K_UNKNOWN_FREES, __atomic_load_n(&n_unknown_frees, __ATOMIC_RELAXED));
	jl_bool(&j, GT_K_PARTIAL, partial);
	preload_write(buf, jl_end(&j));
}
