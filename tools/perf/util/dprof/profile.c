// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof data profile: per-class aggregation of resolved access
 * samples and the merge into one row per data type.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/zalloc.h>
#include <internal/cpumap.h>

#include "util/debug.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "hashfn.h"
#include "profile.h"

static const char * const unres_str[DPROF_UNRES__MAX] = {
	[DPROF_UNRES_NO_ADDR]		= "no data address",
	[DPROF_UNRES_NO_CODE]		= "no code bytes",
	[DPROF_UNRES_INSN]		= "instruction",
	[DPROF_UNRES_STACK]		= "stack",
	[DPROF_UNRES_NO_OBJECT]		= "no live object or symbol",
	[DPROF_UNRES_USER_DYNAMIC]	= "user heap/stack/mmap",
};

static const char * const kind_str[DPROF_KIND__MAX] = {
	[DPROF_KIND_SLAB]	= "slab",
	[DPROF_KIND_KMALLOC]	= "kmalloc",
	[DPROF_KIND_STATIC]	= "static",
	[DPROF_KIND_PERCPU]	= "percpu",
	[DPROF_KIND_TYPED]	= "DWARF-typed",
	[DPROF_KIND_STACK]	= "stack",
	[DPROF_KIND_HEAP]	= "heap",
	[DPROF_KIND_OPERAND]	= "operand",
};

static const char * const heap_untyped_str[DPROF_HEAP_UNTYPED__MAX] = {
	[DPROF_HEAP_NO_TYPE]	= "no operand type",
	[DPROF_HEAP_PAST_END]	= "operand type past the object's bounds",
};

const char *dprof_heap_untyped__str(enum dprof_heap_untyped why)
{
	return why < DPROF_HEAP_UNTYPED__MAX ? heap_untyped_str[why] : "?";
}

const char *dprof_unres__str(enum dprof_unres r)
{
	return r < DPROF_UNRES__MAX ? unres_str[r] : "?";
}

const char *dprof_kind__str(enum dprof_kind k)
{
	return k < DPROF_KIND__MAX ? kind_str[k] : "?";
}

void dprof_stats__add(struct dprof_stats *dst, const struct dprof_stats *src)
{
	int l;

	for (l = 0; l < DPROF_MEM_LVL__MAX; l++)
		dst->level[l] += src->level[l];
	dst->samples += src->samples;
	dst->writes += src->writes;
	dst->level_known += src->level_known;
	dst->misses += src->misses;
	dst->lat_sum += src->lat_sum;
	dst->lat_n += src->lat_n;
	dst->hitm += src->hitm;
	dst->remote += src->remote;
}

/**
 * dprof_stats__levels_scnprintf - hit probability per cache level
 * @st: the samples
 * @buf: where to print
 * @sz: size of @buf
 *
 * The share of the samples that named a level which each level supplied,
 * nearest first, levels no sample named left out: "L1 62% L2 20% L3 10%
 * DRAM 8%" (paper table 1).  A level seen that rounds to zero is "<1%".
 * "-" when no sample named a level (a software sampler measures none).
 *
 * Return: the number of characters printed.
 */
int dprof_stats__levels_scnprintf(const struct dprof_stats *st, char *buf,
				  size_t sz)
{
	/* nearest first: the order of enum dprof_mem_level, unknown last */
	static const enum dprof_mem_level order[] = {
		DPROF_MEM_LVL_L1, DPROF_MEM_LVL_LFB, DPROF_MEM_LVL_L2,
		DPROF_MEM_LVL_L3, DPROF_MEM_LVL_PEER, DPROF_MEM_LVL_REMOTE_CACHE,
		DPROF_MEM_LVL_LOCAL_DRAM, DPROF_MEM_LVL_REMOTE_DRAM,
		DPROF_MEM_LVL_CXL, DPROF_MEM_LVL_OTHER, DPROF_MEM_LVL_UNKNOWN,
	};
	int n = 0;
	size_t i;

	if (!sz)
		return 0;
	buf[0] = '\0';
	if (!st->level_known)
		return scnprintf(buf, sz, "-");
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		u64 c = st->level[order[i]];
		double pct = 100.0 * c / st->level_known;

		if (!c)
			continue;
		if (pct < 0.5)
			n += scnprintf(buf + n, sz - n, "%s%s <1%%", n ? " " : "",
				       dprof_mem_level__short(order[i]));
		else
			n += scnprintf(buf + n, sz - n, "%s%s %.0f%%", n ? " " : "",
				       dprof_mem_level__short(order[i]), pct);
	}
	return n ?: scnprintf(buf, sz, "-");
}

static void dprof_stats__count(struct dprof_stats *st,
			       const struct dprof_access *acc)
{
	st->samples++;
	st->writes += acc->is_write;
	if (acc->level_known) {
		st->level_known++;
		st->misses += acc->miss;
		st->hitm += acc->hitm;
		st->remote += acc->remote;
		if (acc->level < DPROF_MEM_LVL__MAX)
			st->level[acc->level]++;
	}
	if (acc->weight) {
		st->lat_sum += acc->weight;
		st->lat_n++;
	}
}

static size_t class__hash(long key, void *ctx __maybe_unused)
{
	const struct dprof_class *c = (const struct dprof_class *)key;

	return hash_64(c->key ^ c->type_key ^ c->chain_key, 32) ^
	       hash_ptr(dprof_dso_id(c->dso), 32) ^ c->kind;
}

static bool dprof_class__is(const struct dprof_class *a, const struct dprof_class *b)
{
	return a->kind == b->kind && a->key == b->key && a->type_key == b->type_key &&
	       a->chain_key == b->chain_key && dprof_dso_id(a->dso) == dprof_dso_id(b->dso);
}

static bool class__equal(long k1, long k2, void *ctx __maybe_unused)
{
	return dprof_class__is((const struct dprof_class *)k1,
			       (const struct dprof_class *)k2);
}

static size_t site__hash(long key, void *ctx __maybe_unused)
{
	const struct dprof_site *s = (const struct dprof_site *)key;

	return hash_64(s->ip, 32) ^ s->offset;
}

static bool site__equal(long k1, long k2, void *ctx __maybe_unused)
{
	const struct dprof_site *a = (const struct dprof_site *)k1;
	const struct dprof_site *b = (const struct dprof_site *)k2;

	return a->ip == b->ip && a->offset == b->offset;
}

int dprof_profile__init(struct dprof_profile *prof)
{
	memset(prof, 0, sizeof(*prof));
	prof->classes = hashmap__new(class__hash, class__equal, NULL);
	if (IS_ERR(prof->classes)) {
		prof->classes = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void dprof_class__delete(struct dprof_class *cls)
{
	struct hashmap_entry *cur;
	size_t bkt;
	int i;

	if (cls->sites) {
		hashmap__for_each_entry(cls->sites, cur, bkt) {
			struct dprof_site *site = cur->pvalue;

			dso__put(site->sym_dso);
			free(site);
		}
		hashmap__free(cls->sites);
	}
	if (cls->objs)
		hashmap__free(cls->objs);
	bitmap_free(cls->cpus);
	for (i = 0; i < DPROF_MAX_VOTES; i++)
		dso__put(cls->votes[i].dso);
	dso__put(cls->dso);
	dso__put(cls->type_dso);
	free(cls->heads);
	free(cls->name);
	free(cls->site_name);
	free(cls);
}

void dprof_profile__exit(struct dprof_profile *prof)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!prof->classes)
		return;
	hashmap__for_each_entry(prof->classes, cur, bkt)
		dprof_class__delete(cur->pvalue);
	hashmap__free(prof->classes);
	prof->classes = NULL;
	memset(prof->recent, 0, sizeof(prof->recent));
}

