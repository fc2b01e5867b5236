// SPDX-License-Identifier: GPL-2.0
/*
 * Set-associative LRU cache model for perf dprof: geometry from sysfs or
 * from a --cache string, and lines that remember who brought them in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/env.h"
#include "cachesim.h"

/**
 * dprof_cache_geom__set - fill and check a cache geometry
 * @g: the geometry to fill
 * @level: cache level, 0 when not known
 * @size: total bytes
 * @ways: associativity
 * @line: line size in bytes, a power of two
 *
 * Return: 0, or -EINVAL when the numbers do not make a cache.
 */
int dprof_cache_geom__set(struct dprof_cache_geom *g, int level, u64 size,
			  u32 ways, u32 line)
{
	if (!line || (line & (line - 1)) || !ways || !size ||
	    size % ((u64)line * ways) || size / line / ways > UINT32_MAX)
		return -EINVAL;
	g->level = level;
	g->size = size;
	g->ways = ways;
	g->line = line;
	g->nr_sets = size / line / ways;
	g->nr_shared = 0;
	return 0;
}

/* "32768K", "32M", "1G", "4096": bytes, or 0 */
static u64 parse_size(const char *str, const char **end)
{
	char *e;
	u64 v = strtoull(str, &e, 10);

	if (e == str)
		return 0;
	switch (*e) {
	case 'k': case 'K':
		v <<= 10;
		e++;
		break;
	case 'm': case 'M':
		v <<= 20;
		e++;
		break;
	case 'g': case 'G':
		v <<= 30;
		e++;
		break;
	default:
		break;
	}
	if (*e == 'B' || *e == 'b')
		e++;
	*end = e;
	return v;
}

/**
 * dprof_cache_geom__parse - parse a --cache string
 * @g: the geometry to fill
 * @str: "[lN:]SIZE[:WAYS[:LINE]]", e.g. "l3:32M:16:64" or "1M:8"; SIZE takes
 *       a K, M or G suffix; WAYS defaults to 8 and LINE to 64
 *
 * Return: 0, or -EINVAL for a malformed or impossible geometry.
 */
int dprof_cache_geom__parse(struct dprof_cache_geom *g, const char *str)
{
	unsigned long ways = 8, line = 64;
	const char *p = str;
	int level = 0;
	char *e;
	u64 size;

	if (!str)
		return -EINVAL;
	if ((p[0] == 'l' || p[0] == 'L') && p[1] >= '1' && p[1] <= '9' &&
	    p[2] == ':') {
		level = p[1] - '0';
		p += 3;
	}
	size = parse_size(p, &p);
	if (!size)
		return -EINVAL;
	if (*p == ':') {
		ways = strtoul(p + 1, &e, 10);
		if (e == p + 1)
			return -EINVAL;
		p = e;
		if (*p == ':') {
			line = strtoul(p + 1, &e, 10);
			if (e == p + 1)
				return -EINVAL;
			p = e;
		}
	}
	if (*p || ways > UINT32_MAX || line > UINT32_MAX)
		return -EINVAL;
	return dprof_cache_geom__set(g, level, size, ways, line);
}

