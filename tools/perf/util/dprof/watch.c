// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the slab_watch events of a recording, and what they saw.
 */
#include <linux/slab_watch.h>
#include <linux/zalloc.h>

#include "watch.h"

struct dprof_watch *dprof_watch__new(u64 config)
{
	struct dprof_watch *w = zalloc(sizeof(*w));

	if (!w)
		return NULL;
	w->offset = (config >> SLAB_WATCH_OFFSET_SHIFT) & SLAB_WATCH_OFFSET_MASK;
	w->len = (config >> SLAB_WATCH_LEN_SHIFT) & SLAB_WATCH_LEN_MASK;
	w->rw = config & SLAB_WATCH_RW;
	w->sweep = config & SLAB_WATCH_SWEEP;
	return w;
}

/* A watch follows one object at a time: a new (base, alloc time) is a new one. */
void dprof_watch__hit(struct dprof_watch *w, u64 base, u64 born)
{
	if (!w->nr_hits++ || base != w->last_base || born != w->last_born)
		w->nr_objects++;
	w->last_base = base;
	w->last_born = born;
}
