// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the heap log of the allocator recorder (dprof-preload/), from
 * its file to the recording and from the recording to the replay.
 *
 * record: dprof_heaplog_rec__create() makes the file the recorder writes
 * (heaplog.h) next to the output; once perf record is done,
 * dprof_heaplog_rec__store() decodes it, leaves out the objects no sample
 * can have touched (see dprof_heaplog__keep()) and appends the rest to the
 * recording as a header feature section of its own (DPROF_HEAPLOG_FEAT):
 * perf's readers skip a feature they do not know, and the data section,
 * which every tool reads, stays as perf record wrote it.
 *
 * report: dprof_heaplog__read() decodes that section into events sorted
 * by time, which the replay merges with the recording's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/data.h"
#include "util/debug.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/header.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/tool.h"
#include "util/tsc.h"
#include "hashfn.h"
#include "heaplog.h"
#include "heaplog-read.h"
#include "keep.h"

/* more than a log can count: 2^40 events would be 4 TiB of log */
#define DPROF_HEAPLOG_MAX_COUNT	BIT_ULL(40)

/* a sparse file: what the workload does not write takes no space */
#define DPROF_HEAPLOG_SEGS	16384
#define DPROF_HEAPLOG_FEW_SEGS	1024

/*
 * The log in memory (a memfd the workload opens by its /proc name): a page
 * of it costs the workload a sixth of what a page of a file next to the
 * output costs (ext4: 17 us, shmem: 3 us, each written through a shared
 * mapping), and the log only lives until perf stores it.  It may take half
 * of the memory at most: past that, events are lost and counted.
 */
static int dprof_heaplog_rec__memfd(struct dprof_heaplog_rec *h)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	u64 segs = DPROF_HEAPLOG_SEGS;
	int fd;

	if (pages > 0 && page > 0)
		segs = min_t(u64, segs, (u64)pages * page / 2 / DPROF_HEAPLOG_SEG_SIZE);
	if (segs < 16)
		return -ENOMEM;
	fd = memfd_create("perf-dprof-heaplog", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (asprintf(&h->path, "/proc/%d/fd/%d", getpid(), fd) < 0) {
		h->path = NULL;
		close(fd);
		return -ENOMEM;
	}
	/* the workload, not perf, opens it: is /proc there? */
	if (access(h->path, R_OK | W_OK) ||
	    ftruncate(fd, DPROF_HEAPLOG_HDR_SIZE + segs * DPROF_HEAPLOG_SEG_SIZE)) {
		zfree(&h->path);
		close(fd);
		return -ENOENT;
	}
	h->fd = fd;
	h->in_memory = true;
	return 0;
}

int dprof_heaplog_rec__create(struct dprof_heaplog_rec *h, const char *output)
{
	struct dprof_heaplog_file f = { .version = 1, .seg_size = DPROF_HEAPLOG_SEG_SIZE, };
	char *dir_buf = NULL, *base_buf = NULL;
	int err = -ENOMEM;

	h->fd = -1;
	h->path = NULL;
	h->in_memory = false;
	memcpy(f.magic, DPROF_HEAPLOG_MAGIC, sizeof(f.magic));
	if (!dprof_heaplog_rec__memfd(h)) {
		if (pwrite(h->fd, &f, sizeof(f), 0) == sizeof(f))
			return 0;
		dprof_heaplog_rec__remove(h);
	}
	/* else a file next to the output */
	dir_buf = strdup(output);
	base_buf = strdup(output);
	if (!dir_buf || !base_buf ||
	    asprintf(&h->path, "%s/.%s.heaplog.XXXXXX", dirname(dir_buf),
		     basename(base_buf)) < 0) {
		h->path = NULL;
		goto out;
	}
	h->fd = mkostemp(h->path, O_CLOEXEC);
	if (h->fd < 0) {
		err = -errno;
		pr_warning("dprof: cannot create the heap log %s: %m\n", h->path);
		zfree(&h->path);
		goto out;
	}
	if (pwrite(h->fd, &f, sizeof(f), 0) != sizeof(f) ||
	    (ftruncate(h->fd, DPROF_HEAPLOG_HDR_SIZE +
			      (u64)DPROF_HEAPLOG_SEGS * DPROF_HEAPLOG_SEG_SIZE) &&
	     ftruncate(h->fd, DPROF_HEAPLOG_HDR_SIZE +
			      (u64)DPROF_HEAPLOG_FEW_SEGS * DPROF_HEAPLOG_SEG_SIZE))) {
		err = -errno;
		pr_warning("dprof: cannot size the heap log %s: %m\n", h->path);
		dprof_heaplog_rec__remove(h);
		goto out;
	}
	err = 0;
out:
	free(dir_buf);
	free(base_buf);
	return err;
}

void dprof_heaplog_rec__remove(struct dprof_heaplog_rec *h)
{
	if (h->fd >= 0)
		close(h->fd);
	if (h->path && !h->in_memory)
		unlink(h->path);
	zfree(&h->path);
	h->fd = -1;
}

/* ---------------------------------------------------------------------- */
/* decoding                                                                */

/* Room for @need more items of @elem bytes in *@arr, which holds *@nr of *@alloc. */
static int dprof_heaplog__room(void **arr, size_t *alloc, size_t nr, size_t need, size_t elem)
{
	size_t n = *alloc ?: 4096;
	void *p;

	if (nr + need <= *alloc)
		return 0;
	while (n < nr + need)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*alloc = n;
	return 0;
}

static int dprof_heaplog__grow(struct dprof_heaplog *log, unsigned int nr_ips)
{
	return dprof_heaplog__room((void **)&log->ev, &log->alloc, log->nr, 1, sizeof(*log->ev)) ?:
	       dprof_heaplog__room((void **)&log->ips, &log->alloc_ips, log->nr_ips, nr_ips,
				   sizeof(*log->ips));
}

struct dprof_heaplog_pruner;
static int dprof_heaplog__prune(struct dprof_heaplog *log, struct dprof_heaplog_pruner *pr);
static u32 dprof_heaplog_pruner__chain(struct dprof_heaplog_pruner *pr);
static size_t dprof_heaplog_pruner__first(const struct dprof_heaplog_pruner *pr);

/*
 * Events decoded while the record-end pass prunes them: in batches of
 * this many (once they all have their time), so that those left out,
 * most of them, are dropped while they are in the cache.
 */
#define DPROF_HEAPLOG_BATCH	256

/*
 * dprof_heaplog__decode_seg(): *@untimed is the first untimed free not
 * dated yet; @pr: the record-end pass's pruning, or NULL.
 */
static int dprof_heaplog__decode_events(struct dprof_heaplog *log,
					const struct dprof_heaplog_seg *s,
					const u8 *p, size_t used, double rate, u32 segno,
					u64 floor, size_t *untimed,
					struct dprof_heaplog_pruner *pr)
{
	u64 chain[DPROF_HEAPLOG_CHAIN_SLOTS][DPROF_HEAPLOG_MAX_IPS];
	u8 chain_nr[DPROF_HEAPLOG_CHAIN_SLOTS] = { 0 };
	u32 chain_id[DPROF_HEAPLOG_CHAIN_SLOTS];
	unsigned int last = 0;
	const u8 *end = p + used;
	u64 clock = s->base;
	u64 ptr = 0, ip = 0, v;
	u32 cpu = s->cpu, n = 0;
	int err;

