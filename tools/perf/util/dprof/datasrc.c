// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: what a memory PMU says about one access.
 *
 * The kernel (Intel PEBS, AMD IBS op) or perf itself (Arm SPE) encodes the
 * data source as union perf_mem_data_src.  The modern fields come first:
 * mem_lvl_num names the level that supplied the data, mem_remote and
 * mem_hops how far away it was, mem_snoop/mem_snoopx whether another
 * core's cache supplied it.  Encodings without a level number fall back
 * to the legacy mem_lvl bits, decoded by perf c2c's c2c_decode_stats() so
 * that both tools agree on them.
 */
#include <stdint.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include "util/map_symbol.h"
#include "util/mem-events.h"
#include "util/mem-info.h"
#include "datasrc.h"

static const char * const dprof_mem_level_str[DPROF_MEM_LVL__MAX] = {
	[DPROF_MEM_LVL_UNKNOWN]		= "unknown",
	[DPROF_MEM_LVL_L1]		= "L1",
	[DPROF_MEM_LVL_LFB]		= "LFB/MAB",
	[DPROF_MEM_LVL_L2]		= "L2",
	[DPROF_MEM_LVL_L3]		= "L3",
	[DPROF_MEM_LVL_PEER]		= "peer cache",
	[DPROF_MEM_LVL_REMOTE_CACHE]	= "remote cache",
	[DPROF_MEM_LVL_LOCAL_DRAM]	= "local DRAM",
	[DPROF_MEM_LVL_REMOTE_DRAM]	= "remote DRAM",
	[DPROF_MEM_LVL_CXL]		= "CXL memory",
	[DPROF_MEM_LVL_OTHER]		= "PMEM/MSC/IO/other",
};

const char *dprof_mem_level__str(enum dprof_mem_level level)
{
	return level < DPROF_MEM_LVL__MAX ? dprof_mem_level_str[level] : "?";
}

/* For a compact list of levels: "L1 62% L2 20% DRAM 8%" */
static const char * const dprof_mem_level_short[DPROF_MEM_LVL__MAX] = {
	[DPROF_MEM_LVL_UNKNOWN]		= "miss",	/* source not said */
	[DPROF_MEM_LVL_L1]		= "L1",
	[DPROF_MEM_LVL_LFB]		= "LFB",
	[DPROF_MEM_LVL_L2]		= "L2",
	[DPROF_MEM_LVL_L3]		= "L3",
	[DPROF_MEM_LVL_PEER]		= "peer",
	[DPROF_MEM_LVL_REMOTE_CACHE]	= "rcache",
	[DPROF_MEM_LVL_LOCAL_DRAM]	= "DRAM",
	[DPROF_MEM_LVL_REMOTE_DRAM]	= "rDRAM",
	[DPROF_MEM_LVL_CXL]		= "CXL",
	[DPROF_MEM_LVL_OTHER]		= "other",
};

const char *dprof_mem_level__short(enum dprof_mem_level level)
{
	return level < DPROF_MEM_LVL__MAX ? dprof_mem_level_short[level] : "?";
}

/*
 * A cache level number with its place: another node's cache, a peer
 * core's cache on this node (HOPS_0 is "remote core, same node"; a snoop
 * that hit a modified line or a peer transfer means another core held
 * it), or the level itself.  AMD before Zen 4 encodes "local L3 or
 * another L1/L2 of this CCX" as L3 | REM_CCE1 | ANY_CACHE | HOPS_0 and
 * perf c2c counts it as an LLC hit: with the L3 bit it is one here too.
 * SNOOPX_FWD ("L3 hit, snoop forward" of the Atom cores) is not a peer
 * transfer for perf c2c either, so it is not one here.
 */
static enum dprof_mem_level dprof_mem__cache(struct dprof_mem *mem,
					     union perf_mem_data_src src,
					     enum dprof_mem_level local)
{
	if (mem->remote)
		return DPROF_MEM_LVL_REMOTE_CACHE;
	if (mem->hops == PERF_MEM_HOPS_0 && !(src.mem_lvl & PERF_MEM_LVL_L3))
		return DPROF_MEM_LVL_PEER;
	if (local != DPROF_MEM_LVL_L1 && (mem->hitm || mem->peer))
		return DPROF_MEM_LVL_PEER;
	return local;
}

