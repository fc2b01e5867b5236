/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_HISTORIES_H
#define __PERF_DPROF_HISTORIES_H

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>
#include "sink.h"

/*
 * Object access histories (DProf paper §4.3, table 3): every access a
 * watch saw to one object, from its allocation to its free.  Built from
 * the watch hits and the allocator events, fed in time order.
 */

/**
 * struct dprof_hist_elem - one access to a watched object (paper table 3)
 * @offset: offset of the accessed bytes within the object
 * @ip: instruction that accessed them
 * @time: time of the access since the object's allocation
 * @cpu: CPU that executed @ip
 * @len: number of watched bytes at @offset
 */
struct dprof_hist_elem {
	u64	offset;
	u64	ip;
	u64	time;
	u32	cpu;
	u32	len;
};

/**
 * struct dprof_history - the access history of one object
 * @node: in dprof_histories.open while the object is live
 * @list: in dprof_histories.done once it is closed
 * @type: the object's type (the report's allocation class)
 * @base: object start address
 * @size: object size
 * @alloc_time: allocation time stamp
 * @alloc_site: allocation call site (0: unknown)
 * @alloc_cpu: allocating CPU
 * @free_time: free time, since @alloc_time
 * @free_site: freeing call site (0: unknown)
 * @free_cpu: freeing CPU
 * @freed: the free was seen (else the history was cut short)
 * @nr: number of elements in @elems
 * @alloc_nr: allocated length of @elems
 * @elems: the accesses, in time order
 */
struct dprof_history {
	struct rb_node		node;
	struct list_head	list;
	void			*type;
	u64			base;
	u64			size;
	u64			alloc_time;
	u64			alloc_site;
	u32			alloc_cpu;
	u32			free_cpu;
	u64			free_time;
	u64			free_site;
	bool			freed;
	size_t			nr;
	size_t			alloc_nr;
	struct dprof_hist_elem	*elems;
};

/**
 * struct dprof_histories - history builder
 * @sink: opens histories on the watch hits of the replay (its hit hook)
 *        and closes them on its free events
 * @open: histories of live objects, by base
 * @done: closed histories, in the order they were closed
 * @nr_histories: closed histories with at least one access
 * @nr_hits: hits kept in a history
 * @nr_dropped: hits outside the lifetime of any known object
 * @nr_empty: objects closed without a hit (not kept)
 * @nr_unfreed: histories cut short: object still live at the end,
 *              or its address reused without a free event
 * @nr_open: ... of those, still live when the recording ended
 * @nr_cut: ... of those, ended where the object's bytes were allocated
 *          again without a free: a lifetime boundary inferred
 * @nr_out_of_order: hits or frees stamped before the allocation
 * @nr_sampled_hits: hits that are access samples of heap objects
 *                   (sink::sampled_hit), not watch hits
 */
struct dprof_histories {
	struct dprof_sink	sink;
	struct rb_root		open;
	struct list_head	done;
	u64			nr_histories;
	u64			nr_hits;
	u64			nr_dropped;
	u64			nr_empty;
	u64			nr_unfreed;
	u64			nr_open;
	u64			nr_cut;
	u64			nr_out_of_order;
	u64			nr_sampled_hits;
};

void dprof_histories__init(struct dprof_histories *h);
void dprof_histories__exit(struct dprof_histories *h);
void dprof_histories__finish(struct dprof_histories *h);

#endif /* __PERF_DPROF_HISTORIES_H */
