// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the user-space heap's address set in a replay.
 *
 * One set of live objects per process, fed by whatever records the
 * allocator (replay-heap.h); a row per allocation site; the access
 * samples that land in a live object go to the sinks as sampled hits,
 * the object histories of user space.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "util/addr_location.h"
#include "util/callchain.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/srcline.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "hashfn.h"
#include "heaplog.h"
#include "heaplog-read.h"
#include "profile.h"
#include "replay-heap.h"
#include "replay-obj.h"
#include "replay-source.h"
#include "sink.h"
#include "symname.h"
#include "typecache.h"

static int dprof_replay__heaps_init(struct dprof_replay *r)
{
	r->heaps = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(r->heaps)) {
		r->heaps = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A user function a heap history went through, by an address in it. */
struct dprof_user_func {
	u64	start;
	char	*name;
};

static void dprof_replay__user_funcs_free(struct dprof_replay *r)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!r->user_funcs)
		return;
	hashmap__for_each_entry(r->user_funcs, cur, bkt) {
		struct dprof_user_func *f = cur->pvalue;

		free(f->name);
		free(f);
	}
	hashmap__free(r->user_funcs);
	r->user_funcs = NULL;
}

/* The live heap objects of process @pid. */
static struct dprof_addrset *dprof_replay__heap(struct dprof_replay *r, u32 pid,
						bool create)
{
	struct dprof_addrset *as;

	if (hashmap__find(r->heaps, pid, &as))
		return as;
	if (!create)
		return NULL;
	as = zalloc(sizeof(*as));
	if (!as)
		return NULL;
	dprof_addrset__init(as, NULL);
	if (hashmap__add(r->heaps, pid, as)) {
		free(as);
		return NULL;
	}
	return as;
}

static struct dprof_addrset *dprof_replay__heap_of(struct dprof_replay *r, u32 pid)
{
	return dprof_replay__heap(r, pid, /*create=*/false);
}

/* The DSO of an allocation site (not held: the thread's map holds it). */
static struct dso *dprof_heap_site_dso(struct machine *machine, u32 pid, u32 tid,
				       u64 site)
{
	struct thread *thread = machine__findnew_thread(machine, pid, tid);
	struct addr_location al;
	struct dso *dso = NULL;

	addr_location__init(&al);
	if (thread && thread__find_map(thread, PERF_RECORD_MISC_USER, site - 1, &al))
		dso = map__dso(al.map);
	addr_location__exit(&al);
	thread__put(thread);
	return dso;
}

/* The C and C++ runtime and the malloc replacements: their callers allocate. */
static bool dprof_heap__runtime_dso(const struct dso *dso)
{
	static const char * const libs[] = {
		"libc.so", "libc-", "libstdc++.so", "libjemalloc.so", "libtcmalloc",
	};
	const char *name = dso__short_name(dso);
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(libs); i++) {
		if (strstarts(name, libs[i]))
			return true;
	}
	return false;
}

/* "insert (hash.c:24)", or "insert" without a line */
static char *dprof_heap_frame__name(const char *func, const char *srcline)
{
	const char *base;
	char *name;

	if (!srcline || !strcmp(srcline, SRCLINE_UNKNOWN))
		return strdup(func);
	base = strrchr(srcline, '/');
	if (asprintf(&name, "%s (%s)", func, base ? base + 1 : srcline) < 0)
		return NULL;
	return name;
}

static void dprof_heap_frame__exit(struct dprof_heap_frame *fr)
{
	dso__put(fr->dso);
	free((char *)fr->name);
	free((char *)fr->func_name);
}

/*
 * The functions inlined at a return address, innermost first, each as a
 * frame of its own at @fr (@max at most, the outermost kept), after the
 * real frame @fr[0] is: its name then takes the line its outermost
 * inlined call is on.  An inlined wrapper is a frame as a called one is,
 * its caller the function it was inlined in.  Returns the frames written,
 * -1 on allocation failures.
 */