static void dprof_mem__lvl_num(struct dprof_mem *mem,
			       union perf_mem_data_src src)
{
	mem->level_known = true;
	/*
	 * "Missed at level N" without a source (Intel's 0x00 "unknown L3",
	 * Lion Cove's "L3 miss, snoop HITM"): not an L1 hit, source unknown.
	 */
	if ((src.mem_lvl & PERF_MEM_LVL_MISS) && !(src.mem_lvl & PERF_MEM_LVL_HIT)) {
		mem->level = DPROF_MEM_LVL_UNKNOWN;
		return;
	}
	switch (src.mem_lvl_num) {
	case PERF_MEM_LVLNUM_L1:
		mem->level = dprof_mem__cache(mem, src, DPROF_MEM_LVL_L1);
		break;
	case PERF_MEM_LVLNUM_LFB:
		mem->level = DPROF_MEM_LVL_LFB;
		break;
	case PERF_MEM_LVLNUM_L2:
	case PERF_MEM_LVLNUM_L2_MHB:
		mem->level = dprof_mem__cache(mem, src, DPROF_MEM_LVL_L2);
		break;
	case PERF_MEM_LVLNUM_L3:
	case PERF_MEM_LVLNUM_ANY_CACHE:
		mem->level = dprof_mem__cache(mem, src, DPROF_MEM_LVL_L3);
		break;
	case PERF_MEM_LVLNUM_RAM:
		mem->level = mem->remote ? DPROF_MEM_LVL_REMOTE_DRAM :
					   DPROF_MEM_LVL_LOCAL_DRAM;
		break;
	case PERF_MEM_LVLNUM_CXL:
		mem->level = DPROF_MEM_LVL_CXL;
		break;
	case PERF_MEM_LVLNUM_L4:
	case PERF_MEM_LVLNUM_MSC:
	case PERF_MEM_LVLNUM_UNC:
	case PERF_MEM_LVLNUM_IO:
	case PERF_MEM_LVLNUM_PMEM:
		mem->level = DPROF_MEM_LVL_OTHER;
		break;
	default:
		mem->level_known = false;
		break;
	}
}

/* No level number: the legacy mem_lvl bits, as perf c2c reads them. */
static void dprof_mem__lvl_legacy(struct dprof_mem *mem,
				  union perf_mem_data_src src)
{
	struct c2c_stats st = { 0 };
	struct mem_info *mi;
	bool cache_hit;

	if (!(src.mem_lvl & ~PERF_MEM_LVL_NA) && !src.mem_remote)
		return;
	mi = mem_info__new();
	if (!mi)
		return;
	*mem_info__data_src(mi) = src;
	mem_info__daddr(mi)->addr = 1;	/* c2c skips samples without one */
	c2c_decode_stats(&st, mi);	/* -1: no maps, which we do not need */
	mem_info__put(mi);

	cache_hit = st.ld_l1hit || st.ld_l2hit || st.ld_llchit || st.lcl_hitm;
	mem->level_known = true;
	if (st.rmt_hitm || st.rmt_hit || st.rmt_peer ||
	    (st.rmt_dram && cache_hit))
		mem->level = DPROF_MEM_LVL_REMOTE_CACHE;
	else if (st.rmt_dram)
		mem->level = DPROF_MEM_LVL_REMOTE_DRAM;
	else if (st.ld_uncache || st.ld_io || st.st_uncache)
		mem->level = DPROF_MEM_LVL_OTHER;
	else if (st.lcl_dram)
		mem->level = DPROF_MEM_LVL_LOCAL_DRAM;
	else if (st.lcl_hitm || st.lcl_peer)
		mem->level = DPROF_MEM_LVL_PEER;
	else if (st.ld_llchit)
		mem->level = DPROF_MEM_LVL_L3;
	else if (st.ld_l2hit)
		mem->level = DPROF_MEM_LVL_L2;
	else if (st.ld_fbhit)
		mem->level = DPROF_MEM_LVL_LFB;
	else if (st.ld_l1hit || st.st_l1hit)
		mem->level = DPROF_MEM_LVL_L1;
	else if (st.ld_miss || st.st_l1miss || (src.mem_lvl & PERF_MEM_LVL_MISS))
		/* c2c counts a store's miss at L1 only: SPE's says L3 too */
		mem->level = DPROF_MEM_LVL_UNKNOWN;
	else
		mem->level_known = false;
	if (mem->level == DPROF_MEM_LVL_REMOTE_CACHE ||
	    mem->level == DPROF_MEM_LVL_REMOTE_DRAM)
		mem->remote = true;
}

