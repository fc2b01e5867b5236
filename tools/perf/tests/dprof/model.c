// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: a small multi-CPU machine that knows why every miss
 * happened, shared by the in-memory classifier test (missmodel.c) and the
 * workload that writes its samples as a perf.data (dprof_cachemodel).
 *
 * Each CPU has a private set-associative LRU L1 and L2; a write
 * invalidates the line in every other CPU's caches.  A fully associative
 * LRU shadow of each L1, of the same capacity, gives the textbook three-C
 * ground truth of an L1 miss:
 *  - a miss on a line another CPU's write invalidated is sharing: true
 *    sharing when the bytes written since overlap the bytes accessed,
 *    false sharing otherwise;
 *  - a first touch by the CPU is cold (the paper assumes none);
 *  - otherwise conflict when the fully associative cache would have hit,
 *    capacity when it would have missed too.
 * The level that served a miss is the own L2, a peer's cache (modified
 * there: HITM), or DRAM; there is no L3 in the model.
 *
 * The working set's ground truth is what the L1s hold: for each type, the
 * distinct lines of its live objects in at least one CPU's L1, averaged
 * over all accesses.  That is what the working-set view simulates when
 * given the L1s' combined geometry (as many sets, nr_cpus times the
 * ways): one LRU cache that replays every access in time order and holds
 * a line once however many CPUs use it, where a freed object's lines
 * belong to nobody.  The L2s are left out: they are filled by L1 misses
 * only and not told of L1 hits, so what they hold follows an order a
 * replay of the accesses does not reproduce.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/hashmap.h"
#include "util/dprof/profile.h"
#include "model.h"

/* Fully associative LRU cache of the same capacity. */
struct dprof_model_fa {
	u64	*tag;
	u64	*stamp;
	u32	nr;
	u32	cap;
	u64	clock;
};

struct dprof_model_line {
	u64	inval_mask[DPROF_MODEL_MAX_CPUS];	/* bytes written since invalidated */
	u8	invalidated;				/* bit per CPU */
	u8	seen;
	u8	in_l1;					/* bit per CPU */
	s8	dirty;					/* CPU holding it modified, or -1 */
	struct dprof_model_type *type;			/* the live object's, or NULL */
};

struct dprof_model_priv {
	struct dprof_cache	l1[DPROF_MODEL_MAX_CPUS];
	struct dprof_cache	l2[DPROF_MODEL_MAX_CPUS];
	struct dprof_model_fa	fa[DPROF_MODEL_MAX_CPUS];
	struct hashmap		*lines;
	u64			rnd;
	u64			next_sample;
};

static const char * const scenario_str[DPROF_MODEL__MAX] = {
	"true sharing", "false sharing", "conflict", "capacity", "mixed",
};

static const char * const scenario_name[DPROF_MODEL__MAX] = {
	"true_sharing", "false_sharing", "conflict", "capacity", "mixed",
};

static const char * const level_str[DPROF_MODEL_LEVEL__MAX] = {
	"L1", "L2", "peer", "peer-HITM", "DRAM",
};

/**
 * dprof_model_scenario__str - a scenario, for people
 * @sc: the scenario
 */
const char *dprof_model_scenario__str(enum dprof_model_scenario sc)
{
	return sc < DPROF_MODEL__MAX ? scenario_str[sc] : "?";
}

/**
 * dprof_model_scenario__name - a scenario, as an argument
 * @sc: the scenario
 */
const char *dprof_model_scenario__name(enum dprof_model_scenario sc)
{
	return sc < DPROF_MODEL__MAX ? scenario_name[sc] : "?";
}

/**
 * dprof_model_scenario__parse - the scenario named @str
 * @str: true_sharing, false_sharing, conflict, capacity or mixed
 *
 * Return: the scenario, or -EINVAL.
 */
int dprof_model_scenario__parse(const char *str)
{
	int sc;

	for (sc = 0; sc < DPROF_MODEL__MAX; sc++) {
		if (!strcmp(str, scenario_name[sc]))
			return sc;
	}
	return -EINVAL;
}

