// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: estimates from samples, with their intervals.
 *
 * The working set of a type is the number of distinct objects the program
 * touched, of which the samples see a few: with a few hundred samples of
 * a type, the objects sampled count the samples, not the objects.  How
 * often each sampled object was seen tells how many were missed: many
 * objects seen once and few seen twice say most objects were never
 * sampled.  That is the species-richness problem of ecology, and Chao1
 * (Chao 1984) its standard lower-bound estimator; the bias-corrected form
 * (Chao 2005) stays finite when no object was seen twice, and its variance
 * gives a log-normal interval that never goes below the objects sampled
 * (Chao 1987).  Chao1 is exact in the limit for objects sampled equally
 * often, and a lower bound when some are sampled more than others;
 * objects seen five times or more (the hot ones) do not move it, so a few
 * hot objects do not hide many cold ones.  The improved Chao1 (iChao1)
 * adds what objects seen three and four times say of the rest.
 */
#include <float.h>
#include <math.h>

#include "estimate.h"

/**
 * dprof_freq__sample - count a sample of an object
 * @f: the frequencies of the object's type
 * @seen: how often the samples hit the object before, saturated at
 *        DPROF_FREQ_SEEN_MAX
 */
void dprof_freq__sample(struct dprof_freq *f, unsigned int seen)
{
	f->n++;
	if (!seen)
		f->s_obs++;
	else if (seen <= DPROF_FREQ_RARE)
		f->f[seen - 1]--;
	if (seen < DPROF_FREQ_RARE)
		f->f[seen]++;
}

void dprof_freq__add(struct dprof_freq *dst, const struct dprof_freq *src)
{
	int i;

	dst->n += src->n;
	dst->s_obs += src->s_obs;
	for (i = 0; i < DPROF_FREQ_RARE; i++)
		dst->f[i] += src->f[i];
}

/* Chao1, bias-corrected, and its variance (Chao 2005, EstimateS 9). */
static double chao1(const struct dprof_freq *f, double *var)
{
	double n = f->n, s = f->s_obs, f1 = f->f[0], f2 = f->f[1];
	double k = n > 1 ? (n - 1) / n : 0, est;

	if (f1 == 0 || !f->n) {
		/* no singletons: every object was seen, up to this term */
		double p = s ? exp(-n / s) : 0;

		*var = s * p * (1 - p);
		return s;
	}
	est = s + k * f1 * (f1 - 1) / (2 * (f2 + 1));
	if (f2 > 0) {
		*var = k * f1 * (f1 - 1) / (2 * (f2 + 1)) +
		       k * k * f1 * pow(2 * f1 - 1, 2) / (4 * pow(f2 + 1, 2)) +
		       k * k * f1 * f1 * f2 * pow(f1 - 1, 2) / (4 * pow(f2 + 1, 4));
	} else {
		*var = k * f1 * (f1 - 1) / 2 +
		       k * k * f1 * pow(2 * f1 - 1, 2) / 4 -
		       k * k * pow(f1, 4) / (4 * est);
	}
	if (*var < 0)
		*var = 0;
	return est;
}

/*
 * The improved Chao1 (Chiu, Wang, Walther and Chao 2014): what objects
 * seen three and four times say of those Chao1 misses when some objects
 * are sampled more often than others.  A timer samples an object by the
 * time spent on it, and a cache miss takes longer than a hit: objects
 * touched equally often are not sampled equally often, and Chao1 alone,
 * a lower bound, comes out low by 10-20% on such programs.
 */
