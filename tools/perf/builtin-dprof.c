// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: a data-centric profiler.
 *
 * Blames data types rather than instructions for memory accesses, after
 * DProf (Pesterev, Zeldovich, Morris; EuroSys 2010):
 *
 *   perf dprof record -a -- <workload>
 *   perf dprof report [--stdio] [--type=NAME]
 *
 * record adds three streams to one perf.data: access samples (a memory
 * sampling PMU, or cpu-clock with interrupt registers where there is
 * none), and the address set (slab alloc/free tracepoints).  report
 * replays the address set in time order and resolves every access to
 * (type, object, offset, member).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include <api/fs/fs.h>
#include <subcmd/pager.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "perf.h"
#include "util/addr_location.h"
#include "util/annotate.h"
#include "util/color.h"
#include "util/data.h"
#include "util/debug.h"
#include "util/dso.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/header.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/mem-events.h"
#include "util/perf_regs.h"
#include "util/pmu.h"
#include "util/session.h"
#include "util/strbuf.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "util/tool.h"
#include "util/tracepoint.h"
#include "util/dprof/addrset.h"
#include "../arch/x86/include/uapi/asm/perf_regs.h"
#include "util/dprof/profile.h"
#include "util/dprof/resolve.h"
#include "util/dprof/sink.h"
#include "util/dprof/histories.h"
#include "ui/stdio/dprof-flow.h"
#include "util/dprof/softsample.h"
#include "util/dprof/classify.h"
#include "util/dprof/workingset.h"
#include "util/dprof/datasrc.h"
#include "ui/stdio/dprof.h"
#include "ui/browsers/dprof.h"
#include "ui/ui.h"
#include "util/dprof/btftypes.h"
#include "util/dprof/types.h"
#ifdef HAVE_DWARF_SUPPORT
#include "util/dprof/dwtypes.h"
#endif

/* x86-64 THREAD_SIZE with KASAN off; stack slots are not a data type */
#define DPROF_STACK_SPAN	(16 * 1024)

#define DPROF_HOT_MEMBERS	3

static const char * const dprof_kmem_tracepoints[] = {
	"kmem:kmem_cache_alloc",
	"kmem:kmalloc",
	"kmem:kmem_cache_free",
	"kmem:kfree",
};

struct perf_dprof;

typedef int (*dprof_tp_handler)(struct perf_dprof *dprof, struct evsel *evsel,
				struct perf_sample *sample,
				struct machine *machine);

struct perf_dprof {
	struct perf_tool	tool;
	struct dprof_addrset	as;
	struct dprof_profile	prof;
	struct dprof_resolver	res;
	struct list_head	sinks;		/* struct dprof_sink: the views */
	struct evsel		*access_evsel;	/* the access sampler */
	struct dprof_watch	*watches;	/* slab_watch events */
	struct dprof_histories	*hist;		/* --view=paths|flow */
	struct dprof_classify	*cl;		/* --view=classify: watch hits */
	struct dprof_workingset	*ws;		/* --view=workingset: ditto */
	const char		*graph;		/* --graph=FILE.dot */
	/* options */
	const char		*input_name;
	/* what to do with the replayed profile; default: print it */
	int			(*consume)(struct perf_dprof *dprof, void *arg);
	void			*consume_arg;
	const char		*sort_str;
	const char		*type_name;
	const char		*view;
	const char		*cache_spec;	/* --cache, for classify/workingset */
	float			percent_limit;
	bool			use_stdio;
	bool			use_tui;
	bool			force;
	/* what the recording held */
	bool			has_alloc;
	bool			has_free;
	bool			has_soft;
	bool			has_mem_pmu;
	bool			has_data_src;	/* measured misses: not an L1 hit */
	bool			alloc_has_name;	/* kernel patch: name on alloc */
	u64			nr_allocs;
	u64			nr_frees;
	u64			nr_names_learned;
	u64			nr_name_conflicts;
	u64			nr_lost;
	struct dprof_mem_stats	mem;		/* decoded data_src */
#ifdef HAVE_DWARF_SUPPORT
	struct hashmap		*dwarf;		/* file name -> struct dprof_dwarf * */
#endif
	struct dprof_btf	*btf;		/* this kernel's, when recorded here */
	bool			btf_tried;
	const char		*os_release;	/* of the recording */
};

/* ---------------------------------------------------------------------- */
/* address set: slab allocator events                                      */

static bool evsel__has_field(struct evsel *evsel, const char *name)
{
	return evsel__field(evsel, name);
}

/*
 * The kmalloc size class the object came from.  6.12's tracepoints do not
 * name the cache; the size class follows from bytes_alloc.
 */
static char *kmalloc_cache_name(u64 bytes_alloc)
{
	char *name;

	if (bytes_alloc > 8192)
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
		name = strdup(sym->name);
	else if (asprintf(&name, "%#" PRIx64, addr) < 0)
		name = NULL;
	map__put(map);
	return name;
}

static int dprof__sinks_alloc(struct perf_dprof *dprof, struct dprof_obj *obj,
			      struct perf_sample *sample)
{
	struct dprof_sink *sink;
	int err;

	list_for_each_entry(sink, &dprof->sinks, node) {
		if (sink->alloc) {
			err = sink->alloc(sink, obj, sample->time, sample->cpu);
			if (err)
				return err;
		}
	}
	return 0;
}

static int dprof__sinks_free(struct perf_dprof *dprof, struct dprof_obj *obj,
			     struct perf_sample *sample)
{
	struct dprof_sink *sink;
	int err;

	list_for_each_entry(sink, &dprof->sinks, node) {
		if (sink->free) {
			err = sink->free(sink, obj, sample->time, sample->cpu);
			if (err)
				return err;
		}
	}
	return 0;
}

static int dprof__alloc(struct perf_dprof *dprof, struct evsel *evsel,
			struct perf_sample *sample, struct machine *machine,
			enum dprof_kind kind)
{
	u64 ptr = evsel__intval(evsel, sample, "ptr");
	u64 call_site = evsel__intval(evsel, sample, "call_site");
	u64 bytes_req = evsel__intval(evsel, sample, "bytes_req");
	u64 bytes_alloc = evsel__intval(evsel, sample, "bytes_alloc");
	struct dprof_class *cls;
	struct dprof_obj *obj;

	if (!ptr)	/* failed allocation */
		return 0;
	dprof->nr_allocs++;

	/*
	 * One class per call site and size: a call site allocates from one
	 * cache.  The size goes in the top bits, which are all ones for a
	 * kernel text address, so the key stays unique.
	 */
	cls = dprof_profile__findnew_class(&dprof->prof, kind,
					   call_site ^ (bytes_alloc << 48), NULL);
	if (!cls)
		return -ENOMEM;
	if (!cls->nr_allocs) {
		cls->obj_size = bytes_req;
		cls->alloc_size = bytes_alloc;
		if (kind == DPROF_KIND_KMALLOC) {
			cls->name = kmalloc_cache_name(bytes_alloc);
			cls->site_name = kernel_symbol_name(machine, call_site);
		} else {
			/* the allocator's caller, until a free names the cache */
			cls->site_name = kernel_symbol_name(machine, call_site);
		}
	}
	if (kind == DPROF_KIND_SLAB && !cls->name &&
	    evsel__has_field(evsel, "name")) {
		const char *name = evsel__strval(evsel, sample, "name");

		if (name) {
			cls->name = strdup(name);
			dprof->alloc_has_name = true;
		}
	}
	cls->nr_allocs++;

	obj = dprof_addrset__alloc(&dprof->as, ptr, bytes_alloc, sample->time);
	if (!obj)
		return -ENOMEM;
	obj->priv = cls;
	obj->cpu = sample->cpu;
	return dprof__sinks_alloc(dprof, obj, sample);
}

static int dprof__kmem_cache_alloc(struct perf_dprof *dprof,
				   struct evsel *evsel,
				   struct perf_sample *sample,
				   struct machine *machine)
{
	return dprof__alloc(dprof, evsel, sample, machine, DPROF_KIND_SLAB);
}

static int dprof__kmalloc(struct perf_dprof *dprof, struct evsel *evsel,
			  struct perf_sample *sample, struct machine *machine)
{
	return dprof__alloc(dprof, evsel, sample, machine, DPROF_KIND_KMALLOC);
}

/* An object touched by its freeing CPU too: that is an access. */
static void dprof_obj__touch(struct dprof_obj *obj, u32 cpu)
{
	struct dprof_class *cls = obj->priv;

	if (obj->cpu != cpu && obj->sampled && !obj->bounced) {
		obj->bounced = true;
		cls->nr_bounced++;
	}
}

static int dprof__free(struct perf_dprof *dprof, struct evsel *evsel,
		       struct perf_sample *sample, bool named)
{
	u64 ptr = evsel__intval(evsel, sample, "ptr");
	struct dprof_obj *obj;

	if (!ptr)
		return 0;
	dprof->nr_frees++;

	obj = dprof_addrset__find(&dprof->as, ptr);
	if (obj && obj->base == ptr) {
		struct dprof_class *cls = obj->priv;
		const char *name = named ? evsel__strval(evsel, sample, "name") : NULL;

		if (name && cls->kind == DPROF_KIND_SLAB) {
			if (!cls->name) {
				cls->name = strdup(name);
				dprof->nr_names_learned++;
			} else if (strcmp(cls->name, name)) {
				dprof->nr_name_conflicts++;
			}
		}
		dprof_obj__touch(obj, sample->cpu);
		obj->free_site = evsel__intval(evsel, sample, "call_site");
		cls->life_sum += sample->time - obj->alloc_time;
		cls->life_n++;
		if (dprof__sinks_free(dprof, obj, sample))
			return -EINVAL;
	}
	dprof_addrset__free(&dprof->as, ptr);
	return 0;
}

static int dprof__kmem_cache_free(struct perf_dprof *dprof, struct evsel *evsel,
				  struct perf_sample *sample,
				  struct machine *machine __maybe_unused)
{
	return dprof__free(dprof, evsel, sample, true);
}

static int dprof__kfree(struct perf_dprof *dprof, struct evsel *evsel,
			struct perf_sample *sample,
			struct machine *machine __maybe_unused)
{
	return dprof__free(dprof, evsel, sample, false);
}

/* ---------------------------------------------------------------------- */
/* access samples                                                          */

/* Return: false when the sample is no memory access (AMD IBS tags any op). */
static bool dprof_access__decode_data_src(struct perf_dprof *dprof,
					  struct dprof_access *acc,
					  struct evsel *evsel,
					  const struct perf_sample *sample)
{
	bool ws = evsel->core.attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT;
	struct dprof_mem mem;

	dprof_mem__decode(&mem, sample->data_src, sample->weight, ws);
	dprof_mem_stats__add(&dprof->mem, &mem);
	acc->is_write = mem.is_write;
	acc->level_known = mem.level_known;
	acc->miss = mem.miss;
	acc->level = mem.level;
	acc->hitm = mem.hitm;
	acc->remote = mem.remote;
	acc->weight = mem.latency;
	return mem.mem_op;
}

static void dprof__unresolved(struct perf_dprof *dprof, enum dprof_unres why)
{
	dprof->prof.unres[why]++;
}

static int dprof__account(struct perf_dprof *dprof, struct dprof_class *cls,
			  struct thread *thread, u64 offset,
			  struct dprof_access *acc)
{
	struct dprof_sink *sink;
	struct dprof_site *site;
	int err;

	dprof->prof.resolved[cls->kind]++;
	site = dprof_class__add(cls, offset, acc);
	if (!site)
		return -ENOMEM;
	list_for_each_entry(sink, &dprof->sinks, node) {
		if (sink->access) {
			err = sink->access(sink, acc, cls, offset);
			if (err)
				return err;
		}
	}
	if (!site->sym_resolved) {
		u8 cpumode = machine__kernel_ip(dprof->res.machine, acc->ip) ?
			     PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		struct addr_location al;

		addr_location__init(&al);
		site->sym_resolved = true;
		if (thread__find_symbol_fb(thread, cpumode, acc->ip, &al)) {
			site->sym = al.sym;
			site->sym_off = al.addr - al.sym->start;
		}
		addr_location__exit(&al);
	}
	return 0;
}

static int dprof__resolve_addr(struct perf_dprof *dprof, struct thread *thread,
			       struct evsel *evsel, struct dprof_access *acc)
{
	struct dprof_typed typed;
	struct dprof_static st;
	struct dprof_obj *obj;
	struct dprof_class *cls;

	obj = dprof_addrset__find(&dprof->as, acc->addr);
	if (obj) {
		cls = obj->priv;
		if (!obj->sampled) {
			obj->sampled = true;
			cls->nr_objects++;
			cls->ws_bytes += obj->size;
		}
		dprof_obj__touch(obj, acc->cpu);
		return dprof__account(dprof, cls, thread, acc->addr - obj->base, acc);
	}

	if (!dprof_resolver__static(&dprof->res, thread, acc->addr, &st)) {
		cls = dprof_profile__findnew_class(&dprof->prof, DPROF_KIND_STATIC,
						   st.sym->start, st.dso);
		if (!cls)
			return -ENOMEM;
		if (!cls->name) {
			cls->name = strdup(st.sym->name);
			cls->obj_size = st.sym->end - st.sym->start;
			cls->cpu = acc->cpu;
			cls->nr_objects = 1;
			cls->ws_bytes = cls->obj_size;
		} else if (cls->cpu != acc->cpu && !cls->nr_bounced) {
			cls->nr_bounced = 1;
		}
		return dprof__account(dprof, cls, thread, st.offset, acc);
	}

	if (!dprof_resolver__typed(&dprof->res, thread, evsel, acc->ip, &typed)) {
		cls = dprof_profile__findnew_class(&dprof->prof, DPROF_KIND_TYPED,
						   typed.key, typed.dso);
		if (!cls)
			return -ENOMEM;
		if (!cls->name) {
			cls->name = strdup(typed.type_name);
			cls->obj_size = typed.type_size;
		}
		if (dprof_class__touch_base(cls, acc->addr - typed.offset,
					    typed.type_size, acc->cpu))
			return -ENOMEM;
		return dprof__account(dprof, cls, thread, typed.offset, acc);
	}

