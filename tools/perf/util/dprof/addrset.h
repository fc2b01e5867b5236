/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_ADDRSET_H
#define __PERF_DPROF_ADDRSET_H

#include <linux/bits.h>
#include <linux/rbtree.h>
#include <linux/types.h>

/*
 * The address set: the kernel objects alive at the current point of the
 * replay, rebuilt from allocator events processed in time order.  Objects
 * never overlap: an allocation over a live range means its free was lost
 * (e.g. not recorded), so the stale object is evicted first.
 */
#define DPROF_ADDRSET_PAGE_SHIFT	12
#define DPROF_ADDRSET_PAGE		BIT_ULL(DPROF_ADDRSET_PAGE_SHIFT)

struct dprof_obj {
	struct rb_node	node;		/* in the set's big tree */
	u64		base;
	u64		size;
	u64		alloc_time;
	void		*priv;		/* owned by the user of the set */
	u64		free_site;	/* for the free hooks: call site */
	u32		cpu;		/* allocating CPU */
	u8		nr_seen;	/* access samples that hit it, up to 3 */
	bool		bounced;	/* touched by more than one CPU */
	bool		earlier;	/* allocated before recording: no alloc event */
	bool		new_slot;	/* ... a slot of a slab made while recording */
};

/* the objects that start in one page (see addrset.c) */
struct dprof_addrset_page;

/*
 * Objects given back, for the next allocation: a replay allocates and
 * frees one per slab event, and moves them from set to set.  Sets that
 * pass objects to each other share one.
 */
struct dprof_obj_pool {
	struct dprof_obj	*free;		/* linked through obj->priv */
	u64			nr;
};

struct dprof_addrset {
	/* objects of up to DPROF_ADDRSET_PAGE bytes, by the page they start in */
	struct dprof_addrset_page *pages;
	u64		pages_mask;	/* slots - 1; slots: a power of 2 */
	u64		pages_used;	/* slots with a page, empty or not */
	struct rb_root	big;		/* the larger objects */
	u64		nr_live;
	u64		nr_allocs;
	u64		nr_frees;
	u64		nr_evicted;	/* overlapped by a later allocation */
	u64		nr_evicted_seen;/* ... after access samples hit them */
	u64		nr_unknown_free;/* free of an address not in the set */
	struct dprof_obj_pool	*pool;	/* NULL: objects come from malloc() */
	/* called before an object leaves the set (free, eviction, teardown) */
	void		(*release)(struct dprof_addrset *as, struct dprof_obj *obj,
				   bool freed);
};

void dprof_addrset__init(struct dprof_addrset *as,
			 void (*release)(struct dprof_addrset *as,
					 struct dprof_obj *obj, bool freed));
void dprof_addrset__exit(struct dprof_addrset *as);
void dprof_addrset__set_pool(struct dprof_addrset *as, struct dprof_obj_pool *pool);
void dprof_obj_pool__exit(struct dprof_obj_pool *pool);
struct dprof_obj *dprof_addrset__alloc(struct dprof_addrset *as, u64 base,
				       u64 size, u64 time);
void dprof_addrset__evict(struct dprof_addrset *as, u64 base, u64 size);
struct dprof_obj *dprof_addrset__find(struct dprof_addrset *as, u64 addr);
int dprof_addrset__free(struct dprof_addrset *as, u64 base);
int dprof_addrset__for_each(struct dprof_addrset *as,
			    int (*fn)(struct dprof_obj *obj, void *arg), void *arg);
struct dprof_obj *dprof_addrset__move(struct dprof_addrset *as,
				      struct dprof_obj *obj,
				      struct dprof_addrset *to, u64 time);

#endif /* __PERF_DPROF_ADDRSET_H */
