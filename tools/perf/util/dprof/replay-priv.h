/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_PRIV_H
#define __PERF_DPROF_REPLAY_PRIV_H

/*
 * What replay.c shares with the files of its event sources (replay-*.c):
 * not for the views.
 */

#include <stdbool.h>
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

/* The allocator's uprobes (heapprobe.c): @evsel's handler, by its @name. */
void dprof_replay__uprobe_add(struct dprof_replay *r, struct evsel *evsel,
			      const char *name);
void dprof_replay__uprobes_exit(struct dprof_replay *r);

#endif /* __PERF_DPROF_REPLAY_PRIV_H */
