/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_CLASSIFY_H
#define __PERF_DPROF_CLASSIFY_H

#include <linux/types.h>

#include "cachesim.h"
#include "sink.h"

struct dprof_class;
struct hashmap;

/* Why a miss happened (paper section 3.3). */
enum dprof_miss_class {
	DPROF_MISS_TRUE_SHARING,	/* another CPU wrote the same bytes */
	DPROF_MISS_FALSE_SHARING,	/* ... other bytes of the line */
	DPROF_MISS_CONFLICT,		/* the line's set is crowded */
	DPROF_MISS_CAPACITY,		/* the working set exceeds the cache */
	DPROF_MISS_UNKNOWN,		/* none of these: cold, or too few samples */
	DPROF_MISS__MAX,
};

const char *dprof_miss_class__str(enum dprof_miss_class mc);

struct dprof_classify_stats {
	u64	accesses;
	u64	misses;
	u64	by_class[DPROF_MISS__MAX];
	u64	exact;		/* misses classified from object histories */
	/*
	 * Measured, not predicted: misses the sampler's data_src says hit
	 * a line modified in another core's cache (HITM), and of those the
	 * ones on object lines where HITMs hit one 8-byte word (true
	 * sharing evidence) or several (false sharing evidence), as perf
	 * c2c reads the offsets of a line.  Set by dprof_classify__finish().
	 */
	u64	hitm;
	u64	hitm_ts;
	u64	hitm_fs;
};

/*
 * The misses of one (offset, instruction) of a class: the drill-down by
 * member and by code location.  Only pairs that missed are kept, so the
 * memory is bounded by the code and the object size, not the samples.
 */
struct dprof_classify_site {
	u64				offset;
	u64				ip;
	struct dprof_classify_stats	st;	/* accesses: the misses only */
};

typedef int (*dprof_classify_site_fn_t)(const struct dprof_classify_site *site,
					void *arg);

/*
 * The miss classifier, a sink of the replay.  Misses measured by the
 * sampler (data_src) are classified as they are; accesses whose sample
 * carries no level go through a per-CPU cache model of @geom with
 * write-invalidate coherence, and its misses are classified instead
 * (nr_predicted counts them, and the view says so).
 */
struct dprof_classify {
	struct dprof_sink		sink;
	struct dprof_cache_geom		geom;
	u32				access_size;	/* bytes per access */
	/*
	 * Access samples: a write by another CPU among the line's last
	 * sampled writes is an invalidation (statistical).  Object
	 * histories (watch hits on every read and write of the watched
	 * bytes, the sink's hit hook): "did another CPU write these bytes
	 * since this CPU's last access" is exact for misses on them.
	 */
	struct hashmap			*lines;		/* tag -> line history */
	struct hashmap			*watched;	/* tag -> watched bytes */
	u64				nr_hits;	/* watch hits seen */
	u64				nr_hits_undecoded; /* read or write? */
	u64				nr_exact;	/* misses, from histories */
	u64				nr_stat;	/* ... from access samples */
	struct hashmap			*classes;	/* class -> its record */
	struct hashmap			*objs;		/* base -> live object */
	struct hashmap			*refs;		/* tag -> live users */
	u32				*set_lines;	/* live lines per set */
	u64				nr_live_lines;
	u64				max_live_lines;	/* their peak */
	struct dprof_cache		**cpu_cache;	/* predicted misses */
	u32				nr_cpu_cache;
	u64				seq;
	u64				nr_measured;	/* misses from data_src */
	u64				nr_predicted;	/* misses from the model */
	u64				nr_hitm;	/* measured HITM misses */
	struct dprof_classify_stats	total;
};

int dprof_classify__init(struct dprof_classify *cl,
			 const struct dprof_cache_geom *geom);
void dprof_classify__exit(struct dprof_classify *cl);
void dprof_classify__finish(struct dprof_classify *cl);
const struct dprof_classify_stats *
dprof_classify__class(const struct dprof_classify *cl,
		      const struct dprof_class *cls);
int dprof_classify__sites(const struct dprof_classify *cl,
			  const struct dprof_class *cls,
			  dprof_classify_site_fn_t fn, void *arg);

#endif /* __PERF_DPROF_CLASSIFY_H */
