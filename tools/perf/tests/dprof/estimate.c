// SPDX-License-Identifier: GPL-2.0
/*
 * The estimates of dprof: share intervals, objects touched, evidence of a
 * change, against known values and samples of known truth.
 */
#include <linux/kernel.h>
#include <math.h>
#include <stdlib.h>
#include "tests/tests.h"
#include "util/dprof/estimate.h"
#include "util/dprof/profile.h"
#include "util/hashmap.h"
#include "dprof-tests.h"

static bool near(double v, double want, double tol)
{
	return fabs(v - want) <= tol;
}

static unsigned long xorshift(unsigned long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * @n samples of @nr objects, object i with weight w(i): @hot of them 50
 * times the others'; the objects' times seen in @seen.
 */
static void sample_objects(struct dprof_freq *f, unsigned char *seen, unsigned long nr,
			   unsigned long hot, unsigned long n, unsigned long *x)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		unsigned long r = xorshift(x), o;

		/* hot: half the samples */
		if (hot && (r & 1))
			o = (r >> 1) % hot;
		else
			o = hot + (r >> 1) % (nr - hot);
		dprof_freq__sample(f, seen[o]);
		if (seen[o] < DPROF_FREQ_SEEN_MAX)
			seen[o]++;
	}
}

static int check_objects(unsigned long nr, unsigned long hot, unsigned long n,
			 double tol, bool covers)
{
	unsigned char *seen = calloc(nr, 1);
	struct dprof_freq f = { 0 };
	struct dprof_estimate e;
	unsigned long x = 88172645463325252UL, i, s = 0;
	u64 fk[DPROF_FREQ_RARE] = { 0 };

	TEST_ASSERT_VAL("alloc", seen);
	sample_objects(&f, seen, nr, hot, n, &x);
	for (i = 0; i < nr; i++) {
		s += seen[i] > 0;
		if (seen[i] && seen[i] <= DPROF_FREQ_RARE)
			fk[seen[i] - 1] += 1;
	}
	free(seen);
	DPROF_TEST_EQ_U64("n", f.n, n);
	DPROF_TEST_EQ_U64("objects sampled", f.s_obs, s);
	for (i = 0; i < DPROF_FREQ_RARE; i++)
		DPROF_TEST_EQ_U64("objects seen i times", f.f[i], fk[i]);

	dprof_estimate__objects(&e, &f, 0, 0);
	pr_debug("%lu objects (%lu hot), %lu samples: sampled %" PRIu64
		 ", estimate %.0f [%.0f, %.0f]\n", nr, hot, n, e.sampled, e.est, e.lo, e.hi);
	TEST_ASSERT_VAL("sampled", e.sampled == s);
	TEST_ASSERT_VAL("estimate", near(e.est, nr, tol * nr));
	TEST_ASSERT_VAL("interval", e.lo <= e.est && e.est <= e.hi && e.lo >= s);
	if (covers)
		TEST_ASSERT_VAL("interval covers", e.lo <= nr && nr <= e.hi);

	/* the address set's bound: never above, never below the sampled */
	dprof_estimate__objects(&e, &f, 0, s + 1);
	TEST_ASSERT_VAL("bounded", e.est <= s + 1 && e.hi <= s + 1 && e.lo >= s);
	dprof_estimate__objects(&e, &f, 0, s - 1);
	TEST_ASSERT_VAL("a bound below the sampled is none", !e.bound);
	return TEST_OK;
}

