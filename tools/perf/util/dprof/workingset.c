// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof working set (paper section 3.2): which types the cache
 * holds, averaged over the replay, and how each type spreads over the
 * associativity sets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/hashmap.h"
#include "addrset.h"
#include "profile.h"
#include "workingset.h"

#define DPROF_WS_INTERVAL	1024	/* first snapshot interval, accesses */
#define DPROF_WS_SNAPS		64	/* then the interval doubles */
/* a line's entry in a class's seen lines: its set, and how often it was sampled */
#define DPROF_WS_SEEN_ONE	(1L << 32)

struct ws_pair {
	struct dprof_ws_class	*wc;
	u64			obj;
};

static size_t long__hash(long key, void *ctx __maybe_unused)
{
	return hash_64(key, 32);
}

static bool long__equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

static struct dprof_workingset *sink__ws(struct dprof_sink *sink)
{
	return container_of(sink, struct dprof_workingset, sink);
}

static int ws_pair__cmp(const void *a, const void *b)
{
	const struct ws_pair *pa = a, *pb = b;

	if (pa->wc != pb->wc)
		return pa->wc < pb->wc ? -1 : 1;
	if (pa->obj != pb->obj)
		return pa->obj < pb->obj ? -1 : 1;
	return 0;
}

/* What each class holds now, weighted by the accesses it stands for. */
static void dprof_workingset__snapshot(struct dprof_workingset *ws,
				       double weight)
{
	struct dprof_cache *c = &ws->cache;
	size_t i, n = 0, nr = (size_t)c->geom.nr_sets * c->geom.ways;
	struct ws_pair *pairs = ws->pairs;

	for (i = 0; i < nr; i++) {
		struct dprof_cache_line *l = &c->lines[i];

		if (!l->stamp || !l->owner)
			continue;
		pairs[n].wc = l->owner;
		pairs[n].obj = l->obj;
		pairs[n].wc->lines_sum += weight;
		n++;
	}
	qsort(pairs, n, sizeof(*pairs), ws_pair__cmp);
	for (i = 0; i < n; i++) {
		if (!i || ws_pair__cmp(&pairs[i], &pairs[i - 1]))
			pairs[i].wc->objs_sum += weight;
	}
	ws->weight += weight;
	ws->nr_snaps++;
}

static struct dprof_ws_class *
dprof_workingset__findnew(struct dprof_workingset *ws,
			  const struct dprof_class *cls)
{
	struct dprof_ws_class *wc;

	if (hashmap__find(ws->classes, (long)cls, &wc))
		return wc;
	wc = zalloc(sizeof(*wc));
	if (!wc)
		return NULL;
	wc->cls = cls;
	wc->seen = hashmap__new(long__hash, long__equal, NULL);
	wc->first = hashmap__new(long__hash, long__equal, NULL);
	wc->set_lines = calloc(ws->cache.geom.nr_sets, sizeof(u32));
	if (IS_ERR(wc->seen) || IS_ERR(wc->first) || !wc->set_lines ||
	    hashmap__add(ws->classes, (long)cls, wc)) {
		if (!IS_ERR(wc->seen))
			hashmap__free(wc->seen);
		if (!IS_ERR(wc->first))
			hashmap__free(wc->first);
		free(wc->set_lines);
		free(wc);
		return NULL;
	}
	return wc;
}

/*
 * The real cache was full when recording began; the model starts empty
 * and, fed only the sampled accesses, fills period times more slowly than
 * the cache it models.  Averaging that cold start in understates every
 * type (by 17% in the test model at period 31).  Once the model has
 * filled as many lines as it holds, forget the snapshots taken so far.
 */
static void dprof_workingset__warm(struct dprof_workingset *ws)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(ws->classes, cur, bkt) {
		struct dprof_ws_class *wc = cur->pvalue;

		wc->lines_sum = 0;
		wc->objs_sum = 0;
	}
	ws->weight = 0;
	ws->warm_at = ws->cache.nr_access;
	ws->next_snap = ws->cache.nr_access + ws->interval;
}