static double ichao1_term(const struct dprof_freq *f, double *var)
{
	double n = f->n, f1 = f->f[0], f2 = f->f[1], f3 = f->f[2];
	double f4 = f->f[3] ?: 1, k, a, b, d;

	*var = 0;
	if (n < 4 || !f3)
		return 0;
	k = (n - 3) / (4 * n);
	a = k * f3 / f4;
	b = (n - 3) / (2 * (n - 1));
	d = f1 - b * f2 * f3 / f4;
	/*
	 * The variance of the term, each f_k a Poisson count (delta
	 * method): f3 and f4 are few, so d, about 0 when the objects are
	 * sampled alike, varies by thousands, and the term is 0 or near it
	 * in some runs and thousands in others.  But as f3/f4 varies the
	 * term stays between 0 and its value at f3/f4 = f1/(2*b*f2), a
	 * quarter of what Chao1 adds: half that is its standard deviation
	 * at most.  Without f4 the term has no variance to speak of: none
	 * is given.
	 */
	if (f->f[3]) {
		*var = a * a * (f1 + pow(b * f3 / f4, 2) * f2 + pow(b * f2 / f4, 2) * f3 +
				pow(b * f2 * f3 / (f4 * f4), 2) * f4);
		if (f2)
			*var = fmin(*var, pow(k * f1 * f1 / (8 * b * f2), 2));
	}
	return a * fmax(d, 0);
}

/**
 * dprof_estimate__objects - distinct objects touched, with a 95% interval
 * @e: the estimate
 * @f: the sampled objects by how often they were seen
 * @exact: objects counted without sampling (a static: one)
 * @bound: the objects the address set knew of (allocated, or in the slabs
 *         of the cache when recording began), 0 when it knows none
 *
 * The interval is Chao's log-normal one, [S_obs + T/K, S_obs + T*K] with
 * T the objects estimated unseen and K = exp(z * sqrt(ln(1 + var/T^2))):
 * it never goes below the objects sampled.  Estimate and interval are
 * then bounded by @bound.
 */
void dprof_estimate__objects(struct dprof_estimate *e, const struct dprof_freq *f,
			     u64 exact, u64 bound)
{
	double var, c_var, c = ichao1_term(f, &c_var), est = chao1(f, &var) + c;
	double s = f->s_obs, t = est - s;

	/*
	 * How far off Chao1 is, as the correction says, is uncertain as
	 * much; and at least as much as the correction varies from run to
	 * run: a term of 0 or near it says nothing of how far off Chao1 is.
	 * (100,000 objects, a timer's 37,000 samples: the term 285, Chao1
	 * 4.6% low, the interval of its variance alone +-2.6%.)
	 */
	var += fmax(c * c, c_var);
	e->var = var;
	e->sampled = f->s_obs + exact;
	e->exact = !f->n;
	e->few = f->n && f->n < DPROF_FEW_SAMPLES;
	if (t > 0) {
		double k = exp(DPROF_Z95 * sqrt(log(1 + var / (t * t))));

		e->lo = s + t / k;
		e->hi = s + t * k;
	} else {
		e->lo = s;
		e->hi = s + DPROF_Z95 * sqrt(var);
	}
	e->est = est;
	/* an address set that saw fewer objects than were sampled knows nothing */
	e->bound = bound >= e->sampled ? bound : 0;
	if (e->bound) {
		double b = e->bound - exact;

		e->est = fmin(e->est, b);
		e->lo = fmin(e->lo, b);
		e->hi = fmin(e->hi, b);
	}
	e->est += exact;
	e->lo += exact;
	e->hi += exact;
}

/*
 * The 95% bounds of a Poisson mean from @c events: half the chi-square
 * quantiles, by Wilson and Hilferty's cube root (within 1% from 10
 * events; at 1 the lower end is half the exact one, which is 0.025).
 */
static double dprof_poisson_lo(double c)
{
	double t;

	if (c <= 0)
		return 0;
	t = 1 - 1 / (9 * c) - DPROF_Z95 / (3 * sqrt(c));
	return t > 0 ? c * t * t * t : 0;
}

static double dprof_poisson_hi(double c)
{
	double t;

	c = fmax(c, 0) + 1;
	t = 1 + DPROF_Z95 / (3 * sqrt(c)) - 1 / (9 * c);
	return c * t * t * t;
}

