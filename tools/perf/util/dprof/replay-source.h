/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_SOURCE_H
#define __PERF_DPROF_REPLAY_SOURCE_H

/*
 * An event source of the replay: what rebuilds an address set from events
 * of its own (the kmem tracepoints, the allocator's uprobes, the allocator
 * recorder's log) and resolves the access samples that fall in its
 * objects.  replay.c drives every source through this table, in the order
 * of its dprof_replay_sources[]; a source calls down into replay-obj.c
 * (replay-obj.h), never up into replay.c.  Any hook may be NULL.
 */

#include <stdbool.h>
#include <linux/types.h>
#include "replay-obj.h"

struct dprof_access;
struct dprof_replay;
struct evsel;
struct machine;
struct perf_sample;
struct thread;

/**
 * struct dprof_replay_source - the hooks of an event source
 * @name: for messages
 * @open: the session is open: its state, its tracepoints' handlers, what
 *	  the file's header sections hold; 0 or a negative errno
 * @tracepoint: a tracepoint of the recording, by @name: the source takes
 *		it (@evsel->handler, a dprof_tp_handler) and notes what it
 *		says of the recording (r->rec)
 * @first_tp: a tracepoint read in a pass of its own before the replay
 *	      (the slab snapshot), by @first, or NULL
 * @until: hand the replay the source's events up to @time, before the
 *	   recording's event at @time (a log kept apart from the events)
 * @own_sample: @sample is the source's own cost (a recorder's code, a
 *		probe's trap): counted there, left out of the shares
 * @exit_process: process @pid exits: the objects it left end
 * @access: resolve @acc if its address is in one of the source's objects:
 *	    1 when counted, 0 when not the source's, or a negative errno
 * @finish: after the events: the last of the source's own, summaries
 * @exit: free the source's state (also after a failed @open)
 */
struct dprof_replay_source {
	const char	*name;
	int		(*open)(struct dprof_replay *r);
	void		(*tracepoint)(struct dprof_replay *r, struct evsel *evsel,
				      const char *name);
	const char	*first_tp;
	dprof_tp_handler first;
	int		(*until)(struct dprof_replay *r, struct machine *machine, u64 time);
	bool		(*own_sample)(struct dprof_replay *r, struct machine *machine,
				      struct perf_sample *sample);
	int		(*exit_process)(struct dprof_replay *r, u32 pid, u64 time, u32 cpu);
	int		(*access)(struct dprof_replay *r, struct thread *thread,
				  struct evsel *evsel, struct dprof_access *acc);
	int		(*finish)(struct dprof_replay *r);
	void		(*exit)(struct dprof_replay *r);
};

/* The user heap (replay-heap.c), its feeds (replay-heaplog.c, replay-uprobe.c), the kernel's */
extern const struct dprof_replay_source dprof_heaplog_source;
extern const struct dprof_replay_source dprof_uprobe_source;
extern const struct dprof_replay_source dprof_heap_source;
extern const struct dprof_replay_source dprof_kmem_source;

#endif /* __PERF_DPROF_REPLAY_SOURCE_H */