static int dprof_workingset__access(struct dprof_sink *sink,
				    const struct dprof_access *acc,
				    struct dprof_class *cls, u64 offset)
{
	struct dprof_workingset *ws = sink__ws(sink);
	struct dprof_ws_class *wc = dprof_workingset__findnew(ws, cls);
	u64 tag = acc->addr / ws->cache.geom.line;
	u32 set = tag % ws->cache.geom.nr_sets;
	long seen;

	if (!wc)
		return -ENOMEM;
	dprof_cache__access(&ws->cache, acc->addr, wc, acc->addr - offset, NULL);
	if (!hashmap__find(wc->seen, (long)tag, &seen)) {
		if (hashmap__add(wc->seen, (long)tag, (long)set | DPROF_WS_SEEN_ONE))
			return -ENOMEM;
		wc->set_lines[set]++;
		wc->nr_lines++;
		ws->set_lines[set]++;
		ws->nr_lines++;
		dprof_freq__sample(&wc->lines_freq, 0);
	} else if (!acc->still) {
		/* seen again: not when the task had not run since (decoded.h) */
		unsigned int times = seen / DPROF_WS_SEEN_ONE;

		dprof_freq__sample(&wc->lines_freq, times);
		if (times < DPROF_FREQ_SEEN_MAX &&
		    hashmap__set(wc->seen, (long)tag, seen + DPROF_WS_SEEN_ONE, NULL, NULL))
			return -ENOMEM;
	}
	if (!ws->warm_at &&
	    ws->cache.nr_miss >= (u64)ws->cache.geom.nr_sets * ws->cache.geom.ways)
		dprof_workingset__warm(ws);
	if (ws->cache.nr_access >= ws->next_snap) {
		dprof_workingset__snapshot(ws, ws->interval);
		if (ws->nr_snaps % DPROF_WS_SNAPS == 0)
			ws->interval *= 2;
		ws->next_snap = ws->cache.nr_access + ws->interval;
	}
	return 0;
}

static int dprof_workingset__free(struct dprof_sink *sink,
				  const struct dprof_obj *obj,
				  u64 time __maybe_unused,
				  u32 cpu __maybe_unused)
{
	struct dprof_workingset *ws = sink__ws(sink);

	dprof_cache__disown(&ws->cache, obj->base, obj->size);
	return 0;
}

/*
 * A watch hit on @len bytes at @addr of @obj (NULL: no known object) by
 * the instruction at @ip: who brings an object's lines in.
 *
 * The first access to each line of an object after its allocation is
 * the one that brings its data into a CPU's cache (paper section 3.2:
 * "the execution paths that bring them in").  Count it per class and
 * ip; later accesses to the line, and hits outside a known object's
 * lifetime (no allocation event), are not counted.
 */
static int dprof_workingset__watch(struct dprof_workingset *ws,
				   const struct dprof_obj *obj, u64 addr,
				   u32 len, u64 ip)
{
	u64 line = ws->cache.geom.line, tag, last, born, first_tag, last_tag;
	struct dprof_ws_class *wc;
	long n;

	ws->nr_hits++;
	if (!obj || !obj->priv || !len)
		return 0;
	wc = dprof_workingset__findnew(ws, obj->priv);
	if (!wc)
		return -ENOMEM;
	/* a birth of 0 would read as "never touched": shift by one */
	born = obj->alloc_time + 1;
	if (!dprof_line_range(addr, len, line, &first_tag, &last_tag))
		return 0;
	for (tag = first_tag; tag <= last_tag; tag++) {
		if (hashmap__find(ws->touched, (long)tag, &last) && last == born)
			continue;
		if (hashmap__set(ws->touched, (long)tag, (long)born, NULL, NULL))
			return -ENOMEM;
		n = 0;
		hashmap__find(wc->first, (long)ip, &n);
		if (hashmap__set(wc->first, (long)ip, n + 1, NULL, NULL))
			return -ENOMEM;
		wc->nr_first++;
	}
	return 0;
}