	while (p < end) {
		struct dprof_heaplog_event *ev;
		u8 tag = *p++, kind = tag & DPROF_HEAPLOG_KIND_MASK;
		unsigned int nr = tag >> DPROF_HEAPLOG_IPS_SHIFT, i, slot;
		const unsigned int free_bits = (DPROF_HEAPLOG_UNTIMED | DPROF_HEAPLOG_SAME_PTR) >>
					       DPROF_HEAPLOG_IPS_SHIFT;
		bool same_ptr = false;
		u64 *ips;

		/* a free's bits 3-7: DPROF_HEAPLOG_UNTIMED, _SAME_PTR; again: none */
		if ((kind == DPROF_HEAPLOG_FREE && (nr & ~free_bits)) ||
		    (kind == DPROF_HEAPLOG_ALLOC_AGAIN && nr) ||
		    (kind != DPROF_HEAPLOG_FREE && nr > DPROF_HEAPLOG_MAX_IPS &&
		     nr != DPROF_HEAPLOG_IPS_CACHED && nr != DPROF_HEAPLOG_IPS_LAST))
			return -EINVAL;
		if (kind == DPROF_HEAPLOG_FREE) {
			same_ptr = tag & DPROF_HEAPLOG_SAME_PTR;
			nr = 0;
		} else if (kind == DPROF_HEAPLOG_ALLOC_AGAIN) {
			kind = DPROF_HEAPLOG_ALLOC;
			same_ptr = true;
			nr = DPROF_HEAPLOG_IPS_LAST;
		}
		/* a batch whose events all have their time: pruned */
		if (pr && *untimed == log->nr &&
		    log->nr - dprof_heaplog_pruner__first(pr) >= DPROF_HEAPLOG_BATCH) {
			err = dprof_heaplog__prune(log, pr);
			if (err)
				return err;
			*untimed = log->nr;
		}
		err = dprof_heaplog__grow(log, DPROF_HEAPLOG_MAX_IPS);
		if (err)
			return err;
		ev = &log->ev[log->nr];
		memset(ev, 0, sizeof(*ev));
		ev->kind = kind;
		ev->pid = s->pid;
		ev->tid = s->tid;
		ev->seg = segno;
		ev->n = n++;
		if (tag & DPROF_HEAPLOG_UNTIMED && kind == DPROF_HEAPLOG_FREE) {
			/* dated by the next timed event; a segment's first is timed */
			if (n == 1)
				return -EINVAL;
			ev->lo = floor;
			ev->time = floor;
		} else {
			p = dprof_heaplog__get(p, end, &v);
			if (!p)
				return -EINVAL;
			clock += v;
			if (s->flags & DPROF_HEAPLOG_TSC)
				ev->time = s->time + (s64)((double)(s64)(clock - s->tsc) * rate);
			else
				ev->time = clock;
			/* a thread's events stay in order across its segments' anchors */
			if (ev->time < floor)
				ev->time = floor;
			floor = ev->time;
			ev->lo = ev->time;
			for (; *untimed < log->nr; (*untimed)++)
				log->ev[*untimed].time = ev->time;
			*untimed = log->nr + 1;
		}
		if (tag & DPROF_HEAPLOG_CPU) {
			p = dprof_heaplog__get(p, end, &v);
			if (!p)
				return -EINVAL;
			cpu = v;
		}
		ev->cpu = cpu;
		if (!same_ptr) {
			p = dprof_heaplog__get(p, end, &v);
			if (!p)
				return -EINVAL;
			ptr += dprof_heaplog__unzigzag(v);
		}
		ev->ptr = ptr;
		if (kind == DPROF_HEAPLOG_REALLOC) {
			p = dprof_heaplog__get(p, end, &v);
			if (!p)
				return -EINVAL;
			ev->old = ptr + dprof_heaplog__unzigzag(v);
		}
		if (kind != DPROF_HEAPLOG_FREE) {
			p = dprof_heaplog__get(p, end, &ev->size);
			if (!p)
				return -EINVAL;
		}
		ips = log->ips + log->nr_ips;
		if (nr == DPROF_HEAPLOG_IPS_LAST) {
			if (!chain_nr[last])
				return -EINVAL;
			nr = chain_nr[last];
			/* whole: a copy of a known size is a few moves, not a loop */
			memcpy(ips, chain[last], sizeof(chain[last]));
			ev->chain = chain_id[last];
		} else if (nr == DPROF_HEAPLOG_IPS_CACHED) {
			p = dprof_heaplog__get(p, end, &v);
			if (!p || v >= DPROF_HEAPLOG_CHAIN_SLOTS || !chain_nr[v])
				return -EINVAL;
			nr = chain_nr[v];
			last = v;
			memcpy(ips, chain[v], sizeof(chain[v]));
			ev->chain = chain_id[v];
		} else if (nr) {
			for (i = 0; i < nr; i++) {
				p = dprof_heaplog__get(p, end, &v);
				if (!p)
					return -EINVAL;
				ips[i] = (i ? ips[i - 1] : ip) + dprof_heaplog__unzigzag(v);
			}
			slot = dprof_heaplog__chain_slot(ips, nr);
			chain_nr[slot] = nr;
			memcpy(chain[slot], ips, sizeof(chain[slot]));
			chain_id[slot] = pr ? dprof_heaplog_pruner__chain(pr) : 0;
			ev->chain = chain_id[slot];
			last = slot;
		}
		if (nr)
			ip = ips[0];
		ev->nr_ips = nr;
		ev->ips = log->nr_ips;
		log->nr_ips += nr;
		log->nr++;
		if (kind == DPROF_HEAPLOG_FREE)
			log->nr_frees++;
		else
			log->nr_allocs++;
	}
	return 0;
}

/*
 * A segment's @used bytes of events at @p: appended to @log, with times in
 * nanoseconds (@rate: per TSC tick, for a segment in ticks), none before
 * @floor (the last of the thread's previous segment).  The untimed frees
 * at its end take @until: when the thread's next segment starts, or the
 * log ends.  @pr: the record-end pass, which prunes them in batches as
 * they are decoded (its last batch is left to the caller), or NULL.
 * Return: 0, -EINVAL when an event is damaged (those before it are kept),
 * -ENOMEM.
 */
static int dprof_heaplog__decode_seg(struct dprof_heaplog *log,
				     const struct dprof_heaplog_seg *s,
				     const u8 *p, size_t used, double rate, u32 segno,
				     u64 floor, u64 until, struct dprof_heaplog_pruner *pr)
{
	size_t untimed = log->nr;	/* the first untimed free not dated yet */
	int err = dprof_heaplog__decode_events(log, s, p, used, rate, segno, floor, &untimed,
					       pr);

	/* dated by the next timed event: there is none in the segment */
	for (; untimed < log->nr; untimed++)
		log->ev[untimed].time = max(until, log->ev[untimed].lo);
	return err;
}

static int dprof_heaplog_event__cmp(const void *a, const void *b)
{
	const struct dprof_heaplog_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->seg != y->seg)
		return x->seg < y->seg ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Events of one segment keep their order: it is the thread's. */
static void dprof_heaplog__sort(struct dprof_heaplog *log)
{
	size_t i;

	/* one thread's log is in order already */
	for (i = 1; i < log->nr; i++) {
		if (dprof_heaplog_event__cmp(&log->ev[i - 1], &log->ev[i]) > 0)
			break;
	}
	if (i < log->nr)
		qsort(log->ev, log->nr, sizeof(*log->ev), dprof_heaplog_event__cmp);
}

void dprof_heaplog__exit(struct dprof_heaplog *log)
{
	hashmap__free(log->allocator_ips);
	zfree(&log->ev);
	zfree(&log->ips);
	zfree(&log->notes);
	memset(log, 0, sizeof(*log));
}

static u64 dprof_heaplog__mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---------------------------------------------------------------------- */
/* record: the objects a sample can have touched                           */

static int dprof_u64__cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * User addresses are below 2^47: the pid's low 16 bits above them, the
 * pid whole in the table's slot.
 */
#define DPROF_LIVE_KEY(pid, addr)	((addr) | (u64)((pid) & 0xffff) << 47 | 1ULL << 63)

/*
 * Live objects: (pid, address) to when the object started and the event
 * that started it.  While the log is stored, the objects a sample's
 * address may still fall in (a few thousand: most objects go at once),
 * so that their end, in whatever segment it comes, is told from the end
 * of an object left out; then, in the walk in time order, the objects
 * kept.  Open addressing, linear probing; an address may be there twice
 * (an object's free in a segment not decoded yet, another's allocation
 * at its address).
 */
struct dprof_heaplog_open_slot {
	u64	key;		/* DPROF_LIVE_KEY(); 0: empty */
	u64	time;
	u32	pid;
	u32	ev;		/* the event that started it, in the log */
};

