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
double dprof_estimate__log_var(const struct dprof_estimate *e);

void dprof_wilson(u64 k, u64 n, double z, double *lo, double *hi);
double dprof_two_prop_z(u64 ka, u64 na, u64 kb, u64 nb);
double dprof_log_ratio_z(const struct dprof_estimate *a, const struct dprof_estimate *b);
double dprof_z_family(double alpha, size_t m);

#endif /* __PERF_DPROF_ESTIMATE_H */
