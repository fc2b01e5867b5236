// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: data_src decoding against the encodings the kernel (Intel
 * PEBS: arch/x86/events/intel/ds.c, AMD IBS: arch/x86/events/amd/ibs.c)
 * and perf (Arm SPE: util/arm-spe.c) produce.  Each value is built with
 * the same PERF_MEM_S() terms, in the same order, as those files do.
 */
#include <stdbool.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include "debug.h"
#include "mem-events.h"
#include "mem-info.h"
#include "tests/tests.h"
#include "util/dprof/datasrc.h"
#include "dprof-tests.h"

/* --- Intel PEBS: ds.c's terms ------------------------------------------ */
#define P(a, b)		PERF_MEM_S(a, b)
#define OP_LH		(P(OP, LOAD) | P(LVL, HIT))
#define LEVEL(x)	P(LVLNUM, x)
#define REM		P(REMOTE, REMOTE)
#define SNOOP_NONE_MISS	(P(SNOOP, NONE) | P(SNOOP, MISS))

/* load_latency_data(): the table entry, pebs_set_tlb_lock(), no block info */
static u64 pebs_load(u64 val, bool stlb_miss, bool lock)
{
	if (stlb_miss)
		val |= P(TLB, MISS) | P(TLB, L2);
	else
		val |= P(TLB, HIT) | P(TLB, L1) | P(TLB, L2);
	if (lock)
		val |= P(LOCK, LOCKED);
	return val | P(BLK, NA);
}

/* precise_store_data() */
static u64 pebs_store(bool l1d_hit, bool stlb_miss, bool lock)
{
	u64 val = P(OP, STORE) | P(SNOOP, NA) | P(LVL, L1) | P(TLB, L2);

	val |= stlb_miss ? P(TLB, MISS) : P(TLB, HIT);
	val |= l1d_hit ? P(LVL, HIT) : P(LVL, MISS);
	if (lock)
		val |= P(LOCK, LOCKED);
	return val;
}

/* store_latency_data(): a load table entry made a store */
static u64 pebs_store_lat(u64 val)
{
	union perf_mem_data_src src;

	val |= P(TLB, HIT) | P(TLB, L1) | P(TLB, L2);
	val |= P(BLK, NA);
	src.val = val;
	src.mem_op = P(OP, STORE);
	return src.val;
}

/* --- AMD IBS op: ibs.c's terms ----------------------------------------- */
/* include/linux/perf_event.h: what a sample's data_src starts as */
#define PERF_MEM_NA	(PERF_MEM_S(OP, NA)   |\
			 PERF_MEM_S(LVL, NA)   |\
			 PERF_MEM_S(SNOOP, NA) |\
			 PERF_MEM_S(LOCK, NA)  |\
			 PERF_MEM_S(TLB, NA)   |\
			 PERF_MEM_S(LVLNUM, NA))

#define L(x)		(PERF_MEM_S(LVL, x) | PERF_MEM_S(LVL, HIT))
#define LN(x)		PERF_MEM_S(LVLNUM, x)
#define HOPS(x)		PERF_MEM_S(HOPS, x)

/*
 * perf_ibs_parse_ld_st_data() for a load or store: PERF_MEM_NA, the op,
 * perf_ibs_get_mem_lvl() OR-ed in, then snoop, TLB (L1 TLB hit) and lock.
 */
static u64 ibs(u64 op, u64 lvl, u64 snoop, bool locked)
{
	union perf_mem_data_src src = { .val = PERF_MEM_NA };

	src.mem_op = op;
	src.mem_lvl = 0;
	src.mem_lvl_num = 0;
	src.val |= lvl;
	src.mem_snoop = snoop;
	src.mem_dtlb = PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT;
	src.mem_lock = locked ? PERF_MEM_LOCK_LOCKED : PERF_MEM_LOCK_NA;
	return src.val;
}

/* An op that is neither load nor store: perf_ibs_parse_ld_st_data() stops. */
static u64 ibs_no_memop(void)
{
	union perf_mem_data_src src = { .val = PERF_MEM_NA };

	src.mem_op = PERF_MEM_OP_NA;
	return src.val;
}

