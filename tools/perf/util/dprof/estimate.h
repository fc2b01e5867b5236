/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_ESTIMATE_H
#define __PERF_DPROF_ESTIMATE_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * What sampling can tell about the numbers dprof prints: a type's share of
 * the samples with its binomial interval, the number of distinct objects
 * touched estimated from how often each sampled object was seen, and how
 * sure a change between two recordings is.
 */

/* The z of a two-sided 95% interval. */
#define DPROF_Z95		1.959964
/* Fewer samples of a type than this: its estimates say little. */
#define DPROF_FEW_SAMPLES	30

/* The rare objects counted by how often they were seen: f1 .. f4. */
#define DPROF_FREQ_RARE		4

/*
 * Objects by how often the samples saw them: the sufficient statistics of
 * the (improved) Chao1 estimator.  Objects seen more often than
 * DPROF_FREQ_RARE count in @s_obs only.
 */
struct dprof_freq {
	u64	n;			/* samples that hit one of these objects */
	u64	s_obs;			/* distinct objects sampled */
	u64	f[DPROF_FREQ_RARE];	/* ... exactly once, twice, ... */
};

/* How often an object was sampled, saturated past the rare ones. */
#define DPROF_FREQ_SEEN_MAX	(DPROF_FREQ_RARE + 1)

void dprof_freq__sample(struct dprof_freq *f, unsigned int seen);
void dprof_freq__add(struct dprof_freq *dst, const struct dprof_freq *src);

/* The distinct objects of a type the program touched, with a 95% interval. */
struct dprof_estimate {
	double	est;
	double	lo, hi;
	double	var;		/* of est, before the bounds */
	u64	sampled;	/* objects sampled: the lower bound */
	u64	bound;		/* objects the address set knew of, 0: none */
	bool	exact;		/* no sampling involved (a static, per-cpu copies) */
	bool	few;		/* fewer than DPROF_FEW_SAMPLES samples */
};

void dprof_estimate__objects(struct dprof_estimate *e, const struct dprof_freq *f,
			     u64 exact, u64 bound);
void dprof_estimate__chosen(struct dprof_estimate *e, const struct dprof_freq *all,
			    const struct dprof_freq *chosen, u32 interval,
			    const struct dprof_freq *old, u64 old_slots, s64 allocs);
double dprof_estimate__log_var(const struct dprof_estimate *e);

/*
 * Samples by time slice, for a share's variance from the recording's own
 * variation over time (batch means) rather than from the binomial formula,
 * which takes every sample for an independent draw: program phases and
 * the machine's other load vary a share far more than that.
 *
 * DPROF_SLICES slices of equal width from the recording's first sample on;
 * a sample past the last slice doubles the width, and pairs of slices are
 * merged (@gen: how many times; a class catches up when next counted, and
 * at the end).  The width is the profile's: one per recording.
 */
#define DPROF_SLICES		32
/*
 * The slices a share's variance is estimated from, at most: batches long
 * enough that neighbouring ones are nearly independent.
 */
#define DPROF_SLICES_USED	20
/* Fewer slices with samples than this: the binomial variance alone. */
#define DPROF_SLICES_MIN	6
/* The first width, ns: doubled as the recording goes on. */
#define DPROF_SLICE_NS		100000

struct dprof_slices {
	u32	n[DPROF_SLICES];	/* samples */
	u32	misses[DPROF_SLICES];	/* ... that missed (level known) */
	u32	gen;			/* width: DPROF_SLICE_NS << gen */
};

void dprof_slices__fold(struct dprof_slices *s, u32 gen);
void dprof_slices__count(struct dprof_slices *s, u32 slice, u32 gen, bool miss);
void dprof_slices__add(struct dprof_slices *dst, const struct dprof_slices *src);
u32 dprof_slices__used(const struct dprof_slices *s);
double dprof_share_var(const struct dprof_slices *row, const struct dprof_slices *all,
		       bool misses, u32 *nr_slices);
double dprof_t_family(double alpha, size_t m, unsigned int df);
void dprof_share_interval(u64 k, u64 n, const struct dprof_slices *row,
			  const struct dprof_slices *all, bool misses,
			  double *lo, double *hi);

void dprof_wilson(u64 k, u64 n, double z, double *lo, double *hi);
double dprof_two_prop_z(u64 ka, u64 na, u64 kb, u64 nb);
double dprof_log_ratio_z(const struct dprof_estimate *a, const struct dprof_estimate *b);
double dprof_z_family(double alpha, size_t m);

#endif /* __PERF_DPROF_ESTIMATE_H */
