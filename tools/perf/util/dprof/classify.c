// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof miss classification (paper section 3.3): each miss is an
 * invalidation (true or false sharing), a conflict or a capacity miss,
 * decided from the history of its cache line and the crowding of its
 * associativity set.
 *
 * The sets' crowding is the paper's histogram: the lines of the live
 * objects of each sampled type (its address set) at the offsets the
 * samples of that type touched, whether or not a sample hit that very
 * object yet; lines of memory with no allocation event (static, per-cpu,
 * objects older than the recording) count once sampled.  Counting only
 * the sampled lines would see a large working set period times too
 * slowly: its first misses would be unknown (no capacity yet), and the
 * sets of a sparse sample look crowded by chance (conflict).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/zalloc.h>

#include "util/hashmap.h"
#include "addrset.h"
#include "classify.h"
#include "profile.h"

#define DPROF_LINE_WRITES	4	/* the last 4 writes */
#define DPROF_WATCH_HITS	16	/* the last 16 hits of watched bytes */
/* a hit this soon before a miss, on its CPU and at its ip: its own access */
#define DPROF_OWN_HIT_NS	10000

/*
 * A sampled type: its counts, by (offset, ip) too, the offsets touched,
 * its live objects.
 */
struct dprof_cl_class {
	struct dprof_classify_stats	st;
	struct hashmap			*sites;		/* site -> site */
	unsigned long			*words;		/* 8-byte words touched */
	u64				nr_words;	/* bits in words */
	struct hashmap			*hitm_lines;	/* line of the object -> words with HITMs */
	struct list_head		objs;
};

/* A live object with an allocation event. */
struct dprof_cl_obj {
	struct list_head	node;
	u64			base;
	u64			size;
	struct dprof_cl_class	*cc;
};

/* What the replay saw of one cache line. */
struct dprof_line_hist {
	bool	ref;		/* counted in set_lines as sampled memory */
	struct {
		u64	seq;
		u64	mask;		/* bytes written, bit per byte */
		u32	cpu;
	} wr[DPROF_LINE_WRITES];	/* newest first */
};

/*
 * The watched bytes of one line (object histories): their last hits, in
 * the order they came, each with its time.  With rw=1 every read and
 * write of these bytes is a hit, so their order is complete.
 */
struct dprof_watch_line {
	u64	start;		/* watched bytes [start, end) */
	u64	end;
	u64	mask;		/* ... as a mask of the line */
	bool	doubt;		/* a hit neither read nor write: not exact */
	u32	nr;		/* hits kept */
	u32	head;		/* the next slot */
	u64	dropped;	/* older hits overwritten */
	struct {
		u64	time;
		u64	ip;
		u32	cpu;
		bool	write;
	} hit[DPROF_WATCH_HITS];
};

static const char * const miss_class_str[DPROF_MISS__MAX] = {
	[DPROF_MISS_TRUE_SHARING]	= "true sharing",
	[DPROF_MISS_FALSE_SHARING]	= "false sharing",
	[DPROF_MISS_CONFLICT]		= "conflict",
	[DPROF_MISS_CAPACITY]		= "capacity",
	[DPROF_MISS_UNKNOWN]		= "unknown",
};

/**
 * dprof_miss_class__str - name of a miss class
 * @mc: the class
 */
const char *dprof_miss_class__str(enum dprof_miss_class mc)
{
	return mc < DPROF_MISS__MAX ? miss_class_str[mc] : "?";
}

static size_t long__hash(long key, void *ctx __maybe_unused)
{
	return hash_64(key, 32);
}

static bool long__equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

static size_t site__hash(long key, void *ctx __maybe_unused)
{
	const struct dprof_classify_site *s = (const void *)key;

	return hash_64(s->ip ^ hash_64(s->offset, 32), 32);
}

static bool site__equal(long a, long b, void *ctx __maybe_unused)
{
	const struct dprof_classify_site *sa = (const void *)a;
	const struct dprof_classify_site *sb = (const void *)b;

	return sa->ip == sb->ip && sa->offset == sb->offset;
}

