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

/* Other cores' SPE: arm_spe__synth_data_source_generic(), loads and stores */
static u64 spe_generic_op(bool store, u64 mem_lvl, bool remote)
{
	union perf_mem_data_src data_src = { .mem_op = PERF_MEM_OP_NA };

	data_src.mem_op = store ? PERF_MEM_OP_STORE : PERF_MEM_OP_LOAD;
	data_src.mem_lvl = mem_lvl;
	if (remote)
		data_src.mem_remote = PERF_MEM_REMOTE_REMOTE;
	return data_src.val;
}

static u64 spe_generic(u64 mem_lvl, bool remote)
{
	return spe_generic_op(false, mem_lvl, remote);
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
#define LV_CXL		DPROF_MEM_LVL_CXL
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

/*
 * --- every encoding of every family, read by perf c2c and perf mem -----
 *
 * The data source tables of arch/x86/events/intel/ds.c (6.12), as each
 * family's init function leaves them, and the IBS DataSrc tables of
 * arch/x86/events/amd/ibs.c.  Each entry is decoded here and by perf's
 * own readers: c2c_decode_stats() (what perf c2c counts) and
 * perf_mem__lvl_scnprintf() (what perf mem report prints).  Where those
 * say L1, LFB, L2, LLC hit, local/remote HITM, peer, DRAM, CXL or
 * remote, the decoder must say the same.
 */
#define DS_TABLE	0x20	/* lnc_pebs_data_source[] uses 0x00-0x11 */

static const u64 pebs_data_source[DS_TABLE] = {
	P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA),/* 0x00:ukn L3 */
	OP_LH | P(LVL, L1)  | LEVEL(L1) | P(SNOOP, NONE),  /* 0x01: L1 local */
	OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE), /* 0x02: LFB hit */
	OP_LH | P(LVL, L2)  | LEVEL(L2) | P(SNOOP, NONE),  /* 0x03: L2 hit */
	OP_LH | P(LVL, L3)  | LEVEL(L3) | P(SNOOP, NONE),  /* 0x04: L3 hit */
	OP_LH | P(LVL, L3)  | LEVEL(L3) | P(SNOOP, MISS),  /* 0x05: L3 hit, snoop miss */
	OP_LH | P(LVL, L3)  | LEVEL(L3) | P(SNOOP, HIT),   /* 0x06: L3 hit, snoop hit */
	OP_LH | P(LVL, L3)  | LEVEL(L3) | P(SNOOP, HITM),  /* 0x07: L3 hit, snoop hitm */
	OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HIT),  /* 0x08: L3 miss snoop hit */
	OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HITM), /* 0x09: L3 miss snoop hitm*/
	OP_LH | P(LVL, LOC_RAM)  | LEVEL(RAM) | P(SNOOP, HIT),       /* 0x0a: L3 miss, shared */
	OP_LH | P(LVL, REM_RAM1) | REM | LEVEL(L3) | P(SNOOP, HIT),  /* 0x0b: L3 miss, shared */
	OP_LH | P(LVL, LOC_RAM)  | LEVEL(RAM) | SNOOP_NONE_MISS,     /* 0x0c: L3 miss, excl */
	OP_LH | P(LVL, REM_RAM1) | LEVEL(RAM) | REM | SNOOP_NONE_MISS, /* 0x0d: L3 miss, excl */
	OP_LH | P(LVL, IO)  | LEVEL(NA) | P(SNOOP, NONE), /* 0x0e: I/O */
	OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE), /* 0x0f: uncached */
};

static const u64 lnc_pebs_data_source[DS_TABLE] = {
	P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA),	/* 0x00: ukn L3 */
	OP_LH | P(LVL, L1)  | LEVEL(L1) | P(SNOOP, NONE),	/* 0x01: L1 hit */
	OP_LH | P(LVL, L1)  | LEVEL(L1) | P(SNOOP, NONE),	/* 0x02: L1 hit */
	OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE),	/* 0x03: LFB/L1 MHB hit */
	0,							/* 0x04: Reserved */
	OP_LH | P(LVL, L2)  | LEVEL(L2) | P(SNOOP, NONE),	/* 0x05: L2 Hit */
	OP_LH | LEVEL(L2_MHB) | P(SNOOP, NONE),			/* 0x06: L2 MHB Hit */
	0,							/* 0x07: Reserved */
	OP_LH | P(LVL, L3)  | LEVEL(L3) | P(SNOOP, NONE),	/* 0x08: L3 Hit */
	0,							/* 0x09: Reserved */
	0,							/* 0x0a: Reserved */
	0,							/* 0x0b: Reserved */
	OP_LH | P(LVL, L3)  | LEVEL(L3) | P(SNOOPX, FWD),	/* 0x0c: L3 Hit Snoop Fwd */
	OP_LH | P(LVL, L3)  | LEVEL(L3) | P(SNOOP, HITM),	/* 0x0d: L3 Hit Snoop HitM */
	0,							/* 0x0e: Reserved */
	P(OP, LOAD) | P(LVL, MISS) | P(LVL, L3)  | LEVEL(L3) | P(SNOOP, HITM), /* 0x0f */
	OP_LH | LEVEL(MSC) | P(SNOOP, NONE),			/* 0x10: MSC Hit */
	OP_LH | P(LVL, LOC_RAM)  | LEVEL(RAM) | P(SNOOP, NONE), /* 0x11: Local Memory */
};

