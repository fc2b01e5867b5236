/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_DATASRC_H
#define __PERF_DPROF_DATASRC_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * Where a sampled access found its data, from the memory PMU's data_src
 * (Intel PEBS, AMD IBS op, Arm SPE as perf synthesizes it).
 */
enum dprof_mem_level {
	DPROF_MEM_LVL_UNKNOWN,		/* not said, or missed with no source */
	DPROF_MEM_LVL_L1,
	DPROF_MEM_LVL_LFB,		/* L1 fill buffer / AMD MAB: in flight */
	DPROF_MEM_LVL_L2,
	DPROF_MEM_LVL_L3,		/* last level cache of this node */
	DPROF_MEM_LVL_PEER,		/* another core's cache, same node */
	DPROF_MEM_LVL_REMOTE_CACHE,	/* a cache of another node/socket */
	DPROF_MEM_LVL_LOCAL_DRAM,
	DPROF_MEM_LVL_REMOTE_DRAM,
	DPROF_MEM_LVL_CXL,		/* CXL memory, local or remote */
	DPROF_MEM_LVL_OTHER,		/* PMEM, L4/MSC, I/O, uncached */
	DPROF_MEM_LVL__MAX,
};

enum dprof_mem_tlb {
	DPROF_MEM_TLB_NA,
	DPROF_MEM_TLB_HIT,
	DPROF_MEM_TLB_MISS,
};

/* One access sample's data_src and weight, decoded. */
struct dprof_mem {
	enum dprof_mem_level	level;
	enum dprof_mem_tlb	tlb;
	u8			tlb_level;	/* PERF_MEM_TLB_L1|L2|WK|OS bits */
	u8			hops;		/* PERF_MEM_HOPS_*, 0: not said */
	bool			mem_op;		/* a load, store or prefetch */
	bool			is_write;
	bool			level_known;	/* hit or miss in L1 is known */
	bool			miss;		/* not an L1 hit */
	bool			hitm;		/* snoop hit a modified line */
	bool			peer;		/* snoopx: a peer's cache (not FWD) */
	bool			remote;		/* another node/socket */
	bool			locked;
	u32			latency;	/* weight (var1), 0: not measured */
};

bool dprof_mem__decode(struct dprof_mem *mem, u64 data_src, u64 weight,
		       bool weight_struct);
const char *dprof_mem_level__str(enum dprof_mem_level level);
const char *dprof_mem_level__short(enum dprof_mem_level level);

/* Counts of decoded samples, for the report header. */
struct dprof_mem_stats {
	u64	samples;		/* with a memory op */
	u64	no_memop;		/* excluded: not a memory access */
	u64	level[DPROF_MEM_LVL__MAX];
	u64	hitm;
	u64	peer;
	u64	remote;
	u64	tlb_miss;
	u64	locked;
	u64	lat_n;
};

void dprof_mem_stats__add(struct dprof_mem_stats *st,
			  const struct dprof_mem *mem);

#endif /* __PERF_DPROF_DATASRC_H */