static struct dprof_class *dprof_class__new(const struct dprof_class *id)
{
	struct dprof_class *cls = zalloc(sizeof(*cls));
	struct dso *dso = id->dso;

	if (!cls)
		return NULL;
	cls->kind = id->kind;
	cls->key = id->key;
	cls->type_key = id->type_key;
	cls->chain_key = id->chain_key;
	/* a thread's exit may drop its maps' dsos before the rows are shown */
	cls->dso = dso__get(dso);
	cls->sites = hashmap__new(site__hash, site__equal, NULL);
	if (IS_ERR(cls->sites)) {
		free(cls);
		return NULL;
	}
	return cls;
}

/* The class of identity @id (kind, key, DSO, heap type and callchain). */
static struct dprof_class *dprof_profile__findnew(struct dprof_profile *prof,
						  const struct dprof_class *id)
{
	struct dprof_class **recent, *cls;

	/*
	 * Every slab event asks for its class, and a few call sites make
	 * most of them: look at the one found last for this hash first.
	 */
	recent = &prof->recent[class__hash((long)id, NULL) % DPROF_RECENT_CLASSES];
	if (*recent && dprof_class__is(*recent, id))
		return *recent;
	if (hashmap__find(prof->classes, id, &cls))
		goto out;

	cls = dprof_class__new(id);
	if (!cls)
		return NULL;
	if (hashmap__add(prof->classes, cls, cls)) {
		dprof_class__delete(cls);
		return NULL;
	}
out:
	*recent = cls;
	return cls;
}

/**
 * dprof_profile__findnew_class - the class for an allocation site or symbol
 * @prof: the profile
 * @kind: slab, kmalloc, static or percpu
 * @key: allocation call site, or symbol start address
 * @dso: for static data, the DSO holding the symbol; NULL otherwise
 */
struct dprof_class *dprof_profile__findnew_class(struct dprof_profile *prof,
						 enum dprof_kind kind, u64 key,
						 struct dso *dso)
{
	struct dprof_class id = { .kind = kind, .key = key, .dso = dso };

	return dprof_profile__findnew(prof, &id);
}

/**
 * dprof_profile__findnew_heap_class - user heap objects of a site
 * @prof: the profile
 * @key: the allocator's caller (the return address)
 * @dso: its DSO
 * @type_key: a type inside the objects (struct dprof_typed), 0: the site's
 *	      own class, for what no operand types
 * @chain_key: the identity of the allocations' callchain, 0: none
 */
struct dprof_class *dprof_profile__findnew_heap_class(struct dprof_profile *prof,
						      u64 key, struct dso *dso,
						      u64 type_key, u64 chain_key)
{
	struct dprof_class id = { .kind = DPROF_KIND_HEAP, .key = key, .dso = dso,
				  .type_key = type_key, .chain_key = chain_key };

	return dprof_profile__findnew(prof, &id);
}

static struct dprof_site *dprof_class__findnew_site(struct dprof_class *cls,
						    u64 ip, u64 offset)
{
	struct dprof_site tmp = { .ip = ip, .offset = offset };
	struct dprof_site *site;

	if (hashmap__find(cls->sites, &tmp, &site))
		return site;

	site = zalloc(sizeof(*site));
	if (!site)
		return NULL;
	site->ip = ip;
	site->offset = offset;
	if (hashmap__add(cls->sites, site, site)) {
		free(site);
		return NULL;
	}
	return site;
}

/**
 * dprof_class__add - account one resolved access sample to a class
 * @cls: the class of the object or symbol
 * @offset: byte offset of the access in the object
 * @acc: the access
 *
 * Returns the (offset, ip) site the access was counted in, or NULL.
 */
struct dprof_site *dprof_class__add(struct dprof_class *cls, u64 offset,
				    const struct dprof_access *acc)
{
	struct dprof_site *site = dprof_class__findnew_site(cls, acc->ip, offset);

	if (!site)
		return NULL;
	dprof_stats__count(&site->stats, acc);
	dprof_stats__count(&cls->stats, acc);
	dprof_slices__count(&cls->slices, acc->slice, acc->slice_gen,
			    acc->level_known && acc->miss);
	return site;
}

/**
 * dprof_class__vote - an access typed by DWARF at the object's own offset
 * @cls: the class (kmalloc objects have no type of their own)
 * @name: type name from the operand
 * @dso: DSO whose DWARF has the type
 * @count: votes to add
 *
 * The most voted type names the row.  When all slots are taken, a new
 * name replaces the least voted one (a small space-saving counter).
 */
void dprof_class__vote(struct dprof_class *cls, const char *name,
		       struct dso *dso, u64 count)
{
	struct dprof_vote *min = &cls->votes[0];
	int i;

	for (i = 0; i < DPROF_MAX_VOTES; i++) {
		struct dprof_vote *v = &cls->votes[i];

		if (v->name && !strcmp(v->name, name)) {
			v->count += count;
			return;
		}
		if (!v->name || v->count < min->count)
			min = v;
	}
	min->name = name;
	dso__put(min->dso);
	min->dso = dso__get(dso);
	min->count += count;
}

const struct dprof_vote *dprof_class__best_vote(const struct dprof_class *cls)
{
	const struct dprof_vote *best = NULL;
	int i;

	for (i = 0; i < DPROF_MAX_VOTES; i++) {
		if (cls->votes[i].name &&
		    (!best || cls->votes[i].count > best->count))
			best = &cls->votes[i];
	}
	return best;
}

/**
 * dprof_class__touch_base - count an object known only by its address
 * @cls: a class without an address set (DWARF-typed accesses)
 * @base: object address (access address minus offset in the type)
 * @size: type size
 * @cpu: accessing CPU
 *
 * Keeps one entry per distinct object: memory grows with objects, not
 * with samples.  The entry: bit 0 bounced, bits 1-3 times sampled (up to
 * DPROF_FREQ_SEEN_MAX), the first CPU above.
 */
#define DPROF_OBJ_SEEN_MASK	7
#define DPROF_OBJ_CPU_SHIFT	4

int dprof_class__touch_base(struct dprof_class *cls, u64 base, u64 size,
			    u32 cpu)
{
	unsigned int seen;
	long state;

	if (!cls->objs) {
		cls->objs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(cls->objs)) {
			cls->objs = NULL;
			return -ENOMEM;
		}
	}
	if (!hashmap__find(cls->objs, base, &state)) {
		cls->nr_objects++;
		cls->ws_bytes += size;
		dprof_freq__sample(&cls->freq, 0);
		return hashmap__add(cls->objs, base,
				    (long)cpu << DPROF_OBJ_CPU_SHIFT | 1 << 1);
	}
	seen = (state >> 1) & DPROF_OBJ_SEEN_MASK;
	dprof_freq__sample(&cls->freq, seen);
	if (seen < DPROF_FREQ_SEEN_MAX)
		state += 1 << 1;
	if (!(state & 1) && (u32)(state >> DPROF_OBJ_CPU_SHIFT) != cpu) {
		cls->nr_bounced++;
		state |= 1;
	}
	return hashmap__set(cls->objs, base, state, NULL, NULL);
}

/*
 * Account a sample in the profile totals, resolved or not, and set its
 * time slice: the width doubles until the sample falls in the last slice
 * at most (a sample out of order, before the first, counts in the first;
 * 40 doublings of 100 us are 3.5 years).
 */
