/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_DIFF_H
#define __PERF_DPROF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include "profile.h"

/*
 * perf dprof diff: the data profiles of two recordings, type by type
 * (DProf paper 5.2: a peak against a drop-off).
 */

/* One type of one recording, as text keys and numbers: no session needed. */
struct dprof_diff_row {
	char			*type;
	char			*desc;
	struct dprof_stats	stats;
	u64			ws_bytes;
	u64			nr_objects;
	u64			life_sum;	/* alloc -> free, of the freed */
	u64			life_n;
};

struct dprof_diff_side {
	const char		*path;
	struct dprof_diff_row	*rows;
	size_t			nr;
	u64			nr_samples;
	u64			nr_misses;
	bool			has_levels;
	bool			has_latency;
};

/* Replay side->path's data profile into @side; a negative errno said to the user. */
int dprof_diff_side__load(struct dprof_diff_side *side);
void dprof_diff_side__exit(struct dprof_diff_side *side);

/* A type of either recording, and how much its share changed from A to B. */
struct dprof_diff_pair {
	const struct dprof_diff_row	*a, *b;		/* NULL: not in it */
	double				delta;		/* share points */
};

/*
 * Every type of @a or @b, the biggest change first; shares of the misses
 * when both measured them (*@misses), else of the samples.
 */
struct dprof_diff_pair *dprof_diff__pairs(const struct dprof_diff_side *a,
					  const struct dprof_diff_side *b,
					  bool *misses, size_t *nr);
double dprof_diff__share(const struct dprof_diff_side *side,
			 const struct dprof_diff_row *row, bool misses);

#endif /* __PERF_DPROF_DIFF_H */