	if (machine__kernel_ip(dprof->res.machine, acc->addr))
		dprof__unresolved(dprof, DPROF_UNRES_NO_OBJECT);
	else
		dprof__unresolved(dprof, DPROF_UNRES_USER_DYNAMIC);
	return 0;
}

static int dprof__resolve_percpu(struct perf_dprof *dprof, struct thread *thread,
				 struct dprof_access *acc, u64 off)
{
	const struct dprof_percpu_sym *sym;
	struct dprof_class *cls;
	u64 offset;

	sym = dprof_resolver__percpu(&dprof->res, off, &offset);
	if (!sym) {
		dprof__unresolved(dprof, DPROF_UNRES_NO_OBJECT);
		return 0;
	}
	cls = dprof_profile__findnew_class(&dprof->prof, DPROF_KIND_PERCPU,
					   sym->start, NULL);
	if (!cls)
		return -ENOMEM;
	if (!cls->name) {
		cls->name = strdup(sym->name);
		cls->obj_size = sym->size;
		cls->ws_bytes = sym->size;
	}
	/* one copy per CPU: count the copies seen */
	if (!(cls->cpu_mask & (1ULL << (acc->cpu & 63)))) {
		cls->cpu_mask |= 1ULL << (acc->cpu & 63);
		cls->nr_objects++;
	}
	return dprof__account(dprof, cls, thread, offset, acc);
}

/*
 * Software sampler: the timer interrupt stopped before the instruction at
 * ip, so the interrupt registers are that instruction's inputs and its
 * effective address is exact.
 */
static int dprof__soft_access(struct perf_dprof *dprof, struct thread *thread,
			      struct evsel *evsel, struct perf_sample *sample,
			      struct dprof_access *acc)
{
	struct dprof_ea ea = { 0 }, pea = { 0 };
	enum dprof_ea_reason why, pwhy;
	const u8 *code, *prev;
	int len, prev_len;
	bool skid = false;
	u64 sp;

	len = dprof_resolver__code(&dprof->res, thread, sample->ip, &code,
				   &prev, &prev_len);
	if (len <= 0) {
		dprof__unresolved(dprof, DPROF_UNRES_NO_CODE);
		return 0;
	}

	why = dprof_ea__decode(code, len, sample->ip, &sample->intr_regs, &ea);
	/*
	 * Skid: a load that stalled has retired, and the interrupt lands on
	 * the next instruction.  When that one touches no memory, the cost
	 * belongs to the access just before it, whose address is exact too
	 * as long as it did not overwrite its own address registers.
	 */
	if (why == DPROF_EA_NO_MEMOP && prev_len) {
		pwhy = dprof_ea__decode(prev, prev_len, sample->ip - prev_len,
					&sample->intr_regs, &pea);
		if ((pwhy == DPROF_EA_OK || pwhy == DPROF_EA_SEGMENT ||
		     pwhy == DPROF_EA_STACK) &&
		    !dprof_ea__clobbers(prev, prev_len, pea.addr_regs)) {
			why = pwhy;
			ea = pea;
			acc->ip = sample->ip - prev_len;
			skid = true;
		}
	}
	if (why == DPROF_EA_OK || why == DPROF_EA_SEGMENT) {
		dprof->prof.nr_decoded++;
		dprof->prof.nr_skid += skid;
	}
	acc->is_write = ea.is_write;
	if (why == DPROF_EA_SEGMENT) {
		if (ea.seg == 'g' && machine__kernel_ip(dprof->res.machine,
							sample->ip)) {
			acc->addr = ea.addr;
			return dprof__resolve_percpu(dprof, thread, acc, ea.addr);
		}
		/* %fs in user space: thread-local storage */
		dprof__unresolved(dprof, DPROF_UNRES_USER_DYNAMIC);
		return 0;
	}
	if (why == DPROF_EA_STACK) {
		dprof__unresolved(dprof, DPROF_UNRES_STACK);
		return 0;
	}
	if (why != DPROF_EA_OK) {
		dprof__unresolved(dprof, DPROF_UNRES_INSN);
		if (why < ARRAY_SIZE(dprof->prof.ea_reasons))
			dprof->prof.ea_reasons[why]++;
		return 0;
	}

	acc->addr = ea.addr;
	if (!perf_reg_value(&sp, &sample->intr_regs, PERF_REG_X86_SP) &&
	    (acc->addr - sp < DPROF_STACK_SPAN || sp - acc->addr < DPROF_STACK_SPAN)) {
		dprof__unresolved(dprof, DPROF_UNRES_STACK);
		return 0;
	}
	return dprof__resolve_addr(dprof, thread, evsel, acc);
}

static int dprof__access(struct perf_dprof *dprof, struct evsel *evsel,
			 struct perf_sample *sample, struct machine *machine)
{
	struct dprof_access acc = {
		.ip	= sample->ip,
		.time	= sample->time,
		.cpu	= sample->cpu,
	};
	struct thread *thread;
	int ret;

	/*
	 * perf record -d samples data_src for every event, so cpu-clock's
	 * says PERF_MEM_NA: only a memory sampler's data_src is decoded.
	 */
	if ((evsel->core.attr.sample_type & PERF_SAMPLE_DATA_SRC) &&
	    !(evsel->core.attr.sample_type & PERF_SAMPLE_REGS_INTR) &&
	    evsel->core.attr.type != PERF_TYPE_SOFTWARE &&
	    !dprof_access__decode_data_src(dprof, &acc, evsel, sample))
		return 0;	/* counted in dprof->mem.no_memop */
	dprof_profile__count(&dprof->prof, &acc);

	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (!thread)
		return -ENOMEM;

	if (evsel->core.attr.sample_type & PERF_SAMPLE_REGS_INTR &&
	    sample->intr_regs.regs) {
		ret = dprof__soft_access(dprof, thread, evsel, sample, &acc);
	} else if (sample->addr) {
		acc.addr = sample->addr;
		ret = dprof__resolve_addr(dprof, thread, evsel, &acc);
	} else {
		dprof__unresolved(dprof, DPROF_UNRES_NO_ADDR);
		ret = 0;
	}
	thread__put(thread);
	return ret;
}

static int process_sample_event(const struct perf_tool *tool,
				union perf_event *event __maybe_unused,
				struct perf_sample *sample,
				struct evsel *evsel, struct machine *machine)
{
	struct perf_dprof *dprof = container_of(tool, struct perf_dprof, tool);

	if (evsel->handler) {
		dprof_tp_handler f = evsel->handler;

		return f(dprof, evsel, sample, machine);
	}
	if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT)
		return 0;
	if (!dprof->access_evsel)
		dprof->access_evsel = evsel;
	return dprof__access(dprof, evsel, sample, machine);
}

/* ---------------------------------------------------------------------- */
/* object histories: slab_watch hits (kernel-patches/0004)                */

struct dprof_watch {
	struct dprof_watch	*next;
	struct dprof_class	*cls;		/* the cache, from the first hit */
	u64			offset;		/* of the watched bytes */
	u32			len;
	bool			sweep;		/* moves on after each object */
	bool			rw;		/* reads hit too, not only writes */
	u64			nr_hits;
	u64			nr_objects;
	u64			last_base;
	u64			last_born;
};

/* The allocation call site of @obj: its class key is site ^ (bytes << 48). */
static u64 dprof_obj__site(const struct dprof_obj *obj)
{
	const struct dprof_class *cls = obj ? obj->priv : NULL;

	if (!cls || (cls->kind != DPROF_KIND_SLAB && cls->kind != DPROF_KIND_KMALLOC))
		return 0;
	return cls->key ^ (cls->alloc_size << 48);
}

/*
 * A watch hit is a debug trap: the sampled ip follows the access.  Decode
 * the instruction before it for the access's direction and ip.
 *
 * Return: 1 a write, 0 a read, -1 unknown.
 */
static int dprof__hit_direction(struct perf_dprof *dprof,
				struct perf_sample *sample,
				struct machine *machine, u64 *ip)
{
	struct regs_dump no_regs = { .mask = 0 };
	const u8 *code, *prev;
	struct dprof_ea ea;
	struct thread *thread;
	enum dprof_ea_reason why;
	int len, prev_len = 0;

	*ip = sample->ip;
	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (!thread)
		return -1;
	len = dprof_resolver__code(&dprof->res, thread, sample->ip, &code,
				   &prev, &prev_len);
	thread__put(thread);
	if (len <= 0 || !prev_len)
		return -1;
	why = dprof_ea__decode(prev, prev_len, sample->ip - prev_len, &no_regs,
			       &ea);
	/* the registers of the access are gone: its operand is enough */
	if (why != DPROF_EA_OK && why != DPROF_EA_NO_REGS &&
	    why != DPROF_EA_SEGMENT)
		return -1;
	*ip = sample->ip - prev_len;
	return ea.is_write;
}

/* A watch follows one object at a time: a new (base, alloc time) is a new one. */
static int dprof__watch_hit(struct perf_dprof *dprof, struct evsel *evsel,
			    struct perf_sample *sample,
			    struct machine *machine)
{
	struct dprof_watch *w = evsel->priv;
	u64 base, born = 0, ip = sample->ip;
	struct dprof_sink *sink;
	struct dprof_hit hit;
	struct dprof_obj *obj;
	int err, write = -1;

	if (!w)		/* out of memory in dprof__watch_add() */
		return 0;
	/* without an alloc event, a sweeping watch's object is unknown */
	base = w->sweep ? sample->addr : sample->addr - w->offset;
	obj = dprof_addrset__find(&dprof->as, sample->addr);
	if (obj) {
		base = obj->base;
		born = obj->alloc_time;
		if (!w->cls)
			w->cls = obj->priv;
	}
	if (!w->nr_hits++ || base != w->last_base || born != w->last_born)
		w->nr_objects++;
	w->last_base = base;
	w->last_born = born;
	if ((dprof->cl || dprof->ws) && w->rw)
		write = dprof__hit_direction(dprof, sample, machine, &ip);
	hit = (struct dprof_hit){
		.obj = obj, .site = dprof_obj__site(obj), .addr = sample->addr,
		.len = w->len, .ip = sample->ip, .access_ip = ip, .write = write,
		.rw = w->rw, .cpu = sample->cpu, .time = sample->time,
	};
	/* classify, workingset (rw only) and object histories (flow) */
	list_for_each_entry(sink, &dprof->sinks, node) {
		if (sink->hit) {
			err = sink->hit(sink, &hit);
			if (err)
				return err;
		}
	}
	return 0;
}

static int dprof__watch_add(struct perf_dprof *dprof, struct evsel *evsel)
{
	struct dprof_watch *w = zalloc(sizeof(*w));

	evsel->handler = dprof__watch_hit;
	if (!w)
		return -ENOMEM;
	w->offset = evsel->core.attr.config & 0xffffffff;
	w->len = (evsel->core.attr.config >> 32) & 0xff;
	w->rw = evsel->core.attr.config & BIT_ULL(40);
	w->sweep = evsel->core.attr.config & BIT_ULL(41);
	w->next = dprof->watches;
	dprof->watches = w;
	evsel->priv = w;
	return 0;
}

static void dprof__print_watches(struct perf_dprof *dprof, FILE *fp)
{
	struct dprof_watch *w;

	for (w = dprof->watches; w; w = w->next) {
		const char *name = w->cls && w->cls->name ? w->cls->name : "?";

		fprintf(fp, "# object histories: %" PRIu64 " hits on %" PRIu64
			" objects of %s: see --view=flow --type=%s\n",
			w->nr_hits, w->nr_objects, name, name);
	}
	if (dprof->watches)
		fprintf(fp, "# (watch traps slow the watched bytes' accesses: access samples lean on them)\n");
}

static void dprof__watch_exit(struct perf_dprof *dprof)
{
	while (dprof->watches) {
		struct dprof_watch *w = dprof->watches;

		dprof->watches = w->next;
		free(w);
	}
}

/* ---------------------------------------------------------------------- */
/* data types and members                                                  */

#ifdef HAVE_DWARF_SUPPORT
static size_t name__hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

static bool name__equal(long a, long b, void *ctx __maybe_unused)
{
	return !strcmp((const char *)a, (const char *)b);
}

/*
 * One handle per file, not per dso: a recording can have several dsos for
 * the same vmlinux (the kernel map and those the samples' maps were made
 * from), and opening and indexing a vmlinux's DWARF costs ~0.1 s each time.
 */
static struct dprof_dwarf *dprof__dwarf_open(struct perf_dprof *dprof,
					     struct dso *dso)
{
	struct dprof_dwarf *dw = NULL;
	const char *path;
	char *key;

	if (!dso)
		return NULL;
	if (!dprof->dwarf) {
		dprof->dwarf = hashmap__new(name__hash, name__equal, NULL);
		if (IS_ERR(dprof->dwarf)) {
			dprof->dwarf = NULL;
			return NULL;
		}
	}
	path = dso__long_name(dso);
	if (hashmap__find(dprof->dwarf, path, &dw))
		return dw;
	key = strdup(path);
	if (!key)
		return NULL;
	dw = dprof_dwarf__new(path);
	if (!dw)
		pr_debug("dprof: no DWARF in %s\n", path);
	if (hashmap__add(dprof->dwarf, key, dw)) {
		dprof_dwarf__delete(dw);
		free(key);
		return NULL;
	}
	return dw;
}

static void dprof__dwarf_exit(struct perf_dprof *dprof)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!dprof->dwarf)
		return;
	hashmap__for_each_entry(dprof->dwarf, cur, bkt) {
		dprof_dwarf__delete(cur->pvalue);
		free((char *)cur->pkey);
	}
	hashmap__free(dprof->dwarf);
}

/* The DWARF index of @dso's file; NULL when it has none. */
static struct dprof_dwarf *dprof__dwarf(struct perf_dprof *dprof,
					struct dso *dso)
{
	struct dprof_dwarf *dw = dprof__dwarf_open(dprof, dso);

	return dw && !dprof_dwarf__index(dw) ? dw : NULL;
}

/*
 * The operand typing reads the same files: lend it the open debuginfo
 * rather than have it open a vmlinux's DWARF (~0.06 s, ~230 MB) again.
 */
static struct debuginfo *dprof__debuginfo(void *arg, struct dso *dso)
{
	return dprof_dwarf__debuginfo(dprof__dwarf_open(arg, dso));
}