/* --- Arm SPE: arm_spe__synth_data_source() ----------------------------- */
enum spe_src {	/* ARM_SPE_COMMON_DS_* of Neoverse N1/N2/V1 */
	SPE_L1D = 0x0, SPE_L2 = 0x8, SPE_PEER_CORE = 0x9,
	SPE_LOCAL_CLUSTER = 0xa, SPE_SYS_CACHE = 0xb, SPE_PEER_CLUSTER = 0xc,
	SPE_REMOTE = 0xd, SPE_DRAM = 0xe,
};

static u64 spe_common(bool store, enum spe_src source, int tlb)
{
	union perf_mem_data_src data_src = { .mem_op = PERF_MEM_OP_NA };

	data_src.mem_op = store ? PERF_MEM_OP_STORE : PERF_MEM_OP_LOAD;
	if (store) {
		data_src.mem_lvl = PERF_MEM_LVL_NA;
		data_src.mem_lvl_num = PERF_MEM_LVLNUM_NA;
		data_src.mem_snoop = PERF_MEM_SNOOP_NA;
		goto tlb;
	}
	switch (source) {
	case SPE_L1D:
		data_src.mem_lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT;
		data_src.mem_lvl_num = PERF_MEM_LVLNUM_L1;
		data_src.mem_snoop = PERF_MEM_SNOOP_NONE;
		break;
	case SPE_L2:
		data_src.mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT;
		data_src.mem_lvl_num = PERF_MEM_LVLNUM_L2;
		data_src.mem_snoop = PERF_MEM_SNOOP_NONE;
		break;
	case SPE_PEER_CORE:
		data_src.mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT;
		data_src.mem_lvl_num = PERF_MEM_LVLNUM_L2;
		data_src.mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case SPE_LOCAL_CLUSTER:
	case SPE_PEER_CLUSTER:
		data_src.mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT;
		data_src.mem_lvl_num = PERF_MEM_LVLNUM_L3;
		data_src.mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case SPE_SYS_CACHE:
		data_src.mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT;
		data_src.mem_lvl_num = PERF_MEM_LVLNUM_L3;
		data_src.mem_snoop = PERF_MEM_SNOOP_HIT;
		break;
	case SPE_REMOTE:
		data_src.mem_lvl = PERF_MEM_LVL_NA;
		data_src.mem_lvl_num = PERF_MEM_LVLNUM_NA;
		data_src.mem_remote = PERF_MEM_REMOTE_REMOTE;
		data_src.mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case SPE_DRAM:
		data_src.mem_lvl = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT;
		data_src.mem_lvl_num = PERF_MEM_LVLNUM_RAM;
		data_src.mem_snoop = PERF_MEM_SNOOP_NONE;
		break;
	default:
		break;
	}
tlb:
	if (tlb) {	/* ARM_SPE_TLB_ACCESS (1) or ARM_SPE_TLB_MISS (2) */
		data_src.mem_dtlb = PERF_MEM_TLB_WK;
		data_src.mem_dtlb |= tlb == 2 ? PERF_MEM_TLB_MISS : PERF_MEM_TLB_HIT;
	}
	return data_src.val;
}

/* Other cores' SPE: arm_spe__synth_data_source_generic() */
static u64 spe_generic(u64 mem_lvl, bool remote)
{
	union perf_mem_data_src data_src = { .mem_op = PERF_MEM_OP_NA };

	data_src.mem_op = PERF_MEM_OP_LOAD;
	data_src.mem_lvl = mem_lvl;
	if (remote)
		data_src.mem_remote = PERF_MEM_REMOTE_REMOTE;
	return data_src.val;
}

/* --- the table ---------------------------------------------------------- */
#define LV_UNK	DPROF_MEM_LVL_UNKNOWN
#define LV_L1	DPROF_MEM_LVL_L1
#define LV_LFB	DPROF_MEM_LVL_LFB
#define LV_L2	DPROF_MEM_LVL_L2
#define LV_L3	DPROF_MEM_LVL_L3
#define LV_PEER	DPROF_MEM_LVL_PEER
#define LV_RCACHE	DPROF_MEM_LVL_REMOTE_CACHE
#define LV_LDRAM	DPROF_MEM_LVL_LOCAL_DRAM
#define LV_RDRAM	DPROF_MEM_LVL_REMOTE_DRAM
#define LV_OTHER	DPROF_MEM_LVL_OTHER

