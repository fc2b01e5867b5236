/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_HEAPLOG_H
#define __PERF_DPROF_HEAPLOG_H

/*
 * The heap log: what the allocator recorder preloaded into a workload
 * (dprof-preload/heaprec.c) writes, and perf dprof report reads back from
 * the recording.  Shared by both, so it needs nothing but the C library.
 *
 * While recording, one file holds the log of every process of the
 * workload: a header page (struct dprof_heaplog_file), then segments of
 * @seg_size bytes, each a thread's: a struct dprof_heaplog_seg and @used
 * bytes of events.  A thread takes the next segment with an atomic add on
 * the header's @nr_segs and writes its events into its own shared mapping
 * of it, so no lock is taken and what was written survives the process
 * (exit, _exit, exec, a signal).
 *
 * In the recording, the segments' used bytes follow a struct
 * dprof_heaplog_feat in a header feature section of their own
 * (DPROF_HEAPLOG_FEAT), which perf's readers skip.  There, the objects no
 * access sample touched are left out, and counted in summary segments
 * (DPROF_HEAPLOG_SUMMARY) before the others, one per thread: each of their
 * events is a realloc whose ptr is the number of objects left out that
 * were allocated through one call chain (its ips), old the number of
 * those whose free was seen, size the largest, time and cpu the first's.
 *
 * An event: a tag byte, then unsigned LEB128 varints:
 *   tag	bits 0-1: DPROF_HEAPLOG_FREE, _ALLOC, _REALLOC or _ALLOC_AGAIN
 *		(an allocation at the previous event's pointer, with the
 *		previous allocation's return addresses: no ptr, no ips);
 *		bit 2: the CPU changed (a cpu varint follows the time);
 *		bits 3-7: return addresses that follow (alloc, realloc), or
 *		DPROF_HEAPLOG_IPS_CACHED: a varint slot of the segment's
 *		chain cache follows instead (see dprof_heaplog__chain_slot()),
 *		or DPROF_HEAPLOG_IPS_LAST: the previous allocation's again;
 *		a free: DPROF_HEAPLOG_UNTIMED, DPROF_HEAPLOG_SAME_PTR (the
 *		previous event's pointer: no ptr follows), both or none
 *   [time]	since the thread's previous timed event (the first: since
 *		the segment's @base): TSC ticks with DPROF_HEAPLOG_TSC in the
 *		segment's @flags (@tsc and @time read together convert them),
 *		else CLOCK_MONOTONIC nanoseconds.  None for an untimed free:
 *		it came after the previous timed event and before the next
 *		(a segment's first event is timed)
 *   [cpu]
 *   ptr	zigzag, minus the segment's previous ptr
 *   [old]	realloc: zigzag, minus ptr (0: realloc(NULL, ...))
 *   [size]	alloc, realloc
 *   [ips]	each zigzag: the first minus the previous event's first,
 *		the others minus the address before them
 */
#include <stdint.h>
#include <stddef.h>

#define DPROF_HEAPLOG_MAGIC	"DPHLOG02"
#define DPROF_HEAPLOG_SEG_MAGIC	0x53485044u	/* "DPHS" */
#define DPROF_HEAPLOG_FEAT_MAGIC "DPHEAP03"
/* what perf before the summaries wrote: a shorter header, no summary */
#define DPROF_HEAPLOG_FEAT_MAGIC2 "DPHEAP02"
/* what perf before the untimed frees wrote: read the same way */
#define DPROF_HEAPLOG_FEAT_MAGIC1 "DPHEAP01"
/* The header feature bit: the last one, far from perf's own */
#define DPROF_HEAPLOG_FEAT	255

/* The environment the recorder reads: the log file's path */
#define DPROF_HEAPLOG_ENV	"PERF_DPROF_HEAPLOG"
/* ... and --heap-alloc's allocators: "ALLOC[,FREE[,REALLOC]];..." */
#define DPROF_HEAP_ALLOC_ENV	"PERF_DPROF_HEAP_ALLOC"

