// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the kernel's address set in a replay.
 *
 * The slab allocator's events (kmem tracepoints) rebuild the live slab
 * objects in time order, a class per (call site, size); mempool-like
 * caches put objects aside and take them back; kfree_rcu() ends a
 * lifetime at the call.  The slab map (kernel-patches/: a snapshot of the
 * slabs when recording starts, and the slabs made and freed since) finds
 * the objects allocated before recording began.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <traceevent/event-parse.h>

#include "util/debug.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/header.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "hashfn.h"
#include "heaplog-read.h"
#include "prune.h"
#include "record.h"
#include "replay-kmem.h"
#include "replay-obj.h"
#include "replay-source.h"
#include "symname.h"

/* The largest kmalloc size class; larger ones come from the page allocator. */
#define DPROF_KMALLOC_MAX_CACHE_SIZE	8192

/*
 * NULL, or ZERO_SIZE_PTR ((void *)16): what kmalloc(0) returns and
 * kfree() takes, traced like an object but none.
 */
static bool dprof_ptr__no_object(u64 ptr)
{
	return ptr <= 16;
}

/*
 * The fields of @evsel, a kmem tracepoint: evsel__intval() finds a field
 * by comparing names, for each of the four fields of each of the ~300k
 * events of a short recording.
 */
static const struct dprof_kmem_fields *
dprof_replay__kmem_fields(struct dprof_replay *r, struct evsel *evsel)
{
	struct dprof_kmem_fields *f;
	int i;

	for (i = 0; i < DPROF_KMEM_EVENTS; i++) {
		f = &r->kmem[i];
		if (f->evsel == evsel)
			return f;
		if (!f->evsel)
			break;
	}
	if (i == DPROF_KMEM_EVENTS)	/* never: one slot per handler */
		f = &r->kmem[0];
	f->evsel = evsel;
	f->ptr = evsel__field(evsel, "ptr");
	f->call_site = evsel__field(evsel, "call_site");
	f->bytes_req = evsel__field(evsel, "bytes_req");
	f->bytes_alloc = evsel__field(evsel, "bytes_alloc");
	f->name = evsel__field(evsel, "name");
	return f;
}

/* evsel__intval() of a field found before */
static u64 dprof_kmem__intval(struct evsel *evsel, struct tep_format_field *field,
			      struct perf_sample *sample)
{
	return field ? format_field__intval(field, sample, evsel->needs_swap) : 0;
}

/* ---------------------------------------------------------------------- */
/* address set: slab allocator events                                      */

/*
 * The kmalloc size class the object came from.  6.12's tracepoints do not
 * name the cache; the size class follows from bytes_alloc.
 */
static char *kmalloc_cache_name(u64 bytes_alloc)
{
	char *name;

	if (bytes_alloc > DPROF_KMALLOC_MAX_CACHE_SIZE)
		return strdup("kmalloc-large");
	if (bytes_alloc >= 1024 && !(bytes_alloc % 1024)) {
		if (asprintf(&name, "kmalloc-%" PRIu64 "k", bytes_alloc / 1024) < 0)
			return NULL;
	} else if (asprintf(&name, "kmalloc-%" PRIu64, bytes_alloc) < 0) {
		return NULL;
	}
	return name;
}

static char *kernel_symbol_name(struct machine *machine, u64 addr)
{
	struct map *map = NULL;
	struct symbol *sym = machine__find_kernel_symbol(machine, addr, &map);
	char *name;

	if (sym)
		name = strdup(dprof_symname(map__dso(map), sym->name));
	else if (asprintf(&name, "%#" PRIx64, addr) < 0)
		name = NULL;
	map__put(map);
	return name;
}

/*
 * @sample's task is one the recording follows: one it knows the comm of
 * (from the threads synthesized when recording started, or from its fork).
 * With -a, every task.  For a workload, -p or -t, record.c records the
 * address set on every CPU: the other tasks' events keep it whole, but
 * their lifetimes are not the recording's to count (struct dprof_lifetimes).
 */
static bool dprof_replay__task_followed(struct machine *machine, struct perf_sample *sample)
{
	struct thread *thread = machine__find_thread(machine, sample->pid, sample->tid);
	bool followed = thread && thread__comm_set(thread);

	thread__put(thread);
	return followed;
}

static bool dprof_replay__followed(struct dprof_replay *r, struct machine *machine,
				   struct perf_sample *sample)
{
	bool followed = dprof_replay__task_followed(machine, sample);

	if (!followed)
		r->rec.nr_kmem_others++;
	return followed;
}

/*
 * The live objects an allocation evicted since the set's counts were
 * @evicted and @seen: their ends were lost, the recording's to count when
 * it follows the task, else only those a sample resolved to.
 */
static void dprof_replay__count_over(struct dprof_replay *r, u64 evicted, u64 seen,
				     bool followed)
{
	u64 sampled = r->as.nr_evicted_seen - seen;

	r->rec.tasks.over_live += followed ? r->as.nr_evicted - evicted : sampled;
	r->rec.tasks.over_sampled += sampled;
}