static void ds_nhm(u64 *ds)
{
	ds[0x05] = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT);
	ds[0x06] = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM);
	ds[0x07] = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM);
}

static void ds_skl(u64 *ds, bool pmem)
{
	u64 pmem_or_l4 = pmem ? LEVEL(PMEM) : LEVEL(L4);

	ds[0x08] = OP_LH | pmem_or_l4 | P(SNOOP, HIT);
	ds[0x09] = OP_LH | pmem_or_l4 | REM | P(SNOOP, HIT);
	ds[0x0b] = OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE);
	ds[0x0c] = OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOPX, FWD);
	ds[0x0d] = OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM);
}

static void ds_skl_l4(u64 *ds) { ds_skl(ds, false); }
static void ds_skl_pmem(u64 *ds) { ds_skl(ds, true); }

static void ds_grt(u64 *ds)
{
	ds[0x05] = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT);
	ds[0x06] = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM);
	ds[0x08] = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD);
}

static void ds_cmt(u64 *ds)
{
	ds[0x07] = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD);
	ds[0x08] = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM);
	ds[0x0a] = OP_LH | P(LVL, LOC_RAM)  | LEVEL(RAM) | P(SNOOP, NONE);
	ds[0x0b] = OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE);
	ds[0x0c] = OP_LH | LEVEL(RAM) | REM | P(SNOOPX, FWD);
	ds[0x0d] = OP_LH | LEVEL(RAM) | REM | P(SNOOP, HITM);
}

/* A PMU's table: a base table and the init function of that family. */
static const struct pebs_family {
	const char	*name;
	const u64	*base;
	void		(*init)(u64 *ds);
} pebs_families[] = {
	{ "snb..bdw",			pebs_data_source,	NULL },
	{ "nhm/wsm",			pebs_data_source,	ds_nhm },
	{ "skl/icl (L4)",		pebs_data_source,	ds_skl_l4 },
	{ "skx/icx/spr (PMEM)",		pebs_data_source,	ds_skl_pmem },
	{ "adl/mtl cpu_core",		pebs_data_source,	ds_skl_l4 },
	{ "grt/adl cpu_atom",		pebs_data_source,	ds_grt },
	{ "cmt/mtl/lnl cpu_atom",	pebs_data_source,	ds_cmt },
	{ "lnc/lnl cpu_core",		lnc_pebs_data_source,	NULL },
};

/* perf_ibs_get_mem_lvl() for a load that missed the L2, with DataSrc */
static const u64 ibs_g_data_src[8] = {
	[2] = L(L3) | L(REM_CCE1) | LN(ANY_CACHE) | HOPS(0),	/* LOC_CACHE */
	[3] = L(LOC_RAM) | LN(RAM),				/* DRAM */
	[4] = L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1),	/* REM_CACHE */
	[7] = L(IO) | LN(IO),					/* IO */
};

static const u64 ibs_g_zen4_data_src[32] = {
	[1] = L(L3) | LN(L3),					/* EXT_LOC_CACHE */
	[2] = L(REM_CCE1) | LN(ANY_CACHE) | REM | HOPS(0),	/* EXT_NEAR_CCX_CACHE */
	[3] = L(LOC_RAM) | LN(RAM),				/* EXT_DRAM */
	[5] = L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1),	/* EXT_FAR_CCX_CACHE */
	[6] = LN(PMEM),						/* EXT_PMEM */
	[7] = L(IO) | LN(IO),					/* EXT_IO */
	[8] = LN(CXL),						/* EXT_EXT_MEM */
};

