// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: which files of user code the access samples fall in, from a
 * first pass over the records (see userfiles.h).
 *
 * Each process has the executable mappings its mmap records announced,
 * and a process forked from another has that one's as well, until it
 * execs: perf record announces a process's mappings when it starts and
 * when it maps a file, not those a child inherits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "util/hashmap.h"
#include "hashfn.h"
#include "resolve.h"
#include "userfiles.h"

/* a fork chain longer than this is a loop in a damaged file */
#define DPROF_UF_MAX_DEPTH	64

struct dprof_ufile {
	char			*name;
	u64			first;		/* the time of its first sample */
	bool			sampled;
	struct dprof_ip_times	times;		/* by file offset */
};

struct dprof_umap {
	u64			start;
	u64			end;
	u64			pgoff;		/* the file offset at @start */
	struct dprof_ufile	*file;
};

struct dprof_uproc {
	u32			ppid;
	bool			forked;		/* has its parent's mappings too */
	struct dprof_umap	*maps;		/* by start, not overlapping */
	u32			nr;
	u32			alloc;
};

struct dprof_userfiles {
	struct hashmap		*procs;		/* pid -> struct dprof_uproc * */
	struct hashmap		*files;		/* name -> struct dprof_ufile * */
	struct dprof_ufile	**sampled;
	size_t			nr_sampled;
	size_t			alloc_sampled;
	const char		**names;
};

struct dprof_userfiles *dprof_userfiles__new(void)
{
	struct dprof_userfiles *uf = zalloc(sizeof(*uf));

	if (!uf)
		return NULL;
	uf->procs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	uf->files = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	if (IS_ERR(uf->procs) || IS_ERR(uf->files)) {
		if (!IS_ERR(uf->procs))
			hashmap__free(uf->procs);
		if (!IS_ERR(uf->files))
			hashmap__free(uf->files);
		free(uf);
		return NULL;
	}
	return uf;
}

void dprof_userfiles__delete(struct dprof_userfiles *uf)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!uf)
		return;
	hashmap__for_each_entry(uf->procs, cur, bkt) {
		struct dprof_uproc *p = cur->pvalue;

		free(p->maps);
		free(p);
	}
	hashmap__free(uf->procs);
	hashmap__for_each_entry(uf->files, cur, bkt) {
		struct dprof_ufile *f = cur->pvalue;

		free(f->name);
		dprof_ip_times__exit(&f->times);
		free(f);
	}
	hashmap__free(uf->files);
	free(uf->sampled);
	free(uf->names);
	free(uf);
}

static struct dprof_uproc *dprof_userfiles__proc(struct dprof_userfiles *uf, u32 pid)
{
	struct dprof_uproc *p;

	if (hashmap__find(uf->procs, (long)pid, &p))
		return p;
	p = zalloc(sizeof(*p));
	if (p && hashmap__add(uf->procs, (long)pid, p))
		zfree(&p);
	return p;
}