#else
static struct dprof_dwarf *dprof__dwarf(struct perf_dprof *dprof __maybe_unused,
					struct dso *dso __maybe_unused)
{
	return NULL;
}
#endif

/*
 * BTF describes the running kernel only: use it for a recording of this
 * very kernel, never to put another kernel's layout on the samples.
 */
static struct dprof_btf *dprof__btf(struct perf_dprof *dprof)
{
	struct utsname uts;

	if (dprof->btf_tried)
		return dprof->btf;
	dprof->btf_tried = true;
	if (!dprof->os_release || uname(&uts) || strcmp(uts.release, dprof->os_release)) {
		pr_debug("dprof: recorded on kernel %s, not this one: no BTF\n",
			 dprof->os_release ?: "?");
		return NULL;
	}
	dprof->btf = dprof_btf__new(NULL);
	return dprof->btf;
}

static struct dso *dprof__kernel_dso(struct perf_dprof *dprof)
{
	struct map *kmap = machine__kernel_map(dprof->res.machine);

	return kmap ? map__dso(kmap) : NULL;
}

static bool dprof__struct_type(struct perf_dprof *dprof, struct dso *dso,
			       const char *name, struct dprof_type *t)
{
	bool kernel = !dso || dso__kernel(dso) != DSO_SPACE__USER;

	if (!strncmp(name, "struct ", 7))
		name += 7;
	else if (!strncmp(name, "union ", 6))
		name += 6;
	/* BTF only knows kernel types */
	return !dprof_types__find_struct(dprof__dwarf(dprof, dso),
					 kernel ? dprof__btf(dprof) : NULL, name, t);
}

/*
 * What the code thinks it touches: when an operand's type starts at the
 * object's base, it is a candidate for the object's type (kmalloc objects
 * have no other).  Done per (ip, offset) site of a row about to be shown,
 * weighted by samples: typing an operand costs a disassembly and a DWARF
 * scope walk, too much to do for every sampled ip during the replay.
 */
static void dprof__vote_row(struct perf_dprof *dprof, struct dprof_class *row)
{
	struct thread *thread = machine__idle_thread(dprof->res.machine);
	struct hashmap_entry *cur;
	struct dprof_typed typed;
	size_t bkt;

	if (!thread || !dprof->access_evsel)
		return;
	hashmap__for_each_entry(row->sites, cur, bkt) {
		struct dprof_site *site = cur->pvalue;

		if (!dprof_resolver__typed(&dprof->res, thread, dprof->access_evsel,
					   site->ip, &typed) &&
		    typed.offset == site->offset && typed.type_size > 1 &&
		    typed.type_size <= row->alloc_size)
			dprof_class__vote(row, typed.type_name, typed.dso,
					  site->stats.samples);
	}
	thread__put(thread);
}

/* The type most accesses at offset-aligned operands agree on. */
static bool dprof__voted_type(struct perf_dprof *dprof, struct dprof_class *row,
			      struct dprof_type *t)
{
	const struct dprof_vote *v;

	dprof__vote_row(dprof, row);
	v = dprof_class__best_vote(row);
	return v && dprof__struct_type(dprof, v->dso, v->name, t);
}

/* A variable's type: DWARF by address (a static name can be in many CUs), by name, then BTF. */
static bool dprof__var_type(struct perf_dprof *dprof, struct dso *dso,
			    struct dprof_class *row, struct dprof_type *t)
{
	struct dprof_dwarf *dw = dprof__dwarf(dprof, dso);

#ifdef HAVE_DWARF_SUPPORT
	if (dw && (!dprof_dwarf__var_type_at(dw, row->key, &t->die) ||
		   !dprof_dwarf__var_type(dw, row->name, &t->die))) {
		t->src = DPROF_TYPE_DWARF;
		return true;
	}
#endif
	/* BTF has per-cpu variables only */
	if (!dw && row->kind == DPROF_KIND_PERCPU && dprof__btf(dprof) &&
	    !dprof_btf__var_type(dprof->btf, row->name, &t->id)) {
		t->btf = dprof_btf__btf(dprof->btf);
		t->src = DPROF_TYPE_BTF;
		return true;
	}
	return false;
}

/* The type a row holds, from DWARF or BTF; false when nothing tells. */
static bool dprof__row_type(struct perf_dprof *dprof, struct dprof_class *row,
			    struct dprof_type *t)
{
	struct dso *kdso = dprof__kernel_dso(dprof);

	switch (row->kind) {
	case DPROF_KIND_SLAB:
		if (row->name &&
		    !dprof_types__cache_type(dprof__dwarf(dprof, kdso), dprof__btf(dprof),
					     row->name, row->obj_size, t))
			return true;
		return dprof__voted_type(dprof, row, t);
	case DPROF_KIND_PERCPU:
		return dprof__var_type(dprof, kdso, row, t);
	case DPROF_KIND_STATIC:
		return dprof__var_type(dprof, row->dso, row, t);
	case DPROF_KIND_TYPED:
		return dprof__struct_type(dprof, row->dso, row->name, t);
	case DPROF_KIND_KMALLOC:
		return dprof__voted_type(dprof, row, t);
	case DPROF_KIND__MAX:
	default:
		return false;
	}
}

/* What a row shows: its type, and how each offset reads. */
struct dprof_row_info {
	struct strbuf		type;		/* "struct file", or empty */
	struct strbuf		desc;		/* cache, size class, variable */
	struct dprof_type	t;
	bool			has_type;
};

static void dprof__describe(struct dprof_class *row, struct strbuf *sb);

static void dprof__row_info(struct perf_dprof *dprof, struct dprof_class *row,
			    struct dprof_row_info *ri)
{
	strbuf_init(&ri->type, 32);
	strbuf_init(&ri->desc, 32);
	dprof__describe(row, &ri->desc);
	memset(&ri->t, 0, sizeof(ri->t));
	ri->has_type = dprof__row_type(dprof, row, &ri->t) &&
		       !dprof_type__name_str(&ri->t, &ri->type);
}

/* Member name at @offset, or "+0x18" when the type is not known. */
static void dprof__member(struct dprof_row_info *ri, u64 offset,
			  struct strbuf *sb)
{
	size_t len = sb->len;

	if (ri->has_type && !dprof_type__member(&ri->t, offset, sb)) {
		/* a scalar or an array element has no member name */
		if (sb->len == len)
			strbuf_addf(sb, "+%#" PRIx64, offset);
		return;
	}
	strbuf_addf(sb, "+%#" PRIx64, offset);
}

struct dprof_member_stat {
	char			*name;
	u64			offset;		/* lowest offset seen */
	struct dprof_stats	stats;
};

static int member_stat__cmp(const void *a, const void *b)
{
	const struct dprof_member_stat *ma = a, *mb = b;

	if (ma->stats.samples != mb->stats.samples)
		return ma->stats.samples < mb->stats.samples ? 1 : -1;
	return ma->offset < mb->offset ? -1 : ma->offset > mb->offset;
}

/* Sites of a row folded by member name, hottest first. */
static struct dprof_member_stat *dprof__members(struct dprof_class *row,
						struct dprof_row_info *ri,
						size_t *nr)
{
	struct dprof_member_stat *ms;
	struct hashmap_entry *cur;
	size_t bkt, n = 0, i;

	ms = calloc(hashmap__size(row->sites) + 1, sizeof(*ms));
	if (!ms)
		return NULL;

	hashmap__for_each_entry(row->sites, cur, bkt) {
		struct dprof_site *site = cur->pvalue;
		struct strbuf sb;

		strbuf_init(&sb, 16);
		dprof__member(ri, site->offset, &sb);
		for (i = 0; i < n; i++) {
			if (!strcmp(ms[i].name, sb.buf))
				break;
		}
		if (i == n) {
			ms[n].name = strbuf_detach(&sb, NULL);
			ms[n].offset = site->offset;
			n++;
		} else {
			strbuf_release(&sb);
			if (site->offset < ms[i].offset)
				ms[i].offset = site->offset;
		}
		dprof_stats__add(&ms[i].stats, &site->stats);
	}
	qsort(ms, n, sizeof(*ms), member_stat__cmp);
	*nr = n;
	return ms;
}

static void dprof_members__free(struct dprof_member_stat *ms, size_t nr)
{
	size_t i;

	for (i = 0; ms && i < nr; i++)
		free(ms[i].name);
	free(ms);
}

/* ---------------------------------------------------------------------- */
/* stdio output                                                            */

static double pct(u64 part, u64 total)
{
	return total ? 100.0 * part / total : 0.0;
}

static void dprof__describe(struct dprof_class *row, struct strbuf *sb)
{
	switch (row->kind) {
	case DPROF_KIND_SLAB:
		if (row->name)
			strbuf_addstr(sb, row->name);
		else
			strbuf_addf(sb, "slab? %" PRIu64 "B @%s", row->alloc_size,
				    row->site_name ?: "?");
		break;
	case DPROF_KIND_KMALLOC:
		strbuf_addf(sb, "%s @%s", row->name ?: "kmalloc",
			    row->site_name ?: "?");
		break;
	case DPROF_KIND_PERCPU:
		strbuf_addf(sb, "percpu %s", row->name);
		break;
	case DPROF_KIND_TYPED:
		strbuf_addstr(sb, "(no alloc event: DWARF)");
		break;
	case DPROF_KIND_STATIC:
	case DPROF_KIND__MAX:
	default:
		strbuf_addf(sb, "static %s", row->name);
		if (row->dso && dso__kernel(row->dso) == DSO_SPACE__USER)
			strbuf_addf(sb, " (%s)", dso__short_name(row->dso));
		break;
	}
}

static void dprof__print_size(FILE *fp, u64 bytes)
{
	if (bytes >= 10 * 1024 * 1024)
		fprintf(fp, " %7.1fM", bytes / (1024.0 * 1024));
	else if (bytes >= 10 * 1024)
		fprintf(fp, " %7.1fK", bytes / 1024.0);
	else
		fprintf(fp, " %7" PRIu64 "B", bytes);
}

/* What the memory PMU's data_src said, level by level; nothing if silent. */
static void dprof__print_data_src(const struct dprof_mem_stats *st, FILE *fp)
{
	const char *sep = "";
	u64 known = 0;
	int l;

	if (st->no_memop)
		fprintf(fp, "# no memory op (excluded): %" PRIu64 " samples\n",
			st->no_memop);
	for (l = 0; l < DPROF_MEM_LVL__MAX; l++)
		known += st->level[l];
	if (!known)
		return;
	fprintf(fp, "# data source of %" PRIu64 " memory-op samples:", st->samples);
	for (l = 0; l < DPROF_MEM_LVL__MAX; l++) {
		if (!st->level[l])
			continue;
		fprintf(fp, "%s %s %.1f%%", sep, l == DPROF_MEM_LVL_UNKNOWN ?
			"missed, source unknown" : dprof_mem_level__str(l),
			pct(st->level[l], st->samples));
		sep = ",";
	}
	if (known < st->samples)
		fprintf(fp, ", not said %.1f%%", pct(st->samples - known, st->samples));
	fprintf(fp, "\n");
	fprintf(fp, "# HITM %" PRIu64 ", peer/forward %" PRIu64 ", remote %" PRIu64
		", TLB miss %" PRIu64 ", locked %" PRIu64 " samples\n",
		st->hitm, st->peer, st->remote, st->tlb_miss, st->locked);
}

static void dprof__print_header(struct perf_dprof *dprof, FILE *fp)
{
	struct dprof_profile *prof = &dprof->prof;
	u64 total = prof->nr_samples, resolved = 0;
	int k, u;

	fprintf(fp, "# perf dprof report: data profile\n#\n");
	if (dprof->has_mem_pmu)
		fprintf(fp, "# access samples: memory-sampling PMU (data address%s%s)\n",
			prof->has_levels ? ", cache level" : ", no cache level",
			prof->has_latency ? ", latency" : ", no latency");
	else if (dprof->has_soft)
		fprintf(fp, "# access samples: cpu-clock + instruction decode (no miss or latency measured)\n");
	else
		fprintf(fp, "# access samples: none recorded\n");

	if (prof->has_levels)
		fprintf(fp, "# sampled misses (not an L1 hit): %" PRIu64 " of %" PRIu64
			" samples with a level (%.1f%%)\n", prof->total.misses,
			prof->total.level_known,
			pct(prof->total.misses, prof->total.level_known));
	if (prof->has_latency && prof->total.lat_n)
		fprintf(fp, "# average sampled latency: %.0f cycles over %" PRIu64 " samples\n",
			(double)prof->total.lat_sum / prof->total.lat_n,
			prof->total.lat_n);
	if (dprof->has_mem_pmu)
		dprof__print_data_src(&dprof->mem, fp);
	if (dprof->has_alloc)
		fprintf(fp, "# address set: kmem tracepoints, %" PRIu64 " allocs, %" PRIu64
			" frees; slab cache names %s; kmalloc caches from bytes_alloc\n",
			dprof->nr_allocs, dprof->nr_frees,
			dprof->alloc_has_name ? "from alloc events" :
			"learned from free events (6.12 kmem_cache_alloc has no name)");
	else
		fprintf(fp, "# address set: none (no kmem tracepoints recorded): slab objects unresolved\n");
	dprof__print_watches(dprof, fp);

	if (dprof->nr_lost)
		fprintf(fp, "# LOST %" PRIu64 " events while recording: the address set is incomplete,"
			" some objects may be misattributed (record with a larger -m)\n",
			dprof->nr_lost);
	for (k = 0; k < DPROF_KIND__MAX; k++)
		resolved += prof->resolved[k];
	fprintf(fp, "# resolved %.1f%% of %" PRIu64 " samples:", pct(resolved, total), total);
	for (k = 0; k < DPROF_KIND__MAX; k++)
		fprintf(fp, "%s %s %.1f%%", k ? "," : "", dprof_kind__str(k),
			pct(prof->resolved[k], total));
	fprintf(fp, "\n# not a data type: stack %.1f%%\n",
		pct(prof->unres[DPROF_UNRES_STACK], total));
	if (dprof->has_soft)
		fprintf(fp, "# data addresses decoded: %.1f%% of samples: %.1f%% at the sampled ip, %.1f%% at the access before it (skid)\n",
			pct(prof->nr_decoded, total),
			pct(prof->nr_decoded - prof->nr_skid, total),
			pct(prof->nr_skid, total));
	fprintf(fp, "# unresolved:");
	for (u = 0; u < DPROF_UNRES__MAX; u++) {
		if (u == DPROF_UNRES_STACK)
			continue;
		if (u == DPROF_UNRES_INSN) {
			int r;

			for (r = 0; r < DPROF_EA__MAX; r++) {
				if (prof->ea_reasons[r])
					fprintf(fp, " %s %.1f%%,", dprof_ea_reason__str(r),
						pct(prof->ea_reasons[r], total));
			}
			continue;
		}
		fprintf(fp, " %s %.1f%%%s", dprof_unres__str(u),
			pct(prof->unres[u], total), u + 1 < DPROF_UNRES__MAX ? "," : "");
	}
	fprintf(fp, "\n");
	if (pct(prof->unres[DPROF_UNRES_NO_CODE], total) >= 1.0)
		fprintf(fp, "# no code bytes: give the kernel image with -k, or install the binaries\n");
	fprintf(fp, "#\n");
}