/* expected flags */
#define F_MISS		0x01	/* not an L1 hit */
#define F_HITM		0x02
#define F_PEER		0x04	/* snoopx peer/forward */
#define F_REMOTE	0x08
#define F_WRITE		0x10
#define F_TLB_MISS	0x20
#define F_LOCKED	0x40
#define F_NO_LEVEL	0x80	/* hit or miss not said */
#define F_NO_MEMOP	0x100	/* excluded */

struct ds_case {
	const char		*desc;
	u64			val;
	enum dprof_mem_level	level;
	unsigned int		flags;
};

static int ds_check(const struct ds_case *c, u64 val)
{
	unsigned int f = c->flags;
	struct dprof_mem mem;
	struct mem_info *mi = mem_info__new();
	char lvl[64] = "", snp[64] = "";
	bool memop, ok;

	if (mi) {	/* what perf mem/script prints, for -v */
		mem_info__data_src(mi)->val = val;
		perf_mem__lvl_scnprintf(lvl, sizeof(lvl), mi);
		perf_mem__snp_scnprintf(snp, sizeof(snp), mi);
		mem_info__put(mi);
	}
	memop = dprof_mem__decode(&mem, val, 0, false);
	if (!(f & F_NO_MEMOP)) {
		ok = memop && mem.level_known == !(f & F_NO_LEVEL) &&
		     (!mem.level_known || mem.level == c->level) &&
		     mem.miss == !!(f & F_MISS) &&
		     mem.hitm == !!(f & F_HITM) &&
		     mem.peer == !!(f & F_PEER) &&
		     mem.remote == !!(f & F_REMOTE) &&
		     mem.is_write == !!(f & F_WRITE) &&
		     (mem.tlb == DPROF_MEM_TLB_MISS) == !!(f & F_TLB_MISS) &&
		     mem.locked == !!(f & F_LOCKED);
	} else {
		ok = !memop;
	}
	pr_debug("dprof datasrc: %-42s %#014llx perf: %-28s snoop %-10s -> %s%s%s%s%s%s%s %s\n",
		 c->desc, (unsigned long long)val, lvl, snp,
		 !memop ? "no memory op" :
		 mem.level_known ? dprof_mem_level__str(mem.level) : "level n/a",
		 mem.miss ? " miss" : "", mem.hitm ? " hitm" : "",
		 mem.peer ? " peer" : "", mem.remote ? " remote" : "",
		 mem.is_write ? " write" : "",
		 mem.tlb == DPROF_MEM_TLB_MISS ? " tlb-miss" : "",
		 ok ? "ok" : "FAILED");
	return ok ? 0 : -1;
}