static int dprof_heap_frame__inlines(struct dprof_heap_frame *fr, int max,
				     struct dprof_typecache *tc, struct map *map,
				     struct symbol *sym, u64 addr)
{
	/* the functions' names and their lines, in pairs, as perf lists them */
	const char *v[2 * DPROF_HEAP_INLINES];
	struct dprof_typecache_dso *cd = dprof_typecache__dso(tc, fr->dso);
	struct dprof_heap_frame real = fr[0];
	const void *id = dprof_dso_id(fr->dso);
	struct inline_node *node = NULL;
	const char *const *kept;
	struct inline_list *il;
	int i, n = 0, out = 0;
	u32 nr;

	if (!dprof_typecache_dso__strs(cd, DPROF_TC_INLINES, addr, &nr, &kept) &&
	    !(nr % 2) && nr <= ARRAY_SIZE(v)) {
		n = nr / 2;
		memcpy(v, kept, nr * sizeof(*v));
	} else {
		node = dso__parse_addr_inlines(fr->dso, map__rip_2objdump(map, addr), sym);
		if (node) {
			list_for_each_entry(il, &node->val, list) {
				if (n == DPROF_HEAP_INLINES)
					break;
				v[2 * n] = il->symbol ? il->symbol->name : NULL;
				v[2 * n + 1] = il->srcline;
				n++;
			}
		}
		if (dprof_typecache_dso__add_strs(cd, DPROF_TC_INLINES, addr, 2 * n, v))
			goto err;
	}
	if (n < 2 || max < 2)
		goto out;
	/* the order perf's callchains are in: innermost first here */
	if (callchain_param.order != ORDER_CALLEE) {
		for (i = 0; i < n / 2; i++) {
			int j = n - 1 - i, k;

			for (k = 0; k < 2; k++) {
				const char *t = v[2 * i + k];

				v[2 * i + k] = v[2 * j + k];
				v[2 * j + k] = t;
			}
		}
	}
	/* the innermost, up to the room left; then the real function */
	for (i = 0; i < n - 1 && out < max - 1; i++, out++) {
		struct dprof_heap_frame *f = &fr[out];
		const char *fn = v[2 * i] ? dprof_symname(real.dso, v[2 * i]) : "??";

		memset(f, 0, sizeof(*f));
		f->ip = real.ip;
		f->func = (hash_64(str_hash(fn), 64) ^ (u64)(unsigned long)id) ?: 1;
		/* one call however many copies of it were inlined: by its line */
		f->call = hash_64(f->func ^ str_hash(v[2 * i + 1] ?: ""), 64);
		f->dso = dso__get(real.dso);
		f->func_name = strdup(fn);
		f->name = dprof_heap_frame__name(fn, v[2 * i + 1]);
		f->runtime = real.runtime;
		if (!f->func_name || !f->name) {
			out++;
			goto err;
		}
	}
	fr[out] = real;
	fr[out].name = dprof_heap_frame__name(real.func_name, v[2 * (n - 1) + 1]);
	free((char *)real.name);
	out++;
	if (!fr[out - 1].name)
		goto err;
	if (node)
		inline_node__delete(node);
	return out;
err:
	for (i = 0; i < out; i++)
		dprof_heap_frame__exit(&fr[i]);
	if (node)
		inline_node__delete(node);
	return -1;
out:
	if (node)
		inline_node__delete(node);
	return 1;
}

/*
 * get_srcline() of the call at @al, as an earlier report of the binary
 * found it when it did: reading a program's DWARF lines for its sites'
 * was half the time and 45% of the peak memory of a report of CPython
 * whose typings were kept.
 */
static char *dprof_heap__srcline(struct dprof_typecache *tc, struct addr_location *al)
{
	struct dso *dso = map__dso(al->map);
	struct dprof_typecache_dso *cd = dprof_typecache__dso(tc, dso);
	const char *const *kept;
	char *line;
	u32 nr;

	if (!dprof_typecache_dso__strs(cd, DPROF_TC_SRCLINE, al->addr, &nr, &kept) &&
	    nr == 1) {
		if (kept[0] && !strcmp(kept[0], SRCLINE_UNKNOWN))
			return SRCLINE_UNKNOWN;
		return kept[0] ? strdup(kept[0]) : NULL;
	}
	line = get_srcline(dso, map__rip_2objdump(al->map, al->addr), al->sym, false, false,
			   al->addr);
	/* not kept when out of memory: the next report looks it up again */
	dprof_typecache_dso__add_strs(cd, DPROF_TC_SRCLINE, al->addr, 1,
				      (const char *const *)&line);
	return line;
}