void dprof_profile__count(struct dprof_profile *prof, struct dprof_access *acc)
{
	struct dprof_slices *s = &prof->slices;
	u64 since;

	if (!prof->slice_started) {
		prof->slice_started = true;
		prof->slice_t0 = acc->time;
	}
	since = acc->time > prof->slice_t0 ? acc->time - prof->slice_t0 : 0;
	while (s->gen < 40 && since / ((u64)DPROF_SLICE_NS << s->gen) >= DPROF_SLICES)
		dprof_slices__fold(s, s->gen + 1);
	acc->slice = min_t(u64, since / ((u64)DPROF_SLICE_NS << s->gen), DPROF_SLICES - 1);
	acc->slice_gen = s->gen;
	dprof_slices__count(s, acc->slice, acc->slice_gen, acc->level_known && acc->miss);

	prof->nr_samples++;
	dprof_stats__count(&prof->total, acc);
	if (acc->level_known)
		prof->has_levels = true;
	if (acc->weight)
		prof->has_latency = true;
}

static int dprof_strcmp(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

static const char *dprof_class__dso_name(const struct dprof_class *c)
{
	return c->dso ? dso__long_name(c->dso) : NULL;
}

/*
 * A total order on what a class shows, never on addresses of perf's own
 * objects: the key of a DWARF-typed class is perf's annotated_data_type,
 * which (name, DSO, size) already tell apart.
 */
static int dprof_class__cmp_id(const struct dprof_class *a,
			       const struct dprof_class *b)
{
	int ret = dprof_strcmp(a->name, b->name);

	if (ret)
		return ret;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	ret = dprof_strcmp(dprof_class__dso_name(a), dprof_class__dso_name(b));
	if (ret)
		return ret;
	ret = dprof_strcmp(a->site_name, b->site_name);
	if (ret)
		return ret;
	if (a->obj_size != b->obj_size)
		return a->obj_size < b->obj_size ? -1 : 1;
	if (a->kind == DPROF_KIND_TYPED || a->kind == DPROF_KIND_STACK ||
	    a->kind == DPROF_KIND_OPERAND)
		return 0;
	return a->key < b->key ? -1 : a->key > b->key;
}

static int dprof_class__cmp(const void *a, const void *b)
{
	return dprof_class__cmp_id(*(const struct dprof_class * const *)a,
				   *(const struct dprof_class * const *)b);
}

/* The frame a heap class's row names (its chain's site). */
static const struct dprof_heap_frame *dprof_class__site(const struct dprof_class *c)
{
	return &c->chain->f[c->chain->site];
}

/* The call site a class's row names: past the allocator's wrappers for the heap */
u64 dprof_class__site_ip(const struct dprof_class *c)
{
	return c->chain ? dprof_class__site(c)->ip : c->key;
}

/* Classes that hold the same data type become one row. */
static bool dprof_class__same_row(const struct dprof_class *a,
				  const struct dprof_class *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case DPROF_KIND_SLAB:
		/* an unnamed cache stays per call site */
		return a->name && b->name && !strcmp(a->name, b->name);
	case DPROF_KIND_KMALLOC:
		return a->name && b->name && !strcmp(a->name, b->name) &&
		       a->site_name && b->site_name &&
		       !strcmp(a->site_name, b->site_name);
	case DPROF_KIND_TYPED:
	case DPROF_KIND_STACK:
	case DPROF_KIND_OPERAND:
		/*
		 * One name, one row per DSO: a program's own "struct worker"
		 * is not the kernel's, and the row is typed in its DSO.
		 */
		return a->name && b->name && !strcmp(a->name, b->name) &&
		       dprof_dso_id(a->dso) == dprof_dso_id(b->dso);
	case DPROF_KIND_HEAP:
		/* per type and allocation site, past the wrappers */
		return a->type_key == b->type_key &&
		       dprof_class__site_ip(a) == dprof_class__site_ip(b) &&
		       dprof_dso_id(a->dso) == dprof_dso_id(b->dso);
	case DPROF_KIND_STATIC:
	case DPROF_KIND_PERCPU:
	case DPROF_KIND__MAX:
	default:
		return a == b;
	}
}

/*
 * The objects @cls's estimate is bounded by: those the address set knew
 * of, or, for a type inside a heap site's objects, the site's objects when
 * none has room for two of it (each then holds one instance at most:
 * counted at the site, with the objects no sample touched).  0: none.
 */
static u64 dprof_class__known(const struct dprof_profile *prof,
			      const struct dprof_class *cls)
{
	struct dprof_class id = { .kind = DPROF_KIND_HEAP, .key = cls->key, .dso = cls->dso,
				  .chain_key = cls->chain_key };
	struct dprof_class *site;

	if (cls->nr_known || cls->kind != DPROF_KIND_HEAP || !cls->type_key ||
	    !hashmap__find(prof->classes, &id, &site))
		return cls->nr_known;
	if (!site->alloc_size || site->alloc_size >= 2 * cls->obj_size)
		return 0;
	return site->nr_known;
}

/* The samples, their time slices and their members and code of @cls in @row. */
static int dprof_row__merge_sites(struct dprof_class *row, const struct dprof_class *cls)
{
	struct hashmap_entry *cur;
	size_t bkt;

	dprof_stats__add(&row->stats, &cls->stats);
	dprof_slices__add(&row->slices, &cls->slices);
	hashmap__for_each_entry(cls->sites, cur, bkt) {
		struct dprof_site *s = cur->pvalue;
		struct dprof_site *d = dprof_class__findnew_site(row, s->ip,
								 s->offset);

		if (!d)
			return -ENOMEM;
		dprof_stats__add(&d->stats, &s->stats);
		if (!d->sym_dso)
			d->sym_dso = dso__get(s->sym_dso);
		d->sym = s->sym;
		d->sym_off = s->sym_off;
		d->sym_resolved = s->sym_resolved;
	}
	return 0;
}

/* An object's entry in dprof_class::objs, see dprof_class__touch_base() */
static unsigned int dprof_obj_seen(long state)
{
	return (state >> 1) & DPROF_OBJ_SEEN_MASK;
}

/*
 * The objects of @cls and of its headers' classes, which are the same
 * objects (an instance is keyed by its address and allocation time in
 * each): counted once, an object's samples summed, into @u's counts.
 */
static int dprof_class__union_objects(const struct dprof_class *cls,
				      struct dprof_class *u)
{
	struct hashmap *objs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	struct hashmap_entry *cur;
	size_t bkt;
	u32 i;
	int err = 0;

	if (IS_ERR(objs))
		return -ENOMEM;
	memset(&u->freq, 0, sizeof(u->freq));
	u->nr_bounced = 0;
	for (i = 0; i <= cls->nr_heads && !err; i++) {
		const struct dprof_class *c = i ? cls->heads[i - 1] : cls;

		/* a site's untyped accesses: objects not told apart from the typed' */
		if (c->type_key)
			u->freq.n += c->freq.n;
		if (!c->objs)
			continue;
		hashmap__for_each_entry(c->objs, cur, bkt) {
			long state = cur->value, old;
			unsigned int seen;

			if (!hashmap__find(objs, cur->key, &old)) {
				err = hashmap__add(objs, cur->key, state);
				if (err)
					break;
				continue;
			}
			seen = min_t(unsigned int, dprof_obj_seen(old) + dprof_obj_seen(state),
				     DPROF_FREQ_SEEN_MAX);
			if ((old >> DPROF_OBJ_CPU_SHIFT) != (state >> DPROF_OBJ_CPU_SHIFT))
				old |= 1;
			old = (old & ~((long)DPROF_OBJ_SEEN_MASK << 1)) | (state & 1) |
			      (long)seen << 1;
			hashmap__set(objs, cur->key, old, NULL, NULL);
		}
	}
	if (!err) {
		hashmap__for_each_entry(objs, cur, bkt) {
			unsigned int seen = dprof_obj_seen(cur->value);

			u->freq.s_obs++;
			if (seen && seen <= DPROF_FREQ_RARE)
				u->freq.f[seen - 1]++;
			u->nr_bounced += cur->value & 1;
		}
		u->nr_objects = hashmap__size(objs);
		u->ws_bytes = u->nr_objects * cls->obj_size;
	}
	hashmap__free(objs);
	return err;
}