static u64 ibs_lvl(bool zen4, unsigned int dsrc, bool rmt_node)
{
	u64 val = zen4 ? ibs_g_zen4_data_src[dsrc] : ibs_g_data_src[dsrc];
	bool applicable = zen4 ? dsrc == 3 || dsrc == 6 || dsrc == 8 : dsrc == 3;

	if (!val)
		return 0;
	if (rmt_node && applicable) {
		if (dsrc == 3)
			val = L(REM_RAM1) | LN(RAM) | REM | HOPS(1);
		else
			val |= REM | HOPS(1);
	}
	return val;
}

/*
 * What perf c2c and perf mem make of @val, against the decoder.
 * Returns NULL when they agree, else what disagrees.
 */
static const char *ds_oracle(u64 val, struct dprof_mem *mem, char *lvl, size_t sz)
{
	union perf_mem_data_src src = { .val = val };
	struct c2c_stats st = { 0 };
	struct mem_info *mi = mem_info__new();
	bool rmt;

	if (!mi)
		return "no memory";
	*mem_info__data_src(mi) = src;
	mem_info__daddr(mi)->addr = 1;	/* c2c skips samples without one */
	c2c_decode_stats(&st, mi);
	perf_mem__lvl_scnprintf(lvl, sz, mi);
	mem_info__put(mi);
	/*
	 * c2c's "remote" is REM_CCE1/2, a cache that is not this core's: with
	 * HOPS_0 (Zen 4's near CCX) that is another core of this node.
	 */
	rmt = (st.rmt_hit || st.rmt_hitm || st.rmt_peer) &&
	      src.mem_hops != PERF_MEM_HOPS_0;

	if (!dprof_mem__decode(mem, val, 0, false))
		return "not a memory op";
	if (st.ld_l1hit && mem->level != DPROF_MEM_LVL_L1)
		return "c2c: L1 hit";
	if (st.ld_fbhit && mem->level != DPROF_MEM_LVL_LFB)
		return "c2c: LFB hit";
	if (st.ld_l2hit && !st.lcl_peer && mem->level != DPROF_MEM_LVL_L2)
		return "c2c: L2 hit";
	if (st.ld_llchit && !st.lcl_peer && !rmt && mem->level != DPROF_MEM_LVL_L3)
		return "c2c: LLC hit";
	if (st.lcl_hitm && (mem->level != DPROF_MEM_LVL_PEER || !mem->hitm || mem->remote))
		return "c2c: local HITM";
	if (st.rmt_hitm && (mem->remote != rmt || !mem->hitm))
		return "c2c: remote HITM";
	if (st.rmt_hitm && !rmt && mem->level != DPROF_MEM_LVL_PEER)
		return "c2c: HITM in a core of this node";
	if (st.lcl_peer && (mem->level != DPROF_MEM_LVL_PEER || mem->remote))
		return "c2c: local peer";
	if (st.rmt_peer && !mem->remote)
		return "c2c: remote peer";
	if (!!(st.lcl_peer + st.rmt_peer) != mem->peer)
		return "c2c: peer or not";
	if (st.lcl_dram && mem->level != DPROF_MEM_LVL_LOCAL_DRAM)
		return "c2c: local DRAM";
	if (st.rmt_dram && !rmt && src.mem_lvl_num == PERF_MEM_LVLNUM_RAM &&
	    mem->level != DPROF_MEM_LVL_REMOTE_DRAM)
		return "c2c: remote DRAM";
	if ((st.ld_uncache || st.ld_io) && mem->level != DPROF_MEM_LVL_OTHER)
		return "c2c: uncached or I/O";
	if (rmt && !mem->remote)
		return "c2c: remote";
	if (strstr(lvl, "CXL") && mem->level != DPROF_MEM_LVL_CXL)
		return "perf mem: CXL";
	if (strstr(lvl, "Remote") && src.mem_hops != PERF_MEM_HOPS_0 && !mem->remote)
		return "perf mem: remote";
	if (!strstr(lvl, "Remote") && !rmt && !st.rmt_dram && mem->remote)
		return "perf mem: not remote";
	if (st.ld_miss && !(src.mem_lvl & PERF_MEM_LVL_HIT) &&
	    (!mem->miss || mem->level != DPROF_MEM_LVL_UNKNOWN))
		return "c2c: a miss, source unknown";
	if (!mem->level_known)
		return "no level";
	return NULL;
}