static void dprof__print_misses(struct perf_dprof *dprof, FILE *fp,
				const struct dprof_stats *st)
{
	if (dprof->prof.has_levels)
		fprintf(fp, " %6.1f%%", pct(st->misses, dprof->prof.total.misses));
	else
		fprintf(fp, " %7s", "n/a");
	if (dprof->prof.has_latency && st->lat_n)
		fprintf(fp, " %7.0f", (double)st->lat_sum / st->lat_n);
	else
		fprintf(fp, " %7s", "n/a");
}

static bool dprof__row_matches(struct dprof_class *row,
			       struct dprof_row_info *ri, const char *name)
{
	const char *type = ri->type.buf ?: "";

	if (!strcmp(type, name))
		return true;
	if (!strncmp(type, "struct ", 7) && !strcmp(type + 7, name))
		return true;
	return row->name && !strcmp(row->name, name);
}

static const char *dprof_row_info__type(struct dprof_class *row,
					struct dprof_row_info *ri)
{
	return ri->has_type ? ri->type.buf : (row->name ?: "?");
}

/* A column of @width, a long name cut with ".." rather than widening it. */
static void fprint_column(FILE *fp, const char *str, int width)
{
	int len = strlen(str);

	if (len <= width)
		fprintf(fp, " %-*s", width, str);
	else
		fprintf(fp, " %.*s..", width - 2, str);
}

#define DPROF_TYPE_WIDTH_MAX	32
#define DPROF_DESC_WIDTH_MAX	40

static void dprof__print_row(struct perf_dprof *dprof, FILE *fp,
			     struct dprof_class *row, struct dprof_row_info *ri,
			     int type_width, int desc_width)
{
	struct dprof_member_stat *ms;
	size_t nr = 0, i;
	double p = pct(row->stats.samples, dprof->prof.nr_samples);

	fprintf(fp, " ");
	fprint_column(fp, dprof_row_info__type(row, ri), type_width);
	fprint_column(fp, ri->desc.buf, desc_width);
	color_fprintf(fp, get_percent_color(p), " %6.2f%%", p);
	dprof__print_misses(dprof, fp, &row->stats);
	fprintf(fp, " %8" PRIu64, row->nr_objects);
	dprof__print_size(fp, row->ws_bytes);
	fprintf(fp, " %6s  ", row->nr_bounced ? "yes" : "no");

	ms = dprof__members(row, ri, &nr);
	for (i = 0; ms && i < nr && i < DPROF_HOT_MEMBERS; i++)
		fprintf(fp, "%s%s %.0f%%", i ? ", " : "", ms[i].name,
			pct(ms[i].stats.samples, row->stats.samples));
	fprintf(fp, "\n");
	dprof_members__free(ms, nr);
}

static int site__cmp(const void *a, const void *b)
{
	const struct dprof_site *sa = *(const struct dprof_site * const *)a;
	const struct dprof_site *sb = *(const struct dprof_site * const *)b;

	if (sa->stats.samples != sb->stats.samples)
		return sa->stats.samples < sb->stats.samples ? 1 : -1;
	return sa->ip < sb->ip ? -1 : sa->ip > sb->ip;
}

/* --type=NAME: one type by member and by code location. */
static void dprof__print_type(struct perf_dprof *dprof, FILE *fp,
			      struct dprof_class *row, struct dprof_row_info *ri)
{
	struct dprof_member_stat *ms;
	struct dprof_site **sites;
	struct hashmap_entry *cur;
	size_t nr = 0, i, n = 0, bkt;
	struct strbuf desc;

	strbuf_init(&desc, 32);
	dprof__describe(row, &desc);
	fprintf(fp, "\n# %s (%s): %" PRIu64 " samples, %" PRIu64 " objects, %" PRIu64
		" bounced between CPUs, object size %" PRIu64 "\n",
		ri->has_type ? ri->type.buf : "type unknown", desc.buf,
		row->stats.samples, row->nr_objects, row->nr_bounced, row->obj_size);
	if (!ri->has_type)
		fprintf(fp, "# no DWARF type for it: members shown as offsets\n");
	fprintf(fp, "#\n# %-8s %-32s %8s %8s %8s %8s\n", "Offset", "Member",
		"Samples", "Writes", "Misses", "AvgLat");
	ms = dprof__members(row, ri, &nr);
	for (i = 0; ms && i < nr; i++) {
		double p = pct(ms[i].stats.samples, row->stats.samples);

		fprintf(fp, "  %#-8" PRIx64 " %-32s", ms[i].offset, ms[i].name);
		color_fprintf(fp, get_percent_color(p), " %7.2f%%", p);
		fprintf(fp, " %7.1f%%", pct(ms[i].stats.writes, ms[i].stats.samples));
		dprof__print_misses(dprof, fp, &ms[i].stats);
		fprintf(fp, "\n");
	}
	dprof_members__free(ms, nr);

	sites = calloc(hashmap__size(row->sites) + 1, sizeof(*sites));
	if (!sites)
		goto out;
	hashmap__for_each_entry(row->sites, cur, bkt)
		sites[n++] = cur->pvalue;
	qsort(sites, n, sizeof(*sites), site__cmp);
	fprintf(fp, "#\n# %-8s %-32s %8s  %s\n", "Offset", "Member", "Samples",
		"Code");
	for (i = 0; i < n; i++) {
		struct dprof_site *s = sites[i];
		struct strbuf sb;
		double p = pct(s->stats.samples, row->stats.samples);

		if (p < dprof->percent_limit)
			break;
		strbuf_init(&sb, 16);
		dprof__member(ri, s->offset, &sb);
		fprintf(fp, "  %#-8" PRIx64 " %-32s", s->offset, sb.buf);
		color_fprintf(fp, get_percent_color(p), " %7.2f%%", p);
		if (s->sym)
			fprintf(fp, "  %s+%#" PRIx64 "\n", s->sym->name, s->sym_off);
		else
			fprintf(fp, "  %#" PRIx64 "\n", s->ip);
		strbuf_release(&sb);
	}
	free(sites);
out:
	strbuf_release(&desc);
}

/* The rows of the data profile, as --stdio and the TUI show them. */
struct dprof_table {
	struct dprof_class	**rows;
	struct dprof_row_info	*info;
	bool			*shown;		/* --type and --percent-limit */
	size_t			nr;
	int			type_width;
	int			desc_width;
};

static void dprof_table__exit(struct dprof_table *t)
{
	size_t i;

	for (i = 0; t->info && i < t->nr; i++) {
		strbuf_release(&t->info[i].type);
		strbuf_release(&t->info[i].desc);
	}
	zfree(&t->info);
	zfree(&t->shown);
	if (t->rows)
		dprof_rows__free(t->rows, t->nr);
	t->rows = NULL;
}

/* The rows in --sort order, their types, and the column widths. */
static int dprof_table__init(struct dprof_table *t, struct perf_dprof *dprof)
{
	enum dprof_sort sort = DPROF_SORT_SAMPLES;
	size_t i;

	memset(t, 0, sizeof(*t));
	t->type_width = 4;
	t->desc_width = 12;
	if (dprof->sort_str && dprof_sort__parse(dprof->sort_str, &sort)) {
		pr_err("dprof: unknown sort key '%s' (samples, misses, latency, objects)\n",
		       dprof->sort_str);
		return -EINVAL;
	}
	if ((sort == DPROF_SORT_MISSES && !dprof->prof.has_levels) ||
	    (sort == DPROF_SORT_LATENCY && !dprof->prof.has_latency)) {
		pr_err("dprof: cannot sort by %s: the sampler did not measure it\n",
		       dprof->sort_str);
		return -EINVAL;
	}

	t->rows = dprof_profile__rows(&dprof->prof, &t->nr);
	if (!t->rows)
		return -ENOMEM;
	dprof_rows__sort(t->rows, t->nr, sort);
	t->info = calloc(t->nr + 1, sizeof(*t->info));
	t->shown = calloc(t->nr + 1, sizeof(*t->shown));
	if (!t->info || !t->shown) {
		zfree(&t->info);
		dprof_table__exit(t);
		return -ENOMEM;
	}
	for (i = 0; i < t->nr; i++)
		dprof__row_info(dprof, t->rows[i], &t->info[i]);

	for (i = 0; i < t->nr; i++) {
		t->shown[i] = (!dprof->type_name ||
			       dprof__row_matches(t->rows[i], &t->info[i], dprof->type_name)) &&
			      pct(t->rows[i]->stats.samples, dprof->prof.nr_samples) >=
			      dprof->percent_limit;
		if (!t->shown[i])
			continue;
		t->type_width = max_t(int, t->type_width,
				      (int)strlen(dprof_row_info__type(t->rows[i], &t->info[i])));
		t->desc_width = max_t(int, t->desc_width, t->info[i].desc.len);
	}
	t->type_width = min_t(int, t->type_width, DPROF_TYPE_WIDTH_MAX);
	t->desc_width = min_t(int, t->desc_width, DPROF_DESC_WIDTH_MAX);
	return 0;
}

static void dprof__print_columns(FILE *fp, const struct dprof_table *t)
{
	fprintf(fp, "#");
	fprint_column(fp, "Type", t->type_width);
	fprint_column(fp, "Cache / kind", t->desc_width);
	fprintf(fp, " %7s %7s %7s %8s %8s %6s  %s\n", "Samples", "Misses",
		"AvgLat", "Objects", "WS size", "Bounce", "Hot members");
}

static int dprof__print(struct perf_dprof *dprof, FILE *fp)
{
	struct dprof_table t;
	bool found = false;
	size_t i;
	int err;

	err = dprof_table__init(&t, dprof);
	if (err)
		return err;

	dprof__print_header(dprof, fp);
	dprof__print_columns(fp, &t);
	for (i = 0; i < t.nr; i++) {
		if (t.shown[i])
			dprof__print_row(dprof, fp, t.rows[i], &t.info[i],
					 t.type_width, t.desc_width);
	}
	for (i = 0; dprof->type_name && i < t.nr; i++) {
		if (!dprof__row_matches(t.rows[i], &t.info[i], dprof->type_name))
			continue;
		found = true;
		dprof__print_type(dprof, fp, t.rows[i], &t.info[i]);
	}
	if (dprof->type_name && !found)
		fprintf(fp, "\n# no samples for type '%s'\n", dprof->type_name);

	dprof_table__exit(&t);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* report                                                                  */

static void dprof__scan_evlist(struct perf_dprof *dprof, struct evlist *evlist)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		u64 type = evsel->core.attr.sample_type;
		const char *name = evsel__name(evsel);

		if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT) {
			if (!strcmp(name, "kmem:kmem_cache_alloc") ||
			    !strcmp(name, "kmem:kmalloc"))
				dprof->has_alloc = true;
			else if (!strcmp(name, "kmem:kmem_cache_free") ||
				 !strcmp(name, "kmem:kfree"))
				dprof->has_free = true;
			continue;
		}
		if (evsel__is_dummy_event(evsel))
			continue;
		/* hits of a watched object, not access samples */
		if (strstarts(name, "slab_watch/")) {
			dprof__watch_add(dprof, evsel);
			continue;
		}
		if (type & PERF_SAMPLE_REGS_INTR)
			dprof->has_soft = true;
		else if (type & PERF_SAMPLE_ADDR)
			dprof->has_mem_pmu = true;
		if (!(type & PERF_SAMPLE_REGS_INTR) && (type & PERF_SAMPLE_DATA_SRC))
			dprof->has_data_src = true;
	}
}

/*
 * perf's own message for a cut-off file is "incompatible file format";
 * say what is wrong when the header promises more data than the file has.
 */
static bool dprof__explain_bad_file(const char *path)
{
	struct perf_file_header h;
	struct stat st;
	int fd = open(path, O_RDONLY);
	u64 end;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) || read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    memcmp(&h.magic, "PERFILE2", 8)) {
		close(fd);
		return false;
	}
	close(fd);
	end = h.data.offset + h.data.size;
	if (h.data.size && end > (u64)st.st_size) {
		pr_err("dprof: %s is truncated: its data section ends at byte %" PRIu64
		       " but the file has %" PRIu64 " bytes (recording interrupted or disk full?); "
		       "re-record it\n", path, end, (u64)st.st_size);
		return true;
	}
	if (!h.data.size) {
		pr_err("dprof: %s holds no data: perf record did not finish; re-record it\n", path);
		return true;
	}
	return false;
}

/* ---------------------------------------------------------------------- */
/* classify and workingset views: sinks in util/dprof/, ui/stdio/dprof.c  */

struct dprof_views {
	struct dprof_classify	cl;
	struct dprof_workingset	ws;
	bool			on_cl;
	bool			on_ws;
};

/*
 * The cache of a view: --cache, else the recording's header, else this
 * machine.  @level 0 is the last level, 1 the L1d.
 */
static int dprof__cache_geom(struct perf_dprof *dprof, struct perf_env *env,
			     int level, bool silent, struct dprof_cache_geom *geom)
{
	if (dprof->cache_spec) {
		if (dprof_cache_geom__parse(geom, dprof->cache_spec)) {
			pr_err("dprof: --cache=%s: want [lN:]SIZE[:WAYS[:LINE]], e.g. l3:32M:16:64\n",
			       dprof->cache_spec);
			return -EINVAL;
		}
		return 0;
	}
	if (dprof_cache_geom__env(geom, env, level) &&
	    dprof_cache_geom__sysfs(geom, NULL, level)) {
		if (!silent)
			pr_err("dprof: no cache geometry in the recording or sysfs: give --cache\n");
		return -ENOENT;
	}
	return 0;
}