static int dprof_row__add_head(struct dprof_class *row, struct dprof_class *head)
{
	struct dprof_class **heads = realloc(row->heads, (row->nr_heads + 1) * sizeof(*heads));

	if (!heads)
		return -ENOMEM;
	row->heads = heads;
	heads[row->nr_heads++] = head;
	return dprof_row__merge_sites(row, head);
}

void dprof_map_objs__add(struct dprof_map_objs *dst, const struct dprof_map_objs *src)
{
	dst->interval = max(dst->interval, src->interval);
	dst->slots |= src->slots;
	dprof_freq__add(&dst->chosen, &src->chosen);
	dst->chosen_freed += src->chosen_freed;
	dprof_freq__add(&dst->old, &src->old);
	dst->old_slots += src->old_slots;
	dst->slot_bounced += src->slot_bounced;
	dst->allocs += src->allocs;
	dst->counted |= src->counted;
}

static int dprof_row__merge(struct dprof_class *row, struct dprof_class *cls, u64 known)
{
	struct dprof_class objs = {
		.nr_objects = cls->nr_objects, .freq = cls->freq,
		.nr_bounced = cls->nr_bounced, .ws_bytes = cls->ws_bytes,
	};
	u32 h;
	int i, err;

	err = dprof_row__merge_sites(row, cls);
	for (h = 0; h < cls->nr_heads && !err; h++)
		err = dprof_row__add_head(row, cls->heads[h]);
	if (!err && cls->nr_heads)
		err = dprof_class__union_objects(cls, &objs);
	if (err)
		return err;
	row->nr_objects += objs.nr_objects;
	dprof_freq__add(&row->freq, &objs.freq);
	row->nr_known += known;
	if (objs.freq.n && !known)
		row->no_bound = true;
	row->nr_bounced += objs.nr_bounced;
	row->ws_bytes += objs.ws_bytes;
	row->nr_allocs += cls->nr_allocs;
	row->life_sum += cls->life_sum;
	row->life_n += cls->life_n;
	dprof_map_objs__add(&row->map, &cls->map);
	/* a class of chosen objects: all its objects are */
	if (cls->map.interval && !cls->map.slots) {
		dprof_freq__add(&row->map.chosen, &cls->freq);
		row->map.chosen_freed += cls->life_n;
	}
	row->inst_whole |= cls->inst_whole;
	if (cls->inst_min < row->inst_min)
		row->inst_min = cls->inst_min;
	row->inst_whole |= cls->inst_whole;
	if (!row->obj_size)
		row->obj_size = cls->obj_size;
	/* the largest block of its classes: not the first's, whose order varies */
	if (cls->alloc_size > row->alloc_size)
		row->alloc_size = cls->alloc_size;
	for (i = 0; i < DPROF_MAX_VOTES; i++) {
		if (cls->votes[i].name)
			dprof_class__vote(row, cls->votes[i].name, cls->votes[i].dso,
					  cls->votes[i].count);
	}
	cls->row = row;
	for (h = 0; h < cls->nr_heads; h++)
		cls->heads[h]->row = row;
	return 0;
}

/*
 * A function of heap allocation callchains (a function inlined at a
 * return address is one too): the call sites it is called from, the
 * functions those are in, the types at the start of the objects allocated
 * through it (a few of each are enough to tell).
 */
#define DPROF_HEAP_SEEN		4

struct dprof_heap_func {
	u64	callers[DPROF_HEAP_SEEN];	/* call sites (struct dprof_heap_frame::call) */
	u64	caller_funcs[DPROF_HEAP_SEEN];
	u64	calls[DPROF_HEAP_SEEN];		/* its own, toward the allocator */
	u64	types[DPROF_HEAP_SEEN];
	/*
	 * (its own call toward the allocator, the call site it was called
	 * from, a type the objects were accessed as), scalars too
	 */
	u64	site_types[DPROF_HEAP_SEEN * 4][3];
	u32	nr_callers, nr_caller_funcs, nr_calls, nr_types, nr_site_types;
	bool	caller_unknown;		/* a chain ended in it */
	bool	calls_named;		/* it calls an "alloc" function */
	const char *name;
	bool	runtime;		/* of the C or C++ runtime (strdup) */
	bool	wrapper;
};

/* a wrapper calls the allocator (or the next wrapper) from few places */
#define DPROF_HEAP_WRAPPER_CALLS	4

/* ... or, when none of its objects was typed, called from this many sites */
#define DPROF_HEAP_UNTYPED_CALLERS	3

/* a type bigger than a scalar: "u8" and "unsigned char" are not two types */
#define DPROF_HEAP_SCALAR	8

/* the deepest offset a type heading an object is at (after a header) */
#define DPROF_HEAP_HEAD		16

static void dprof_seen__add(u64 *seen, u32 *nr, u64 val)
{
	u32 i;

	for (i = 0; i < *nr && i < DPROF_HEAP_SEEN; i++) {
		if (seen[i] == val)
			return;
	}
	if (*nr < DPROF_HEAP_SEEN)
		seen[*nr] = val;
	/* counts on past DPROF_HEAP_SEEN: "more than that" */
	if (*nr <= DPROF_HEAP_SEEN)
		(*nr)++;
}

static bool dprof_heap__named_wrapper(const char *list, const char *name)
{
	size_t len = name ? strlen(name) : 0;
	const char *p = list;

	while (p && len && (p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ',') && (!p[len] || p[len] == ','))
			return true;
		p += len;
	}
	return false;
}

static bool dprof_heap_func__site_type(const struct dprof_heap_func *f, u64 own, u64 call,
				       u64 type)
{
	u32 i;

	for (i = 0; i < f->nr_site_types; i++) {
		if (f->site_types[i][0] == own && f->site_types[i][1] == call &&
		    f->site_types[i][2] == type)
			return true;
	}
	return false;
}

static void dprof_heap_func__add_site_type(struct dprof_heap_func *f, u64 own, u64 call,
					   u64 type)
{
	if (dprof_heap_func__site_type(f, own, call, type))
		return;
	if (f->nr_site_types < ARRAY_SIZE(f->site_types)) {
		f->site_types[f->nr_site_types][0] = own;
		f->site_types[f->nr_site_types][1] = call;
		f->site_types[f->nr_site_types][2] = type;
		f->nr_site_types++;
	}
}

/*
 * Two of the call sites of @f had objects of no type in common through
 * one call of its own: the type is its callers' choice.  A function whose
 * calls each allocate their own type whoever called it (a table's resize:
 * its nodes from one call, its array from another) chooses it.
 */