/*
 * The frames of a return address @ip of an allocation's callchain in
 * process @pid, at @fr (@max at most): "insert (hash.c:24)", the function
 * and line of the call, its function's identity (per DSO, whatever the
 * process mapped it at); before it, with @inlines, the functions inlined
 * there.  Returns how many, -1 on allocation failures.
 */
static int dprof_heap_frames__resolve(struct dprof_heap_frame *fr, int max,
				      struct dprof_typecache *tc, struct machine *machine,
				      u32 pid, u32 tid, u64 ip, bool inlines)
{
	struct thread *thread = machine__findnew_thread(machine, pid, tid);
	struct addr_location al;
	char *name = NULL, *srcline = NULL;
	int n = 1;

	memset(fr, 0, sizeof(*fr));
	fr->ip = ip;
	addr_location__init(&al);
	/* the call instruction ends right before the return address */
	if (thread && thread__find_symbol(thread, PERF_RECORD_MISC_USER, ip - 1, &al)) {
		struct dso *dso = map__dso(al.map);
		const void *id = dprof_dso_id(dso);
		const char *func = dprof_symname(dso, al.sym->name);

		srcline = dprof_heap__srcline(tc, &al);
		name = dprof_heap_frame__name(func, srcline);
		zfree_srcline(&srcline);
		fr->func = (hash_64(al.sym->start, 64) ^ (u64)(unsigned long)id) ?: 1;
		fr->dso = dso__get(dso);
		fr->call = hash_64(fr->func ^ (al.addr - al.sym->start), 64);
		fr->func_name = strdup(func);
		fr->runtime = dprof_heap__runtime_dso(dso);
	}
	if (!name && asprintf(&name, "%#" PRIx64, ip) < 0)
		name = NULL;
	fr->name = name;
	if (!name || (fr->func && !fr->func_name))
		n = -1;
	else if (inlines && fr->func)
		n = dprof_heap_frame__inlines(fr, max, tc, al.map, al.sym, al.addr);
	if (n < 0)
		dprof_heap_frame__exit(fr);
	addr_location__exit(&al);
	thread__put(thread);
	return n;
}

static bool dprof_heap_frame__resolve(struct dprof_heap_frame *fr, struct dprof_typecache *tc,
				      struct machine *machine, u32 pid, u32 tid, u64 ip)
{
	return dprof_heap_frames__resolve(fr, 1, tc, machine, pid, tid, ip, false) == 1;
}

/* "insert (hash.c:24)": the function and line that called the allocator. */
static char *dprof_heap_site_name(struct dprof_typecache *tc, struct machine *machine,
				  u32 pid, u32 tid, u64 site)
{
	struct dprof_heap_frame fr;
	char *name = NULL;

	if (!dprof_heap_frame__resolve(&fr, tc, machine, pid, tid, site))
		return NULL;
	name = strdup(fr.name);
	dprof_heap_frame__exit(&fr);
	return name;
}

/*
 * The callchain of @a, kept per process and chain until the replay ends:
 * the classes of its allocations point to it; NULL when out of memory.
 */
