// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the kmem record-end pass, a recording's slab objects kept by
 * where the samples fell.
 *
 * A sample resolves to a slab object only when its data address is inside
 * the object while the replay holds it: live (from its allocation to its
 * free, or a mempool's put) or dead (freed, its memory the cache's, until
 * another object's free or the slab's takes its place).  An object no
 * sample's address fell in during that time is in no view but as counts:
 * its events are left out, and counted per class (call site and size) and
 * task in a summary the replay adds back (replay-kmem.c).
 *
 * The pass walks the data section, takes the kmem events in time order and
 * follows each address as the replay does (the same address sets, so that
 * an allocation over a live object or over a different freed one is seen
 * here as there), one "life" per allocation at an address until the next
 * allocation there.  A life is kept when a sample fell in its bytes
 * between the event before it at that address and the time its object
 * left both sets, or when its events are not a plain allocation, puts,
 * gets and free (an unknown free, a get of no known size): the counts of
 * those stay the replay's own.  An allocation over a live object (its
 * free unseen) keeps neither: the sums count the overlaps of the lives
 * left out, and where a kept life was overlapped by one left out, that
 * allocation's event stays as a mark, so that the kept life ends there in
 * the replay too.  A kernel sample whose code could not be read (no
 * /proc/kcore, no vmlinux) keeps the lives its registers pointed into at
 * its time (keep.h).
 *
 * The file is then written again, as perf inject writes one: the header
 * and attributes as they were, the data section without the events left
 * out, the feature sections moved down, the summary in a feature section
 * of its own, and renamed over the recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <perf/event.h>
#include <traceevent/event-parse.h>
#include <internal/lib.h>

#include "util/data.h"
#include "util/debug.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/header.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/symbol.h"
#include "util/synthetic-events.h"
#include "util/tool.h"
#include "addrset.h"
#include "decoded.h"
#include "hashfn.h"
#include "keep.h"
#include "prune.h"
#include "record.h"
#include "replay.h"
#include "watch.h"

/* the largest object the replay takes (replay-obj.h's DPROF_OBJ_SIZE_MAX) */
#define DPROF_PRUNE_OBJ_MAX	BIT_ULL(30)
#define DPROF_PRUNE_NONE	UINT32_MAX
#define DPROF_PRUNE_GIVE_BACK	(64ULL << 20)

enum dprof_kev_kind {
	DPROF_KEV_NONE,
	DPROF_KEV_ALLOC,	/* kmem_cache_alloc */
	DPROF_KEV_KMALLOC,
	DPROF_KEV_FREE,		/* kmem_cache_free, kfree */
	DPROF_KEV_PUT,		/* mempool_put */
	DPROF_KEV_RCU,		/* kfree_rcu */
	DPROF_KEV_GET,		/* mempool_get */
	DPROF_KEV_SLAB_FREE,
};

static const struct {
	const char		*name;
	enum dprof_kev_kind	kind;
} dprof_kev_names[] = {
	{ "kmem:kmem_cache_alloc",	DPROF_KEV_ALLOC, },
	{ "kmem:kmalloc",		DPROF_KEV_KMALLOC, },
	{ "kmem:kmem_cache_free",	DPROF_KEV_FREE, },
	{ "kmem:kfree",			DPROF_KEV_FREE, },
	{ DPROF_MEMPOOL_PUT_TRACEPOINT,	DPROF_KEV_PUT, },
	{ DPROF_KFREE_RCU_TRACEPOINT,	DPROF_KEV_RCU, },
	{ DPROF_MEMPOOL_GET_TRACEPOINT,	DPROF_KEV_GET, },
	{ DPROF_SLAB_FREE_TRACEPOINT,	DPROF_KEV_SLAB_FREE, },
};

/* a kmem event, in the data section at @off: 48 bytes, one per event */
struct dprof_kev {
	u64	time;
	u64	off;
	u64	ptr;
	u64	life;	/* an end: the life it ended, or UINT64_MAX */
	u32	size;	/* alloc: bytes_alloc; get: the object's; slab free: its bytes */
	u32	life_id;/* ... its life (DPROF_PRUNE_NONE: none) */
	u32	start;	/* an end: the event that started its object */
	u8	kind;
	bool	unknown;/* a free of no object the replay knows */
	bool	mark;	/* a start left out, kept to end lives it overlapped */
};

/* sizes over DPROF_PRUNE_OBJ_MAX are one value over it, which no object takes */
static u32 dprof_kev__size(u64 size)
{
	return min_t(u64, size, DPROF_PRUNE_OBJ_MAX + 1);
}

/* one allocation at an address, until the next there */
struct dprof_life {
	u64	from, to;
	u32	size;		/* at most DPROF_PRUNE_OBJ_MAX */
	u32	present;	/* in the live or the dead set */
	u32	start;		/* the event that started its current object */
	bool	keep;
};

/*
 * Life @by, freed over the dead object of life @dead (another range):
 * the replay lets @dead go from its dead set there, so @by is kept when
 * @dead is (see dprof_prune__dead_release()).
 */
struct dprof_took {
	u32	dead, by;
};

/*
 * The start event @ev of life @by overlapped the live object of life @old,
 * whose end was unseen: the replay ends @old there when it has @ev.
 */
struct dprof_over {
	u32	old, by, ev;
};

/* a kernel sample's time, and its index in dprof_touches::kt */
struct dprof_ksample {
	u64	time;
	u32	k;
};

struct dprof_kev_evsel {
	enum dprof_kev_kind	kind;
	bool			decode;	/* the sampler's, written decoded */
	struct dprof_kmem_fields f;
};

struct dprof_prune {
	struct perf_session	*session;
	struct dprof_kev_evsel	*evsels;	/* by evsel index */
	int			nr_evsels;
	const u8		*map;
	size_t			map_len;
	struct dprof_kev	*ev;
	size_t			nr, alloc;
	struct dprof_life	*lives;
	size_t			nr_lives, alloc_lives;
	struct dprof_addrset	as, dead;
	struct dprof_took	*took;		/* in time order */
	size_t			nr_took, alloc_took;
	struct dprof_over	*overs;
	size_t			nr_overs, alloc_overs;
	size_t			nr_marks;
	/*
	 * The kernel samples, in time order (indexes into touches->kt), the
	 * next to place, and whether a live object held each one's address
	 */
	const struct dprof_touches *touches;
	struct dprof_ksample	*korder;
	size_t			knext;
	bool			*kcovered;
	u32			cur;		/* the life being inserted */
	u32			cur_ev;		/* ... by this event */
	bool			snapshot;	/* the slab snapshot's event */
	bool			cache_alloc;	/* kmem_cache_alloc's */
	int			nr_decode;	/* samplers written decoded */
	struct dprof_decoded_feat *dfeat;	/* ... their section */
	u64			decoded, dec_regs; /* samples so, with registers */
	u64			now;
	bool			done;
};

static struct dprof_kev_evsel *dprof_prune__evsel(struct dprof_prune *p, struct evsel *evsel)
{
	if (!evsel || evsel->core.idx < 0 || evsel->core.idx >= p->nr_evsels)
		return NULL;
	return p->evsels[evsel->core.idx].kind ? &p->evsels[evsel->core.idx] : NULL;
}

/*
 * The kmem events' fields, and the samplers that can be written decoded;
 * a watch (object histories) says @watch.
 */
