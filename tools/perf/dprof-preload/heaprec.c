// SPDX-License-Identifier: GPL-2.0
/*
 * libperf-dprof-heap.so: the allocator recorder perf dprof record preloads
 * into the workload it launches (LD_PRELOAD of the workload only).
 *
 * It interposes the malloc family (malloc, calloc, realloc, reallocarray,
 * free, aligned_alloc, memalign, posix_memalign, valloc, pvalloc) and the
 * C++ library's operator new (whose malloc call would name the C++ library
 * as the site; operator delete calls free), and logs each call with its
 * time (CLOCK_MONOTONIC: perf record -k monotonic), CPU, pointer, size and
 * return addresses: the caller's, exactly, and the values of the next
 * stack words that fall in executable code, which the report validates.
 * The log format is util/dprof/heaplog.h: each thread writes into its own
 * shared mapping of a segment of one file, so there is no lock and no
 * system call but one mmap per segment.
 *
 * Allocators that do not go through these functions (CPython's pymalloc,
 * a jemalloc or mimalloc linked into the program, --heap-alloc's) are
 * hooked by hook.c, from the constructor.  What is not seen: a statically
 * linked or setuid program (the dynamic linker does not preload into it),
 * one that clears LD_PRELOAD before exec, allocations made before this
 * library is initialised (the dynamic linker's own), and an allocator's
 * entry the hooks cannot move (one header line says which).
 * Children the workload forks and the programs they exec (with
 * LD_PRELOAD kept) are followed: each thread's segment names its process.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../util/dprof/heaplog.h"
#include "hook.h"

#define HEAPREC_EXPORT	__attribute__((visibility("default")))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * Return addresses per allocation, the caller's included, and the stack
 * words above the allocator's frame looked at for them: the scan is most
 * of the recorder's cost (SQLite: 13.7% of its samples with 8 and 48
 * words, 10% with 6 and 32, 7.2% with 5 and 24, which stops inside its
 * three-deep wrappers).
 */
#define HEAPREC_MAX_IPS		6
#define HEAPREC_SCAN_WORDS	32
/* frees in a row logged without a time of their own */
#define HEAPREC_UNTIMED		8
/* times the code ranges are read again for a caller outside them (dlopen) */
#define HEAPREC_MAX_RESCANS	32
#define HEAPREC_MAX_RANGES	512

struct heaprec_fns {
	void	*(*malloc)(size_t size);
	void	*(*calloc)(size_t nmemb, size_t size);
	void	*(*realloc)(void *ptr, size_t size);
	void	*(*reallocarray)(void *ptr, size_t nmemb, size_t size);
	void	(*free)(void *ptr);
	void	*(*aligned_alloc)(size_t align, size_t size);
	void	*(*memalign)(size_t align, size_t size);
	int	(*posix_memalign)(void **ptr, size_t align, size_t size);
	void	*(*valloc)(size_t size);
	void	*(*pvalloc)(size_t size);
	void	*(*opnew)(size_t size);
	void	*(*opnewa)(size_t size);
	void	*(*opnew_nt)(size_t size, const void *nothrow);
	void	*(*opnewa_nt)(size_t size, const void *nothrow);
	void	*(*opnew_al)(size_t size, size_t align);
	void	*(*opnewa_al)(size_t size, size_t align);
};

struct heaprec_range {
	uintptr_t	lo, hi;
};

/*
 * The executable code of the loaded objects but this one, sorted, and a
 * filter of the 2 MiB granules it is in: most stack words are data
 * pointers between the lowest and the highest code, which the filter
 * turns away without a search.
 */
#define HEAPREC_GRANULE_SHIFT	21
#define HEAPREC_FILTER_BITS	4096

struct heaprec_ranges {
	int			nr;
	uintptr_t		lo, hi;		/* of them all */
	uint64_t		filter[HEAPREC_FILTER_BITS / 64];
	struct heaprec_range	r[HEAPREC_MAX_RANGES];
};

static unsigned int heaprec_granule_bit(uintptr_t v)
{
	return ((uint64_t)(v >> HEAPREC_GRANULE_SHIFT) * 0x9e3779b97f4a7c15ull) >> 52;
}

enum { HEAPREC_OFF, HEAPREC_INIT, HEAPREC_ON, HEAPREC_PASS };

static struct heaprec_fns real;
static int heaprec_state;		/* HEAPREC_*, set once */
static int heaprec_fd = -1;
static struct dprof_heaplog_file *heaprec_file;
static uint64_t heaprec_max_segs;
static struct heaprec_ranges *heaprec_ranges;
static int heaprec_rescans;
static int heaprec_rescan_lock;
static pthread_key_t heaprec_key;

