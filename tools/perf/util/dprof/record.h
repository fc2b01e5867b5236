/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_RECORD_H
#define __PERF_DPROF_RECORD_H

#include <stdbool.h>
#include "heapprobe.h"
#include "recorder.h"
#include "watch-monitor.h"

struct dprof_watch_spec;

/*
 * The slab map (kernel-patches/): with this tracepoint enabled, a write to
 * the debugfs file makes the kernel describe every slab, so that objects
 * allocated before recording resolve too; the others follow the slabs
 * made and given back while recording.
 */
#define DPROF_SNAPSHOT_TRACEPOINT	"kmem:slab_snapshot"
#define DPROF_SNAPSHOT_FILE		"slab/snapshot"	/* under debugfs */
#define DPROF_SLAB_NEW_TRACEPOINT	"kmem:slab_new"
#define DPROF_SLAB_FREE_TRACEPOINT	"kmem:slab_free"
/* Objects out of use in, and back from, mempool-like caches (kernel-patches/) */
#define DPROF_MEMPOOL_PUT_TRACEPOINT	"kmem:mempool_put"
#define DPROF_MEMPOOL_GET_TRACEPOINT	"kmem:mempool_get"
/* Objects handed to kfree_rcu(): dead at the call, freed after a grace period */
#define DPROF_KFREE_RCU_TRACEPOINT	"kmem:kfree_rcu"
/* the lives of one slab allocation in N (kernel-patches/ 0012) */
#define DPROF_SLAB_SAMPLE_ALLOC_TRACEPOINT	"kmem:slab_sample_alloc"
#define DPROF_SLAB_SAMPLE_FREE_TRACEPOINT	"kmem:slab_sample_free"
#define DPROF_SLAB_SAMPLE_INTERVAL_FILE	"slab/sample_interval"
#define DPROF_SLAB_SAMPLE_DROPPED_FILE	"slab/sample_dropped"
/* ... and each cache's allocations while sampled: "count name" lines */
#define DPROF_SLAB_SAMPLE_ALLOCS_FILE	"slab/sample_allocs"

/**
 * struct dprof_record_opts - what perf dprof record was asked for
 * @period: -c: the access sampler's period
 * @freq: -F: ... or its frequency
 * @sampler: "auto", "mem" (a memory PMU) or "soft" (cpu-clock + registers)
 * @watch: --watch: "cache[:offset[/len]],..." to follow with slab_watch
 * @watch_patience: give a watched object up after that many allocations
 * @watch_histories: stop once each --watch item followed that many objects
 * @no_kmem: do not record the slab address set
 * @kmem_per_task: record it for the target's tasks only, not on every CPU
 * @no_prune: keep every kmem event (not only the objects samples touched),
 *	and the software sampler's registers
 * @kmem_mode: --kmem-events: "map" (slab caches from the slab map, kmalloc per
 *	       object), "objects" (every object's events, the default)
 * @kmem_sample: --kmem-sample: with the map, the lives of one slab cache
 *		 allocation in that many (kernel-patches/ 0012); 0: none
 * @no_heap: do not record the user-space allocator (recorder or uprobes)
 * @heap_min_size: record allocations of at least this many bytes
 * @heap_uprobes: uprobes on the allocator, also for a launched workload
 * @heap_allocs: --heap-alloc: "ALLOC[,FREE[,REALLOC]]" each, ';' between
 * @ldlat: --ldlat: load latency threshold (Intel ldlat, Arm SPE min_latency)
 * @l3missonly: --l3missonly: AMD IBS samples only ops that missed the L3
 */
struct dprof_record_opts {
	const char	*period;
	const char	*freq;
	const char	*sampler;
	unsigned int	ldlat;
	bool		l3missonly;
	const char	*watch;
	unsigned int	watch_patience;
	unsigned int	watch_histories;
	bool		no_kmem;
	bool		kmem_per_task;
	bool		no_prune;
	const char	*kmem_mode;
	unsigned int	kmem_sample;
	bool		no_heap;
	unsigned int	heap_min_size;
	bool		heap_uprobes;
	char		*heap_allocs;
};

