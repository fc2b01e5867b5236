/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_PRIV_H
#define __PERF_DPROF_REPLAY_PRIV_H

/*
 * What replay.c shares with the files of its event sources (replay-*.c):
 * not for the views.
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

/* The handler of a tracepoint's events (evsel->handler). */
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

/* @obj is touched by @cpu: it bounced if that is not its allocating CPU. */
void dprof_obj__sampled(struct dprof_obj *obj);
void dprof_obj__mark_bounce(struct dprof_obj *obj, u32 cpu);

/*
 * The kernel's address set (replay-kmem.c): its tracepoints' handlers,
 * whether @name is one of its allocation events; the allocation call site
 * of a slab object; an object of the slab map that holds @addr, allocated
 * before recording (1, with its class and base; 0: none; or -errno); a
 * snapshot or new slab event of the slab map; the release of its entries.
 */
int dprof_replay__kmem_handlers(struct dprof_replay *r);
bool dprof_kmem__is_alloc(const char *name);
u64 dprof_obj__site(const struct dprof_obj *obj);
int dprof_replay__earlier_obj(struct dprof_replay *r, u64 addr, u32 cpu,
			      struct dprof_obj **objp, struct dprof_class **clsp, u64 *basep);
int dprof_replay__slab(struct dprof_replay *r, struct evsel *evsel,
		       struct perf_sample *sample, bool born);
void dprof_snap_slab__release(struct dprof_addrset *as, struct dprof_obj *obj, bool freed);
/* After the events: the counts of the objects left out when recorded (prune.c). */
int dprof_replay__kmem_summary(struct dprof_replay *r);

/* The allocator's uprobes (heapprobe.c): @evsel's handler, by its @name. */
void dprof_replay__uprobe_add(struct dprof_replay *r, struct evsel *evsel,
			      const char *name);
void dprof_replay__uprobes_exit(struct dprof_replay *r);
/* @sample is the kernel's handling of one of them (counted, out of the shares) */
bool dprof_replay__in_uprobe_trap(struct dprof_replay *r, struct machine *machine,
				  struct perf_sample *sample);

#endif /* __PERF_DPROF_REPLAY_PRIV_H */