int test__dprof_datasrc(struct test_suite *test __maybe_unused,
			int subtest __maybe_unused)
{
	const struct ds_case cases[] = {
		/* Intel, pebs_data_source[] (Sandy Bridge and later) */
		{ "pebs 0x00 unknown L3 miss",
		  pebs_load(P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA), 0, 0),
		  LV_UNK, F_MISS },
		{ "pebs 0x01 L1 hit",
		  pebs_load(OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE), 0, 0),
		  LV_L1, 0 },
		{ "pebs 0x02 LFB hit",
		  pebs_load(OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE), 0, 0),
		  LV_LFB, F_MISS },
		{ "pebs 0x03 L2 hit, STLB miss",
		  pebs_load(OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE), 1, 0),
		  LV_L2, F_MISS | F_TLB_MISS },
		{ "pebs 0x04 L3 hit, snoop none, locked",
		  pebs_load(OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE), 0, 1),
		  LV_L3, F_MISS | F_LOCKED },
		{ "pebs 0x05 L3 hit, snoop miss",
		  pebs_load(OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, MISS), 0, 0),
		  LV_L3, F_MISS },
		{ "pebs 0x06 L3 hit, snoop hit",
		  pebs_load(OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT), 0, 0),
		  LV_L3, F_MISS },
		{ "pebs 0x07 L3 hit, snoop HITM",
		  pebs_load(OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), 0, 0),
		  LV_PEER, F_MISS | F_HITM },
		{ "pebs 0x08 snb remote cache, snoop hit",
		  pebs_load(OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HIT), 0, 0),
		  LV_RCACHE, F_MISS | F_REMOTE },
		{ "pebs 0x09 snb remote cache, HITM",
		  pebs_load(OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HITM), 0, 0),
		  LV_RCACHE, F_MISS | F_REMOTE | F_HITM },
		{ "pebs 0x0a local DRAM, shared",
		  pebs_load(OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, HIT), 0, 0),
		  LV_LDRAM, F_MISS },
		{ "pebs 0x0c local DRAM, exclusive",
		  pebs_load(OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | SNOOP_NONE_MISS, 0, 0),
		  LV_LDRAM, F_MISS },
		{ "pebs 0x0d snb remote DRAM, exclusive",
		  pebs_load(OP_LH | P(LVL, REM_RAM1) | LEVEL(RAM) | REM | SNOOP_NONE_MISS, 0, 0),
		  LV_RDRAM, F_MISS | F_REMOTE },
		{ "pebs 0x0e I/O (no level number)",
		  pebs_load(OP_LH | P(LVL, IO) | LEVEL(NA) | P(SNOOP, NONE), 0, 0),
		  LV_OTHER, F_MISS },
		{ "pebs 0x0f uncached (no level number)",
		  pebs_load(OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE), 0, 0),
		  LV_OTHER, F_MISS },
		/* __intel_pmu_pebs_data_source_skl() */
		{ "skl 0x08 L4 (pmem=false), snoop hit",
		  pebs_load(OP_LH | LEVEL(L4) | P(SNOOP, HIT), 0, 0),
		  LV_OTHER, F_MISS },
		{ "skl 0x09 remote PMEM (pmem=true)",
		  pebs_load(OP_LH | LEVEL(PMEM) | REM | P(SNOOP, HIT), 0, 0),
		  LV_OTHER, F_MISS | F_REMOTE },
		{ "skl 0x0b remote DRAM",
		  pebs_load(OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE), 0, 0),
		  LV_RDRAM, F_MISS | F_REMOTE },
		{ "skl 0x0c remote cache, forward",
		  pebs_load(OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOPX, FWD), 0, 0),
		  LV_RCACHE, F_MISS | F_REMOTE | F_PEER },
		{ "skl 0x0d remote cache, HITM",
		  pebs_load(OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM), 0, 0),
		  LV_RCACHE, F_MISS | F_REMOTE | F_HITM },
		/* __intel_pmu_pebs_data_source_grt() / _cmt(): E-cores */
		{ "grt 0x08 L3 hit, snoop forward",
		  pebs_load(OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD), 0, 0),
		  LV_PEER, F_MISS | F_PEER },
		{ "cmt 0x08 L3 hit, HITM",
		  pebs_load(OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), 0, 0),
		  LV_PEER, F_MISS | F_HITM },
		{ "cmt 0x0b remote DRAM",
		  pebs_load(OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE), 0, 0),
		  LV_RDRAM, F_MISS | F_REMOTE },
		/* lnc_pebs_data_source[] (Lion Cove) */
		{ "lnc 0x06 L2 miss handling buffer hit",
		  pebs_load(OP_LH | LEVEL(L2_MHB) | P(SNOOP, NONE), 0, 0),
		  LV_L2, F_MISS },
		{ "lnc 0x0f L3 miss, snoop HITM",
		  pebs_load(P(OP, LOAD) | P(LVL, MISS) | P(LVL, L3) | LEVEL(L3) |
			    P(SNOOP, HITM), 0, 0),
		  LV_UNK, F_MISS | F_HITM },
		{ "lnc 0x10 memory-side cache",
		  pebs_load(OP_LH | LEVEL(MSC) | P(SNOOP, NONE), 0, 0),
		  LV_OTHER, F_MISS },
		/* stores */
		{ "precise store, L1 hit",
		  pebs_store(1, 0, 0), LV_L1, F_WRITE },
		{ "precise store, L1 miss, STLB miss, locked",
		  pebs_store(0, 1, 1), LV_UNK, F_WRITE | F_MISS | F_TLB_MISS | F_LOCKED },
		{ "store latency, L2 hit",
		  pebs_store_lat(OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE)),
		  LV_L2, F_WRITE | F_MISS },

		/* AMD Zen 4 (IBS_CAPS_ZEN4), g_zen4_data_src[] */
		{ "ibs L1 hit (dc_miss=0)",
		  ibs(PERF_MEM_OP_LOAD, L(L1) | LN(L1), PERF_MEM_SNOOP_NA, 0),
		  LV_L1, 0 },
		{ "ibs store L1 hit, locked",
		  ibs(PERF_MEM_OP_STORE, L(L1) | LN(L1), PERF_MEM_SNOOP_NA, 1),
		  LV_L1, F_WRITE | F_LOCKED },
		{ "ibs L2 hit (l2_miss=0)",
		  ibs(PERF_MEM_OP_LOAD, L(L2) | LN(L2), PERF_MEM_SNOOP_NA, 0),
		  LV_L2, F_MISS },
		{ "zen4 local L3 (cache_hit_st=1)",
		  ibs(PERF_MEM_OP_LOAD, L(L3) | LN(L3), PERF_MEM_SNOOP_NA, 0),
		  LV_L3, F_MISS },
		{ "zen4 local CCX, modified (HITM)",
		  ibs(PERF_MEM_OP_LOAD, L(L3) | LN(L3), PERF_MEM_SNOOP_HITM, 0),
		  LV_PEER, F_MISS | F_HITM },
		{ "zen4 near CCX cache (HOPS_0)",
		  ibs(PERF_MEM_OP_LOAD, L(REM_CCE1) | LN(ANY_CACHE) | REM | HOPS(0),
		      PERF_MEM_SNOOP_NA, 0),
		  LV_PEER, F_MISS },
		{ "zen4 near CCX cache, HITM",
		  ibs(PERF_MEM_OP_LOAD, L(REM_CCE1) | LN(ANY_CACHE) | REM | HOPS(0),
		      PERF_MEM_SNOOP_HITM, 0),
		  LV_PEER, F_MISS | F_HITM },
		{ "zen4 far CCX cache (HOPS_1)",
		  ibs(PERF_MEM_OP_LOAD, L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1),
		      PERF_MEM_SNOOP_NA, 0),
		  LV_RCACHE, F_MISS | F_REMOTE },
		{ "zen4 far CCX cache, HITM",
		  ibs(PERF_MEM_OP_LOAD, L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1),
		      PERF_MEM_SNOOP_HITM, 0),
		  LV_RCACHE, F_MISS | F_REMOTE | F_HITM },
		{ "zen4 local DRAM",
		  ibs(PERF_MEM_OP_LOAD, L(LOC_RAM) | LN(RAM), PERF_MEM_SNOOP_NA, 0),
		  LV_LDRAM, F_MISS },
		{ "zen4 remote DRAM (rmt_node)",
		  ibs(PERF_MEM_OP_LOAD, L(REM_RAM1) | LN(RAM) | REM | HOPS(1),
		      PERF_MEM_SNOOP_NA, 0),
		  LV_RDRAM, F_MISS | F_REMOTE },
		{ "zen4 CXL (ext mem)",
		  ibs(PERF_MEM_OP_LOAD, LN(CXL), PERF_MEM_SNOOP_NA, 0),
		  LV_OTHER, F_MISS },
		{ "zen4 remote PMEM (rmt_node)",
		  ibs(PERF_MEM_OP_LOAD, LN(PMEM) | REM | HOPS(1), PERF_MEM_SNOOP_NA, 0),
		  LV_OTHER, F_MISS | F_REMOTE },
		{ "ibs MAB hit, no data source",
		  ibs(PERF_MEM_OP_LOAD, L(LFB) | LN(LFB), PERF_MEM_SNOOP_NA, 0),
		  LV_LFB, F_MISS },
		{ "ibs uncached",
		  ibs(PERF_MEM_OP_LOAD, L(UNC) | LN(UNC), PERF_MEM_SNOOP_NA, 0),
		  LV_OTHER, F_MISS },
		{ "ibs store past L2: level n/a",
		  ibs(PERF_MEM_OP_STORE, PERF_MEM_S(LVL, NA) | LN(NA), PERF_MEM_SNOOP_NA, 0),
		  LV_UNK, F_WRITE | F_NO_LEVEL },
		/* AMD before Zen 4, g_data_src[] */
		{ "zen3 local cache (L3 or near CCX)",
		  ibs(PERF_MEM_OP_LOAD, L(L3) | L(REM_CCE1) | LN(ANY_CACHE) | HOPS(0),
		      PERF_MEM_SNOOP_NA, 0),
		  LV_PEER, F_MISS },
		{ "zen3 remote cache",
		  ibs(PERF_MEM_OP_LOAD, L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1),
		      PERF_MEM_SNOOP_NA, 0),
		  LV_RCACHE, F_MISS | F_REMOTE },
		{ "ibs op without load/store: excluded",
		  ibs_no_memop(), LV_UNK, F_NO_MEMOP },

		/* Arm SPE, Neoverse N1/N2/V1 common data source */
		{ "spe L1D", spe_common(0, SPE_L1D, 1), LV_L1, 0 },
		{ "spe L2, TLB miss", spe_common(0, SPE_L2, 2), LV_L2, F_MISS | F_TLB_MISS },
		{ "spe peer core", spe_common(0, SPE_PEER_CORE, 0), LV_PEER, F_MISS | F_PEER },
		{ "spe local cluster", spe_common(0, SPE_LOCAL_CLUSTER, 0),
		  LV_PEER, F_MISS | F_PEER },
		{ "spe peer cluster", spe_common(0, SPE_PEER_CLUSTER, 0),
		  LV_PEER, F_MISS | F_PEER },
		{ "spe system cache (LLC)", spe_common(0, SPE_SYS_CACHE, 0), LV_L3, F_MISS },
		{ "spe remote (other socket)", spe_common(0, SPE_REMOTE, 0),
		  LV_RCACHE, F_MISS | F_REMOTE | F_PEER },
		{ "spe DRAM", spe_common(0, SPE_DRAM, 0), LV_LDRAM, F_MISS },
		{ "spe store: level n/a", spe_common(1, SPE_L1D, 1), LV_UNK,
		  F_WRITE | F_NO_LEVEL },
		/* other Arm cores: arm_spe__synth_data_source_generic() */
		{ "spe generic L1D miss",
		  spe_generic(PERF_MEM_LVL_L1 | PERF_MEM_LVL_MISS, 0), LV_UNK, F_MISS },
		{ "spe generic LLC hit",
		  spe_generic(PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT, 0), LV_L3, F_MISS },
		{ "spe generic LLC miss",
		  spe_generic(PERF_MEM_LVL_L3 | PERF_MEM_LVL_MISS, 0), LV_UNK, F_MISS },
		{ "spe generic L1D hit", spe_generic(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, 0),
		  LV_L1, 0 },
		/* not a load or store: arm_spe__synth_data_source() returns 0 */
		{ "spe branch: excluded", 0, LV_UNK, F_NO_MEMOP },
	};
	struct dprof_mem_stats st = { 0 };
	struct dprof_mem mem;
	int ret = TEST_OK;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (ds_check(&cases[i], cases[i].val))
			ret = TEST_FAIL;
		dprof_mem__decode(&mem, cases[i].val, 0, false);
		dprof_mem_stats__add(&st, &mem);
	}
	/* the excluded ones are counted apart, not as hits */
	TEST_ASSERT_EQUAL("no memory op counted", (int)st.no_memop, 2);
	TEST_ASSERT_EQUAL("memory ops counted", (int)st.samples, (int)(ARRAY_SIZE(cases) - 2));
	TEST_ASSERT_EQUAL("hitm counted", (int)st.hitm, 8);

	/* latency: IBS puts dc_miss_lat in var1_dw, tag_to_ret_ctr in var2_w */
	dprof_mem__decode(&mem, ibs(PERF_MEM_OP_LOAD, L(LOC_RAM) | LN(RAM),
				    PERF_MEM_SNOOP_NA, 0),
			  (123ULL << 32) | 456, true);
	TEST_ASSERT_EQUAL("weight struct latency is var1", (int)mem.latency, 456);
	dprof_mem__decode(&mem, pebs_load(OP_LH | P(LVL, L2) | LEVEL(L2) |
					  P(SNOOP, NONE), 0, 0), 37, false);
	TEST_ASSERT_EQUAL("weight latency", (int)mem.latency, 37);
	TEST_ASSERT_VAL("no memory op has no latency",
			!dprof_mem__decode(&mem, ibs_no_memop(), 99, false) &&
			!mem.latency);
	return ret;
}