/**
 * dprof_model_level__str - where a line was found
 * @lvl: the level
 */
const char *dprof_model_level__str(enum dprof_model_level lvl)
{
	return lvl < DPROF_MODEL_LEVEL__MAX ? level_str[lvl] : "?";
}

/**
 * dprof_model__rand - the model's pseudo-random numbers (xorshift)
 * @m: the model, seeded by its parameters
 */
u64 dprof_model__rand(struct dprof_model *m)
{
	u64 *r = &m->priv->rnd;

	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

/**
 * dprof_model_type__resident - the bytes of @t the L1s held, on average
 * @m: the model, after dprof_model__run()
 * @t: one of its types
 *
 * Distinct lines of live @t objects in at least one CPU's L1, averaged
 * over all accesses: what the working-set view estimates from the samples
 * when given the L1s' combined geometry.
 */
double dprof_model_type__resident(const struct dprof_model *m,
				  const struct dprof_model_type *t)
{
	return m->nr_access ? t->resident_sum / m->nr_access * m->geom.line : 0;
}

static size_t tag__hash(long key, void *ctx __maybe_unused)
{
	return hash_64(key, 32);
}

static bool tag__equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

static bool dprof_model_fa__access(struct dprof_model_fa *fa, u64 tag)
{
	u32 i, lru = 0;

	fa->clock++;
	for (i = 0; i < fa->nr; i++) {
		if (fa->tag[i] == tag) {
			fa->stamp[i] = fa->clock;
			return true;
		}
		if (fa->stamp[i] < fa->stamp[lru])
			lru = i;
	}
	if (fa->nr < fa->cap)
		lru = fa->nr++;
	fa->tag[lru] = tag;
	fa->stamp[lru] = fa->clock;
	return false;
}

static void dprof_model_fa__invalidate(struct dprof_model_fa *fa, u64 tag)
{
	u32 i;

	for (i = 0; i < fa->nr; i++) {
		if (fa->tag[i] == tag) {
			fa->tag[i] = fa->tag[fa->nr - 1];
			fa->stamp[i] = fa->stamp[fa->nr - 1];
			fa->nr--;
			return;
		}
	}
}

static int dprof_model__init(struct dprof_model *m,
			     const struct dprof_model_params *p)
{
	struct dprof_model_priv *pv;
	u32 c;

	memset(m, 0, sizeof(*m));
	if (!p->nr_cpus || p->nr_cpus > DPROF_MODEL_MAX_CPUS || !p->period)
		return -EINVAL;
	m->p = *p;
	if (dprof_cache_geom__set(&m->geom, 1, p->cache_size, 4, 64) ||
	    dprof_cache_geom__set(&m->geom_l2, 2, 4 * p->cache_size, 8, 64))
		return -EINVAL;
	pv = zalloc(sizeof(*pv));
	m->priv = pv;
	if (!pv)
		return -ENOMEM;
	pv->rnd = p->seed * 2654435761ull + 1;
	pv->lines = hashmap__new(tag__hash, tag__equal, NULL);
	if (IS_ERR(pv->lines)) {
		pv->lines = NULL;
		return -ENOMEM;
	}
	for (c = 0; c < p->nr_cpus; c++) {
		struct dprof_model_fa *fa = &pv->fa[c];

		if (dprof_cache__init(&pv->l1[c], &m->geom) ||
		    dprof_cache__init(&pv->l2[c], &m->geom_l2))
			return -ENOMEM;
		fa->cap = p->cache_size / 64;
		fa->tag = calloc(fa->cap, sizeof(u64));
		fa->stamp = calloc(fa->cap, sizeof(u64));
		if (!fa->tag || !fa->stamp)
			return -ENOMEM;
	}
	return 0;
}

/**
 * dprof_model__exit - free what the model holds
 * @m: the model, after dprof_model__run() (whatever it returned)
 */
void dprof_model__exit(struct dprof_model *m)
{
	struct dprof_model_priv *pv = m->priv;
	struct hashmap_entry *cur;
	size_t bkt;
	u32 c;

	if (!pv)
		return;
	for (c = 0; c < DPROF_MODEL_MAX_CPUS; c++) {
		dprof_cache__exit(&pv->l1[c]);
		dprof_cache__exit(&pv->l2[c]);
		free(pv->fa[c].tag);
		free(pv->fa[c].stamp);
	}
	if (pv->lines) {
		hashmap__for_each_entry(pv->lines, cur, bkt)
			free(cur->pvalue);
		hashmap__free(pv->lines);
	}
	zfree(&m->priv);
}

static struct dprof_model_type *dprof_model__type(struct dprof_model *m,
						  const char *name, int planted,
						  u64 size)
{
	struct dprof_model_type *t = &m->types[m->nr_types];

	t->idx = m->nr_types++;
	t->name = name;
	t->planted = planted;
	t->size = size;
	return t;
}

static void dprof_model__alloc(struct dprof_model *m,
			       struct dprof_model_type *t, u64 base, u32 cpu)
{
	m->time++;
	if (!m->err && m->ops->alloc)
		m->err = m->ops->alloc(m, t, base, cpu);
}

/* The working set's truth: a line counts for its type while in an L1. */
static void dprof_model_line__own(struct dprof_model_line *l,
				  struct dprof_model_type *t)
{
	if (l->type == t)
		return;
	if (l->in_l1 && l->type)
		l->type->resident--;
	if (l->in_l1 && t)
		t->resident++;
	l->type = t;
}

static void dprof_model_line__fill(struct dprof_model_line *l, u32 cpu)
{
	if (!l->in_l1 && l->type)
		l->type->resident++;
	l->in_l1 |= 1 << cpu;
}

static void dprof_model_line__drop(struct dprof_model_line *l, u32 cpu)
{
	if (!(l->in_l1 & (1 << cpu)))
		return;
	l->in_l1 &= ~(1 << cpu);
	if (!l->in_l1 && l->type)
		l->type->resident--;
}

static void dprof_model__free(struct dprof_model *m,
			      struct dprof_model_type *t, u64 base, u32 cpu)
{
	struct dprof_model_line *l;
	u64 tag;

	/* the lines stay cached, but belong to nobody (as in the view) */
	for (tag = base / 64; tag <= (base + t->size - 1) / 64; tag++) {
		if (hashmap__find(m->priv->lines, (long)tag, &l))
			dprof_model_line__own(l, NULL);
	}
	m->time++;
	if (!m->err && m->ops->free)
		m->err = m->ops->free(m, t, base, cpu);
}

static struct dprof_model_line *dprof_model__line(struct dprof_model *m,
						  u64 tag)
{
	struct dprof_model_line *l;

	if (hashmap__find(m->priv->lines, (long)tag, &l))
		return l;
	l = zalloc(sizeof(*l));
	if (!l || hashmap__add(m->priv->lines, (long)tag, l)) {
		free(l);
		m->err = -ENOMEM;
		return NULL;
	}
	l->dirty = -1;
	return l;
}

/* Where an L1 miss of @cpu is served from; fills its L2. */
static enum dprof_model_level
dprof_model__serve(struct dprof_model *m, struct dprof_model_line *l,
		   u32 cpu, u64 addr, bool *remote_ccx)
{
	struct dprof_model_priv *pv = m->priv;
	bool l2_hit = dprof_cache__access(&pv->l2[cpu], addr, NULL, 0, NULL);
	u32 c, peer = cpu;

	if (l->dirty >= 0 && (u32)l->dirty != cpu) {
		*remote_ccx = (u32)l->dirty / DPROF_MODEL_CCX_CPUS !=
			      cpu / DPROF_MODEL_CCX_CPUS;
		return DPROF_MODEL_PEER_HITM;
	}
	if (l2_hit)
		return DPROF_MODEL_L2;
	for (c = 0; c < m->p.nr_cpus; c++) {
		if (c == cpu)
			continue;
		if (dprof_cache__lookup(&pv->l1[c], addr) ||
		    dprof_cache__lookup(&pv->l2[c], addr)) {
			/* the nearest copy */
			if (peer == cpu || c / DPROF_MODEL_CCX_CPUS ==
					   cpu / DPROF_MODEL_CCX_CPUS)
				peer = c;
		}
	}
	if (peer != cpu) {
		*remote_ccx = peer / DPROF_MODEL_CCX_CPUS !=
			      cpu / DPROF_MODEL_CCX_CPUS;
		return DPROF_MODEL_PEER;
	}
	return DPROF_MODEL_DRAM;
}

/* One 8-byte access at @base + @off by @cpu; the model, then maybe a sample. */
static void dprof_model__access(struct dprof_model *m, u32 cpu,
				struct dprof_model_type *t, u64 base, u64 off,
				bool write)
{
	struct dprof_model_priv *pv = m->priv;
	u64 addr = base + off, tag = addr / 64;
	u64 mask = 0xffull << (addr % 64);
	struct dprof_model_line *l = dprof_model__line(m, tag);
	struct dprof_model_sample s = {
		.type = t, .addr = addr, .off = off, .cpu = cpu,
		.write = write, .truth = -1, .level = DPROF_MODEL_L1,
	};
	struct dprof_cache_line victim;
	bool fa_hit;
	int i;
	u32 c;

	if (!l || m->err)
		return;
	m->time++;
	dprof_model_line__own(l, t);
	/* the L1's lines point to the model's, for the working set's truth */
	s.hit = dprof_cache__access(&pv->l1[cpu], addr, l, 0, &victim);
	fa_hit = dprof_model_fa__access(&pv->fa[cpu], tag);
	if (!s.hit) {
		if (victim.stamp && victim.owner)
			dprof_model_line__drop(victim.owner, cpu);
		dprof_model_line__fill(l, cpu);
		s.level = dprof_model__serve(m, l, cpu, addr, &s.remote_ccx);
		if (l->invalidated & (1 << cpu))
			s.truth = l->inval_mask[cpu] & mask ?
				  DPROF_MISS_TRUE_SHARING : DPROF_MISS_FALSE_SHARING;
		else if (!(l->seen & (1 << cpu)))
			s.truth = DPROF_MODEL_COLD;
		else
			s.truth = fa_hit ? DPROF_MISS_CONFLICT : DPROF_MISS_CAPACITY;
	}
	l->invalidated &= ~(1 << cpu);
	l->seen |= 1 << cpu;
	if (write)
		l->dirty = cpu;
	else if (l->dirty != (s8)cpu)
		l->dirty = -1;		/* written back, now shared */
	for (c = 0; write && c < m->p.nr_cpus; c++) {
		if (c == cpu)
			continue;
		dprof_cache__invalidate(&pv->l2[c], addr);
		if (dprof_cache__invalidate(&pv->l1[c], addr)) {
			dprof_model_line__drop(l, c);
			l->invalidated |= 1 << c;
			l->inval_mask[c] = mask;
		} else if (l->invalidated & (1 << c)) {
			l->inval_mask[c] |= mask;
		}
		dprof_model_fa__invalidate(&pv->fa[c], tag);
	}
	m->nr_access++;
	for (i = 0; i < m->nr_types; i++)
		m->types[i].resident_sum += m->types[i].resident;

	if (pv->next_sample-- > 1)
		return;
	pv->next_sample = m->p.period > 1 ?
			  m->p.period / 2 + dprof_model__rand(m) % m->p.period : 1;
	s.time = m->time;
	/* one load and one store instruction per type */
	s.ip = 0xffffffff81000000ull + (u64)t->idx * 0x100 + (write ? 0x40 : 0);
	m->nr_samples++;
	m->nr_level[s.level]++;
	t->nr_samples++;
	if (s.truth >= 0)
		t->truth[s.truth]++;
	if (m->ops->sample)
		m->err = m->ops->sample(m, &s);
}

#define MODEL_BASE(t, cpu)	(0xffff888100000000ull + ((u64)(t) << 28) + \
				 ((u64)(cpu) << 22))

