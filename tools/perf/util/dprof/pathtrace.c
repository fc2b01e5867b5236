// SPDX-License-Identifier: GPL-2.0
/*
 * Path traces: object access histories of one type folded by execution
 * path (DProf paper §4.4).
 *
 * A history becomes a sequence of steps: the allocation, one step per run
 * of accesses by the same function (or ip) on the same CPU, and the free.
 * Folding runs keeps a loop over a member from making every history a
 * path of its own; the step keeps the run's offset range and access
 * count.  Histories whose step keys and CPU-change flags are equal take
 * the same path; the path trace averages their times since allocation
 * and adds the access samples of the same (type, offset, ip) for the
 * hit probabilities and latencies of table 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include "histories.h"
#include "pathtrace.h"

static u64 paths__key(struct dprof_paths *p, u64 ip)
{
	u64 func;

	if (p->by_ip || !p->func_of || !ip)
		return ip;
	func = p->func_of(p->ctx, ip);
	return func ?: ip;
}

static void step__init(struct dprof_path_step *s, enum dprof_step_kind kind,
		       u64 key, u64 ip, bool cpu_change, u64 time, u64 lo,
		       u64 hi)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->key = key;
	s->ip = ip;
	s->cpu_change = cpu_change;
	s->time_sum = time;
	s->off_lo = lo;
	s->off_hi = hi;
	s->nr_acc = 1;
}

/* The steps of @hist into @steps (room for hist->nr + 2); returns how many. */
static size_t paths__steps(struct dprof_paths *p,
			   const struct dprof_history *hist,
			   struct dprof_path_step *steps)
{
	u32 cpu = hist->alloc_cpu;
	size_t n = 0, i;

	step__init(&steps[n++], DPROF_STEP_ALLOC, paths__key(p, hist->alloc_site),
		   hist->alloc_site, false, 0, 0, hist->size);
	for (i = 0; i < hist->nr; i++) {
		const struct dprof_hist_elem *e = &hist->elems[i];
		u64 key = paths__key(p, e->ip);
		struct dprof_path_step *s = &steps[n - 1];

		if (s->kind == DPROF_STEP_ACCESS && s->key == key && e->cpu == cpu) {
			s->off_lo = min(s->off_lo, e->offset);
			s->off_hi = max(s->off_hi, e->offset + e->len);
			s->nr_acc++;
		} else {
			s = &steps[n++];
			step__init(s, DPROF_STEP_ACCESS, key, e->ip, e->cpu != cpu,
				   e->time, e->offset, e->offset + e->len);
		}
		if (p->samples_of)
			p->samples_of(p->ctx, hist->type, e->offset, e->ip, &s->stats);
		cpu = e->cpu;
	}
	step__init(&steps[n++], DPROF_STEP_FREE, paths__key(p, hist->free_site),
		   hist->free_site, hist->free_cpu != cpu, hist->free_time, 0,
		   hist->size);
	return n;
}