struct option;
/* --heap-alloc=ALLOC[,FREE[,REALLOC]]: appended to the char * at opt->value */
int dprof_record__opt_heap_alloc(const struct option *opt, const char *str, int unset);

#define DPROF_WATCH_PATIENCE	64	/* the default */
#define DPROF_KMEM_SAMPLE	64	/* the default */
#define DPROF_LDLAT		30	/* perf mem's default load latency */

enum dprof_mem_kind {
	DPROF_MEM_NONE,
	DPROF_MEM_IBS,		/* AMD IBS op */
	DPROF_MEM_PEBS,		/* Intel PEBS load latency + precise stores */
	DPROF_MEM_SPE,		/* Arm SPE */
};

#define DPROF_MEM_PMUS_MAX	4

/**
 * struct dprof_mem_pmu - one memory-sampling PMU, as sysfs describes it
 * @name: "ibs_op", "cpu", "cpu_core", "cpu_atom", "arm_spe_0"
 * @aux: Intel: loads need the mem-loads-aux group leader (Sapphire Rapids on)
 * @stores: Intel: has mem-stores
 * @l3missonly: AMD: format/l3missonly
 * @ldlat: a latency threshold term (Intel ldlat, SPE min_latency, IBS ldlat)
 */
struct dprof_mem_pmu {
	char	name[64];
	bool	aux;
	bool	stores;
	bool	l3missonly;
	bool	ldlat;
};

/**
 * struct dprof_pmu_desc - what record needs to know of the machine
 * @kind: which memory PMU, if any
 * @pmus: its PMUs: one, or a hybrid part's cpu_core and cpu_atom
 * @vendor: /proc/cpuinfo's vendor_id ("ARM" for an arm64 CPU implementer)
 * @nr_cpus: online CPUs
 * @paranoid: kernel.perf_event_paranoid
 * @perfmon: CAP_PERFMON (or CAP_SYS_ADMIN)
 * @kernel: the running kernel, major << 8 | minor
 *
 * Read from sysfs and procfs (SYSFS_PATH and PROCFS_PATH point them at a
 * fixture tree), so the command line is a function of this description.
 */
struct dprof_pmu_desc {
	enum dprof_mem_kind	kind;
	struct dprof_mem_pmu	pmus[DPROF_MEM_PMUS_MAX];
	int			nr_pmus;
	char			vendor[32];
	int			nr_cpus;
	int			paranoid;
	bool			perfmon;
	unsigned int		kernel;
};

void dprof_pmu_desc__read(struct dprof_pmu_desc *d);

/**
 * struct dprof_record_args - the perf record command line for @opts
 * @argv: "record", our arguments, then the user's
 * @argc: arguments in @argv
 * @monitor: the --watch progress thread, when @monitor_on
 */
struct dprof_slab_allocs;

struct dprof_record_args {
	const char		**argv;
	int			argc;
	struct dprof_monitor	monitor;
	bool			monitor_on;
	struct dprof_heap_probes heap;
	struct dprof_recorder	recorder;
	/* private */
	char			**owned;
	int			nr_owned;
	struct dprof_watch_spec	*specs;		/* --watch, parsed */
	int			nr_specs;
	bool			kmem_cpu_wide;	/* the address set on every CPU */
	bool			kmem_map;	/* slab caches from the slab map */
	char			*sample_path;	/* the interval file, to restore */
	char			sample_was[16];	/* ... to what it held */
	const char		*prune;		/* the output to prune (prune.h) */
	const char		*output;	/* the recording, NULL: a pipe */
	struct dprof_slab_allocs *allocs_before;/* the caches' counts at the start */
	u32			nr_allocs_before;
	bool			allocs_counted;	/* ... read */
};

/* @argc/@argv: perf record's own options and the workload. */
int dprof_record_args__init(struct dprof_record_args *a,
			    const struct dprof_record_opts *opts,
			    int argc, const char **argv);
/* perf record returned @record_err: what is left to write (the heap log). */
int dprof_record_args__done(struct dprof_record_args *a, int record_err);
void dprof_record_args__exit(struct dprof_record_args *a);

#endif /* __PERF_DPROF_RECORD_H */
