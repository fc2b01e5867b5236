// SPDX-License-Identifier: GPL-2.0
/*
 * Live-object interval map for perf dprof, replayed from slab
 * alloc/free events in time order.
 *
 * Almost every object is a slab object of at most a page, and the replay
 * looks one up, adds one or frees one for every event: a binary tree of
 * all of them (a million on a long recording) costs a dozen cache misses
 * per lookup.  Objects of up to a page are kept by the page they start in
 * instead: a hash table of pages, open addressing, each with its objects
 * in an array sorted by address.  An object that covers an address starts
 * in the address's page or in the one before.  The few larger objects (big
 * kmalloc()s, the slabs of the snapshot's map) are in a tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/zalloc.h>

#include "addrset.h"

/* the range in the array, where a search reads it without a miss per step */
struct dprof_addrset_ent {
	u64			base;
	u64			end;
	struct dprof_obj	*obj;
};

struct dprof_addrset_page {
	u64			key;		/* its number + 1; 0: a free slot */
	struct dprof_addrset_ent *objs;		/* by base; kept when empty */
	u32			nr;
	u32			alloc;
	/*
	 * How many of its first bytes the last object of the page before
	 * covers: a lookup reads that page only when it has to.  A page
	 * whose @reach is not 0 keeps its slot, objects or not.
	 */
	u32			reach;
};

#define DPROF_PAGES_MIN		64
/* objects a pool keeps at most: the slab events' churn, not a burst */
#define DPROF_POOL_MAX		4096

static bool dprof_obj__small(u64 size)
{
	return size <= DPROF_ADDRSET_PAGE;
}

/* Does a small @obj end in the page after the one it starts in? */
static bool dprof_obj__crosses(const struct dprof_obj *obj)
{
	return (obj->base + obj->size - 1) >> DPROF_ADDRSET_PAGE_SHIFT !=
	       obj->base >> DPROF_ADDRSET_PAGE_SHIFT;
}

void dprof_addrset__init(struct dprof_addrset *as,
			 void (*release)(struct dprof_addrset *as,
					 struct dprof_obj *obj, bool freed))
{
	*as = (struct dprof_addrset){ .big = RB_ROOT, .release = release };
}

/**
 * dprof_addrset__set_pool - take objects from, and give them back to, a pool
 * @as: an address set, empty
 * @pool: zeroed, or shared with the sets @as passes objects to; it
 *	  outlives them (dprof_obj_pool__exit() after their exit)
 */
void dprof_addrset__set_pool(struct dprof_addrset *as, struct dprof_obj_pool *pool)
{
	as->pool = pool;
}

void dprof_obj_pool__exit(struct dprof_obj_pool *pool)
{
	while (pool->free) {
		struct dprof_obj *obj = pool->free;

		pool->free = obj->priv;
		free(obj);
	}
	pool->nr = 0;
}

static struct dprof_obj *dprof_addrset__new_obj(struct dprof_addrset *as)
{
	struct dprof_obj_pool *pool = as->pool;
	struct dprof_obj *obj;

	if (!pool || !pool->free)
		return zalloc(sizeof(*obj));
	obj = pool->free;
	pool->free = obj->priv;
	pool->nr--;
	memset(obj, 0, sizeof(*obj));
	return obj;
}

static void dprof_addrset__put_obj(struct dprof_addrset *as, struct dprof_obj *obj)
{
	struct dprof_obj_pool *pool = as->pool;

	if (!pool || pool->nr >= DPROF_POOL_MAX) {
		free(obj);
		return;
	}
	obj->priv = pool->free;
	pool->free = obj;
	pool->nr++;
}

static u64 dprof_pfn__slot(const struct dprof_addrset *as, u64 pfn)
{
	return (pfn * 0x9e3779b97f4a7c15ULL >> 32) & as->pages_mask;
}