static bool dprof_heap_func__sites_differ(const struct dprof_heap_func *f)
{
	u32 a, b, k;

	for (a = 0; a < f->nr_site_types; a++) {
		for (b = 0; b < f->nr_site_types; b++) {
			u64 own = f->site_types[a][0];
			u64 ca = f->site_types[a][1], cb = f->site_types[b][1];
			bool common = false;

			if (f->site_types[b][0] != own || ca >= cb)
				continue;
			for (k = 0; k < f->nr_site_types && !common; k++)
				common = f->site_types[k][0] == own && f->site_types[k][1] == ca &&
					 dprof_heap_func__site_type(f, own, cb,
								    f->site_types[k][2]);
			if (!common)
				return true;
		}
	}
	return false;
}

/* "alloc" in its name: xmalloc, my_alloc, sqlite3DbRealloc */
static bool dprof_heap_func__named(const struct dprof_heap_func *f)
{
	return f->name && strcasestr(f->name, "alloc");
}

/* A function named so calls @f: a run of them above the allocator. */
static bool dprof_heap_func__called_named(struct hashmap *funcs,
					  const struct dprof_heap_func *f)
{
	struct dprof_heap_func *c;
	u32 i;

	for (i = 0; i < f->nr_caller_funcs && i < DPROF_HEAP_SEEN; i++) {
		if (hashmap__find(funcs, f->caller_funcs[i], &c) && dprof_heap_func__named(c))
			return true;
	}
	return false;
}

/* All the functions @f is called from are wrappers (and it has callers). */
static bool dprof_heap_func__callers_wrap(struct hashmap *funcs,
					  const struct dprof_heap_func *f)
{
	struct dprof_heap_func *c;
	u32 i;

	if (f->caller_unknown || !f->nr_caller_funcs ||
	    f->nr_caller_funcs > DPROF_HEAP_SEEN)
		return false;
	for (i = 0; i < f->nr_caller_funcs; i++) {
		if (!hashmap__find(funcs, f->caller_funcs[i], &c) || !c->wrapper)
			return false;
	}
	return true;
}

/**
 * dprof_profile__heap_sites - the site each heap allocation chain's rows name
 * @prof: the profile (its --heap-wrapper list)
 * @classes: the classes about to become rows
 * @nr: how many
 *
 * The site is the first frame of the chain past the allocator's wrappers
 * and the C and C++ runtime's functions (strdup).  A wrapper is found from
 * what went through it: a function that makes its allocations from four
 * places of its code at most, of objects of two struct types or more (the
 * types their accesses name at the objects' start), called from two call
 * sites or more that got objects of no type in common through one call of
 * its own (its callers chose the type: a table's resize that allocates
 * its nodes from one call and its array from another, whoever called it,
 * is their site); of objects no access typed, called from three or more;
 * named so ("alloc" in its name: realloc paths are narrow) unless it
 * allocates one type, no function named so calls it or is called by it
 * (a run of them: sqlite3DbRealloc, sqlite3Realloc), and no two of its
 * call sites had objects accessed as no type in common, scalars included
 * (jq's jv_mem_calloc: sort_entry arrays from one call site, uint16_t
 * arrays from another); or called only
 * by wrappers (a wrapper's helper: a malloc hook behind a function
 * pointer); and the functions --heap-wrapper names.  A function
 * that allocates one type is never a wrapper by its callers' number;
 * neither is one that allocates from many places of its code (a
 * dispatcher: the allocations are its callees'), nor one called from one
 * call site that is not a wrapper.
 *
 * Return: 0, or -ENOMEM.
 */
static int dprof_profile__heap_sites(struct dprof_profile *prof,
				     struct dprof_class **classes, size_t nr)
{
	struct hashmap *funcs, *stopped;
	struct hashmap_entry *cur;
	bool changed = true;
	size_t bkt, c;
	u32 i, round;
	int err = 0;

	funcs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(funcs))
		return -ENOMEM;
	for (c = 0; c < nr && !err; c++) {
		const struct dprof_class *cls = classes[c];
		const struct dprof_heap_chain *ch = cls->chain;

		if (cls->kind != DPROF_KIND_HEAP || !ch)
			continue;
		for (i = 0; i < ch->nr; i++) {
			const struct dprof_heap_frame *fr = &ch->f[i];
			struct dprof_heap_func *f;

			if (!fr->func)
				continue;
			if (!hashmap__find(funcs, fr->func, &f)) {
				f = zalloc(sizeof(*f));
				if (!f || hashmap__add(funcs, fr->func, f)) {
					free(f);
					err = -ENOMEM;
					break;
				}
				f->runtime = fr->runtime;
				f->name = fr->func_name;
				f->wrapper = dprof_heap__named_wrapper(prof->heap_wrappers,
								       fr->func_name);
			}
			dprof_seen__add(f->calls, &f->nr_calls, fr->call);
			if (i && ch->f[i - 1].func_name &&
			    strcasestr(ch->f[i - 1].func_name, "alloc"))
				f->calls_named = true;
			if (i + 1 < ch->nr && ch->f[i + 1].func) {
				dprof_seen__add(f->callers, &f->nr_callers, ch->f[i + 1].call);
				dprof_seen__add(f->caller_funcs, &f->nr_caller_funcs,
						ch->f[i + 1].func);
				/* an object's header is its type's (the same objects) */
				if (cls->type_key && !cls->head_of)
					dprof_heap_func__add_site_type(f, fr->call,
								       ch->f[i + 1].call,
								       cls->type_key);
			} else {
				f->caller_unknown = true;
			}
			/* an array of it from the start counts: its first element unsampled */
			if (cls->type_key && !cls->head_of && cls->obj_size > DPROF_HEAP_SCALAR &&
			    cls->inst_min % cls->obj_size <= DPROF_HEAP_HEAD)
				dprof_seen__add(f->types, &f->nr_types, cls->type_key);
		}
	}
	/* a wrapper's helpers are wrappers: a chain is at most this deep */
	for (round = 0; !err && changed && round <= DPROF_HEAP_SEEN * 2; round++) {
		changed = false;
		hashmap__for_each_entry(funcs, cur, bkt) {
			struct dprof_heap_func *f = cur->pvalue;

			/* the runtime's are skipped, and make no wrapper of their callers */
			if (f->wrapper || f->runtime || f->nr_calls > DPROF_HEAP_WRAPPER_CALLS)
				continue;
			if ((dprof_heap_func__named(f) &&
			     (f->nr_types != 1 || f->calls_named ||
			      dprof_heap_func__called_named(funcs, f) ||
			      dprof_heap_func__sites_differ(f))) ||
			    (f->nr_types != 1 &&
			     ((f->nr_types && f->nr_callers >= 2 &&
			       dprof_heap_func__sites_differ(f)) ||
			      (!f->nr_types && f->nr_callers >= DPROF_HEAP_UNTYPED_CALLERS))) ||
			    dprof_heap_func__callers_wrap(funcs, f)) {
				f->wrapper = true;
				changed = true;
			}
		}
	}
	prof->nr_heap_wrappers = 0;
	hashmap__for_each_entry(funcs, cur, bkt) {
		struct dprof_heap_func *f = cur->pvalue;

		prof->nr_heap_wrappers += f->wrapper;
		pr_debug2("dprof: heap frame %s: %u types, %u call sites, calls at %u: %s\n",
			  f->name, f->nr_types, f->nr_callers, f->nr_calls,
			  f->wrapper ? "wrapper" : f->runtime ? "runtime" : "site");
	}
	stopped = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(stopped))
		stopped = NULL;
	prof->heap_stopped_sites = 0;
	prof->heap_stopped_samples = 0;
	for (c = 0; c < nr && !err; c++) {
		struct dprof_heap_chain *ch = classes[c]->chain;
		struct dprof_heap_func *f = NULL;

		if (classes[c]->kind != DPROF_KIND_HEAP || !ch)
			continue;
		for (ch->site = 0; ch->site < ch->nr; ch->site++) {
			f = NULL;
			if (!ch->f[ch->site].func ||
			    !hashmap__find(funcs, ch->f[ch->site].func, &f) ||
			    !(f->wrapper || f->runtime) || ch->site + 1 == ch->nr)
				break;
		}
		/* the chain ended before a frame that is not a wrapper's */
		if (f && (f->wrapper || f->runtime)) {
			prof->heap_stopped_samples += classes[c]->stats.samples;
			if (stopped && !hashmap__add(stopped, dprof_class__site(classes[c])->ip, 0))
				prof->heap_stopped_sites++;
		}
	}
	hashmap__free(stopped);
	hashmap__for_each_entry(funcs, cur, bkt)
		free(cur->pvalue);
	hashmap__free(funcs);
	return err;
}