#define DPROF_HEAPLOG_HDR_SIZE	4096
#define DPROF_HEAPLOG_SEG_SIZE	(1 << 20)
/* return addresses per allocation: the caller's, and candidates above */
#define DPROF_HEAPLOG_MAX_IPS	8
/* an event is never longer (tag, 4 varints of 10 bytes, the ips) */
#define DPROF_HEAPLOG_MAX_EVENT	(1 + 5 * 10 + DPROF_HEAPLOG_MAX_IPS * 10)

/*
 * A return address in the log: bit 63 set, the address shifted left by 8,
 * and in bits 0-7 the stack word it was read from, counted from the
 * allocator's caller's stack pointer (DPROF_HEAPLOG_AT_CALLER: the
 * caller's own, exact), for the report's unwinding.  Recorders before the
 * positions logged bare addresses (bit 63 clear).
 */
#define DPROF_HEAPLOG_IP_AT	(1ull << 63)
#define DPROF_HEAPLOG_AT_CALLER	0xff

static inline uint64_t dprof_heaplog__ip_at(uint64_t ip, unsigned int word)
{
	/* beyond 55 bits (not a user address today): the address alone */
	if (ip >> 55)
		return ip;
	return DPROF_HEAPLOG_IP_AT | ip << 8 | (word & 0xff);
}

/* The address of a logged return address */
static inline uint64_t dprof_heaplog__ip(uint64_t v)
{
	return v & DPROF_HEAPLOG_IP_AT ? (v & ~DPROF_HEAPLOG_IP_AT) >> 8 : v;
}

/* The stack word it was read from, -1: unknown (an older recorder's) */
static inline int dprof_heaplog__ip_word(uint64_t v)
{
	return v & DPROF_HEAPLOG_IP_AT ? (int)(v & 0xff) : -1;
}

enum dprof_heaplog_kind {
	DPROF_HEAPLOG_FREE	= 0,
	DPROF_HEAPLOG_ALLOC	= 1,
	DPROF_HEAPLOG_REALLOC	= 2,
	DPROF_HEAPLOG_ALLOC_AGAIN = 3,	/* in the log only: read as an alloc */
};

#define DPROF_HEAPLOG_KIND_MASK	0x3
#define DPROF_HEAPLOG_CPU	0x4
#define DPROF_HEAPLOG_IPS_SHIFT	3
#define DPROF_HEAPLOG_IPS_CACHED 31
#define DPROF_HEAPLOG_IPS_LAST	30
/* a free with no time of its own (the recorder's, before perf stores it) */
#define DPROF_HEAPLOG_UNTIMED	0x8
#define DPROF_HEAPLOG_SAME_PTR	0x10
#define DPROF_HEAPLOG_NO_TIME	0
/* the chains of return addresses a segment's events name by slot */
#define DPROF_HEAPLOG_CHAIN_SLOTS 256

/* segment flags */
#define DPROF_HEAPLOG_TSC	0x1	/* event times are TSC ticks */
#define DPROF_HEAPLOG_SUMMARY	0x2	/* in a recording: objects left out, counted */

struct dprof_heaplog_file {
	char		magic[8];
	uint32_t	version;
	uint32_t	seg_size;
	uint64_t	nr_segs;	/* taken (atomic) */
	uint64_t	lost;		/* events with no segment to go to (atomic) */
	uint64_t	procs;		/* programs that loaded the recorder (atomic) */
	/* written by perf once the workload ended: TSC ticks to nanoseconds */
	uint64_t	end_tsc;
	uint64_t	end_time;
	/* the recorders' notes: bytes of lines at DPROF_HEAPLOG_NOTES_OFF (atomic) */
	uint32_t	notes_used;
};

/* In the header page: lines for the report's header ("heap: ..."), '\n' each */
#define DPROF_HEAPLOG_NOTES_OFF		2048
#define DPROF_HEAPLOG_NOTES_SIZE	(DPROF_HEAPLOG_HDR_SIZE - DPROF_HEAPLOG_NOTES_OFF)
/*
 * In the recording, the notes follow the segments (past the feature's
 * @size, which readers before them skip): this magic, a u32 length, the
 * lines.
 */
#define DPROF_HEAPLOG_NOTES_MAGIC	"DPNOTES1"