/**
 * dprof_mem__decode - decode one sample's data source and weight
 * @mem: the result
 * @data_src: perf_sample::data_src
 * @weight: perf_sample::weight
 * @weight_struct: the event sampled PERF_SAMPLE_WEIGHT_STRUCT, whose
 *	latency is the low 32 bits (var1_dw)
 *
 * A sample whose op is neither load, store nor prefetch (AMD IBS op tags
 * every kind of op; Arm SPE samples branches too) is no memory access:
 * count it apart, it is not an L1 hit.
 *
 * Return: true when the sample is a memory access.
 */
bool dprof_mem__decode(struct dprof_mem *mem, u64 data_src, u64 weight,
		       bool weight_struct)
{
	union perf_mem_data_src src = { .val = data_src };

	memset(mem, 0, sizeof(*mem));
	if (!(src.mem_op & (PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE |
			    PERF_MEM_OP_PFETCH)))
		return false;
	mem->mem_op = true;
	mem->is_write = src.mem_op & PERF_MEM_OP_STORE;
	mem->latency = weight_struct ? (u32)weight : min_t(u64, weight, UINT32_MAX);

	mem->hops = src.mem_hops;
	/* Power sets remote with HOPS_0 for another core of the same node */
	mem->remote = src.mem_remote && mem->hops != PERF_MEM_HOPS_0;
	mem->hitm = src.mem_snoop & PERF_MEM_SNOOP_HITM;
	mem->peer = src.mem_snoopx & PERF_MEM_SNOOPX_PEER;
	mem->locked = (src.mem_lock & PERF_MEM_LOCK_LOCKED) &&
		      !(src.mem_lock & PERF_MEM_LOCK_NA);
	if (src.mem_dtlb & PERF_MEM_TLB_MISS)
		mem->tlb = DPROF_MEM_TLB_MISS;
	else if (src.mem_dtlb & PERF_MEM_TLB_HIT)
		mem->tlb = DPROF_MEM_TLB_HIT;
	mem->tlb_level = src.mem_dtlb & (PERF_MEM_TLB_L1 | PERF_MEM_TLB_L2 |
					 PERF_MEM_TLB_WK | PERF_MEM_TLB_OS);

	if (src.mem_lvl_num && src.mem_lvl_num != PERF_MEM_LVLNUM_NA)
		dprof_mem__lvl_num(mem, src);
	else
		dprof_mem__lvl_legacy(mem, src);
	mem->miss = mem->level_known && mem->level != DPROF_MEM_LVL_L1;
	return true;
}

/**
 * dprof_mem_stats__add - count one decoded sample
 * @st: the counts
 * @mem: a sample from dprof_mem__decode()
 */
void dprof_mem_stats__add(struct dprof_mem_stats *st,
			  const struct dprof_mem *mem)
{
	if (!mem->mem_op) {
		st->no_memop++;
		return;
	}
	st->samples++;
	if (mem->level_known)
		st->level[mem->level]++;
	st->hitm += mem->hitm;
	st->peer += mem->peer;
	st->remote += mem->remote;
	st->tlb_miss += mem->tlb == DPROF_MEM_TLB_MISS;
	st->locked += mem->locked;
	st->lat_n += !!mem->latency;
}
