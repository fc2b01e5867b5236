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
/* Recordings of one side (perf dprof diff A1 A2 -- B1 B2): replicates */
#define DPROF_DIFF_MAX_RUNS	8

struct dprof_diff_row {
	char			*type;
	char			*desc;
	char			*key;		/* desc without what moves between versions */
	u32			nr_merged;	/* rows of the side with this key, merged */
	u64			run_n[DPROF_DIFF_MAX_RUNS];	/* samples, per recording */
	u64			run_m[DPROF_DIFF_MAX_RUNS];	/* misses, per recording */
	struct dprof_stats	stats;
	struct dprof_slices	slices;		/* ... by time slice */
	u64			ws_bytes;
	u64			nr_objects;
	struct dprof_estimate	objects;	/* distinct objects touched */
	double			ws_est;		/* their bytes */
	u64			life_sum;	/* alloc -> free, of the freed */
	u64			life_n;
};

struct dprof_diff_side {
	const char		*path;
	struct dprof_diff_row	*rows;
	size_t			nr;
	u64			nr_samples;
	u64			nr_misses;
	u32			nr_runs;	/* recordings added up */
	u64			run_n[DPROF_DIFF_MAX_RUNS];
	u64			run_m[DPROF_DIFF_MAX_RUNS];
	struct dprof_slices	slices;		/* every sample by time slice */
	bool			has_levels;
	bool			has_latency;
};

/* Replay side->path's data profile into @side; a negative errno said to the user. */
int dprof_diff_side__load(struct dprof_diff_side *side);
/* Add the recording @path to @side, a replicate of its others. */
int dprof_diff_side__add_run(struct dprof_diff_side *side, const char *path);
void dprof_diff_side__exit(struct dprof_diff_side *side);

/*
 * A type of either recording, and how sure its change from A to B is:
 * the change of its share over the share's standard error, and that of
 * its objects touched (the log of the ratio of the estimates over its
 * standard error); the stronger of the two ranks.  A share's variance is
 * that of its batch means over the recording's time slices where each
 * side has DPROF_SLICES_MIN slices with samples, never below the
 * binomial's (two proportions, pooled), else the binomial's.
 */
struct dprof_diff_pair {
	const struct dprof_diff_row	*a, *b;		/* NULL: not in it */
	double				delta;		/* share points */
	double				z_share;
	double				se_share;	/* share points */
	double				z_objects;	/* 0: not estimated in both */
	double				z;		/* the stronger */
	bool				significant;	/* |z| >= the family's */
};

/* How the pairs were ranked and flagged. */
struct dprof_diff_result {
	struct dprof_diff_pair	*pairs;
	size_t			nr;
	bool			misses;		/* shares of the misses, else samples */
	double			z_crit;		/* |z| a change needs: Bonferroni over nr */
	size_t			nr_few;		/* types with too few samples in A or B */
	/*
	 * The time slices with samples of A and of B.  With DPROF_SLICES_MIN
	 * of them on each side the shares' variances are their batch means'
	 * (at least the binomial's) and z_crit Student's t on @df, min(A, B)
	 * - 1, degrees of freedom; else (@df 0) the binomial's and the normal's.
	 */
	u32			slices_a, slices_b;
	unsigned int		df;
	/*
	 * With two recordings or more on each side, a share's variance is
	 * its variation from recording to recording (at least the
	 * binomial's), on runs_a + runs_b - 2 degrees of freedom.
	 */
	bool			between_runs;
};

/* The families' false alarm rate: any pair flagged when none changed. */
#define DPROF_DIFF_ALPHA	0.05

/*
 * Every type of @a or @b, the surest change first; shares of the misses
 * when both measured them, else of the samples.
 */
int dprof_diff__pairs(const struct dprof_diff_side *a, const struct dprof_diff_side *b,
		      struct dprof_diff_result *res);
double dprof_diff__share(const struct dprof_diff_side *side,
			 const struct dprof_diff_row *row, bool misses);

#endif /* __PERF_DPROF_DIFF_H */