static struct dprof_classify *sink__cl(struct dprof_sink *sink)
{
	return container_of(sink, struct dprof_classify, sink);
}

/* Bytes [off, off + len) of a line as a mask (lines of up to 64 bytes). */
static u64 line_mask(u32 off, u32 len, u32 line)
{
	u32 bits = min(line, 64U);

	if (line > 64) {	/* track 64 chunks of line / 64 bytes */
		off = off * 64 / line;
		len = max(1U, len * 64 / line);
	}
	if (off >= bits)
		return 0;
	if (off + len > bits)
		len = bits - off;
	return (len >= 64 ? ~0ull : ((1ull << len) - 1)) << off;
}

/* A live object or sampled memory uses line @tag: the set histogram. */
static int dprof_classify__ref(struct dprof_classify *cl, u64 tag)
{
	long refs = 0;

	hashmap__find(cl->refs, (long)tag, &refs);
	if (hashmap__set(cl->refs, (long)tag, refs + 1, NULL, NULL))
		return -ENOMEM;
	if (!refs) {
		cl->set_lines[tag % cl->geom.nr_sets]++;
		if (++cl->nr_live_lines > cl->max_live_lines)
			cl->max_live_lines = cl->nr_live_lines;
	}
	return 0;
}

static void dprof_classify__unref(struct dprof_classify *cl, u64 tag)
{
	long refs;

	if (!hashmap__find(cl->refs, (long)tag, &refs))
		return;
	if (refs > 1) {
		hashmap__set(cl->refs, (long)tag, refs - 1, NULL, NULL);
		return;
	}
	hashmap__delete(cl->refs, (long)tag, NULL, NULL);
	cl->set_lines[tag % cl->geom.nr_sets]--;
	cl->nr_live_lines--;
}

/* The lines of @o at the offsets its type's samples touched. */
static int dprof_cl_obj__lines(struct dprof_classify *cl,
			       struct dprof_cl_obj *o, bool ref)
{
	unsigned long w, nr = min(o->cc->nr_words, DIV_ROUND_UP(o->size, 8));
	u64 tag, last = ~0ull;
	int err;

