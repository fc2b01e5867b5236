/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_RECORD_H
#define __PERF_DPROF_RECORD_H

#include <stdbool.h>
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

/**
 * struct dprof_record_opts - what perf dprof record was asked for
 * @period: -c: the access sampler's period
 * @freq: -F: ... or its frequency
 * @sampler: "auto", "mem" (a memory PMU) or "soft" (cpu-clock + registers)
 * @watch: --watch: "cache[:offset[/len]],..." to follow with slab_watch
 * @watch_patience: give a watched object up after that many allocations
 * @watch_histories: stop once each --watch item followed that many objects
 * @no_kmem: do not record the slab address set
 */
struct dprof_record_opts {
	const char	*period;
	const char	*freq;
	const char	*sampler;
	const char	*watch;
	unsigned int	watch_patience;
	unsigned int	watch_histories;
	bool		no_kmem;
};

#define DPROF_WATCH_PATIENCE	64	/* the default */

/**
 * struct dprof_record_args - the perf record command line for @opts
 * @argv: "record", our arguments, then the user's
 * @argc: arguments in @argv
 * @monitor: the --watch progress thread, when @monitor_on
 */
struct dprof_record_args {
	const char		**argv;
	int			argc;
	struct dprof_monitor	monitor;
	bool			monitor_on;
	/* private */
	char			**owned;
	int			nr_owned;
	struct dprof_watch_spec	*specs;		/* --watch, parsed */
	int			nr_specs;
};

/* @argc/@argv: perf record's own options and the workload. */
int dprof_record_args__init(struct dprof_record_args *a,
			    const struct dprof_record_opts *opts,
			    int argc, const char **argv);
void dprof_record_args__exit(struct dprof_record_args *a);

#endif /* __PERF_DPROF_RECORD_H */