struct dprof_heaplog_open {
	struct dprof_heaplog_open_slot	*s;
	size_t				mask, nr;
};

static size_t dprof_heaplog_open__home(const struct dprof_heaplog_open *o, u64 key)
{
	return (key * 0x9e3779b97f4a7c15ULL) >> 20 & o->mask;
}

/* An empty slot for @key, after those that hold it already. */
static size_t dprof_heaplog_open__empty(const struct dprof_heaplog_open *o, u64 key)
{
	size_t i = dprof_heaplog_open__home(o, key);

	while (o->s[i].key)
		i = (i + 1) & o->mask;
	return i;
}

static int dprof_heaplog_open__grow(struct dprof_heaplog_open *o)
{
	struct dprof_heaplog_open old = *o;
	size_t i, n = old.s ? 2 * (old.mask + 1) : 1 << 12;

	o->s = calloc(n, sizeof(*o->s));
	if (!o->s) {
		*o = old;
		return -ENOMEM;
	}
	o->mask = n - 1;
	for (i = 0; old.s && i <= old.mask; i++) {
		if (old.s[i].key)
			o->s[dprof_heaplog_open__empty(o, old.s[i].key)] = old.s[i];
	}
	free(old.s);
	return 0;
}

static int dprof_heaplog_open__add(struct dprof_heaplog_open *o,
				   const struct dprof_heaplog_event *ev, u32 idx)
{
	u64 key = DPROF_LIVE_KEY(ev->pid, ev->ptr);
	size_t slot;

	if (2 * (o->nr + 1) > o->mask && dprof_heaplog_open__grow(o))
		return -ENOMEM;
	slot = dprof_heaplog_open__empty(o, key);
	o->s[slot].key = key;
	o->s[slot].time = ev->time;
	o->s[slot].pid = ev->pid;
	o->s[slot].ev = idx;
	o->nr++;
	return 0;
}

/* The object @ev started, once in the table, is now event @idx of the log. */
static void dprof_heaplog_open__moved(struct dprof_heaplog_open *o,
				      const struct dprof_heaplog_event *ev, u32 idx)
{
	u64 key = DPROF_LIVE_KEY(ev->pid, ev->ptr);
	size_t i = dprof_heaplog_open__home(o, key);

	for (; o->s[i].key; i = (i + 1) & o->mask) {
		if (o->s[i].key == key && o->s[i].pid == ev->pid && o->s[i].time == ev->time) {
			o->s[i].ev = idx;
			return;
		}
	}
}

/* Take the entry at slot @i out, moving up the ones its probe passed. */
static void dprof_heaplog_open__del(struct dprof_heaplog_open *o, size_t i)
{
	size_t j = i;

	o->s[i].key = 0;
	o->nr--;
	for (;;) {
		size_t home;

		j = (j + 1) & o->mask;
		if (!o->s[j].key)
			return;
		home = dprof_heaplog_open__home(o, o->s[j].key);
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		o->s[i] = o->s[j];
		o->s[j].key = 0;
		i = j;
	}
}

/*
 * @ptr freed in process @pid after @time ends one of the objects: the
 * latest to start by then leaves the table, its event's index returned.
 * -1: it ends an object left out, or one the log did not see start.  (A
 * free the recorder did not time came after its thread's previous timed
 * event, @time, and is dated by the next: an object that started between
 * the two may have taken the address after it.)
 */
static s64 dprof_heaplog_open__end(struct dprof_heaplog_open *o, u32 pid, u64 ptr, u64 time)
{
	u64 key = DPROF_LIVE_KEY(pid, ptr);
	size_t i = dprof_heaplog_open__home(o, key), best = SIZE_MAX;

	for (; o->s[i].key; i = (i + 1) & o->mask) {
		if (o->s[i].key == key && o->s[i].pid == pid && o->s[i].time <= time &&
		    (best == SIZE_MAX || o->s[i].time > o->s[best].time))
			best = i;
	}
	if (best == SIZE_MAX)
		return -1;
	i = o->s[best].ev;
	dprof_heaplog_open__del(o, best);
	return i;
}

/*
 * The objects left out, counted per process and call chain: the replay
 * counts them at their site (the objects its rows' estimates are bounded
 * by) without an object to replay.
 */
struct dprof_heaplog_sum {
	u64	time;		/* the first's */
	u64	objects;
	u64	frees;		/* of them, ended by a free or a realloc */
	u64	size;		/* the largest */
	u32	pid, tid, cpu;
	u32	nr_ips;
	u64	ips[DPROF_HEAPLOG_MAX_IPS];
};

/*
 * The sums of the chains decoded last, by their id: most objects left out
 * come from a few chains the log names again and again, whose sum is then
 * found without hashing the chain.
 */
#define DPROF_HEAPLOG_SUM_CACHE	1024

struct dprof_heaplog_sum_cache {
	u32				chain;	/* 0: none */
	struct dprof_heaplog_sum	*sum;
};

static long dprof_heaplog_sum__key(const struct dprof_heaplog *log,
				   const struct dprof_heaplog_event *ev)
{
	u64 h = ev->pid * 0x9e3779b97f4a7c15ULL;
	u32 i;

	for (i = 0; i < ev->nr_ips; i++)
		h = (h ^ log->ips[ev->ips + i]) * 0x9e3779b97f4a7c15ULL;
	return (long)(h ^ h >> 29);
}

/*
 * Object @ev started is left out; @freed: its end was seen.  Chains are
 * told apart by a 64-bit hash of the pid and return addresses: two that
 * collide would count at one site.  @cache: the sums of the chains the
 * decoding named by id (dprof_heaplog_event::chain), or NULL.
 */
static int dprof_heaplog__sum(struct hashmap *sums, const struct dprof_heaplog *log,
			      const struct dprof_heaplog_event *ev, bool freed,
			      struct dprof_heaplog_sum_cache *cache)
{
	struct dprof_heaplog_sum_cache *c = NULL;
	struct dprof_heaplog_sum *sum = NULL;
	long key;

	if (cache && ev->chain) {
		c = &cache[ev->chain % DPROF_HEAPLOG_SUM_CACHE];
		if (c->chain == ev->chain)
			sum = c->sum;
	}
	if (sum)
		goto count;
	key = dprof_heaplog_sum__key(log, ev);
	if (!hashmap__find(sums, key, &sum)) {
		sum = zalloc(sizeof(*sum));
		if (!sum)
			return -ENOMEM;
		sum->time = ev->time;
		sum->pid = ev->pid;
		sum->tid = ev->tid;
		sum->cpu = ev->cpu;
		sum->nr_ips = min_t(u32, ev->nr_ips, DPROF_HEAPLOG_MAX_IPS);
		memcpy(sum->ips, log->ips + ev->ips, sum->nr_ips * sizeof(*sum->ips));
		if (hashmap__add(sums, key, sum)) {
			free(sum);
			return -ENOMEM;
		}
	}
	if (c) {
		c->chain = ev->chain;
		c->sum = sum;
	}
count:
	if (ev->time < sum->time) {
		sum->time = ev->time;
		sum->tid = ev->tid;
		sum->cpu = ev->cpu;
	}
	sum->objects++;
	sum->frees += freed;
	if (ev->size > sum->size)
		sum->size = ev->size;
	return 0;
}

static void dprof_heaplog__sums_free(struct hashmap *sums)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!sums)
		return;
	hashmap__for_each_entry(sums, cur, bkt)
		free(cur->pvalue);
	hashmap__free(sums);
}

#define DPROF_KEEP_NEW	0x1	/* the object it starts is kept */
#define DPROF_KEEP_OLD	0x2	/* the object it ends is kept */

struct dprof_heaplog_keep {
	const struct dprof_heaplog	*log;
	const struct dprof_touches	*st;
	struct hashmap			*sums;
	unsigned int			min_size;
	u8				*keep;
	u64				dropped;
	u64				unpaired;	/* frees of no object started */
	int				err;
};