static int dprof_prune__scan_evlist(struct dprof_prune *p, struct evlist *evlist,
				    bool *kmem, bool *watch)
{
	struct evsel *evsel;
	size_t i;

	p->nr_evsels = evlist->core.nr_entries;
	p->evsels = calloc(p->nr_evsels, sizeof(*p->evsels));
	if (!p->evsels)
		return -ENOMEM;
	*kmem = *watch = false;
	evlist__for_each_entry(evlist, evsel) {
		struct dprof_kev_evsel *k = &p->evsels[evsel->core.idx];

		*watch |= strstarts(evsel__name(evsel), DPROF_WATCH_PMU "/");
		p->snapshot |= !strcmp(evsel__name(evsel), DPROF_SNAPSHOT_TRACEPOINT);
		if (dprof_decoded__can(evsel)) {
			k->decode = true;
			p->nr_decode++;
		}
		if (evsel->core.attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		for (i = 0; i < ARRAY_SIZE(dprof_kev_names); i++) {
			if (strcmp(evsel__name(evsel), dprof_kev_names[i].name))
				continue;
			k->kind = dprof_kev_names[i].kind;
			k->f.evsel = evsel;
			k->f.ptr = evsel__field(evsel, k->kind == DPROF_KEV_SLAB_FREE ?
						"addr" : "ptr");
			k->f.call_site = evsel__field(evsel, "call_site");
			k->f.bytes_req = evsel__field(evsel, k->kind == DPROF_KEV_SLAB_FREE ?
						      "objects" : "bytes_req");
			k->f.bytes_alloc = evsel__field(evsel, k->kind == DPROF_KEV_SLAB_FREE ?
							"size" : "bytes_alloc");
			k->f.name = evsel__field(evsel, "name");
			if (!k->f.ptr || !(evsel->core.attr.sample_type & PERF_SAMPLE_TIME))
				k->kind = DPROF_KEV_NONE;
			*kmem |= k->kind == DPROF_KEV_ALLOC || k->kind == DPROF_KEV_KMALLOC;
			p->cache_alloc |= k->kind == DPROF_KEV_ALLOC;
		}
	}
	return 0;
}

const char *dprof_kmem__strval(struct tep_format_field *field, struct perf_sample *sample)
{
	const char *raw = sample->raw_data;
	u32 off, len;

	if (!field || (u64)field->offset + field->size > sample->raw_size)
		return NULL;
	off = field->offset;
	len = field->size;
	if (field->flags & TEP_FIELD_IS_DYNAMIC) {
		u32 loc;

		memcpy(&loc, raw + field->offset, sizeof(loc));
		off = loc & 0xffff;
		len = loc >> 16;
		if (tep_field_is_relative(field->flags))
			off += field->offset + field->size;
	}
	if (!len || (u64)off + len > sample->raw_size || !memchr(raw + off, 0, len))
		return NULL;
	return raw + off;
}

static u64 dprof_prune__intval(struct tep_format_field *field, struct perf_sample *sample)
{
	if (!field || (u64)field->offset + field->size > sample->raw_size)
		return 0;
	return format_field__intval(field, sample, /*needs_swap=*/false);
}

/* The record at @off parsed: its kmem evsel, or NULL. */
static struct dprof_kev_evsel *dprof_prune__parse(struct dprof_prune *p, u64 off,
						  struct perf_sample *sample)
{
	union perf_event *event = (union perf_event *)(p->map + off);
	struct evsel *evsel;
	struct dprof_kev_evsel *k;

	if (event->header.type != PERF_RECORD_SAMPLE)
		return NULL;
	evsel = evlist__event2evsel(p->session->evlist, event);
	k = dprof_prune__evsel(p, evsel);
	if (!k)
		return NULL;
	memset(sample, 0, sizeof(*sample));
	if (evsel__parse_sample(evsel, event, sample) || !sample->raw_data)
		return NULL;
	return k;
}

static int dprof_prune__add(struct dprof_prune *p, u64 off)
{
	struct dprof_kev_evsel *k;
	struct perf_sample sample;
	struct dprof_kev *e;
	u64 size;

	k = dprof_prune__parse(p, off, &sample);
	if (!k)
		return 0;
	if (p->nr == p->alloc) {
		/* by halves: a doubling would leave up to half of it unused */
		size_t n = p->alloc ? p->alloc + p->alloc / 2 : 65536;

		e = realloc(p->ev, n * sizeof(*e));
		if (!e)
			return -ENOMEM;
		p->ev = e;
		p->alloc = n;
	}
	e = &p->ev[p->nr++];
	memset(e, 0, sizeof(*e));
	e->time = sample.time;
	e->off = off;
	e->kind = k->kind;
	e->ptr = dprof_prune__intval(k->f.ptr, &sample);
	size = dprof_prune__intval(k->f.bytes_alloc, &sample);
	if (k->kind == DPROF_KEV_SLAB_FREE) {
		u64 objects = dprof_prune__intval(k->f.bytes_req, &sample);

		size = objects && size > DPROF_PRUNE_OBJ_MAX / objects ?
		       DPROF_PRUNE_OBJ_MAX + 1 : size * objects;
	}
	e->size = dprof_kev__size(size);
	e->life = UINT64_MAX;
	e->life_id = DPROF_PRUNE_NONE;
	e->start = DPROF_PRUNE_NONE;
	return 0;
}

/* The size of the record at @off; 0: damaged. */
static u64 dprof_prune__record_size(const union perf_event *event, u64 left)
{
	u64 size = event->header.size;

	if (size < sizeof(event->header) || size > left)
		return 0;
	if (event->header.type == PERF_RECORD_AUXTRACE) {
		if (size < sizeof(event->auxtrace))
			return 0;
		size += event->auxtrace.size;
		if (size > left)
			return 0;
	}
	return size;
}

/*
 * The pages of the file before @off, from *@from on, given back once they
 * are DPROF_PRUNE_GIVE_BACK bytes: the passes read the file in order, and
 * a recording can be larger than the memory left beside it.  The mapping
 * is private and never written: a page read again comes from the page
 * cache.
 */
static void dprof_prune__give_back(struct dprof_prune *p, u64 *from, u64 off)
{
	u64 to = min_t(u64, off, p->map_len) & ~((u64)page_size - 1);

	if (to < *from + DPROF_PRUNE_GIVE_BACK)
		return;
	madvise((void *)(p->map + *from), to - *from, MADV_DONTNEED);
	*from = to;
}

/* The data section's kmem events. */
static int dprof_prune__read(struct dprof_prune *p, u64 data_off, u64 data_size)
{
	u64 off, from = 0;
	int err;

	for (off = data_off; off < data_off + data_size;) {
		const union perf_event *event = (const void *)(p->map + off);
		u64 size;

		if (data_off + data_size - off < sizeof(event->header))
			return -EINVAL;
		size = dprof_prune__record_size(event, data_off + data_size - off);
		if (!size)
			return -EINVAL;
		if (event->header.type == PERF_RECORD_COMPRESSED)
			return -EOPNOTSUPP;
		err = dprof_prune__add(p, off);
		if (err)
			return err;
		off += size;
		dprof_prune__give_back(p, &from, off);
	}
	return 0;
}

static int dprof_kev__cmp(const void *a, const void *b)
{
	const struct dprof_kev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* ---------------------------------------------------------------------- */
/* the addresses followed as the replay follows them                      */

static u32 dprof_obj__life(const struct dprof_obj *obj)
{
	return obj->priv ? (u32)((uintptr_t)obj->priv - 1) : DPROF_PRUNE_NONE;
}

static void dprof_life__leave(struct dprof_prune *p, u32 id)
{
	struct dprof_life *l = &p->lives[id];

	if (l->present && !--l->present)
		l->to = p->now;
}

/*
 * Allocation @p->cur_ev of life @p->cur overlapped life @old, live: decided
 * once the samples said which lives are kept (dprof_prune__overs()).  A
 * get's overlap keeps both, as the replay counts it.
 */
static void dprof_prune__over(struct dprof_prune *p, u32 old)
{
	u8 kind = p->ev[p->cur_ev].kind;

	if (kind != DPROF_KEV_ALLOC && kind != DPROF_KEV_KMALLOC)
		goto keep;
	if (p->nr_overs == p->alloc_overs) {
		size_t n = p->alloc_overs ? 2 * p->alloc_overs : 4096;
		struct dprof_over *o = realloc(p->overs, n * sizeof(*o));

		if (!o)
			goto keep;
		p->overs = o;
		p->alloc_overs = n;
	}
	p->overs[p->nr_overs++] = (struct dprof_over){
		.old = old, .by = p->cur, .ev = p->cur_ev,
	};
	return;
keep:
	p->lives[old].keep = true;
	p->lives[p->cur].keep = true;
}

/* An object leaves the live set: freed (moved, or taken by a get), or overlapped. */
static void dprof_prune__as_release(struct dprof_addrset *as, struct dprof_obj *obj, bool freed)
{
	struct dprof_prune *p = container_of(as, struct dprof_prune, as);
	u32 id = dprof_obj__life(obj);

	if (p->done || id == DPROF_PRUNE_NONE)
		return;
	dprof_life__leave(p, id);
	/* an allocation over a live object: its free was unseen */
	if (!freed && p->cur != DPROF_PRUNE_NONE)
		dprof_prune__over(p, id);
}

static void dprof_prune__took(struct dprof_prune *p, u32 dead, u32 by)
{
	if (p->nr_took == p->alloc_took) {
		size_t n = p->alloc_took ? 2 * p->alloc_took : 4096;
		struct dprof_took *t = realloc(p->took, n * sizeof(*t));

		if (!t) {
			/* no room to defer: kept, as if the dead life were */
			p->lives[by].keep = true;
			return;
		}
		p->took = t;
		p->alloc_took = n;
	}
	p->took[p->nr_took].dead = dead;
	p->took[p->nr_took++].by = by;
}

/* A freed object leaves the dead set: another's free or its slab's took its place. */
static void dprof_prune__dead_release(struct dprof_addrset *as, struct dprof_obj *obj,
				      bool freed)
{
	struct dprof_prune *p = container_of(as, struct dprof_prune, dead);
	u32 id = dprof_obj__life(obj);

	if (p->done || id == DPROF_PRUNE_NONE)
		return;
	dprof_life__leave(p, id);
	/*
	 * Another range took its place: without the life that took it the
	 * replay would keep this one longer, if it keeps this one at all:
	 * decided once the samples said which lives are kept.  A free at the
	 * same bytes (the next object there) changes nothing a sample could
	 * see.
	 */
	if (!freed && p->cur != DPROF_PRUNE_NONE) {
		const struct dprof_life *cur = &p->lives[p->cur];

		if (cur->start == DPROF_PRUNE_NONE || p->ev[cur->start].ptr != obj->base ||
		    cur->size != obj->size)
			dprof_prune__took(p, id, p->cur);
	}
}

/*
 * A kept life that an allocation left out overlapped ends at that
 * allocation: its event is kept, as a mark (struct dprof_kmem_mark), so
 * that the replay ends the life there and adds no object.  Other overlaps
 * cost no events: the replay sees those of two kept lives, and the sums
 * count those of a life left out (dprof_prune__count_over()).
 */
static void dprof_prune__overs(struct dprof_prune *p)
{
	size_t i;

	for (i = 0; i < p->nr_overs; i++) {
		const struct dprof_over *o = &p->overs[i];
		struct dprof_kev *e = &p->ev[o->ev];

		if (p->lives[o->old].keep && !p->lives[o->by].keep && !e->mark) {
			e->mark = true;
			p->nr_marks++;
		}
	}
}

/*
 * Kept lives keep the lives that took their place in the dead set; the
 * pairs are in time order, so one pass carries a keep down a chain.
 */
static void dprof_prune__keep_took(struct dprof_prune *p)
{
	size_t i;

	for (i = 0; i < p->nr_took; i++) {
		if (p->lives[p->took[i].dead].keep)
			p->lives[p->took[i].by].keep = true;
	}
}

static int dprof_prune__new_life(struct dprof_prune *p, u64 from, u32 *id)
{
	struct dprof_life *l;

	if (p->nr_lives == p->alloc_lives) {
		size_t n = p->alloc_lives ? p->alloc_lives + p->alloc_lives / 2 : 65536;

		l = realloc(p->lives, n * sizeof(*l));
		if (!l)
			return -ENOMEM;
		p->lives = l;
		p->alloc_lives = n;
	}
	*id = p->nr_lives;
	l = &p->lives[p->nr_lives++];
	memset(l, 0, sizeof(*l));
	l->from = from;
	l->start = DPROF_PRUNE_NONE;
	return 0;
}

/* Object @i (an alloc or a get) of life @id enters the live set. */
static int dprof_prune__start(struct dprof_prune *p, u32 id, u32 i, u64 size)
{
	struct dprof_life *l = &p->lives[id];
	struct dprof_obj *obj;

	l->start = i;
	l->size = max_t(u64, l->size, size);
	p->cur = id;
	p->cur_ev = i;
	obj = dprof_addrset__alloc(&p->as, p->ev[i].ptr, size, p->ev[i].time);
	p->cur = DPROF_PRUNE_NONE;
	if (!obj)
		return -ENOMEM;
	obj->priv = (void *)(uintptr_t)(id + 1);
	p->lives[id].present++;
	return 0;
}

/* dprof_replay__end_obj(): a free, a put or a kfree_rcu() call */
static int dprof_prune__end(struct dprof_prune *p, struct hashmap *parked, u32 id, u32 i,
			    bool put)
{
	struct dprof_kev *e = &p->ev[i];
	struct dprof_obj *obj = dprof_addrset__find(&p->as, e->ptr);

	if (obj && obj->base == e->ptr) {
		u32 oid = dprof_obj__life(obj);

		if (oid != id && id != DPROF_PRUNE_NONE)	/* never: see the alloc */
			p->lives[id].keep = true;
		if (oid != DPROF_PRUNE_NONE) {
			e->life = e->time - obj->alloc_time;
			e->start = p->lives[oid].start;
		}
		p->cur = oid;
		obj = dprof_addrset__move(&p->as, obj, &p->dead, e->time);
		p->cur = DPROF_PRUNE_NONE;
		if (!obj)
			return -ENOMEM;
		if (oid != DPROF_PRUNE_NONE)
			p->lives[oid].present++;
	} else if (!put && hashmap__delete(parked, e->ptr, NULL, NULL)) {
		/* its life ended at the put */
		if (id != DPROF_PRUNE_NONE)
			e->start = p->lives[id].start;
	} else if (id != DPROF_PRUNE_NONE) {
		/* an end the replay counts as of an unknown or earlier object */
		p->lives[id].keep = true;
	} else {
		e->unknown = !put;
	}
	if (put && hashmap__add(parked, e->ptr, 0) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

/* dprof_replay__mempool_get(): an object put aside taken back into use */
static int dprof_prune__get(struct dprof_prune *p, struct hashmap *parked, u32 id, u32 i)
{
	struct dprof_kev *e = &p->ev[i];
	struct dprof_obj *obj = dprof_addrset__find(&p->as, e->ptr), *dead = NULL;
	struct dprof_kev_evsel *k;
	struct perf_sample sample;
	const char *name;
	u64 len = 0;
	int err = 0;

	hashmap__delete(parked, e->ptr, NULL, NULL);
	if (obj && obj->base == e->ptr) {
		len = obj->size;
		if (dprof_obj__life(obj) != id)
			p->lives[id].keep = true;
		dprof_addrset__free(&p->as, e->ptr);
	} else {
		dead = dprof_addrset__find(&p->dead, e->ptr);
		if (dead && dead->base == e->ptr)
			len = dead->size;
	}
	k = dprof_prune__parse(p, e->off, &sample);
	name = k ? dprof_kmem__strval(k->f.name, &sample) : NULL;
	/* a size from the slab map, or none: the replay's own count */
	if (!len || !name || !*name || id == DPROF_PRUNE_NONE) {
		if (id != DPROF_PRUNE_NONE)
			p->lives[id].keep = true;
	} else {
		e->size = dprof_kev__size(len);
		err = dprof_prune__start(p, id, i, len);
	}
	return err;
}

/* dprof_replay__slab_free(): the slab's dead objects go */
static int dprof_prune__slab_free(struct dprof_prune *p, const struct dprof_kev *e)
{
	if (!e->size || e->size > DPROF_PRUNE_OBJ_MAX || e->ptr + e->size < e->ptr)
		return 0;
	if (!dprof_addrset__alloc(&p->dead, e->ptr, e->size, e->time))
		return -ENOMEM;
	dprof_addrset__free(&p->dead, e->ptr);
	return 0;
}

/*
 * The kernel samples before @time: one in a live object is that object's,
 * as the replay resolves it (its life is kept); the others may be a dead
 * object's, whose life keeps them by time (see dprof_prune__kmem_keep()).
 * A live object allocated at the sample's nanosecond may come after it:
 * the sample is not its alone.
 */
static void dprof_prune__place_samples(struct dprof_prune *p, u64 time)
{
	const struct dprof_touch *kt = p->touches->kt;

	for (; p->knext < p->touches->nr_kt; p->knext++) {
		u32 k = p->korder[p->knext].k;
		struct dprof_obj *obj;
		u32 id;

		if (kt[k].time >= time)
			break;
		obj = dprof_addrset__find(&p->as, kt[k].addr);
		if (!obj || obj->alloc_time >= kt[k].time)
			continue;
		id = dprof_obj__life(obj);
		if (id == DPROF_PRUNE_NONE)
			continue;
		p->lives[id].keep = true;
		p->kcovered[k] = true;
	}
}

static int dprof_ksample__cmp(const void *a, const void *b)
{
	const struct dprof_ksample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* The kernel samples in time order, for dprof_prune__place_samples() */
static int dprof_prune__order_samples(struct dprof_prune *p)
{
	size_t i, n = p->touches->nr_kt;

	p->korder = malloc((n + 1) * sizeof(*p->korder));
	p->kcovered = calloc(n + 1, sizeof(*p->kcovered));
	if (!p->korder || !p->kcovered)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		p->korder[i].time = p->touches->kt[i].time;
		p->korder[i].k = i;
	}
	qsort(p->korder, n, sizeof(*p->korder), dprof_ksample__cmp);
	p->knext = 0;
	return 0;
}

/* Each kmem event in time order: the lives, and what else keeps them. */
static int dprof_prune__follow(struct dprof_prune *p)
{
	struct hashmap *open, *last, *parked;
	int err = 0;
	size_t i;

	open = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	last = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	parked = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(open) || IS_ERR(last) || IS_ERR(parked)) {
		err = -ENOMEM;
		goto out;
	}
	dprof_addrset__init(&p->as, dprof_prune__as_release);
	dprof_addrset__init(&p->dead, dprof_prune__dead_release);
	p->cur = DPROF_PRUNE_NONE;
	for (i = 0; i < p->nr && !err; i++) {
		struct dprof_kev *e = &p->ev[i];
		long id = -1, from = 0;

		dprof_prune__place_samples(p, e->time);
		p->now = e->time;
		if (e->kind == DPROF_KEV_SLAB_FREE) {
			err = dprof_prune__slab_free(p, e);
			continue;
		}
		/* NULL, ZERO_SIZE_PTR: no object (the replay skips them) */
		if (e->ptr <= 16)
			continue;
		hashmap__find(open, e->ptr, &id);
		if (e->kind == DPROF_KEV_ALLOC || e->kind == DPROF_KEV_KMALLOC) {
			u32 nid = 0;

			if (!e->size || e->size > DPROF_PRUNE_OBJ_MAX ||
			    e->ptr + e->size <= e->ptr)
				goto next;	/* implausible: kept */
			hashmap__delete(parked, e->ptr, NULL, NULL);
			hashmap__find(last, e->ptr, &from);
			err = dprof_prune__new_life(p, from, &nid);
			if (!err)
				err = hashmap__set(open, e->ptr, (long)nid, NULL, NULL);
			if (!err)
				err = dprof_prune__start(p, nid, i, e->size);
			id = nid;
		} else if (e->kind == DPROF_KEV_GET) {
			err = dprof_prune__get(p, parked, id < 0 ? DPROF_PRUNE_NONE : id, i);
		} else {
			err = dprof_prune__end(p, parked, id < 0 ? DPROF_PRUNE_NONE : id, i,
					       e->kind != DPROF_KEV_FREE);
		}
		if (id >= 0)
			e->life_id = id;
next:
		if (!err)
			err = hashmap__set(last, e->ptr, (long)e->time, NULL, NULL);
	}
	if (!err)
		dprof_prune__place_samples(p, UINT64_MAX);
	for (i = 0; i < p->nr_lives; i++) {
		if (p->lives[i].present)
			p->lives[i].to = UINT64_MAX;
	}
	p->done = true;
	dprof_addrset__exit(&p->as);
	dprof_addrset__exit(&p->dead);
out:
	if (!IS_ERR(open))
		hashmap__free(open);
	if (!IS_ERR(last))
		hashmap__free(last);
	if (!IS_ERR(parked))
		hashmap__free(parked);
	return err;
}

/*
 * The lives the samples keep.  A sample in a live object kept that life
 * (dprof_prune__place_samples()); one in no live object may be a dead
 * object's (the replay's "what it was") or an earlier one's: every life
 * whose bytes held its address about its time keeps it.  Then the lives
 * that took the place of a kept dead one.
 */
static int dprof_prune__kmem_keep(struct dprof_prune *p)
{
	struct dprof_touches rest = *p->touches;
	struct dprof_touch *kt;
	size_t i, n = 0;

	kt = malloc((p->touches->nr_kt + 1) * sizeof(*kt));
	if (!kt)
		return -ENOMEM;
	for (i = 0; i < p->touches->nr_kt; i++) {
		if (!p->kcovered[i])
			kt[n++] = p->touches->kt[i];
	}
	rest.kt = kt;
	rest.nr_kt = n;
	for (i = 0; i < p->nr_lives; i++) {
		struct dprof_life *l = &p->lives[i];

		if (!l->keep && l->start != DPROF_PRUNE_NONE)
			l->keep = dprof_touches__any_kernel(&rest, p->ev[l->start].ptr,
							    l->size, l->from, l->to);
	}
	free(kt);
	dprof_prune__keep_took(p);
	dprof_prune__overs(p);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* the summary of what was left out                                       */

struct dprof_kmem_sum_node {
	struct dprof_kmem_sum		s;
	struct dprof_kmem_sum_node	*next;	/* same hash */
	u32				first;	/* the class's first start */
};

struct dprof_kmem_class_of {
	u64	call_site, bytes_alloc;
	u64	req;
	bool	kmalloc;
	const char *name;
};

static long dprof_kmem_sum__hash(const struct dprof_kmem_class_of *c, u32 pid, u32 tid)
{
	u64 h = c->call_site * 0x9e3779b97f4a7c15ULL;

	h ^= (c->bytes_alloc + ((u64)c->kmalloc << 40)) * 0xc2b2ae3d27d4eb4fULL;
	h ^= (((u64)pid << 32) | tid) * 0x165667b19e3779f9ULL;
	return (long)(h ^ (h >> 29));
}

/* The class of start event @i (an alloc or a get), as the replay keys it. */
static int dprof_prune__class(struct dprof_prune *p, u32 i, struct dprof_kmem_class_of *c,
			      struct perf_sample *sample)
{
	const struct dprof_kev *e = &p->ev[i];
	struct dprof_kev_evsel *k = dprof_prune__parse(p, e->off, sample);

	if (!k)
		return -EINVAL;
	c->call_site = dprof_prune__intval(k->f.call_site, sample);
	c->name = dprof_kmem__strval(k->f.name, sample);
	if (e->kind == DPROF_KEV_GET) {
		c->bytes_alloc = e->size;
		c->req = e->size;
		c->kmalloc = c->name && strstr(c->name, "kmalloc-");
	} else {
		c->bytes_alloc = dprof_prune__intval(k->f.bytes_alloc, sample);
		c->req = dprof_prune__intval(k->f.bytes_req, sample);
		c->kmalloc = e->kind == DPROF_KEV_KMALLOC;
	}
	return 0;
}

static long dprof_kmem_class__key(const struct dprof_kmem_class_of *c)
{
	return (long)((c->call_site ^ (c->bytes_alloc << 48)) + c->kmalloc);
}

/* The first start of each class, kept or not: the replay's object size. */
static int dprof_prune__firsts(struct dprof_prune *p, struct hashmap *firsts)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		struct dprof_kmem_class_of c;
		struct perf_sample sample;
		u32 id = p->ev[i].life_id;

		/* every start, kept or not; a get of no known size has no class here */
		if (id == DPROF_PRUNE_NONE)
			continue;
		if (p->ev[i].kind != DPROF_KEV_ALLOC && p->ev[i].kind != DPROF_KEV_KMALLOC &&
		    (p->ev[i].kind != DPROF_KEV_GET || !p->ev[i].size))
			continue;
		if (dprof_prune__class(p, i, &c, &sample))
			continue;
		if (hashmap__add(firsts, dprof_kmem_class__key(&c), (long)i) == -ENOMEM)
			return -ENOMEM;
	}
	return 0;
}

static struct dprof_kmem_sum_node *
dprof_prune__sum(struct hashmap *sums, const struct dprof_kmem_class_of *c, u32 pid, u32 tid)
{
	long h = dprof_kmem_sum__hash(c, pid, tid);
	struct dprof_kmem_sum_node *n = NULL, *head = NULL;
	u32 flags = c->kmalloc ? DPROF_KMEM_SUM_KMALLOC : 0;

	hashmap__find(sums, h, &head);
	for (n = head; n; n = n->next) {
		if (n->s.call_site == c->call_site && n->s.bytes_alloc == c->bytes_alloc &&
		    (n->s.flags & DPROF_KMEM_SUM_KMALLOC) == flags && n->s.pid == pid &&
		    n->s.tid == tid)
			return n;
	}
	n = zalloc(sizeof(*n));
	if (!n)
		return NULL;
	n->s.call_site = c->call_site;
	n->s.bytes_alloc = c->bytes_alloc;
	n->s.flags = flags;
	n->s.pid = pid;
	n->s.tid = tid;
	n->next = head;
	if (hashmap__set(sums, h, n, NULL, NULL)) {
		free(n);
		return NULL;
	}
	return n;
}

/* Event @i, left out, counted in its class's sum for its task. */
static int dprof_prune__count(struct dprof_prune *p, struct hashmap *sums, u32 i, u32 *flags)
{
	const struct dprof_kev *e = &p->ev[i];
	struct perf_sample sample, ssample;
	struct dprof_kmem_sum_node *n;
	struct dprof_kmem_class_of c;
	struct dprof_kev_evsel *k;
	const char *name;
	u32 start = e->start;

	if (e->kind == DPROF_KEV_ALLOC || e->kind == DPROF_KEV_KMALLOC ||
	    e->kind == DPROF_KEV_GET)
		start = i;
	if (start == DPROF_PRUNE_NONE)
		return -EINVAL;		/* never: such a life is kept */
	k = dprof_prune__parse(p, e->off, &sample);
	if (!k)
		return -EINVAL;
	if (dprof_prune__class(p, start, &c, &ssample))
		return -EINVAL;
	n = dprof_prune__sum(sums, &c, sample.pid, sample.tid);
	if (!n)
		return -ENOMEM;
	switch (e->kind) {
	case DPROF_KEV_ALLOC:
	case DPROF_KEV_KMALLOC:
		n->s.allocs++;
		if (e->kind == DPROF_KEV_ALLOC && c.name && *c.name)
			*flags |= DPROF_KMEM_ALLOC_NAMED;
		break;
	case DPROF_KEV_GET:
		n->s.gets++;
		break;
	case DPROF_KEV_FREE:
		n->s.frees++;
		break;
	case DPROF_KEV_PUT:
		n->s.puts++;
		break;
	default:
		n->s.rcus++;
		break;
	}
	if (e->life != UINT64_MAX) {
		n->s.life_sum += e->life;
		n->s.life_n++;
	}
	/* a slab cache's name: its allocation's, or else a free's (6.12) */
	name = c.name && *c.name ? c.name : dprof_kmem__strval(k->f.name, &sample);
	if (!n->s.name[0] && name && *name)
		snprintf(n->s.name, sizeof(n->s.name), "%s", name);
	return 0;
}

/* Allocation @i overlapped a live object left out: the replay's count of it. */
static int dprof_prune__count_over(struct dprof_prune *p, struct hashmap *sums, u32 i)
{
	struct dprof_kmem_sum_node *n;
	struct dprof_kmem_class_of c;
	struct perf_sample sample;

	if (dprof_prune__class(p, i, &c, &sample))
		return -EINVAL;
	n = dprof_prune__sum(sums, &c, sample.pid, sample.tid);
	if (!n)
		return -ENOMEM;
	n->s.over_live++;
	return 0;
}

/*
 * Free @i of no object the replay knows, in a recording without the slab
 * snapshot: only the header's counts and its task's, in the sum of its
 * task's unknown frees.
 */
static int dprof_prune__count_unknown(struct dprof_prune *p, struct hashmap *sums, u32 i)
{
	struct dprof_kmem_class_of c = { .call_site = 0, };
	struct dprof_kmem_sum_node *n;
	struct perf_sample sample;

	if (!dprof_prune__parse(p, p->ev[i].off, &sample))
		return -EINVAL;
	n = dprof_prune__sum(sums, &c, sample.pid, sample.tid);
	if (!n)
		return -ENOMEM;
	n->s.flags |= DPROF_KMEM_SUM_UNKNOWN;
	n->s.frees++;
	return 0;
}

/* The sums, each with its class's first object size when that start was left out. */
static void *dprof_prune__encode(struct dprof_prune *p, struct hashmap *sums,
				 struct hashmap *firsts, struct dprof_kmem_feat *feat,
				 size_t *len)
{
	struct hashmap_entry *cur;
	size_t bkt, i, nr = 0;
	struct dprof_kmem_mark *m;
	struct dprof_kmem_sum *s;
	void *blob;

	hashmap__for_each_entry(sums, cur, bkt) {
		struct dprof_kmem_sum_node *n;

		for (n = cur->pvalue; n; n = n->next)
			nr++;
	}
	*len = sizeof(*feat) + nr * sizeof(*s);
	if (p->nr_marks) {
		feat->flags |= DPROF_KMEM_MARKS;
		*len += sizeof(u64) + p->nr_marks * sizeof(*m);
	}
	blob = calloc(1, *len);
	if (!blob)
		return NULL;
	feat->nr_sums = nr;
	memcpy(blob, feat, sizeof(*feat));
	/* the marks, in time order, after the sums */
	if (p->nr_marks) {
		u64 nr_marks = p->nr_marks;

		memcpy(blob + sizeof(*feat) + nr * sizeof(*s), &nr_marks, sizeof(nr_marks));
		m = blob + sizeof(*feat) + nr * sizeof(*s) + sizeof(nr_marks);
		for (i = 0; i < p->nr; i++) {
			if (p->ev[i].mark)
				*m++ = (struct dprof_kmem_mark){ p->ev[i].time, p->ev[i].ptr };
		}
	}
	s = blob + sizeof(*feat);
	hashmap__for_each_entry(sums, cur, bkt) {
		struct dprof_kmem_sum_node *n;

		for (n = cur->pvalue; n; n = n->next) {
			struct dprof_kmem_class_of c = {
				.call_site = n->s.call_site,
				.bytes_alloc = n->s.bytes_alloc,
				.kmalloc = n->s.flags & DPROF_KMEM_SUM_KMALLOC,
			};
			long first;

			*s = n->s;
			if (hashmap__find(firsts, dprof_kmem_class__key(&c), &first) &&
			    !p->lives[p->ev[first].life_id].keep) {
				struct perf_sample sample;

				if (!dprof_prune__class(p, first, &c, &sample)) {
					s->flags |= DPROF_KMEM_SUM_FIRST;
					s->first_req = c.req;
				}
			}
			s++;
		}
	}
	return blob;
}

static void dprof_prune__sums_free(struct hashmap *sums)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (IS_ERR_OR_NULL(sums))
		return;
	hashmap__for_each_entry(sums, cur, bkt) {
		struct dprof_kmem_sum_node *n = cur->pvalue, *next;

		for (; n; n = next) {
			next = n->next;
			free(n);
		}
	}
	hashmap__free(sums);
}

/* ---------------------------------------------------------------------- */
/* the file written again                                                 */

static int dprof_u64__cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int dprof_prune__write_all(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

#define DPROF_PRUNE_OUT_BUF	(1024 * 1024)

/* The file written, through a buffer: a decoded sample is a write of its own. */
struct dprof_prune_out {
	int	fd;
	u8	*buf;
	size_t	len;
	int	err;
};

static void dprof_prune_out__flush(struct dprof_prune_out *o)
{
	if (!o->err && o->len)
		o->err = dprof_prune__write_all(o->fd, o->buf, o->len);
	o->len = 0;
}

static void dprof_prune_out__write(struct dprof_prune_out *o, const void *buf, size_t len)
{
	if (o->len + len > DPROF_PRUNE_OUT_BUF)
		dprof_prune_out__flush(o);
	if (o->err)
		return;
	if (len >= DPROF_PRUNE_OUT_BUF) {
		o->err = dprof_prune__write_all(o->fd, buf, len);
		return;
	}
	memcpy(o->buf + o->len, buf, len);
	o->len += len;
}

/* The sample types of a sampler's samples written decoded. */
static u64 dprof_prune__decoded_type(u64 type)
{
	return (type & ~PERF_SAMPLE_REGS_INTR) | PERF_SAMPLE_ADDR | PERF_SAMPLE_RAW;
}

/*
 * The sampler's sample @event, written decoded to @out: its registers
 * replaced by the data address and the word the keep pass found for it
 * (decoded.h), or kept after the word when it found none.
 */
static int dprof_prune__decode_sample(struct dprof_prune *p, const struct dprof_touches *t,
				      struct evsel *evsel, const union perf_event *event,
				      union perf_event *out)
{
	u64 type = dprof_prune__decoded_type(evsel->core.attr.sample_type);
	u64 read_format = evsel->core.attr.read_format;
	u64 raw[1 + 1 + 64];	/* the word, padded; the ABI; the registers */
	const struct dprof_decode *dec;
	struct perf_sample sample;
	size_t size, nr_regs;
	u32 word;
	int err;

	err = evsel__parse_sample(evsel, (union perf_event *)event, &sample);
	if (err)
		return err;
	dec = dprof_touches__decode(t, sample.tid, sample.time);
	word = dec ? dec->word : DPROF_DEC_REGS;
	if (!sample.intr_regs.regs)
		word = DPROF_DEC_NO_REGS;
	sample.addr = (word & (DPROF_DEC_REGS | DPROF_DEC_NO_REGS)) ? 0 : dec->addr;
	/* the word then the registers: raw data starts 4 bytes into a u64 */
	memcpy((u8 *)raw + 4, &word, sizeof(word));
	sample.raw_data = (u8 *)raw + 4;
	sample.raw_size = sizeof(word);
	if (word & DPROF_DEC_REGS) {
		nr_regs = hweight64(sample.intr_regs.mask);
		if (nr_regs > 64)
			return -EINVAL;
		raw[1] = sample.intr_regs.abi;
		memcpy(&raw[2], sample.intr_regs.regs, nr_regs * sizeof(u64));
		sample.raw_size += (1 + nr_regs) * sizeof(u64);
		p->dec_regs++;
	}
	size = perf_event__sample_event_size(&sample, type, read_format);
	if (size >= PERF_SAMPLE_MAX_SIZE)
		return -E2BIG;
	out->header = event->header;
	out->header.size = size;
	err = perf_event__synthesize_sample(out, type, read_format, &sample);
	if (!err)
		p->decoded++;
	return err;
}

/*
 * The section HEADER_EVENT_DESC at @off (@len bytes) keeps a copy of each
 * attr: the decoded samplers' sample types set in it as in the attrs, at
 * @pos in the file written.  Return: 0, or -EINVAL when it is damaged.
 */
static int dprof_prune__patch_desc(struct dprof_prune *p, int fd, u64 off, u64 len, u64 pos)
{
	const u8 *d = p->map + off;
	u32 nre, sz, nr, slen, i;
	u64 at = 2 * sizeof(u32), type;

	if (len < at)
		return -EINVAL;
	memcpy(&nre, d, sizeof(nre));
	memcpy(&sz, d + sizeof(u32), sizeof(sz));
	if (sz < offsetof(struct perf_event_attr, sample_type) + sizeof(u64))
		return -EINVAL;
	for (i = 0; i < nre && (int)i < p->nr_evsels; i++) {
		if (len - at < (u64)sz + 2 * sizeof(u32))
			return -EINVAL;
		if (p->evsels[i].decode) {
			memcpy(&type, d + at + offsetof(struct perf_event_attr, sample_type),
			       sizeof(type));
			type = dprof_prune__decoded_type(type);
			if (pwrite(fd, &type, sizeof(type),
				   pos + at + offsetof(struct perf_event_attr, sample_type)) !=
			    sizeof(type))
				return -errno ?: -EIO;
		}
		at += sz;
		memcpy(&nr, d + at, sizeof(nr));
		memcpy(&slen, d + at + sizeof(u32), sizeof(slen));
		at += 2 * sizeof(u32);
		if (len - at < slen || (len - at - slen) / sizeof(u64) < nr)
			return -EINVAL;
		at += slen + (u64)nr * sizeof(u64);
	}
	return 0;
}

/*
 * The decoded samplers' attrs in the file written to @fd, and their
 * copies in the feature section of the old table @sec (of @feat), which
 * moved by @shift.
 */
static int dprof_prune__patch_attrs(struct dprof_prune *p, int fd,
				    const struct perf_file_header *fh,
				    const struct perf_file_section *sec,
				    const unsigned long *feat, u64 shift)
{
	const size_t at = offsetof(struct perf_event_attr, sample_type);
	int i, bit, j = 0;
	u64 type;

	if (fh->attr_size < at + sizeof(type) ||
	    fh->attrs.size / fh->attr_size != (u64)p->nr_evsels ||
	    fh->attrs.offset + fh->attrs.size > fh->data.offset)
		return -EINVAL;
	for (i = 0; i < p->nr_evsels; i++) {
		u64 off = fh->attrs.offset + i * fh->attr_size + at;

		if (!p->evsels[i].decode)
			continue;
		memcpy(&type, p->map + off, sizeof(type));
		type = dprof_prune__decoded_type(type);
		if (pwrite(fd, &type, sizeof(type), off) != sizeof(type))
			return -errno ?: -EIO;
	}
	for_each_set_bit(bit, feat, HEADER_FEAT_BITS) {
		if (bit == HEADER_EVENT_DESC)
			return dprof_prune__patch_desc(p, fd, sec[j].offset, sec[j].size,
						       sec[j].offset + shift);
		j++;
	}
	return 0;
}

/**
 * struct dprof_prune_feat - a feature section the pass adds
 * @bit: its feature bit
 * @blob, @len: its contents
 */
struct dprof_prune_feat {
	int		bit;
	const void	*blob;
	size_t		len;
};

/*
 * @path written again to @tmp: the data section without the records at
 * @drop (sorted), the samplers' samples marked in p->evsels decoded as
 * @t says, the features after it with @add[0..@nr_add) (sorted by bit)
 * added.
 */
static int dprof_prune__write(struct dprof_prune *p, const char *tmp, const u64 *drop,
			      size_t nr_drop, const struct dprof_touches *t,
			      const struct dprof_prune_feat *add, int nr_add)
{
	struct perf_file_header fh;
	struct perf_file_section *sec = NULL;
	struct dprof_prune_out o = { .fd = -1, };
	DECLARE_BITMAP(feat, HEADER_FEAT_BITS);
	DECLARE_BITMAP(all, HEADER_FEAT_BITS);
	u64 data_end, off, run, new_size = 0, feat_end, tail, pos, given = 0;
	union perf_event *ev = NULL;
	int nr, nr_all, i, j, k, bit, err = 0;
	size_t d = 0;
	static const u8 zero[8];

	memcpy(&fh, p->map, sizeof(fh));
	memcpy(feat, fh.adds_features, sizeof(feat));
	memcpy(all, feat, sizeof(all));
	for (k = 0; k < nr_add; k++)
		set_bit(add[k].bit, all);
	data_end = fh.data.offset + fh.data.size;
	nr = bitmap_weight(feat, HEADER_FEAT_BITS);
	nr_all = bitmap_weight(all, HEADER_FEAT_BITS);
	if (data_end + nr * sizeof(*sec) > p->map_len || nr_all != nr + nr_add)
		return -EINVAL;
	/* the old table, then the new one after it */
	sec = calloc(nr + nr_all, sizeof(*sec));
	o.buf = malloc(DPROF_PRUNE_OUT_BUF);
	ev = malloc(PERF_SAMPLE_MAX_SIZE);
	if (!sec || !o.buf || !ev) {
		err = -ENOMEM;
		goto out_free;
	}
	memcpy(sec, p->map + data_end, nr * sizeof(*sec));
	feat_end = data_end + nr * sizeof(*sec);
	for (i = 0; i < nr; i++) {
		if (sec[i].offset < feat_end || sec[i].offset > p->map_len ||
		    sec[i].size > p->map_len - sec[i].offset) {
			err = -EINVAL;
			goto out_free;
		}
	}
	o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (o.fd < 0) {
		err = -errno;
		goto out_free;
	}
	/* the header and attributes as they were; the data size comes last */
	dprof_prune_out__write(&o, p->map, fh.data.offset);
	for (off = run = fh.data.offset; off < data_end && !o.err && !err;) {
		const union perf_event *event = (const void *)(p->map + off);
		u64 size = dprof_prune__record_size(event, data_end - off);
		struct evsel *evsel = NULL;

		if (!size) {
			err = -EINVAL;
			break;
		}
		if (d < nr_drop && drop[d] == off) {
			dprof_prune_out__write(&o, p->map + run, off - run);
			new_size += off - run;
			run = off + size;
			d++;
		} else if (p->nr_decode && event->header.type == PERF_RECORD_SAMPLE) {
			evsel = evlist__event2evsel(p->session->evlist, (union perf_event *)event);
		}
		if (evsel && evsel->core.idx < p->nr_evsels && p->evsels[evsel->core.idx].decode) {
			dprof_prune_out__write(&o, p->map + run, off - run);
			new_size += off - run;
			run = off + size;
			err = dprof_prune__decode_sample(p, t, evsel, event, ev);
			if (!err) {
				dprof_prune_out__write(&o, ev, ev->header.size);
				new_size += ev->header.size;
			}
		}
		off += size;
		dprof_prune__give_back(p, &given, min(off, run));
	}
	if (!err) {
		dprof_prune_out__write(&o, p->map + run, data_end - run);
		new_size += data_end - run;
	}
	if (p->dfeat) {
		p->dfeat->samples = p->decoded;
		p->dfeat->with_regs = p->dec_regs;
	}
	/*
	 * The new table, nr_add entries longer: the old sections after it,
	 * moved as much, then the added ones, each 8-aligned.
	 */
	tail = fh.data.offset + new_size + nr_all * sizeof(*sec);
	pos = tail + (p->map_len - feat_end);
	i = 0;
	j = 0;
	k = 0;
	for_each_set_bit(bit, all, HEADER_FEAT_BITS) {
		struct perf_file_section *n = &sec[nr + j++];

		if (k < nr_add && add[k].bit == bit) {
			pos = (pos + 7) & ~7ULL;
			n->offset = pos;
			n->size = add[k++].len;
			pos += n->size;
		} else {
			n->offset = sec[i].offset - feat_end + tail;
			n->size = sec[i++].size;
		}
	}
	dprof_prune_out__write(&o, &sec[nr], nr_all * sizeof(*sec));
	dprof_prune_out__write(&o, p->map + feat_end, p->map_len - feat_end);
	pos = tail + (p->map_len - feat_end);
	for (k = 0; k < nr_add; k++) {
		dprof_prune_out__write(&o, zero, ((pos + 7) & ~7ULL) - pos);
		pos = (pos + 7) & ~7ULL;
		dprof_prune_out__write(&o, add[k].blob, add[k].len);
		pos += add[k].len;
	}
	dprof_prune_out__flush(&o);
	err = err ?: o.err;
	if (!err && p->nr_decode)
		err = dprof_prune__patch_attrs(p, o.fd, &fh, sec, feat, tail - feat_end);
	if (!err) {
		fh.data.size = new_size;
		memcpy(fh.adds_features, all, sizeof(all));
		if (pwrite(o.fd, &fh, sizeof(fh), 0) != sizeof(fh))
			err = -errno ?: -EIO;
	}
	if (!err && fsync(o.fd))
		err = -errno;
	if (close(o.fd) && !err)
		err = -errno;
	if (err)
		unlink(tmp);
out_free:
	free(sec);
	free(o.buf);
	free(ev);
	return err;
}

/* ---------------------------------------------------------------------- */

/* Remove the directory dprof_prune__use_kcore() made, and free its name. */
static void dprof_prune__rm_kcore(char *dir)
{
	static const char * const files[] = { "kallsyms", "kcore", "modules" };
	char name[PATH_MAX];
	size_t i;

	if (*dir) {
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			snprintf(name, sizeof(name), "%s/%s", dir, files[i]);
			unlink(name);
		}
		rmdir(dir);
	}
	free(dir);
}

/*
 * The kernel samples' code: from a vmlinux when one was given, else from
 * /proc/kcore when the recording is of this very kernel (perf reads it
 * through /proc/kallsyms, as perf top does); perf's default, a copy of
 * kallsyms in the build-id cache, has no code bytes.  perf takes kcore
 * only next to a modules file, which a kernel without modules has not:
 * then a directory of our own holds kallsyms and kcore (links) and an
 * empty modules.  Return: the directory to remove, "" if none, or NULL.
 */
static char *dprof_prune__use_kcore(struct perf_session *session)
{
	static const char * const links[][2] = {
		{ "kcore", "/proc/kcore" }, { "kallsyms", "/proc/kallsyms" },
	};
	struct perf_env *env = &session->header.env;
	char *dir, name[PATH_MAX];
	struct utsname u;
	size_t i;
	int fd;

	if (symbol_conf.vmlinux_name || symbol_conf.kallsyms_name || access("/proc/kcore", R_OK) ||
	    uname(&u) || !env->os_release || !env->hostname ||
	    strcmp(env->os_release, u.release) || strcmp(env->hostname, u.nodename))
		return NULL;
	if (!access("/proc/modules", R_OK)) {
		symbol_conf.kallsyms_name = "/proc/kallsyms";
		return strdup("");
	}
	if (asprintf(&dir, "%s/perf-dprof-kcore.XXXXXX", getenv("TMPDIR") ?: "/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir))
		goto out_err;
	snprintf(name, sizeof(name), "%s/modules", dir);
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out_err;
	close(fd);
	for (i = 0; i < ARRAY_SIZE(links); i++) {
		snprintf(name, sizeof(name), "%s/%s", dir, links[i][0]);
		if (symlink(links[i][1], name))
			goto out_err;
	}
	symbol_conf.kallsyms_name = strdup(name);
	if (symbol_conf.kallsyms_name)
		return dir;
out_err:
	dprof_prune__rm_kcore(dir);
	return NULL;
}

/*
 * What the pass can do to the file: *@kmem, leave out kmem events (else
 * out->kmem_why_not says why not); p->nr_decode, write samples decoded.
 * Return: 1 when neither (out->why_not says why), 0, or a negative errno.
 */
static int dprof_prune__check(struct dprof_prune *p, struct dprof_kmem_pruned *out,
			      bool *kmem)
{
	struct perf_header *ph = &p->session->header;
	struct evsel *evsel;
	bool watch;
	int err;

	*kmem = false;
	if (perf_data__is_pipe(p->session->data) || perf_data__is_dir(p->session->data)) {
		out->why_not = "not a perf.data file";
		return 1;
	}
	if (ph->needs_swap) {
		out->why_not = "written on a machine of the other byte order";
		return 1;
	}
	if (perf_header__has_feat(ph, HEADER_AUXTRACE) ||
	    perf_header__has_feat(ph, HEADER_COMPRESSED)) {
		out->why_not = "an AUX area or compressed recording";
		return 1;
	}
	err = dprof_prune__scan_evlist(p, p->session->evlist, kmem, &watch);
	if (err)
		return err;
	if (watch)
		out->kmem_why_not = "slab_watch events (object histories) follow every object";
	else if (!*kmem)
		out->kmem_why_not = "no kmem allocation events";
	else if (test_bit(DPROF_KMEM_FEAT, ph->adds_features))
		out->kmem_why_not = "pruned already";
	*kmem = !out->kmem_why_not;
	if (test_bit(DPROF_DECODED_FEAT, ph->adds_features) || p->nr_decode != 1) {
		/* one sampler: the keep pass's decodings are found by sample alone */
		evlist__for_each_entry(p->session->evlist, evsel)
			p->evsels[evsel->core.idx].decode = false;
		p->nr_decode = 0;
	}
	if (!*kmem && !p->nr_decode) {
		out->why_not = test_bit(DPROF_DECODED_FEAT, ph->adds_features) ?
			       "pruned already" : out->kmem_why_not;
		return 1;
	}
	return 0;
}

int dprof_kmem__prune(const char *path, const struct dprof_touches *touches,
		      struct dprof_touches *read, struct dprof_kmem_pruned *out)
{
	struct perf_data data = {
		.path = path,
		.mode = PERF_DATA_MODE_READ,
	};
	struct dprof_touches own;
	struct dprof_prune p = { .session = NULL, };
	struct hashmap *sums = NULL, *firsts = NULL;
	struct dprof_kmem_feat feat = { .version = 1, };
	struct dprof_decoded_feat dfeat = { .version = 1, };
	struct dprof_prune_feat add[2];
	struct perf_tool tool;
	int nr_add = 0;
	bool kmem;
	u64 *drop = NULL;
	size_t i, nr_drop = 0, blob_len = 0;
	void *blob = NULL;
	char *tmp = NULL;
	struct stat st;
	int err;

	memset(out, 0, sizeof(*out));
	memset(&own, 0, sizeof(own));
	perf_tool__init(&tool, /*ordered_events=*/false);
	p.session = perf_session__new(&data, &tool);
	if (IS_ERR(p.session))
		return PTR_ERR(p.session);
	err = dprof_prune__check(&p, out, &kmem);
	if (err) {
		err = err > 0 ? 0 : err;
		goto out;
	}
	if (fstat(perf_data__fd(&data), &st)) {
		err = -errno;
		goto out;
	}
	p.map_len = st.st_size;
	p.map = mmap(NULL, p.map_len, PROT_READ, MAP_PRIVATE, perf_data__fd(&data), 0);
	if (p.map == MAP_FAILED) {
		p.map = NULL;
		err = -errno;
		goto out;
	}
	if (!touches) {
		char *kcore = dprof_prune__use_kcore(p.session);

		err = dprof_touches__read(&own, path);
		if (kcore) {
			if (*kcore)
				free((char *)symbol_conf.kallsyms_name);
			symbol_conf.kallsyms_name = NULL;
			dprof_prune__rm_kcore(kcore);
		}
		if (err)
			goto out;
		touches = &own;
	}
	p.touches = touches;
	if (kmem) {
		err = dprof_prune__read(&p, p.session->header.data_offset,
					p.session->header.data_size);
		if (err == -EOPNOTSUPP) {
			out->why_not = "compressed records";
			err = 0;
			goto out;
		}
		if (err)
			goto out;
		qsort(p.ev, p.nr, sizeof(*p.ev), dprof_kev__cmp);
		err = dprof_prune__order_samples(&p);
		if (!err)
			err = dprof_prune__follow(&p);
		if (!err)
			err = dprof_prune__kmem_keep(&p);
		if (err)
			goto out;
	}
	out->kernel_undecided = touches->nr_kernel_undecided;
	for (i = 0; i < p.nr_lives; i++) {
		out->objects++;
		out->dropped_objects += !p.lives[i].keep;
	}
	out->events = p.nr;
	if (p.snapshot && p.cache_alloc && touches->nr_samples)
		out->perf_share = (double)touches->nr_perf_kernel / touches->nr_samples;
	drop = calloc(p.nr + 1, sizeof(*drop));
	sums = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	firsts = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (!drop || IS_ERR(sums) || IS_ERR(firsts)) {
		err = -ENOMEM;
		goto out;
	}
	err = dprof_prune__firsts(&p, firsts);
	for (i = 0; i < p.nr && !err; i++) {
		u32 id = p.ev[i].life_id;

		/*
		 * without the snapshot, a free of no known object is a count;
		 * with it, it tells the snapshot's object free
		 */
		if (id == DPROF_PRUNE_NONE && p.ev[i].unknown && !p.snapshot)
			err = dprof_prune__count_unknown(&p, sums, i);
		else if (id == DPROF_PRUNE_NONE || p.lives[id].keep)
			continue;
		else
			err = dprof_prune__count(&p, sums, i, &feat.flags);
		/* a mark: counted as left out, kept for its place */
		if (!p.ev[i].mark)
			drop[nr_drop++] = p.ev[i].off;
	}
	for (i = 0; i < p.nr_overs && !err; i++) {
		if (!p.lives[p.overs[i].old].keep)
			err = dprof_prune__count_over(&p, sums, p.overs[i].ev);
	}
	if (err)
		goto out;
	out->dropped_events = nr_drop;
	out->marks = p.nr_marks;
	out->size_before = p.map_len;
	out->size_after = p.map_len;
	if (kmem && !nr_drop)
		out->kmem_why_not = "no object to leave out";
	if (!nr_drop && !p.nr_decode) {
		out->why_not = out->kmem_why_not;
		goto out;
	}
	if (p.nr_decode) {
		memcpy(dfeat.magic, DPROF_DECODED_FEAT_MAGIC, sizeof(dfeat.magic));
		p.dfeat = &dfeat;
		add[nr_add++] = (struct dprof_prune_feat){
			DPROF_DECODED_FEAT, &dfeat, sizeof(dfeat),
		};
	}
	if (nr_drop) {
		qsort(drop, nr_drop, sizeof(*drop), dprof_u64__cmp);
		memcpy(feat.magic, DPROF_KMEM_FEAT_MAGIC, sizeof(feat.magic));
		feat.dropped_events = nr_drop;
		feat.dropped_objects = out->dropped_objects;
		feat.kept_objects = out->objects - out->dropped_objects;
		feat.samples = touches->nr_samples;
		feat.kernel_undecided = touches->nr_kernel_undecided;
		blob = dprof_prune__encode(&p, sums, firsts, &feat, &blob_len);
		if (!blob) {
			err = -ENOMEM;
			goto out;
		}
		add[nr_add++] = (struct dprof_prune_feat){ DPROF_KMEM_FEAT, blob, blob_len, };
	}
	if (asprintf(&tmp, "%s.dprof-prune", path) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		goto out;
	}
	err = dprof_prune__write(&p, tmp, drop, nr_drop, touches, add, nr_add);
	out->decoded = p.decoded;
	out->decoded_regs = p.dec_regs;
	if (!err && rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
	}
	if (!err && !stat(path, &st))
		out->size_after = st.st_size;
out:
	if (p.map)
		munmap((void *)p.map, p.map_len);
	free(p.ev);
	free(p.lives);
	free(p.took);
	free(p.overs);
	free(p.korder);
	free(p.kcovered);
	free(p.evsels);
	free(drop);
	free(blob);
	free(tmp);
	dprof_prune__sums_free(sums);
	if (!IS_ERR_OR_NULL(firsts))
		hashmap__free(firsts);
	if (read && !err)
		*read = own;	/* the caller's now */
	else
		dprof_touches__exit(&own);
	perf_session__delete(p.session);
	return err;
}

int dprof_kmem__prune_say(const char *path, struct dprof_touches *read)
{
	struct dprof_kmem_pruned pr;
	int err = dprof_kmem__prune(path, NULL, read, &pr);

	if (err) {
		pr_err("dprof: cannot rewrite %s without the kmem events no sample touched, nor with the samples decoded (%s): kept as recorded\n",
		       path, strerror(-err));
		return err;
	}
	if (pr.why_not) {
		pr_debug("dprof: the recording kept as it is: %s\n", pr.why_not);
		return 0;
	}
	if (pr.kmem_why_not)
		pr_debug("dprof: kmem events all kept: %s\n", pr.kmem_why_not);
	else
		pr_info("[ perf dprof: kmem events of %" PRIu64 " objects: %" PRIu64
			" objects left out (no sample's address in them), %" PRIu64 " of %" PRIu64
			" events ]\n",
			pr.objects, pr.dropped_objects, pr.dropped_events, pr.events);
	if (pr.marks && !pr.kmem_why_not)
		pr_debug("dprof: %" PRIu64
			 " allocations of objects left out kept as marks: the kept objects they overlapped (their frees unseen) end there\n",
			 pr.marks);
	if (pr.decoded)
		pr_info("[ perf dprof: %" PRIu64
			" access samples written with their data address in place of their registers%s ]\n",
			pr.decoded - pr.decoded_regs,
			pr.decoded_regs ? "" : " (all)");
	if (pr.decoded_regs)
		pr_info("[ perf dprof: %" PRIu64
			" access samples kept their registers: not decoded when recorded (no code bytes) ]\n",
			pr.decoded_regs);
	pr_info("[ perf dprof: %.3f MB written, %.3f MB before ]\n",
		pr.size_after / 1048576.0, pr.size_before / 1048576.0);
	if (pr.perf_share >= DPROF_KMEM_BUSY_SHARE)
		pr_info("[ perf dprof: %.1f%% of the samples in perf's own kernel code, writing an event per slab object: --kmem-events=map costs the workload less (the slab map types the slab caches' objects; their lifetimes one in --kmem-sample, with kernel-patches/ 0012) ]\n",
			100 * pr.perf_share);
	if (pr.kernel_undecided && !pr.kmem_why_not)
		pr_info("[ perf dprof: %" PRIu64
			" kernel samples had no code bytes (no /proc/kcore or vmlinux): the kmem objects a kernel address in their registers pointed into were kept ]\n",
			pr.kernel_undecided);
	return 0;
}