/* The watch must see reads too (rw) for its first hit to be the first touch. */
static int dprof_workingset__hit(struct dprof_sink *sink,
				 const struct dprof_hit *hit)
{
	if (!hit->rw)
		return 0;
	return dprof_workingset__watch(sink__ws(sink), hit->obj, hit->addr,
				       hit->len ?: 1, hit->access_ip);
}

/**
 * dprof_workingset__init - a working-set simulation of one cache
 * @ws: the simulation; add &ws->sink to the replay's sinks
 * @geom: the cache (usually the last level, see dprof_cache_geom__sysfs())
 *
 * Return: 0 or a negative errno.
 */
int dprof_workingset__init(struct dprof_workingset *ws,
			   const struct dprof_cache_geom *geom)
{
	int err;

	memset(ws, 0, sizeof(*ws));
	INIT_LIST_HEAD(&ws->sink.node);
	ws->sink.access = dprof_workingset__access;
	ws->sink.free = dprof_workingset__free;
	ws->sink.hit = dprof_workingset__hit;
	ws->interval = DPROF_WS_INTERVAL;
	ws->next_snap = DPROF_WS_INTERVAL;
	err = dprof_cache__init(&ws->cache, geom);
	if (err)
		return err;
	ws->classes = hashmap__new(long__hash, long__equal, NULL);
	ws->touched = hashmap__new(long__hash, long__equal, NULL);
	ws->set_lines = calloc(geom->nr_sets, sizeof(u32));
	ws->pairs = calloc((size_t)geom->nr_sets * geom->ways,
			   sizeof(struct ws_pair));
	if (IS_ERR(ws->classes) || IS_ERR(ws->touched) || !ws->set_lines ||
	    !ws->pairs) {
		if (IS_ERR(ws->classes))
			ws->classes = NULL;
		if (IS_ERR(ws->touched))
			ws->touched = NULL;
		dprof_workingset__exit(ws);
		return -ENOMEM;
	}
	return 0;
}

/**
 * dprof_workingset__finish - take the last snapshot, after the replay
 * @ws: the simulation
 *
 * Return: 0.
 */
int dprof_workingset__finish(struct dprof_workingset *ws)
{
	u64 last = ws->next_snap - ws->interval;

	if (ws->cache.nr_access > last || !ws->weight)
		dprof_workingset__snapshot(ws, ws->cache.nr_access - last ?: 1);
	return 0;
}

/**
 * dprof_workingset__exit - free what the simulation holds
 * @ws: the simulation
 */
void dprof_workingset__exit(struct dprof_workingset *ws)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (ws->classes) {
		hashmap__for_each_entry(ws->classes, cur, bkt) {
			struct dprof_ws_class *wc = cur->pvalue;

			hashmap__free(wc->seen);
			hashmap__free(wc->first);
			free(wc->set_lines);
			free(wc);
		}
		hashmap__free(ws->classes);
		ws->classes = NULL;
	}
	hashmap__free(ws->touched);
	ws->touched = NULL;
	dprof_cache__exit(&ws->cache);
	zfree(&ws->set_lines);
	zfree(&ws->pairs);
}

/**
 * dprof_workingset__class - what the simulation knows of one class
 * @ws: the simulation
 * @cls: the class
 *
 * Return: its record, or NULL when no access of @cls was seen.
 */
struct dprof_ws_class *
dprof_workingset__class(const struct dprof_workingset *ws,
			const struct dprof_class *cls)
{
	struct dprof_ws_class *wc;

	if (!ws->classes || !hashmap__find(ws->classes, (long)cls, &wc))
		return NULL;
	return wc;
}

/**
 * dprof_workingset__conflict_set - is @set prone to conflict misses?
 * @ws: the simulation
 * @set: an associativity set
 *
 * Paper section 3.3: more distinct lines than ways, and at least twice
 * the average set.
 */
bool dprof_workingset__conflict_set(const struct dprof_workingset *ws,
				    u32 set)
{
	u64 n = ws->set_lines[set];

	return n > ws->cache.geom.ways &&
	       n * ws->cache.geom.nr_sets >= 2 * ws->nr_lines;
}