/* A counter in one 64-byte object, written on CPU 0, read on the others. */
static void gen_true_sharing(struct dprof_model *m, struct dprof_model_type *t,
			     u32 step)
{
	u32 cpu = dprof_model__rand(m) % m->p.nr_cpus;
	u64 base = MODEL_BASE(1, 0);

	if (!step)
		dprof_model__alloc(m, t, base, 0);
	dprof_model__access(m, cpu, t, base, 0, false);
	if (!cpu)
		dprof_model__access(m, cpu, t, base, 0, true);
}

/* One 64-byte object, CPU i owning the 8-byte field at 8 * i. */
static void gen_false_sharing(struct dprof_model *m, struct dprof_model_type *t,
			      u32 step)
{
	u32 cpu = dprof_model__rand(m) % m->p.nr_cpus;
	u64 base = MODEL_BASE(2, 0);

	if (!step)
		dprof_model__alloc(m, t, base, 0);
	dprof_model__access(m, cpu, t, base, cpu * 8, false);
	dprof_model__access(m, cpu, t, base, cpu * 8, true);
}

/*
 * 1024-byte buffers of which only the header line is used: the headers
 * fall into one set in 16, and there are twice as many per CPU as those
 * sets hold, while all of them would fit the cache.  A buffer is now and
 * then freed and allocated again.
 */