static struct dprof_heap_chain *dprof_replay__heap_chain(struct dprof_replay *r,
							 struct machine *machine,
							 const struct dprof_heap_alloc *a,
							 u64 *key)
{
	u32 i, nr = min_t(u32, a->nr_ips, DPROF_HEAP_FRAMES);
	struct dprof_heap_chain *ch, *grown;
	int n;

	*key = hash_64(a->pid, 64);
	for (i = 0; i < nr; i++)
		*key = hash_64(*key ^ a->ips[i], 64);
	*key = *key ?: 1;
	if (!r->heap_chains) {
		r->heap_chains = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(r->heap_chains)) {
			r->heap_chains = NULL;
			return NULL;
		}
	}
	if (hashmap__find(r->heap_chains, *key, &ch))
		return ch;
	/* each return address with the functions inlined at it */
	ch = zalloc(sizeof(*ch) + nr * DPROF_HEAP_INLINES * sizeof(ch->f[0]));
	if (!ch)
		return NULL;
	for (i = 0; i < nr; i++) {
		n = dprof_heap_frames__resolve(&ch->f[ch->nr], DPROF_HEAP_INLINES,
					       r->res.tcache, machine,
					       a->pid, a->tid, a->ips[i], true);
		if (n < 0)
			goto out_err;
		ch->nr += n;
	}
	grown = realloc(ch, sizeof(*ch) + ch->nr * sizeof(ch->f[0]));
	if (grown)
		ch = grown;
	if (hashmap__add(r->heap_chains, *key, ch))
		goto out_err;
	return ch;

out_err:
	for (i = 0; i < ch->nr; i++)
		dprof_heap_frame__exit(&ch->f[i]);
	free(ch);
	return NULL;
}

static void dprof_replay__heap_chains_free(struct dprof_replay *r)
{
	struct hashmap_entry *cur;
	size_t bkt;
	u32 i;

	if (!r->heap_chains)
		return;
	hashmap__for_each_entry(r->heap_chains, cur, bkt) {
		struct dprof_heap_chain *ch = cur->pvalue;

		for (i = 0; i < ch->nr; i++)
			dprof_heap_frame__exit(&ch->f[i]);
		free(ch);
	}
	hashmap__free(r->heap_chains);
	r->heap_chains = NULL;
}

static void dprof_replay__heaps_exit(struct dprof_replay *r)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (r->heaps) {
		hashmap__for_each_entry(r->heaps, cur, bkt) {
			dprof_addrset__exit(cur->pvalue);
			free(cur->pvalue);
		}
		hashmap__free(r->heaps);
	}
	r->heaps = NULL;
	dprof_replay__user_funcs_free(r);
	dprof_replay__heap_chains_free(r);
}

/* @ptr's object ends: a free, a realloc that moved it. */
static int dprof_replay__heap_end(struct dprof_replay *r, struct dprof_addrset *as,
				  u64 ptr, u64 time, u32 cpu)
{
	struct dprof_obj *obj = as ? dprof_addrset__find(as, ptr) : NULL;
	struct dprof_class *cls;

	if (!obj || obj->base != ptr) {
		r->rec.nr_heap_unknown_free++;
		return 0;
	}
	r->rec.nr_heap_frees++;
	cls = obj->priv;
	dprof_obj__mark_bounce(obj, cpu);
	cls->life_sum += time - obj->alloc_time;
	cls->life_n++;
	if (dprof_replay__sinks_obj(r, obj, time, cpu, /*alloc=*/false))
		return -EINVAL;
	dprof_addrset__free(as, ptr);
	return 0;
}

int dprof_replay__heap_free(struct dprof_replay *r, u32 pid, u32 cpu, u64 time, u64 ptr)
{
	if (!ptr)
		return 0;
	return dprof_replay__heap_end(r, dprof_replay__heap(r, pid, false), ptr, time, cpu);
}

int dprof_replay__heap_alloc(struct dprof_replay *r, const struct dprof_heap_alloc *a,
			     struct machine *machine)
{
	u64 site = a->nr_ips ? a->ips[0] : 0, chain_key = 0;
	struct dprof_heap_chain *chain = NULL;
	struct dprof_addrset *as;
	struct dprof_class *cls;
	int err;

