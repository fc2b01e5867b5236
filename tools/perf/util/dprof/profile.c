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

	return hash_64(c->key ^ c->type_key, 32) ^ hash_ptr(dprof_dso_id(c->dso), 32) ^
	       c->kind;
}

static bool dprof_class__is(const struct dprof_class *a, const struct dprof_class *b)
{
	return a->kind == b->kind && a->key == b->key && a->type_key == b->type_key &&
	       dprof_dso_id(a->dso) == dprof_dso_id(b->dso);
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

static struct dprof_class *dprof_class__new(enum dprof_kind kind, u64 key,
					    struct dso *dso, u64 type_key)
{
	struct dprof_class *cls = zalloc(sizeof(*cls));

	if (!cls)
		return NULL;
	cls->kind = kind;
	cls->key = key;
	cls->type_key = type_key;
	/* a thread's exit may drop its maps' dsos before the rows are shown */
	cls->dso = dso__get(dso);
	cls->sites = hashmap__new(site__hash, site__equal, NULL);
	if (IS_ERR(cls->sites)) {
		free(cls);
		return NULL;
	}
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
	return dprof_profile__findnew_typed_class(prof, kind, key, dso, /*type_key=*/0);
}

/**
 * dprof_profile__findnew_typed_class - a site's objects, by a type inside them
 * @prof: the profile
 * @kind: the site's kind (user heap)
 * @key: its allocation site
 * @dso: the DSO of the site
 * @type_key: the type's identity (struct dprof_typed), 0: the site's own
 */
struct dprof_class *dprof_profile__findnew_typed_class(struct dprof_profile *prof,
						       enum dprof_kind kind, u64 key,
						       struct dso *dso, u64 type_key)
{
	struct dprof_class tmp = { .kind = kind, .key = key, .dso = dso,
				   .type_key = type_key };
	struct dprof_class **recent, *cls;

	/*
	 * Every slab event asks for its class, and a few call sites make
	 * most of them: look at the one found last for this hash first.
	 */
	recent = &prof->recent[class__hash((long)&tmp, NULL) % DPROF_RECENT_CLASSES];
	if (*recent && dprof_class__is(*recent, &tmp))
		return *recent;
	if (hashmap__find(prof->classes, &tmp, &cls))
		goto out;

	cls = dprof_class__new(kind, key, dso, type_key);
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

/* Account a sample in the profile totals, resolved or not. */
void dprof_profile__count(struct dprof_profile *prof,
			  const struct dprof_access *acc)
{
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
	case DPROF_KIND_STATIC:
	case DPROF_KIND_PERCPU:
	case DPROF_KIND_HEAP:	/* per allocation site */
	case DPROF_KIND__MAX:
	default:
		return a == b;
	}
}

static int dprof_row__merge(struct dprof_class *row, struct dprof_class *cls)
{
	struct hashmap_entry *cur;
	size_t bkt;
	int i;

	dprof_stats__add(&row->stats, &cls->stats);
	row->nr_objects += cls->nr_objects;
	dprof_freq__add(&row->freq, &cls->freq);
	row->nr_known += cls->nr_known;
	if (cls->freq.n && !cls->nr_known)
		row->no_bound = true;
	row->nr_bounced += cls->nr_bounced;
	row->ws_bytes += cls->ws_bytes;
	row->nr_allocs += cls->nr_allocs;
	row->life_sum += cls->life_sum;
	row->life_n += cls->life_n;
	row->inst_whole |= cls->inst_whole;
	if (!row->obj_size)
		row->obj_size = cls->obj_size;
	if (!row->alloc_size)
		row->alloc_size = cls->alloc_size;
	for (i = 0; i < DPROF_MAX_VOTES; i++) {
		if (cls->votes[i].name)
			dprof_class__vote(row, cls->votes[i].name, cls->votes[i].dso,
					  cls->votes[i].count);
	}

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
	cls->row = row;
	return 0;
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

		if (cls->stats.samples)
			classes[nr_classes++] = cls;
	}
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
			row = dprof_class__new(cls->kind, cls->key, cls->dso, cls->type_key);
			if (!row)
				goto out_err;
			row->name = cls->name ? strdup(cls->name) : NULL;
			row->site_name = cls->site_name ? strdup(cls->site_name) : NULL;
			row->type_dso = dso__get(cls->type_dso);
			rows[n++] = row;
		}
		if (dprof_row__merge(row, cls))
			goto out_err;
	}
	/* objects of a row's type that no sample hit still bound its estimate */
	hashmap__for_each_entry(prof->classes, cur, bkt) {
		struct dprof_class *cls = cur->pvalue;

		if (cls->stats.samples || !cls->nr_known)
			continue;
		for (i = 0; i < n; i++) {
			if (dprof_class__same_row(rows[i], cls)) {
				rows[i]->nr_known += cls->nr_known;
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

void dprof_rows__free(struct dprof_class **rows, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		dprof_class__delete(rows[i]);
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

int dprof_sort__parse(const char *str, enum dprof_sort *sort)
{
	static const char * const names[] = {
		[DPROF_SORT_SAMPLES]	= "samples",
		[DPROF_SORT_MISSES]	= "misses",
		[DPROF_SORT_LATENCY]	= "latency",
		[DPROF_SORT_OBJECTS]	= "objects",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(str, names[i])) {
			*sort = i;
			return 0;
		}
	}
	return -EINVAL;
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