/* A thread's state; zero until its first event. */
struct heaprec_thread {
	uint8_t			*seg;		/* its segment's mapping, or NULL */
	uint8_t			*cur, *end;
	struct dprof_heaplog_enc enc;
	int			busy;		/* inside the recorder or the allocator */
	unsigned int		untimed;	/* frees in a row with no time */
	int			init;
	uintptr_t		stack_hi;	/* 0: do not scan */
	/* operator new: the site is its caller's, not the C++ library's */
	uintptr_t		outer_ip;
	uintptr_t		*outer_sp;
	/* the last scan: its words are checked again before a new scan */
	uintptr_t		scan_ip;
	uintptr_t		*scan_sp;
	unsigned int		scan_nr;
	uint16_t		scan_pos[DPROF_HEAPLOG_MAX_IPS];
	uint64_t		scan_ips[DPROF_HEAPLOG_MAX_IPS];
};

/* initial-exec: no __tls_get_addr(), which may allocate */
static __thread struct heaprec_thread heaprec_self __attribute__((tls_model("initial-exec")));
static __thread int heaprec_booting __attribute__((tls_model("initial-exec")));

/* What dlsym() allocates while the real functions are looked up. */
static _Alignas(16) char heaprec_boot[16384];
static size_t heaprec_boot_used;

static void *heaprec_boot_alloc(size_t size)
{
	size_t off = __atomic_fetch_add(&heaprec_boot_used, (size + 15) & ~(size_t)15,
					__ATOMIC_RELAXED);

	if (off + size > sizeof(heaprec_boot))
		return NULL;
	return heaprec_boot + off;
}

static int heaprec_is_boot(const void *p)
{
	const char *c = p;

	return c >= heaprec_boot && c < heaprec_boot + sizeof(heaprec_boot);
}

static int heaprec_range_cmp(const void *a, const void *b)
{
	const struct heaprec_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int heaprec_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct heaprec_ranges *rs = arg;
	uintptr_t self = (uintptr_t)heaprec_phdr_cb;
	int i, skip = 0;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    self >= lo && self < lo + ph->p_memsz)
			skip = 1;
	}
	for (i = 0; !skip && i < info->dlpi_phnum && rs->nr < HEAPREC_MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		rs->r[rs->nr].lo = info->dlpi_addr + ph->p_vaddr;
		rs->r[rs->nr].hi = rs->r[rs->nr].lo + ph->p_memsz;
		rs->nr++;
	}
	return 0;
}

/* (Re)read the code ranges; the old ones stay: another thread may read them. */
static void heaprec_read_ranges(void)
{
	struct heaprec_ranges *rs;
	int i;

	rs = mmap(NULL, sizeof(*rs), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rs == MAP_FAILED)
		return;
	rs->nr = 0;
	dl_iterate_phdr(heaprec_phdr_cb, rs);
	if (!rs->nr) {
		munmap(rs, sizeof(*rs));
		return;
	}
	qsort(rs->r, rs->nr, sizeof(rs->r[0]), heaprec_range_cmp);
	for (i = 0; i < rs->nr; i++) {
		uintptr_t g;

		for (g = rs->r[i].lo >> HEAPREC_GRANULE_SHIFT;
		     g <= (rs->r[i].hi - 1) >> HEAPREC_GRANULE_SHIFT; g++) {
			unsigned int bit = heaprec_granule_bit(g << HEAPREC_GRANULE_SHIFT);

			rs->filter[bit / 64] |= 1ull << (bit % 64);
		}
	}
	rs->lo = rs->r[0].lo;
	rs->hi = rs->r[rs->nr - 1].hi;
	__atomic_store_n(&heaprec_ranges, rs, __ATOMIC_RELEASE);
}