static u32 nr_bufs(const struct dprof_model *m)
{
	return 2 * m->geom.ways * m->geom.nr_sets / 16;
}

static void gen_conflict(struct dprof_model *m, struct dprof_model_type *t,
			 u32 step)
{
	u32 cpu = dprof_model__rand(m) % m->p.nr_cpus, i, c;
	u64 base;

	if (!step) {
		for (c = 0; c < m->p.nr_cpus; c++) {
			for (i = 0; i < nr_bufs(m); i++)
				dprof_model__alloc(m, t, MODEL_BASE(3, c) + i * 1024, c);
		}
	}
	i = dprof_model__rand(m) % nr_bufs(m);
	base = MODEL_BASE(3, cpu) + i * 1024;
	if (dprof_model__rand(m) % 512 == 0) {
		dprof_model__free(m, t, base, cpu);
		dprof_model__alloc(m, t, base, cpu);
	}
	dprof_model__access(m, cpu, t, base, (dprof_model__rand(m) % 8) * 8,
			    dprof_model__rand(m) & 1);
}

/* 64-byte objects, 4 times the cache's worth per CPU, used at random. */
static void gen_capacity(struct dprof_model *m, struct dprof_model_type *t,
			 u32 step)
{
	u32 cpu = dprof_model__rand(m) % m->p.nr_cpus, i, c;
	u32 nr = 4 * m->geom.size / 64;

	if (!step) {
		for (c = 0; c < m->p.nr_cpus; c++) {
			for (i = 0; i < nr; i++)
				dprof_model__alloc(m, t, MODEL_BASE(4, c) + i * 64, c);
		}
	}
	i = dprof_model__rand(m) % nr;
	dprof_model__access(m, cpu, t, MODEL_BASE(4, cpu) + i * 64,
			    (dprof_model__rand(m) % 8) * 8,
			    dprof_model__rand(m) & 1);
}