/* The object event @start began lives to @to, ended by event @end (or -1). */
static void dprof_heaplog_keep__life(struct dprof_heaplog_keep *k, u32 start, u64 to,
				     s64 end)
{
	const struct dprof_heaplog_event *ev = &k->log->ev[start];

	if (ev->size < k->min_size) {
		k->dropped++;
		return;
	}
	if (!dprof_touches__any(k->st, ev->pid, ev->ptr, ev->size, ev->time, to)) {
		k->dropped++;
		if (!k->err)
			k->err = dprof_heaplog__sum(k->sums, k->log, ev, end >= 0, NULL);
		return;
	}
	k->keep[start] |= DPROF_KEEP_NEW;
	if (end >= 0)
		k->keep[end] |= DPROF_KEEP_OLD;
}

/*
 * Which events the replay needs: a sample resolves to a heap object only
 * when its address is inside the object while it lives, so an object no
 * access sample's address fell in during its life is left out, with its
 * free, and counted in @sums; a free of an object the log did not see
 * start goes too, and so do objects of less than @min_size bytes
 * (--heap-min-size).  @keep gets DPROF_KEEP_* per event (sorted by time).
 * Returns the objects left out.
 */
static int dprof_heaplog__keep(struct dprof_heaplog *log,
			       const struct dprof_touches *st, unsigned int min_size,
			       struct hashmap *sums, u8 *keep, u64 *dropped)
{
	struct dprof_heaplog_keep k = {
		.log = log, .st = st, .sums = sums, .min_size = min_size, .keep = keep,
	};
	struct dprof_heaplog_open lv = { .s = NULL, };
	size_t i;
	s64 start;

	if (dprof_heaplog_open__grow(&lv))
		return -ENOMEM;
	for (i = 0; i < log->nr; i++) {
		const struct dprof_heaplog_event *ev = &log->ev[i];
		u64 end = ev->kind == DPROF_HEAPLOG_FREE ? ev->ptr : ev->old;

		/*
		 * A free, or the realloc's old object: its life ends here.  But
		 * an untimed free is dated late: the object at its address that
		 * started after it may have run is not the one it freed (that
		 * ended then, when this one took its place).
		 */
		if (end) {
			start = dprof_heaplog_open__end(&lv, ev->pid, end, ev->lo);
			if (start < 0)
				k.unpaired++;
			else
				dprof_heaplog_keep__life(&k, start, ev->time, i);
		}
		if (ev->kind == DPROF_HEAPLOG_FREE || !ev->ptr)
			continue;
		/* its free was not seen: the replay ends it here */
		while ((start = dprof_heaplog_open__end(&lv, ev->pid, ev->ptr, ~0ULL)) >= 0)
			dprof_heaplog_keep__life(&k, start, ev->time, -1);
		if (dprof_heaplog_open__add(&lv, ev, i)) {
			free(lv.s);
			return -ENOMEM;
		}
	}
	for (i = 0; i <= lv.mask; i++) {
		if (lv.s[i].key)
			dprof_heaplog_keep__life(&k, lv.s[i].ev, ~0ULL, -1);
	}
	free(lv.s);
	if (k.err)
		return k.err;
	*dropped = k.dropped;
	if (k.unpaired)
		pr_debug("dprof: heap log: %" PRIu64
			 " frees of no object started by then (of one never seen, or dated late)\n",
			 k.unpaired);
	return 0;
}

#define DPROF_HEAPLOG_DEAD	0xff	/* an event pruned, in place of its kind */

/*
 * The events from @from on that are not marked DEAD, and their return
 * addresses, move down over those that are; the objects in @open whose
 * events move are told where to.
 */
static void dprof_heaplog__squeeze(struct dprof_heaplog *log, struct dprof_heaplog_open *open,
				   size_t from)
{
	size_t i, j, ip_w = from < log->nr ? log->ev[from].ips : log->nr_ips;

	for (i = j = from; i < log->nr; i++) {
		struct dprof_heaplog_event ev = log->ev[i];

		if (ev.kind == DPROF_HEAPLOG_DEAD)
			continue;
		memmove(log->ips + ip_w, log->ips + ev.ips, ev.nr_ips * sizeof(*log->ips));
		ev.ips = ip_w;
		ip_w += ev.nr_ips;
		if (i != j && (ev.kind == DPROF_HEAPLOG_ALLOC || ev.kind == DPROF_HEAPLOG_REALLOC))
			dprof_heaplog_open__moved(open, &ev, j);
		log->ev[j++] = ev;
	}
	log->nr = j;
	log->nr_ips = ip_w;
}

/* Event @ev's object goes: a realloc keeps the end of the one it moved. */
static void dprof_heaplog__drop_start(struct dprof_heaplog_event *ev)
{
	if (ev->kind == DPROF_HEAPLOG_REALLOC && ev->old) {
		ev->kind = DPROF_HEAPLOG_FREE;
		ev->ptr = ev->old;
		ev->old = 0;
		ev->size = 0;
		ev->nr_ips = 0;
	} else {
		ev->kind = DPROF_HEAPLOG_DEAD;
	}
}

/* Event @ev's end of an object goes: a realloc keeps what it started. */
static void dprof_heaplog__drop_end(struct dprof_heaplog_event *ev)
{
	if (ev->kind == DPROF_HEAPLOG_FREE)
		ev->kind = DPROF_HEAPLOG_DEAD;
	else
		ev->old = 0;
}

/*
 * Where and when the samples' addresses fell, hashed: for each 64-byte
 * granule (of a process) the time of its last sample, and a bitmap of the
 * granules by 65 us tick.  An object no sample can have fallen in during
 * its life is told so without a search of the touches: most of those an
 * interpreter allocates, millions of short-lived ones at the same few
 * addresses.  Collisions only make a search.  No bits: some samples'
 * addresses are unknown, any object may have one.
 */
#define DPROF_HEAPLOG_GRAN_SHIFT	6
#define DPROF_HEAPLOG_TICK_SHIFT	16	/* 65 us: a sampling period is more */
#define DPROF_HEAPLOG_LAST_ORDER	16
#define DPROF_HEAPLOG_FILTER_ORDER	20
/* an object over this many granules or ticks is searched for */
#define DPROF_HEAPLOG_FILTER_SPAN	64

struct dprof_heaplog_filter {
	unsigned long	*bits;
	u64		*last;
};

static u32 dprof_heaplog_filter__hash(u32 pid, u64 granule, u64 tick, int order)
{
	u64 h = (granule ^ (u64)pid << 40 ^ tick * 0xff51afd7ed558ccdULL) * 0x9e3779b97f4a7c15ULL;

	return h >> (64 - order);
}

static void dprof_heaplog_filter__init(struct dprof_heaplog_filter *f,
				       const struct dprof_touches *st)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	if (st->nr_undecided)
		return;
	f->bits = bitmap_zalloc(1 << DPROF_HEAPLOG_FILTER_ORDER);
	f->last = calloc(1 << DPROF_HEAPLOG_LAST_ORDER, sizeof(*f->last));
	if (!f->bits || !f->last) {
		zfree(&f->bits);
		zfree(&f->last);
		return;
	}
	for (i = 0; i < st->nr; i++) {
		const struct dprof_touch *t = &st->t[i];
		u64 g = t->addr >> DPROF_HEAPLOG_GRAN_SHIFT;
		u32 h = dprof_heaplog_filter__hash(t->pid, g, 0, DPROF_HEAPLOG_LAST_ORDER);

		f->last[h] = max(f->last[h], t->time);
		__set_bit(dprof_heaplog_filter__hash(t->pid, g, t->time >> DPROF_HEAPLOG_TICK_SHIFT,
						     DPROF_HEAPLOG_FILTER_ORDER), f->bits);
	}
}

static void dprof_heaplog_filter__exit(struct dprof_heaplog_filter *f)
{
	zfree(&f->bits);
	zfree(&f->last);
}

