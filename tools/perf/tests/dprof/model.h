/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TESTS_DPROF_MODEL_H
#define __PERF_TESTS_DPROF_MODEL_H

#include <stdbool.h>
#include <linux/types.h>

#include "util/dprof/cachesim.h"
#include "util/dprof/classify.h"

struct dprof_access;

/*
 * A small multi-CPU machine with ground truth, for the miss classifier's
 * tests: per-CPU private L1 (the cache whose misses are scored) and L2,
 * write-invalidate (MESI-like) coherence, and a fully associative LRU
 * shadow of each L1 for the three-C truth of every miss.  Planted
 * scenarios run object lifecycles on it; every period-th access
 * (jittered) is handed to the user as a sample, with the level that
 * served it and the true cause of the miss.
 */

#define DPROF_MODEL_MAX_CPUS	8
#define DPROF_MODEL_MAX_TYPES	5
#define DPROF_MODEL_COLD	DPROF_MISS__MAX		/* truth only */
#define DPROF_MODEL_CCX_CPUS	4			/* CPUs per L3 complex */

enum dprof_model_scenario {
	DPROF_MODEL_TRUE_SHARING,
	DPROF_MODEL_FALSE_SHARING,
	DPROF_MODEL_CONFLICT,
	DPROF_MODEL_CAPACITY,
	DPROF_MODEL_MIXED,
	DPROF_MODEL__MAX,
};

const char *dprof_model_scenario__str(enum dprof_model_scenario sc);
const char *dprof_model_scenario__name(enum dprof_model_scenario sc);
int dprof_model_scenario__parse(const char *str);

/* Where the model found the line on an access. */
enum dprof_model_level {
	DPROF_MODEL_L1,
	DPROF_MODEL_L2,
	DPROF_MODEL_PEER,	/* clean in another CPU's cache */
	DPROF_MODEL_PEER_HITM,	/* modified in another CPU's cache */
	DPROF_MODEL_DRAM,
	DPROF_MODEL_LEVEL__MAX,
};

const char *dprof_model_level__str(enum dprof_model_level lvl);

struct dprof_model_params {
	unsigned int	seed;
	u32		nr_cpus;
	u64		cache_size;	/* private L1 per CPU, 4-way */
	u32		period;		/* one access in period is sampled */
	u32		steps;
};

struct dprof_model_type {
	const char	*name;
	int		idx;
	int		planted;	/* expected top class, or -1 */
	u64		size;		/* object size */
	u64		nr_samples;
	/* the true causes of the sampled misses, and the cold ones */
	u64		truth[DPROF_MODEL_COLD + 1];
	/*
	 * The working set's ground truth: distinct lines of live objects of
	 * the type held by at least one CPU's L1 now, and that summed at
	 * every access (see dprof_model_type__resident()).
	 */
	u64		resident;
	double		resident_sum;
};

/* One sampled access, and what the model knows about it. */
struct dprof_model_sample {
	struct dprof_model_type	*type;
	u64			addr;
	u64			off;		/* in the object */
	u64			ip;
	u64			time;
	u32			cpu;
	bool			write;
	bool			hit;		/* in the L1 */
	int			truth;		/* class, DPROF_MODEL_COLD, -1 on a hit */
	enum dprof_model_level	level;
	bool			remote_ccx;	/* the peer is in another complex */
};

struct dprof_model;

/* What a user does with the model's events; return 0 or a negative errno. */
struct dprof_model_ops {
	int	(*alloc)(struct dprof_model *m, struct dprof_model_type *t,
			 u64 base, u32 cpu);
	int	(*free)(struct dprof_model *m, struct dprof_model_type *t,
			u64 base, u32 cpu);
	int	(*sample)(struct dprof_model *m,
			  const struct dprof_model_sample *s);
};

struct dprof_model {
	struct dprof_model_params	p;
	struct dprof_cache_geom		geom;		/* the L1 */
	struct dprof_cache_geom		geom_l2;
	struct dprof_model_type		types[DPROF_MODEL_MAX_TYPES];
	int				nr_types;
	u64				time;
	u64				nr_access;
	u64				nr_samples;
	u64				nr_level[DPROF_MODEL_LEVEL__MAX];
	const struct dprof_model_ops	*ops;
	void				*ctx;		/* the user's */
	int				err;
	struct dprof_model_priv		*priv;
};

int dprof_model__run(struct dprof_model *m, enum dprof_model_scenario sc,
		     const struct dprof_model_params *p,
		     const struct dprof_model_ops *ops, void *ctx);
void dprof_model__exit(struct dprof_model *m);
u64 dprof_model__rand(struct dprof_model *m);
double dprof_model_type__resident(const struct dprof_model *m,
				  const struct dprof_model_type *t);

/* What the classifier said of one access (see dprof_test__classify()). */
struct dprof_test_verdict {
	bool			miss;
	enum dprof_miss_class	mc;	/* of the last miss: kept on a hit */
	bool			exact;	/* ... decided from object histories */
};

int dprof_test__classify(struct dprof_classify *cl, struct dprof_class *cls,
			 const struct dprof_access *acc, u64 offset,
			 struct dprof_test_verdict *v);

#endif /* __PERF_TESTS_DPROF_MODEL_H */