/* Per-CPU objects that fit: hits, and the background the others stand on. */
static void gen_private(struct dprof_model *m, struct dprof_model_type *t,
			u32 step)
{
	u32 cpu = dprof_model__rand(m) % m->p.nr_cpus, i, c;

	if (!step) {
		for (c = 0; c < m->p.nr_cpus; c++) {
			for (i = 0; i < 8; i++)
				dprof_model__alloc(m, t, MODEL_BASE(0, c) + i * 64, c);
		}
	}
	i = dprof_model__rand(m) % 8;
	dprof_model__access(m, cpu, t, MODEL_BASE(0, cpu) + i * 64,
			    (dprof_model__rand(m) % 8) * 8,
			    dprof_model__rand(m) & 1);
}

typedef void (*dprof_model_gen_fn)(struct dprof_model *m,
				   struct dprof_model_type *t, u32 step);

/**
 * dprof_model__run - run a planted scenario on a fresh model
 * @m: the model (its state is overwritten); free it with dprof_model__exit()
 * @sc: the scenario
 * @p: seed, CPUs, cache size, sampling period and number of steps
 * @ops: what to do with allocations, frees and samples, in time order
 * @ctx: the user's, in m->ctx
 *
 * The scenario's types are m->types[0..nr_types), the first one a
 * private, well-behaved background type.
 *
 * Return: 0, -EINVAL for bad parameters, or the first error of @ops.
 */
