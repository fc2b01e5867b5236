/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_OBJ_H
#define __PERF_DPROF_REPLAY_OBJ_H

/*
 * The replay's state (struct dprof_replay), and the few services every
 * event source (replay-heap.c, replay-kmem.c, ...) calls down into
 * (replay-obj.c): an object's start and end handed to the sinks, an
 * access counted in its class.  Below replay.c and the sources: it calls
 * neither, and they reach the replay only through this header.
 */

#include <stdbool.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/types.h>
#include "util/auxtrace.h"
#include "util/data.h"
#include "util/tool.h"
#include "addrset.h"
#include "decoded.h"
#include "delivery.h"
#include "datasrc.h"
#include "profile.h"
#include "resolve.h"

struct dprof_access;
struct dprof_addrset;
struct dprof_class;
struct dprof_obj;
struct dprof_replay;
struct evsel;
struct machine;
struct perf_sample;
struct thread;
struct dprof_heaplog;
struct dprof_watch;
struct hashmap;
struct tep_format_field;
struct perf_session;

/**
 * struct dprof_lifetimes - how whole the address set saw its objects' lives
 * @ends: frees, puts (mempool-like caches) and kfree_rcu() calls
 * @starts: allocations, and gets from mempool-like caches
 * @free_earlier: ends of objects allocated before recording (snapshot)
 * @free_unknown: ends of objects no event and no snapshot explains
 * @over_live: objects an allocation found still live: their end unseen
 * @over_sampled: ... of them, objects an access sample had resolved to
 */
struct dprof_lifetimes {
	u64	ends;
	u64	starts;
	u64	free_earlier;
	u64	free_unknown;
	u64	over_live;
	u64	over_sampled;
};

/**
 * struct dprof_recording - what a recording held, for the report's headers
 * @has_alloc: kmem alloc tracepoints: the address set
 * @has_soft: access samples of the software sampler (cpu-clock + registers)
 * @has_mem_pmu: access samples of a memory PMU (data address)
 * @has_data_src: ... with a data source: measured misses
 * @alloc_has_name: the alloc events name the cache (kernel-patches/)
 * @has_snapshot: the kmem:slab_snapshot tracepoint was recorded
 * @has_slab_events: ... kmem:slab_new and kmem:slab_free too
 * @kmem_map: --kmem-events=map: slab caches' objects from the slab map, no events
 * @nr_free_map: frees (kfree) of such objects: left to the map
 * @has_slab_sample: with the map, the kernel traced the lives of one slab
 *		     cache allocation in @slab_sample (kmem:slab_sample_alloc)
 * @nr_sample_allocs: those chosen allocations; @nr_sample_frees: their frees
 * @map_allocs_counted: the kernel counted each cache's allocations while
 *			recording (DPROF_SLAB_ALLOCS_FEAT): @map_allocs of the
 *			caches the map follows
 * @nr_snapshot_slabs: slabs the snapshot described (kernel-patches/)
 * @nr_new_slabs: slabs made during the recording
 * @nr_freed_slabs: slabs given back to the page allocator meanwhile
 * @nr_allocs: allocations replayed
 * @nr_frees: frees replayed
 * @nr_free_earlier: ... of objects allocated before recording (snapshot)
 * @nr_free_unknown: ... of objects no event and no snapshot explains
 * @nr_mempool_put: objects put aside by mempool-like caches
 * @nr_mempool_get: ... and taken back into use
 * @nr_mempool_unknown: ... taken back, of no known object or size
 * @nr_kfree_rcu: objects handed to kfree_rcu(): their lifetime ends there
 * @tasks: the lifetimes of the tasks the recording follows (all of them
 *	   with -a): ends and starts in those tasks; objects found live
 *	   by their allocations, or that a sample resolved to
 * @nr_kmem_others: address set events of tasks it does not follow: one
 *		    recorded on every CPU for a workload, -p or -t
 * @nr_lost: events lost while recording
 * @nr_implausible: events skipped: objects or watch hits past the top of
 *                  the address space, or bigger than any allocation
 * @nr_off_target_hits: watch hits dropped: the access, decoded with the
 *                      registers at the trap, misses the watched bytes
 *                      (QEMU's TCG before 8.1 reports such false hits)
 * @nr_damaged: records skipped by perf's reader: their sample did not
 *              parse, or their type or event id is unknown
 * @unreadable_offset: file offset from which the data could not be read (a
 *                     damaged record size), or 0
 * @data_size_cut: the data size the file header claims when the file was cut
 *                 in its data section, else 0; @data_offset, @data_size:
 *                 the data section and the bytes of it the file holds
 * @nr_no_format: tracepoint records (allocations, frees, heap) of a cut
 *                file skipped: their formats were in the lost features
 * @bad_arch: the header's arch string, escaped, when perf knows no such
 *            arch (a damaged header): no disassembly, no operand typing
 * @ldlat_pmu: the memory PMU: "ibs", "pebs" or "spe", NULL if unknown
 * @ldlat: its load latency threshold in cycles (PEBS ldlat, SPE
 *	   min_latency; an IBS with an ldlat filter), 0 if none
 * @mem: the memory PMU's data sources, decoded
 * @watches: the slab_watch events (object histories), or NULL
 * @has_heap: the user-space allocator's calls: the heap address set
 * @heap_recorder: ... from the recorder preloaded in the workload (its log)
 * @heap_log_damaged: that log is damaged: only what was before the damage
 * @heap_procs: processes that loaded the recorder
 * @heap_notes: the recorder's lines for the header (an allocator it could not hook)
 * @heap_lost: allocator calls the recorder had no room for
 * @heap_dropped: objects left out at record time: no sample in them
 * @heap_kept_by: the access samples whose data addresses chose the objects
 *		  kept (0: an older recording, kept by the samples' times)
 * @heap_kernel_undecided: of them, kernel samples with no code bytes then
 * @heap_stale_ips: stack words the recorder took for return addresses, not
 *		    after a call to the function of the frame below
 * @heap_frames: ... and those that are (above the allocator's caller)
 * @heap_cfi_frames: ... of them, placed by their binaries' CFI
 * @nr_recorder_samples: samples in the recorder: left out of the shares
 * @nr_perf_samples: ... in the kernel code of perf's kmem events, their
 *	writing and their filters: left out too
 * @nr_trap_samples: samples in the kernel's handling of the allocator's
 *		     uprobes: left out of the shares
 * @nr_heap_allocs: user allocations replayed, and those left out
 * @nr_heap_frees: user frees of a live object, and of those left out
 * @nr_heap_unknown_free: user frees of a pointer not in the set (allocated
 *                        before recording began, or under --heap-min-size)
 * @kmem_dropped: slab objects left out at record time: no sample in them
 * @kmem_kept_by: the access samples whose data addresses chose those kept
 * @kmem_kernel_undecided: of them, kernel samples with no code bytes then
 */