/* Objects known by their address alone count how often they were sampled too. */
static int check_touch_base(void)
{
	struct dprof_class cls = { .kind = DPROF_KIND_TYPED };
	int i, err = 0;

	for (i = 0; i < 7 && !err; i++)
		err = dprof_class__touch_base(&cls, 0x1000, 64, i == 6 ? 1 : 0);
	for (i = 0; i < 3 && !err; i++)
		err = dprof_class__touch_base(&cls, 0x2000, 64, 0);
	if (!err)
		err = dprof_class__touch_base(&cls, 0x3000, 64, 0);
	hashmap__free(cls.objs);
	TEST_ASSERT_VAL("touch_base", !err);
	DPROF_TEST_EQ_U64("samples", cls.freq.n, 11);
	DPROF_TEST_EQ_U64("objects", cls.freq.s_obs, 3);
	DPROF_TEST_EQ_U64("objects", cls.nr_objects, 3);
	DPROF_TEST_EQ_U64("seen once", cls.freq.f[0], 1);
	DPROF_TEST_EQ_U64("seen twice", cls.freq.f[1], 0);
	DPROF_TEST_EQ_U64("seen three times", cls.freq.f[2], 1);
	DPROF_TEST_EQ_U64("seen four times", cls.freq.f[3], 0);
	/* the count saturates without touching the CPU bits */
	DPROF_TEST_EQ_U64("bounced", cls.nr_bounced, 1);
	return TEST_OK;
}

/* A Poisson count of mean @mean (Knuth's product of uniforms). */
static unsigned int poisson(double mean, unsigned long *x)
{
	double l = exp(-mean), p = 1;
	unsigned int k = 0;

	do {
		k++;
		p *= (double)(xorshift(x) >> 11) / (1UL << 53);
	} while (p > l);
	return k - 1;
}

/* One sample of an object or slot seen @*seen times before: into @f, @g. */
static void sample_one(struct dprof_freq *f, struct dprof_freq *g, unsigned char *seen)
{
	dprof_freq__sample(f, *seen);
	if (g)
		dprof_freq__sample(g, *seen);
	if (*seen < DPROF_FREQ_SEEN_MAX)
		(*seen)++;
}

/*
 * A slab cache under the slab map, one allocation in @interval chosen at
 * random: @old objects older than the recording, one in each of the first
 * slots of the @old_slots of old slabs, and @nr new ones.  A new object
 * not chosen goes to a random slot of the old slabs or of @new_slots
 * others, whose samples it adds to (a slot is one object for all its
 * lifetimes).  Every object is touched, and sampled a Poisson number of
 * times of mean @mean: none for some.  @*ratio: the estimate / the truth.
 */
static bool chosen_covers(unsigned long nr, unsigned long old, unsigned long old_slots,
			  unsigned long new_slots, u32 interval, double mean, bool counted,
			  unsigned long *x, double *ratio)
{
	unsigned long slots = old_slots + new_slots, i, k, truth = nr + old;
	unsigned char *seen = calloc(slots, 1), chosen_seen;
	struct dprof_freq all = { 0 }, chosen = { 0 }, oldf = { 0 };
	struct dprof_estimate e;

	*ratio = 0;
	if (!seen)
		return false;
	for (i = 0; i < old + nr; i++) {
		unsigned int n = poisson(mean, x);
		unsigned long slot = i;

		chosen_seen = 0;
		if (i >= old && !(xorshift(x) % interval)) {
			for (k = 0; k < n; k++)
				sample_one(&all, &chosen, &chosen_seen);
			continue;
		}
		if (i >= old)
			slot = old + xorshift(x) % (slots - old);
		for (k = 0; k < n; k++)
			sample_one(&all, slot < old_slots ? &oldf : NULL, &seen[slot]);
	}
	free(seen);
	dprof_estimate__chosen(&e, &all, &chosen, interval, &oldf, old_slots,
			       counted ? (s64)nr : -1);
	*ratio = e.est / truth;
	pr_debug("chosen: %lu objects, estimate %.0f [%.0f, %.0f], %" PRIu64 " chosen sampled\n",
		 truth, e.est, e.lo, e.hi, chosen.s_obs);
	return e.lo <= truth && truth <= e.hi && e.lo <= e.est && e.est <= e.hi;
}

/*
 * The estimate of objects under the slab map: its interval covers the
 * objects touched, whether they are mostly new (a churning cache) or
 * mostly older than the recording (a cache of long-lived objects), with
 * the allocations the kernel counted or without.
 */