/* Whether a sample of @pid may have fallen in [@ptr, @ptr + @size) from @from to @to. */
static bool dprof_heaplog_filter__maybe(const struct dprof_heaplog_filter *f, u32 pid,
					u64 ptr, u64 size, u64 from, u64 to)
{
	u64 g = ptr >> DPROF_HEAPLOG_GRAN_SHIFT;
	u64 last = (ptr + (size ?: 1) - 1) >> DPROF_HEAPLOG_GRAN_SHIFT;
	u64 t0 = from >> DPROF_HEAPLOG_TICK_SHIFT, t1 = to >> DPROF_HEAPLOG_TICK_SHIFT;

	if (!f->bits || last < g || last - g >= DPROF_HEAPLOG_FILTER_SPAN || to < from)
		return true;
	for (; g <= last; g++) {
		u64 t;

		if (f->last[dprof_heaplog_filter__hash(pid, g, 0, DPROF_HEAPLOG_LAST_ORDER)] < from)
			continue;
		if (t1 - t0 >= DPROF_HEAPLOG_FILTER_SPAN)
			return true;
		for (t = t0; t <= t1; t++) {
			if (test_bit(dprof_heaplog_filter__hash(pid, g, t,
								DPROF_HEAPLOG_FILTER_ORDER),
				     f->bits))
				return true;
		}
	}
	return false;
}

/*
 * The record-end pass's state while the log is decoded (see
 * dprof_heaplog__prune()): where the samples fell, the objects that wait
 * for their end, what was left out.
 */
struct dprof_heaplog_pruner {
	const struct dprof_touches	*st;
	const struct dprof_heaplog_filter *filter;
	unsigned int			min_size;
	struct hashmap			*sums;
	struct dprof_heaplog_open	*open;
	size_t				first;		/* the first event not pruned */
	size_t				nr_marked;	/* events before it that go */
	u64				dropped;
	u64				left_out_frees;
	u32				chains;		/* ids given */
	struct dprof_heaplog_sum_cache	cache[DPROF_HEAPLOG_SUM_CACHE];
};

/* An id for a chain decoded: never 0, and not one the sum cache holds. */
static u32 dprof_heaplog_pruner__chain(struct dprof_heaplog_pruner *pr)
{
	if (!++pr->chains) {
		memset(pr->cache, 0, sizeof(pr->cache));
		pr->chains = 1;
	}
	return pr->chains;
}

static size_t dprof_heaplog_pruner__first(const struct dprof_heaplog_pruner *pr)
{
	return pr->first;
}

/*
 * What dprof_heaplog__keep() would leave out goes as soon as it is
 * decoded, so that the log is not held whole in memory.  An object no
 * sample's address falls in from its start on goes at once; the others
 * wait in @pr's open objects for their end, in whatever segment it comes,
 * and go then if no sample's address fell in them during their life.  An
 * end that none of them takes is of an object left out, or of one the log
 * did not see start: it goes too, counted in @left_out_frees.  The objects
 * left out are counted in @sums and @dropped.  The events from @pr's
 * @first on are those decoded since the last call; those before that go
 * are marked, and @nr_marked counts them.
 */
static int dprof_heaplog__prune(struct dprof_heaplog *log, struct dprof_heaplog_pruner *pr)
{
	size_t i, first = pr->first;

	for (i = first; i < log->nr; i++) {
		struct dprof_heaplog_event *ev = &log->ev[i];
		u64 end = ev->kind == DPROF_HEAPLOG_FREE ? ev->ptr : ev->old;
		s64 start = end ? dprof_heaplog_open__end(pr->open, ev->pid, end, ev->lo) : -1;

		if (end && start < 0) {
			pr->left_out_frees++;
			dprof_heaplog__drop_end(ev);
		} else if (end) {
			struct dprof_heaplog_event *sev = &log->ev[start];

			if (sev->size >= pr->min_size &&
			    (!dprof_heaplog_filter__maybe(pr->filter, sev->pid, sev->ptr, sev->size,
							  sev->time, ev->time) ||
			     !dprof_touches__any(pr->st, sev->pid, sev->ptr, sev->size, sev->time,
						 ev->time))) {
				if (dprof_heaplog__sum(pr->sums, log, sev, true, pr->cache))
					return -ENOMEM;
				pr->dropped++;
				dprof_heaplog__drop_start(sev);
				dprof_heaplog__drop_end(ev);
				if ((size_t)start < first && sev->kind == DPROF_HEAPLOG_DEAD)
					pr->nr_marked++;
			}
		}
		if ((ev->kind != DPROF_HEAPLOG_ALLOC && ev->kind != DPROF_HEAPLOG_REALLOC) ||
		    !ev->ptr || ev->size < pr->min_size)
			continue;
		/* no sample's address ever falls in it: it goes now */
		if (!dprof_heaplog_filter__maybe(pr->filter, ev->pid, ev->ptr, ev->size, ev->time,
						 ~0ULL) ||
		    !dprof_touches__any(pr->st, ev->pid, ev->ptr, ev->size, ev->time, ~0ULL)) {
			if (dprof_heaplog__sum(pr->sums, log, ev, false, pr->cache))
				return -ENOMEM;
			pr->dropped++;
			dprof_heaplog__drop_start(ev);
			continue;
		}
		if (dprof_heaplog_open__add(pr->open, ev, i))
			return -ENOMEM;
	}
	dprof_heaplog__squeeze(log, pr->open, first);
	pr->first = log->nr;
	return 0;
}

/*
 * The events pruned before that dprof_heaplog__prune() marked go, once
 * they are half of the log, or @all: the objects still open move with
 * their events.
 */
static void dprof_heaplog__compact(struct dprof_heaplog *log, struct dprof_heaplog_pruner *pr,
				   bool all)
{
	if (!pr->nr_marked || (!all && 2 * pr->nr_marked < log->nr))
		return;
	dprof_heaplog__squeeze(log, pr->open, 0);
	pr->nr_marked = 0;
	pr->first = log->nr;
}

/* ---------------------------------------------------------------------- */
/* record: into the recording                                              */

/*
 * The recorders' notes (a runtime's allocator they could not hook: "heap:
 * ..."), said now and after the segments of @blob for the report.
 */
static int dprof_heaplog__add_notes(const struct dprof_heaplog_file *f, void **blob,
				    size_t *len)
{
	const char *notes = (const char *)f + DPROF_HEAPLOG_NOTES_OFF, *line;
	u32 n = min_t(u32, f->notes_used, DPROF_HEAPLOG_NOTES_SIZE);
	u8 *b;

	while (n && notes[n - 1] != '\n')
		n--;	/* a line cut short: the others */
	if (!n)
		return 0;
	for (line = notes; line < notes + n; line = strchr(line, '\n') + 1)
		pr_warning("dprof: %.*s\n", (int)(strchr(line, '\n') - line), line);
	b = realloc(*blob, *len + 12 + n);
	if (!b)
		return -ENOMEM;
	memcpy(b + *len, DPROF_HEAPLOG_NOTES_MAGIC, 8);
	memcpy(b + *len + 8, &n, 4);
	memcpy(b + *len + 12, notes, n);
	*blob = b;
	*len += 12 + n;
	return 0;
}

/*
 * Append @len bytes at @blob to the recording in @fd as the feature
 * section @bit: the section table, after the data section, gets one more
 * entry (where @bit falls: the features' bits are in order), so the
 * sections after it move 16 bytes on, and the new section goes last.
 */
