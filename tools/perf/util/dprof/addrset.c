// SPDX-License-Identifier: GPL-2.0
/*
 * Live-object interval map for perf dprof, replayed from slab
 * alloc/free events in time order.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/zalloc.h>

#include "addrset.h"

void dprof_addrset__init(struct dprof_addrset *as,
			 void (*release)(struct dprof_addrset *as,
					 struct dprof_obj *obj, bool freed))
{
	*as = (struct dprof_addrset){ .objs = RB_ROOT, .release = release };
}

static void dprof_addrset__remove(struct dprof_addrset *as,
				  struct dprof_obj *obj, bool freed)
{
	rb_erase(&obj->node, &as->objs);
	as->nr_live--;
	if (as->release)
		as->release(as, obj, freed);
	free(obj);
}

void dprof_addrset__exit(struct dprof_addrset *as)
{
	struct rb_node *nd;

	while ((nd = rb_first(&as->objs)) != NULL)
		dprof_addrset__remove(as, rb_entry(nd, struct dprof_obj, node),
				      false);
}

/* The object with the highest base <= @addr, whether or not it covers it. */
static struct dprof_obj *dprof_addrset__floor(struct dprof_addrset *as,
					      u64 addr)
{
	struct rb_node *nd = as->objs.rb_node;
	struct dprof_obj *best = NULL;

	while (nd) {
		struct dprof_obj *obj = rb_entry(nd, struct dprof_obj, node);

		if (addr < obj->base) {
			nd = nd->rb_left;
		} else {
			best = obj;
			nd = nd->rb_right;
		}
	}
	return best;
}

/**
 * dprof_addrset__find - the live object that contains @addr
 * @as: the address set
 * @addr: a data address
 *
 * Returns NULL when no live object covers @addr.
 */
struct dprof_obj *dprof_addrset__find(struct dprof_addrset *as, u64 addr)
{
	struct dprof_obj *obj = dprof_addrset__floor(as, addr);

	if (obj && addr - obj->base < obj->size)
		return obj;
	return NULL;
}

static bool dprof_obj__less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct dprof_obj, node)->base <
	       rb_entry(b, struct dprof_obj, node)->base;
}

/* Evict the live objects that overlap [@base, @base + @size). */
static void dprof_addrset__evict(struct dprof_addrset *as, u64 base, u64 size)
{
	struct dprof_obj *old = dprof_addrset__floor(as, base + size - 1);

	while (old && old->base + old->size > base) {
		struct rb_node *prev = rb_prev(&old->node);

		dprof_addrset__remove(as, old, false);
		as->nr_evicted++;
		old = prev ? rb_entry(prev, struct dprof_obj, node) : NULL;
	}
}

/*
 * Put @obj (base and size set) into the set.  Most allocations overlap
 * nothing: one walk down the tree finds both neighbours and the link;
 * only when a neighbour overlaps are the stale objects evicted first.
 * An object with the very same range (a slab object freed into a set of
 * dead ones, again) takes its place in the tree: nothing else can
 * overlap it.
 */
static void dprof_addrset__insert(struct dprof_addrset *as, struct dprof_obj *obj)
{
	struct rb_node **link = &as->objs.rb_node, *parent = NULL;
	u64 base = obj->base, end = obj->base + obj->size;

	while (*link) {
		struct dprof_obj *cur = rb_entry(*link, struct dprof_obj, node);

		parent = *link;
		if (base == cur->base && obj->size == cur->size) {
			rb_replace_node(&cur->node, &obj->node, &as->objs);
			as->nr_evicted++;
			as->nr_allocs++;
			if (as->release)
				as->release(as, cur, false);
			free(cur);
			return;
		}
		if (base < cur->base) {
			if (cur->base < end)
				goto evict;
			link = &parent->rb_left;
		} else {
			if (cur->base + cur->size > base)
				goto evict;
			link = &parent->rb_right;
		}
	}
	rb_link_node(&obj->node, parent, link);
	rb_insert_color(&obj->node, &as->objs);
	goto out;
evict:
	dprof_addrset__evict(as, base, obj->size);
	rb_add(&obj->node, &as->objs, dprof_obj__less);
out:
	as->nr_live++;
	as->nr_allocs++;
}

/**
 * dprof_addrset__alloc - add a newly allocated object
 * @as: the address set
 * @base: object address
 * @size: bytes the allocator handed out (at least 1)
 * @time: allocation time
 *
 * Live objects overlapping [@base, @base + @size) lost their free event;
 * they are evicted (counted in nr_evicted) before the new object goes in.
 * Returns the new object, or NULL on allocation failure.
 */
struct dprof_obj *dprof_addrset__alloc(struct dprof_addrset *as, u64 base,
				       u64 size, u64 time)
{
	struct dprof_obj *obj = zalloc(sizeof(*obj));

	if (!obj)
		return NULL;
	obj->base = base;
	obj->size = size ?: 1;
	obj->alloc_time = time;
	dprof_addrset__insert(as, obj);
	return obj;
}

/**
 * dprof_addrset__move - free a live object into another set
 * @as: the set @obj is in
 * @obj: the object, freed now
 * @to: the set it goes to, as an allocation at @time
 * @time: the free's time
 *
 * dprof_addrset__free() on @as, then dprof_addrset__alloc() of the same
 * range in @to, without giving the memory back and taking it again:
 * @obj keeps its place, size and priv; its other fields start over.
 * Returns @obj, now in @to.
 */
struct dprof_obj *dprof_addrset__move(struct dprof_addrset *as,
				      struct dprof_obj *obj,
				      struct dprof_addrset *to, u64 time)
{
	void *priv;

	rb_erase(&obj->node, &as->objs);
	as->nr_live--;
	as->nr_frees++;
	if (as->release)
		as->release(as, obj, true);
	priv = obj->priv;
	*obj = (struct dprof_obj){
		.base		= obj->base,
		.size		= obj->size,
		.alloc_time	= time,
		.priv		= priv,
	};
	dprof_addrset__insert(to, obj);
	return obj;
}

/**
 * dprof_addrset__free - remove the object that starts at @base
 * @as: the address set
 * @base: address passed to the free function
 *
 * Returns 0, or -ENOENT when no live object starts at @base (it was
 * allocated before recording began, or its allocation was not recorded).
 */
int dprof_addrset__free(struct dprof_addrset *as, u64 base)
{
	struct dprof_obj *obj = dprof_addrset__floor(as, base);

	if (!obj || obj->base != base) {
		as->nr_unknown_free++;
		return -ENOENT;
	}
	as->nr_frees++;
	dprof_addrset__remove(as, obj, true);
	return 0;
}