struct dprof_heaplog_seg {
	uint32_t	magic;
	uint32_t	pid;
	uint32_t	tid;
	uint32_t	used;		/* bytes of events after this header */
	uint64_t	time;		/* CLOCK_MONOTONIC when the segment began */
	uint64_t	tsc;		/* the TSC then, with DPROF_HEAPLOG_TSC */
	uint64_t	base;		/* the clock the first event's time is after */
	uint32_t	cpu;		/* at the segment's start */
	uint32_t	flags;
};

/* The recording's feature section: this, then each segment with its used bytes. */
struct dprof_heaplog_feat {
	char		magic[8];
	uint32_t	version;
	uint32_t	flags;
	uint64_t	nr_segs;
	uint64_t	lost;
	uint64_t	procs;		/* processes with events */
	uint64_t	dropped;	/* objects left out: no sample in them */
	uint64_t	size;		/* bytes after this header */
	/* from DPHEAP03 on */
	uint64_t	samples;	/* access samples the objects were kept by */
	uint64_t	kernel_undecided; /* of them, kernel ones with no code bytes */
	uint64_t	left_out_frees;	/* frees of objects left out, not in a summary */
};

/* The header of a DPHEAP01 or DPHEAP02 section */
#define DPROF_HEAPLOG_FEAT_SIZE2 offsetof(struct dprof_heaplog_feat, samples)

/* The chain cache slot of @nr return addresses. */
static inline unsigned int dprof_heaplog__chain_slot(const uint64_t *ips, unsigned int nr)
{
	uint64_t h = nr;
	unsigned int i;

	for (i = 0; i < nr; i++)
		h = (h ^ ips[i]) * 0x9e3779b97f4a7c15ull;
	return (unsigned int)(h >> 56) % DPROF_HEAPLOG_CHAIN_SLOTS;
}

static inline uint8_t *dprof_heaplog__put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t dprof_heaplog__zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t dprof_heaplog__unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A varint at @p, not past @end; NULL when it runs past or is too long. */
static inline const uint8_t *dprof_heaplog__get(const uint8_t *p, const uint8_t *end,
						uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (p < end && shift < 64) {
		uint8_t b = *p++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return p;
		shift += 7;
	}
	return NULL;
}

/* The encoder's state: a segment's previous event, and its chain cache. */
struct dprof_heaplog_enc {
	uint64_t	time;
	uint64_t	ptr;
	uint64_t	ip;
	uint32_t	cpu;
	unsigned int	last;		/* the slot of the last chain */
	uint8_t		chain_nr[DPROF_HEAPLOG_CHAIN_SLOTS];
	uint64_t	chain[DPROF_HEAPLOG_CHAIN_SLOTS][DPROF_HEAPLOG_MAX_IPS];
};

/* A new segment starts at @time on @cpu. */
static inline void dprof_heaplog_enc__reset(struct dprof_heaplog_enc *e, uint64_t time,
					    uint32_t cpu)
{
	unsigned int i;

	e->time = time;
	e->ptr = 0;
	e->ip = 0;
	e->cpu = cpu;
	e->last = 0;
	for (i = 0; i < DPROF_HEAPLOG_CHAIN_SLOTS; i++)
		e->chain_nr[i] = 0;
}

/* Slot @slot of the chain cache holds @nr return addresses @ips. */
static inline int dprof_heaplog_enc__cached(const struct dprof_heaplog_enc *e, unsigned int slot,
					    const uint64_t *ips, unsigned int nr)
{
	unsigned int i;

	if (e->chain_nr[slot] != nr)
		return 0;
	for (i = 0; i < nr; i++) {
		if (e->chain[slot][i] != ips[i])
			return 0;
	}
	return 1;
}

/* The segment has a previous allocation, whose chain an event can name. */
static inline int dprof_heaplog_enc__has_last(const struct dprof_heaplog_enc *e)
{
	return e->chain_nr[e->last] != 0;
}

