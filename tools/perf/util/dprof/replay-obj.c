// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the replay's services to its event sources (replay-obj.h).
 *
 * What every source (replay-heap.c, replay-kmem.c, ...) needs of the
 * replay: an object's start and end handed to the sinks, an access counted
 * in its class and site.  replay.c drives the sources, the sources call
 * down into these: neither is called from here.
 */
#include <errno.h>
#include <linux/list.h>

#include "util/addr_location.h"
#include "util/dso.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "replay-obj.h"
#include "sink.h"

bool dprof_range__implausible(u64 addr, u64 len)
{
	return len > DPROF_OBJ_SIZE_MAX || addr + len < addr ||
	       (len && addr + len == 0);
}

int dprof_replay__sinks_obj(struct dprof_replay *r, struct dprof_obj *obj,
			    u64 time, u32 cpu, bool alloc)
{
	struct dprof_sink *sink;
	int err;

	list_for_each_entry(sink, &r->sinks, node) {
		int (*hook)(struct dprof_sink *sink, const struct dprof_obj *obj,
			    u64 time, u32 cpu) = alloc ? sink->alloc : sink->free;

		if (hook) {
			err = hook(sink, obj, time, cpu);
			if (err)
				return err;
		}
	}
	return 0;
}

int dprof_replay__start_obj(struct dprof_replay *r, struct dprof_addrset *as,
			    struct dprof_class *cls, u64 ptr, u64 size,
			    u64 time, u32 cpu)
{
	struct dprof_obj *obj = dprof_addrset__alloc(as, ptr, size, time);

	if (!obj)
		return -ENOMEM;
	obj->priv = cls;
	obj->cpu = cpu;
	return dprof_replay__sinks_obj(r, obj, time, cpu, /*alloc=*/true);
}

u64 dprof_obj__site(const struct dprof_obj *obj)
{
	const struct dprof_class *cls = obj ? obj->priv : NULL;

	if (!cls || (cls->kind != DPROF_KIND_SLAB && cls->kind != DPROF_KIND_KMALLOC))
		return 0;
	return dprof_kmem_key(cls->key, cls->alloc_size);
}

void dprof_obj__sampled(struct dprof_obj *obj)
{
	struct dprof_class *cls = obj->priv;

	if (!obj->nr_seen) {
		cls->nr_objects++;
		cls->ws_bytes += obj->size;
	}
	dprof_freq__sample(&cls->freq, obj->nr_seen);
	/* a slot of the map that may hold an object older than the recording */
	if (cls->map.slots && obj->earlier && !obj->new_slot)
		dprof_freq__sample(&cls->map.old, obj->nr_seen);
	if (obj->nr_seen < DPROF_FREQ_SEEN_MAX)
		obj->nr_seen++;
}

void dprof_obj__mark_bounce(struct dprof_obj *obj, u32 cpu)
{
	struct dprof_class *cls = obj->priv;

	if (obj->cpu != cpu && obj->nr_seen && !obj->bounced) {
		obj->bounced = true;
		/* a slot's lifetimes may each have stayed on one CPU */
		if (cls->map.slots && obj->earlier)
			cls->map.slot_bounced++;
		else
			cls->nr_bounced++;
	}
}

/* The function at a site's ip, found once per site. */
static void dprof_site__resolve_sym(struct dprof_site *site, struct machine *machine,
				    struct thread *thread)
{
	u8 cpumode = machine__kernel_ip(machine, site->ip) ?
		     PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	struct addr_location al;

	addr_location__init(&al);
	site->sym_resolved = true;
	if (thread__find_symbol_fb(thread, cpumode, site->ip, &al)) {
		site->sym = al.sym;
		site->sym_dso = dso__get(map__dso(al.map));
		site->sym_off = al.addr - al.sym->start;
	}
	addr_location__exit(&al);
}

int dprof_replay__count_access(struct dprof_replay *r, struct dprof_class *cls,
			       struct thread *thread, u64 offset,
			       struct dprof_access *acc)
{
	struct dprof_sink *sink;
	struct dprof_site *site;
	int err;

	r->prof.resolved[cls->kind]++;
	site = dprof_class__add(cls, offset, acc);
	if (!site)
		return -ENOMEM;
	list_for_each_entry(sink, &r->sinks, node) {
		if (sink->access) {
			err = sink->access(sink, acc, cls, offset);
			if (err)
				return err;
		}
	}
	if (!site->sym_resolved)
		dprof_site__resolve_sym(site, r->res.machine, thread);
	return 0;
}
