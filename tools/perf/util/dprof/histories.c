// SPDX-License-Identifier: GPL-2.0
/*
 * Object access histories: watch hits placed into the lifetime of the
 * object they touched (DProf paper §4.3).
 *
 * A slab_watch follows one object at a time and re-arms on the next
 * allocation of its cache, so a history opens at the allocation of an
 * object that gets hits and closes at its free.  Hits that fall in no
 * open history (the object was allocated before recording, or the hit
 * raced with the free) are dropped and counted: they have no alloc time
 * to be measured from.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include "addrset.h"
#include "histories.h"

static int history__cmp_addr(const void *key, const struct rb_node *node)
{
	const struct dprof_history *hist = rb_entry(node, struct dprof_history, node);
	u64 addr = *(const u64 *)key;

	if (addr < hist->base)
		return -1;
	if (addr >= hist->base + (hist->size ?: 1))
		return 1;
	return 0;
}

static bool history__less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct dprof_history, node)->base <
	       rb_entry(b, struct dprof_history, node)->base;
}

static struct dprof_history *history__find(struct dprof_histories *h, u64 addr)
{
	struct rb_node *node = rb_find(&addr, &h->open, history__cmp_addr);

	return node ? rb_entry(node, struct dprof_history, node) : NULL;
}

static void history__delete(struct dprof_history *hist)
{
	free(hist->elems);
	free(hist);
}

/*
 * Take @hist off the open tree; keep it when it saw an access.  Not
 * freed: @cut when a new allocation over its bytes ends it, else the
 * recording ended first.
 */
static void history__close(struct dprof_histories *h,
			   struct dprof_history *hist, bool cut)
{
	rb_erase(&hist->node, &h->open);
	RB_CLEAR_NODE(&hist->node);
	if (!hist->nr) {
		h->nr_empty++;
		history__delete(hist);
		return;
	}
	if (!hist->freed) {
		h->nr_unfreed++;
		if (cut)
			h->nr_cut++;
		else
			h->nr_open++;
	}
	h->nr_histories++;
	list_add_tail(&hist->list, &h->done);
}

/*
 * history__alloc - an object of @type was allocated
 * @h: the history builder
 * @type: the object's type, compared by pointer
 * @base: object start address
 * @size: object size in bytes
 * @time: allocation time stamp
 * @cpu: allocating CPU
 * @site: allocation call site, 0 if unknown
 *
 * Opens the object's history.  A history still open over the same bytes
 * lost its free event: it is closed as cut short first.
 *
 * Return: 0, or -ENOMEM.
 */