/*
 * One event at @p (DPROF_HEAPLOG_MAX_EVENT bytes free), after the previous
 * of its segment; @nr return addresses at @ips (at most
 * DPROF_HEAPLOG_MAX_IPS), or DPROF_HEAPLOG_IPS_LAST for those of the
 * previous allocation (see dprof_heaplog_enc__has_last()).  A free may
 * have DPROF_HEAPLOG_NO_TIME for @time, but not the first event of a
 * segment.  Returns the end of the event.
 */
static inline uint8_t *dprof_heaplog_enc__event(struct dprof_heaplog_enc *e, uint8_t *p,
						int kind, uint64_t time, uint32_t cpu,
						uint64_t ptr, uint64_t old, uint64_t size,
						const uint64_t *ips, unsigned int nr)
{
	unsigned int i, slot = 0;
	uint8_t tag = kind | nr << DPROF_HEAPLOG_IPS_SHIFT;

	if (kind == DPROF_HEAPLOG_FREE) {
		tag = kind | (time == DPROF_HEAPLOG_NO_TIME ? DPROF_HEAPLOG_UNTIMED : 0) |
		      (ptr == e->ptr ? DPROF_HEAPLOG_SAME_PTR : 0);
	} else if (nr == DPROF_HEAPLOG_IPS_LAST) {
		slot = e->last;
		/* free(p); p = malloc(n): the loop's pair */
		if (kind == DPROF_HEAPLOG_ALLOC && ptr == e->ptr)
			tag = DPROF_HEAPLOG_ALLOC_AGAIN;
	} else if (nr) {
		/* the last chain again (a loop) needs no hash */
		slot = e->last;
		if (dprof_heaplog_enc__cached(e, slot, ips, nr)) {
			tag = kind | DPROF_HEAPLOG_IPS_LAST << DPROF_HEAPLOG_IPS_SHIFT;
			if (kind == DPROF_HEAPLOG_ALLOC && ptr == e->ptr)
				tag = DPROF_HEAPLOG_ALLOC_AGAIN;
		} else {
			slot = dprof_heaplog__chain_slot(ips, nr);
			if (dprof_heaplog_enc__cached(e, slot, ips, nr))
				tag = kind | DPROF_HEAPLOG_IPS_CACHED << DPROF_HEAPLOG_IPS_SHIFT;
		}
	}
	if (cpu != e->cpu)
		tag |= DPROF_HEAPLOG_CPU;
	*p++ = tag;
	if (!(kind == DPROF_HEAPLOG_FREE && (tag & DPROF_HEAPLOG_UNTIMED))) {
		p = dprof_heaplog__put(p, time - e->time);
		e->time = time;
	}
	if (tag & DPROF_HEAPLOG_CPU) {
		p = dprof_heaplog__put(p, cpu);
		e->cpu = cpu;
	}
	if ((tag & DPROF_HEAPLOG_KIND_MASK) == DPROF_HEAPLOG_ALLOC_AGAIN)
		return dprof_heaplog__put(p, size);
	if (!(kind == DPROF_HEAPLOG_FREE && (tag & DPROF_HEAPLOG_SAME_PTR)))
		p = dprof_heaplog__put(p, dprof_heaplog__zigzag(ptr - e->ptr));
	e->ptr = ptr;
	if (kind == DPROF_HEAPLOG_REALLOC)
		p = dprof_heaplog__put(p, dprof_heaplog__zigzag(old - ptr));
	if (kind == DPROF_HEAPLOG_FREE)
		return p;
	p = dprof_heaplog__put(p, size);
	if (!nr || tag >> DPROF_HEAPLOG_IPS_SHIFT == DPROF_HEAPLOG_IPS_LAST)
		return p;
	if (tag >> DPROF_HEAPLOG_IPS_SHIFT == DPROF_HEAPLOG_IPS_CACHED) {
		p = dprof_heaplog__put(p, slot);
	} else {
		for (i = 0; i < nr; i++) {
			p = dprof_heaplog__put(p, dprof_heaplog__zigzag(ips[i] -
								(i ? ips[i - 1] : e->ip)));
			e->chain[slot][i] = ips[i];
		}
		e->chain_nr[slot] = nr;
	}
	e->last = slot;
	e->ip = ips[0];
	return p;
}

#endif /* __PERF_DPROF_HEAPLOG_H */