static struct dprof_addrset_page *dprof_addrset__page(struct dprof_addrset *as,
						      u64 pfn)
{
	u64 i;

	if (!as->pages)
		return NULL;
	for (i = dprof_pfn__slot(as, pfn);; i = (i + 1) & as->pages_mask) {
		struct dprof_addrset_page *pg = &as->pages[i];

		if (pg->key == pfn + 1)
			return pg;
		if (!pg->key)
			return NULL;
	}
}

/*
 * A table with room for the pages that hold objects: those left empty
 * keep their slot until the table is rebuilt, which leaves them out.
 */
static int dprof_addrset__rehash(struct dprof_addrset *as)
{
	struct dprof_addrset_page *old = as->pages;
	u64 i, n = 0, slots = DPROF_PAGES_MIN, old_slots = old ? as->pages_mask + 1 : 0;

	for (i = 0; i < old_slots; i++)
		n += old[i].nr || old[i].reach;
	while (slots < 4 * n)
		slots *= 2;
	as->pages = calloc(slots, sizeof(*as->pages));
	if (!as->pages) {
		as->pages = old;
		return -ENOMEM;
	}
	as->pages_mask = slots - 1;
	as->pages_used = n;
	for (i = 0; i < old_slots; i++) {
		u64 j;

		if (!old[i].nr && !old[i].reach) {
			free(old[i].objs);
			continue;
		}
		j = dprof_pfn__slot(as, old[i].key - 1);
		while (as->pages[j].key)
			j = (j + 1) & as->pages_mask;
		as->pages[j] = old[i];
	}
	free(old);
	return 0;
}

/* Room for @nr more pages without a rehash (which moves the slots). */
static int dprof_addrset__reserve(struct dprof_addrset *as, u64 nr)
{
	if (!as->pages || 2 * (as->pages_used + nr) > as->pages_mask + 1)
		return dprof_addrset__rehash(as);
	return 0;
}

static struct dprof_addrset_page *dprof_addrset__findnew_page(struct dprof_addrset *as,
							      u64 pfn)
{
	struct dprof_addrset_page *pg = dprof_addrset__page(as, pfn);
	u64 i;

	if (pg)
		return pg;
	if (dprof_addrset__reserve(as, 1))
		return NULL;
	for (i = dprof_pfn__slot(as, pfn); as->pages[i].key; i = (i + 1) & as->pages_mask)
		;
	as->pages_used++;
	as->pages[i].key = pfn + 1;
	return &as->pages[i];
}

