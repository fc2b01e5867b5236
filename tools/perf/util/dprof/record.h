/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_RECORD_H
#define __PERF_DPROF_RECORD_H

#include <stdbool.h>
#include "heapprobe.h"
#include "watch-monitor.h"

struct dprof_watch_spec;

/**
 * struct dprof_record_opts - what perf dprof record was asked for
 * @period: -c: the access sampler's period
 * @freq: -F: ... or its frequency
 * @sampler: "auto", "mem" (a memory PMU) or "soft" (cpu-clock + registers)
 * @watch: --watch: "cache[:offset[/len]],..." to follow with slab_watch
 * @watch_patience: give a watched object up after that many allocations
 * @watch_histories: stop once each --watch item followed that many objects
 * @no_kmem: do not record the slab address set
 * @no_heap: do not record the user-space allocator (uprobes)
 * @heap_min_size: record allocations of at least this many bytes
 */
struct dprof_record_opts {
	const char	*period;
	const char	*freq;
	const char	*sampler;
	const char	*watch;
	unsigned int	watch_patience;
	unsigned int	watch_histories;
	bool		no_kmem;
	bool		no_heap;
	unsigned int	heap_min_size;
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
	struct dprof_heap_probes heap;
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