int dprof_feat__append(int fd, int bit, const void *blob, size_t len)
{
	struct perf_file_section *sec;
	struct perf_file_header fh;
	DECLARE_BITMAP(feat, HEADER_FEAT_BITS);
	u64 feat_offset, tail_len, end;
	int nr, idx, i, err = -EINVAL;
	struct stat st;
	char *tail;

	if (pread(fd, &fh, sizeof(fh), 0) != sizeof(fh) || memcmp(&fh.magic, "PERFILE2", 8) ||
	    fh.size != sizeof(fh) || fstat(fd, &st))
		return -EINVAL;
	memcpy(feat, fh.adds_features, sizeof(feat));
	if (test_bit(bit, feat))
		return -EEXIST;
	feat_offset = fh.data.offset + fh.data.size;
	nr = bitmap_weight(feat, HEADER_FEAT_BITS);
	idx = bitmap_weight(feat, bit);
	if (feat_offset + nr * sizeof(*sec) > (u64)st.st_size)
		return -EINVAL;
	tail_len = st.st_size - feat_offset;
	tail = malloc(tail_len + sizeof(*sec));
	if (!tail)
		return -ENOMEM;
	if (pread(fd, tail, tail_len, feat_offset) != (ssize_t)tail_len)
		goto out;
	/* the table, one entry longer, then the sections */
	memmove(tail + (nr + 1) * sizeof(*sec), tail + nr * sizeof(*sec),
		tail_len - nr * sizeof(*sec));
	sec = (struct perf_file_section *)tail;
	memmove(&sec[idx + 1], &sec[idx], (nr - idx) * sizeof(*sec));
	for (i = 0; i <= nr; i++) {
		if (i == idx)
			continue;
		if (sec[i].offset < feat_offset + nr * sizeof(*sec))
			goto out;
		sec[i].offset += sizeof(*sec);
	}
	end = st.st_size + sizeof(*sec);
	end = (end + 7) & ~7ULL;
	sec[idx].offset = end;
	sec[idx].size = len;
	if (pwrite(fd, tail, tail_len + sizeof(*sec), feat_offset) !=
	    (ssize_t)(tail_len + sizeof(*sec)) ||
	    (ftruncate(fd, end) && errno != 0) ||
	    pwrite(fd, blob, len, end) != (ssize_t)len) {
		err = -errno;
		goto out;
	}
	set_bit(bit, feat);
	memcpy(fh.adds_features, feat, sizeof(feat));
	if (pwrite(fd, &fh, sizeof(fh), 0) != sizeof(fh)) {
		err = -errno;
		goto out;
	}
	err = 0;
out:
	free(tail);
	return err;
}

static int dprof_u32__cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The processes with events in @log, or objects left out in @sums (if
 * any): forked children too, exec'd ones once.
 */
static u64 dprof_heaplog__procs(const struct dprof_heaplog *log, struct hashmap *sums)
{
	size_t nr_sums = sums ? hashmap__size(sums) : 0, nr = 0, i;
	u32 *pids = calloc(log->nr + nr_sums + 1, sizeof(*pids));
	struct hashmap_entry *cur;
	u64 n = 0;

	if (!pids)
		return 0;
	for (i = 0; i < log->nr; i++)
		pids[nr++] = log->ev[i].pid;
	if (sums) {
		hashmap__for_each_entry(sums, cur, i)
			pids[nr++] = ((struct dprof_heaplog_sum *)cur->pvalue)->pid;
	}
	qsort(pids, nr, sizeof(*pids), dprof_u32__cmp);
	for (i = 0; i < nr; i++)
		n += !i || pids[i] != pids[i - 1];
	free(pids);
	return n;
}

static int dprof_heaplog_sum__cmp(const void *a, const void *b)
{
	const struct dprof_heaplog_sum *x = *(const struct dprof_heaplog_sum **)a;
	const struct dprof_heaplog_sum *y = *(const struct dprof_heaplog_sum **)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * The summary segments at @buf (room enough): one per thread, its counts
 * in time order.  Returns how many bytes they took, or -ENOMEM.
 */
static ssize_t dprof_heaplog__encode_sums(struct hashmap *sums, struct dprof_heaplog_enc *enc,
					  u8 *buf)
{
	size_t nr = hashmap__size(sums), i = 0, a, b, len = 0;
	struct dprof_heaplog_sum **v = calloc(nr + 1, sizeof(*v));
	struct hashmap_entry *cur;
	size_t bkt;

	if (!v)
		return -ENOMEM;
	hashmap__for_each_entry(sums, cur, bkt)
		v[i++] = cur->pvalue;
	qsort(v, nr, sizeof(*v), dprof_heaplog_sum__cmp);
	for (a = 0; a < nr; a = b) {
		struct dprof_heaplog_seg *s = (void *)(buf + len);
		u8 *p = (u8 *)(s + 1);

		memset(s, 0, sizeof(*s));
		s->magic = DPROF_HEAPLOG_SEG_MAGIC;
		s->pid = v[a]->pid;
		s->tid = v[a]->tid;
		s->time = v[a]->time;
		s->base = v[a]->time;
		s->cpu = v[a]->cpu;
		s->flags = DPROF_HEAPLOG_SUMMARY;
		dprof_heaplog_enc__reset(enc, v[a]->time, v[a]->cpu);
		for (b = a; b < nr && v[b]->pid == v[a]->pid && v[b]->tid == v[a]->tid; b++) {
			/* a chain of none is written as none: not "the last one again" */
			p = dprof_heaplog_enc__event(enc, p, DPROF_HEAPLOG_REALLOC, v[b]->time,
						     v[b]->cpu, v[b]->objects, v[b]->frees,
						     v[b]->size, v[b]->ips, v[b]->nr_ips);
		}
		s->used = p - (u8 *)(s + 1);
		len = ((p - buf) + 7) & ~7UL;
	}
	free(v);
	return len;
}

/*
 * The recording's section: the summaries of the objects left out, @sums,
 * then the events @keep says, by segment, in time order.
 */
static void *dprof_heaplog__encode(struct dprof_heaplog *log, const u8 *keep,
				   const struct dprof_heaplog_file *f, u64 dropped,
				   struct hashmap *sums, const struct dprof_touches *st,
				   u64 left_out_frees, size_t *lenp)
{
	struct dprof_heaplog_feat *feat;
	struct dprof_heaplog_enc *enc = malloc(sizeof(*enc));
	size_t cap = sizeof(*feat) + 64, len = sizeof(*feat), i;
	u32 *order = calloc(log->nr + 1, sizeof(*order));
	u8 *buf = NULL;
	u32 nr_order = 0, k;

	if (!enc || !order)
		goto out_err;
	/* the kept events of each segment, segments in turn (stable) */
	for (i = 0; i < log->nr; i++) {
		if (keep[i])
			order[nr_order++] = i;
	}
	for (k = 0; k < nr_order; k++)
		cap += sizeof(struct dprof_heaplog_seg) + DPROF_HEAPLOG_MAX_EVENT + 8;
	cap += hashmap__size(sums) * (sizeof(struct dprof_heaplog_seg) +
				      DPROF_HEAPLOG_MAX_EVENT + 8);
	buf = calloc(1, cap);
	if (!buf)
		goto out_err;
	/* the summaries first: a log cut or damaged at its end loses events */
	{
		ssize_t n = dprof_heaplog__encode_sums(sums, enc, buf + len);

		if (n < 0)
			goto out_err;
		len += n;
	}
	/* segment by segment, each in time order */
	{
		u64 *by_seg = calloc(nr_order + 1, sizeof(*by_seg));
		u32 a, b;

		if (!by_seg)
			goto out_err;
		for (a = 0; a < nr_order; a++)
			by_seg[a] = (u64)log->ev[order[a]].seg << 32 | order[a];
		qsort(by_seg, nr_order, sizeof(*by_seg), dprof_u64__cmp);
		for (a = 0; a < nr_order; a = b) {
			const struct dprof_heaplog_event *first = &log->ev[(u32)by_seg[a]];
			struct dprof_heaplog_seg *s = (void *)(buf + len);
			u8 *p = (u8 *)(s + 1);
			unsigned int nr_ips;

			s->magic = DPROF_HEAPLOG_SEG_MAGIC;
			s->pid = first->pid;
			s->tid = first->tid;
			s->time = first->time;
			s->base = first->time;
			s->cpu = first->cpu;
			dprof_heaplog_enc__reset(enc, first->time, first->cpu);
			for (b = a; b < nr_order; b++) {
				const struct dprof_heaplog_event *ev = &log->ev[(u32)by_seg[b]];
				u8 kk = keep[(u32)by_seg[b]];
				int kind = ev->kind;
				u64 ptr = ev->ptr, old = ev->old;

				if (ev->seg != first->seg)
					break;

				/* a realloc that ends or starts a kept object only */
				if (kind == DPROF_HEAPLOG_REALLOC && !(kk & DPROF_KEEP_NEW)) {
					kind = DPROF_HEAPLOG_FREE;
					ptr = old;
				} else if (kind == DPROF_HEAPLOG_REALLOC &&
					   !(kk & DPROF_KEEP_OLD)) {
					kind = DPROF_HEAPLOG_ALLOC;
				}
				nr_ips = kind == DPROF_HEAPLOG_FREE ? 0 : ev->nr_ips;
				p = dprof_heaplog_enc__event(enc, p, kind, ev->time, ev->cpu, ptr,
							     old, ev->size, log->ips + ev->ips,
							     nr_ips);
			}
			s->used = p - (u8 *)(s + 1);
			len = ((p - buf) + 7) & ~7UL;
		}
		free(by_seg);
	}
	feat = (struct dprof_heaplog_feat *)buf;
	memcpy(feat->magic, DPROF_HEAPLOG_FEAT_MAGIC, sizeof(feat->magic));
	feat->version = 1;
	feat->nr_segs = f->nr_segs;
	feat->lost = f->lost;
	feat->procs = dprof_heaplog__procs(log, sums);
	feat->dropped = dropped;
	feat->size = len - sizeof(*feat);
	feat->samples = st->nr_samples;
	feat->kernel_undecided = st->nr_kernel_undecided;
	feat->left_out_frees = left_out_frees;
	free(order);
	free(enc);
	*lenp = len;
	return buf;

out_err:
	free(buf);
	free(order);
	free(enc);
	return NULL;
}

/* TSC ticks to nanoseconds for segment @s: from its start to the end */
static double dprof_heaplog__rate(const struct dprof_heaplog_seg *s,
				  const struct dprof_heaplog_file *f)
{
	if (!(s->flags & DPROF_HEAPLOG_TSC) || f->end_tsc <= s->tsc || f->end_time <= s->time)
		return 1.0;
	return (double)(f->end_time - s->time) / (double)(f->end_tsc - s->tsc);
}

/*
 * When each segment's untimed frees were done by: when its thread's next
 * segment starts (the first event of a segment is timed), or @end.
 * Returns an array of @nr_segs times, or NULL (no memory).
 */
static u64 *dprof_heaplog__seg_ends(int fd, const struct dprof_heaplog_file *f, u64 nr_segs,
				    u64 end)
{
	u64 *ends = calloc(nr_segs + 1, sizeof(*ends));
	struct hashmap *next;
	u64 i;

	if (!ends)
		return NULL;
	next = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(next)) {
		free(ends);
		return NULL;
	}
	for (i = nr_segs; i-- > 0;) {
		struct dprof_heaplog_seg s;
		long later = end;

		ends[i] = end;
		if (pread(fd, &s, sizeof(s), DPROF_HEAPLOG_HDR_SIZE + i * f->seg_size) !=
		    sizeof(s) || s.magic != DPROF_HEAPLOG_SEG_MAGIC)
			continue;
		if (hashmap__find(next, s.tid, &later))
			ends[i] = later;
		/* the first event's time: @base, converted as the events' are */
		if (s.flags & DPROF_HEAPLOG_TSC)
			later = s.time + (s64)((double)(s64)(s.base - s.tsc) *
					       dprof_heaplog__rate(&s, f));
		else
			later = s.base;
		if (hashmap__set(next, s.tid, later, NULL, NULL)) {
			free(ends);
			ends = NULL;
			break;
		}
	}
	hashmap__free(next);
	return ends;
}