/*
 * The classify and workingset sinks.  The TUI (@all) runs both
 * simulations, for its keys to switch views.
 */
static int dprof_views__init(struct dprof_views *v, struct perf_dprof *dprof,
			     struct perf_env *env, bool all)
{
	bool cl = all || !strcmp(dprof->view, "classify");
	bool ws = all || !strcmp(dprof->view, "workingset");
	struct dprof_cache_geom geom;
	int err;

	memset(v, 0, sizeof(*v));
	if (cl) {
		/*
		 * A measured miss is an access that did not hit the L1
		 * (data_src): classify those against the L1d, predicted
		 * ones against the last level.
		 */
		err = dprof__cache_geom(dprof, env, dprof->has_data_src ? 1 : 0,
					all, &geom);
		if (err)
			return err;
		err = dprof_classify__init(&v->cl, &geom);
		if (err)
			return err;
		v->on_cl = true;
		list_add_tail(&v->cl.sink.node, &dprof->sinks);
		dprof->cl = &v->cl;
	}
	if (ws) {
		err = dprof__cache_geom(dprof, env, 0, all, &geom);
		if (err)
			return err;
		err = dprof_workingset__init(&v->ws, &geom);
		if (err)
			return err;
		v->on_ws = true;
		list_add_tail(&v->ws.sink.node, &dprof->sinks);
		dprof->ws = &v->ws;
	}
	return 0;
}

static void dprof_views__exit(struct dprof_views *v)
{
	if (v->on_cl) {
		list_del_init(&v->cl.sink.node);
		dprof_classify__exit(&v->cl);
	}
	if (v->on_ws) {
		list_del_init(&v->ws.sink.node);
		dprof_workingset__exit(&v->ws);
	}
}

/* The classify view's drill-down names offsets as dprof__print_type() does. */
static void dprof_view__member_name(const struct dprof_view_row *vr,
				    u64 offset, struct strbuf *sb)
{
	dprof__member(vr->priv, offset, sb);
}

/* ... and code: the row's site at (@ip, @offset) knows its symbol. */
static void dprof_view__code_name(const struct dprof_view_row *vr, u64 offset,
				  u64 ip, struct strbuf *sb)
{
	struct dprof_site tmp = { .ip = ip, .offset = offset }, *s = NULL;

	if (vr->row->sites && hashmap__find(vr->row->sites, &tmp, &s) && s->sym)
		strbuf_addf(sb, "%s+%#" PRIx64, s->sym->name, s->sym_off);
	else
		strbuf_addf(sb, "%#" PRIx64, ip);
}

/* ... and the function of @ip, for the lines each function brings in */
static const char *dprof_view__func_name(const struct dprof_view *v, u64 ip)
{
	const struct perf_dprof *dprof = v->ctx;
	struct symbol *sym;
	struct map *map = NULL;

	if (!dprof->res.machine)
		return NULL;
	sym = machine__find_kernel_symbol(dprof->res.machine, ip, &map);
	return sym ? sym->name : NULL;
}

/*
 * The classify (@cl) or workingset view of @nr rows; after the replay.
 * Each row's ->priv is its struct dprof_row_info.
 */
static struct dprof_view dprof__view(struct perf_dprof *dprof,
				      struct dprof_view_row *rows, size_t nr)
{
	return (struct dprof_view){
		.prof = &dprof->prof,
		.rows = rows,
		.nr = nr,
		.has_soft = dprof->has_soft,
		.has_levels = dprof->prof.has_levels,
		.member_name = dprof_view__member_name,
		.code_name = dprof_view__code_name,
		.func_name = dprof_view__func_name,
		.ctx = dprof,
	};
}

static int dprof_views__fprintf(struct dprof_views *v, struct perf_dprof *dprof,
				struct dprof_view_row *rows, size_t nr, bool cl,
				FILE *fp)
{
	struct dprof_view view = dprof__view(dprof, rows, nr);

	return cl ? dprof_classify__fprintf(&v->cl, &view, fp) :
		    dprof_workingset__fprintf(&v->ws, &view, fp);
}

/* --view=workingset --graph=FILE.svg: the set histogram as a picture */
static int dprof__ws_svg(struct dprof_views *v, struct perf_dprof *dprof,
			 struct dprof_view_row *rows, size_t nr, FILE *fp)
{
	struct dprof_view view = dprof__view(dprof, rows, nr);
	FILE *svg = fopen(dprof->graph, "w");
	int err;

	if (!svg) {
		pr_err("dprof: cannot write %s: %s\n", dprof->graph, strerror(errno));
		return -errno;
	}
	err = dprof_workingset__fprintf_svg(&v->ws, &view, svg);
	if (fclose(svg) && !err)
		err = -errno;
	if (!err)
		fprintf(fp, "\n# wrote %s: distinct lines per set of %s\n", dprof->graph,
			dprof->type_name ?: "the biggest types");
	return err;
}

static int dprof_views__print(struct dprof_views *v, struct perf_dprof *dprof,
			      FILE *fp)
{
	struct dprof_view view = { .nr = 0 };
	struct dprof_class **rows;
	struct dprof_row_info *info;
	size_t nr = 0, i;
	int err = -ENOMEM;

	rows = dprof_profile__rows(&dprof->prof, &nr);	/* sets cls->row */
	if (!rows)
		return -ENOMEM;
	info = calloc(nr + 1, sizeof(*info));
	view.rows = calloc(nr + 1, sizeof(*view.rows));
	if (!info || !view.rows)
		goto out;
	for (i = 0; i < nr; i++) {
		dprof__row_info(dprof, rows[i], &info[i]);
		view.rows[i].type = dprof_row_info__type(rows[i], &info[i]);
		view.rows[i].desc = info[i].desc.buf;
		view.rows[i].row = rows[i];
		view.rows[i].priv = &info[i];
		view.rows[i].detail = dprof->type_name &&
			dprof__row_matches(rows[i], &info[i], dprof->type_name);
	}
	if (v->on_cl)
		err = dprof_views__fprintf(v, dprof, view.rows, nr, true, fp);
	else
		err = dprof_workingset__finish(&v->ws) ?:
		      dprof_views__fprintf(v, dprof, view.rows, nr, false, fp);
	if (!err && v->on_ws && dprof->graph)
		err = dprof__ws_svg(v, dprof, view.rows, nr, fp);
	for (i = 0; i < nr; i++) {
		strbuf_release(&info[i].type);
		strbuf_release(&info[i].desc);
	}
out:
	free(info);
	free(view.rows);
	dprof_rows__free(rows, nr);
	return err;
}

/* ---------------------------------------------------------------------- */
/* paths and flow views: util/dprof/{histories,pathtrace,flow}.c           */

static int dprof__flow_init(struct perf_dprof *dprof, bool all)
{
	if (!all && strcmp(dprof->view, "paths") && strcmp(dprof->view, "flow"))
		return 0;
	dprof->hist = zalloc(sizeof(*dprof->hist));
	if (!dprof->hist)
		return -ENOMEM;
	dprof_histories__init(dprof->hist);
	list_add_tail(&dprof->hist->sink.node, &dprof->sinks);
	return 0;
}

static void dprof__flow_exit(struct perf_dprof *dprof)
{
	if (!dprof->hist)
		return;
	list_del_init(&dprof->hist->sink.node);
	dprof_histories__exit(dprof->hist);
	zfree(&dprof->hist);
}

/*
 * The histories of @row or of the cache @name, as the paper's table 1 or
 * (@flow) as the flow graph.  The histories are retagged for the path
 * traces and then given their types back: the TUI shows several types.
 */
static int dprof__fprintf_flow(struct perf_dprof *dprof, struct machine *machine,
			       struct dprof_class *row, const char *name,
			       bool flow, const char *graph, FILE *fp)
{
	struct dprof_flow_report r = {
		.h = dprof->hist, .name = name, .machine = machine,
		.flow = flow, .graph = graph, .row = row,
	};
	struct dprof_history *hist;
	struct dprof_class *cls;
	void **types;
	size_t nr = 0, i = 0;
	int err;

	dprof_histories__finish(dprof->hist);
	list_for_each_entry(hist, &dprof->hist->done, list)
		nr++;
	types = calloc(nr + 1, sizeof(*types));
	if (!types)
		return -ENOMEM;
	/* a history's type is its class; show those of the chosen row or cache */
	r.type = &r;
	list_for_each_entry(hist, &dprof->hist->done, list) {
		cls = hist->type;
		types[i++] = cls;
		if (cls && ((row && cls->row == row) ||
			    (cls->name && !strcmp(cls->name, name))))
			hist->type = r.type;
	}
	err = dprof_flow__report(&r, fp);
	i = 0;
	list_for_each_entry(hist, &dprof->hist->done, list)
		hist->type = types[i++];
	free(types);
	return err;
}

/* --view=paths|flow --type=T */
static int dprof__print_flow(struct perf_dprof *dprof, struct machine *machine,
			     FILE *fp)
{
	struct dprof_class **rows, *row = NULL;
	struct dprof_row_info ri;
	size_t nr = 0, i;
	int err;

	rows = dprof_profile__rows(&dprof->prof, &nr);	/* sets cls->row */
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < nr && !row; i++) {
		dprof__row_info(dprof, rows[i], &ri);
		if (dprof__row_matches(rows[i], &ri, dprof->type_name))
			row = rows[i];
		strbuf_release(&ri.type);
		strbuf_release(&ri.desc);
	}
	err = dprof__fprintf_flow(dprof, machine, row, dprof->type_name,
				  !strcmp(dprof->view, "flow"), dprof->graph, fp);
	dprof_rows__free(rows, nr);
	return err;
}

/* ---------------------------------------------------------------------- */
/* TUI: ui/browsers/dprof.c browses the stdio printers' output             */

struct dprof_tui {
	struct perf_dprof	*dprof;
	struct dprof_views	*views;
	struct machine		*machine;
	struct dprof_table	t;
	size_t			*idx;		/* browser row -> table row */
	size_t			nr;
	bool			no_geom;	/* no cache to model */
};

static int dprof_tui__columns(void *ctx, FILE *fp)
{
	struct dprof_tui *tui = ctx;

	dprof__print_columns(fp, &tui->t);
	return 0;
}

static int dprof_tui__row(void *ctx, size_t row, FILE *fp)
{
	struct dprof_tui *tui = ctx;
	size_t i = tui->idx[row];

	dprof__print_row(tui->dprof, fp, tui->t.rows[i], &tui->t.info[i],
			 tui->t.type_width, tui->t.desc_width);
	return 0;
}

static const char *dprof_tui__name(void *ctx, size_t row)
{
	struct dprof_tui *tui = ctx;
	size_t i = tui->idx[row];

	return dprof_row_info__type(tui->t.rows[i], &tui->t.info[i]);
}

/* The classify or workingset view of one row, or of all (DPROF_BROWSER_ALL). */
static int dprof_tui__table(struct dprof_tui *tui, size_t row, bool cl, FILE *fp)
{
	struct dprof_view_row *vr;
	size_t i, n = 0;
	int err;

	if (tui->no_geom || (cl ? !tui->views->on_cl : !tui->views->on_ws)) {
		fprintf(fp, "# no cache geometry in the recording or sysfs: give --cache\n");
		return 0;
	}
	vr = calloc(tui->nr + 1, sizeof(*vr));
	if (!vr)
		return -ENOMEM;
	for (i = 0; i < tui->nr; i++) {
		size_t k = tui->idx[i];

		if (row != DPROF_BROWSER_ALL && i != row)
			continue;
		vr[n].type = dprof_row_info__type(tui->t.rows[k], &tui->t.info[k]);
		vr[n].desc = tui->t.info[k].desc.buf;
		vr[n].row = tui->t.rows[k];
		vr[n].priv = &tui->t.info[k];
		vr[n].detail = row != DPROF_BROWSER_ALL;
		n++;
	}
	err = dprof_views__fprintf(tui->views, tui->dprof, vr, n, cl, fp);
	free(vr);
	return err;
}

static int dprof_tui__view(void *ctx, size_t row, enum dprof_browser_view view,
			   FILE *fp)
{
	struct dprof_tui *tui = ctx;
	struct perf_dprof *dprof = tui->dprof;
	size_t i = row != DPROF_BROWSER_ALL ? tui->idx[row] : 0;

	switch (view) {
	case DPROF_BROWSER_HEADER:
		dprof__print_header(dprof, fp);
		return 0;
	case DPROF_BROWSER_CLASSIFY:
	case DPROF_BROWSER_WORKINGSET:
		return dprof_tui__table(tui, row, view == DPROF_BROWSER_CLASSIFY, fp);
	case DPROF_BROWSER_FLOW:
	case DPROF_BROWSER_PATHS:
		if (row == DPROF_BROWSER_ALL)
			return 0;
		if (!dprof->watches)
			fprintf(fp, "# no object histories: record with --watch=CACHE:OFFSET/LEN\n");
		return dprof__fprintf_flow(dprof, tui->machine, tui->t.rows[i],
					   dprof_tui__name(tui, row),
					   view == DPROF_BROWSER_FLOW, NULL, fp);
	case DPROF_BROWSER_MEMBERS:
		if (row == DPROF_BROWSER_ALL)
			return 0;
		dprof__print_type(dprof, fp, tui->t.rows[i], &tui->t.info[i]);
		return 0;
	case DPROF_BROWSER__MAX:
	default:
		return -EINVAL;
	}
}

static enum dprof_browser_view dprof__browser_view(const char *view)
{
	if (!strcmp(view, "classify"))
		return DPROF_BROWSER_CLASSIFY;
	if (!strcmp(view, "workingset"))
		return DPROF_BROWSER_WORKINGSET;
	if (!strcmp(view, "flow"))
		return DPROF_BROWSER_FLOW;
	if (!strcmp(view, "paths"))
		return DPROF_BROWSER_PATHS;
	return DPROF_BROWSER_MEMBERS;
}

