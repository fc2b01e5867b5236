/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_H
#define __PERF_DPROF_REPLAY_H

#include <stdbool.h>
#include "replay-heap.h"
#include "replay-obj.h"

struct dprof_sink;

/*
 * The replay of a perf dprof recording: the address set (slab alloc/free
 * events) in time order, every access sample resolved against it to a
 * class and offset and counted in the profile, and every event handed to
 * the sinks (the views that need the stream, see sink.h).
 */
/* Open @path and find what it holds; 0, or a negative errno said to the user. */
void dprof_replay__keep_typings(struct dprof_replay *r, const char *dir);
int dprof_replay__open(struct dprof_replay *r, const char *path, bool force);
void dprof_replay__add_sink(struct dprof_replay *r, struct dprof_sink *sink);
/* Replay every event; 0, or a negative errno said to the user. */
int dprof_replay__run(struct dprof_replay *r, const char *path);
void dprof_replay__close(struct dprof_replay *r);

#endif /* __PERF_DPROF_REPLAY_H */