/* The index of the first object in @pg that ends after @addr. */
static u32 dprof_page__first_end_after(const struct dprof_addrset_page *pg, u64 addr)
{
	u32 lo = 0, hi = pg->nr;

	/* objects do not overlap: sorted by base, they are by end too */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (pg->objs[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The index of the first object in @pg that starts at or after @addr. */
static u32 dprof_page__first_from(const struct dprof_addrset_page *pg, u64 addr)
{
	u32 lo = 0, hi = pg->nr;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (pg->objs[mid].base >= addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The last object of the page before @addr's, when it covers @addr: @pg
 * is @addr's page (the page @pfn, NULL when it has no slot).
 */
static struct dprof_obj *dprof_addrset__reaching(struct dprof_addrset *as,
						 const struct dprof_addrset_page *pg,
						 u64 pfn, u64 addr)
{
	if (!pg || (addr & (DPROF_ADDRSET_PAGE - 1)) >= pg->reach)
		return NULL;
	pg = dprof_addrset__page(as, pfn - 1);
	return pg->objs[pg->nr - 1].obj;
}

/* The small object that covers @addr: one of its page's, or the page before's last. */
static struct dprof_obj *dprof_addrset__small_at(struct dprof_addrset *as, u64 addr)
{
	u64 pfn = addr >> DPROF_ADDRSET_PAGE_SHIFT;
	struct dprof_addrset_page *pg = dprof_addrset__page(as, pfn);
	struct dprof_obj *obj = dprof_addrset__reaching(as, pg, pfn, addr);
	u32 i;

	if (obj || !pg)
		return obj;
	i = dprof_page__first_end_after(pg, addr);
	if (i == pg->nr || pg->objs[i].base > addr)
		return NULL;
	return pg->objs[i].obj;
}

/* The big object with the highest base <= @addr, whether or not it covers it. */
static struct dprof_obj *dprof_addrset__big_floor(struct dprof_addrset *as,
						  u64 addr)
{
	struct rb_node *nd = as->big.rb_node;
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
	struct dprof_obj *obj = dprof_addrset__small_at(as, addr);

	if (obj || RB_EMPTY_ROOT(&as->big))
		return obj;
	obj = dprof_addrset__big_floor(as, addr);
	if (obj && addr - obj->base < obj->size)
		return obj;
	return NULL;
}

/* Take @obj out of the set, without a word to its owner. */
static void dprof_addrset__unlink(struct dprof_addrset *as, struct dprof_obj *obj)
{
	struct dprof_addrset_page *pg;
	u64 pfn;
	u32 i;

	as->nr_live--;
	if (!dprof_obj__small(obj->size)) {
		rb_erase(&obj->node, &as->big);
		return;
	}
	pfn = obj->base >> DPROF_ADDRSET_PAGE_SHIFT;
	pg = dprof_addrset__page(as, pfn);
	i = dprof_page__first_from(pg, obj->base);
	memmove(&pg->objs[i], &pg->objs[i + 1], (pg->nr - i - 1) * sizeof(*pg->objs));
	/* an empty page keeps its array for the next object, until a rehash */
	pg->nr--;
	/* it was the last of its page: the one before it ends in the page */
	if (dprof_obj__crosses(obj))
		dprof_addrset__page(as, pfn + 1)->reach = 0;
}

static void dprof_addrset__remove(struct dprof_addrset *as,
				  struct dprof_obj *obj, bool freed)
{
	dprof_addrset__unlink(as, obj);
	if (as->release)
		as->release(as, obj, freed);
	dprof_addrset__put_obj(as, obj);
}

/* In no particular order; the objects go back to malloc(), not the pool. */
void dprof_addrset__exit(struct dprof_addrset *as)
{
	struct rb_node *nd;
	u64 i;

	as->pool = NULL;
	for (i = 0; as->pages && i <= as->pages_mask; i++) {
		struct dprof_addrset_page *pg = &as->pages[i];

		while (pg->nr)
			dprof_addrset__remove(as, pg->objs[pg->nr - 1].obj, false);
		free(pg->objs);
	}
	zfree(&as->pages);
	as->pages_mask = 0;
	as->pages_used = 0;
	while ((nd = rb_first(&as->big)) != NULL)
		dprof_addrset__remove(as, rb_entry(nd, struct dprof_obj, node),
				      false);
}

/* An object that starts in @pg, at or after @base's page, and overlaps [@base, @end). */
static struct dprof_obj *dprof_page__overlap(const struct dprof_addrset_page *pg,
					     u64 base, u64 end)
{
	u32 i;

	if (!pg || !pg->nr)
		return NULL;
	i = dprof_page__first_end_after(pg, base);
	return i < pg->nr && pg->objs[i].base < end ? pg->objs[i].obj : NULL;
}

/* A small live object that overlaps [@base, @end), or NULL. */
static struct dprof_obj *dprof_addrset__small_overlap(struct dprof_addrset *as,
						      u64 base, u64 end)
{
	u64 first = base >> DPROF_ADDRSET_PAGE_SHIFT;
	u64 last = (end - 1) >> DPROF_ADDRSET_PAGE_SHIFT, pfn, i;
	struct dprof_addrset_page *pg;
	struct dprof_obj *obj;

	if (!as->pages)
		return NULL;
	pg = dprof_addrset__page(as, first);
	obj = dprof_addrset__reaching(as, pg, first, base);
	if (obj)
		return obj;
	/* a range over more pages than the table has slots: go through those */
	if (last - first > as->pages_mask) {
		for (i = 0; i <= as->pages_mask; i++) {
			pg = &as->pages[i];
			if (!pg->key || pg->key - 1 < first || pg->key - 1 > last)
				continue;
			obj = dprof_page__overlap(pg, base, end);
			if (obj)
				return obj;
		}
		return NULL;
	}
	for (pfn = first; pfn <= last; pfn++) {
		if (pfn != first)
			pg = dprof_addrset__page(as, pfn);
		obj = dprof_page__overlap(pg, base, end);
		if (obj)
			return obj;
	}
	return NULL;
}

/* A live object that overlaps [@base, @end), or NULL. */
static struct dprof_obj *dprof_addrset__overlap(struct dprof_addrset *as,
						u64 base, u64 end)
{
	struct dprof_obj *obj = dprof_addrset__small_overlap(as, base, end);

	if (obj || RB_EMPTY_ROOT(&as->big))
		return obj;
	/* big objects do not overlap: the last one before @end, or none */
	obj = dprof_addrset__big_floor(as, end - 1);
	return obj && obj->base + obj->size > base ? obj : NULL;
}

static bool dprof_obj__less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct dprof_obj, node)->base <
	       rb_entry(b, struct dprof_obj, node)->base;
}

/* Put @obj where it goes, overlapping nothing. */
static int dprof_addrset__link(struct dprof_addrset *as, struct dprof_obj *obj)
{
	struct dprof_addrset_page *pg;
	u64 pfn;
	u32 i;

	if (!dprof_obj__small(obj->size)) {
		rb_add(&obj->node, &as->big, dprof_obj__less);
		goto out;
	}
	pfn = obj->base >> DPROF_ADDRSET_PAGE_SHIFT;
	/* the slots of its page and the next stay where they are found */
	if (dprof_addrset__reserve(as, 2))
		return -ENOMEM;
	pg = dprof_addrset__findnew_page(as, pfn);
	if (!pg)
		return -ENOMEM;
	if (pg->nr == pg->alloc) {
		u32 alloc = pg->alloc ? 2 * pg->alloc : 4;
		struct dprof_addrset_ent *objs = realloc(pg->objs, alloc * sizeof(*objs));

		if (!objs)
			return -ENOMEM;
		pg->objs = objs;
		pg->alloc = alloc;
	}
	i = dprof_page__first_from(pg, obj->base);
	memmove(&pg->objs[i + 1], &pg->objs[i], (pg->nr - i) * sizeof(*pg->objs));
	pg->objs[i] = (struct dprof_addrset_ent){
		.base	= obj->base,
		.end	= obj->base + obj->size,
		.obj	= obj,
	};
	pg->nr++;
	/* overlapping nothing, it is the last of its page */
	if (dprof_obj__crosses(obj))
		dprof_addrset__findnew_page(as, pfn + 1)->reach = obj->base + obj->size -
			((pfn + 1) << DPROF_ADDRSET_PAGE_SHIFT);
out:
	as->nr_live++;
	return 0;
}

/* @obj takes the place of @old, which has the same range */
static void dprof_addrset__replace(struct dprof_addrset *as, struct dprof_obj *old,
				   struct dprof_obj *obj)
{
	struct dprof_addrset_page *pg;

	if (!dprof_obj__small(obj->size)) {
		rb_replace_node(&old->node, &obj->node, &as->big);
		return;
	}
	pg = dprof_addrset__page(as, obj->base >> DPROF_ADDRSET_PAGE_SHIFT);
	pg->objs[dprof_page__first_from(pg, obj->base)].obj = obj;
}

/**
 * dprof_addrset__evict - end the live objects over a range, adding none
 * @as: the address set
 * @base: the range's start
 * @size: its bytes (0: 1)
 *
 * What an allocation of the range does to the stale objects it overlaps
 * (counted in nr_evicted), without the allocation: its place, as a later
 * event says, is no object's.
 */
void dprof_addrset__evict(struct dprof_addrset *as, u64 base, u64 size)
{
	u64 end = base + (size ?: 1);
	struct dprof_obj *old;

	while ((old = dprof_addrset__overlap(as, base, end))) {
		as->nr_evicted++;
		as->nr_evicted_seen += !!old->nr_seen;
		dprof_addrset__remove(as, old, false);
	}
}

/*
 * Put @obj (base and size set) into the set.  Most allocations overlap
 * nothing; an object with the very same range (a slab object freed into
 * a set of dead ones, again) takes its place: nothing else can overlap
 * it.  Otherwise the stale objects it overlaps are evicted first.
 */
static int dprof_addrset__insert(struct dprof_addrset *as, struct dprof_obj *obj)
{
	u64 end = obj->base + obj->size;
	struct dprof_obj *old = dprof_addrset__overlap(as, obj->base, end);

	if (old && old->base == obj->base && old->size == obj->size) {
		dprof_addrset__replace(as, old, obj);
		as->nr_evicted++;
		as->nr_evicted_seen += !!old->nr_seen;
		as->nr_allocs++;
		if (as->release)
			as->release(as, old, false);
		dprof_addrset__put_obj(as, old);
		return 0;
	}
	if (old)
		dprof_addrset__evict(as, obj->base, obj->size);
	if (dprof_addrset__link(as, obj))
		return -ENOMEM;
	as->nr_allocs++;
	return 0;
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
	struct dprof_obj *obj = dprof_addrset__new_obj(as);

	if (!obj)
		return NULL;
	obj->base = base;
	obj->size = size ?: 1;
	obj->alloc_time = time;
	if (dprof_addrset__insert(as, obj)) {
		dprof_addrset__put_obj(as, obj);
		return NULL;
	}
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
 * Returns @obj, now in @to, or NULL when memory ran out (@obj is gone).
 */
struct dprof_obj *dprof_addrset__move(struct dprof_addrset *as,
				      struct dprof_obj *obj,
				      struct dprof_addrset *to, u64 time)
{
	void *priv;

	dprof_addrset__unlink(as, obj);
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
	if (dprof_addrset__insert(to, obj)) {
		if (to->release)
			to->release(to, obj, false);
		dprof_addrset__put_obj(to, obj);
		return NULL;
	}
	return obj;
}

static int dprof_obj__cmp(const void *a, const void *b)
{
	const struct dprof_obj *x = *(struct dprof_obj * const *)a;
	const struct dprof_obj *y = *(struct dprof_obj * const *)b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/**
 * dprof_addrset__for_each - call @fn on each live object, by address
 * @as: the address set; @fn must not change it
 * @fn: returns 0 to go on
 * @arg: for @fn
 *
 * Return: what @fn returned last, or -ENOMEM.
 */
int dprof_addrset__for_each(struct dprof_addrset *as,
			    int (*fn)(struct dprof_obj *obj, void *arg), void *arg)
{
	struct dprof_obj **objs;
	struct rb_node *nd;
	u64 i, n = 0;
	int err = 0;

	if (!as->nr_live)
		return 0;
	objs = malloc(as->nr_live * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	for (i = 0; as->pages && i <= as->pages_mask; i++) {
		u32 j;

		for (j = 0; j < as->pages[i].nr; j++)
			objs[n++] = as->pages[i].objs[j].obj;
	}
	for (nd = rb_first(&as->big); nd; nd = rb_next(nd))
		objs[n++] = rb_entry(nd, struct dprof_obj, node);
	qsort(objs, n, sizeof(*objs), dprof_obj__cmp);
	for (i = 0; i < n && !err; i++)
		err = fn(objs[i], arg);
	free(objs);
	return err;
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
	struct dprof_addrset_page *pg = dprof_addrset__page(as, base >> DPROF_ADDRSET_PAGE_SHIFT);
	struct dprof_obj *obj = NULL;

	if (pg && pg->nr) {
		u32 i = dprof_page__first_from(pg, base);

		if (i < pg->nr && pg->objs[i].base == base)
			obj = pg->objs[i].obj;
	}
	if (!obj && !RB_EMPTY_ROOT(&as->big)) {
		obj = dprof_addrset__big_floor(as, base);
		if (obj && obj->base != base)
			obj = NULL;
	}
	if (!obj) {
		as->nr_unknown_free++;
		return -ENOENT;
	}
	as->nr_frees++;
	dprof_addrset__remove(as, obj, true);
	return 0;
}