/**
 * dprof_estimate__chosen - objects touched, when the kernel traced one
 * allocation in @interval and the others are slots of the slab map
 * @e: the estimate
 * @all: the objects sampled, slots and chosen objects, by how often
 * @chosen: ... the chosen objects
 * @interval: one allocation in this many was chosen, at random
 * @old: ... the slots of slabs older than the recording
 * @old_slots: those slabs' slots
 * @allocs: the slab allocations while recording, or negative
 *
 * Objects allocated while recording were chosen one in @interval: those
 * touched are @interval times the chosen ones touched (Horvitz-Thompson),
 * whose count Chao1 estimates.  Chosen ones touched given the objects
 * touched are binomial, and a Poisson interval is wider: the ends of
 * Chao1's interval go through it.  Objects older than the recording were
 * never chosen: each is in a slot of a slab older than it, one slot per
 * object, so those slots touched bound them.  The estimate adds both, and
 * counts twice what new objects those slots held: it stays in
 * [objects sampled or the new ones' lower end, the sum of the upper ends].
 * @allocs, the allocations the kernel counted while recording (negative:
 * not counted), bounds the new objects: with none chosen, up to 3.7
 * intervals of them could have gone unseen.  A count below the chosen
 * objects sampled is not the row's (its caches counted in other rows).
 */
void dprof_estimate__chosen(struct dprof_estimate *e, const struct dprof_freq *all,
			    const struct dprof_freq *chosen, u32 interval,
			    const struct dprof_freq *old, u64 old_slots, s64 allocs)
{
	struct dprof_estimate c, o;
	double se, new_lo, new_hi, new_est;

	dprof_estimate__objects(&c, chosen, 0, 0);
	dprof_estimate__objects(&o, old, 0, old_slots);
	e->sampled = all->s_obs;
	e->exact = false;
	e->few = all->n && all->n < DPROF_FEW_SAMPLES;
	e->bound = 0;
	new_lo = interval * dprof_poisson_lo(c.lo);
	new_hi = interval * dprof_poisson_hi(c.hi);
	new_est = interval * c.est;
	if (allocs >= 0 && (u64)allocs >= chosen->s_obs) {
		new_lo = fmin(new_lo, allocs);
		new_hi = fmin(new_hi, allocs);
		new_est = fmin(new_est, allocs);
	}
	e->lo = fmax(e->sampled, new_lo);
	e->hi = fmax(e->lo, new_hi + o.hi);
	e->est = fmin(fmax(new_est + o.est, e->lo), e->hi);
	se = (e->hi - e->lo) / (2 * DPROF_Z95);
	e->var = se * se;
}

/*
 * The variance of ln(est), from the interval (so that a bound narrows it):
 * half its width on the log scale is z standard errors.
 */
double dprof_estimate__log_var(const struct dprof_estimate *e)
{
	double se;

	if (e->lo <= 0 || e->hi <= e->lo)
		return 0;
	se = (log(e->hi) - log(e->lo)) / (2 * DPROF_Z95);
	return se * se;
}

/**
 * dprof_wilson - Wilson score interval of a binomial share
 * @k: samples of the row
 * @n: samples in all
 * @z: its z (DPROF_Z95)
 * @lo: lower end, a fraction
 * @hi: upper end
 *
 * Unlike the normal approximation it stays inside [0, 1] and is not empty
 * for a row of 0 or n samples.
 */
