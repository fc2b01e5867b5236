/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_HEAPLOG_H
#define __PERF_DPROF_REPLAY_HEAPLOG_H

#include <stdbool.h>
#include <linux/types.h>

struct dprof_replay;
struct machine;
struct perf_sample;
struct thread;

/*
 * The allocator recorder's log in a replay (replay-heaplog.c): read when
 * the session opens (0 without one, or a negative errno), handed to the
 * heap up to each event's @time, before the event.
 */
int dprof_replay__heaplog_open(struct dprof_replay *r);
int dprof_replay__heaplog_until(struct dprof_replay *r, struct machine *machine, u64 time);
void dprof_replay__heaplog_close(struct dprof_replay *r);
/*
 * @ip is the C library's allocator at work (malloc, free and their
 * helpers): what it touches is not a heap object of the program's.
 */
bool dprof_replay__in_allocator(struct dprof_replay *r, struct thread *thread, u64 ip);
/* @sample is in the recorder's own code (counted, left out of the shares) */
bool dprof_replay__in_recorder(struct dprof_replay *r, struct machine *machine,
			       const struct perf_sample *sample);

#endif /* __PERF_DPROF_REPLAY_HEAPLOG_H */