static int ds_oracle_check(const char *family, unsigned int idx, u64 val)
{
	struct dprof_mem mem;
	char lvl[96] = "";
	const char *bad = ds_oracle(val, &mem, lvl, sizeof(lvl));

	pr_debug("dprof datasrc: %-22s %#04x %#014llx perf: %-40s -> %s%s%s%s %s%s\n",
		 family, idx, (unsigned long long)val, lvl,
		 mem.level_known ? dprof_mem_level__str(mem.level) : "level n/a",
		 mem.hitm ? " hitm" : "", mem.peer ? " peer" : "",
		 mem.remote ? " remote" : "", bad ? "FAILED: " : "ok", bad ?: "");
	return bad ? -1 : 0;
}

/* Returns the number of encodings checked, or -1 if one disagrees. */
static int ds_kernel_tables(void)
{
	static const u64 spe_src[] = {
		SPE_L1D, SPE_L2, SPE_PEER_CORE, SPE_LOCAL_CLUSTER, SPE_SYS_CACHE,
		SPE_PEER_CLUSTER, SPE_REMOTE, SPE_DRAM,
	};
	int n = 0, err = 0;
	unsigned int f, i;
	u64 ds[DS_TABLE];

	for (f = 0; f < ARRAY_SIZE(pebs_families); f++) {
		memcpy(ds, pebs_families[f].base, sizeof(ds));
		if (pebs_families[f].init)
			pebs_families[f].init(ds);
		for (i = 0; i < DS_TABLE; i++) {
			if (!ds[i])
				continue;
			err |= ds_oracle_check(pebs_families[f].name, i,
					       pebs_load(ds[i], i & 1, 0));
			n++;
		}
	}
	for (f = 0; f < 2; f++) {
		const char *name = f ? "zen4 (IBS_CAPS_ZEN4)" : "zen1-3";
		unsigned int rmt;

		for (i = 0; i < (f ? 32u : 8u); i++) {
			for (rmt = 0; rmt < 2; rmt++) {
				u64 lvl = ibs_lvl(f, i, rmt);

				if (!lvl)
					continue;
				err |= ds_oracle_check(name, i | rmt << 5,
						       ibs(PERF_MEM_OP_LOAD, lvl,
							   PERF_MEM_SNOOP_NA, 0));
				n++;
			}
		}
		/* cache_hit_st: a line modified in another core's cache */
		if (f) {
			err |= ds_oracle_check(name, 1, ibs(PERF_MEM_OP_LOAD, ibs_lvl(1, 1, 0),
							    PERF_MEM_SNOOP_HITM, 0));
			err |= ds_oracle_check(name, 2, ibs(PERF_MEM_OP_LOAD, ibs_lvl(1, 2, 0),
							    PERF_MEM_SNOOP_HITM, 0));
			n += 2;
		}
	}
	for (i = 0; i < ARRAY_SIZE(spe_src); i++, n++)
		err |= ds_oracle_check("neoverse spe", spe_src[i],
				       spe_common(0, spe_src[i], 1));
	return err ? -1 : n;
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
		  LV_RCACHE, F_MISS | F_REMOTE },
		{ "skl 0x0d remote cache, HITM",
		  pebs_load(OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM), 0, 0),
		  LV_RCACHE, F_MISS | F_REMOTE | F_HITM },
		/* __intel_pmu_pebs_data_source_grt() / _cmt(): E-cores */
		{ "grt 0x08 L3 hit, snoop forward",
		  pebs_load(OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD), 0, 0),
		  LV_L3, F_MISS },
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
		  LV_CXL, F_MISS },
		{ "zen4 remote CXL (rmt_node)",
		  ibs(PERF_MEM_OP_LOAD, LN(CXL) | REM | HOPS(1), PERF_MEM_SNOOP_NA, 0),
		  LV_CXL, F_MISS | F_REMOTE },
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
		{ "zen3 local cache (L3 or near CCX): an LLC hit, as c2c counts it",
		  ibs(PERF_MEM_OP_LOAD, L(L3) | L(REM_CCE1) | LN(ANY_CACHE) | HOPS(0),
		      PERF_MEM_SNOOP_NA, 0),
		  LV_L3, F_MISS },
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
		/* c2c counts a store's miss only at L1: it is a miss at L3 too */
		{ "spe generic store LLC miss",
		  spe_generic_op(true, PERF_MEM_LVL_L3 | PERF_MEM_LVL_MISS, 0), LV_UNK,
		  F_MISS | F_WRITE },
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
	TEST_ASSERT_VAL("every kernel encoding decoded as perf c2c and perf mem read it",
			ds_kernel_tables() > 100);

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