void dprof_wilson(u64 k, u64 n, double z, double *lo, double *hi)
{
	double p, d, c, h;

	if (!n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / n;
	d = 1 + z * z / n;
	c = (p + z * z / (2.0 * n)) / d;
	h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

/**
 * dprof_two_prop_z - how sure a change of share is: the pooled two-proportion z
 * @ka: samples of the row in A
 * @na: samples of A
 * @kb: ... in B
 * @nb: ... of B
 *
 * Return: (kb/nb - ka/na) over its standard error when both shares are
 * the same; 0 when either recording is empty.
 */
double dprof_two_prop_z(u64 ka, u64 na, u64 kb, u64 nb)
{
	double p, se;

	if (!na || !nb)
		return 0;
	p = (double)(ka + kb) / (na + nb);
	se = sqrt(p * (1 - p) * (1.0 / na + 1.0 / nb));
	if (se == 0)
		return 0;
	return ((double)kb / nb - (double)ka / na) / se;
}

/**
 * dprof_log_ratio_z - how sure a change of the objects touched is
 * @a: the estimate in A
 * @b: ... in B
 *
 * A count of objects seen in full still varies from run to run of the
 * same program (which objects a run touches, where a stack slot falls):
 * as a Poisson count at least, the variance of ln(est) being 1/est, added
 * to the estimate's own.  One object against two is then no evidence,
 * 100 against 1,000 strong.
 *
 * Return: ln(b/a) over its standard error; 0 when either is not an
 * estimate (no objects, or counted without sampling on both sides).
 */
double dprof_log_ratio_z(const struct dprof_estimate *a, const struct dprof_estimate *b)
{
	double v = dprof_estimate__log_var(a) + dprof_estimate__log_var(b);

	if (a->est <= 0 || b->est <= 0 || v <= 0)
		return 0;
	v += 1 / a->est + 1 / b->est;
	return (log(b->est) - log(a->est)) / sqrt(v);
}

/**
 * dprof_z_family - the |z| a change must reach among @m
 * @alpha: the chance that any of the @m is flagged when none changed
 * @m: the changes tested
 *
 * Bonferroni: each two-sided test at alpha / m.
 */
double dprof_z_family(double alpha, size_t m)
{
	double lo = 0, hi = 40, target = alpha / (m ?: 1);
	int i;

	for (i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / M_SQRT2) > target)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/**
 * dprof_slices__fold - merge pairs of slices until the width is @gen's
 * @s: the slices of a class, a row or a recording
 * @gen: the width to reach: DPROF_SLICE_NS << @gen
 */
void dprof_slices__fold(struct dprof_slices *s, u32 gen)
{
	int i;

	for (; s->gen < gen; s->gen++) {
		for (i = 0; i < DPROF_SLICES / 2; i++) {
			s->n[i] = s->n[2 * i] + s->n[2 * i + 1];
			s->misses[i] = s->misses[2 * i] + s->misses[2 * i + 1];
		}
		for (; i < DPROF_SLICES; i++) {
			s->n[i] = 0;
			s->misses[i] = 0;
		}
	}
}

/**
 * dprof_slices__count - count a sample in its slice
 * @s: the slices
 * @slice: the sample's slice at width @gen
 * @gen: the recording's width when the sample was replayed
 * @miss: the sample missed
 */
void dprof_slices__count(struct dprof_slices *s, u32 slice, u32 gen, bool miss)
{
	dprof_slices__fold(s, gen);
	if (gen < s->gen)
		slice >>= s->gen - gen;
	if (slice >= DPROF_SLICES)
		slice = DPROF_SLICES - 1;
	s->n[slice]++;
	s->misses[slice] += miss;
}

void dprof_slices__add(struct dprof_slices *dst, const struct dprof_slices *src)
{
	struct dprof_slices s = *src;
	int i;

	dprof_slices__fold(&s, dst->gen);
	dprof_slices__fold(dst, s.gen);
	for (i = 0; i < DPROF_SLICES; i++) {
		dst->n[i] += s.n[i];
		dst->misses[i] += s.misses[i];
	}
}

/* The slices up to the last with samples. */
u32 dprof_slices__used(const struct dprof_slices *s)
{
	u32 i;

	for (i = DPROF_SLICES; i > 0; i--) {
		if (s->n[i - 1])
			return i;
	}
	return 0;
}

/**
 * dprof_share_var - a share's variance from its variation over time
 * @row: the row's samples by slice
 * @all: the recording's
 * @misses: the share of the misses, else of the samples
 * @nr_slices: set to the slices with samples (of @all) it was estimated from
 *
 * Batch means: the recording's slices are merged until at most
 * DPROF_SLICES_USED of them are left; each is a batch, and the share
 * p = sum(x) / sum(n) of the row's x and the recording's n samples per
 * batch varies over them as the program's phases and the machine's load
 * move it.  Its variance is the ratio estimator's,
 *
 *	K / (K - 1) * sum((x_k - p n_k)^2) / sum(n_k)^2
 *
 * over the K batches with samples: with equal n_k, the variance of the
 * batches' shares over K, and a short last batch counts as much as it
 * weighs.  Batches this long are nearly independent where the variation
 * is slower than a batch; the caller keeps the binomial variance as a
 * floor, and uses K - 1 degrees of freedom.
 *
 * Return: the variance of the share (a fraction); 0 for fewer than two
 * batches.
 */
double dprof_share_var(const struct dprof_slices *row, const struct dprof_slices *all,
		       bool misses, u32 *nr_slices)
{
	struct dprof_slices r = *row, a = *all;
	const u32 *x = misses ? r.misses : r.n, *n = misses ? a.misses : a.n;
	double sx = 0, sn = 0, ss = 0, p;
	u32 gen = a.gen, k = 0;
	int i;

	while (dprof_slices__used(&a) > DPROF_SLICES_USED)
		dprof_slices__fold(&a, ++gen);
	dprof_slices__fold(&r, a.gen);
	dprof_slices__fold(&a, r.gen);
	for (i = 0; i < DPROF_SLICES; i++) {
		sx += x[i];
		sn += n[i];
		k += n[i] != 0;
	}
	*nr_slices = k;
	if (k < 2 || !sn)
		return 0;
	p = sx / sn;
	for (i = 0; i < DPROF_SLICES; i++)
		ss += (x[i] - p * n[i]) * (x[i] - p * n[i]);
	return (double)k / (k - 1) * ss / (sn * sn);
}

/* The incomplete beta function's continued fraction (Lentz's method). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = DBL_MIN;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (m = 1; m <= 300; m++) {
		double aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), del;

		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		h *= d * (fabs(c) < tiny ? tiny : c);
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		del = d * (fabs(c) < tiny ? tiny : c);
		h *= del;
		if (fabs(del - 1) < 4 * DBL_EPSILON)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * beta_cf(a, b, x) / a;
	return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

/**
 * dprof_t_family - the |t| a change must reach among @m, on @df degrees of freedom
 * @alpha: the chance that any of the @m is flagged when none changed
 * @m: the changes tested
 * @df: Student's t degrees of freedom; 0: the normal's z
 *
 * Bonferroni: each two-sided test at alpha / m; P(|T| >= t) is
 * I_{df / (df + t^2)}(df / 2, 1 / 2).
 */
double dprof_t_family(double alpha, size_t m, unsigned int df)
{
	double lo = 0, hi = 1000, target = alpha / (m ?: 1);
	int i;

	if (!df)
		return dprof_z_family(alpha, m);
	for (i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (beta_inc(df / 2.0, 0.5, df / (df + mid * mid)) > target)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Student's t of a two-sided 95% interval on @df degrees of freedom */
static double dprof_t95(unsigned int df)
{
	/* a report asks for a few df, once per row: the bisection, once per df */
	static double t[DPROF_SLICES];

	if (df >= DPROF_SLICES)
		return dprof_t_family(1 - 0.95, 1, df);
	if (!t[df])
		t[df] = dprof_t_family(1 - 0.95, 1, df);
	return t[df];
}

/**
 * dprof_share_interval - a share's 95% interval, from its variation over time
 * @k: samples of the row (of its misses with @misses)
 * @n: samples in all
 * @row: the row's samples by time slice, NULL: not counted
 * @all: the recording's
 * @misses: the share of the misses
 * @lo: lower end, a fraction
 * @hi: upper end
 *
 * The Wilson interval, widened to the share +- Student's t on K - 1
 * degrees of freedom times the standard error of its batch means (see
 * dprof_share_var()) where that is wider and there are DPROF_SLICES_MIN
 * slices with samples or more.
 */
void dprof_share_interval(u64 k, u64 n, const struct dprof_slices *row,
			  const struct dprof_slices *all, bool misses,
			  double *lo, double *hi)
{
	double p = n ? (double)k / n : 0, var, h;
	u32 nr = 0;

	dprof_wilson(k, n, DPROF_Z95, lo, hi);
	if (!row || !all)
		return;
	var = dprof_share_var(row, all, misses, &nr);
	if (nr < DPROF_SLICES_MIN)
		return;
	h = dprof_t95(nr - 1) * sqrt(var);
	*lo = fmax(0, fmin(*lo, p - h));
	*hi = fmin(1, fmax(*hi, p + h));
}