/* The sorted ranges' search, for a word the filter let through */
static int heaprec_in_ranges(const struct heaprec_ranges *rs, uintptr_t v)
{
	int lo = 0, hi = rs->nr - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (v < rs->r[mid].lo)
			hi = mid - 1;
		else if (v >= rs->r[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * Inlined in the scan, which calls it for each of its words: most are
 * turned away here without a call (the call was a third of its cost).
 * __always_inline: the C library's <sys/cdefs.h>.
 */
static __always_inline int heaprec_in_code(const struct heaprec_ranges *rs, uintptr_t v)
{
	unsigned int bit;

	if (v < rs->lo || v >= rs->hi)
		return 0;
	bit = heaprec_granule_bit(v);
	if (!(rs->filter[bit / 64] & (1ull << (bit % 64))))
		return 0;
	return heaprec_in_ranges(rs, v);
}

#define HEAPREC_SYM(field, name)	\
	(real.field = (__typeof__(real.field))dlsym(RTLD_NEXT, name))

static void heaprec_thread_exit(void *arg)
{
	struct heaprec_thread *t = arg;

	if (t->seg) {
		munmap(t->seg, heaprec_file->seg_size);
		t->seg = NULL;
	}
}

/* The child of a fork: its parent's segment is not its own. */
static void heaprec_atfork_child(void)
{
	struct heaprec_thread *t = &heaprec_self;

	if (t->seg)
		munmap(t->seg, heaprec_file->seg_size);
	t->seg = NULL;
	t->cur = NULL;
	t->end = NULL;
}

static uint64_t heaprec_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The TSC, when the kernel's clock is it (a stable TSC): read in a third
 * of clock_gettime()'s time, converted by the report (heaplog.h).
 */
static int heaprec_tsc;

static uint64_t heaprec_now(void)
{
#if defined(__x86_64__)
	if (heaprec_tsc) {
		uint32_t lo, hi;

		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		return (uint64_t)hi << 32 | lo;
	}
#endif
	return heaprec_mono();
}

/*
 * The CPU: from the thread's rseq area when the C library registered one
 * (glibc 2.35 and later), which the kernel keeps current, in a load.
 * heaprec_rseq is the area's offset from the thread pointer, or 0: none.
 */
static ptrdiff_t heaprec_rseq;

/* looked up: a C library before 2.35 has neither */
static void heaprec_read_rseq(void)
{
#if defined(__x86_64__)
	const unsigned int *size = dlsym(RTLD_DEFAULT, "__rseq_size");
	const ptrdiff_t *offset = dlsym(RTLD_DEFAULT, "__rseq_offset");

	if (size && *size && offset)
		heaprec_rseq = *offset;
#endif
}

static inline int heaprec_cpu(void)
{
#if defined(__x86_64__)
	if (likely(heaprec_rseq)) {
		int32_t cpu;

		/* struct rseq's cpu_id, at 4 */
		__asm__ volatile("movl %%fs:4(%1), %0" : "=r"(cpu) : "r"(heaprec_rseq));
		if (likely(cpu >= 0))
			return cpu;
	}
#endif
	return sched_getcpu();
}

static void heaprec_read_clocksource(void)
{
#if defined(__x86_64__)
	char buf[16] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (read(fd, buf, sizeof(buf) - 1) > 0 && !strcmp(buf, "tsc\n"))
		heaprec_tsc = 1;
	close(fd);
#endif
}

static void heaprec_open_log(void)
{
	const char *path = getenv(DPROF_HEAPLOG_ENV);
	struct dprof_heaplog_file *f;

	if (!path || !*path)
		return;
	heaprec_fd = open(path, O_RDWR | O_CLOEXEC);
	if (heaprec_fd < 0)
		return;
	f = mmap(NULL, DPROF_HEAPLOG_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, heaprec_fd, 0);
	if (f == MAP_FAILED)
		goto out_close;
	if (memcmp(f->magic, DPROF_HEAPLOG_MAGIC, sizeof(f->magic)) ||
	    f->seg_size < DPROF_HEAPLOG_MAX_EVENT * 2 || f->seg_size % 4096) {
		munmap(f, DPROF_HEAPLOG_HDR_SIZE);
		goto out_close;
	}
	{
		off_t end = lseek(heaprec_fd, 0, SEEK_END);

		if (end <= DPROF_HEAPLOG_HDR_SIZE) {
			munmap(f, DPROF_HEAPLOG_HDR_SIZE);
			goto out_close;
		}
		heaprec_max_segs = (end - DPROF_HEAPLOG_HDR_SIZE) / f->seg_size;
	}
	if (pthread_key_create(&heaprec_key, heaprec_thread_exit) ||
	    pthread_atfork(NULL, NULL, heaprec_atfork_child)) {
		munmap(f, DPROF_HEAPLOG_HDR_SIZE);
		goto out_close;
	}
	heaprec_file = f;
	__atomic_fetch_add(&f->procs, 1, __ATOMIC_RELAXED);
	heaprec_read_clocksource();
	heaprec_read_rseq();
	heaprec_read_ranges();
	return;

out_close:
	close(heaprec_fd);
	heaprec_fd = -1;
}

/* Returns whether to record; once: the real functions, the log. */
static int heaprec_init(void)
{
	int state = __atomic_load_n(&heaprec_state, __ATOMIC_ACQUIRE);

	if (state == HEAPREC_ON)
		return 1;
	if (state == HEAPREC_PASS)
		return 0;
	if (heaprec_booting)
		return 0;
	state = HEAPREC_OFF;
	if (!__atomic_compare_exchange_n(&heaprec_state, &state, HEAPREC_INIT, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&heaprec_state, __ATOMIC_ACQUIRE) == HEAPREC_INIT)
			sched_yield();
		return __atomic_load_n(&heaprec_state, __ATOMIC_ACQUIRE) == HEAPREC_ON;
	}
	heaprec_booting = 1;
	HEAPREC_SYM(malloc, "malloc");
	HEAPREC_SYM(calloc, "calloc");
	HEAPREC_SYM(realloc, "realloc");
	HEAPREC_SYM(reallocarray, "reallocarray");
	HEAPREC_SYM(free, "free");
	HEAPREC_SYM(aligned_alloc, "aligned_alloc");
	HEAPREC_SYM(memalign, "memalign");
	HEAPREC_SYM(posix_memalign, "posix_memalign");
	HEAPREC_SYM(valloc, "valloc");
	HEAPREC_SYM(pvalloc, "pvalloc");
	HEAPREC_SYM(opnew, "_Znwm");
	HEAPREC_SYM(opnewa, "_Znam");
	HEAPREC_SYM(opnew_nt, "_ZnwmRKSt9nothrow_t");
	HEAPREC_SYM(opnewa_nt, "_ZnamRKSt9nothrow_t");
	HEAPREC_SYM(opnew_al, "_ZnwmSt11align_val_t");
	HEAPREC_SYM(opnewa_al, "_ZnamSt11align_val_t");
	if (real.malloc && real.free && real.calloc && real.realloc)
		heaprec_open_log();
	heaprec_booting = 0;
	__atomic_store_n(&heaprec_state, heaprec_file ? HEAPREC_ON : HEAPREC_PASS,
			 __ATOMIC_RELEASE);
	return !!heaprec_file;
}

/*
 * The hooks on the allocators the preload does not interpose (hook.c),
 * before the program's main(): a runtime's allocator is set up after.
 */
__attribute__((constructor)) static void heaprec_ctor(void)
{
	if (heaprec_init())
		heaprec_hooks_place();
}

/*
 * A line for the report's header, in the log file's header page after
 * the header (every process of the workload appends its own, once).
 */
void heaprec_note(const char *line)
{
	size_t len = strlen(line) + 1;	/* its '\n' */
	char *notes = (char *)heaprec_file + DPROF_HEAPLOG_NOTES_OFF;
	uint32_t at;

	if (!heaprec_file || len > DPROF_HEAPLOG_NOTES_SIZE)
		return;
	at = __atomic_fetch_add(&heaprec_file->notes_used, len, __ATOMIC_RELAXED);
	if (at + len > DPROF_HEAPLOG_NOTES_SIZE)
		return;
	memcpy(notes + at, line, len - 1);
	notes[at + len - 1] = '\n';
}

/* The thread's first event: the top of its stack, for the scan. */
static void heaprec_thread_init(struct heaprec_thread *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	t->init = 1;
	if (!pthread_getattr_np(pthread_self(), &attr)) {
		if (!pthread_attr_getstack(&attr, &addr, &size))
			t->stack_hi = (uintptr_t)addr + size;
		pthread_attr_destroy(&attr);
	}
	pthread_setspecific(heaprec_key, t);
}

/* The next segment of the log; 0 when there is none. */
static int heaprec_next_seg(struct heaprec_thread *t, uint64_t now, uint32_t cpu)
{
	struct dprof_heaplog_seg *s;
	uint32_t seg_size = heaprec_file->seg_size;
	uint64_t i;
	void *map;

	if (t->seg)
		munmap(t->seg, seg_size);
	t->seg = NULL;
	t->cur = NULL;
	t->end = NULL;
	i = __atomic_fetch_add(&heaprec_file->nr_segs, 1, __ATOMIC_RELAXED);
	if (i >= heaprec_max_segs)
		return 0;
	/* populated: one fault for the segment rather than one per page */
	map = mmap(NULL, seg_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		   heaprec_fd, DPROF_HEAPLOG_HDR_SIZE + i * seg_size);
	if (map == MAP_FAILED)
		return 0;
	s = map;
	s->pid = getpid();
	s->tid = gettid();
	s->base = now;
	s->tsc = heaprec_now();
	s->time = heaprec_tsc ? heaprec_mono() : s->tsc;
	s->flags = heaprec_tsc ? DPROF_HEAPLOG_TSC : 0;
	s->cpu = cpu;
	s->used = 0;
	__atomic_store_n(&s->magic, DPROF_HEAPLOG_SEG_MAGIC, __ATOMIC_RELEASE);
	t->seg = map;
	t->cur = (uint8_t *)(s + 1);
	t->end = (uint8_t *)map + seg_size;
	dprof_heaplog_enc__reset(&t->enc, now, cpu);
	return 1;
}

/*
 * Called again from the frame of the last scan (a loop), and the words it
 * found are still there: the return addresses are those of the last scan.
 */
static inline int heaprec_same_scan(const struct heaprec_thread *t, uintptr_t ip,
				    const uintptr_t *sp)
{
	unsigned int i;

	if (ip != t->scan_ip || sp != t->scan_sp)
		return 0;
	for (i = 0; i < t->scan_nr; i++) {
		if (sp[t->scan_pos[i]] != t->scan_ips[i])
			return 0;
	}
	return 1;
}

/*
 * The return addresses of an allocation: @ip, then the stack words from
 * @sp up that fall in executable code, each with where it was read (words
 * above @sp: dprof_heaplog__ip_at()).  The report unwinds them with the
 * binary's CFI, which says which word each frame's return address is in:
 * stale words are told from frames wherever they are, and every word in
 * code is a candidate (one stale copy of a frame's return address below
 * it must not hide it).  Returns how many.
 */
static unsigned int heaprec_ips(struct heaprec_thread *t, uintptr_t ip, uintptr_t *sp,
				uint64_t *ips)
{
	const struct heaprec_ranges *rs = __atomic_load_n(&heaprec_ranges, __ATOMIC_ACQUIRE);
	unsigned int n = 0, i;
	uintptr_t *top;

	ips[n++] = dprof_heaplog__ip_at(ip, DPROF_HEAPLOG_AT_CALLER);
	/* what the last scan found is not this chain (heaprec_same_scan()) */
	t->scan_ip = 0;
	if (!rs || !t->stack_hi)
		return n;
	if (!heaprec_in_code(rs, ip)) {
		/* a library loaded since: read the ranges again, a few times */
		if (heaprec_rescans < HEAPREC_MAX_RESCANS &&
		    !__atomic_exchange_n(&heaprec_rescan_lock, 1, __ATOMIC_ACQUIRE)) {
			heaprec_rescans++;
			heaprec_read_ranges();
			__atomic_store_n(&heaprec_rescan_lock, 0, __ATOMIC_RELEASE);
			rs = __atomic_load_n(&heaprec_ranges, __ATOMIC_ACQUIRE);
		}
	}
	top = (uintptr_t *)t->stack_hi;
	if (sp >= top)
		return n;
	if (top - sp > HEAPREC_SCAN_WORDS)
		top = sp + HEAPREC_SCAN_WORDS;
	for (i = 0; sp + i < top && n < HEAPREC_MAX_IPS; i++) {
		uintptr_t v = sp[i];

		if (heaprec_in_code(rs, v)) {
			t->scan_pos[n - 1] = i;
			t->scan_ips[n - 1] = v;
			ips[n++] = dprof_heaplog__ip_at(v, i);
		}
	}
	t->scan_ip = ip;
	t->scan_sp = sp;
	t->scan_nr = n - 1;
	return n;
}

/*
 * The slow path of an event: the thread's first, or its segment is full.
 * Returns the time of the event, which starts a segment (so it has one),
 * or DPROF_HEAPLOG_NO_TIME when the log is full (the event is lost).
 */
static uint64_t heaprec_slow(struct heaprec_thread *t, uint32_t cpu)
{
	uint64_t now = heaprec_now();

	if (!t->init)
		heaprec_thread_init(t);
	if (!heaprec_next_seg(t, now, cpu)) {
		__atomic_fetch_add(&heaprec_file->lost, 1, __ATOMIC_RELAXED);
		return DPROF_HEAPLOG_NO_TIME;
	}
	return now;
}

/* The event ending at @p is written: perf may read up to it. */
static inline void heaprec_commit(struct heaprec_thread *t, uint8_t *p)
{
	t->cur = p;
	__atomic_store_n(&((struct dprof_heaplog_seg *)t->seg)->used,
			 (uint32_t)(p - t->seg - sizeof(struct dprof_heaplog_seg)),
			 __ATOMIC_RELEASE);
}

static inline int heaprec_full(const struct heaprec_thread *t)
{
	return t->end - t->cur < DPROF_HEAPLOG_MAX_EVENT;
}

/*
 * A free takes no time of its own (reading the TSC would be most of its
 * cost): the report dates it by the thread's timed events around it.  One
 * in a row of HEAPREC_UNTIMED frees is timed, and so is a segment's first
 * event.
 */
static inline void heaprec_log_free(uintptr_t ptr)
{
	struct heaprec_thread *t = &heaprec_self;
	uint32_t cpu = heaprec_cpu();
	uint64_t now = DPROF_HEAPLOG_NO_TIME;

	if (unlikely(heaprec_full(t))) {
		now = heaprec_slow(t, cpu);
		if (now == DPROF_HEAPLOG_NO_TIME)
			return;
		t->untimed = 0;
	} else if (unlikely(++t->untimed == HEAPREC_UNTIMED)) {
		now = heaprec_now();
		t->untimed = 0;
	}
	heaprec_commit(t, dprof_heaplog_enc__event(&t->enc, t->cur, DPROF_HEAPLOG_FREE, now,
						   cpu, ptr, 0, 0, NULL, 0));
}

static void heaprec_log_alloc(int kind, uintptr_t ptr, uintptr_t old, size_t size,
			      uintptr_t ip, uintptr_t *sp)
{
	struct heaprec_thread *t = &heaprec_self;
	uint64_t ips[DPROF_HEAPLOG_MAX_IPS];
	uint32_t cpu = heaprec_cpu();
	unsigned int nr_ips;
	uint64_t now;

	if (unlikely(heaprec_full(t))) {
		now = heaprec_slow(t, cpu);
		if (now == DPROF_HEAPLOG_NO_TIME)
			return;
	} else {
		now = heaprec_now();
	}
	t->untimed = 0;
	if (t->outer_ip) {
		ip = t->outer_ip;
		sp = t->outer_sp;
	}
	/*
	 * The last scan's words are the chain of the segment's last
	 * allocation, which was logged from that scan (a new segment has
	 * none): no copy, no compare.
	 */
	if (heaprec_same_scan(t, ip, sp) && dprof_heaplog_enc__has_last(&t->enc)) {
		heaprec_commit(t, dprof_heaplog_enc__event(&t->enc, t->cur, kind, now, cpu, ptr,
							   old, size, NULL,
							   DPROF_HEAPLOG_IPS_LAST));
		return;
	}
	nr_ips = heaprec_ips(t, ip, sp, ips);
	heaprec_commit(t, dprof_heaplog_enc__event(&t->enc, t->cur, kind, now, cpu, ptr, old,
						   size, ips, nr_ips));
}

/* Whether this call is to be logged: on, and not from inside the recorder. */
static inline int heaprec_enter(void)
{
	if (unlikely(!heaprec_init()))
		return 0;
	if (heaprec_self.busy)
		return 0;
	heaprec_self.busy = 1;
	return 1;
}

/* hook.c's way in: its wrappers log as the interposed functions do */
int heaprec_hook_enter(void)
{
	return heaprec_enter();
}

void heaprec_hook_alloc(int kind, uintptr_t p, uintptr_t old, size_t size, uintptr_t ip,
			uintptr_t *sp)
{
	if (p)
		heaprec_log_alloc(kind, p, old, size, ip, sp);
	heaprec_self.busy = 0;
}

void heaprec_hook_free(uintptr_t p)
{
	if (p)
		heaprec_log_free(p);
	heaprec_self.busy = 0;
}

void heaprec_hook_leave(void)
{
	heaprec_self.busy = 0;
}

#define HEAPREC_IP	({ void *__ra = __builtin_return_address(0); (uintptr_t)__ra; })
#define HEAPREC_SP	((uintptr_t *)__builtin_frame_address(0) + 2)

static void heaprec_alloc(int on, void *p, size_t size, uintptr_t ip, uintptr_t *sp)
{
	if (!on)
		return;
	if (p)
		heaprec_log_alloc(DPROF_HEAPLOG_ALLOC, (uintptr_t)p, 0, size, ip, sp);
	heaprec_self.busy = 0;
}

HEAPREC_EXPORT void *malloc(size_t size)
{
	int on;
	void *p;

	if (unlikely(heaprec_booting || !real.malloc)) {
		if (heaprec_booting || !heaprec_init())
			return real.malloc && !heaprec_booting ? real.malloc(size) :
			       heaprec_boot_alloc(size);
	}
	on = heaprec_enter();
	p = real.malloc(size);
	heaprec_alloc(on, p, size, HEAPREC_IP, HEAPREC_SP);
	return p;
}

HEAPREC_EXPORT void *calloc(size_t nmemb, size_t size)
{
	int on;
	void *p;

	if (unlikely(heaprec_booting || !real.calloc)) {
		if (heaprec_booting || !heaprec_init()) {
			if (real.calloc && !heaprec_booting)
				return real.calloc(nmemb, size);
			if (size && nmemb > SIZE_MAX / size)
				return NULL;
			return heaprec_boot_alloc(nmemb * size);	/* static: zeroed */
		}
	}
	on = heaprec_enter();
	p = real.calloc(nmemb, size);
	heaprec_alloc(on, p, nmemb * size, HEAPREC_IP, HEAPREC_SP);
	return p;
}

HEAPREC_EXPORT void free(void *ptr)
{
	int on;

	if (unlikely(!ptr || heaprec_is_boot(ptr)))
		return;
	on = heaprec_enter();
	if (on) {
		heaprec_log_free((uintptr_t)ptr);
		heaprec_self.busy = 0;
	}
	real.free(ptr);
}

static void heaprec_realloc_log(int on, void *old, void *p, size_t size, uintptr_t ip,
				uintptr_t *sp)
{
	if (!on)
		return;
	if (p)
		heaprec_log_alloc(DPROF_HEAPLOG_REALLOC, (uintptr_t)p, (uintptr_t)old, size, ip,
				  sp);
	heaprec_self.busy = 0;
}

HEAPREC_EXPORT void *realloc(void *old, size_t size)
{
	int on;
	void *p;

	if (unlikely(heaprec_is_boot(old))) {
		/* the bytes of the boot arena from old on */
		size_t have = heaprec_boot + sizeof(heaprec_boot) - (char *)old;

		p = malloc(size);
		if (p)
			memcpy(p, old, size < have ? size : have);
		return p;
	}
	if (unlikely(!real.realloc) && !heaprec_init())
		return NULL;
	on = heaprec_enter();
	/* realloc(p, 0) frees p: log it before another thread gets the memory */
	if (on && old && !size) {
		heaprec_log_free((uintptr_t)old);
		p = real.realloc(old, size);
		if (p)
			heaprec_log_alloc(DPROF_HEAPLOG_ALLOC, (uintptr_t)p, 0, size, HEAPREC_IP,
					  HEAPREC_SP);
		heaprec_self.busy = 0;
		return p;
	}
	p = real.realloc(old, size);
	heaprec_realloc_log(on, old, p, size, HEAPREC_IP, HEAPREC_SP);
	return p;
}

HEAPREC_EXPORT void *reallocarray(void *old, size_t nmemb, size_t size)
{
	int on;
	void *p;

	if (unlikely(!real.reallocarray) && (!heaprec_init() || !real.reallocarray)) {
		errno = ENOMEM;
		return NULL;
	}
	on = heaprec_enter();
	p = real.reallocarray(old, nmemb, size);
	heaprec_realloc_log(on, old, p, nmemb * size, HEAPREC_IP, HEAPREC_SP);
	return p;
}

/* The real function of @field, or NULL when there is none. */
#define HEAPREC_REAL(field)	(likely(real.field) || heaprec_init() ? real.field : NULL)

static void *heaprec_enomem(void)
{
	errno = ENOMEM;
	return NULL;
}

/* aligned_alloc(), memalign() */
static void *heaprec_aligned(void *(*fn)(size_t align, size_t size), size_t align, size_t size,
			     uintptr_t ip, uintptr_t *sp)
{
	void *p;
	int on;

	if (!fn)
		return heaprec_enomem();
	on = heaprec_enter();
	p = fn(align, size);
	heaprec_alloc(on, p, size, ip, sp);
	return p;
}

HEAPREC_EXPORT void *aligned_alloc(size_t align, size_t size)
{
	return heaprec_aligned(HEAPREC_REAL(aligned_alloc), align, size, HEAPREC_IP, HEAPREC_SP);
}

HEAPREC_EXPORT void *memalign(size_t align, size_t size)
{
	return heaprec_aligned(HEAPREC_REAL(memalign), align, size, HEAPREC_IP, HEAPREC_SP);
}

/* valloc(), pvalloc(): page-aligned */
static void *heaprec_page_alloc(void *(*fn)(size_t size), size_t size, uintptr_t ip,
				uintptr_t *sp)
{
	void *p;
	int on;

	if (!fn)
		return heaprec_enomem();
	on = heaprec_enter();
	p = fn(size);
	heaprec_alloc(on, p, size, ip, sp);
	return p;
}

HEAPREC_EXPORT void *valloc(size_t size)
{
	return heaprec_page_alloc(HEAPREC_REAL(valloc), size, HEAPREC_IP, HEAPREC_SP);
}

HEAPREC_EXPORT void *pvalloc(size_t size)
{
	return heaprec_page_alloc(HEAPREC_REAL(pvalloc), size, HEAPREC_IP, HEAPREC_SP);
}

HEAPREC_EXPORT int posix_memalign(void **memptr, size_t align, size_t size)
{
	int on, ret = ENOMEM;	/* an error number, as posix_memalign() returns */

	if (unlikely(!real.posix_memalign) && (!heaprec_init() || !real.posix_memalign))
		return ret;
	on = heaprec_enter();
	ret = real.posix_memalign(memptr, align, size);
	heaprec_alloc(on, ret ? NULL : *memptr, size, HEAPREC_IP, HEAPREC_SP);
	return ret;
}

/*
 * C++ operator new: the allocation is logged by the malloc it calls, with
 * the site of operator new's caller.  Only reached when the C++ library
 * (whose operators these call) is loaded.
 */
struct heaprec_outer {
	uintptr_t	ip;
	uintptr_t	*sp;
};

/* Also when operator new throws (built with -fexceptions). */
static void heaprec_outer_restore(struct heaprec_outer *o)
{
	heaprec_self.outer_ip = o->ip;
	heaprec_self.outer_sp = o->sp;
}

/*
 * The site of an operator new is its caller's (@ip, @sp), unless it was
 * called from another one: the outer's is kept, and given back (@o) when
 * this one returns or throws.
 */
static struct heaprec_outer heaprec_outer_enter(uintptr_t ip, uintptr_t *sp)
{
	struct heaprec_thread *t = &heaprec_self;
	struct heaprec_outer o = { t->outer_ip, t->outer_sp };

	if (!o.ip) {
		t->outer_ip = ip;
		t->outer_sp = sp;
	}
	return o;
}

/* The real operator of @fn: none is a library without it, which cannot be. */
static void *heaprec_new_fn(void *fn)
{
	if (!fn)
		abort();
	return fn;
}

#define HEAPREC_OUTER	struct heaprec_outer __outer __attribute__((cleanup(heaprec_outer_restore)))

HEAPREC_EXPORT void *_Znwm(size_t size);
HEAPREC_EXPORT void *_Znwm(size_t size)
{
	HEAPREC_OUTER = heaprec_outer_enter(HEAPREC_IP, HEAPREC_SP);
	void *(*fn)(size_t size) = heaprec_new_fn(HEAPREC_REAL(opnew));

	return fn(size);
}

HEAPREC_EXPORT void *_Znam(size_t size);
HEAPREC_EXPORT void *_Znam(size_t size)
{
	HEAPREC_OUTER = heaprec_outer_enter(HEAPREC_IP, HEAPREC_SP);
	void *(*fn)(size_t size) = heaprec_new_fn(HEAPREC_REAL(opnewa));

	return fn(size);
}

HEAPREC_EXPORT void *_ZnwmRKSt9nothrow_t(size_t size, const void *nt);
HEAPREC_EXPORT void *_ZnwmRKSt9nothrow_t(size_t size, const void *nt)
{
	HEAPREC_OUTER = heaprec_outer_enter(HEAPREC_IP, HEAPREC_SP);
	void *(*fn)(size_t size, const void *nt) = heaprec_new_fn(HEAPREC_REAL(opnew_nt));

	return fn(size, nt);
}

HEAPREC_EXPORT void *_ZnamRKSt9nothrow_t(size_t size, const void *nt);
HEAPREC_EXPORT void *_ZnamRKSt9nothrow_t(size_t size, const void *nt)
{
	HEAPREC_OUTER = heaprec_outer_enter(HEAPREC_IP, HEAPREC_SP);
	void *(*fn)(size_t size, const void *nt) = heaprec_new_fn(HEAPREC_REAL(opnewa_nt));

	return fn(size, nt);
}

HEAPREC_EXPORT void *_ZnwmSt11align_val_t(size_t size, size_t al);
HEAPREC_EXPORT void *_ZnwmSt11align_val_t(size_t size, size_t al)
{
	HEAPREC_OUTER = heaprec_outer_enter(HEAPREC_IP, HEAPREC_SP);
	void *(*fn)(size_t size, size_t al) = heaprec_new_fn(HEAPREC_REAL(opnew_al));

	return fn(size, al);
}

HEAPREC_EXPORT void *_ZnamSt11align_val_t(size_t size, size_t al);
HEAPREC_EXPORT void *_ZnamSt11align_val_t(size_t size, size_t al)
{
	HEAPREC_OUTER = heaprec_outer_enter(HEAPREC_IP, HEAPREC_SP);
	void *(*fn)(size_t size, size_t al) = heaprec_new_fn(HEAPREC_REAL(opnewa_al));

	return fn(size, al);
}
