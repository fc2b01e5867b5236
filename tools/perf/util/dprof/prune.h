/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_PRUNE_H
#define __PERF_DPROF_PRUNE_H

/*
 * The kmem record-end pass: a recording's kmem tracepoint events kept only
 * for the slab objects some access sample's data address fell in during
 * their life; the others counted, per cache and call site, in a header
 * feature section of their own (DPROF_KMEM_FEAT), which perf's readers
 * skip.  The software sampler's samples are written decoded (decoded.h):
 * the data address in place of the registers it was decoded from.  The
 * file is rewritten, as perf inject does, and stays a perf.data that perf
 * report and perf script read.
 */
#include <linux/types.h>
#include <stdbool.h>

struct evsel;
struct perf_sample;
struct tep_format_field;
struct dprof_touches;

/* The header feature bit: below the heap log's (DPROF_HEAPLOG_FEAT, 255) */
#define DPROF_KMEM_FEAT		254
#define DPROF_KMEM_FEAT_MAGIC	"DPKMEM01"

/* feature flags */
#define DPROF_KMEM_ALLOC_NAMED	0x1	/* an alloc left out named its cache */
#define DPROF_KMEM_MARKS	0x2	/* marks follow the sums */

/**
 * struct dprof_kmem_feat - the section's header, then @nr_sums sums
 * @dropped_events: kmem events left out
 * @dropped_objects: ... the objects (lives) they were
 * @kept_objects: lives kept: a sample's address fell in them, or one of
 *	the kernel samples with no code bytes fell in their time
 * @samples: access samples the objects were chosen by
 * @kernel_undecided: of them, kernel samples with no code bytes then
 *
 * With DPROF_KMEM_MARKS in @flags the sums are followed by a u64, the
 * number of marks, and the marks (struct dprof_kmem_mark).
 */
struct dprof_kmem_feat {
	char	magic[8];
	u32	version;
	u32	flags;
	u64	nr_sums;
	u64	dropped_events;
	u64	dropped_objects;
	u64	kept_objects;
	u64	samples;
	u64	kernel_undecided;
};

/* sum flags */
#define DPROF_KMEM_SUM_KMALLOC	0x1	/* a kmalloc class, else a slab cache's */
#define DPROF_KMEM_SUM_FIRST	0x2	/* the class's first start was left out */
/*
 * no class: @frees of no object the recording knew, by task, in a
 * recording without the slab snapshot (where they are counts only)
 */
#define DPROF_KMEM_SUM_UNKNOWN	0x4

/*
 * struct dprof_kmem_mark - an allocation event kept only for its place: its
 * object was left out, but the objects it overlapped (their frees unseen)
 * were kept, and end there.  The replay evicts them and adds nothing: the
 * allocation itself is in its class's sum.
 */
struct dprof_kmem_mark {
	u64	time;
	u64	ptr;
};

#define DPROF_KMEM_NAME_LEN	40

/*
 * The allocations of each slab cache while the kernel chose lifetimes
 * (kernel-patches/ 0012's /sys/kernel/debug/slab/sample_allocs, read before
 * and after recording), which record.c adds to the file: a cache the
 * section does not list allocated nothing.  They bound the objects of a
 * cache few or none of whose allocations were chosen.  The section is a
 * struct dprof_slab_allocs_feat, then @nr struct dprof_slab_allocs.
 */
#define DPROF_SLAB_ALLOCS_FEAT		252
#define DPROF_SLAB_ALLOCS_FEAT_MAGIC	"DPSALL01"

struct dprof_slab_allocs_feat {
	char	magic[8];
	u32	version;
	u32	nr;
};

struct dprof_slab_allocs {
	u64	allocs;
	char	name[DPROF_KMEM_NAME_LEN];
};

/**
 * struct dprof_kmem_sum - the events left out of one class, in one task
 * @call_site, @bytes_alloc: the class (the replay's key)
 * @first_req: the bytes_req of the class's first allocation (its object
 *	size), with DPROF_KMEM_SUM_FIRST
 * @pid, @tid: the task of the events (followed by the recording or not)
 * @allocs, @gets: allocations and mempool gets left out
 * @frees, @puts, @rcus: frees, mempool puts, kfree_rcu() calls left out
 * @life_sum, @life_n: the lifetimes (ns) they ended
 * @over_live: live objects left out that an allocation of the class in
 *	the task overlapped (their frees unseen): the replay's count of them
 * @name: the cache's name, if an event named it
 */
struct dprof_kmem_sum {
	u64	call_site;
	u64	bytes_alloc;
	u64	first_req;
	u32	pid, tid;
	u32	flags;
	u32	over_live;
	u64	allocs, gets;
	u64	frees, puts, rcus;
	u64	life_sum, life_n;
	char	name[DPROF_KMEM_NAME_LEN];
};

/**
 * struct dprof_kmem_pruned - what a prune did, for its line
 * @events, @objects: kmem events and objects (lives) seen
 * @dropped_events, @dropped_objects: ... left out
 * @size_before, @size_after: the file's bytes
 * @kernel_undecided: kernel samples with no code bytes (see keep.h)
 * @marks: allocations of objects left out kept as marks (struct
 *	dprof_kmem_mark): the kept objects they overlapped end there
 * @decoded: the sampler's samples written decoded (decoded.h)
 * @decoded_regs: ... of them, those that kept their registers
 * @why_not: NULL, or why the file was left as it was
 * @kmem_why_not: NULL, or why its kmem events were all kept
 * @perf_share: in a recording with an event per slab object and the slab
 *	snapshot (record -a, where --kmem-events=map is open to it), the
 *	share of its access samples in perf's own kernel code; else 0
 */
struct dprof_kmem_pruned {
	u64		events, objects;
	double		perf_share;
	u64		dropped_events, dropped_objects;
	u64		size_before, size_after;
	u64		kernel_undecided;
	u64		marks;
	u64		decoded, decoded_regs;
	const char	*why_not;
	const char	*kmem_why_not;
};

/*
 * With this share of the samples in perf's own kernel code, record -a
 * says that the slab map (--kmem-events=map) costs the workload less:
 * each kmem event is a perf sample the kernel writes.  (Redis over
 * loopback in the test guest: 18% with an event per object, 2.3% with
 * --kmem-events=map, 0.05% under perf record -a -e cpu-clock.)
 */
#define DPROF_KMEM_BUSY_SHARE	0.05

/*
 * Prune the kmem events of the recording @path, whose samples' addresses
 * are @t (NULL: decode them here, and leave them in @read for the caller
 * to use and free, when it is not NULL).  Return: 0 (see @out->why_not),
 * or a negative errno.
 */
int dprof_kmem__prune(const char *path, const struct dprof_touches *t,
		      struct dprof_touches *read, struct dprof_kmem_pruned *out);
/* ... and say what it did in one line: for perf dprof record's end */
int dprof_kmem__prune_say(const char *path, struct dprof_touches *read);

/* A string field of a kmem record: NULL when there is none, or it is cut. */
const char *dprof_kmem__strval(struct tep_format_field *field, struct perf_sample *sample);

#endif /* __PERF_DPROF_PRUNE_H */
