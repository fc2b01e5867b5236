/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_WORKINGSET_H
#define __PERF_DPROF_WORKINGSET_H

#include <linux/types.h>

#include "cachesim.h"
#include "estimate.h"
#include "sink.h"

struct dprof_class;
struct dprof_obj;
struct hashmap;

/* What one allocation class holds of the simulated cache. */
struct dprof_ws_class {
	const struct dprof_class *cls;
	double		lines_sum;	/* resident lines, summed over snapshots */
	double		objs_sum;	/* resident distinct objects, ditto */
	u64		nr_lines;	/* distinct lines ever touched */
	struct dprof_freq lines_freq;	/* ... by how often: the estimate */
	struct hashmap	*seen;		/* line tag -> set | times seen << 32 */
	u32		*set_lines;	/* distinct lines per set, ever */
	/* object histories: who brings the lines of its objects in */
	struct hashmap	*first;		/* ip -> lines first touched there */
	u64		nr_first;	/* lines of watched objects touched */
};

/*
 * The working-set view (paper section 3.2): one cache of geometry @geom,
 * shared by all CPUs, replays the accesses in time order; a freed object's
 * lines stay cached but belong to nobody.  Snapshots of what each class
 * holds are averaged over the replay, from the point on where the model
 * is warm (warm_at; 0 when it never was, and the whole replay counts).
 */
struct dprof_workingset {
	struct dprof_sink	sink;
	struct dprof_cache	cache;
	struct hashmap		*classes;	/* class -> dprof_ws_class */
	u32			*set_lines;	/* all classes, distinct, ever */
	u64			nr_lines;	/* distinct lines ever touched */
	u64			interval;	/* accesses between snapshots */
	u64			next_snap;
	double			weight;		/* sum of snapshot weights */
	u64			nr_snaps;
	u64			warm_at;	/* access the average starts at */
	void			*pairs;		/* snapshot scratch */
	struct hashmap		*touched;	/* watched line -> its object's birth */
	u64			nr_hits;	/* watch hits seen */
};

int dprof_workingset__init(struct dprof_workingset *ws,
			   const struct dprof_cache_geom *geom);
void dprof_workingset__exit(struct dprof_workingset *ws);
int dprof_workingset__finish(struct dprof_workingset *ws);
struct dprof_ws_class *
dprof_workingset__class(const struct dprof_workingset *ws,
			const struct dprof_class *cls);
bool dprof_workingset__conflict_set(const struct dprof_workingset *ws,
				    u32 set);

#endif /* __PERF_DPROF_WORKINGSET_H */