/*
 * A row of a type perf's data-type profiling gave (a typed heap row, a
 * DWARF-typed, stack or operand-only row) is one type whatever typedef
 * named it: it takes the name perf gives most of its accesses' type.
 */
static int dprof_row__name_by_votes(struct dprof_class *row)
{
	const struct dprof_vote *v;
	char *name;

	if (row->kind == DPROF_KIND_HEAP ? !row->type_key :
	    row->kind != DPROF_KIND_TYPED && row->kind != DPROF_KIND_STACK &&
	    row->kind != DPROF_KIND_OPERAND)
		return 0;
	v = dprof_class__best_vote(row);
	if (!v || (row->name && !strcmp(row->name, v->name)))
		return 0;
	name = strdup(v->name);
	if (!name)
		return -ENOMEM;
	free(row->name);
	row->name = name;
	return 0;
}

/* heap classes of one site (past the wrappers) next to each other */
static int dprof_class__cmp_site(const void *a, const void *b)
{
	const struct dprof_class *ca = *(const struct dprof_class * const *)a;
	const struct dprof_class *cb = *(const struct dprof_class * const *)b;
	u64 sa = dprof_class__site_ip(ca), sb = dprof_class__site_ip(cb);
	int ret;

	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (dprof_dso_id(ca->dso) != dprof_dso_id(cb->dso))
		return dprof_dso_id(ca->dso) < dprof_dso_id(cb->dso) ? -1 : 1;
	ret = dprof_class__cmp_id(ca, cb);
	if (ret)
		return ret;
	/*
	 * The classes of one type at a site, by their chains: the first
	 * is the one dprof_class__head_of() picks, and their type_key is
	 * an address, which differs from run to run
	 */
	if (ca->chain_key != cb->chain_key)
		return ca->chain_key < cb->chain_key ? -1 : 1;
	if (ca->inst_min != cb->inst_min)
		return ca->inst_min < cb->inst_min ? -1 : 1;
	return ca->stats.samples < cb->stats.samples ? -1 : ca->stats.samples > cb->stats.samples;
}

/*
 * The class among @c[0..@nr) whose type @h is a header of: the biggest
 * type at the same place in the objects that @h is a prefix of, when
 * every other such type is a prefix of it too (a header two unrelated
 * types share at one site, e.g. a collector's header of every object of
 * a generic allocation function, tells neither).  NULL: none.
 */
static struct dprof_class *
dprof_class__head_of(struct dprof_class *h, struct dprof_class **c, size_t nr,
		     bool (*is_prefix)(void *arg, const struct dprof_class *h,
				       const struct dprof_class *o),
		     void *arg)
{
	struct dprof_class *best = NULL;
	size_t i;

	for (i = 0; i < nr; i++) {
		struct dprof_class *o = c[i];

		if (o == h || o->type_key == h->type_key || o->inst_min != h->inst_min ||
		    o->obj_size <= h->obj_size || (best && o->type_key == best->type_key) ||
		    !is_prefix(arg, h, o))
			continue;
		if (!best || o->obj_size > best->obj_size) {
			if (best && !is_prefix(arg, best, o))
				return NULL;
			best = o;
		} else if (!is_prefix(arg, o, best)) {
			return NULL;
		}
	}
	return best;
}

static int dprof_class__add_head(struct dprof_class *o, struct dprof_class *head)
{
	struct dprof_class **heads = realloc(o->heads, (o->nr_heads + 1) * sizeof(*heads));

	if (!heads)
		return -ENOMEM;
	o->heads = heads;
	heads[o->nr_heads++] = head;
	head->head_of = o;
	return 0;
}

/*
 * The one type a site's objects are, if they are: one type (its headers
 * aside) at the objects' start, each object one instance of it.  @c: the
 * typed classes of the site.
 */
static struct dprof_class *dprof_site__sole_type(struct dprof_class **c, size_t nr,
						 u64 chain_key)
{
	struct dprof_class *o = NULL;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (c[i]->head_of)
			continue;
		if (o && o->type_key != c[i]->type_key)
			return NULL;
		/* the class of the untyped accesses' own chain, if any */
		if (!o || c[i]->chain_key == chain_key)
			o = c[i];
	}
	if (!o || o->inst_min || !o->inst_whole || o->alloc_size >= 2 * o->obj_size)
		return NULL;
	return o;
}

/*
 * An access with no operand type (a loop's induction through an array
 * member, a libc string function) inside an object of a site whose
 * objects are one type is an access to that type, at the same offset:
 * the site's own, untyped, class counts for the type's row, as a header
 * does.  Its objects are not told apart from those the typed accesses
 * saw: the row's objects are the typed accesses'.  @c: the typed classes,
 * by site (dprof_class__cmp_site()).
 */
static int dprof_profile__heap_untyped(struct dprof_profile *prof, struct dprof_class **c,
				       size_t nr)
{
	struct hashmap_entry *cur;
	size_t bkt, i, j;
	int err = 0;

	prof->heap_untyped_sited = 0;
	hashmap__for_each_entry(prof->classes, cur, bkt) {
		struct dprof_class *u = cur->pvalue, *o;
		u64 site;

		if (u->kind != DPROF_KIND_HEAP || u->type_key || !u->stats.samples || !u->chain)
			continue;
		site = dprof_class__site_ip(u);
		for (i = 0; i < nr && (dprof_class__site_ip(c[i]) != site ||
				       dprof_dso_id(c[i]->dso) != dprof_dso_id(u->dso)); i++)
			;
		for (j = i; j < nr && dprof_class__site_ip(c[j]) == site &&
		     dprof_dso_id(c[j]->dso) == dprof_dso_id(u->dso); j++)
			;
		o = dprof_site__sole_type(c + i, j - i, u->chain_key);
		if (o) {
			err = dprof_class__add_head(o, u);
			if (err)
				break;
			prof->heap_untyped_sited += u->stats.samples;
		}
	}
	return err;
}

/**
 * dprof_profile__heap_headers - count the accesses through an object's
 * header for the object's type
 * @prof: the profile
 * @is_prefix: whether the type of a class is a prefix of another's
 * @arg: for @is_prefix
 *
 * Objects are often reached through a header their type begins with: an
 * interpreter's collector header, a base struct embedded first, a common
 * initial sequence a macro gives every object type.  The operand types
 * then split a site's objects into a row per type; the object's type is
 * the biggest of them, and its row takes its headers' accesses (they are
 * its first members, at the same offsets).  Their objects are the same
 * objects: dprof_profile__rows() counts them once.
 *
 * Returns 0 or -ENOMEM.
 */
