/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_PATHTRACE_H
#define __PERF_DPROF_PATHTRACE_H

#include <linux/list.h>
#include <linux/types.h>
#include "profile.h"

struct dprof_histories;
struct dprof_history;

/*
 * Path traces (DProf paper §4.4, table 1): the histories of one type that
 * took the same execution path -- the same sequence of functions (or ips)
 * and the same CPU-change pattern -- folded into one trace with its
 * frequency and per step averages.
 */

enum dprof_step_kind {
	DPROF_STEP_ALLOC,
	DPROF_STEP_ACCESS,
	DPROF_STEP_FREE,
};

/**
 * struct dprof_path_step - one step of a path trace
 * @key: function start address (or the ip, by ip); alloc/free: call site
 * @ip: the first ip seen at this step
 * @kind: alloc, access or free
 * @cpu_change: the step ran on another CPU than the step before it
 * @time_sum: time since allocation at the step's first access, summed
 *            over the path's histories
 * @off_lo: lowest offset touched
 * @off_hi: end of the highest bytes touched
 * @nr_acc: accesses folded into this step, summed over histories
 * @stats: access samples of the same (type, offset, ip), if asked for
 */
struct dprof_path_step {
	u64			key;
	u64			ip;
	enum dprof_step_kind	kind;
	bool			cpu_change;
	u64			time_sum;
	u64			off_lo;
	u64			off_hi;
	u64			nr_acc;
	struct dprof_stats	stats;
};

/**
 * struct dprof_path - a path trace: histories with one execution path
 * @node: in dprof_paths.paths
 * @hash: of the step keys and CPU-change flags
 * @count: histories that took this path
 * @seq: order of first appearance
 * @nr_steps: number of @steps
 * @steps: alloc, accesses, free
 */
struct dprof_path {
	struct list_head	node;
	u64			hash;
	u64			count;
	u64			seq;
	size_t			nr_steps;
	struct dprof_path_step	*steps;
};

/**
 * struct dprof_paths - the path traces of one type
 * @type: the type, compared by pointer (NULL: every history, or @want's)
 * @paths: struct dprof_path list
 * @nr_paths: number of paths
 * @nr_histories: histories folded into paths
 * @nr_unfreed: histories left out: cut short before the free
 * @by_ip: steps are ips, not functions
 * @func_of: function start of an ip (NULL, or returning 0: the ip itself)
 * @samples_of: adds the access samples of (type, offset, ip) to a
 *              struct dprof_stats (NULL: none)
 * @want: whether a history of this type is one of the paths' (NULL:
 *        those of @type); for a type that is several allocation classes
 * @ctx: passed to @func_of, @samples_of and @want
 */
struct dprof_paths {
	void			*type;
	struct list_head	paths;
	u64			nr_paths;
	u64			nr_histories;
	u64			nr_unfreed;
	bool			by_ip;
	u64			(*func_of)(void *ctx, u64 ip);
	void			(*samples_of)(void *ctx, void *type, u64 offset,
					      u64 ip, struct dprof_stats *st);
	bool			(*want)(void *ctx, const void *type);
	void			*ctx;
};

void dprof_paths__init(struct dprof_paths *p, void *type);
void dprof_paths__exit(struct dprof_paths *p);
int dprof_paths__add(struct dprof_paths *p, const struct dprof_history *hist);
int dprof_paths__build(struct dprof_paths *p, struct dprof_histories *h);
struct dprof_path **dprof_paths__sorted(struct dprof_paths *p, size_t *nr);

static inline double dprof_path_step__avg_time(const struct dprof_path_step *s,
					       const struct dprof_path *path)
{
	return path->count ? (double)s->time_sum / path->count : 0;
}

#endif /* __PERF_DPROF_PATHTRACE_H */