struct dprof_recording {
	bool			has_alloc;
	bool			has_soft;
	bool			has_mem_pmu;
	bool			has_data_src;
	bool			alloc_has_name;
	bool			has_snapshot;
	bool			has_slab_events;
	bool			kmem_map;
	u64			nr_free_map;
	bool			has_slab_sample;
	u64			slab_sample;
	u64			nr_sample_allocs;
	u64			nr_sample_frees;
	bool			map_allocs_counted;
	u64			map_allocs;
	u64			nr_snapshot_slabs;
	u64			nr_new_slabs;
	u64			nr_freed_slabs;
	u64			nr_allocs;
	u64			nr_frees;
	u64			nr_free_earlier;
	u64			nr_free_unknown;
	u64			nr_mempool_put;
	u64			nr_mempool_get;
	u64			nr_mempool_unknown;
	u64			nr_kfree_rcu;
	struct dprof_lifetimes	tasks;
	u64			nr_kmem_others;
	u64			nr_lost;
	u64			nr_implausible;
	u64			nr_off_target_hits;
	u64			nr_damaged;
	u64			unreadable_offset;
	u64			data_size_cut;
	u64			data_offset;
	u64			data_size;
	u64			nr_no_format;
	char			bad_arch[64];
	const char		*ldlat_pmu;
	unsigned int		ldlat;
	struct dprof_mem_stats	mem;
	struct dprof_watch	*watches;
	bool			has_heap;
	bool			heap_recorder;
	bool			heap_log_damaged;
	u64			heap_procs;
	char			heap_notes[2048];
	u64			heap_lost;
	u64			heap_dropped;
	u64			heap_kept_by;
	u64			heap_kernel_undecided;
	u64			heap_stale_ips;
	u64			heap_frames;
	u64			heap_cfi_frames;
	u64			nr_recorder_samples;
	u64			nr_perf_samples;
	u64			nr_trap_samples;
	u64			nr_heap_allocs;
	u64			nr_heap_frees;
	u64			nr_heap_unknown_free;
	u64			kmem_dropped;
	/* allocations over a live object left out when recorded (prune.h) */
	u64			kmem_over_dropped;
	u64			kmem_kept_by;
	u64			kmem_kernel_undecided;
};

/* The fields of a kmem tracepoint, found once rather than by name per event. */
struct dprof_kmem_fields {
	struct evsel			*evsel;
	struct tep_format_field		*ptr;
	struct tep_format_field		*call_site;
	struct tep_format_field		*bytes_req;
	struct tep_format_field		*bytes_alloc;
	struct tep_format_field		*name;
};

/* alloc, kmalloc, free, kfree, mempool put and get, kfree_rcu */
#define DPROF_KMEM_EVENTS	9

