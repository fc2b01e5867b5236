/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_OBJ_H
#define __PERF_DPROF_REPLAY_OBJ_H

/*
 * The few replay services every event source (replay-heap.c, replay-kmem.c,
 * ...) calls down into (replay-obj.c): an object's start and end handed to
 * the sinks, an access counted in its class.  Below replay.c and the
 * sources: it calls neither.
 */

#include <stdbool.h>
#include <linux/bits.h>
#include <linux/types.h>

struct dprof_access;
struct dprof_addrset;
struct dprof_class;
struct dprof_obj;
struct dprof_replay;
struct evsel;
struct machine;
struct perf_sample;
struct thread;

/* The handler of a source's tracepoint events (evsel->handler). */
typedef int (*dprof_tp_handler)(struct dprof_replay *r, struct evsel *evsel,
				struct perf_sample *sample,
				struct machine *machine);

/*
 * No allocation the tracepoints see is larger (kmalloc's page allocator
 * limit is 4 MiB with 4 KiB pages, 512 MiB with 64 KiB ones): a bigger
 * object is a damaged record, and would cost a loop per cache line.
 */
#define DPROF_OBJ_SIZE_MAX		BIT_ULL(30)

/* Bytes [@addr, @addr + @len) a recording cannot hold: damaged. */
bool dprof_range__implausible(u64 addr, u64 len);

/* @obj entered its address set (@alloc), or is about to leave it. */
int dprof_replay__sinks_obj(struct dprof_replay *r, struct dprof_obj *obj,
			    u64 time, u32 cpu, bool alloc);

/* A new object of @cls in @as: the sinks see its allocation. */
int dprof_replay__start_obj(struct dprof_replay *r, struct dprof_addrset *as,
			    struct dprof_class *cls, u64 ptr, u64 size,
			    u64 time, u32 cpu);

/* Count a resolved access in its class and site, and hand it to the sinks. */
int dprof_replay__count_access(struct dprof_replay *r, struct dprof_class *cls,
			       struct thread *thread, u64 offset,
			       struct dprof_access *acc);

/*
 * A kmem class is (call site, size): a call site allocates from one cache.
 * The size goes in the top bits, which are all ones for a kernel text
 * address, so the key stays unique and gives the call site back.
 */
#define DPROF_SITE_SIZE_SHIFT	48

static inline u64 dprof_kmem_key(u64 call_site, u64 bytes_alloc)
{
	return call_site ^ (bytes_alloc << DPROF_SITE_SIZE_SHIFT);
}

/* The allocation call site of a slab object's class (its kmem key), or 0. */
u64 dprof_obj__site(const struct dprof_obj *obj);

/* @obj is touched by @cpu: it bounced if that is not its allocating CPU. */
void dprof_obj__sampled(struct dprof_obj *obj);
void dprof_obj__mark_bounce(struct dprof_obj *obj, u32 cpu);

#endif /* __PERF_DPROF_REPLAY_OBJ_H */