int dprof_heaplog_rec__store(struct dprof_heaplog_rec *h, const char *output,
			     unsigned int min_size, const struct dprof_touches *touches)
{
	struct dprof_touches own = { .t = NULL, };
	const struct dprof_touches *st = touches ?: &own;
	struct dprof_heaplog_filter filter = { .bits = NULL, .last = NULL, };
	struct hashmap *sums = NULL;
	struct dprof_heaplog log = { .ev = NULL, };
	struct dprof_heaplog_file *f;
	u64 i, nr_segs, dropped = 0, bad = 0, procs, t0;
	struct dprof_heaplog_open opened = { .s = NULL, };
	struct dprof_heaplog_pruner *pr = NULL;
	struct hashmap *floors = NULL;
	u64 *seg_ends = NULL;
	size_t len = 0;
	void *blob = NULL;
	u8 *keep = NULL;
	struct stat s;
	int fd, err;

	f = mmap(NULL, DPROF_HEAPLOG_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
	if (f == MAP_FAILED || fstat(h->fd, &s))
		return -errno;
	f->end_tsc = rdtsc();
	f->end_time = dprof_heaplog__mono();
	t0 = f->end_time;
	nr_segs = min_t(u64, f->nr_segs, (s.st_size - DPROF_HEAPLOG_HDR_SIZE) / f->seg_size);
	floors = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(floors)) {
		floors = NULL;
		err = -ENOMEM;
		goto out;
	}
	seg_ends = dprof_heaplog__seg_ends(h->fd, f, nr_segs, f->end_time);
	if (!seg_ends) {
		err = -ENOMEM;
		goto out;
	}
	sums = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(sums)) {
		sums = NULL;
		err = -ENOMEM;
		goto out;
	}
	/* where the samples fell first: each segment is pruned once decoded */
	err = touches ? 0 : dprof_touches__read(&own, output);
	pr_debug("dprof: heap log: %zu sampled addresses, %zu samples of unreadable user code, at %.3f s\n",
		 st->nr, st->nr_undecided, (dprof_heaplog__mono() - t0) / 1e9);
	if (!err)
		err = dprof_heaplog_open__grow(&opened);
	if (!err) {
		dprof_heaplog_filter__init(&filter, st);
		pr = zalloc(sizeof(*pr));
		if (!pr)
			err = -ENOMEM;
	}
	if (pr) {
		pr->st = st;
		pr->filter = &filter;
		pr->min_size = min_size;
		pr->sums = sums;
		pr->open = &opened;
	}
	for (i = 0; i < nr_segs && !err; i++) {
		off_t off = DPROF_HEAPLOG_HDR_SIZE + i * f->seg_size;
		long floor = 0;
		/* populated: one call maps its pages, not a fault for each */
		struct dprof_heaplog_seg *seg = mmap(NULL, f->seg_size, PROT_READ,
						     MAP_SHARED | MAP_POPULATE, h->fd, off);

		if (seg == MAP_FAILED) {
			err = -errno;
			break;
		}
		/* a thread that died between its add and its mmap: nothing */
		if (seg->magic == DPROF_HEAPLOG_SEG_MAGIC &&
		    seg->used <= f->seg_size - sizeof(*seg)) {
			hashmap__find(floors, seg->tid, &floor);
			err = dprof_heaplog__decode_seg(&log, seg, (const u8 *)(seg + 1),
							seg->used, dprof_heaplog__rate(seg, f), i,
							floor, seg_ends[i], pr);
			if (!err && log.nr)
				err = hashmap__set(floors, seg->tid, (long)log.ev[log.nr - 1].time,
						   NULL, NULL);
			if (err == -EINVAL) {
				bad++;
				err = 0;
			}
			if (!err)
				err = dprof_heaplog__prune(&log, pr);
			if (!err)
				dprof_heaplog__compact(&log, pr, false);
		}
		munmap(seg, f->seg_size);
	}
	if (err)
		goto out;
	dprof_heaplog__compact(&log, pr, true);
	if (!f->procs) {
		pr_warning("dprof: the workload did not load the allocator recorder (a static or setuid program, or one that clears LD_PRELOAD): its heap objects are not tracked\n");
		err = 0;
		goto out;
	}
	pr_debug("dprof: heap log: %zu events left of %" PRIu64 " decoded (%" PRIu64
		 " objects pruned in their segment) in %.3f s\n",
		 log.nr, log.nr_allocs + log.nr_frees, pr->dropped,
		 (dprof_heaplog__mono() - t0) / 1e9);
	dprof_heaplog__sort(&log);
	keep = calloc(log.nr + 1, 1);
	err = keep ? dprof_heaplog__keep(&log, st, min_size, sums, keep, &dropped) : -ENOMEM;
	if (err)
		goto out;
	dropped += pr->dropped;
	blob = dprof_heaplog__encode(&log, keep, f, dropped, sums, st, pr->left_out_frees, &len);
	if (!blob) {
		err = -ENOMEM;
		goto out;
	}
	fd = open(output, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = dprof_heaplog__add_notes(f, &blob, &len) ?:
	      dprof_feat__append(fd, DPROF_HEAPLOG_FEAT, blob, len);
	close(fd);
	pr_debug("dprof: heap log: stored at %.3f s\n", (dprof_heaplog__mono() - t0) / 1e9);
	procs = ((struct dprof_heaplog_feat *)blob)->procs;
	if (!err)
		pr_info("[ perf dprof: heap log of %" PRIu64 " process%s: %" PRIu64
			" allocations, %" PRIu64 " frees; %" PRIu64
			" objects left out (no sample's address in them, or --heap-min-size); %.3f MB written ]\n",
			procs, procs == 1 ? "" : "es", log.nr_allocs, log.nr_frees,
			dropped, len / 1048576.0);
	if (bad || f->lost)
		pr_warning("dprof: the heap log lost %" PRIu64 " events (%" PRIu64
			   " damaged segments%s)\n", f->lost, bad,
			   f->lost && h->in_memory ?
			   "; it is held in memory, half of it at most" : "");
out:
	if (err)
		pr_err("dprof: cannot store the heap log in %s (%s)\n", output, strerror(-err));
	munmap(f, DPROF_HEAPLOG_HDR_SIZE);
	hashmap__free(floors);
	free(seg_ends);
	free(opened.s);
	free(pr);
	dprof_heaplog_filter__exit(&filter);
	dprof_touches__exit(&own);
	dprof_heaplog__sums_free(sums);
	free(keep);
	free(blob);
	dprof_heaplog__exit(&log);
	return err;
}