	for_each_set_bit(w, o->cc->words, nr) {
		tag = (o->base + w * 8) / cl->geom.line;
		if (tag == last)
			continue;
		last = tag;
		if (!ref) {
			dprof_classify__unref(cl, tag);
			continue;
		}
		err = dprof_classify__ref(cl, tag);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A sample of @cc touched the 8-byte word @w of an object: the lines
 * holding it in every live object of @cc join the histogram.
 */
static int dprof_cl_class__touch(struct dprof_classify *cl,
				 struct dprof_cl_class *cc, u64 w)
{
	u64 line = cl->geom.line;
	struct dprof_cl_obj *o;
	int err;

	if (w >= cc->nr_words) {
		u64 nr = round_up(max(w + 1, 2 * cc->nr_words), BITS_PER_LONG);
		unsigned long *words = realloc(cc->words, BITS_TO_LONGS(nr) *
					       sizeof(long));

		if (!words)
			return -ENOMEM;
		memset(words + BITS_TO_LONGS(cc->nr_words), 0,
		       (BITS_TO_LONGS(nr) - BITS_TO_LONGS(cc->nr_words)) *
		       sizeof(long));
		cc->words = words;
		cc->nr_words = nr;
	}
	if (test_bit(w, cc->words))
		return 0;
	list_for_each_entry(o, &cc->objs, node) {
		u64 tag = (o->base + w * 8) / line, lo, hi;

		if (w * 8 >= o->size)
			continue;
		/* the words of @o in that line: is it counted already? */
		lo = tag * line > o->base ? (tag * line - o->base) / 8 : 0;
		hi = min((tag + 1) * line - o->base, o->size);
		hi = min(DIV_ROUND_UP(hi, 8), cc->nr_words);
		if (find_next_bit(cc->words, hi, lo) < hi)
			continue;
		err = dprof_classify__ref(cl, tag);
		if (err)
			return err;
	}
	__set_bit(w, cc->words);
	return 0;
}

static struct dprof_cl_class *
dprof_classify__findnew(struct dprof_classify *cl, struct dprof_class *cls)
{
	struct dprof_cl_class *cc;

	if (hashmap__find(cl->classes, (long)cls, &cc))
		return cc;
	cc = zalloc(sizeof(*cc));
	if (!cc)
		return NULL;
	INIT_LIST_HEAD(&cc->objs);
	cc->sites = hashmap__new(site__hash, site__equal, NULL);
	if (IS_ERR(cc->sites)) {
		free(cc);
		return NULL;
	}
	if (hashmap__add(cl->classes, (long)cls, cc)) {
		hashmap__free(cc->sites);
		free(cc);
		return NULL;
	}
	return cc;
}

/* A miss of class @mc at @offset of @cc, by the instruction at @ip. */
static int dprof_cl_class__site_miss(struct dprof_cl_class *cc, u64 offset,
				     u64 ip, enum dprof_miss_class mc,
				     bool exact, bool hitm)
{
	struct dprof_classify_site tmp = { .offset = offset, .ip = ip }, *site;

	if (!hashmap__find(cc->sites, &tmp, &site)) {
		site = zalloc(sizeof(*site));
		if (!site)
			return -ENOMEM;
		site->offset = offset;
		site->ip = ip;
		if (hashmap__add(cc->sites, site, site)) {
			free(site);
			return -ENOMEM;
		}
	}
	site->st.accesses++;
	site->st.misses++;
	site->st.by_class[mc]++;
	site->st.exact += exact;
	site->st.hitm += hitm;
	return 0;
}

/* A measured HITM at @offset of @cc: its word in its line of the object. */
static int dprof_cl_class__hitm(struct dprof_cl_class *cc, u64 offset, u32 line)
{
	long key = offset / line, words = 0;

	if (!cc->hitm_lines) {
		cc->hitm_lines = hashmap__new(long__hash, long__equal, NULL);
		if (IS_ERR(cc->hitm_lines)) {
			cc->hitm_lines = NULL;
			return -ENOMEM;
		}
	}
	hashmap__find(cc->hitm_lines, key, &words);
	words |= 1L << (offset % line / 8 % (sizeof(long) * 8));
	return hashmap__insert(cc->hitm_lines, key, words, HASHMAP_SET, NULL, NULL);
}

static void dprof_classify__obj_del(struct dprof_classify *cl,
				    struct dprof_cl_obj *o)
{
	dprof_cl_obj__lines(cl, o, /*ref=*/false);
	hashmap__delete(cl->objs, (long)o->base, NULL, NULL);
	list_del(&o->node);
	free(o);
}

/* An object enters the address set: its lines at the touched offsets. */
static int dprof_classify__alloc(struct dprof_sink *sink,
				 const struct dprof_obj *obj,
				 u64 time __maybe_unused,
				 u32 cpu __maybe_unused)
{
	struct dprof_classify *cl = sink__cl(sink);
	struct dprof_cl_class *cc = dprof_classify__findnew(cl, obj->priv);
	struct dprof_cl_obj *o;

	if (!cc)
		return -ENOMEM;
	if (hashmap__find(cl->objs, (long)obj->base, &o))
		dprof_classify__obj_del(cl, o);		/* its free was lost */
	o = zalloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->base = obj->base;
	o->size = obj->size;
	o->cc = cc;
	if (hashmap__add(cl->objs, (long)o->base, o)) {
		free(o);
		return -ENOMEM;
	}
	list_add(&o->node, &cc->objs);
	return dprof_cl_obj__lines(cl, o, /*ref=*/true);
}

/* The line's history leaves with the last object that covered it. */
static void dprof_classify__forget(struct dprof_classify *cl, u64 tag)
{
	struct dprof_line_hist *h;

	if (!hashmap__delete(cl->lines, (long)tag, NULL, &h))
		return;
	if (h->ref)
		dprof_classify__unref(cl, tag);
	free(h);
}

/* The watch of an object ends with it: forget its watched bytes. */
static void dprof_classify__unwatch(struct dprof_classify *cl, u64 base,
				    u64 size)
{
	u64 tag, first, last;
	struct dprof_watch_line *wl;

	if (!cl->watched || !hashmap__size(cl->watched) ||
	    !dprof_line_range(base, size, cl->geom.line, &first, &last))
		return;
	for (tag = first; tag <= last; tag++) {
		if (!hashmap__find(cl->watched, (long)tag, &wl) ||
		    wl->start < base || wl->start - base >= size)
			continue;
		hashmap__delete(cl->watched, (long)tag, NULL, NULL);
		free(wl);
	}
}

static int dprof_classify__free(struct dprof_sink *sink,
				const struct dprof_obj *obj,
				u64 time __maybe_unused, u32 cpu __maybe_unused)
{
	struct dprof_classify *cl = sink__cl(sink);
	u64 line = cl->geom.line, first, last, tag;
	struct dprof_cl_obj *o;
	u32 i;

	if (hashmap__find(cl->objs, (long)obj->base, &o))
		dprof_classify__obj_del(cl, o);
	dprof_classify__unwatch(cl, obj->base, obj->size);

	if (!dprof_line_range(obj->base, obj->size, line, &first, &last))
		return 0;
	/* whole lines only: the partial ones hold other objects' bytes too */
	if (obj->base % line)
		first++;
	if ((obj->base + obj->size) % line) {
		if (!last)
			return 0;
		last--;
	}
	for (tag = first; tag <= last; tag++) {
		dprof_classify__forget(cl, tag);
		for (i = 0; i < cl->nr_cpu_cache; i++) {
			if (cl->cpu_cache[i])
				dprof_cache__disown(cl->cpu_cache[i],
						    tag * line, line);
		}
	}
	return 0;
}

static struct dprof_cache *dprof_classify__cpu(struct dprof_classify *cl,
					       u32 cpu)
{
	if (cpu >= 4096)
		cpu = 0;
	if (cpu >= cl->nr_cpu_cache) {
		u32 nr = max(cpu + 1, cl->nr_cpu_cache * 2);
		struct dprof_cache **c = realloc(cl->cpu_cache, nr * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + cl->nr_cpu_cache, 0,
		       (nr - cl->nr_cpu_cache) * sizeof(*c));
		cl->cpu_cache = c;
		cl->nr_cpu_cache = nr;
	}
	if (!cl->cpu_cache[cpu]) {
		struct dprof_cache *c = zalloc(sizeof(*c));

		if (!c || dprof_cache__init(c, &cl->geom)) {
			free(c);
			return NULL;
		}
		cl->cpu_cache[cpu] = c;
	}
	return cl->cpu_cache[cpu];
}

/* Predicted: run the access through the per-CPU models; true on a miss. */
static int dprof_classify__predict(struct dprof_classify *cl,
				   const struct dprof_access *acc, bool *miss)
{
	struct dprof_cache *c = dprof_classify__cpu(cl, acc->cpu);
	u32 i;

	if (!c)
		return -ENOMEM;
	*miss = !dprof_cache__access(c, acc->addr, NULL, 0, NULL);
	if (!acc->is_write)
		return 0;
	for (i = 0; i < cl->nr_cpu_cache; i++) {
		if (cl->cpu_cache[i] && cl->cpu_cache[i] != c)
			dprof_cache__invalidate(cl->cpu_cache[i], acc->addr);
	}
	return 0;
}

/* Did a CPU other than @cpu write the watched bytes in (@after, @before)? */
static bool watch_line__other_write(const struct dprof_watch_line *wl,
				    u32 cpu, u64 after, bool has_after,
				    u64 before)
{
	u32 i;

	for (i = 0; i < wl->nr; i++) {
		if (wl->hit[i].write && wl->hit[i].cpu != cpu &&
		    wl->hit[i].time < before &&
		    (!has_after || wl->hit[i].time > after))
			return true;
	}
	return false;
}

/*
 * The exact rule (object histories): did another CPU write the watched
 * bytes since @cpu last accessed them, before the miss at @time by the
 * instruction at @ip?  Only hits strictly before @time count.  The miss's
 * own access is a hit too: when @cpu's last hit is at @ip and just
 * before @time, it is taken for the miss itself and the access before it
 * is @cpu's last one.  With no earlier access by @cpu, any write by
 * another CPU since the watch began counts (the object came to @cpu).
 *
 * Return: 1 yes, 0 no, -1 the kept hits cannot tell (a hit whose
 * direction is unknown, or @cpu's last access overwritten by newer hits).
 */
static int watch_line__invalidated(const struct dprof_watch_line *wl,
				   u32 cpu, u64 time, u64 ip)
{
	u64 last = 0, prev = 0, last_ip = 0;
	bool has_last = false, has_prev = false;
	u32 i;

	if (wl->doubt)
		return -1;
	for (i = 0; i < wl->nr; i++) {
		u64 t = wl->hit[i].time;

		if (wl->hit[i].cpu != cpu || t >= time)
			continue;
		if (!has_last || t > last) {
			prev = last;
			has_prev = has_last;
			last = t;
			last_ip = wl->hit[i].ip;
			has_last = true;
		} else if (!has_prev || t > prev) {
			prev = t;
			has_prev = true;
		}
	}
	if (watch_line__other_write(wl, cpu, last, has_last, time))
		return 1;
	if (has_last && last_ip == ip && time - last <= DPROF_OWN_HIT_NS) {
		if (watch_line__other_write(wl, cpu, prev, has_prev, last))
			return 1;
		has_last = has_prev;
	}
	/* @cpu's last access may be among the hits dropped */
	return !has_last && wl->dropped ? -1 : 0;
}

/*
 * @inv: the exact rule's answer for the watched bytes @wmask the miss is
 * on (watch_line__invalidated()), or -1 to decide from access samples.
 */
static enum dprof_miss_class
dprof_classify__why(struct dprof_classify *cl, struct dprof_line_hist *h,
		    u32 cpu, u64 mask, u64 tag, int inv, u64 wmask)
{
	u32 set = tag % cl->geom.nr_sets;
	u64 other = 0;
	int i;

	if (inv > 0)
		return DPROF_MISS_TRUE_SHARING;
	for (i = 0; i < DPROF_LINE_WRITES; i++) {
		if (h->wr[i].seq && h->wr[i].cpu != cpu)
			other |= h->wr[i].mask;
	}
	/* the watched bytes were exactly not written: other bytes may be */
	if (!inv)
		other &= ~wmask;
	if (other)
		return other & mask ? DPROF_MISS_TRUE_SHARING :
				      DPROF_MISS_FALSE_SHARING;
	/* more lines than ways, and at least twice the average set */
	if (cl->set_lines[set] > cl->geom.ways &&
	    (u64)cl->set_lines[set] * cl->geom.nr_sets >= 2 * cl->nr_live_lines)
		return DPROF_MISS_CONFLICT;
	if (cl->nr_live_lines * cl->geom.line > cl->geom.size)
		return DPROF_MISS_CAPACITY;
	return DPROF_MISS_UNKNOWN;
}

static void dprof_line_hist__touch(struct dprof_line_hist *h, u64 seq,
				   u32 cpu, bool write, u64 mask)
{
	if (!write)
		return;
	if (h->wr[0].seq && h->wr[0].cpu == cpu) {
		h->wr[0].seq = seq;
		h->wr[0].mask |= mask;
		return;
	}
	memmove(&h->wr[1], &h->wr[0], sizeof(h->wr[0]) * (DPROF_LINE_WRITES - 1));
	h->wr[0].seq = seq;
	h->wr[0].cpu = cpu;
	h->wr[0].mask = mask;
}

static int dprof_classify__access(struct dprof_sink *sink,
				  const struct dprof_access *acc,
				  struct dprof_class *cls, u64 offset)
{
	struct dprof_classify *cl = sink__cl(sink);
	u64 tag = acc->addr / cl->geom.line;
	struct dprof_classify_stats *st;
	struct dprof_watch_line *wl = NULL;
	struct dprof_line_hist *h;
	struct dprof_cl_class *cc;
	struct dprof_cl_obj *o;
	enum dprof_miss_class mc;
	bool miss = false, tracked, hitm;
	u64 mask;
	int err, inv = -1;

	cc = dprof_classify__findnew(cl, cls);
	if (!cc)
		return -ENOMEM;
	st = &cc->st;
	/* an object of the address set, or memory known by its samples */
	tracked = hashmap__find(cl->objs, (long)(acc->addr - offset), &o) &&
		  o->cc == cc && offset < o->size;
	if (tracked) {
		err = dprof_cl_class__touch(cl, cc, offset / 8);
		if (err)
			return err;
	}
	cl->seq++;
	mask = line_mask(acc->addr % cl->geom.line, cl->access_size,
			 cl->geom.line);
	if (acc->level_known) {
		miss = acc->miss;
		cl->nr_measured += miss;
	} else {
		err = dprof_classify__predict(cl, acc, &miss);
		if (err)
			return err;
		cl->nr_predicted += miss;
	}

	if (!hashmap__find(cl->lines, (long)tag, &h)) {
		h = zalloc(sizeof(*h));
		if (!h)
			return -ENOMEM;
		if (hashmap__add(cl->lines, (long)tag, h)) {
			free(h);
			return -ENOMEM;
		}
	}
	if (!tracked && !h->ref) {
		err = dprof_classify__ref(cl, tag);
		if (err)
			return err;
		h->ref = true;
	}

	st->accesses++;
	cl->total.accesses++;
	if (miss) {
		/* on watched bytes: their histories tell (exact) */
		if (hashmap__find(cl->watched, (long)tag, &wl) &&
		    acc->addr >= wl->start && acc->addr < wl->end)
			inv = watch_line__invalidated(wl, acc->cpu, acc->time,
						      acc->ip);
		mc = dprof_classify__why(cl, h, acc->cpu, mask, tag, inv,
					 inv >= 0 ? wl->mask : 0);
		st->misses++;
		st->by_class[mc]++;
		st->exact += inv >= 0;
		cl->total.misses++;
		cl->total.by_class[mc]++;
		cl->total.exact += inv >= 0;
		if (inv >= 0)
			cl->nr_exact++;
		else
			cl->nr_stat++;
		hitm = acc->level_known && acc->hitm;
		err = dprof_cl_class__site_miss(cc, offset, acc->ip, mc,
						inv >= 0, hitm);
		if (!err && hitm) {
			st->hitm++;
			cl->total.hitm++;
			cl->nr_hitm++;
			err = dprof_cl_class__hitm(cc, offset, cl->geom.line);
		}
		if (err)
			return err;
	}
	dprof_line_hist__touch(h, cl->seq, acc->cpu, acc->is_write, mask);
	return 0;
}

/*
 * A watch hit on @len bytes at @addr by the instruction at @ip (@write: 1
 * a write, 0 a read, -1 unknown: the line's misses then stay statistical).
 * In time order with the replay's access samples, misses on the watched
 * bytes are then classified by the exact rule.  The watched bytes are
 * forgotten when their object is freed.
 */
static int dprof_classify__watch(struct dprof_classify *cl, u64 addr, u32 len,
				 u64 ip, u32 cpu, u64 time, int write)
{
	u64 line = cl->geom.line, end = addr + max(len, 1U), tag, first, last;
	struct dprof_watch_line *wl;

	cl->nr_hits++;
	if (write < 0)
		cl->nr_hits_undecoded++;
	/* bytes up to the top of the address space: not a kernel object's */
	if (end <= addr || !dprof_line_range(addr, end - addr, line, &first, &last))
		return 0;
	for (tag = first; tag <= last; tag++) {
		u64 s = max(addr, tag * line), e = tag == last ? end : (tag + 1) * line;
		u32 slot;

		if (!hashmap__find(cl->watched, (long)tag, &wl)) {
			wl = zalloc(sizeof(*wl));
			if (!wl)
				return -ENOMEM;
			if (hashmap__add(cl->watched, (long)tag, wl)) {
				free(wl);
				return -ENOMEM;
			}
		}
		if (wl->start != s || wl->end != e) {	/* another watch */
			memset(wl, 0, sizeof(*wl));
			wl->start = s;
			wl->end = e;
			wl->mask = line_mask(s - tag * line, e - s, line);
		}
		wl->doubt |= write < 0;
		slot = wl->head;
		wl->hit[slot].time = time;
		wl->hit[slot].ip = ip;
		wl->hit[slot].cpu = cpu;
		wl->hit[slot].write = write > 0;
		wl->head = (slot + 1) % DPROF_WATCH_HITS;
		if (wl->nr < DPROF_WATCH_HITS)
			wl->nr++;
		else
			wl->dropped++;
	}
	return 0;
}

/*
 * Only a watch that traps reads too (rw) sees every access to its bytes,
 * which the exact rule needs.
 */
static int dprof_classify__hit(struct dprof_sink *sink,
			       const struct dprof_hit *hit)
{
	if (!hit->rw)
		return 0;
	return dprof_classify__watch(sink__cl(sink), hit->addr, hit->len ?: 1,
				     hit->access_ip, hit->cpu, hit->time,
				     hit->write);
}

/**
 * dprof_classify__init - a miss classifier for a cache of geometry @geom
 * @cl: the classifier; add &cl->sink to the replay's sinks
 * @geom: the cache whose misses are classified (and modelled per CPU when
 *        the sampler measured none)
 *
 * Return: 0 or a negative errno.
 */
int dprof_classify__init(struct dprof_classify *cl,
			 const struct dprof_cache_geom *geom)
{
	memset(cl, 0, sizeof(*cl));
	INIT_LIST_HEAD(&cl->sink.node);
	cl->sink.access = dprof_classify__access;
	cl->sink.alloc = dprof_classify__alloc;
	cl->sink.free = dprof_classify__free;
	cl->sink.hit = dprof_classify__hit;
	cl->geom = *geom;
	cl->access_size = 8;
	cl->lines = hashmap__new(long__hash, long__equal, NULL);
	cl->watched = hashmap__new(long__hash, long__equal, NULL);
	cl->classes = hashmap__new(long__hash, long__equal, NULL);
	cl->objs = hashmap__new(long__hash, long__equal, NULL);
	cl->refs = hashmap__new(long__hash, long__equal, NULL);
	cl->set_lines = calloc(geom->nr_sets, sizeof(*cl->set_lines));
	if (IS_ERR(cl->lines) || IS_ERR(cl->classes) || IS_ERR(cl->objs) ||
	    IS_ERR(cl->refs) || IS_ERR(cl->watched) || !cl->set_lines) {
		if (IS_ERR(cl->lines))
			cl->lines = NULL;
		if (IS_ERR(cl->watched))
			cl->watched = NULL;
		if (IS_ERR(cl->classes))
			cl->classes = NULL;
		if (IS_ERR(cl->objs))
			cl->objs = NULL;
		if (IS_ERR(cl->refs))
			cl->refs = NULL;
		dprof_classify__exit(cl);
		return -ENOMEM;
	}
	return 0;
}

/**
 * dprof_classify__exit - free what the classifier holds
 * @cl: the classifier
 */
void dprof_classify__exit(struct dprof_classify *cl)
{
	struct hashmap_entry *cur;
	size_t bkt;
	u32 i;

	if (cl->lines) {
		hashmap__for_each_entry(cl->lines, cur, bkt)
			free(cur->pvalue);
		hashmap__free(cl->lines);
		cl->lines = NULL;
	}
	if (cl->watched) {
		hashmap__for_each_entry(cl->watched, cur, bkt)
			free(cur->pvalue);
		hashmap__free(cl->watched);
		cl->watched = NULL;
	}
	if (cl->objs) {
		hashmap__for_each_entry(cl->objs, cur, bkt)
			free(cur->pvalue);
		hashmap__free(cl->objs);
		cl->objs = NULL;
	}
	hashmap__free(cl->refs);
	cl->refs = NULL;
	if (cl->classes) {
		hashmap__for_each_entry(cl->classes, cur, bkt) {
			struct dprof_cl_class *cc = cur->pvalue;
			struct hashmap_entry *site;
			size_t sbkt;

			hashmap__for_each_entry(cc->sites, site, sbkt)
				free(site->pvalue);
			hashmap__free(cc->sites);
			hashmap__free(cc->hitm_lines);
			free(cc->words);
			free(cc);
		}
		hashmap__free(cl->classes);
		cl->classes = NULL;
	}
	for (i = 0; i < cl->nr_cpu_cache; i++) {
		if (cl->cpu_cache[i])
			dprof_cache__exit(cl->cpu_cache[i]);
		free(cl->cpu_cache[i]);
	}
	zfree(&cl->cpu_cache);
	cl->nr_cpu_cache = 0;
	zfree(&cl->set_lines);
}

/**
 * dprof_classify__finish - measured sharing evidence, once the replay is done
 * @cl: the classifier
 *
 * Each site's HITMs (and so its class's) are true sharing evidence when
 * the HITMs on its line of the object all hit one 8-byte word, false
 * sharing evidence when they hit several: decided on all of them, not
 * on those seen so far.
 */
void dprof_classify__finish(struct dprof_classify *cl)
{
	struct hashmap_entry *cur, *sc;
	size_t bkt, sbkt;

	if (!cl->classes || !cl->nr_hitm)
		return;
	cl->total.hitm_ts = 0;
	cl->total.hitm_fs = 0;
	hashmap__for_each_entry(cl->classes, cur, bkt) {
		struct dprof_cl_class *cc = cur->pvalue;

		cc->st.hitm_ts = 0;
		cc->st.hitm_fs = 0;
		if (!cc->hitm_lines)
			continue;
		hashmap__for_each_entry(cc->sites, sc, sbkt) {
			struct dprof_classify_site *site = sc->pvalue;
			long words = 0;

			if (!site->st.hitm)
				continue;
			hashmap__find(cc->hitm_lines, (long)(site->offset / cl->geom.line),
				      &words);
			site->st.hitm_ts = hweight_long(words) > 1 ? 0 : site->st.hitm;
			site->st.hitm_fs = site->st.hitm - site->st.hitm_ts;
			cc->st.hitm_ts += site->st.hitm_ts;
			cc->st.hitm_fs += site->st.hitm_fs;
		}
		cl->total.hitm_ts += cc->st.hitm_ts;
		cl->total.hitm_fs += cc->st.hitm_fs;
	}
}

/**
 * dprof_classify__class - the counts of one allocation class
 * @cl: the classifier
 * @cls: the class
 *
 * Return: its counts, or NULL when no access of @cls was seen.
 */
const struct dprof_classify_stats *
dprof_classify__class(const struct dprof_classify *cl,
		      const struct dprof_class *cls)
{
	struct dprof_cl_class *cc;

	if (!cl->classes || !hashmap__find(cl->classes, (long)cls, &cc) ||
	    !cc->st.accesses)
		return NULL;
	return &cc->st;
}

/**
 * dprof_classify__sites - the misses of a class by (offset, ip)
 * @cl: the classifier
 * @cls: the class
 * @fn: called for each (offset, ip) of @cls that missed, in no order
 * @arg: passed to @fn
 *
 * Return: 0, or the first non-zero return of @fn.
 */
int dprof_classify__sites(const struct dprof_classify *cl,
			  const struct dprof_class *cls,
			  dprof_classify_site_fn_t fn, void *arg)
{
	struct dprof_cl_class *cc;
	struct hashmap_entry *cur;
	size_t bkt;
	int err;

	if (!cl->classes || !hashmap__find(cl->classes, (long)cls, &cc))
		return 0;
	hashmap__for_each_entry(cc->sites, cur, bkt) {
		err = fn(cur->pvalue, arg);
		if (err)
			return err;
	}
	return 0;
}