	if (!a->ptr && !a->left_out)	/* failed, or realloc(p, 0): its free was seen */
		return 0;
	if (a->ptr && dprof_range__implausible(a->ptr, a->size)) {
		r->rec.nr_implausible++;
		return 0;
	}
	as = dprof_replay__heap(r, a->pid, true);
	if (!as)
		return -ENOMEM;
	if (a->old) {
		err = dprof_replay__heap_end(r, as, a->old, a->time, a->cpu);
		if (err)
			return err;
	}
	r->rec.nr_heap_allocs += a->left_out ?: 1;
	r->rec.nr_heap_frees += a->left_out_freed;
	/* a chain to choose the site from, past the wrappers, at the end */
	if (a->nr_ips > 1) {
		chain = dprof_replay__heap_chain(r, machine, a, &chain_key);
		if (!chain)
			return -ENOMEM;
	}
	/*
	 * Per site of a program: two programs built without PIE can call
	 * malloc from the same address, for objects of different types.
	 */
	cls = dprof_profile__findnew_heap_class(&r->prof, site,
						dprof_heap_site_dso(machine, a->pid, a->tid, site),
						/*type_key=*/0, chain_key);
	if (!cls)
		return -ENOMEM;
	if (!cls->nr_allocs) {
		cls->obj_size = a->size;
		cls->site_name = dprof_heap_site_name(r->res.tcache, machine, a->pid, a->tid,
						      site);
		cls->chain = chain;
	}
	/* a type is checked against the largest object of the site */
	if (a->size > cls->alloc_size)
		cls->alloc_size = a->size;
	/* objects no sample touched: they bound the row's estimate */
	cls->nr_allocs += a->left_out ?: 1;
	cls->nr_known += a->left_out ?: 1;
	if (a->left_out)
		return 0;
	return dprof_replay__start_obj(r, as, cls, a->ptr, a->size ?: 1, a->time, a->cpu);
}

struct dprof_exit_walk {
	struct dprof_replay	*r;
	u64			time;
	u32			cpu;
};

static int dprof_replay__exit_obj(struct dprof_obj *obj, void *arg)
{
	struct dprof_exit_walk *w = arg;

	obj->free_site = DPROF_EXIT_SITE;
	return dprof_replay__sinks_obj(w->r, obj, w->time, w->cpu, /*alloc=*/false);
}

static int dprof_replay__heap_exit_process(struct dprof_replay *r, u32 pid, u64 time,
					   u32 cpu)
{
	struct dprof_exit_walk w = { .r = r, .time = time, .cpu = cpu };
	struct dprof_addrset *as;
	int err;

	if (!hashmap__delete(r->heaps, pid, NULL, &as))
		return 0;
	/* the sinks see each object end, at the exit (site: "exit") */
	err = dprof_addrset__for_each(as, dprof_replay__exit_obj, &w);
	dprof_addrset__exit(as);
	free(as);
	return err;
}

/* Remember the function of the user code at @addr (looked up at @lookup). */
static int dprof_replay__note_user_func(struct dprof_replay *r, struct thread *thread,
					u64 addr, u64 lookup)
{
	struct dprof_user_func *f = NULL;
	struct addr_location al;
	int err = 0;

	if (!r->user_funcs) {
		r->user_funcs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(r->user_funcs)) {
			r->user_funcs = NULL;
			return -ENOMEM;
		}
	}
	if (hashmap__find(r->user_funcs, addr, NULL))
		return 0;
	addr_location__init(&al);
	if (thread__find_symbol(thread, PERF_RECORD_MISC_USER, lookup, &al)) {
		f = zalloc(sizeof(*f));
		if (f)
			f->name = strdup(dprof_symname(map__dso(al.map), al.sym->name));
		if (!f || !f->name) {
			free(f);
			err = -ENOMEM;
		} else {
			f->start = map__unmap_ip(al.map, al.sym->start);
			if (hashmap__add(r->user_funcs, addr, f)) {
				free(f->name);
				free(f);
				err = -ENOMEM;
			}
		}
	}
	addr_location__exit(&al);
	/* the flow names a step by its function's start */
	if (!err && f && f->start != addr)
		err = dprof_replay__note_user_func(r, thread, f->start, f->start);
	return err;
}

bool dprof_replay__user_func(struct dprof_replay *r, u64 ip, u64 *start,
			     const char **name)
{
	struct dprof_user_func *f;

	if (ip == DPROF_EXIT_SITE) {
		*start = ip;
		*name = "exit";
		return true;
	}
	if (!r->user_funcs || !hashmap__find(r->user_funcs, ip, &f))
		return false;
	*start = f->start;
	*name = f->name;
	return true;
}

