/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_WATCH_H
#define __PERF_DPROF_WATCH_H

#include <stdbool.h>
#include <linux/types.h>

struct dprof_class;

#define DPROF_WATCH_PMU		"slab_watch"

/**
 * struct dprof_watch - one slab_watch event of a recording
 * @next: the recording's next watch
 * @cls: the allocation class of the objects it followed, from a hit
 * @offset: of the watched bytes in the object
 * @len: how many bytes (1, 2, 4 or 8)
 * @sweep: the watched bytes move on by @len after each object
 * @rw: reads trap too, not only writes
 * @nr_hits: hits
 * @nr_objects: objects the hits were on
 *
 * The kernel's slab_watch PMU (kernel-patches/) arms a hardware breakpoint
 * on one freshly allocated object of a cache at a time; its hits are the
 * object access histories.
 */
struct dprof_watch {
	struct dprof_watch		*next;
	const struct dprof_class	*cls;
	u64				offset;
	u32				len;
	bool				sweep;
	bool				rw;
	u64				nr_hits;
	u64				nr_objects;
	/* private: the object of the last hit */
	u64				last_base;
	u64				last_born;
};

/* The watch of a slab_watch event's attr.config. */
struct dprof_watch *dprof_watch__new(u64 config);
/* A hit on the object at @base allocated at @born (0: unknown). */
void dprof_watch__hit(struct dprof_watch *w, u64 base, u64 born);

#endif /* __PERF_DPROF_WATCH_H */