static u64 steps__hash(const struct dprof_path_step *steps, size_t n)
{
	u64 hash = 0xcbf29ce484222325ULL;	/* FNV-1a over the path's keys */
	size_t i;

	for (i = 0; i < n; i++) {
		hash ^= steps[i].key ^ ((u64)steps[i].kind << 1) ^ steps[i].cpu_change;
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

static bool path__equal(const struct dprof_path *path, u64 hash,
			const struct dprof_path_step *steps, size_t n)
{
	size_t i;

	if (path->hash != hash || path->nr_steps != n)
		return false;
	for (i = 0; i < n; i++) {
		if (path->steps[i].key != steps[i].key ||
		    path->steps[i].kind != steps[i].kind ||
		    path->steps[i].cpu_change != steps[i].cpu_change)
			return false;
	}
	return true;
}

static void path__fold(struct dprof_path *path,
		       const struct dprof_path_step *steps)
{
	size_t i;

	for (i = 0; i < path->nr_steps; i++) {
		struct dprof_path_step *s = &path->steps[i];

		s->time_sum += steps[i].time_sum;
		s->off_lo = min(s->off_lo, steps[i].off_lo);
		s->off_hi = max(s->off_hi, steps[i].off_hi);
		s->nr_acc += steps[i].nr_acc;
		dprof_stats__add(&s->stats, &steps[i].stats);
	}
	path->count++;
}

/**
 * dprof_paths__add - fold one history into the path traces
 * @p: the path traces of a type
 * @hist: an object access history
 *
 * Histories of other types are ignored; histories cut short before the
 * free are counted in @p->nr_unfreed and left out, as a path runs from
 * the allocation to the free.
 *
 * Return: 0, or -ENOMEM.
 */
int dprof_paths__add(struct dprof_paths *p, const struct dprof_history *hist)
{
	struct dprof_path_step *steps;
	struct dprof_path *path;
	size_t n;
	u64 hash;

	if (p->want ? !p->want(p->ctx, hist->type) :
		      p->type && hist->type != p->type)
		return 0;
	if (!hist->freed) {
		p->nr_unfreed++;
		return 0;
	}
	steps = calloc(hist->nr + 2, sizeof(*steps));
	if (!steps)
		return -ENOMEM;
	n = paths__steps(p, hist, steps);
	hash = steps__hash(steps, n);
	p->nr_histories++;
	list_for_each_entry(path, &p->paths, node) {
		if (path__equal(path, hash, steps, n)) {
			path__fold(path, steps);
			free(steps);
			return 0;
		}
	}
	path = zalloc(sizeof(*path));
	if (!path) {
		free(steps);
		return -ENOMEM;
	}
	path->hash = hash;
	path->count = 1;
	path->seq = p->nr_paths++;
	path->nr_steps = n;
	path->steps = realloc(steps, n * sizeof(*steps)) ?: steps;
	list_add_tail(&path->node, &p->paths);
	return 0;
}

/**
 * dprof_paths__build - fold every closed history of @p->type
 * @p: the path traces of a type
 * @h: the histories
 *
 * Return: 0, or -ENOMEM.
 */
int dprof_paths__build(struct dprof_paths *p, struct dprof_histories *h)
{
	struct dprof_history *hist;
	int err;

	list_for_each_entry(hist, &h->done, list) {
		err = dprof_paths__add(p, hist);
		if (err)
			return err;
	}
	return 0;
}

static int path__cmp(const void *a, const void *b)
{
	const struct dprof_path *pa = *(const struct dprof_path * const *)a;
	const struct dprof_path *pb = *(const struct dprof_path * const *)b;

	if (pa->count != pb->count)
		return pa->count > pb->count ? -1 : 1;
	return pa->seq < pb->seq ? -1 : pa->seq > pb->seq;
}

/**
 * dprof_paths__sorted - the paths, most frequent first
 * @p: the path traces of a type
 * @nr: set to the number of paths
 *
 * Ties keep the order of first appearance.
 *
 * Return: a NULL-terminated array to free(), or NULL.
 */
struct dprof_path **dprof_paths__sorted(struct dprof_paths *p, size_t *nr)
{
	struct dprof_path **v = calloc(p->nr_paths + 1, sizeof(*v));
	struct dprof_path *path;
	size_t n = 0;

	if (!v)
		return NULL;
	list_for_each_entry(path, &p->paths, node)
		v[n++] = path;
	qsort(v, n, sizeof(*v), path__cmp);
	*nr = n;
	return v;
}

/**
 * dprof_paths__init - empty path traces for @type
 * @p: the path traces
 * @type: the type (NULL: every history)
 */
void dprof_paths__init(struct dprof_paths *p, void *type)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	INIT_LIST_HEAD(&p->paths);
}

/**
 * dprof_paths__exit - free the paths
 * @p: the path traces
 */
void dprof_paths__exit(struct dprof_paths *p)
{
	struct dprof_path *path, *tmp;

	list_for_each_entry_safe(path, tmp, &p->paths, node) {
		list_del(&path->node);
		free(path->steps);
		free(path);
	}
	p->nr_paths = 0;
}