int dprof_model__run(struct dprof_model *m, enum dprof_model_scenario sc,
		     const struct dprof_model_params *p,
		     const struct dprof_model_ops *ops, void *ctx)
{
	static const struct {
		const char		*name;
		int			planted;
		u64			size;
		dprof_model_gen_fn	gen;
	} gens[] = {
		{ "dm_private",	 -1,			    64,	  gen_private },
		{ "dm_counter",	 DPROF_MISS_TRUE_SHARING,   64,	  gen_true_sharing },
		{ "dm_pair",	 DPROF_MISS_FALSE_SHARING,  64,	  gen_false_sharing },
		{ "dm_buf1k",	 DPROF_MISS_CONFLICT,	    1024, gen_conflict },
		{ "dm_bigarray", DPROF_MISS_CAPACITY,	    64,	  gen_capacity },
	};
	static const int use[DPROF_MODEL__MAX][DPROF_MODEL_MAX_TYPES] = {
		[DPROF_MODEL_TRUE_SHARING]  = { 0, 1 },
		[DPROF_MODEL_FALSE_SHARING] = { 0, 2 },
		[DPROF_MODEL_CONFLICT]	    = { 0, 3 },
		[DPROF_MODEL_CAPACITY]	    = { 0, 4 },
		[DPROF_MODEL_MIXED]	    = { 0, 1, 2, 3 },
	};
	int gen_of[DPROF_MODEL_MAX_TYPES];
	int i, j, err;
	u32 step;

	if (sc >= DPROF_MODEL__MAX)
		return -EINVAL;
	err = dprof_model__init(m, p);
	if (err)
		return err;
	m->ops = ops;
	m->ctx = ctx;
	for (i = 0; i < DPROF_MODEL_MAX_TYPES && (i == 0 || use[sc][i]); i++) {
		int g = use[sc][i];

		gen_of[i] = g;
		dprof_model__type(m, gens[g].name, gens[g].planted, gens[g].size);
	}
	/* step 0 allocates; then the private type every other step */
	for (i = 0; i < m->nr_types; i++)
		gens[gen_of[i]].gen(m, &m->types[i], 0);
	for (step = 1; step < p->steps && !m->err; step++) {
		j = step % 2 ? 1 + dprof_model__rand(m) % (m->nr_types - 1) : 0;
		gens[gen_of[j]].gen(m, &m->types[j], step);
	}
	return m->err;
}

/**
 * dprof_test__classify - one access through the classifier's sink hook
 * @cl: the classifier
 * @cls: the access's class
 * @acc: the access
 * @offset: into its object
 * @v: what the classifier said, read from the counts of @cls before and
 *     after: whether it missed, and if so its class and whether object
 *     histories decided it (@v->mc and @v->exact are kept on a hit)
 *
 * Return: 0 or the hook's negative errno.
 */
int dprof_test__classify(struct dprof_classify *cl, struct dprof_class *cls,
			 const struct dprof_access *acc, u64 offset,
			 struct dprof_test_verdict *v)
{
	const struct dprof_classify_stats *st = dprof_classify__class(cl, cls);
	struct dprof_classify_stats before = { .accesses = 0 };
	int err, k;

	if (st)
		before = *st;
	v->miss = false;
	err = cl->sink.access(&cl->sink, acc, cls, offset);
	st = dprof_classify__class(cl, cls);
	if (err || !st || st->misses == before.misses)
		return err;
	v->miss = true;
	v->exact = st->exact != before.exact;
	for (k = 0; k < DPROF_MISS__MAX; k++) {
		if (st->by_class[k] != before.by_class[k])
			v->mc = k;
	}
	return 0;
}
