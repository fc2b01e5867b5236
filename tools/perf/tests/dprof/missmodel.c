// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the miss classifier scored against a machine model that
 * knows why every miss happened (model.c).
 *
 * Planted scenarios (true sharing, false sharing, conflict, capacity,
 * mixed) run with a seed, CPU count, cache size and sampling period; every
 * sampled access goes to the classifier through the same dprof_sink
 * callbacks the report uses, with the model's L1 hit or miss as data_src
 * would carry it (measured) or without it (predicted).  Cold misses are
 * not scored: the paper assumes there are none.
 *
 * In the capacity scenario the samples also go to the working-set view,
 * whose estimate of the bytes the planted type keeps in the caches is
 * checked against the model's time-averaged truth.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include "debug.h"
#include "tests/tests.h"
#include "util/dprof/addrset.h"
#include "util/dprof/cachesim.h"
#include "util/dprof/classify.h"
#include "util/dprof/profile.h"
#include "util/dprof/workingset.h"
#include "dprof-tests.h"
#include "model.h"

/* The classifier, fed by the model, and what it said per type. */
struct mm_ctx {
	bool			measured;	/* samples carry hit/miss */
	struct dprof_classify	cl;
	struct dprof_workingset	ws;		/* --view=workingset */
	bool			has_ws;
	struct dprof_test_verdict v;		/* of the last sample */
	struct dprof_class	cls[DPROF_MODEL_MAX_TYPES];
	u64			got[DPROF_MODEL_MAX_TYPES][DPROF_MISS__MAX];
	u64			nr_scored;
	u64			nr_agree;
	u64			nr_cold;
	u64			nr_true_miss;	/* sampled, missed in the model */
	u64			nr_both;	/* ... and predicted */
	/* measured misses: true cause (cold too) against the class given */
	u64			confusion[DPROF_MODEL_COLD + 1][DPROF_MISS__MAX];
};

static int mm_alloc(struct dprof_model *m, struct dprof_model_type *t,
		    u64 base, u32 cpu)
{
	struct mm_ctx *x = m->ctx;
	struct dprof_class *cls = &x->cls[t->idx];
	struct dprof_obj obj = { .base = base, .size = t->size,
				 .alloc_time = m->time, .priv = cls,
				 .cpu = cpu };

	cls->kind = DPROF_KIND_SLAB;
	cls->name = (char *)t->name;
	cls->obj_size = t->size;
	return x->cl.sink.alloc ? x->cl.sink.alloc(&x->cl.sink, &obj, m->time, cpu) : 0;
}

static int mm_free(struct dprof_model *m, struct dprof_model_type *t,
		   u64 base, u32 cpu)
{
	struct mm_ctx *x = m->ctx;
	struct dprof_obj obj = { .base = base, .size = t->size,
				 .priv = &x->cls[t->idx], .cpu = cpu };
	int err = 0;

	if (x->cl.sink.free)
		err = x->cl.sink.free(&x->cl.sink, &obj, m->time, cpu);
	if (!err && x->has_ws)
		err = x->ws.sink.free(&x->ws.sink, &obj, m->time, cpu);
	return err;
}

/* A sample goes to the classifier as data_src would carry it, or without. */
static int mm_sample(struct dprof_model *m, const struct dprof_model_sample *s)
{
	struct mm_ctx *x = m->ctx;
	struct dprof_access acc = {
		.ip = s->ip, .addr = s->addr, .time = s->time, .cpu = s->cpu,
		.is_write = s->write, .level_known = x->measured,
		.miss = !s->hit,
	};
	int err;

	err = dprof_test__classify(&x->cl, &x->cls[s->type->idx], &acc, s->off,
				   &x->v);
	if (!err && x->has_ws)
		err = x->ws.sink.access(&x->ws.sink, &acc, &x->cls[s->type->idx],
					s->off);
	if (err)
		return err;
	if (x->v.miss)
		x->got[s->type->idx][x->v.mc]++;
	if (s->truth >= 0 && s->truth != DPROF_MODEL_COLD) {
		x->nr_true_miss++;
		x->nr_both += x->v.miss;
	}
	if (!x->measured || s->truth < 0)
		return 0;
	x->confusion[s->truth][x->v.mc]++;
	if (s->truth == DPROF_MODEL_COLD) {
		x->nr_cold++;
		return 0;
	}
	x->nr_scored++;
	x->nr_agree += (int)x->v.mc == s->truth;
	return 0;
}

static const struct dprof_model_ops mm_ops = {
	.alloc	= mm_alloc,
	.free	= mm_free,
	.sample	= mm_sample,
};

/*
 * The working-set view replays the sampled accesses through one cache;
 * give it what the CPUs' L1s hold together: as many sets, nr_cpus times
 * the ways (the model's truth counts the same, see model.c).
 */