/* ---------------------------------------------------------------------- */
/* report                                                                  */

/*
 * The events from @first on are a summary segment's: each a count of
 * objects left out (heaplog.h), not an object.  Return: 0, or -EINVAL.
 */
static int dprof_heaplog__summaries(struct dprof_heaplog *log, size_t first)
{
	size_t i;

	for (i = first; i < log->nr; i++) {
		struct dprof_heaplog_event *ev = &log->ev[i];

		if (ev->kind != DPROF_HEAPLOG_REALLOC || !ev->ptr ||
		    ev->ptr > DPROF_HEAPLOG_MAX_COUNT || ev->old > ev->ptr) {
			log->nr_allocs -= log->nr - i;
			log->nr = i;
			return -EINVAL;
		}
		ev->kind = DPROF_HEAPLOG_LEFT_OUT;
		log->nr_allocs--;
	}
	return 0;
}

int dprof_feat__read(struct perf_session *session, int feat, u64 min_size,
		     void **bufp, u64 *sizep)
{
	struct perf_header *ph = &session->header;
	int fd = perf_data__fd(session->data), idx;
	struct perf_file_section sec;
	struct stat st;
	void *buf;

	*bufp = NULL;
	*sizep = 0;
	idx = bitmap_weight(ph->adds_features, feat);
	if (perf_data__is_pipe(session->data) || fstat(fd, &st) ||
	    pread(fd, &sec, sizeof(sec), ph->feat_offset + idx * sizeof(sec)) != sizeof(sec) ||
	    sec.size < min_size || sec.offset > (u64)st.st_size ||
	    sec.size > (u64)st.st_size - sec.offset)
		return -EINVAL;
	buf = malloc(sec.size);
	if (!buf)
		return -ENOMEM;
	if (pread(fd, buf, sec.size, sec.offset) != (ssize_t)sec.size) {
		free(buf);
		return -EINVAL;
	}
	*bufp = buf;
	*sizep = sec.size;
	return 0;
}

int dprof_heaplog__read(struct dprof_heaplog *log, struct perf_session *session)
{
	struct perf_header *ph = &session->header;
	size_t hdr = DPROF_HEAPLOG_FEAT_SIZE2;
	struct dprof_heaplog_feat feat;
	const u8 *p, *end;
	u32 segno = 0;
	u64 len;
	void *data;
	u8 *buf;
	int err;

	memset(log, 0, sizeof(*log));
	if (!test_bit(DPROF_HEAPLOG_FEAT, ph->adds_features))
		return 0;
	log->present = true;
	err = dprof_feat__read(session, DPROF_HEAPLOG_FEAT, DPROF_HEAPLOG_FEAT_SIZE2,
			       &data, &len);
	buf = data;
	if (err == -EINVAL)
		goto out_damaged;
	if (err)
		return err;
	memset(&feat, 0, sizeof(feat));
	memcpy(&feat, buf, DPROF_HEAPLOG_FEAT_SIZE2);
	if (!memcmp(feat.magic, DPROF_HEAPLOG_FEAT_MAGIC, sizeof(feat.magic))) {
		if (len < sizeof(feat))
			goto out_damaged;
		memcpy(&feat, buf, sizeof(feat));
		hdr = sizeof(feat);
	} else if (memcmp(feat.magic, DPROF_HEAPLOG_FEAT_MAGIC2, sizeof(feat.magic)) &&
		   memcmp(feat.magic, DPROF_HEAPLOG_FEAT_MAGIC1, sizeof(feat.magic))) {
		goto out_damaged;
	}
	if (feat.size > len - hdr)
		goto out_damaged;
	/* counts no log could hold: a damaged header, said as such */
	if (feat.lost > DPROF_HEAPLOG_MAX_COUNT || feat.dropped > DPROF_HEAPLOG_MAX_COUNT ||
	    feat.samples > DPROF_HEAPLOG_MAX_COUNT || feat.kernel_undecided > feat.samples ||
	    feat.left_out_frees > DPROF_HEAPLOG_MAX_COUNT)
		goto out_damaged;
	log->lost = feat.lost;
	log->dropped = feat.dropped;
	log->samples = feat.samples;
	log->kernel_undecided = feat.kernel_undecided;
	log->left_out_frees = feat.left_out_frees;
	p = buf + hdr;
	end = p + feat.size;
	while (p < end) {
		const struct dprof_heaplog_seg *s = (const void *)p;
		size_t first = log->nr;

		if ((size_t)(end - p) < sizeof(*s) || s->magic != DPROF_HEAPLOG_SEG_MAGIC ||
		    s->used > (size_t)(end - p) - sizeof(*s) ||
		    (s->flags & ~DPROF_HEAPLOG_SUMMARY) ||
		    (s->flags && hdr != sizeof(feat)))
			goto out_damaged;
		err = dprof_heaplog__decode_seg(log, s, (const u8 *)(s + 1), s->used, 1.0,
						segno++, 0, 0, NULL);
		if (s->flags & DPROF_HEAPLOG_SUMMARY)
			err = dprof_heaplog__summaries(log, first) ?: err;
		if (err == -EINVAL)
			goto out_damaged;
		if (err)
			goto out;
		p += (sizeof(*s) + s->used + 7) & ~7UL;
	}
	dprof_heaplog__sort(log);
	/* the processes are those the events name, not a count to trust */
	log->procs = dprof_heaplog__procs(log, NULL);
	/* the recorders' notes, if any, after the segments */
	if ((size_t)(buf + len - end) >= 12 &&
	    !memcmp(end, DPROF_HEAPLOG_NOTES_MAGIC, 8)) {
		u32 n;

		memcpy(&n, end + 8, 4);
		if (n <= DPROF_HEAPLOG_NOTES_SIZE && n <= (size_t)(buf + len - end) - 12)
			log->notes = strndup((const char *)end + 12, n);
	}
out:
	free(buf);
	return err;

out_damaged:
	/* what was decoded before the damage is replayed */
	log->damaged = true;
	dprof_heaplog__sort(log);
	log->procs = dprof_heaplog__procs(log, NULL);
	free(buf);
	return 0;
}