static int read_attr(const char *dir, int idx, const char *name, char *buf,
		     size_t sz)
{
	char path[4096];
	FILE *fp;
	size_t n;

	if (snprintf(path, sizeof(path), "%s/index%d/%s", dir, idx, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fp = fopen(path, "r");
	if (!fp)
		return -errno;
	n = fread(buf, 1, sz - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n ? 0 : -EINVAL;
}

/* "0-1,4,6-7" -> 5 */
static u32 cpu_list__count(const char *list)
{
	const char *p = list;
	u32 n = 0;

	while (*p) {
		char *e;
		unsigned long a = strtoul(p, &e, 10), b = a;

		if (e == p)
			break;
		if (*e == '-') {
			p = e + 1;
			b = strtoul(p, &e, 10);
		}
		if (b >= a)
			n += b - a + 1;
		p = *e == ',' ? e + 1 : e;
		if (e == p && *p)
			break;
	}
	return n;
}

/**
 * dprof_cache_geom__sysfs - read a cache geometry from sysfs
 * @g: the geometry to fill
 * @dir: a cpu's cache directory, NULL for /sys/devices/system/cpu/cpu0/cache
 * @level: the level to read; 0 for the last (highest) data or unified level
 *
 * Reads index{N}/{level,type,size,ways_of_associativity,coherency_line_size,
 * shared_cpu_list}; instruction caches are skipped.
 *
 * Return: 0, -ENOENT when no such cache is described, -EINVAL when its
 * numbers do not make a cache.
 */
int dprof_cache_geom__sysfs(struct dprof_cache_geom *g, const char *dir,
			    int level)
{
	char buf[256];
	struct dprof_cache_geom best = { .level = -1 };
	int i, err;

	if (!dir)
		dir = "/sys/devices/system/cpu/cpu0/cache";
	for (i = 0; i < 16; i++) {
		struct dprof_cache_geom cur;
		unsigned long ways, line;
		const char *end;
		u64 size;
		int lvl;

		if (read_attr(dir, i, "level", buf, sizeof(buf)))
			continue;
		lvl = atoi(buf);
		if (read_attr(dir, i, "type", buf, sizeof(buf)) ||
		    !strcmp(buf, "Instruction"))
			continue;
		if ((level && lvl != level) || lvl <= best.level)
			continue;
		if (read_attr(dir, i, "size", buf, sizeof(buf)))
			continue;
		size = parse_size(buf, &end);
		if (read_attr(dir, i, "ways_of_associativity", buf, sizeof(buf)))
			continue;
		ways = strtoul(buf, NULL, 10);
		if (read_attr(dir, i, "coherency_line_size", buf, sizeof(buf)))
			continue;
		line = strtoul(buf, NULL, 10);
		err = dprof_cache_geom__set(&cur, lvl, size, ways, line);
		if (err)
			return err;
		if (!read_attr(dir, i, "shared_cpu_list", buf, sizeof(buf)))
			cur.nr_shared = cpu_list__count(buf);
		best = cur;
	}
	if (best.level < 0)
		return -ENOENT;
	*g = best;
	return 0;
}

/**
 * dprof_cache_geom__env - the cache geometry a perf.data header recorded
 * @g: the geometry to fill
 * @env: the session's environment (HEADER_CACHE)
 * @level: the level to take; 0 for the last data or unified level
 *
 * Return: 0, or -ENOENT when the header describes no such cache.
 */
int dprof_cache_geom__env(struct dprof_cache_geom *g,
			  const struct perf_env *env, int level)
{
	struct dprof_cache_geom best = { .level = -1 }, cur;
	int i;

	for (i = 0; env && i < env->caches_cnt; i++) {
		const struct cpu_cache_level *c = &env->caches[i];
		const char *end;

		if (!c->type || !strcmp(c->type, "Instruction") || !c->size ||
		    (level && (int)c->level != level) ||
		    (int)c->level <= best.level)
			continue;
		if (dprof_cache_geom__set(&cur, c->level, parse_size(c->size, &end),
					  c->ways, c->line_size))
			continue;
		if (c->map)
			cur.nr_shared = cpu_list__count(c->map);
		best = cur;
	}
	if (best.level < 0)
		return -ENOENT;
	*g = best;
	return 0;
}

/**
 * dprof_cache_geom__scnprintf - "L3 32 MB 16-way 64 B lines 32768 sets"
 * @g: the geometry
 * @buf: output
 * @sz: size of @buf
 *
 * Return: the number of characters written.
 */
int dprof_cache_geom__scnprintf(const struct dprof_cache_geom *g, char *buf,
				size_t sz)
{
	const char *unit = "B";
	u64 size = g->size;
	int n = 0;

	if (!(size % (1 << 20))) {
		size >>= 20;
		unit = "MB";
	} else if (!(size % 1024)) {
		size >>= 10;
		unit = "KB";
	}
	if (g->level)
		n += scnprintf(buf + n, sz - n, "L%d ", g->level);
	n += scnprintf(buf + n, sz - n, "%llu %s %u-way %u B lines %u sets",
		       (unsigned long long)size, unit, g->ways, g->line,
		       g->nr_sets);
	if (g->nr_shared)
		n += scnprintf(buf + n, sz - n, ", shared by %u CPUs",
			       g->nr_shared);
	return n;
}

/**
 * dprof_cache__init - an empty cache of geometry @g
 * @c: the cache
 * @g: its geometry (see dprof_cache_geom__set())
 *
 * Return: 0 or -ENOMEM.
 */
int dprof_cache__init(struct dprof_cache *c, const struct dprof_cache_geom *g)
{
	memset(c, 0, sizeof(*c));
	c->geom = *g;
	c->lines = calloc((size_t)g->nr_sets * g->ways, sizeof(*c->lines));
	return c->lines ? 0 : -ENOMEM;
}

/**
 * dprof_cache__exit - free the lines of @c
 * @c: the cache
 */
void dprof_cache__exit(struct dprof_cache *c)
{
	zfree(&c->lines);
}

static struct dprof_cache_line *dprof_cache__way(const struct dprof_cache *c,
						 u64 addr)
{
	u64 tag = addr / c->geom.line;
	struct dprof_cache_line *set;
	u32 w;

	set = &c->lines[(size_t)(tag % c->geom.nr_sets) * c->geom.ways];
	for (w = 0; w < c->geom.ways; w++) {
		if (set[w].stamp && set[w].tag == tag)
			return &set[w];
	}
	return NULL;
}

/**
 * dprof_cache__access - touch the line holding @addr
 * @c: the cache
 * @addr: the byte accessed
 * @owner: on a miss, the tag the new line gets; on a hit, replaces a NULL one
 * @obj: ... and its object id
 * @victim: when not NULL, receives the line evicted on a miss (stamp 0 if
 *          an empty way was filled)
 *
 * A miss fills the least recently used way of the set.
 *
 * Return: true on a hit.
 */
bool dprof_cache__access(struct dprof_cache *c, u64 addr, void *owner,
			 u64 obj, struct dprof_cache_line *victim)
{
	struct dprof_cache_line *l = dprof_cache__way(c, addr), *set;
	u64 tag = addr / c->geom.line;
	u32 w;

	c->nr_access++;
	c->clock++;
	if (l) {
		l->stamp = c->clock;
		if (owner) {
			l->owner = owner;
			l->obj = obj;
		}
		return true;
	}
	c->nr_miss++;
	set = &c->lines[(size_t)(tag % c->geom.nr_sets) * c->geom.ways];
	l = &set[0];
	for (w = 1; w < c->geom.ways && l->stamp; w++) {
		if (set[w].stamp < l->stamp)
			l = &set[w];
	}
	if (victim)
		*victim = *l;
	if (l->stamp)
		c->nr_evict++;
	l->tag = tag;
	l->stamp = c->clock;
	l->owner = owner;
	l->obj = obj;
	return false;
}

/**
 * dprof_cache__lookup - is the line holding @addr in @c? (no LRU update)
 * @c: the cache
 * @addr: a byte address
 */
bool dprof_cache__lookup(const struct dprof_cache *c, u64 addr)
{
	return !!dprof_cache__way(c, addr);
}

/**
 * dprof_cache__invalidate - drop the line holding @addr (coherence)
 * @c: the cache
 * @addr: a byte address
 *
 * Return: true when the line was present.
 */
bool dprof_cache__invalidate(struct dprof_cache *c, u64 addr)
{
	struct dprof_cache_line *l = dprof_cache__way(c, addr);

	if (!l)
		return false;
	memset(l, 0, sizeof(*l));
	return true;
}

/**
 * dprof_cache__disown - forget the owner of the lines of [@base, @base+@size)
 * @c: the cache
 * @base: first byte
 * @size: bytes
 *
 * A freed object's lines stay cached (the memory is still there, and the
 * allocator hands it out again while it is hot) but belong to nobody.
 */
void dprof_cache__disown(struct dprof_cache *c, u64 base, u64 size)
{
	u64 tag, first, last;

	if (!dprof_line_range(base, size, c->geom.line, &first, &last))
		return;
	for (tag = first; tag <= last; tag++) {
		struct dprof_cache_line *l = dprof_cache__way(c, tag * c->geom.line);

		if (l) {
			l->owner = NULL;
			l->obj = 0;
		}
	}
}