static int mm_ws_init(struct mm_ctx *x, const struct dprof_model_params *p)
{
	struct dprof_cache_geom g;

	if (dprof_cache_geom__set(&g, 1, p->cache_size * p->nr_cpus,
				  4 * p->nr_cpus, 64) ||
	    dprof_workingset__init(&x->ws, &g))
		return -ENOMEM;
	x->has_ws = true;
	return 0;
}

/*
 * The working-set view's average resident bytes of each type, from the
 * sampled accesses alone, against the time average of the bytes of that
 * type the model's L1s really held.  The planted capacity type fills the
 * caches.  Issue 4 asks for 20%; the estimate is within 1% on every
 * variant, and averaging in the view's cold start costs 15-17% at long
 * periods, so fail above 10% to catch that.
 */
static int mm_ws_check(struct dprof_model *m, struct mm_ctx *x,
		       const char *what)
{
	double line = x->ws.cache.geom.line;
	int i, ret = TEST_OK;

	dprof_workingset__finish(&x->ws);
	for (i = 0; i < m->nr_types; i++) {
		struct dprof_model_type *t = &m->types[i];
		struct dprof_ws_class *wc = dprof_workingset__class(&x->ws, &x->cls[i]);
		double truth = dprof_model_type__resident(m, t);
		double est = wc && x->ws.weight ? wc->lines_sum / x->ws.weight * line : 0;
		double off = truth ? 100.0 * (est - truth) / truth : 0;
		bool check = t->planted == DPROF_MISS_CAPACITY;

		pr_debug("dprof model:   working set %-11s resident %8.0f bytes, estimated %8.0f (%+.1f%%) of %llu cache bytes, %llu snapshots from access %llu%s\n",
			 t->name, truth, est, off,
			 (unsigned long long)x->ws.cache.geom.size,
			 (unsigned long long)x->ws.nr_snaps,
			 (unsigned long long)x->ws.warm_at,
			 check ? " (checked: within 10%)" : "");
		if (check && (!truth || off > 10 || off < -10)) {
			pr_debug("dprof model: %s: working set of %s off by %+.1f%%\n",
				 what, t->name, off);
			ret = TEST_FAIL;
		}
	}
	return ret;
}

static int mm_run(enum dprof_model_scenario sc,
		  const struct dprof_model_params *p, bool measured,
		  double *agreement)
{
	struct dprof_model *m = zalloc(sizeof(*m));
	struct mm_ctx *x = zalloc(sizeof(*x));
	const char *what = dprof_model_scenario__str(sc);
	struct dprof_cache_geom geom;
	int i, ret = TEST_FAIL;

	*agreement = 0;
	if (!m || !x)
		goto out_free;
	x->measured = measured;
	/* the classifier sees the same geometry as the private caches */
	if (dprof_cache_geom__set(&geom, 1, p->cache_size, 4, 64) ||
	    dprof_classify__init(&x->cl, &geom))
		goto out_free;
	if (sc == DPROF_MODEL_CAPACITY && mm_ws_init(x, p))
		goto out;
	if (dprof_model__run(m, sc, p, &mm_ops, x))
		goto out;

	*agreement = x->nr_scored ? 100.0 * x->nr_agree / x->nr_scored : 0;
	if (measured)
		pr_debug("dprof model: %-13s seed %u cpus %u cache %lluK period %u measured: %llu samples, agreement %.1f%% of %llu scored misses (%llu cold not scored)\n",
			 what, p->seed, p->nr_cpus,
			 (unsigned long long)p->cache_size >> 10, p->period,
			 (unsigned long long)m->nr_samples, *agreement,
			 (unsigned long long)x->nr_scored,
			 (unsigned long long)x->nr_cold);
	else
		pr_debug("dprof model: %-13s seed %u cpus %u cache %lluK period %u predicted: %llu samples, %llu predicted misses; %.1f%% of the %llu sampled true misses predicted\n",
			 what, p->seed, p->nr_cpus,
			 (unsigned long long)p->cache_size >> 10, p->period,
			 (unsigned long long)m->nr_samples,
			 (unsigned long long)x->cl.nr_predicted,
			 x->nr_true_miss ? 100.0 * x->nr_both / x->nr_true_miss : 0,
			 (unsigned long long)x->nr_true_miss);
	for (i = 0; measured && i <= DPROF_MODEL_COLD; i++) {
		const u64 *c = x->confusion[i];

		if (!c[0] && !c[1] && !c[2] && !c[3] && !c[4])
			continue;
		pr_debug("dprof model:   truth %-13s classified: true %llu false %llu conflict %llu capacity %llu unknown %llu\n",
			 i == DPROF_MODEL_COLD ? "cold" : dprof_miss_class__str(i),
			 (unsigned long long)c[0], (unsigned long long)c[1],
			 (unsigned long long)c[2], (unsigned long long)c[3],
			 (unsigned long long)c[4]);
	}
	ret = TEST_OK;
	for (i = 0; i < m->nr_types; i++) {
		struct dprof_model_type *t = &m->types[i];
		const u64 *got = x->got[i];
		int k, top = DPROF_MISS_UNKNOWN;
		u64 misses = 0;

		for (k = 0; k < DPROF_MISS__MAX; k++) {
			misses += got[k];
			if (got[k] > got[top])
				top = k;
		}
		pr_debug("dprof model:   %-11s planted %-13s top %-13s of %llu misses: true %llu false %llu conflict %llu capacity %llu unknown %llu | truth: true %llu false %llu conflict %llu capacity %llu cold %llu\n",
			 t->name,
			 t->planted >= 0 ? dprof_miss_class__str(t->planted) : "-",
			 misses ? dprof_miss_class__str(top) : "-",
			 (unsigned long long)misses,
			 (unsigned long long)got[0], (unsigned long long)got[1],
			 (unsigned long long)got[2], (unsigned long long)got[3],
			 (unsigned long long)got[4],
			 (unsigned long long)t->truth[0], (unsigned long long)t->truth[1],
			 (unsigned long long)t->truth[2], (unsigned long long)t->truth[3],
			 (unsigned long long)t->truth[DPROF_MODEL_COLD]);
		if (t->planted >= 0 && (!misses || top != t->planted)) {
			pr_debug("dprof model: %s: %s is not classified as %s\n",
				 what, t->name, dprof_miss_class__str(t->planted));
			ret = TEST_FAIL;
		}
	}
	if (x->has_ws && mm_ws_check(m, x, what) != TEST_OK)
		ret = TEST_FAIL;
	/* the header's peak: what the capacity test saw exceed the cache */
	if (x->cl.max_live_lines < x->cl.nr_live_lines ||
	    (sc == DPROF_MODEL_CAPACITY &&
	     x->cl.max_live_lines * geom.line <= geom.size)) {
		pr_debug("dprof model: %s: peak of %llu live lines, %llu at the end\n", what,
			 (unsigned long long)x->cl.max_live_lines,
			 (unsigned long long)x->cl.nr_live_lines);
		ret = TEST_FAIL;
	}
	if (measured && *agreement < 90.0) {
		pr_debug("dprof model: %s: agreement %.1f%% < 90%%\n",
			 what, *agreement);
		ret = TEST_FAIL;
	}
out:
	dprof_model__exit(m);
	dprof_classify__exit(&x->cl);
	if (x->has_ws)
		dprof_workingset__exit(&x->ws);
out_free:
	free(x);
	free(m);
	return ret;
}