/*
 * The sinks that build object histories take an access sample to a live
 * heap object as a hit (sink::sampled_hit).  The functions of the access
 * and of the allocation site (the call before the return address) are
 * named now, while their process's maps are there.
 */
static int dprof_replay__heap_hit(struct dprof_replay *r, const struct dprof_obj *obj,
				  const struct dprof_access *acc)
{
	const struct dprof_class *cls = obj->priv;
	struct dprof_hit hit = {
		.obj		= obj,
		.site		= cls->key,
		.addr		= acc->addr,
		.len		= 1,
		.ip		= acc->ip,
		.access_ip	= acc->ip,
		.write		= acc->is_write,
		.rw		= true,
		.cpu		= acc->cpu,
		.time		= acc->time,
	};
	struct dprof_sink *sink;
	u32 i;
	int err;

	if (!r->sampled_hit_sinks)
		return 0;
	err = dprof_replay__note_user_func(r, acc->thread, acc->ip, acc->ip);
	if (!err && hit.site)
		err = dprof_replay__note_user_func(r, acc->thread, hit.site, hit.site - 1);
	/* any of them can be the site past the wrappers the history starts at */
	for (i = 0; !err && cls->chain && i < cls->chain->nr; i++) {
		u64 ip = cls->chain->f[i].ip;

		if (ip)
			err = dprof_replay__note_user_func(r, acc->thread, ip, ip - 1);
	}
	if (err)
		return err;
	list_for_each_entry(sink, &r->sinks, node) {
		if (sink->sampled_hit) {
			err = sink->sampled_hit(sink, &hit);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * The type an access's operand names, at its offset inside a heap object
 * of a site, is a row of its own: the objects a site hands out are often
 * not of one type (a wrapper every type is allocated through, a pool that
 * carves many structs out of one block, a header before the caller's
 * part).  An instance is an (object, offset): a block holding 40 headers
 * counts 40.
 */
static int dprof_replay__heap_typed(struct dprof_replay *r, struct thread *thread,
				    const struct dprof_obj *obj,
				    const struct dprof_typed *typed,
				    struct dprof_access *acc)
{
	const struct dprof_class *site = obj->priv;
	u64 inst = acc->addr - obj->base - typed->offset;
	struct dprof_obj part = *obj;
	struct dprof_class *cls;
	int err;

	cls = dprof_profile__findnew_heap_class(&r->prof, site->key, site->dso,
						typed->key, site->chain_key);
	if (!cls)
		return -ENOMEM;
	if (!cls->name) {
		cls->name = strdup(typed->type_name);
		cls->site_name = site->site_name ? strdup(site->site_name) : NULL;
		if (!cls->name || (site->site_name && !cls->site_name))
			return -ENOMEM;
		cls->obj_size = typed->type_size;
		cls->type_dso = dso__get(typed->dso);
		cls->chain = site->chain;
		cls->inst_min = inst;
	}
	if (inst < cls->inst_min)
		cls->inst_min = inst;
	/* the row is named as perf names most of its accesses' type */
	dprof_class__vote(cls, typed->alias ?: typed->type_name, typed->dso, 1);
	/* an object with no room for a second instance is one */
	if (obj->size < 2 * typed->type_size)
		cls->inst_whole = true;
	if (obj->size > cls->alloc_size)
		cls->alloc_size = obj->size;
	r->prof.heap_typed++;
	/* a new object at a freed one's address is another instance */
	err = acc->still ? 0 :
	      dprof_class__touch_base(cls, (obj->base + inst) ^
				      (obj->alloc_time * GOLDEN_RATIO_64),
				      typed->type_size, acc->cpu);
	if (!err)
		err = dprof_replay__count_access(r, cls, thread, typed->offset, acc);
	if (err)
		return err;
	/* the instance's history, as an object of its own */
	part.base += inst;
	part.size = typed->type_size;
	part.priv = cls;
	return dprof_replay__heap_hit(r, &part, acc);
}

static int dprof_replay__heap_access(struct dprof_replay *r, struct thread *thread,
				     struct evsel *evsel, struct dprof_obj *obj,
				     struct dprof_access *acc)
{
	u64 offset = acc->addr - obj->base;
	enum dprof_heap_untyped why;
	struct dprof_typed typed;
	struct dprof_class *cls;
	int err;

	if (dprof_resolver__typed(&r->res, thread, evsel, acc->ip, &typed) ||
	    !typed.type_size)
		why = DPROF_HEAP_NO_TYPE;
	else if (typed.offset > offset ||
		 offset - typed.offset + typed.type_size > obj->size)
		why = DPROF_HEAP_PAST_END;
	else
		return dprof_replay__heap_typed(r, thread, obj, &typed, acc);

	/* the site's own row: what no operand type places */
	r->prof.heap_untyped[why]++;
	cls = obj->priv;
	if (!acc->still) {
		dprof_obj__sampled(obj);
		dprof_obj__mark_bounce(obj, acc->cpu);
	}
	err = dprof_replay__count_access(r, cls, thread, offset, acc);
	return err ?: dprof_replay__heap_hit(r, obj, acc);
}

/*
 * The C library's allocator: the recorder dates most frees by the thread's
 * next timed event, so an object lives on in the replay while free() puts
 * its memory on a free list, and malloc() reads that back: those accesses
 * are the allocator's, not the object's.  C names: the symbol table's,
 * not demangled (symname.c).
 */
static const char * const dprof_allocator_fns[] = {
	"malloc", "__libc_malloc", "_int_malloc", "malloc_consolidate",
	"free", "cfree", "__libc_free", "_int_free", "_int_free_merge_chunk",
	"_int_free_create_chunk", "_int_free_maybe_consolidate", "unlink_chunk",
	"calloc", "__libc_calloc", "realloc", "__libc_realloc", "_int_realloc",
	"tcache_get", "tcache_put", "tcache_get_n", "tcache_put_n",
};

static bool dprof_replay__allocator_sym(struct thread *thread, u64 ip)
{
	struct addr_location al;
	bool in = false;
	size_t i;

	addr_location__init(&al);
	if (thread__find_symbol(thread, PERF_RECORD_MISC_USER, ip, &al) && al.map) {
		const char *dso = dso__short_name(map__dso(al.map));

		if (!dso || strncmp(dso, "libc", 4))
			goto out;
		for (i = 0; i < ARRAY_SIZE(dprof_allocator_fns); i++) {
			if (!strcmp(al.sym->name, dprof_allocator_fns[i])) {
				in = true;
				break;
			}
		}
	}
out:
	addr_location__exit(&al);
	return in;
}

static bool dprof_replay__in_allocator(struct dprof_replay *r, struct thread *thread, u64 ip)
{
	struct dprof_heaplog *log = r->heaplog;
	long in;

	if (!log)
		return false;
	if (!log->allocator_ips) {
		log->allocator_ips = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(log->allocator_ips)) {
			log->allocator_ips = NULL;
			return dprof_replay__allocator_sym(thread, ip);
		}
	}
	if (hashmap__find(log->allocator_ips, ip, &in))
		return in;
	in = dprof_replay__allocator_sym(thread, ip);
	hashmap__add(log->allocator_ips, ip, in);
	return in;
}

/* An access sample to a live heap object of its thread's process. */
static int dprof_heap__access(struct dprof_replay *r, struct thread *thread,
			      struct evsel *evsel, struct dprof_access *acc)
{
	struct dprof_addrset *heap;
	struct dprof_obj *obj;
	int err;

	if (machine__kernel_ip(r->res.machine, acc->addr) || !acc->thread)
		return 0;
	heap = dprof_replay__heap_of(r, thread__pid(acc->thread));
	obj = heap ? dprof_addrset__find(heap, acc->addr) : NULL;
	if (!obj || dprof_replay__in_allocator(r, thread, acc->ip))
		return 0;
	err = dprof_replay__heap_access(r, thread, evsel, obj, acc);
	return err ?: 1;
}

const struct dprof_replay_source dprof_heap_source = {
	.name		= "user heap",
	.open		= dprof_replay__heaps_init,
	.exit_process	= dprof_replay__heap_exit_process,
	.access		= dprof_heap__access,
	.exit		= dprof_replay__heaps_exit,
};