static int check_chosen(void)
{
	static const struct {
		unsigned long nr, old, old_slots, new_slots;
		u32 interval;
		double mean, within;	/* the estimate within this of the truth */
	} c[] = {
		{ 64000, 0, 2000, 2000, 64, 3, 0.15 },		/* churning */
		{ 20000, 3000, 8000, 4000, 64, 1.5, 0.5 },	/* both */
		{ 500, 5000, 6000, 0, 64, 1.5, 0.5 },		/* long-lived */
		{ 3000, 0, 500, 500, 1, 2, 0.3 },		/* every one chosen */
		{ 0, 300, 400, 0, 64, 1.5, 0.3 },		/* none allocated */
	};
	unsigned long x = 2463534242UL;
	unsigned int i, t, counted, covered, near_ones;

	for (counted = 0; counted < 2; counted++) {
		for (i = 0; i < ARRAY_SIZE(c); i++) {
			covered = 0;
			near_ones = 0;
			for (t = 0; t < 40; t++) {
				double ratio = 0;

				covered += chosen_covers(c[i].nr, c[i].old, c[i].old_slots,
							 c[i].new_slots, c[i].interval,
							 c[i].mean, counted, &x, &ratio);
				near_ones += fabs(ratio - 1) <= c[i].within;
			}
			pr_debug("chosen case %u%s: covered %u of 40, near %u\n", i,
				 counted ? " (counted)" : "", covered, near_ones);
			/* 95% intervals, two of them summed: at least 36 of 40 */
			TEST_ASSERT_VAL("chosen: interval covers", covered >= 36);
			/* none allocated, none chosen: up to 3.7 intervals unseen */
			if (counted || c[i].nr)
				TEST_ASSERT_VAL("chosen: estimate near", near_ones >= 36);
		}
	}
	/* no chosen object sampled: up to -ln(0.025) ~ 3.7 intervals of them */
	{
		struct dprof_freq none = { 0 }, all = { .n = 10, .s_obs = 10 };
		struct dprof_freq old = { .n = 10, .s_obs = 10, .f = { 10 } };
		struct dprof_estimate e;

		dprof_estimate__chosen(&e, &all, &none, 64, &none, 0, -1);
		TEST_ASSERT_VAL("chosen none: lower end", e.lo == 10);
		TEST_ASSERT_VAL("chosen none: upper end", e.hi >= 3.6 * 64 && e.hi <= 3.8 * 64);
		/* ... unless the kernel counted its allocations: old slots alone */
		dprof_estimate__chosen(&e, &all, &none, 64, &old, 12, 0);
		TEST_ASSERT_VAL("chosen none, none allocated", e.lo == 10 && e.hi <= 12);
		dprof_estimate__chosen(&e, &all, &none, 64, &old, 12, 20);
		TEST_ASSERT_VAL("chosen none, 20 allocated", e.hi <= 32 && e.hi > 12);
	}
	return TEST_OK;
}

