/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_REPLAY_KMEM_H
#define __PERF_DPROF_REPLAY_KMEM_H

#include <stdbool.h>
#include <linux/types.h>

struct dprof_addrset;
struct dprof_class;
struct dprof_obj;
struct dprof_replay;
struct evsel;
struct perf_sample;

/*
 * The slab map of the kernel's address set (replay-kmem.c), which its
 * source (dprof_kmem_source, replay-source.h) drives: an object of the
 * slab map that holds @addr, allocated before recording (1, with its
 * class and base; 0: none; or -errno); a snapshot or new slab event of
 * the slab map; the release of its entries.
 */
int dprof_replay__earlier_obj(struct dprof_replay *r, u64 addr, u32 cpu,
			      struct dprof_obj **objp, struct dprof_class **clsp, u64 *basep);
int dprof_replay__slab(struct dprof_replay *r, struct evsel *evsel,
		       struct perf_sample *sample, bool born);
void dprof_snap_slab__release(struct dprof_addrset *as, struct dprof_obj *obj, bool freed);

#endif /* __PERF_DPROF_REPLAY_KMEM_H */