int dprof_profile__heap_headers(struct dprof_profile *prof,
				bool (*is_prefix)(void *arg, const struct dprof_class *h,
						  const struct dprof_class *o),
				void *arg)
{
	struct dprof_class **c, **sites;
	struct hashmap_entry *cur;
	size_t bkt, nr = 0, nr_sites, i, j, k;
	int pass, err = -ENOMEM;

	c = calloc(hashmap__size(prof->classes) + 1, sizeof(*c));
	sites = calloc(hashmap__size(prof->classes) + 1, sizeof(*sites));
	if (!c || !sites)
		goto out;
	hashmap__for_each_entry(prof->classes, cur, bkt) {
		struct dprof_class *cls = cur->pvalue;

		cls->head_of = NULL;
		zfree(&cls->heads);
		cls->nr_heads = 0;
		if (cls->kind == DPROF_KIND_HEAP && cls->type_key && cls->stats.samples &&
		    cls->obj_size && cls->chain)
			c[nr++] = cls;
	}
	/*
	 * The sites past the wrappers tell which objects are of one kind;
	 * a header's type is not one of a wrapper's types (it is its
	 * objects'), so the sites are found again without the headers, and
	 * the headers by them once more.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr; i++) {
			zfree(&c[i]->heads);
			c[i]->nr_heads = 0;
		}
		for (i = nr_sites = 0; i < nr; i++) {
			if (!c[i]->head_of)
				sites[nr_sites++] = c[i];
		}
		err = dprof_profile__heap_sites(prof, sites, nr_sites);
		if (err)
			goto out;
		for (i = 0; i < nr; i++)
			c[i]->head_of = NULL;
		qsort(c, nr, sizeof(*c), dprof_class__cmp_site);
		for (i = 0; i < nr; i = j) {
			for (j = i + 1; j < nr &&
			     dprof_class__site_ip(c[j]) == dprof_class__site_ip(c[i]) &&
			     dprof_dso_id(c[j]->dso) == dprof_dso_id(c[i]->dso); j++)
				;
			for (k = i; j - i > 1 && k < j; k++)
				c[k]->head_of = dprof_class__head_of(c[k], c + i, j - i,
								     is_prefix, arg);
		}
	}
	for (k = 0; k < nr; k++) {
		struct dprof_class *o = c[k]->head_of;

		if (!o)
			continue;
		/* sizes grow along a chain of headers: it ends */
		while (o->head_of)
			o = o->head_of;
		c[k]->head_of = o;
		err = dprof_class__add_head(o, c[k]);
		if (err)
			goto out;
	}
	err = dprof_profile__heap_untyped(prof, c, nr);
out:
	free(sites);
	free(c);
	return err;
}

/*
 * The objects @cls's row is bounded by, its headers' included: theirs
 * are the same objects where they are of its call chain, or those of
 * their own chain, unless a class of @cls's type there counts them.
 */
static u64 dprof_class__known_heads(const struct dprof_profile *prof,
				    const struct dprof_class *cls)
{
	u64 known = dprof_class__known(prof, cls);
	u32 h, k;

	for (h = 0; h < cls->nr_heads; h++) {
		const struct dprof_class *head = cls->heads[h];
		struct dprof_class id = {
			.kind = DPROF_KIND_HEAP, .key = head->key, .dso = head->dso,
			.type_key = cls->type_key, .chain_key = head->chain_key,
			.obj_size = cls->obj_size,
		};
		struct dprof_class *same;

		if (head->chain_key == cls->chain_key && head->key == cls->key)
			continue;
		for (k = 0; k < h; k++) {
			if (cls->heads[k]->chain_key == head->chain_key &&
			    cls->heads[k]->key == head->key)
				break;
		}
		if (k < h || (hashmap__find(prof->classes, &id, &same) && same->stats.samples))
			continue;
		known += dprof_class__known(prof, &id);
	}
	return known;
}

/**
 * dprof_profile__rows - merge the classes into one row per data type
 * @prof: the profile
 * @nr: number of rows returned
 *
 * Rows are new objects (free them with dprof_rows__free()); classes that
 * got no sample are left out.  Returns NULL on allocation failure.
 */
struct dprof_class **dprof_profile__rows(struct dprof_profile *prof, size_t *nr)
{
	struct dprof_class **rows, **classes;
	struct hashmap_entry *cur;
	size_t bkt, n = 0, nr_classes = 0, i, c;

	rows = calloc(hashmap__size(prof->classes) + 1, sizeof(*rows));
	classes = calloc(hashmap__size(prof->classes) + 1, sizeof(*classes));
	if (!rows || !classes) {
		free(rows);
		free(classes);
		return NULL;
	}

	/*
	 * Merge in an order that does not depend on the hash: a row takes
	 * its key, DSO and sizes from its first class.
	 */
	hashmap__for_each_entry(prof->classes, cur, bkt) {
		struct dprof_class *cls = cur->pvalue;

		/* a header's samples are its object's row's */
		if (cls->stats.samples && !cls->head_of)
			classes[nr_classes++] = cls;
	}
	if (dprof_profile__heap_sites(prof, classes, nr_classes))
		goto out_err;
	qsort(classes, nr_classes, sizeof(*classes), dprof_class__cmp);

	for (c = 0; c < nr_classes; c++) {
		struct dprof_class *cls = classes[c], *row = NULL;

		for (i = 0; i < n; i++) {
			if (dprof_class__same_row(rows[i], cls)) {
				row = rows[i];
				break;
			}
		}
		if (!row) {
			row = dprof_class__new(cls);
			if (!row)
				goto out_err;
			row->name = cls->name ? strdup(cls->name) : NULL;
			row->site_name = cls->site_name ? strdup(cls->site_name) : NULL;
			row->type_dso = dso__get(cls->type_dso);
			row->chain = cls->chain;
			row->inst_min = cls->inst_min;
			/* a heap row is named by the site past the wrappers */
			if (cls->chain) {
				free(row->site_name);
				row->site_name = strdup(dprof_class__site(cls)->name ?: "?");
			}
			rows[n++] = row;
		}
		if (dprof_row__merge(row, cls, dprof_class__known_heads(prof, cls)))
			goto out_err;
	}
	for (i = 0; i < n; i++) {
		struct dprof_map_objs *m = &rows[i]->map;

		if (dprof_row__name_by_votes(rows[i]))
			goto out_err;
		/*
		 * A slot touched by two CPUs is a bounce when it held one
		 * object all along: when none of the cache's chosen objects
		 * ended while recording (its objects outlive it), or when no
		 * lifetimes were chosen to tell.  Otherwise the chosen objects
		 * say whether objects bounce.
		 */
		if (m->slots && (!m->interval || !m->chosen_freed))
			rows[i]->nr_bounced += m->slot_bounced;
	}
	/* objects of a row's type that no sample hit still bound its estimate */
	hashmap__for_each_entry(prof->classes, cur, bkt) {
		struct dprof_class *cls = cur->pvalue;

		if (cls->stats.samples || !cls->nr_known)
			continue;
		for (i = 0; i < n; i++) {
			if (dprof_class__same_row(rows[i], cls)) {
				rows[i]->nr_known += cls->nr_known;
				dprof_map_objs__add(&rows[i]->map, &cls->map);
				break;
			}
		}
	}
	free(classes);
	*nr = n;
	return rows;

out_err:
	free(classes);
	dprof_rows__free(rows, n);
	return NULL;
}