static int history__alloc(struct dprof_histories *h, void *type, u64 base,
			  u64 size, u64 time, u32 cpu, u64 site)
{
	struct dprof_history *hist, *stale;

	while ((stale = history__find(h, base)) != NULL ||
	       (size > 1 && (stale = history__find(h, base + size - 1)) != NULL))
		history__close(h, stale, /*cut=*/true);

	hist = zalloc(sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	hist->type = type;
	hist->base = base;
	hist->size = size;
	hist->alloc_time = time;
	hist->alloc_cpu = cpu;
	hist->alloc_site = site;
	INIT_LIST_HEAD(&hist->list);
	rb_add(&hist->node, &h->open, history__less);
	return 0;
}

static int history__append(struct dprof_history *hist,
			   const struct dprof_hist_elem *elem)
{
	if (hist->nr == hist->alloc_nr) {
		size_t nr = hist->alloc_nr ? hist->alloc_nr * 2 : 16;
		struct dprof_hist_elem *elems;

		elems = realloc(hist->elems, nr * sizeof(*elems));
		if (!elems)
			return -ENOMEM;
		hist->elems = elems;
		hist->alloc_nr = nr;
	}
	hist->elems[hist->nr++] = *elem;
	return 0;
}

/*
 * history__hit - a watch saw an access
 * @h: the history builder
 * @addr: the watched address that was accessed
 * @ip: the accessing instruction
 * @cpu: the CPU that executed it
 * @time: time stamp of the access
 * @len: number of watched bytes
 *
 * Return: 0 (the hit was kept, or dropped and counted), or -ENOMEM.
 */
static int history__hit(struct dprof_histories *h, u64 addr, u64 ip, u32 cpu,
			u64 time, u32 len)
{
	struct dprof_history *hist = history__find(h, addr);
	struct dprof_hist_elem elem;

	if (!hist) {
		h->nr_dropped++;
		return 0;
	}
	if (time < hist->alloc_time) {
		h->nr_out_of_order++;
		h->nr_dropped++;
		return 0;
	}
	elem.offset = addr - hist->base;
	elem.ip = ip;
	elem.time = time - hist->alloc_time;
	elem.cpu = cpu;
	elem.len = len ?: 1;
	h->nr_hits++;
	return history__append(hist, &elem);
}

/*
 * history__free - an object was freed
 * @h: the history builder
 * @base: object start address
 * @time: free time stamp
 * @cpu: freeing CPU
 * @site: free call site, 0 if unknown
 *
 * Closes the object's history, if one is open.
 *
 * Return: 0.
 */
static int history__free(struct dprof_histories *h, u64 base, u64 time,
			 u32 cpu, u64 site)
{
	struct dprof_history *hist = history__find(h, base);

	if (!hist || hist->base != base)
		return 0;
	if (time < hist->alloc_time) {
		h->nr_out_of_order++;
		time = hist->alloc_time;
	}
	hist->freed = true;
	hist->free_time = time - hist->alloc_time;
	hist->free_cpu = cpu;
	hist->free_site = site;
	history__close(h, hist, /*cut=*/false);
	return 0;
}

/*
 * A watch hit, with its object from the address set (sink hook): every
 * hit, whether or not the watch traps reads.
 *
 * The report replays every allocation, but only the watched objects need
 * a history: open it at the first hit, from the allocation the address
 * set remembers, with the hit's site.  Histories are closed by the sink's
 * free hook.  A hit on no object of the address set is dropped.  The
 * history keeps the sampled ip (the instruction after the access).
 */
static int histories__sink_hit(struct dprof_sink *sink,
			       const struct dprof_hit *hit)
{
	struct dprof_histories *h = container_of(sink, struct dprof_histories, sink);
	const struct dprof_obj *obj = hit->obj;
	struct dprof_history *hist;

	if (!obj) {
		h->nr_dropped++;
		return 0;
	}
	hist = history__find(h, hit->addr);
	if (!hist || hist->base != obj->base ||
	    hist->alloc_time != obj->alloc_time) {
		int err = history__alloc(h, obj->priv, obj->base, obj->size,
					 obj->alloc_time, obj->cpu, hit->site);

		if (err)
			return err;
	}
	return history__hit(h, hit->addr, hit->ip, hit->cpu, hit->time,
			    hit->len);
}

/* An access sample to a heap object (no watch in user space): a hit. */
static int histories__sink_sampled_hit(struct dprof_sink *sink,
				       const struct dprof_hit *hit)
{
	struct dprof_histories *h = container_of(sink, struct dprof_histories, sink);

	h->nr_sampled_hits++;
	return histories__sink_hit(sink, hit);
}

static int histories__sink_free(struct dprof_sink *sink,
				const struct dprof_obj *obj, u64 time, u32 cpu)
{
	struct dprof_histories *h = container_of(sink, struct dprof_histories, sink);

	return history__free(h, obj->base, time, cpu, obj->free_site);
}

/**
 * dprof_histories__finish - close the histories of objects still live
 * @h: the history builder
 *
 * They are kept, marked not freed (and counted in @h->nr_unfreed).
 */
void dprof_histories__finish(struct dprof_histories *h)
{
	struct rb_node *node;

	while ((node = rb_first(&h->open)) != NULL)
		history__close(h, rb_entry(node, struct dprof_history, node),
			       /*cut=*/false);
}

/**
 * dprof_histories__init - set up an empty history builder
 * @h: the history builder
 *
 * @h->sink opens histories on the watch hits of the replay and closes
 * them on its free events: add it to the report's sinks.
 */
void dprof_histories__init(struct dprof_histories *h)
{
	memset(h, 0, sizeof(*h));
	INIT_LIST_HEAD(&h->sink.node);
	h->sink.free = histories__sink_free;
	h->sink.hit = histories__sink_hit;
	h->sink.sampled_hit = histories__sink_sampled_hit;
	h->open = RB_ROOT;
	INIT_LIST_HEAD(&h->done);
}

/**
 * dprof_histories__exit - free every history
 * @h: the history builder
 */
void dprof_histories__exit(struct dprof_histories *h)
{
	struct dprof_history *hist, *tmp;
	struct rb_node *node;

	while ((node = rb_first(&h->open)) != NULL) {
		hist = rb_entry(node, struct dprof_history, node);
		rb_erase(node, &h->open);
		history__delete(hist);
	}
	list_for_each_entry_safe(hist, tmp, &h->done, list) {
		list_del(&hist->list);
		history__delete(hist);
	}
}