int test__dprof_missmodel(struct test_suite *test __maybe_unused,
			  int subtest __maybe_unused)
{
	static const struct dprof_model_params variants[] = {
		{ .seed = 1, .nr_cpus = 2, .cache_size = 16384, .period = 1 },
		{ .seed = 2, .nr_cpus = 4, .cache_size = 16384, .period = 7 },
		{ .seed = 3, .nr_cpus = 8, .cache_size = 32768, .period = 31 },
		{ .seed = 4, .nr_cpus = 3, .cache_size = 8192,  .period = 101 },
	};
	/* capacity again: more seeds and shapes, longer periods */
	static const struct dprof_model_params ws_variants[] = {
		{ .seed = 5, .nr_cpus = 6, .cache_size = 8192,  .period = 13 },
		{ .seed = 6, .nr_cpus = 2, .cache_size = 32768, .period = 127 },
		{ .seed = 7, .nr_cpus = 8, .cache_size = 32768, .period = 61 },
	};
	double sum = 0, agreement, worst = 100;
	int ret = TEST_OK, runs = 0;
	size_t v;
	int sc;

	for (v = 0; v < ARRAY_SIZE(variants); v++) {
		for (sc = 0; sc < DPROF_MODEL__MAX; sc++) {
			struct dprof_model_params p = variants[v];

			p.steps = 60000 + 20000 * p.nr_cpus;
			/* as many samples whatever the period */
			p.steps *= max(1U, p.period / 8);
			if (mm_run(sc, &p, /*measured=*/true, &agreement) != TEST_OK)
				ret = TEST_FAIL;
			sum += agreement;
			worst = min(worst, agreement);
			runs++;
			/* software sampler: the classifier predicts the misses */
			p.seed += 100;
			if (mm_run(sc, &p, /*measured=*/false, &agreement) != TEST_OK)
				ret = TEST_FAIL;
		}
	}
	for (v = 0; v < ARRAY_SIZE(ws_variants); v++) {
		struct dprof_model_params p = ws_variants[v];

		p.steps = (60000 + 20000 * p.nr_cpus) * max(1U, p.period / 8);
		if (mm_run(DPROF_MODEL_CAPACITY, &p, /*measured=*/true,
			   &agreement) != TEST_OK)
			ret = TEST_FAIL;
		sum += agreement;
		worst = min(worst, agreement);
		runs++;
	}
	pr_debug("dprof model: measured misses: mean agreement %.1f%%, worst %.1f%% over %d runs\n",
		 sum / runs, worst, runs);
	return ret;
}