/*
 * The profile's rows (--percent-limit applies, --type does not: it picks
 * the row to open first, in the --view asked for).
 */
static int dprof__browse(struct perf_dprof *dprof, struct dprof_views *views,
			 bool no_geom, struct machine *machine)
{
	struct dprof_tui tui = {
		.dprof = dprof, .views = views, .machine = machine,
		.no_geom = no_geom,
	};
	struct dprof_browser db = {
		.fprintf_columns = dprof_tui__columns,
		.fprintf_row	 = dprof_tui__row,
		.row_name	 = dprof_tui__name,
		.fprintf_view	 = dprof_tui__view,
		.ctx		 = &tui,
		.input		 = dprof->input_name,
	};
	const char *type_name = dprof->type_name;
	size_t i;
	int err;

	dprof->type_name = NULL;
	err = dprof_table__init(&tui.t, dprof);
	dprof->type_name = type_name;
	if (err)
		return err;
	if (views->on_ws)
		dprof_workingset__finish(&views->ws);
	tui.idx = calloc(tui.t.nr + 1, sizeof(*tui.idx));
	if (!tui.idx) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < tui.t.nr; i++) {
		if (!tui.t.shown[i])
			continue;
		if (type_name && !db.start &&
		    dprof__row_matches(tui.t.rows[i], &tui.t.info[i], type_name)) {
			db.start = true;
			db.start_row = tui.nr;
		}
		tui.idx[tui.nr++] = i;
	}
	if (!db.start && strcmp(dprof->view, "profile") &&
	    !type_name) {	/* --view=classify|workingset: all types */
		db.start = true;
		db.start_row = DPROF_BROWSER_ALL;
	}
	db.start_view = dprof__browser_view(dprof->view);
	db.nr_rows = tui.nr;
	err = dprof_browser__run(&db);
out:
	free(tui.idx);
	dprof_table__exit(&tui.t);
	return err;
}

static int dprof__report(struct perf_dprof *dprof)
{
	const struct evsel_str_handler handlers[] = {
		{ "kmem:kmem_cache_alloc",	dprof__kmem_cache_alloc, },
		{ "kmem:kmalloc",		dprof__kmalloc, },
		{ "kmem:kmem_cache_free",	dprof__kmem_cache_free, },
		{ "kmem:kfree",			dprof__kfree, },
	};
	struct perf_data data = {
		.path	= dprof->input_name,
		.mode	= PERF_DATA_MODE_READ,
		.force	= dprof->force,
	};
	struct perf_session *session;
	struct dprof_views views = { .on_cl = false };
	bool tui = false, no_geom = false;
	int err;

	perf_tool__init(&dprof->tool, /*ordered_events=*/true);
	dprof->tool.sample	= process_sample_event;
	dprof->tool.mmap	= perf_event__process_mmap;
	dprof->tool.mmap2	= perf_event__process_mmap2;
	dprof->tool.comm	= perf_event__process_comm;
	dprof->tool.exit	= perf_event__process_exit;
	dprof->tool.fork	= perf_event__process_fork;
	dprof->tool.namespaces	= perf_event__process_namespaces;
	dprof->tool.ordering_requires_timestamps = true;

	session = perf_session__new(&data, &dprof->tool);
	if (IS_ERR(session)) {
		dprof__explain_bad_file(dprof->input_name);
		return PTR_ERR(session);
	}

	err = perf_session__set_tracepoints_handlers(session, handlers);
	if (err) {
		pr_err("dprof: cannot set tracepoint handlers\n");
		goto out_delete;
	}
	dprof__scan_evlist(dprof, session->evlist);
	dprof->os_release = session->header.env.os_release;
	if (!dprof->has_soft && !dprof->has_mem_pmu &&
	    (!dprof->watches || !strcmp(dprof->view, "classify") ||
	     !strcmp(dprof->view, "workingset"))) {
		pr_err("dprof: %s holds no access samples%s; record it with 'perf dprof record'\n",
		       dprof->input_name, dprof->watches ?
		       " (only object histories: --view=paths|flow)" : "");
		err = -EINVAL;
		goto out_delete;
	}

	symbol_conf.try_vmlinux_path = true;
	/* data-type profiling of operands, for addresses nothing else covers */
	annotation_options__init();
	/* nothing shows the disassembly: no source lines (LLVM reads DWARF for them) */
	annotate_opts.annotate_src = false;
	err = symbol__annotation_init();
	if (err)
		goto out_annotate;
	err = symbol__init(&session->header.env);
	if (err < 0)
		goto out_annotate;

	dprof_addrset__init(&dprof->as, NULL);
	err = dprof_profile__init(&dprof->prof);
	if (err)
		goto out_annotate;
	err = dprof_resolver__init(&dprof->res, &session->machines.host);
	if (err)
		goto out_profile;
#ifdef HAVE_DWARF_SUPPORT
	dprof->res.debuginfo = dprof__debuginfo;
	dprof->res.debuginfo_arg = dprof;
#endif

	/* the TUI computes every view, for its keys to switch between them */
	if (!dprof->consume) {
		setup_browser(false);
		tui = use_browser == 1;
	}
	err = dprof__flow_init(dprof, tui) ?:
	      dprof_views__init(&views, dprof, &session->header.env, tui);
	if (err == -ENOENT && tui) {
		no_geom = true;		/* the TUI says so in those views */
		err = 0;
	}
	if (err)
		goto out_resolver;
	err = perf_session__process_events(session);
	if (err) {
		if (!dprof__explain_bad_file(dprof->input_name))
			pr_err("dprof: failed to process %s (%d): the file is damaged\n",
			       dprof->input_name, err);
		goto out_resolver;
	}

	dprof->nr_lost = session->evlist->stats.total_lost +
			 session->evlist->stats.total_lost_samples;
	if (dprof->consume) {
		err = dprof->consume(dprof, dprof->consume_arg);
		goto out_resolver;
	}
	if (tui) {
		err = dprof__browse(dprof, &views, no_geom, &session->machines.host);
		goto out_resolver;
	}
	setup_pager();
	if (dprof->hist)
		err = dprof__print_flow(dprof, &session->machines.host, stdout);
	else if (views.on_cl || views.on_ws)
		err = dprof_views__print(&views, dprof, stdout);
	else
		err = dprof__print(dprof, stdout);

out_resolver:
	dprof->cl = NULL;
	dprof->ws = NULL;
	dprof_views__exit(&views);
	dprof__flow_exit(dprof);
#ifdef HAVE_DWARF_SUPPORT
	/* the operand typing may hold a debuginfo of ours */
	debuginfo_cache__delete();
	dprof__dwarf_exit(dprof);
#endif
	dprof_btf__delete(dprof->btf);
	dprof->btf = NULL;
	dprof_resolver__exit(&dprof->res);
	dprof_addrset__exit(&dprof->as);
out_profile:
	dprof_profile__exit(&dprof->prof);
out_annotate:
	annotation_options__exit();
out_delete:
	dprof__watch_exit(dprof);
	perf_session__delete(session);
	return err;
}

static int parse_percent_limit(const struct option *opt, const char *str,
			       int unset __maybe_unused)
{
	float *limit = opt->value;
	char *end;

	*limit = strtof(str, &end);
	if (end == str || *end || *limit < 0 || *limit > 100) {
		pr_err("dprof: --percent-limit wants a number between 0 and 100\n");
		return -1;
	}
	return 0;
}

