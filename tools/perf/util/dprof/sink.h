/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_SINK_H
#define __PERF_DPROF_SINK_H

#include <stdbool.h>
#include <linux/list.h>
#include <linux/types.h>

struct dprof_access;
struct dprof_class;
struct dprof_obj;

/* One hit of a slab_watch: an access to the watched bytes of an object. */
struct dprof_hit {
	const struct dprof_obj	*obj;	/* NULL: not in the address set */
	u64	site;		/* obj's allocation call site, 0: unknown */
	u64	addr;		/* the watched bytes */
	u32	len;		/* how many (0 read as 1 where a length is needed) */
	u64	ip;		/* the sampled ip: the instruction after the access */
	u64	access_ip;	/* the access itself when decoded, else ip */
	int	write;		/* 1 write, 0 read, -1 unknown */
	bool	rw;		/* the watch traps reads too, not only writes */
	u32	cpu;
	u64	time;
};

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
	/* an access sample nothing gave a type, and why */
	int	(*unresolved)(struct dprof_sink *sink,
			      const struct dprof_access *acc, int why);
	/* a watch hit, in time order with the access samples */
	int	(*hit)(struct dprof_sink *sink, const struct dprof_hit *hit);
	/*
	 * an access sample to a live object of the user heap, as a hit: with
	 * no watches in user space, an object's sampled accesses are all of
	 * its history there is
	 */
	int	(*sampled_hit)(struct dprof_sink *sink, const struct dprof_hit *hit);
};

#endif /* __PERF_DPROF_SINK_H */
