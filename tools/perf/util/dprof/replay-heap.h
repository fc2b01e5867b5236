/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_HEAP_H
#define __PERF_DPROF_REPLAY_HEAP_H

#include <stdbool.h>
#include <linux/types.h>

struct dprof_access;
struct dprof_addrset;
struct dprof_obj;
struct dprof_replay;
struct evsel;
struct machine;
struct thread;

/*
 * The user-space heap's address set, whatever records the allocator: the
 * uprobes on it (replay-uprobe.c), a recorder inside the process.  A source
 * of allocator events calls dprof_replay__heap_alloc() and
 * dprof_replay__heap_free() in time order, with the rest of the recording
 * (from its perf_tool callbacks, or from events it puts in the ordered
 * queue), and sets r->rec.has_heap when the recording has its events.
 * The process's exit (PERF_RECORD_EXIT) ends the objects it left.
 */

/**
 * struct dprof_heap_alloc - an allocation a user-space allocator returned
 * @pid: the process the object lives in (its heap is per process)
 * @tid: the thread that allocated it: its maps name the site
 * @cpu: where it was allocated ((u32)-1: unknown)
 * @time: when, on the recording's clock
 * @ptr: what the allocator returned (0: it failed; nothing is done)
 * @size: bytes asked for (calloc: nmemb * size)
 * @old: realloc: the object it moved, ended here; 0 otherwise
 * @left_out: not an object: that many objects allocated there no access
 *	sample touched, left out when recorded (@ptr is 0)
 * @left_out_freed: of them, those whose free was seen
 * @nr_ips: how many return addresses @ips holds (0: no site)
 * @ips: return addresses, innermost first: ips[0] is in the allocator's
 *	 caller, after its call instruction
 */
/* frames of an allocation's callchain its site is chosen from */
#define DPROF_HEAP_FRAMES	8
/* ... each with at most this many frames, the functions inlined at it */
#define DPROF_HEAP_INLINES	4

struct dprof_heap_alloc {
	u32		pid, tid, cpu;
	u64		time;
	u64		ptr;
	u64		size;
	u64		old;
	u64		left_out;
	u64		left_out_freed;
	u32		nr_ips;
	const u64	*ips;
};

/**
 * dprof_replay__heap_alloc - a heap object starts
 * @r: the replay
 * @a: the allocation
 * @machine: the machine whose threads' maps name the allocation site
 *
 * The object joins the heap of @a->pid, its row by allocation site, and
 * the sinks see it start.  A realloc's @a->old ends first.
 *
 * Return: 0, or a negative errno (which stops the replay).
 */
int dprof_replay__heap_alloc(struct dprof_replay *r, const struct dprof_heap_alloc *a,
			     struct machine *machine);

/**
 * dprof_replay__heap_free - a heap object ends
 * @r: the replay
 * @pid: its process
 * @cpu: where it was freed
 * @time: when
 * @ptr: what free() took (0: nothing is done)
 *
 * A pointer no live object starts at is counted (rec.nr_heap_unknown_free).
 *
 * Return: 0, or a negative errno.
 */
int dprof_replay__heap_free(struct dprof_replay *r, u32 pid, u32 cpu, u64 time, u64 ptr);

/* The free site of a heap object its process's exit ended. */
#define DPROF_EXIT_SITE		(~0ULL)

/*
 * The function of the user-space code at @ip that a heap object's history
 * went through (an access, an allocation site): its start and name, until
 * dprof_replay__close() ("exit" for DPROF_EXIT_SITE).  False when the
 * replay did not see it.
 */
bool dprof_replay__user_func(struct dprof_replay *r, u64 ip, u64 *start,
			     const char **name);

#endif /* __PERF_DPROF_REPLAY_HEAP_H */
