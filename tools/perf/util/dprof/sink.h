/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_SINK_H
#define __PERF_DPROF_SINK_H

#include <linux/list.h>
#include <linux/types.h>

struct dprof_access;
struct dprof_class;
struct dprof_obj;

/*
 * Consumers of the replayed, resolved event stream, in time order: the
 * views that need more than per-class counts (miss classification, the
 * working-set simulation, object histories) hang off these hooks.
 * A hook returns 0 or a negative errno, which stops the replay.
 */
struct dprof_sink {
	struct list_head	node;
	/* a slab object entered the address set (obj->priv is its class) */
	int	(*alloc)(struct dprof_sink *sink, const struct dprof_obj *obj,
			 u64 time, u32 cpu);
	/* ... and is about to leave it */
	int	(*free)(struct dprof_sink *sink, const struct dprof_obj *obj,
			u64 time, u32 cpu);
	/*
	 * an access sample resolved to @cls; the object (or variable) starts
	 * at acc->addr - @offset
	 */
	int	(*access)(struct dprof_sink *sink, const struct dprof_access *acc,
			  struct dprof_class *cls, u64 offset);
};

#endif /* __PERF_DPROF_SINK_H */