int test__dprof_estimate(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	struct dprof_freq f = { 0 };
	struct dprof_estimate e;
	double lo, hi;

	/* Wilson: the textbook values */
	dprof_wilson(50, 100, DPROF_Z95, &lo, &hi);
	TEST_ASSERT_VAL("wilson 50/100", near(lo, 0.4038, 0.0001) && near(hi, 0.5962, 0.0001));
	dprof_wilson(0, 10, DPROF_Z95, &lo, &hi);
	TEST_ASSERT_VAL("wilson 0/10", lo == 0 && near(hi, 0.2775, 0.0001));
	dprof_wilson(0, 0, DPROF_Z95, &lo, &hi);
	TEST_ASSERT_VAL("wilson of nothing", lo == 0 && hi == 1);

	/* two proportions: 60/100 against 40/100 is z = 2.83 */
	TEST_ASSERT_VAL("z", near(dprof_two_prop_z(40, 100, 60, 100), 2.8284, 0.001));
	TEST_ASSERT_VAL("z sign", near(dprof_two_prop_z(60, 100, 40, 100), -2.8284, 0.001));
	TEST_ASSERT_VAL("z same", dprof_two_prop_z(5, 10, 50, 100) == 0);
	TEST_ASSERT_VAL("z empty", dprof_two_prop_z(5, 0, 5, 10) == 0);
	TEST_ASSERT_VAL("z of 1 test", near(dprof_z_family(0.05, 1), 1.95996, 0.0001));
	TEST_ASSERT_VAL("z of 10 tests", near(dprof_z_family(0.05, 10), 2.8070, 0.001));

	/* nothing sampled, and every object seen often: counted as is */
	dprof_estimate__objects(&e, &f, 1, 0);
	TEST_ASSERT_VAL("static", e.exact && e.est == 1 && e.lo == 1 && e.hi == 1 && !e.few);
	/* few samples: said */
	dprof_freq__sample(&f, 0);
	dprof_estimate__objects(&e, &f, 0, 0);
	TEST_ASSERT_VAL("few", e.few && !e.exact && e.est >= 1);

	/* uniform: within 30% (10% with more samples), covering the truth */
	if (check_objects(100, 0, 5000, 0.01, true) ||
	    check_objects(10000, 0, 5000, 0.3, true) ||
	    check_objects(100000, 0, 5000, 0.3, true) ||
	    check_objects(100000, 0, 30000, 0.1, true))
		return TEST_FAIL;
	/* a few hot objects take half the samples: within 50%, covering it */
	if (check_objects(10000, 100, 6000, 0.5, true) ||
	    check_objects(100000, 1000, 30000, 0.5, true))
		return TEST_FAIL;

	/*
	 * iChao1's term near 0 is no certainty: the objects seen once to
	 * four times of a timer's samples of 100,000 objects (touch.c
	 * skewed, N/100 hot), whose term came out 285 and Chao1 4.6% low;
	 * the interval of Chao1's variance alone was [93,153, 98,180].
	 */
	f = (struct dprof_freq){ .n = 37457, .s_obs = 30915, .f = { 25216, 4934, 692, 68 } };
	dprof_estimate__objects(&e, &f, 0, 0);
	pr_debug("term near 0: estimate %.0f [%.0f, %.0f]\n", e.est, e.lo, e.hi);
	TEST_ASSERT_VAL("term near 0: estimate", near(e.est, 100000, 0.1 * 100000));
	TEST_ASSERT_VAL("term near 0: interval covers", e.lo <= 100000 && 100000 <= e.hi);

	if (check_touch_base() || check_chosen())
		return TEST_FAIL;

	/* a change of objects: evidence grows with the ratio */
	{
		struct dprof_estimate a = { .est = 100, .lo = 90, .hi = 110 };
		struct dprof_estimate b = { .est = 1000, .lo = 900, .hi = 1100 };
		struct dprof_estimate c = { .est = 1, .lo = 1, .hi = 1, .exact = true };
		struct dprof_estimate one = { .est = 1, .lo = 1, .hi = 1.0001 };
		struct dprof_estimate two = { .est = 2, .lo = 2, .hi = 2.0001 };

		TEST_ASSERT_VAL("log ratio z", dprof_log_ratio_z(&a, &b) > 10);
		TEST_ASSERT_VAL("log ratio z down", dprof_log_ratio_z(&b, &a) < -10);
		TEST_ASSERT_VAL("log ratio same", near(dprof_log_ratio_z(&a, &a), 0, 0.000001));
		TEST_ASSERT_VAL("counted: no evidence", dprof_log_ratio_z(&c, &c) == 0);
		/* seen in full, one object against two: a run's own variation */
		TEST_ASSERT_VAL("1 against 2", fabs(dprof_log_ratio_z(&one, &two)) < 1);
	}
	return TEST_OK;
}