struct dprof_symload;
struct dprof_delivery;
struct dprof_kmem_mark;

struct dprof_replay {
	struct perf_tool	tool;
	struct perf_data	data;
	struct perf_session	*session;
	/* AUX area samplers (Arm SPE): memory samples only, as perf mem asks */
	struct itrace_synth_opts itrace;
	struct dprof_addrset	as;
	/*
	 * The slab map, one entry per slab: the slabs the kernel described
	 * when recording started, and those it made since: where the objects
	 * allocated earlier are (no_snapshot: not used, for comparison).
	 * @freed: every address freed since.
	 */
	struct dprof_addrset	slabs;
	struct hashmap		*freed;
	/* objects a mempool-like cache holds: out of use (kmem:mempool_put) */
	struct hashmap		*parked;
	/* allocations kept for their place only, by time (prune.h) */
	struct dprof_kmem_mark	*kmem_marks;
	size_t			nr_kmem_marks;
	/* objects freed during the recording, as they were (priv: class) */
	struct dprof_addrset	dead;
	/* @as and @dead's objects, which go from one to the other */
	struct dprof_obj_pool	pool;
	/* the events' delivery, in a thread of its own (NULL: perf's reader's) */
	struct dprof_delivery	*delivery;
	enum dprof_delivery_mode delivery_mode;
	bool			no_snapshot;
	bool			decoded;	/* samples written decoded (decoded.h) */
	struct dprof_still	still;		/* ... else, which samples are still */
	u64			nr_bad_decoded;	/* ... with a damaged word */
	struct dprof_profile	prof;
	struct dprof_resolver	res;
	struct list_head	sinks;
	struct evsel		*access_evsel;	/* the access sampler */
	struct dprof_kmem_fields kmem[DPROF_KMEM_EVENTS];
	struct dprof_recording	rec;
	struct hashmap		*heaps;		/* pid -> struct dprof_addrset * */
	/* user code address -> struct dprof_user_func: heap histories' steps */
	struct hashmap		*user_funcs;
	bool			sampled_hit_sinks;	/* a sink takes sampled_hit */
	struct hashmap		*heap_calls;	/* tid -> struct dprof_heap_call * */
	struct hashmap		*uprobe_ips;	/* pid -> hashmap of where probes hit */
	struct dprof_heaplog	*heaplog;	/* the allocator recorder's log */
	/* allocations' callchains: key -> struct dprof_heap_chain * */
	struct hashmap		*heap_chains;
	struct dprof_symload	*symload;	/* NULL: no first pass */
	bool			ready;		/* private: open succeeded */
};

/* The handler of a source's tracepoint events (evsel->handler). */
typedef int (*dprof_tp_handler)(struct dprof_replay *r, struct evsel *evsel,
				struct perf_sample *sample,
				struct machine *machine);

/*
 * No allocation the tracepoints see is larger (kmalloc's page allocator
 * limit is 4 MiB with 4 KiB pages, 512 MiB with 64 KiB ones): a bigger
 * object is a damaged record, and would cost a loop per cache line.
 */
#define DPROF_OBJ_SIZE_MAX		BIT_ULL(30)

/* Bytes [@addr, @addr + @len) a recording cannot hold: damaged. */
bool dprof_range__implausible(u64 addr, u64 len);

/* @obj entered its address set (@alloc), or is about to leave it. */
int dprof_replay__sinks_obj(struct dprof_replay *r, struct dprof_obj *obj,
			    u64 time, u32 cpu, bool alloc);

/* A new object of @cls in @as: the sinks see its allocation. */
int dprof_replay__start_obj(struct dprof_replay *r, struct dprof_addrset *as,
			    struct dprof_class *cls, u64 ptr, u64 size,
			    u64 time, u32 cpu);

/* Count a resolved access in its class and site, and hand it to the sinks. */
int dprof_replay__count_access(struct dprof_replay *r, struct dprof_class *cls,
			       struct thread *thread, u64 offset,
			       struct dprof_access *acc);

/*
 * A kmem class is (call site, size): a call site allocates from one cache.
 * The size goes in the top bits, which are all ones for a kernel text
 * address, so the key stays unique and gives the call site back.
 */
#define DPROF_SITE_SIZE_SHIFT	48

static inline u64 dprof_kmem_key(u64 call_site, u64 bytes_alloc)
{
	return call_site ^ (bytes_alloc << DPROF_SITE_SIZE_SHIFT);
}

/* The allocation call site of a slab object's class (its kmem key), or 0. */
u64 dprof_obj__site(const struct dprof_obj *obj);

/* @obj is touched by @cpu: it bounced if that is not its allocating CPU. */
void dprof_obj__sampled(struct dprof_obj *obj);
void dprof_obj__mark_bounce(struct dprof_obj *obj, u32 cpu);

#endif /* __PERF_DPROF_REPLAY_OBJ_H */