static int cmd_dprof_report(int argc, const char **argv)
{
	struct perf_dprof dprof = {
		.input_name	= "perf.data",
		.view		= "profile",
	};
	const char * const usage[] = {
		"perf dprof report [<options>]",
		NULL
	};
	const struct option options[] = {
	OPT_STRING('i', "input", &dprof.input_name, "file", "input file name"),
	OPT_STRING('k', "vmlinux", &symbol_conf.vmlinux_name, "file",
		   "vmlinux pathname (kernel code, symbols and types)"),
	OPT_BOOLEAN(0, "stdio", &dprof.use_stdio, "use the stdio interface"),
	OPT_BOOLEAN(0, "tui", &dprof.use_tui, "use the TUI interface (default on a terminal)"),
	OPT_STRING(0, "view", &dprof.view, "view",
		   "profile, classify, workingset, paths or flow"),
	OPT_STRING(0, "graph", &dprof.graph, "file",
		   "--view=flow: also write the graph as Graphviz DOT (and SVG); --view=workingset: the set histogram as SVG"),
	OPT_STRING(0, "cache", &dprof.cache_spec, "[lN:]size[:ways[:line]]",
		   "cache to model (default: the recording's last level)"),
	OPT_STRING('s', "sort", &dprof.sort_str, "key",
		   "sort rows by: samples (default), misses, latency, objects"),
	OPT_STRING('t', "type", &dprof.type_name, "name",
		   "show one type by member and code location"),
	OPT_CALLBACK(0, "percent-limit", &dprof.percent_limit, "percent",
		     "hide rows below this percentage of samples",
		     parse_percent_limit),
	OPT_BOOLEAN('f', "force", &dprof.force, "don't complain, do it"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};

	INIT_LIST_HEAD(&dprof.sinks);
	argc = parse_options(argc, argv, options, usage, 0);
	if (argc)
		usage_with_options(usage, options);

	if (strcmp(dprof.view, "profile") && strcmp(dprof.view, "classify") &&
	    strcmp(dprof.view, "workingset") && strcmp(dprof.view, "paths") &&
	    strcmp(dprof.view, "flow")) {
		pr_err("dprof: view '%s' is not implemented yet; profile, classify, workingset, paths and flow are\n",
		       dprof.view);
		return -EINVAL;
	}
	if ((!strcmp(dprof.view, "paths") || !strcmp(dprof.view, "flow")) &&
	    !dprof.type_name) {
		pr_err("dprof: --view=%s needs --type=T (a cache or type watched with record --watch)\n",
		       dprof.view);
		return -EINVAL;
	}
	/*
	 * As perf report: the TUI on a terminal when built with slang
	 * (setup_browser() decides), --stdio otherwise.  --graph writes a
	 * file and prints, so it stays on stdio.
	 */
	if (dprof.use_stdio || dprof.graph)
		use_browser = 0;
#ifdef HAVE_SLANG_SUPPORT
	else if (dprof.use_tui)
		use_browser = 1;
#endif
	return dprof__report(&dprof);
}

/* ---------------------------------------------------------------------- */
/* diff: the paper's peak vs drop-off comparison (5.2)                     */

/* One type of one recording, as text keys and numbers: no session needed. */
struct dprof_diff_row {
	char			*type;
	char			*desc;
	struct dprof_stats	stats;
	u64			ws_bytes;
	u64			nr_objects;
	u64			life_sum;
	u64			life_n;
};

struct dprof_diff_side {
	const char		*path;
	struct dprof_diff_row	*rows;
	size_t			nr;
	u64			nr_samples;
	u64			nr_misses;
	bool			has_levels;
	bool			has_latency;
};

static int dprof__collect(struct perf_dprof *dprof, void *arg)
{
	struct dprof_diff_side *side = arg;
	struct dprof_class **rows;
	size_t nr = 0, i;

	rows = dprof_profile__rows(&dprof->prof, &nr);
	if (!rows)
		return -ENOMEM;
	side->rows = calloc(nr + 1, sizeof(*side->rows));
	if (!side->rows) {
		dprof_rows__free(rows, nr);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		struct dprof_diff_row *d = &side->rows[i];
		struct dprof_row_info ri;

		dprof__row_info(dprof, rows[i], &ri);
		d->type = strdup(dprof_row_info__type(rows[i], &ri));
		d->desc = strbuf_detach(&ri.desc, NULL);
		strbuf_release(&ri.type);
		d->stats = rows[i]->stats;
		d->ws_bytes = rows[i]->ws_bytes;
		d->nr_objects = rows[i]->nr_objects;
		d->life_sum = rows[i]->life_sum;
		d->life_n = rows[i]->life_n;
	}
	side->nr = nr;
	side->nr_samples = dprof->prof.nr_samples;
	side->nr_misses = dprof->prof.total.misses;
	side->has_levels = dprof->prof.has_levels;
	side->has_latency = dprof->prof.has_latency;
	dprof_rows__free(rows, nr);
	return 0;
}

static void dprof_diff_side__exit(struct dprof_diff_side *side)
{
	size_t i;

	for (i = 0; i < side->nr; i++) {
		free(side->rows[i].type);
		free(side->rows[i].desc);
	}
	free(side->rows);
}

static const struct dprof_diff_row *
dprof_diff_side__find(const struct dprof_diff_side *side,
		      const struct dprof_diff_row *row)
{
	size_t i;

	for (i = 0; i < side->nr; i++) {
		if (!strcmp(side->rows[i].type, row->type) &&
		    !strcmp(side->rows[i].desc, row->desc))
			return &side->rows[i];
	}
	return NULL;
}

struct dprof_diff_pair {
	const struct dprof_diff_row	*a, *b;
	double				delta;	/* of the sort metric, points */
};

static double dprof_diff__share(const struct dprof_diff_side *side,
				const struct dprof_diff_row *row, bool misses)
{
	if (!row)
		return 0;
	if (misses)
		return pct(row->stats.misses, side->nr_misses);
	return pct(row->stats.samples, side->nr_samples);
}

static int diff_pair__cmp(const void *x, const void *y)
{
	const struct dprof_diff_pair *p = x, *q = y;
	double a = fabs(p->delta), b = fabs(q->delta);

	return a < b ? 1 : a > b ? -1 : 0;
}

static void fprint_lifetime(FILE *fp, const struct dprof_diff_row *row)
{
	if (row && row->life_n)
		fprintf(fp, " %9.1f", (double)row->life_sum / row->life_n / 1000.0);
	else
		fprintf(fp, " %9s", "-");
}

static void fprint_latency(FILE *fp, const struct dprof_diff_side *side,
			   const struct dprof_diff_row *row)
{
	if (side->has_latency && row && row->stats.lat_n)
		fprintf(fp, " %6.0f", (double)row->stats.lat_sum / row->stats.lat_n);
	else
		fprintf(fp, " %6s", "n/a");
}

static void dprof__print_diff(FILE *fp, const struct dprof_diff_side *a,
			      const struct dprof_diff_side *b, float limit)
{
	bool misses = a->has_levels && b->has_levels;
	struct dprof_diff_pair *pairs;
	size_t n = 0, i;

	pairs = calloc(a->nr + b->nr + 1, sizeof(*pairs));
	if (!pairs)
		return;
	for (i = 0; i < b->nr; i++) {
		pairs[n].b = &b->rows[i];
		pairs[n].a = dprof_diff_side__find(a, &b->rows[i]);
		n++;
	}
	for (i = 0; i < a->nr; i++) {
		if (dprof_diff_side__find(b, &a->rows[i]))
			continue;
		pairs[n++].a = &a->rows[i];
	}
	for (i = 0; i < n; i++)
		pairs[i].delta = dprof_diff__share(b, pairs[i].b, misses) -
				 dprof_diff__share(a, pairs[i].a, misses);
	qsort(pairs, n, sizeof(*pairs), diff_pair__cmp);

	fprintf(fp, "# perf dprof diff: A = %s, B = %s\n", a->path, b->path);
	fprintf(fp, "# shares are of each recording's %s; lifetime: mean alloc->free (us) of objects freed while recording\n",
		misses ? "sampled misses" : "access samples (no misses measured in both)");
	fprintf(fp, "#\n# %-28s %-30s %7s %7s %7s  %9s %9s  %6s %6s  %9s %9s\n",
		"Type", "Cache / kind", "A", "B", "Delta", "WS A", "WS B",
		"Lat A", "Lat B", "Life A", "Life B");
	for (i = 0; i < n; i++) {
		const struct dprof_diff_row *any = pairs[i].b ?: pairs[i].a;
		double sa = dprof_diff__share(a, pairs[i].a, misses);
		double sb = dprof_diff__share(b, pairs[i].b, misses);

		if (sa < limit && sb < limit)
			continue;
		fprintf(fp, " ");
		fprint_column(fp, any->type, 28);
		fprint_column(fp, any->desc, 30);
		fprintf(fp, " %6.2f%% %6.2f%%", sa, sb);
		color_fprintf(fp, pairs[i].delta > 0 ? PERF_COLOR_RED : PERF_COLOR_GREEN,
			      " %+6.2f", pairs[i].delta);
		fprintf(fp, " ");
		dprof__print_size(fp, pairs[i].a ? pairs[i].a->ws_bytes : 0);
		dprof__print_size(fp, pairs[i].b ? pairs[i].b->ws_bytes : 0);
		fprintf(fp, " ");
		fprint_latency(fp, a, pairs[i].a);
		fprint_latency(fp, b, pairs[i].b);
		fprintf(fp, " ");
		fprint_lifetime(fp, pairs[i].a);
		fprint_lifetime(fp, pairs[i].b);
		fprintf(fp, "\n");
	}
	free(pairs);
}

static int cmd_dprof_diff(int argc, const char **argv)
{
	struct dprof_diff_side sides[2] = {
		{ .path = "perf.data.old" }, { .path = "perf.data" },
	};
	float limit = 0;
	const char * const usage[] = {
		"perf dprof diff [<options>] [old.data new.data]",
		NULL
	};
	const struct option options[] = {
	OPT_STRING('k', "vmlinux", &symbol_conf.vmlinux_name, "file",
		   "vmlinux pathname (kernel code, symbols and types)"),
	OPT_CALLBACK(0, "percent-limit", &limit, "percent",
		     "hide types below this share in both recordings",
		     parse_percent_limit),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	int i, err = 0;

	argc = parse_options(argc, argv, options, usage, 0);
	if (argc == 2) {
		sides[0].path = argv[0];
		sides[1].path = argv[1];
	} else if (argc) {
		usage_with_options(usage, options);
	}

	for (i = 0; i < 2 && !err; i++) {
		struct perf_dprof dprof = {
			.input_name	= sides[i].path,
			.view		= "profile",
			.consume	= dprof__collect,
			.consume_arg	= &sides[i],
		};

		INIT_LIST_HEAD(&dprof.sinks);
		err = dprof__report(&dprof);
	}
	if (!err) {
		setup_pager();
		dprof__print_diff(stdout, &sides[0], &sides[1], limit);
	}
	dprof_diff_side__exit(&sides[0]);
	dprof_diff_side__exit(&sides[1]);
	return err;
}

/* ---------------------------------------------------------------------- */
/* record                                                                  */

struct dprof_record {
	const char	*period;
	const char	*freq;
	const char	*sampler;	/* auto, mem, soft */
	const char	*watch;		/* cache[:offset[/len]],... */
	unsigned int	watch_patience;
	unsigned int	watch_histories;	/* stop after that many, per item */
	int		nr_watch_events;	/* -e slab_watch/.../ added */
	bool		no_kmem;
};

/*
 * "-c" and "-F" given to perf record would also apply to the tracepoints,
 * which must record every event; so the period goes into the sampling
 * event's own terms.
 */
static char *dprof__event_period(const char *event, struct dprof_record *rec)
{
	const char *slash = strchr(event, '/');
	char *out;
	int ret;

	if (!rec->period && !rec->freq)
		return strdup(event);
	if (!slash)
		ret = asprintf(&out, "%s/%s=%s/", event,
			       rec->period ? "period" : "freq",
			       rec->period ?: rec->freq);
	else
		ret = asprintf(&out, "%.*s/%s=%s%s%s", (int)(slash - event), event,
			       rec->period ? "period" : "freq",
			       rec->period ?: rec->freq,
			       slash[1] == '/' ? "" : ",", slash + 1);
	return ret < 0 ? NULL : out;
}

#define DPROF_INTR_REGS \
	"ax,bx,cx,dx,si,di,bp,sp,ip,flags,r8,r9,r10,r11,r12,r13,r14,r15"

#define DPROF_WATCH_PMU		"slab_watch"
#define DPROF_WATCH_PATIENCE	64

/*
 * One --watch item, "cache[:offset[/len]]", as a slab_watch event: the
 * cache by its watch_id, reads and writes, and a fixed period of 1, which
 * also turns off perf record's default frequency for this event only.
 */
static char *dprof__watch_event(const char *item, size_t n,
				unsigned int patience)
{
	unsigned long offset = 0, len = 8;
	unsigned long long id, size;
	char *cache, *colon, *end, path[PATH_MAX];
	bool sweep = false;
	char *ev = NULL;

	cache = strndup(item, n);
	if (!cache)
		return NULL;
	colon = strchr(cache, ':');
	if (colon) {
		*colon = '\0';
		errno = 0;
		offset = strtoul(colon + 1, &end, 0);
		if (*end == '/')
			len = strtoul(end + 1, &end, 0);
		if (errno || *end || end == colon + 1 || offset > UINT_MAX ||
		    (len != 1 && len != 2 && len != 4 && len != 8)) {
			pr_err("dprof: bad --watch item '%.*s': want cache[:offset[/len]], len 1, 2, 4 or 8\n",
			       (int)n, item);
			goto out;
		}
	}
	if (!*cache || strchr(cache, '/')) {
		pr_err("dprof: bad --watch item '%.*s': no slab cache name\n", (int)n, item);
		goto out;
	}
	/* no offset: the whole object, 8 bytes further on for each object */
	if (!colon) {
		snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/format/sweep",
			 sysfs__mountpoint(), DPROF_WATCH_PMU);
		sweep = !access(path, F_OK);
		if (!sweep)
			pr_warning("dprof: --watch=%s: this kernel's slab_watch cannot sweep an object; watching bytes 0-7 only\n",
				   cache);
	}
	snprintf(path, sizeof(path), "%s/kernel/slab/%s", sysfs__mountpoint(), cache);
	if (access(path, F_OK)) {
		pr_err("dprof: --watch: no slab cache '%s' (%s missing; slab merging may hide it)\n",
		       cache, path);
		goto out;
	}
	snprintf(path, sizeof(path), "kernel/slab/%s/watch_id", cache);
	if (sysfs__read_ull(path, &id)) {
		pr_err("dprof: --watch: cannot read %s/%s for slab cache '%s'\n",
		       sysfs__mountpoint(), path, cache);
		goto out;
	}
	snprintf(path, sizeof(path), "kernel/slab/%s/object_size", cache);
	if (!sysfs__read_ull(path, &size) && offset + len > size) {
		pr_err("dprof: --watch: bytes %lu-%lu are beyond the %llu-byte objects of '%s'\n",
		       offset, offset + len - 1, size, cache);
		goto out;
	}
	if (asprintf(&ev, "%s/cache=%llu,offset=%lu,len=%lu,rw=1,patience=%u%s,period=1/",
		     DPROF_WATCH_PMU, id, offset, len, patience,
		     sweep ? ",sweep=1" : "") < 0)
		ev = NULL;
out:
	free(cache);
	return ev;
}

/*
 * Add "-e slab_watch/.../" for every --watch item.  Without the PMU only
 * one line is printed and the rest is recorded.
 */
static int dprof__watch_args(struct dprof_record *rec, const char **argv,
			     int *argc, char **owned, int *nr_owned)
{
	const char *item = rec->watch, *comma;
	char path[PATH_MAX];

	if (rec->watch_patience > 0xffff) {
		pr_err("dprof: --watch-patience is at most 65535\n");
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/" DPROF_WATCH_PMU,
		 sysfs__mountpoint());
	if (access(path, F_OK)) {
		pr_warning("dprof: no %s PMU: object histories need the kernel series in kernel-patches/ with CONFIG_SLAB_WATCH=y; recording without them\n",
			   DPROF_WATCH_PMU);
		return 0;
	}
	while (*item) {
		comma = strchrnul(item, ',');
		owned[*nr_owned] = dprof__watch_event(item, comma - item,
						      rec->watch_patience);
		if (!owned[*nr_owned])
			return -EINVAL;
		argv[(*argc)++] = "-e";
		argv[(*argc)++] = owned[(*nr_owned)++];
		rec->nr_watch_events++;
		item = *comma ? comma + 1 : comma;
	}
	return 0;
}

/*
 * Progress of the watches while perf record runs: a thread polls
 * /sys/kernel/slab/<cache>/watch_objects, the objects the cache's watches
 * have taken since boot (kernel-patches/0004), prints how many histories
 * were collected since recording began, and with --watch-histories stops
 * perf record through its control fifo once every cache has its share.
 * The count is the cache's: other watches of the same cache add to it.
 *
 * Recording begins when perf record enters its event loop: the watches
 * exist from the moment the events are created, but take objects whose
 * hits are dropped until the events are enabled, and perf record itself
 * opens a file for every process it synthesizes.  So the monitor sends a
 * "ping" on the control fifo and reads the counts when perf record
 * answers it on the ack fifo, which it does from its event loop, after
 * enabling the events.
 */
#define DPROF_MONITOR_TICK_MS	250
#define DPROF_MONITOR_PRINT	4	/* ticks between progress lines */

struct dprof_monitor_cache {
	char		*name;
	u64		base;		/* watch_objects when recording began */
	u64		now;
	u64		target;		/* 0: none */
};

struct dprof_monitor {
	struct dprof_monitor_cache *caches;
	int		nr_caches;
	bool		print;		/* stderr is a terminal, or -v */
	bool		tty;
	bool		stop;		/* at the target */
	bool		stopped;	/* "stop" was sent */
	int		wake[2];	/* pipe: the main thread ends the monitor */
	int		ctl_fd;		/* perf record's control fifo, or -1 */
	int		ack_fd;		/* and its ack fifo */
	char		dir[PATH_MAX];	/* private directory of the fifos */
	char		ctl[PATH_MAX + 8];
	char		ack[PATH_MAX + 8];
	char		arg[2 * PATH_MAX + 32];	/* --control=fifo:... */
	pthread_t	thread;
	bool		started;
};

static int dprof_monitor__read(const char *cache, u64 *val)
{
	char path[PATH_MAX];
	unsigned long long v;

	snprintf(path, sizeof(path), "kernel/slab/%s/watch_objects", cache);
	if (sysfs__read_ull(path, &v))
		return -1;
	*val = v;
	return 0;
}

/* Every cache of --watch once, with the target of all its items. */
static int dprof_monitor__add_caches(struct dprof_monitor *m,
				     struct dprof_record *rec)
{
	const char *item = rec->watch, *comma;
	int i;

	while (*item) {
		size_t n;
		char *name;

		comma = strchrnul(item, ',');
		n = strcspn(item, ",:");
		name = strndup(item, n);
		if (!name)
			return -ENOMEM;
		for (i = 0; i < m->nr_caches; i++) {
			if (!strcmp(m->caches[i].name, name))
				break;
		}
		if (i < m->nr_caches) {
			free(name);
		} else {
			struct dprof_monitor_cache *c;

			c = realloc(m->caches, (m->nr_caches + 1) * sizeof(*c));
			if (!c) {
				free(name);
				return -ENOMEM;
			}
			m->caches = c;
			c = &m->caches[m->nr_caches++];
			memset(c, 0, sizeof(*c));
			c->name = name;
		}
		m->caches[i].target += rec->watch_histories;
		item = *comma ? comma + 1 : comma;
	}
	return 0;
}

/* "dprof: watch filp: 12/200, dentry: 3/200 histories" */
static void dprof_monitor__print(struct dprof_monitor *m, const char *end)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	strbuf_addstr(&sb, "dprof: watch ");
	for (i = 0; i < m->nr_caches; i++) {
		struct dprof_monitor_cache *c = &m->caches[i];

		strbuf_addf(&sb, "%s%s: %" PRIu64, i ? ", " : "", c->name,
			    c->now - c->base);
		if (c->target)
			strbuf_addf(&sb, "/%" PRIu64, c->target);
	}
	strbuf_addstr(&sb, " histories");
	/* on a terminal, the next line (ours or perf record's) overwrites it */
	if (!end)
		end = m->tty ? "\033[K\r" : "\n";
	fprintf(stderr, "%s%s", sb.buf, end);
	fflush(stderr);
	strbuf_release(&sb);
}

