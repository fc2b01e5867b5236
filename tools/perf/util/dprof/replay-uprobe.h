/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_UPROBE_H
#define __PERF_DPROF_REPLAY_UPROBE_H

#include <stdbool.h>

struct dprof_replay;
struct evsel;
struct machine;
struct perf_sample;

/*
 * The allocator's uprobes (heapprobe.c) in a replay (replay-uprobe.c),
 * driven by replay.c: @evsel's handler, by its @name; their release.
 */
void dprof_replay__uprobe_add(struct dprof_replay *r, struct evsel *evsel,
			      const char *name);
void dprof_replay__uprobes_exit(struct dprof_replay *r);
/* @sample is the kernel's handling of one of them (counted, out of the shares) */
bool dprof_replay__in_uprobe_trap(struct dprof_replay *r, struct machine *machine,
				  struct perf_sample *sample);

#endif /* __PERF_DPROF_REPLAY_UPROBE_H */