static struct dprof_ufile *dprof_userfiles__file(struct dprof_userfiles *uf,
						 const char *name)
{
	struct dprof_ufile *f;

	if (hashmap__find(uf->files, name, &f))
		return f;
	f = zalloc(sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	if (!f->name || hashmap__add(uf->files, f->name, f)) {
		free(f->name);
		free(f);
		return NULL;
	}
	return f;
}

/* The first mapping of @p that ends after @addr, or @p->nr */
static u32 dprof_uproc__lower(const struct dprof_uproc *p, u64 addr)
{
	u32 lo = 0, hi = p->nr;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * dprof_userfiles__mmap - an executable mapping of a file
 * @uf: the files
 * @pid: the process
 * @start: where it is mapped
 * @len: how long
 * @pgoff: the offset in the file mapped at @start
 * @filename: the file, as the mmap record names it
 *
 * A mapping replaces those it overlaps, as in the process.
 */
int dprof_userfiles__mmap(struct dprof_userfiles *uf, u32 pid, u64 start,
			  u64 len, u64 pgoff, const char *filename)
{
	struct dprof_uproc *p;
	struct dprof_ufile *f;
	u64 end = start + len;
	u32 i, j;

	if (!len || end < start)
		return 0;
	p = dprof_userfiles__proc(uf, pid);
	f = dprof_userfiles__file(uf, filename);
	if (!p || !f)
		return -ENOMEM;
	i = dprof_uproc__lower(p, start);
	for (j = i; j < p->nr && p->maps[j].start < end; j++)
		;
	if (i == j) {
		if (p->nr == p->alloc) {
			u32 alloc = p->alloc ? 2 * p->alloc : 16;
			struct dprof_umap *maps = realloc(p->maps, alloc * sizeof(*maps));

			if (!maps)
				return -ENOMEM;
			p->maps = maps;
			p->alloc = alloc;
		}
		memmove(&p->maps[i + 1], &p->maps[i], (p->nr - i) * sizeof(*p->maps));
		p->nr++;
	} else {
		/* [i, j) overlap it: it takes the first's slot, the others go */
		memmove(&p->maps[i + 1], &p->maps[j], (p->nr - j) * sizeof(*p->maps));
		p->nr -= j - i - 1;
	}
	p->maps[i] = (struct dprof_umap){
		.start = start, .end = end, .pgoff = pgoff, .file = f,
	};
	return 0;
}

/**
 * dprof_userfiles__fork - a process forked from another
 * @uf: the files
 * @pid: the child
 * @ppid: the parent
 */
int dprof_userfiles__fork(struct dprof_userfiles *uf, u32 pid, u32 ppid)
{
	struct dprof_uproc *p;

	if (pid == ppid)
		return 0;	/* a thread */
	p = dprof_userfiles__proc(uf, pid);
	if (!p)
		return -ENOMEM;
	p->ppid = ppid;
	p->forked = true;
	p->nr = 0;
	return 0;
}

/**
 * dprof_userfiles__exec - a process runs another program now
 * @uf: the files
 * @pid: the process
 */
void dprof_userfiles__exec(struct dprof_userfiles *uf, u32 pid)
{
	struct dprof_uproc *p;

	if (hashmap__find(uf->procs, (long)pid, &p)) {
		p->forked = false;
		p->nr = 0;
	}
}

/**
 * dprof_userfiles__sample - a sample of user code
 * @uf: the files
 * @pid: the sampled process
 * @ip: the sample ip
 * @time: the sample time
 *
 * Samples in no known mapping are left out; the others are noted by
 * their offsets in the file (see dprof_userfiles__times()).
 */
int dprof_userfiles__sample(struct dprof_userfiles *uf, u32 pid, u64 ip,
			    u64 time)
{
	const struct dprof_umap *m = NULL;
	struct dprof_ufile *f;
	int depth;

	for (depth = 0; depth < DPROF_UF_MAX_DEPTH && !m; depth++) {
		struct dprof_uproc *p;
		u32 i;

		if (!hashmap__find(uf->procs, (long)pid, &p))
			return 0;
		i = dprof_uproc__lower(p, ip);
		if (i < p->nr && p->maps[i].start <= ip)
			m = &p->maps[i];
		else if (!p->forked)
			return 0;
		pid = p->ppid;
	}
	if (!m)
		return 0;
	f = m->file;
	if (dprof_ip_times__add(&f->times, ip - m->start + m->pgoff, time))
		return -ENOMEM;
	if (f->sampled) {
		if (f->first > time)
			f->first = time;
		return 0;
	}
	if (uf->nr_sampled == uf->alloc_sampled) {
		size_t alloc = uf->alloc_sampled ? 2 * uf->alloc_sampled : 16;
		struct dprof_ufile **s = realloc(uf->sampled, alloc * sizeof(*s));

		if (!s)
			return -ENOMEM;
		uf->sampled = s;
		uf->alloc_sampled = alloc;
	}
	f->sampled = true;
	f->first = time;
	uf->sampled[uf->nr_sampled++] = f;
	return 0;
}

static int dprof_ufile__cmp(const void *a, const void *b)
{
	const struct dprof_ufile *x = *(const struct dprof_ufile **)a;
	const struct dprof_ufile *y = *(const struct dprof_ufile **)b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return strcmp(x->name, y->name);
}

/**
 * dprof_userfiles__sampled - the files the samples fell in
 * @uf: the files
 * @names: set to their names, by the time of their first samples
 *
 * Return: how many; 0 with *@names NULL when memory ran out.
 */
size_t dprof_userfiles__sampled(struct dprof_userfiles *uf,
				const char *const **names)
{
	size_t i;

	free(uf->names);
	uf->names = calloc(uf->nr_sampled ?: 1, sizeof(*uf->names));
	*names = uf->names;
	if (!uf->names)
		return 0;
	if (uf->nr_sampled)
		qsort(uf->sampled, uf->nr_sampled, sizeof(*uf->sampled), dprof_ufile__cmp);
	for (i = 0; i < uf->nr_sampled; i++)
		uf->names[i] = uf->sampled[i]->name;
	return uf->nr_sampled;
}

/**
 * dprof_userfiles__times - when a sampled file was sampled
 * @uf: the files
 * @i: which, in the order the last dprof_userfiles__sampled() named them
 *
 * After the last dprof_userfiles__sample(): the sample times of the
 * file's ips, by their offsets in the file (the ip - the mapping's start
 * + its file offset, as perf's symbols of a file are), ready for
 * dprof_ip_times__find().
 *
 * Return: the times, or NULL when @i is out of range.
 */
struct dprof_ip_times *dprof_userfiles__times(struct dprof_userfiles *uf, size_t i)
{
	struct dprof_ufile *f;

	if (!uf->names || i >= uf->nr_sampled)
		return NULL;
	f = uf->sampled[i];
	if (!f->times.sorted)
		dprof_ip_times__done(&f->times);
	return &f->times;
}