/* The counts when perf record answers the ping; false: it ended first. */
static bool dprof_monitor__begin(struct dprof_monitor *m)
{
	struct pollfd pfd[2] = {
		{ .fd = m->wake[0], .events = POLLIN, },
		{ .fd = m->ack_fd, .events = POLLIN, },
	};
	char buf[64];
	int i;

	if (m->ctl_fd >= 0) {
		if (write(m->ctl_fd, EVLIST_CTL_CMD_PING_TAG "\n",
			  sizeof(EVLIST_CTL_CMD_PING_TAG)) < 0)
			return true;
		do {
			if (poll(pfd, 2, -1) < 0 && errno != EINTR)
				return false;
			if (pfd[0].revents)
				return false;
		} while (!pfd[1].revents);
		/* "ack\n"; the pipe holds nothing else */
		if (read(m->ack_fd, buf, sizeof(buf)) < 0)
			return true;
	}
	for (i = 0; i < m->nr_caches; i++) {
		struct dprof_monitor_cache *c = &m->caches[i];

		if (!dprof_monitor__read(c->name, &c->base))
			c->now = c->base;
	}
	return true;
}

static void *dprof_monitor__thread(void *arg)
{
	struct dprof_monitor *m = arg;
	struct pollfd pfd = { .fd = m->wake[0], .events = POLLIN, };
	unsigned int tick = 0;

	if (!dprof_monitor__begin(m))
		return NULL;
	while (poll(&pfd, 1, DPROF_MONITOR_TICK_MS) == 0 ||
	       (pfd.revents == 0 && errno == EINTR)) {
		bool met = true, changed = false;
		int i;

		for (i = 0; i < m->nr_caches; i++) {
			struct dprof_monitor_cache *c = &m->caches[i];
			u64 v;

			if (dprof_monitor__read(c->name, &v) || v < c->base)
				continue;
			changed |= v != c->now;
			c->now = v;
			if (c->now - c->base < c->target)
				met = false;
		}
		if (m->ctl_fd >= 0 && m->stop && met && !m->stopped) {
			if (m->print)
				dprof_monitor__print(m, ": target met, stopping\n");
			/* perf record reads it in its event loop, then ends */
			if (write(m->ctl_fd, EVLIST_CTL_CMD_STOP_TAG "\n",
				  sizeof(EVLIST_CTL_CMD_STOP_TAG)) < 0)
				pr_warning("dprof: cannot stop perf record: %m\n");
			m->stopped = true;
			continue;
		}
		if (m->print && !m->stopped && ++tick % DPROF_MONITOR_PRINT == 0 &&
		    (changed || m->tty))
			dprof_monitor__print(m, NULL);
	}
	return NULL;
}

static void dprof_monitor__exit(struct dprof_monitor *m)
{
	int i;

	if (m->started) {
		if (write(m->wake[1], "", 1) < 0)
			pthread_cancel(m->thread);
		pthread_join(m->thread, NULL);
		m->started = false;
	}
	if (m->wake[0] >= 0) {
		close(m->wake[0]);
		close(m->wake[1]);
	}
	if (m->ctl_fd >= 0)
		close(m->ctl_fd);
	if (m->ack_fd >= 0)
		close(m->ack_fd);
	if (m->ctl[0])
		unlink(m->ctl);
	if (m->ack[0])
		unlink(m->ack);
	if (m->dir[0])
		rmdir(m->dir);
	for (i = 0; i < m->nr_caches; i++)
		free(m->caches[i].name);
	free(m->caches);
}

/* A fifo, open read-write: opening does not wait for perf record's end. */
static int dprof_monitor__fifo(char *path)
{
	int fd;

	if (mkfifo(path, 0600)) {
		pr_err("dprof: cannot create the fifo %s: %m\n", path);
		path[0] = '\0';
		return -errno;
	}
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		pr_err("dprof: cannot open the fifo %s: %m\n", path);
		return -errno;
	}
	return fd;
}

/*
 * Set the monitor up before perf record creates the watch events: the
 * counts (read again when perf record answers the ping), and the control
 * and ack fifos, whose "--control=fifo:..." is returned in m->arg (empty:
 * none, the user gave --control).  Returns whether the monitor is
 * needed: < 0 on errors, 0 when it is not.
 */
static int dprof_monitor__init(struct dprof_monitor *m, struct dprof_record *rec,
			       int argc, const char **argv)
{
	int i, err;

	memset(m, 0, sizeof(*m));
	m->ctl_fd = -1;
	m->ack_fd = -1;
	m->wake[0] = -1;
	m->wake[1] = -1;
	m->tty = isatty(STDERR_FILENO);
	m->print = m->tty || verbose > 0;
	/* perf record's -q: no progress either (parsed later, by cmd_record) */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			m->print = false;
	}
	if (!rec->nr_watch_events || (!m->print && !rec->watch_histories))
		return 0;

	err = dprof_monitor__add_caches(m, rec);
	if (err)
		return err;
	for (i = 0; i < m->nr_caches; i++) {
		struct dprof_monitor_cache *c = &m->caches[i];

		if (dprof_monitor__read(c->name, &c->base)) {
			pr_warning("dprof: %s/kernel/slab/%s/watch_objects missing (kernel-patches/ older than this perf): no progress%s\n",
				   sysfs__mountpoint(), c->name,
				   rec->watch_histories ? ", recording until the end" : "");
			return 0;
		}
		c->now = c->base;
	}
	m->stop = rec->watch_histories > 0;

	for (i = 0; i < argc; i++) {
		if (strstarts(argv[i], "--control")) {
			if (m->stop)
				pr_warning("dprof: --watch-histories: --control given, so dprof does not stop the recording\n");
			m->stop = false;
			return 1;
		}
	}
	snprintf(m->dir, sizeof(m->dir), "%s/perf-dprof-XXXXXX",
		 getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(m->dir)) {
		pr_err("dprof: cannot create %s: %m\n", m->dir);
		m->dir[0] = '\0';
		return -errno;
	}
	snprintf(m->ctl, sizeof(m->ctl), "%s/ctl", m->dir);
	m->ctl_fd = dprof_monitor__fifo(m->ctl);
	if (m->ctl_fd < 0)
		return m->ctl_fd;
	snprintf(m->ack, sizeof(m->ack), "%s/ack", m->dir);
	m->ack_fd = dprof_monitor__fifo(m->ack);
	if (m->ack_fd < 0)
		return m->ack_fd;
	snprintf(m->arg, sizeof(m->arg), "--control=fifo:%s,%s", m->ctl, m->ack);
	return 1;
}

/* With every signal blocked: they are perf record's to take. */
static int dprof_monitor__start(struct dprof_monitor *m)
{
	sigset_t all, old;
	int err;

	if (pipe2(m->wake, O_CLOEXEC))
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&m->thread, NULL, dprof_monitor__thread, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	m->started = true;
	return 0;
}

static int cmd_dprof_record(int argc, const char **argv)
{
	struct dprof_record rec = {
		.sampler	= "auto",
		.watch_patience	= DPROF_WATCH_PATIENCE,
	};
	const char * const usage[] = {
		"perf dprof record [<options>] [<command>]",
		"perf dprof record [<options>] -- <command> [<options>]",
		NULL
	};
	const struct option options[] = {
	OPT_STRING('c', "count", &rec.period, "n",
		   "access sampling period (events, or ns for cpu-clock)"),
	OPT_STRING('F', "freq", &rec.freq, "n", "access sampling frequency"),
	OPT_STRING(0, "sampler", &rec.sampler, "auto|mem|soft",
		   "access sampler: memory PMU, or cpu-clock + registers"),
	OPT_BOOLEAN(0, "no-kmem", &rec.no_kmem,
		    "do not record the slab address set"),
	OPT_STRING(0, "watch", &rec.watch, "cache[:offset[/len]],...",
		   "follow objects of these slab caches (slab_watch PMU)"),
	OPT_UINTEGER(0, "watch-patience", &rec.watch_patience,
		     "give up a watched object after n more allocations (0: never)"),
	OPT_UINTEGER(0, "watch-histories", &rec.watch_histories,
		     "stop once each --watch item has followed n objects"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	const char **rec_argv;
	char **owned;
	int rec_argc, i = 0, j, nr_owned = 0, ret = -1;
	struct dprof_monitor monitor = {
		.ctl_fd = -1, .ack_fd = -1, .wake = { -1, -1 },
	};
	struct perf_pmu *pmu = NULL;
	bool use_mem = false, monitor_on = false;

	/* unknown options are perf record's; "--" stays to end them */
	argc = parse_options(argc, argv, options, usage,
			     PARSE_OPT_KEEP_UNKNOWN | PARSE_OPT_KEEP_DASHDASH);
	if (rec.period && rec.freq) {
		pr_err("dprof: use either -c or -F\n");
		return -EINVAL;
	}
	if (rec.watch_histories && !rec.watch) {
		pr_err("dprof: --watch-histories needs --watch\n");
		return -EINVAL;
	}

	if (strcmp(rec.sampler, "soft")) {
		pmu = perf_mem_events_find_pmu();
		use_mem = pmu && !perf_pmu__mem_events_init();
		if (!use_mem && !strcmp(rec.sampler, "mem")) {
			pr_err("dprof: no memory-sampling PMU (AMD IBS op, Intel PEBS, Arm SPE) here\n");
			return -ENODEV;
		}
	}

	rec_argc = argc + 32 + (rec.watch ? 2 * strlen(rec.watch) : 0) +
		   9 * (pmu ? perf_pmu__mem_events_num_mem_pmus(pmu) + 1 : 1);
	rec_argv = calloc(rec_argc + 1, sizeof(char *));
	owned = calloc(rec_argc + 1, sizeof(char *));
	if (!rec_argv || !owned)
		goto out;

	rec_argv[i++] = "record";
	rec_argv[i++] = "--sample-cpu";
	rec_argv[i++] = "-T";
	/*
	 * Every lost alloc/free leaves a wrong object in the address set:
	 * a larger buffer than perf's 512 KiB per CPU (-m given later wins).
	 */
	rec_argv[i++] = "-m";
	rec_argv[i++] = "8M";

	if (use_mem) {
		struct perf_mem_event *e;
		int start;

		e = perf_pmu__mem_events_ptr(pmu, PERF_MEM_EVENTS__LOAD_STORE);
		if (e && e->tag) {
			perf_mem_record[PERF_MEM_EVENTS__LOAD_STORE] = true;
		} else {
			perf_mem_record[PERF_MEM_EVENTS__LOAD] = true;
			perf_mem_record[PERF_MEM_EVENTS__STORE] = true;
		}
		rec_argv[i++] = "-W";
		rec_argv[i++] = "-d";
		rec_argv[i++] = "--phys-data";
		start = i;
		if (perf_mem_events__record_args(rec_argv, &i))
			goto out;
		for (j = start; j < i; j++) {
			if (!strcmp(rec_argv[j - 1], "-e")) {
				owned[nr_owned] = dprof__event_period(rec_argv[j], &rec);
				if (!owned[nr_owned])
					goto out;
				rec_argv[j] = owned[nr_owned++];
			}
		}
	} else {
		if (strcmp(rec.sampler, "soft"))
			pr_warning("dprof: no IBS/PEBS/SPE: sampling cpu-clock + registers, no misses or latency\n");
		rec_argv[i++] = "-e";
		owned[nr_owned] = dprof__event_period("cpu-clock", &rec);
		if (!owned[nr_owned])
			goto out;
		rec_argv[i++] = owned[nr_owned++];
		rec_argv[i++] = "--intr-regs=" DPROF_INTR_REGS;
		/* data mmaps, so that user static data resolves */
		rec_argv[i++] = "-d";
	}

	if (rec.watch && dprof__watch_args(&rec, rec_argv, &i, owned, &nr_owned))
		goto out;

	if (!rec.no_kmem) {
		size_t t;
		bool ok = true;

		/* tracefs may just not be mounted yet */
		if (!tracefs__configured() && !tracefs__mount())
			pr_debug("dprof: cannot mount tracefs\n");
		for (t = 0; t < ARRAY_SIZE(dprof_kmem_tracepoints); t++)
			ok &= is_valid_tracepoint(dprof_kmem_tracepoints[t]);
		if (ok) {
			for (t = 0; t < ARRAY_SIZE(dprof_kmem_tracepoints); t++) {
				rec_argv[i++] = "-e";
				rec_argv[i++] = dprof_kmem_tracepoints[t];
			}
		} else {
			pr_warning("dprof: no kmem tracepoints (need tracefs, and CAP_PERFMON or perf_event_paranoid <= -1): slab objects stay unresolved\n");
		}
	}

	if (rec.watch) {
		ret = dprof_monitor__init(&monitor, &rec, argc, argv);
		if (ret < 0)
			goto out;
		monitor_on = ret > 0;
		ret = -1;
		if (monitor.arg[0])
			rec_argv[i++] = monitor.arg;
	}

	for (j = 0; j < argc; j++)
		rec_argv[i++] = argv[j];

	if (verbose > 0) {
		pr_debug("calling: perf");
		for (j = 0; j < i; j++)
			pr_debug(" %s", rec_argv[j]);
		pr_debug("\n");
	}
	if (monitor_on && dprof_monitor__start(&monitor))
		pr_warning("dprof: cannot start the progress thread: recording without it\n");
	ret = cmd_record(i, rec_argv);
out:
	dprof_monitor__exit(&monitor);
	for (j = 0; j < nr_owned; j++)
		free(owned[j]);
	free(owned);
	free(rec_argv);
	return ret;
}

/* ---------------------------------------------------------------------- */

struct dprof_cmd {
	const char	*name;
	const char	*summary;
	int		(*fn)(int argc, const char **argv);
};

static const struct dprof_cmd dprof_cmds[] = {
	{ "record", "record access samples and the slab address set", cmd_dprof_record },
	{ "report", "show the data profile", cmd_dprof_report },
	{ "diff", "compare the data profiles of two recordings", cmd_dprof_diff },
	{ .name = NULL, },
};

int cmd_dprof(int argc, const char **argv)
{
	const char * const subcommands[] = { "record", "report", "diff", NULL };
	const char *usage[] = {
		NULL,
		NULL
	};
	const struct option options[] = {
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	const struct dprof_cmd *cmd;

	argc = parse_options_subcommand(argc, argv, options, subcommands, usage,
					PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_with_options(usage, options);

	for (cmd = dprof_cmds; cmd->name; cmd++) {
		if (!strcmp(argv[0], cmd->name))
			return cmd->fn(argc, argv);
	}
	pr_err("dprof: unknown command '%s'\n", argv[0]);
	usage_with_options(usage, options);
	return -1;
}