static int dprof_kmem_mark__cmp(const void *a, const void *b)
{
	const struct dprof_kmem_mark *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

/*
 * An allocation the recording kept for its place only (a mark): the live
 * objects it overlaps end, as under any allocation, and no object starts;
 * its counts are in its class's sum (dprof_replay__kmem_sum()).
 */
static bool dprof_replay__kmem_mark(struct dprof_replay *r, struct perf_sample *sample,
				    struct machine *machine, u64 ptr, u64 bytes_alloc)
{
	const struct dprof_kmem_mark key = { .time = sample->time, .ptr = ptr, };
	u64 evicted = r->as.nr_evicted, seen = r->as.nr_evicted_seen;

	if (!r->nr_kmem_marks ||
	    !bsearch(&key, r->kmem_marks, r->nr_kmem_marks, sizeof(key), dprof_kmem_mark__cmp))
		return false;
	if (r->parked)
		hashmap__delete(r->parked, ptr, NULL, NULL);
	dprof_addrset__evict(&r->as, ptr, bytes_alloc);
	dprof_replay__count_over(r, evicted, seen, dprof_replay__task_followed(machine, sample));
	return true;
}

/*
 * A new object, its class by call site and size: an allocation or a get
 * (in a task the recording follows: @followed).  The objects it finds
 * still live lost their end: the recording's when it follows the task,
 * or when a sample resolved to them.
 */
static int dprof_replay__new_obj(struct dprof_replay *r, struct perf_sample *sample,
				 struct machine *machine, enum dprof_kind kind,
				 u64 ptr, u64 call_site, u64 bytes_req,
				 u64 bytes_alloc, const char *name, bool followed)
{
	u64 evicted = r->as.nr_evicted, seen = r->as.nr_evicted_seen;
	struct dprof_class *cls;
	int err;

	cls = dprof_profile__findnew_class(&r->prof, kind,
					   dprof_kmem_key(call_site, bytes_alloc),
					   NULL);
	if (!cls)
		return -ENOMEM;
	if (!cls->nr_allocs) {
		cls->obj_size = bytes_req;
		cls->alloc_size = bytes_alloc;
		/* kmalloc: the allocating function; slab: until a name comes */
		cls->site_name = kernel_symbol_name(machine, call_site);
		if (kind == DPROF_KIND_KMALLOC)
			cls->name = kmalloc_cache_name(bytes_alloc);
	}
	if (kind == DPROF_KIND_SLAB && !cls->name && name) {
		cls->name = strdup(name);
		r->rec.alloc_has_name = true;
	}
	cls->nr_allocs++;
	cls->nr_known++;

	err = dprof_replay__start_obj(r, &r->as, cls, ptr, bytes_alloc,
				      sample->time, sample->cpu);
	dprof_replay__count_over(r, evicted, seen, followed);
	r->rec.tasks.starts += followed;
	return err;
}

static int dprof_replay__alloc(struct dprof_replay *r, struct evsel *evsel,
			       struct perf_sample *sample, struct machine *machine,
			       enum dprof_kind kind)
{
	const struct dprof_kmem_fields *f = dprof_replay__kmem_fields(r, evsel);
	u64 ptr = dprof_kmem__intval(evsel, f->ptr, sample);
	u64 call_site = dprof_kmem__intval(evsel, f->call_site, sample);
	u64 bytes_req = dprof_kmem__intval(evsel, f->bytes_req, sample);
	u64 bytes_alloc = dprof_kmem__intval(evsel, f->bytes_alloc, sample);
	const char *name = NULL;

	if (dprof_ptr__no_object(ptr))	/* failed, or kmalloc(0) */
		return 0;
	if (dprof_range__implausible(ptr, bytes_alloc)) {
		r->rec.nr_implausible++;
		return 0;
	}
	if (dprof_replay__kmem_mark(r, sample, machine, ptr, bytes_alloc))
		return 0;
	r->rec.nr_allocs++;
	if (r->parked)
		hashmap__delete(r->parked, ptr, NULL, NULL);
	if (kind == DPROF_KIND_SLAB)
		name = dprof_kmem__strval(f->name, sample);
	return dprof_replay__new_obj(r, sample, machine, kind, ptr, call_site,
				     bytes_req, bytes_alloc, name,
				     dprof_replay__followed(r, machine, sample));
}

static int dprof_replay__kmem_cache_alloc(struct dprof_replay *r,
					  struct evsel *evsel,
					  struct perf_sample *sample,
					  struct machine *machine)
{
	return dprof_replay__alloc(r, evsel, sample, machine, DPROF_KIND_SLAB);
}

static int dprof_replay__kmalloc(struct dprof_replay *r, struct evsel *evsel,
				 struct perf_sample *sample, struct machine *machine)
{
	return dprof_replay__alloc(r, evsel, sample, machine, DPROF_KIND_KMALLOC);
}

/*
 * An access sample hit @obj: its class counts it as sampled, and how often
 * the samples saw it (the estimate of the objects touched).
 */
static bool dprof_replay__earlier_base(struct dprof_replay *r, u64 ptr);
static bool dprof_replay__earlier_slab(struct dprof_replay *r, u64 ptr);
static bool dprof_replay__map_slab(struct dprof_replay *r, u64 ptr);

/*
 * The life of the live object @obj ends at @sample, freed from @call_site:
 * the freeing CPU touches it too, its class counts the lifetime (unknown
 * for one allocated before recording), and the sinks see the end.
 */
static int dprof_replay__obj_ends(struct dprof_replay *r, struct dprof_obj *obj,
				  struct perf_sample *sample, u64 call_site)
{
	struct dprof_class *cls = obj->priv;

	dprof_obj__mark_bounce(obj, sample->cpu);
	obj->free_site = call_site;
	if (!obj->earlier) {
		cls->life_sum += sample->time - obj->alloc_time;
		cls->life_n++;
	}
	return dprof_replay__sinks_obj(r, obj, sample->time, sample->cpu, /*alloc=*/false);
}

/*
 * @ptr leaves use: freed, or put aside by a mempool-like cache (@put), in
 * a task the recording follows (@followed, see dprof_replay__followed()).
 * An object put aside and then freed had its lifetime end at the put.
 */
static int dprof_replay__end_obj(struct dprof_replay *r, struct perf_sample *sample,
				 u64 ptr, u64 call_site, const char *name, bool put,
				 bool followed)
{
	struct dprof_obj *obj;

	/* a kfree() of a slab cache's object, which the map follows: a slot */
	if (r->rec.kmem_map && dprof_replay__map_slab(r, ptr)) {
		r->rec.nr_free_map++;
		return 0;
	}
	r->rec.tasks.ends += followed;

	/* from now on the snapshot does not know whether it is allocated */
	if (r->freed && dprof_replay__earlier_slab(r, ptr) &&
	    hashmap__add(r->freed, ptr, 0) == -ENOMEM)
		return -ENOMEM;
	obj = dprof_addrset__find(&r->as, ptr);
	if (obj && obj->base == ptr) {
		struct dprof_class *cls = obj->priv;

		/* 6.12's kmem_cache_alloc has no name, its free (and our kfree) has */
		if (name && *name && cls->kind == DPROF_KIND_SLAB && !cls->name)
			cls->name = strdup(name);
		if (dprof_replay__obj_ends(r, obj, sample, call_site))
			return -EINVAL;
		/* its memory is its cache's now: see dprof_replay__resolve_addr() */
		if (!dprof_addrset__move(&r->as, obj, &r->dead, sample->time))
			return -ENOMEM;
		goto parked;
	} else if (!put && r->parked && hashmap__delete(r->parked, ptr, NULL, NULL)) {
		/* its lifetime ended when it was put aside */
	} else if (dprof_replay__earlier_base(r, ptr)) {
		r->rec.nr_free_earlier++;
		r->rec.tasks.free_earlier += followed;
	} else {
		r->rec.nr_free_unknown++;
		r->rec.tasks.free_unknown += followed;
	}
	/* no live object starts at @ptr: counted as an unknown free */
	dprof_addrset__free(&r->as, ptr);
parked:
	if (put && r->parked && hashmap__add(r->parked, ptr, 0) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

/*
 * kmem_cache_free, kfree: kfree names the cache with kernel-patches/ (a
 * large kmalloc() "kmalloc-large"); before, its field "name" is absent,
 * and the name NULL.
 */
static int dprof_replay__free(struct dprof_replay *r, struct evsel *evsel,
			      struct perf_sample *sample, struct machine *machine)
{
	const struct dprof_kmem_fields *f = dprof_replay__kmem_fields(r, evsel);
	u64 ptr = dprof_kmem__intval(evsel, f->ptr, sample);

	if (dprof_ptr__no_object(ptr))
		return 0;
	r->rec.nr_frees++;
	return dprof_replay__end_obj(r, sample, ptr,
				     dprof_kmem__intval(evsel, f->call_site, sample),
				     dprof_kmem__strval(f->name, sample),
				     /*put=*/false, dprof_replay__followed(r, machine, sample));
}

/*
 * An event that ends an object's lifetime before the slab free does
 * (ptr, call_site, name): counted in *count.
 */
static int dprof_replay__put_obj(struct dprof_replay *r, struct evsel *evsel,
				 struct perf_sample *sample, struct machine *machine,
				 u64 *count)
{
	const struct dprof_kmem_fields *f = dprof_replay__kmem_fields(r, evsel);
	u64 ptr = dprof_kmem__intval(evsel, f->ptr, sample);

	if (dprof_ptr__no_object(ptr))
		return 0;
	(*count)++;
	return dprof_replay__end_obj(r, sample, ptr,
				     dprof_kmem__intval(evsel, f->call_site, sample),
				     dprof_kmem__strval(f->name, sample), /*put=*/true,
				     dprof_replay__followed(r, machine, sample));
}

/*
 * kmem:mempool_put (kernel-patches/): a mempool, the sk_buff per-CPU
 * caches or io_uring's put an object aside: its use, and its lifetime,
 * end here, not at the slab free that may come much later.
 */
static int dprof_replay__mempool_put(struct dprof_replay *r, struct evsel *evsel,
				     struct perf_sample *sample, struct machine *machine)
{
	return dprof_replay__put_obj(r, evsel, sample, machine, &r->rec.nr_mempool_put);
}

/*
 * kmem:kfree_rcu (kernel-patches/): the object's user is done with it; the
 * slab allocator frees it a grace period later, in a batch run by another
 * task (not in a per-task recording).  Its lifetime, and its free call
 * site, are the kfree_rcu() call's; the batch's free of it is no unknown
 * free.
 */
static int dprof_replay__kfree_rcu(struct dprof_replay *r, struct evsel *evsel,
				   struct perf_sample *sample, struct machine *machine)
{
	return dprof_replay__put_obj(r, evsel, sample, machine, &r->rec.nr_kfree_rcu);
}

static u64 dprof_replay__slab_obj_len(struct dprof_replay *r, u64 ptr);

/*
 * kmem:mempool_get: an object put aside is taken back into use: a new
 * lifetime, whose call site is the cache's user.  A fresh object that
 * the cache got from a bulk allocation and never used ends unseen.
 */
static int dprof_replay__mempool_get(struct dprof_replay *r, struct evsel *evsel,
				     struct perf_sample *sample, struct machine *machine)
{
	const struct dprof_kmem_fields *f = dprof_replay__kmem_fields(r, evsel);
	u64 ptr = dprof_kmem__intval(evsel, f->ptr, sample);
	u64 call_site = dprof_kmem__intval(evsel, f->call_site, sample);
	const char *name = dprof_kmem__strval(f->name, sample);
	struct dprof_obj *obj, *dead;
	u64 len = 0;

	if (dprof_ptr__no_object(ptr))
		return 0;
	r->rec.nr_mempool_get++;
	if (r->parked)
		hashmap__delete(r->parked, ptr, NULL, NULL);
	obj = dprof_addrset__find(&r->as, ptr);
	dead = obj && obj->base == ptr ? NULL : dprof_addrset__find(&r->dead, ptr);
	if (obj && obj->base == ptr) {
		len = obj->size;
		if (dprof_replay__sinks_obj(r, obj, sample->time, sample->cpu,
					    /*alloc=*/false))
			return -EINVAL;
		dprof_addrset__free(&r->as, ptr);
	} else if (dead && dead->base == ptr) {
		len = dead->size;
	} else {
		len = dprof_replay__slab_obj_len(r, ptr);
	}
	if (!len || !name || !*name) {
		r->rec.nr_mempool_unknown++;
		return 0;
	}
	return dprof_replay__new_obj(r, sample, machine,
				     strstr(name, "kmalloc-") ? DPROF_KIND_KMALLOC :
				     DPROF_KIND_SLAB, ptr, call_site, len, len, name,
				     dprof_replay__followed(r, machine, sample));
}

/* ---------------------------------------------------------------------- */
/* the slab snapshot: objects allocated before recording (kernel-patches/) */

/*
 * One slab described by kmem:slab_snapshot, an entry of r->slabs covering
 * [addr, addr + objects * size): object i starts at first + i * size.
 */
struct dprof_snap_slab {
	u64			first;
	u64			size;
	struct dprof_class	*cls;
	bool			born;	/* kmem:slab_new: all objects free then */
	bool			map;	/* --kmem-events=map: its objects have no events */
};

void dprof_snap_slab__release(struct dprof_addrset *as __maybe_unused,
			      struct dprof_obj *obj, bool freed __maybe_unused)
{
	zfree(&obj->priv);
}

/*
 * The class of a cache's objects allocated before recording: per cache,
 * keyed by the name's hash below the 48 bits where a kmem class key has
 * its size (a kernel call site has the top 16 bits set), so it never
 * meets an allocation site's class.  kmalloc caches say where their
 * objects came from: no call site is known.
 */
static struct dprof_class *dprof_replay__earlier_class(struct dprof_replay *r,
						       const char *name,
						       u64 object_size, u64 size)
{
	bool kmalloc = strstr(name, "kmalloc-");
	struct dprof_class *cls;

	cls = dprof_profile__findnew_class(&r->prof,
					   kmalloc ? DPROF_KIND_KMALLOC : DPROF_KIND_SLAB,
					   str_hash(name) & (BIT_ULL(DPROF_SITE_SIZE_SHIFT) - 1),
					   NULL);
	if (!cls || cls->name)
		return cls;
	cls->name = strdup(name);
	if (kmalloc)
		cls->site_name = strdup("(allocated earlier)");
	cls->obj_size = object_size;
	cls->alloc_size = size;
	return cls->name ? cls : NULL;
}

/*
 * --kmem-events=map (record.c): the slab map and kmalloc's events, no
 * kmem_cache_alloc ones: a slab cache's objects are its slabs' slots.
 */
static bool dprof_replay__kmem_map(struct dprof_replay *r)
{
	struct evlist *evlist = r->session->evlist;

	return evlist__find_tracepoint_by_name(evlist, DPROF_SLAB_NEW_TRACEPOINT) &&
	       evlist__find_tracepoint_by_name(evlist, "kmem:kmalloc") &&
	       !evlist__find_tracepoint_by_name(evlist, "kmem:kmem_cache_alloc");
}

/* A slab, from the snapshot or made during the recording (@born). */
int dprof_replay__slab(struct dprof_replay *r, struct evsel *evsel,
		       struct perf_sample *sample, bool born)
{
	u64 addr = evsel__intval(evsel, sample, "addr");
	u64 first = evsel__intval(evsel, sample, "first");
	u64 size = evsel__intval(evsel, sample, "size");
	u64 object_size = evsel__intval(evsel, sample, "object_size");
	u64 objects = evsel__intval(evsel, sample, "objects");
	const char *name = evsel__strval(evsel, sample, "name");
	struct dprof_snap_slab *ss;
	struct dprof_obj *slab;

	r->rec.kmem_map = dprof_replay__kmem_map(r);
	if (!name || !size || !objects || first < addr || first - addr >= size ||
	    object_size > size || objects > DPROF_OBJ_SIZE_MAX / size ||
	    dprof_range__implausible(addr, objects * size)) {
		r->rec.nr_implausible++;
		return 0;
	}
	ss = zalloc(sizeof(*ss));
	if (!ss)
		return -ENOMEM;
	ss->first = first;
	ss->size = size;
	ss->born = born;
	ss->map = r->rec.kmem_map && !strstr(name, "kmalloc-");
	ss->cls = dprof_replay__earlier_class(r, name, object_size, size);
	/* a later snapshot of the same memory replaces this one */
	slab = ss->cls ? dprof_addrset__alloc(&r->slabs, addr, objects * size,
					      sample->time) : NULL;
	if (!slab) {
		free(ss);
		return -ENOMEM;
	}
	slab->priv = ss;
	if (born)
		r->rec.nr_new_slabs++;
	else
		r->rec.nr_snapshot_slabs++;
	/* objects allocated earlier, or the map's: at most the slab's slots */
	if (!born || ss->map)
		ss->cls->nr_known += objects;
	if (ss->map) {
		ss->cls->map.slots = true;
		if (!born)
			ss->cls->map.old_slots += objects;
	}
	return 0;
}

/* Read before the replay: see dprof_replay__preload(). */
static int dprof_replay__slab_snapshot(struct dprof_replay *r __maybe_unused,
				       struct evsel *evsel __maybe_unused,
				       struct perf_sample *sample __maybe_unused,
				       struct machine *machine __maybe_unused)
{
	return 0;
}

static int dprof_replay__slab_new(struct dprof_replay *r, struct evsel *evsel,
				  struct perf_sample *sample,
				  struct machine *machine __maybe_unused)
{
	return dprof_replay__slab(r, evsel, sample, /*born=*/true);
}

/*
 * The slab's pages went back to the page allocator: none of its objects
 * is the cache's any more.  Those the events saw freed go too.
 */
static int dprof_replay__slab_free(struct dprof_replay *r, struct evsel *evsel,
				   struct perf_sample *sample,
				   struct machine *machine __maybe_unused)
{
	u64 addr = evsel__intval(evsel, sample, "addr");
	u64 size = evsel__intval(evsel, sample, "size");
	u64 objects = evsel__intval(evsel, sample, "objects");

	if (!size || objects > DPROF_OBJ_SIZE_MAX / size ||
	    dprof_range__implausible(addr, objects * size)) {
		r->rec.nr_implausible++;
		return 0;
	}
	r->rec.nr_freed_slabs++;
	dprof_addrset__free(&r->slabs, addr);
	/* an entry over the range evicts the objects in it, then goes */
	if (!dprof_addrset__alloc(&r->dead, addr, objects * size, sample->time))
		return -ENOMEM;
	dprof_addrset__free(&r->dead, addr);
	return 0;
}

/*
 * @addr is in no object of the address set: if it is in an object of a
 * slab the snapshot described, and nothing freed that object since, the
 * object was allocated before recording and is still.  It joins the
 * address set as the allocator's events would have put it there, with
 * the CPU that touched it first as its home.  If the object was freed
 * since, the access is to the cache's free memory (the allocator's own
 * free list, a lockless reader of a SLAB_TYPESAFE_BY_RCU cache): counted
 * for the cache, with no object.
 *
 * Return: 0, with the live object or NULL in @objp; 1, with the cache's
 * class and the free object's start in @clsp and @basep; or -ENOMEM.
 */
int dprof_replay__earlier_obj(struct dprof_replay *r, u64 addr, u32 cpu,
			      struct dprof_obj **objp, struct dprof_class **clsp, u64 *basep)
{
	struct dprof_obj *slab = dprof_addrset__find(&r->slabs, addr), *obj;
	const struct dprof_snap_slab *ss;
	u64 base, len;

	*objp = NULL;
	if (!slab || r->no_snapshot)
		return 0;
	ss = slab->priv;
	base = ss->first + (addr - slab->base) / ss->size * ss->size;
	len = ss->size - (ss->first - slab->base);
	if (addr < base)	/* the left red zone of an object */
		return 0;
	/*
	 * made during the recording: an object no alloc event gave is free;
	 * but the map's (--kmem-events=map) are all live, from the first touch to
	 * the slab's free: a slot, one object for all its lifetimes
	 */
	if ((ss->born && !ss->map) || hashmap__find(r->freed, base, NULL)) {
		*clsp = ss->cls;
		*basep = base;
		return 1;
	}
	obj = dprof_addrset__alloc(&r->as, base, len, 0);
	if (!obj)
		return -ENOMEM;
	obj->priv = ss->cls;
	obj->cpu = cpu;
	obj->earlier = true;
	obj->new_slot = ss->born;
	*objp = obj;
	return 0;
}

/* The snapshot slab (its map entry in *@slabp) that holds @ptr, or NULL. */
static const struct dprof_snap_slab *dprof_replay__snap_slab(struct dprof_replay *r,
							     u64 ptr,
							     struct dprof_obj **slabp)
{
	struct dprof_obj *slab = dprof_addrset__find(&r->slabs, ptr);

	if (slabp)
		*slabp = slab;
	return slab ? slab->priv : NULL;
}

/* @ptr is where an object of @ss starts */
static bool dprof_snap_slab__obj_start(const struct dprof_snap_slab *ss, u64 ptr)
{
	return ptr >= ss->first && !((ptr - ss->first) % ss->size);
}

/*
 * @ptr is in a slab the snapshot described, made before recording: until
 * its free, an address there with no alloc event is an earlier object.
 */
static bool dprof_replay__earlier_slab(struct dprof_replay *r, u64 ptr)
{
	const struct dprof_snap_slab *ss = dprof_replay__snap_slab(r, ptr, NULL);

	return ss && !ss->born;
}

/* @ptr is in a slab whose objects the map gives (--kmem-events=map) */
static bool dprof_replay__map_slab(struct dprof_replay *r, u64 ptr)
{
	const struct dprof_snap_slab *ss = dprof_replay__snap_slab(r, ptr, NULL);

	return ss && ss->map;
}

/*
 * @ptr, which no alloc event of the recording gave, starts an object of a
 * slab the snapshot described: allocated before recording.
 */
static bool dprof_replay__earlier_base(struct dprof_replay *r, u64 ptr)
{
	const struct dprof_snap_slab *ss = dprof_replay__snap_slab(r, ptr, NULL);

	return ss && !ss->born && !r->no_snapshot && dprof_snap_slab__obj_start(ss, ptr);
}

/* The bytes of the slab object that starts at @ptr, per the slab map; 0: none. */
static u64 dprof_replay__slab_obj_len(struct dprof_replay *r, u64 ptr)
{
	struct dprof_obj *slab;
	const struct dprof_snap_slab *ss = dprof_replay__snap_slab(r, ptr, &slab);

	if (!ss || !dprof_snap_slab__obj_start(ss, ptr))
		return 0;
	return ss->size - (ss->first - slab->base);
}

/* a kernel's sampling interval past this is a damaged event */
#define DPROF_SLAB_SAMPLE_MAX	BIT(24)

/*
 * kmem:slab_sample_alloc (kernel-patches/ 0012): with the slab map, the
 * kernel chose this allocation of a slab cache, one in "interval", at
 * random, and traces its life.  The object takes its slot's place (one
 * object for all the slot's lifetimes) until kmem:slab_sample_free: it has
 * a lifetime, as with every object's events.  Its call site's class
 * counts "interval" allocations for it.
 */
static int dprof_replay__sample_alloc(struct dprof_replay *r, struct evsel *evsel,
				      struct perf_sample *sample, struct machine *machine)
{
	const struct dprof_kmem_fields *f = dprof_replay__kmem_fields(r, evsel);
	u64 ptr = dprof_kmem__intval(evsel, f->ptr, sample);
	u64 call_site = dprof_kmem__intval(evsel, f->call_site, sample);
	u64 bytes_alloc = dprof_kmem__intval(evsel, f->bytes_alloc, sample);
	u64 interval = evsel__intval(evsel, sample, "interval");
	const char *name = dprof_kmem__strval(f->name, sample);
	const struct dprof_snap_slab *ss = dprof_replay__snap_slab(r, ptr, NULL);
	struct dprof_class *cls;

	if (dprof_ptr__no_object(ptr))
		return 0;
	/* every object has its events already, or this one is not the map's */
	if (!r->rec.kmem_map || !ss || !ss->map || !dprof_snap_slab__obj_start(ss, ptr) ||
	    !interval || interval > DPROF_SLAB_SAMPLE_MAX ||
	    dprof_range__implausible(ptr, bytes_alloc)) {
		r->rec.nr_implausible += r->rec.kmem_map && ss && ss->map;
		return 0;
	}
	r->rec.nr_sample_allocs++;
	r->rec.slab_sample = interval;
	cls = dprof_profile__findnew_class(&r->prof, DPROF_KIND_SLAB,
					   dprof_kmem_key(call_site, bytes_alloc), NULL);
	if (!cls)
		return -ENOMEM;
	if (!cls->nr_allocs) {
		cls->obj_size = ss->cls->obj_size;
		cls->alloc_size = bytes_alloc;
		cls->site_name = kernel_symbol_name(machine, call_site);
	}
	if (!cls->name && name && *name)
		cls->name = strdup(name);
	cls->nr_allocs += interval;
	if (interval > cls->map.interval)
		cls->map.interval = interval;
	/* the objects' bound: those the kernel traced */
	cls->nr_known++;
	return dprof_replay__start_obj(r, &r->as, cls, ptr, bytes_alloc,
				       sample->time, sample->cpu);
}

/*
 * kmem:slab_sample_free: a chosen object's life ends; its slot is the
 * map's again.  One chosen before the recording began has no object.
 */
static int dprof_replay__sample_free(struct dprof_replay *r, struct evsel *evsel,
				     struct perf_sample *sample,
				     struct machine *machine __maybe_unused)
{
	const struct dprof_kmem_fields *f = dprof_replay__kmem_fields(r, evsel);
	u64 ptr = dprof_kmem__intval(evsel, f->ptr, sample);
	struct dprof_obj *obj = dprof_addrset__find(&r->as, ptr);

	if (!r->rec.kmem_map || !obj || obj->base != ptr || obj->earlier)
		return 0;
	r->rec.nr_sample_frees++;
	if (dprof_replay__obj_ends(r, obj, sample,
				   dprof_kmem__intval(evsel, f->call_site, sample)))
		return -EINVAL;
	dprof_addrset__free(&r->as, ptr);
	return 0;
}

/*
 * The kernel chose one allocation in r->rec.slab_sample of every slab
 * cache the map follows: one none of whose allocations was chosen made
 * few while recording, not none.  Its slots' class says so.
 */
static void dprof_replay__map_interval(struct dprof_replay *r)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(r->prof.classes, cur, bkt) {
		struct dprof_class *cls = cur->pvalue;

		if (cls->map.slots)
			cls->map.interval = r->rec.slab_sample;
	}
}

/*
 * How many objects each cache the map follows allocated while recording,
 * as the kernel counted them (DPROF_SLAB_ALLOCS_FEAT, record.c): its
 * slots' class bounds the new objects with it.
 */
static int dprof_replay__map_allocs(struct dprof_replay *r)
{
	struct perf_session *session = r->session;
	const struct dprof_slab_allocs *v;
	struct dprof_slab_allocs_feat feat;
	struct hashmap_entry *cur;
	size_t bkt;
	u64 i, len;
	void *buf;
	int err;

	if (!test_bit(DPROF_SLAB_ALLOCS_FEAT, session->header.adds_features))
		return 0;
	err = dprof_feat__read(session, DPROF_SLAB_ALLOCS_FEAT, sizeof(feat), &buf, &len);
	if (err == -ENOMEM)
		return err;
	if (!err) {
		memcpy(&feat, buf, sizeof(feat));
		if (memcmp(feat.magic, DPROF_SLAB_ALLOCS_FEAT_MAGIC, sizeof(feat.magic)) ||
		    feat.nr > (len - sizeof(feat)) / sizeof(*v))
			err = -EINVAL;
	}
	if (err) {
		free(buf);
		pr_warning("dprof: the slab caches' allocation counts are damaged: Objects under the slab map goes by the chosen allocations alone\n");
		return 0;
	}
	v = buf + sizeof(feat);
	hashmap__for_each_entry(r->prof.classes, cur, bkt) {
		struct dprof_class *cls = cur->pvalue;

		if (!cls->map.slots || !cls->name)
			continue;
		cls->map.counted = true;
		for (i = 0; i < feat.nr; i++) {
			if (!strncmp(v[i].name, cls->name, sizeof(v[i].name) - 1)) {
				cls->map.allocs += v[i].allocs;
				r->rec.map_allocs += v[i].allocs;
				break;
			}
		}
	}
	r->rec.map_allocs_counted = true;
	free(buf);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* the objects left out at record time (prune.c)                          */

/* @s's frees of no known object (DPROF_KMEM_SUM_UNKNOWN): dprof_replay__end_obj()'s counts */
static int dprof_replay__kmem_sum_unknown(struct dprof_replay *r, struct machine *machine,
					  const struct dprof_kmem_sum *s)
{
	struct thread *thread = machine__find_thread(machine, s->pid, s->tid);

	r->rec.nr_frees += s->frees;
	r->rec.nr_free_unknown += s->frees;
	if (thread && thread__comm_set(thread)) {
		r->rec.tasks.ends += s->frees;
		r->rec.tasks.free_unknown += s->frees;
	} else {
		r->rec.nr_kmem_others += s->frees;
	}
	thread__put(thread);
	return 0;
}

/*
 * @s's counts, as the events left out would have made them: the class's
 * allocations and the bound of its Objects estimate, its lifetimes, the
 * header's counts, and those of the tasks the recording follows.
 */
static int dprof_replay__kmem_sum(struct dprof_replay *r, struct machine *machine,
				  const struct dprof_kmem_sum *s)
{
	bool kmalloc = s->flags & DPROF_KMEM_SUM_KMALLOC;
	u64 starts = s->allocs + s->gets, ends = s->frees + s->puts + s->rcus;
	struct dprof_class *cls;
	struct thread *thread;

	if (s->flags & DPROF_KMEM_SUM_UNKNOWN)
		return dprof_replay__kmem_sum_unknown(r, machine, s);
	cls = dprof_profile__findnew_class(&r->prof,
					   kmalloc ? DPROF_KIND_KMALLOC : DPROF_KIND_SLAB,
					   dprof_kmem_key(s->call_site, s->bytes_alloc), NULL);
	if (!cls)
		return -ENOMEM;
	if (!cls->nr_allocs && starts) {
		cls->alloc_size = s->bytes_alloc;
		cls->site_name = kernel_symbol_name(machine, s->call_site);
		if (kmalloc)
			cls->name = kmalloc_cache_name(s->bytes_alloc);
	}
	/* the class's first object said its size: the replay's rule */
	if (s->flags & DPROF_KMEM_SUM_FIRST)
		cls->obj_size = s->first_req;
	if (!kmalloc && !cls->name && s->name[0])
		cls->name = strndup(s->name, sizeof(s->name));
	cls->nr_allocs += starts;
	cls->nr_known += starts;
	cls->life_sum += s->life_sum;
	cls->life_n += s->life_n;
	r->rec.kmem_over_dropped += s->over_live;
	r->rec.nr_allocs += s->allocs;
	r->rec.nr_frees += s->frees;
	r->rec.nr_mempool_put += s->puts;
	r->rec.nr_mempool_get += s->gets;
	r->rec.nr_kfree_rcu += s->rcus;
	thread = machine__find_thread(machine, s->pid, s->tid);
	if (thread && thread__comm_set(thread)) {
		r->rec.tasks.starts += starts;
		r->rec.tasks.ends += ends;
		r->rec.tasks.over_live += s->over_live;
	} else {
		r->rec.nr_kmem_others += starts + ends;
	}
	thread__put(thread);
	return 0;
}

static int dprof_replay__kmem_summary(struct dprof_replay *r)
{
	struct perf_session *session = r->session;
	struct perf_header *ph = &session->header;
	const struct dprof_kmem_sum *sums;
	struct dprof_kmem_feat feat;
	int pass, err;
	u64 i, len;
	void *buf;

	if (!test_bit(DPROF_KMEM_FEAT, ph->adds_features))
		return 0;
	err = dprof_feat__read(session, DPROF_KMEM_FEAT, sizeof(feat), &buf, &len);
	if (err == -EINVAL)
		goto out_damaged;
	if (err)
		return err;
	memcpy(&feat, buf, sizeof(feat));
	if (memcmp(feat.magic, DPROF_KMEM_FEAT_MAGIC, sizeof(feat.magic)) ||
	    feat.nr_sums > (len - sizeof(feat)) / sizeof(*sums) ||
	    feat.kernel_undecided > feat.samples)
		goto out_free_damaged;
	sums = buf + sizeof(feat);
	/* the classes with allocations first: they say the class's size and site */
	for (pass = 0; pass < 2 && !err; pass++) {
		for (i = 0; i < feat.nr_sums && !err; i++) {
			bool starts = sums[i].allocs || sums[i].gets;

			if (starts == !pass)
				err = dprof_replay__kmem_sum(r, &session->machines.host, &sums[i]);
		}
	}
	if (feat.flags & DPROF_KMEM_ALLOC_NAMED)
		r->rec.alloc_has_name = true;
	r->rec.kmem_dropped = feat.dropped_objects;
	r->rec.kmem_kept_by = feat.samples;
	r->rec.kmem_kernel_undecided = feat.kernel_undecided;
	free(buf);
	return err;

out_free_damaged:
	free(buf);
out_damaged:
	pr_warning("dprof: the summary of the kmem objects left out when recorded is damaged: the allocation counts lack them\n");
	return 0;
}

static int dprof_replay__kmem_finish(struct dprof_replay *r)
{
	int err;

	if (r->rec.kmem_map && r->rec.slab_sample) {
		dprof_replay__map_interval(r);
		err = dprof_replay__map_allocs(r);
		if (err)
			return err;
	}
	return dprof_replay__kmem_summary(r);
}

static const struct evsel_str_handler dprof_kmem_handlers[] = {
	{ "kmem:kmem_cache_alloc",	dprof_replay__kmem_cache_alloc, },
	{ "kmem:kmalloc",		dprof_replay__kmalloc, },
	{ "kmem:kmem_cache_free",	dprof_replay__free, },
	{ "kmem:kfree",			dprof_replay__free, },
	{ DPROF_SNAPSHOT_TRACEPOINT,	dprof_replay__slab_snapshot, },
	{ DPROF_SLAB_NEW_TRACEPOINT,	dprof_replay__slab_new, },
	{ DPROF_SLAB_FREE_TRACEPOINT,	dprof_replay__slab_free, },
	{ DPROF_MEMPOOL_PUT_TRACEPOINT,	dprof_replay__mempool_put, },
	{ DPROF_MEMPOOL_GET_TRACEPOINT,	dprof_replay__mempool_get, },
	{ DPROF_KFREE_RCU_TRACEPOINT,	dprof_replay__kfree_rcu, },
	{ DPROF_SLAB_SAMPLE_ALLOC_TRACEPOINT,	dprof_replay__sample_alloc, },
	{ DPROF_SLAB_SAMPLE_FREE_TRACEPOINT,	dprof_replay__sample_free, },
};

/* The marks of a pruned recording (prune.h), sorted for dprof_replay__kmem_mark(). */
static int dprof_replay__kmem_marks(struct dprof_replay *r)
{
	struct perf_header *ph = &r->session->header;
	struct dprof_kmem_feat feat;
	u64 len, off, nr;
	void *buf;
	int err;

	if (!test_bit(DPROF_KMEM_FEAT, ph->adds_features))
		return 0;
	err = dprof_feat__read(r->session, DPROF_KMEM_FEAT, sizeof(feat), &buf, &len);
	if (err == -EINVAL)
		return 0;	/* dprof_replay__kmem_summary() says it */
	if (err)
		return err;
	memcpy(&feat, buf, sizeof(feat));
	if (!(feat.flags & DPROF_KMEM_MARKS) ||
	    feat.nr_sums > (len - sizeof(feat)) / sizeof(struct dprof_kmem_sum))
		goto out;
	off = sizeof(feat) + feat.nr_sums * sizeof(struct dprof_kmem_sum);
	if (len - off < sizeof(nr))
		goto out_damaged;
	memcpy(&nr, buf + off, sizeof(nr));
	off += sizeof(nr);
	if (nr > (len - off) / sizeof(*r->kmem_marks))
		goto out_damaged;
	r->kmem_marks = malloc(nr * sizeof(*r->kmem_marks) ?: 1);
	if (!r->kmem_marks) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(r->kmem_marks, buf + off, nr * sizeof(*r->kmem_marks));
	r->nr_kmem_marks = nr;
	qsort(r->kmem_marks, nr, sizeof(*r->kmem_marks), dprof_kmem_mark__cmp);
	goto out;
out_damaged:
	pr_warning("dprof: the kmem section's marks are damaged: objects kept when recorded may outlive their ends\n");
out:
	free(buf);
	return err;
}

static void dprof_kmem__exit(struct dprof_replay *r)
{
	zfree(&r->kmem_marks);
	r->nr_kmem_marks = 0;
	dprof_addrset__exit(&r->slabs);
	hashmap__free(r->freed);
	r->freed = NULL;
	hashmap__free(r->parked);
	r->parked = NULL;
}

static int dprof_kmem__open(struct dprof_replay *r)
{
	int err;

	/*
	 * A task's last frees (its mm, its files) come after its EXIT
	 * record: keep exited threads, as perf report does, so that they
	 * are still a followed task's (dprof_replay__followed()).
	 */
	symbol_conf.keep_exited_threads = true;
	err = perf_session__set_tracepoints_handlers(r->session, dprof_kmem_handlers);
	if (err) {
		pr_err("dprof: cannot set tracepoint handlers\n");
		return err;
	}
	dprof_addrset__init(&r->slabs, dprof_snap_slab__release);
	r->freed = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(r->freed)) {
		r->freed = NULL;
		return -ENOMEM;
	}
	r->parked = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(r->parked)) {
		r->parked = NULL;
		return -ENOMEM;
	}
	return dprof_replay__kmem_marks(r);
}

/* What the recording's kmem tracepoints say it holds. */
static void dprof_kmem__tracepoint(struct dprof_replay *r, struct evsel *evsel __maybe_unused,
				   const char *name)
{
	if (!strcmp(name, dprof_kmem_handlers[0].name) ||
	    !strcmp(name, dprof_kmem_handlers[1].name))
		r->rec.has_alloc = true;
	if (!strcmp(name, DPROF_SNAPSHOT_TRACEPOINT))
		r->rec.has_snapshot = true;
	if (!strcmp(name, DPROF_SLAB_NEW_TRACEPOINT))
		r->rec.has_slab_events = true;
	if (!strcmp(name, DPROF_SLAB_SAMPLE_ALLOC_TRACEPOINT))
		r->rec.has_slab_sample = true;
}

/* The slab snapshot, read before the replay (see replay.c). */
static int dprof_kmem__snapshot(struct dprof_replay *r, struct evsel *evsel,
				struct perf_sample *sample,
				struct machine *machine __maybe_unused)
{
	return dprof_replay__slab(r, evsel, sample, /*born=*/false);
}

/*
 * An access to a live slab object, to one allocated before recording (the
 * slab map), or to the memory of one freed during the recording: the
 * memory is its cache's (the allocator's free list, a lockless reader of
 * a SLAB_TYPESAFE_BY_RCU cache), counted there, with no object.
 */
static int dprof_kmem__access(struct dprof_replay *r, struct thread *thread,
			      struct evsel *evsel __maybe_unused, struct dprof_access *acc)
{
	struct dprof_obj *obj = dprof_addrset__find(&r->as, acc->addr);
	struct dprof_class *cls;
	int err;

	if (!obj) {
		u64 base;

		err = dprof_replay__earlier_obj(r, acc->addr, acc->cpu, &obj, &cls, &base);
		if (err < 0)
			return err;
		if (err > 0) {
			r->prof.resolved_free++;
			err = dprof_replay__count_access(r, cls, thread, acc->addr - base, acc);
			return err ?: 1;
		}
	}
	if (!obj) {
		struct dprof_obj *dead = dprof_addrset__find(&r->dead, acc->addr);

		if (!dead)
			return 0;
		r->prof.resolved_free++;
		err = dprof_replay__count_access(r, dead->priv, thread,
						 acc->addr - dead->base, acc);
		return err ?: 1;
	}
	r->prof.resolved_earlier += obj->earlier;
	if (!acc->still) {
		dprof_obj__sampled(obj);
		dprof_obj__mark_bounce(obj, acc->cpu);
	}
	err = dprof_replay__count_access(r, obj->priv, thread, acc->addr - obj->base, acc);
	return err ?: 1;
}

/*
 * A sample in the kernel code that writes perf's events or evaluates
 * their filters: what the kmem tracepoints cost, not the workload's data.
 * The filters' own objects (struct filter_pred, prog_entry) would be
 * profiled as the workload's, and differ between recordings as their
 * events' rates do.
 */
static bool dprof_kmem__own_sample(struct dprof_replay *r, struct machine *machine,
				   struct perf_sample *sample)
{
	if ((!r->rec.has_alloc && !r->rec.has_slab_events) ||
	    !dprof_symname__perf_kernel(machine, sample->ip, /*filters=*/true))
		return false;
	r->rec.nr_perf_samples++;
	return true;
}

const struct dprof_replay_source dprof_kmem_source = {
	.name		= "kmem",
	.open		= dprof_kmem__open,
	.tracepoint	= dprof_kmem__tracepoint,
	.first_tp	= DPROF_SNAPSHOT_TRACEPOINT,
	.first		= dprof_kmem__snapshot,
	.own_sample	= dprof_kmem__own_sample,
	.access		= dprof_kmem__access,
	.finish		= dprof_replay__kmem_finish,
	.exit		= dprof_kmem__exit,
};