void dprof_row__free(struct dprof_class *row)
{
	if (row)
		dprof_class__delete(row);
}

void dprof_rows__free(struct dprof_class **rows, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		dprof_class__delete(rows[i]);	/* a row's heads are not held */
	free(rows);
}

/**
 * dprof_row__estimate - the distinct objects of a row touched, estimated
 * @row: a row of dprof_profile__rows()
 * @e: the estimate
 *
 * Objects counted without sampling (statics, per-cpu copies) count as
 * they are; sampled objects by Chao1, bounded by the objects of the type
 * the address set knew of when every class of the row has an address set.
 */
void dprof_row__estimate(const struct dprof_class *row, struct dprof_estimate *e)
{
	const struct dprof_map_objs *m = &row->map;

	if (m->slots && m->interval) {
		dprof_estimate__chosen(e, &row->freq, &m->chosen, m->interval, &m->old,
				       m->old_slots, m->counted ? (s64)m->allocs : -1);
		return;
	}
	dprof_estimate__objects(e, &row->freq, row->nr_objects - row->freq.s_obs,
				row->no_bound ? 0 : row->nr_known);
}

/* The bytes of @objects of @row's objects, at the mean size of those sampled. */
double dprof_row__ws_bytes(const struct dprof_class *row, double objects)
{
	if (!row->nr_objects)
		return 0;
	return (double)row->ws_bytes / row->nr_objects * objects;
}

/*
 * "misses", "type,site", "site,latency": the order's key (samples when not
 * given) and the rows' keys: "type" (the default) ranks the types, a type
 * over its sites; "site" makes each of a type's sites a row of its own.
 */
int dprof_sort__parse(const char *str, enum dprof_sort *sort, bool *by_site)
{
	static const char * const names[] = {
		[DPROF_SORT_SAMPLES]	= "samples",
		[DPROF_SORT_MISSES]	= "misses",
		[DPROF_SORT_LATENCY]	= "latency",
		[DPROF_SORT_OBJECTS]	= "objects",
	};
	bool has_order = false;
	size_t i;

	*sort = DPROF_SORT_SAMPLES;
	*by_site = false;
	while (*str) {
		size_t len = strcspn(str, ",");

		if (len == 4 && !strncmp(str, "type", len)) {
			/* the default */
		} else if (len == 4 && !strncmp(str, "site", len)) {
			*by_site = true;
		} else {
			for (i = 0; i < ARRAY_SIZE(names); i++) {
				if (strlen(names[i]) == len && !strncmp(str, names[i], len))
					break;
			}
			if (i == ARRAY_SIZE(names) || has_order)
				return -EINVAL;
			has_order = true;
			*sort = i;
		}
		str += len;
		if (*str == ',' && *++str == '\0')
			return -EINVAL;
	}
	return 0;
}

static u64 dprof_class__sort_key(const struct dprof_class *c,
				 enum dprof_sort sort)
{
	switch (sort) {
	case DPROF_SORT_MISSES:
		return c->stats.misses;
	case DPROF_SORT_LATENCY:
		return c->stats.lat_sum;
	case DPROF_SORT_OBJECTS:
		return c->nr_objects;
	case DPROF_SORT_SAMPLES:
	default:
		return c->stats.samples;
	}
}

static int dprof_row__cmp(const void *a, const void *b, void *arg)
{
	const struct dprof_class *ca = *(const struct dprof_class * const *)a;
	const struct dprof_class *cb = *(const struct dprof_class * const *)b;
	enum dprof_sort sort = *(enum dprof_sort *)arg;
	u64 ka = dprof_class__sort_key(ca, sort);
	u64 kb = dprof_class__sort_key(cb, sort);

	if (ka != kb)
		return ka < kb ? 1 : -1;
	if (ca->stats.samples != cb->stats.samples)
		return ca->stats.samples < cb->stats.samples ? 1 : -1;
	/* ties: by name, kind, DSO, site, then key (see above) */
	return dprof_class__cmp_id(ca, cb);
}

int dprof_row__sort_cmp(const struct dprof_class *a, const struct dprof_class *b,
			enum dprof_sort sort)
{
	return dprof_row__cmp(&a, &b, &sort);
}

/**
 * dprof_rows__group - a row over rows of one type (its sites)
 * @rows: the rows
 * @nr: how many
 *
 * Their samples, members and code summed; their objects are distinct
 * (objects of different sites, or no object), so their counts and their
 * estimate's frequencies add up, as the classes of one row do.  Returns a
 * new row (dprof_rows__free() it) or NULL.
 */
struct dprof_class *dprof_rows__group(struct dprof_class * const *rows, size_t nr)
{
	struct dprof_class *g = dprof_class__new(rows[0]);
	size_t i;

	if (!g)
		return NULL;
	g->name = rows[0]->name ? strdup(rows[0]->name) : NULL;
	g->type_dso = dso__get(rows[0]->type_dso);
	g->obj_size = rows[0]->obj_size;
	g->inst_whole = true;
	for (i = 0; i < nr; i++) {
		const struct dprof_class *r = rows[i];

		if (dprof_row__merge_sites(g, r))
			goto out_err;
		/* its sites' headers, for --type and "accessed as" */
		if (r->nr_heads) {
			struct dprof_class **heads = realloc(g->heads, (g->nr_heads + r->nr_heads) *
							     sizeof(*heads));

			if (!heads)
				goto out_err;
			memcpy(heads + g->nr_heads, r->heads, r->nr_heads * sizeof(*heads));
			g->heads = heads;
			g->nr_heads += r->nr_heads;
		}
		g->nr_objects += r->nr_objects;
		dprof_freq__add(&g->freq, &r->freq);
		g->nr_known += r->nr_known;
		g->no_bound |= r->no_bound || (r->freq.n && !r->nr_known);
		g->nr_bounced += r->nr_bounced;
		g->ws_bytes += r->ws_bytes;
		g->nr_allocs += r->nr_allocs;
		g->life_sum += r->life_sum;
		g->life_n += r->life_n;
		dprof_map_objs__add(&g->map, &r->map);
		g->inst_whole &= r->inst_whole;
		if (r->alloc_size > g->alloc_size)
			g->alloc_size = r->alloc_size;
	}
	return g;

out_err:
	dprof_class__delete(g);
	return NULL;
}

/* Most costly first; ties are broken by samples. */
void dprof_rows__sort(struct dprof_class **rows, size_t nr,
		      enum dprof_sort sort)
{
	qsort_r(rows, nr, sizeof(*rows), dprof_row__cmp, &sort);
}

int dprof_class__touch_cpu(struct dprof_class *cls, u32 cpu)
{
	if (cpu >= MAX_NR_CPUS)		/* not a CPU perf could have recorded */
		return 0;
	if (cpu >= cls->nr_cpu_bits) {
		/* grow to the next power of two: CPU numbers are dense */
		u32 bits = roundup_pow_of_two(cpu + 1);
		size_t old = BITS_TO_LONGS(cls->nr_cpu_bits), new = BITS_TO_LONGS(bits);
		unsigned long *cpus = realloc(cls->cpus, new * sizeof(*cpus));

		if (!cpus)
			return -ENOMEM;
		memset(cpus + old, 0, (new - old) * sizeof(*cpus));
		cls->cpus = cpus;
		cls->nr_cpu_bits = bits;
	}
	if (test_bit(cpu, cls->cpus))
		return 0;
	__set_bit(cpu, cls->cpus);
	return 1;
}
