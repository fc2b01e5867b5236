/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_CACHESIM_H
#define __PERF_DPROF_CACHESIM_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * A set-associative, LRU cache model (paper section 3.2) for the
 * working-set view and the miss classifier.  Sets are indexed with the
 * address modulo the number of sets, as in a cache indexed by address bits:
 * real last-level caches hash physical addresses over slices, and the
 * samples carry virtual addresses, so the set of a line is a model.
 */
struct dprof_cache_geom {
	int	level;		/* 1, 2, 3...; 0 when not known */
	u64	size;		/* bytes */
	u32	ways;
	u32	line;		/* bytes per line */
	u32	nr_sets;	/* size / line / ways */
	u32	nr_shared;	/* CPUs sharing one instance; 0: not known */
};

int dprof_cache_geom__set(struct dprof_cache_geom *g, int level, u64 size,
			  u32 ways, u32 line);
int dprof_cache_geom__parse(struct dprof_cache_geom *g, const char *str);
struct perf_env;
int dprof_cache_geom__env(struct dprof_cache_geom *g,
			  const struct perf_env *env, int level);
int dprof_cache_geom__sysfs(struct dprof_cache_geom *g, const char *dir,
			    int level);
int dprof_cache_geom__scnprintf(const struct dprof_cache_geom *g, char *buf,
				size_t sz);

/*
 * The cache lines [*@first, *@last] that the bytes [@addr, @addr + @len)
 * touch; false when there are none, or when they run past the top of the
 * address space (a damaged recording), so that loops over them end.
 */
static inline bool dprof_line_range(u64 addr, u64 len, u32 line, u64 *first,
				    u64 *last)
{
	if (!len || !line || addr + (len - 1) < addr)
		return false;
	*first = addr / line;
	*last = (addr + (len - 1)) / line;
	return true;
}

/* One cache line in the model, and what it holds. */
struct dprof_cache_line {
	u64	tag;		/* address / line size */
	u64	stamp;		/* last use; 0: the way is empty */
	void	*owner;		/* user's tag for the line (e.g. a class) */
	u64	obj;		/* user's object id (e.g. its base) */
};

struct dprof_cache {
	struct dprof_cache_geom	geom;
	struct dprof_cache_line	*lines;		/* nr_sets * ways */
	u64			clock;
	u64			nr_access;
	u64			nr_miss;
	u64			nr_evict;
};

int dprof_cache__init(struct dprof_cache *c, const struct dprof_cache_geom *g);
void dprof_cache__exit(struct dprof_cache *c);

/**
 * dprof_cache__set - the associativity set a byte address maps to
 * @c: the cache
 * @addr: the address
 */
static inline u32 dprof_cache__set(const struct dprof_cache *c, u64 addr)
{
	return (addr / c->geom.line) % c->geom.nr_sets;
}

bool dprof_cache__access(struct dprof_cache *c, u64 addr, void *owner,
			 u64 obj, struct dprof_cache_line *victim);
bool dprof_cache__lookup(const struct dprof_cache *c, u64 addr);
bool dprof_cache__invalidate(struct dprof_cache *c, u64 addr);
void dprof_cache__disown(struct dprof_cache *c, u64 base, u64 size);

#endif /* __PERF_DPROF_CACHESIM_H */
