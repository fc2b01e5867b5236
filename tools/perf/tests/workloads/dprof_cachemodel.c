// SPDX-License-Identifier: GPL-2.0
/*
 * perf test -w dprof_cachemodel SCENARIO SEED NR_CPUS CACHE_SIZE PERIOD PLATFORM OUT
 *	[STEPS [MINLAT]]
 *
 * Runs a planted scenario on the dprof machine model (tests/dprof/model.c)
 * and writes what a memory-sampling PMU and the kmem tracepoints would
 * have recorded on that machine as OUT, a perf.data, so that the whole
 * path (perf.data -> perf script, perf dprof report) is exercised on
 * memory-PMU data without the hardware:
 *
 *  - ibs:  an "ibs_op//" event on an AMD family 19h model 11h (Zen 4);
 *          data_src and weight as arch/x86/events/amd/ibs.c fills them,
 *          including op samples that carry no memory operation, and
 *          stores that missed the L2 (IBS gives no level for those);
 *  - zen2: the same on an AMD family 17h model 31h (Zen 2): g_data_src[],
 *          an L3 hit is L3 | REM_CCE1 | ANY_CACHE | HOPS_0;
 *  - pebs (skx): "cpu/mem-loads,ldlat=30/P" and "cpu/mem-stores/P" on a
 *          Skylake-X, data_src as arch/x86/events/intel/ds.c fills it;
 *          loads under the latency threshold are not sampled;
 *  - spr:  Sapphire Rapids: the {cpu/mem-loads-aux/,cpu/mem-loads,ldlat=30/}
 *          group (HEADER_GROUP_DESC; the leader writes no samples) and
 *          store latency stores (store_latency_data());
 *  - adl:  Alder Lake: the first half of the CPUs are cpu_core (Golden
 *          Cove, the aux group, skl data sources), the rest cpu_atom
 *          (Gracemont, grt data sources), each with its own PMU type;
 *  - spe:  Arm Neoverse N1: an arm_spe_0 event whose samples are SPE
 *          records in the AUX area, as the hardware writes them (PC,
 *          context, op type, events, latency counters, data VA, data
 *          source, timestamp; 64 bytes), handed to perf.data as perf
 *          record does: PERF_RECORD_AUX from the kernel, PERF_RECORD_AUXTRACE
 *          with the data, PERF_RECORD_TIME_CONV and the AUXTRACE_INFO
 *          util/arm-spe.c reads, and the HEADER_AUXTRACE index;
 *          min_latency (MINLAT, 30 unless given) drops the records of
 *          loads and stores alike whose total latency is below it;
 *  - spev2: the same on a Neoverse V2 (MIDR 0x410fd4f0), which perf 6.12
 *          decodes with the generic SPE mapping (levels from the events
 *          packet: L1D and LLC access/refill, remote access);
 *  - kmem:kmem_cache_alloc (with the cache name, kernel-patches/0001) and
 *    kmem:kmem_cache_free samples for every object, with a tracing data
 *    section written here from the 6.12 format files, so nothing depends
 *    on the tracefs of the machine running the test.
 *
 * OUT.truth gets the ground truth: per type (slab cache) the planted
 * class and the true causes of the sampled accesses that missed the L1
 * as written to OUT.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/perf_event.h>
#include <linux/stringify.h>
#include <linux/zalloc.h>
#include <perf/event.h>

#include "../tests.h"
#include "util/arm-spe.h"
#include "util/arm-spe-decoder/arm-spe-pkt-decoder.h"
#include "util/auxtrace.h"
#include "util/header.h"
#include "util/strbuf.h"
#include "tests/dprof/model.h"

#define DCM_PID			1000		/* the task on CPU n is DCM_PID + n */
#define DCM_IBS_OP_TYPE		11		/* ibs_op's PMU type on that machine */
#define DCM_LDLAT		30
#define DCM_ID_ALLOC		497		/* tracepoint ids in the format files */
#define DCM_ID_FREE		499
#define DCM_ROUND		4096		/* events per FINISHED_ROUND */
#define DCM_NAME_ALIGN		64
#define DCM_CALL_SITE		0xffffffff81200000ull
#define DCM_TP_IP		0xffffffff81300000ull
#define DCM_NON_MEM_IP		0xffffffff81400000ull
#define DCM_PAGE_OFFSET		0xffff888000000000ull
#define DCM_MAGIC		0x32454c4946524550ull	/* "PERFILE2" */
#define DCM_GFP_KERNEL		0xcc0u		/* __GFP_RECLAIM | __GFP_IO | __GFP_FS */
/* MEM_TRANS_RETIRED.LOAD_LATENCY (event 0xcd, umask 0x01) on Skylake-SP */
#define DCM_PEBS_LOADS		0x1cd
#define DCM_PEBS_STORES		0x82d0		/* MEM_INST_RETIRED.ALL_STORES */
#define DCM_SEED_MIX		0x9E3779B97F4A7C15ull	/* 2^64 / phi */
#define DCM_TRACE_PAGE_SIZE	4096
#define DCM_SITE_STRIDE		0x100		/* between the types' call sites */
#define DCM_FREE_SITE		0x80		/* free site: alloc site + this */

/* The trace records the format files below describe, on x86_64. */
struct dcm_tp_common {
	u16	type;
	u8	flags;
	u8	preempt_count;
	s32	pid;
};

struct dcm_tp_alloc {
	struct dcm_tp_common	common;
	u64	call_site;
	u64	ptr;
	u64	bytes_req;
	u64	bytes_alloc;
	u64	gfp_flags;
	s32	node;
	u8	accounted;
	u32	name;		/* __data_loc: offset | len << 16 */
};

struct dcm_tp_free {
	struct dcm_tp_common	common;
	u64	call_site;
	u64	ptr;
	u32	name;
};

/* The string of a __data_loc field follows it. */
#define DCM_TP_STR_AT(type)	(offsetof(type, name) + sizeof(u32))

enum dcm_platform {
	DCM_ZEN2,
	DCM_ZEN4,
	DCM_SKX,
	DCM_SPR,
	DCM_ADL,
	DCM_SPE,
	DCM_SPE_V2,
};

static const char * const dcm_platform_name[] = {
	[DCM_ZEN2] = "zen2", [DCM_ZEN4] = "ibs", [DCM_SKX] = "pebs",
	[DCM_SPR] = "spr", [DCM_ADL] = "adl", [DCM_SPE] = "spe",
	[DCM_SPE_V2] = "spev2",
};

#define DCM_TYPE_CPU_ATOM	10	/* cpu_atom's PMU type on that Alder Lake */
#define DCM_PEBS_LOADS_AUX	0x8203	/* mem-loads-aux */
#define DCM_PEBS_STLAT		0x2cd	/* MEM_TRANS_RETIRED.STORE_SAMPLE */
#define DCM_GRT_STORES		0x6d0	/* MEM_UOPS_RETIRED.ALL_STORES */

enum dcm_evsel {
	DCM_LOADS_AUX,		/* Sapphire Rapids, cpu_core: the group leader */
	DCM_LOADS,		/* ibs_op//, or the PEBS load latency event */
	DCM_STORES,		/* PEBS only */
	DCM_ATOM_LOADS,		/* Alder Lake cpu_atom */
	DCM_ATOM_STORES,
	DCM_ALLOC,
	DCM_FREE,
	DCM_DUMMY,		/* Arm SPE: perf record's tracking event */
	DCM__MAX,
};

#define DCM_ACCESS_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
				 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
				 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | \
				 PERF_SAMPLE_PHYS_ADDR)
#define DCM_TP_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
				 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

/*
 * Arm SPE on a Neoverse N1 (MIDR 0x410fd0c0) as arm_spe_recording_options()
 * sets it up for "perf dprof record -a": arm_spe_0 (PMU type 10 there),
 * ts_enable, load_filter and store_filter, min_latency, the period; the
 * CPU, DATA_SRC (so that report knows), -d and -W (WEIGHT on arm64)
 * sample bits; and a dummy:u tracking event with context switches.
 */
#define DCM_SPE_TYPE		10
#define DCM_SPE_CONFIG		(BIT_ULL(0) | BIT_ULL(33) | BIT_ULL(34))
#define DCM_SPE_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
				 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
				 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
#define DCM_DUMMY_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
				 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
				 PERF_SAMPLE_PERIOD)
#define DCM_SPE_REC		64	/* PMSIDR_EL1.MaxSize on N1 */
#define DCM_SPE_BUF		4096	/* AUX data per PERF_RECORD_AUXTRACE */
/* the generic timer at 100 MHz: 10 ns a tick, exact in TIME_CONV */
#define DCM_SPE_TICK_NS		10
#define DCM_SPE_TIME_SHIFT	24
#define DCM_SPE_TIME_ZERO	500000000ull

/* include/trace/events/kmem.h of 6.12 with kernel-patches/0001, on x86_64 */
#define DCM_GFP_PRINT \
	"(REC->gfp_flags) ? __print_flags(REC->gfp_flags, \"|\", " \
	"{(unsigned long)(((gfp_t)(0x400u|0x800u)) | ((gfp_t)0x40u) | ((gfp_t)0x80u)), " \
	"\"GFP_KERNEL\"}, " \
	"{(unsigned long)((gfp_t)0x20u | ((gfp_t)0x800u)), \"GFP_ATOMIC\"}, " \
	"{(unsigned long)((gfp_t)0x800u), \"GFP_NOWAIT\"}, " \
	"{(unsigned long)((gfp_t)0x100u), \"__GFP_ZERO\"}) : \"none\""

/* The common fields and call_site, ptr: the start of both formats. */
#define DCM_FIELDS_SITE_PTR \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n" \
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"

static const char dcm_fmt_alloc[] =
	"name: kmem_cache_alloc\n"
	"ID: " __stringify(DCM_ID_ALLOC) "\n"
	"format:\n"
	DCM_FIELDS_SITE_PTR
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n"
	"\tfield:bool accounted;\toffset:52;\tsize:1;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d accounted=%s name=%s\", (void *)REC->call_site, REC->ptr, REC->bytes_req, REC->bytes_alloc, "
	DCM_GFP_PRINT ", REC->node, REC->accounted ? \"true\" : \"false\", __get_str(name)\n";

#define DCM_FREE_PRINT "print fmt: \"call_site=%pS ptr=%p name=%s\", (void *)REC->call_site, REC->ptr, __get_str(name)\n"

static const char dcm_fmt_free[] =
	"name: kmem_cache_free\n"
	"ID: " __stringify(DCM_ID_FREE) "\n"
	"format:\n"
	DCM_FIELDS_SITE_PTR
	"\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\n"
	DCM_FREE_PRINT;

static const char dcm_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char dcm_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

struct dcm_type_truth {
	u64	samples;
	u64	misses;
	u64	by_class[DPROF_MODEL_COLD + 1];
	u64	by_level[DPROF_MODEL_LEVEL__MAX];
};

struct dcm {
	FILE			*fp;
	enum dcm_platform	plat;
	bool			ibs;
	bool			spe;		/* Arm SPE: AUX area records */
	u64			ds_core[16];	/* PEBS data source tables */
	u64			ds_atom[16];
	u32			nr_cpus;
	u64			period;
	u64			data_offset;
	u64			data_size;
	u64			nr_events;
	u64			rnd;
	struct perf_event_attr	attr[DCM__MAX];
	const char		*name[DCM__MAX];
	int			nr_evsels;
	struct dcm_type_truth	truth[DPROF_MODEL_MAX_TYPES];
	u64			nr_non_mem;
	u64			nr_below_ldlat;
	u32			spe_minlat;
	/* Arm SPE: each CPU's AUX data not yet written, the AUXTRACE index */
	u8			spe_buf[DPROF_MODEL_MAX_CPUS][DCM_SPE_BUF];
	u32			spe_len[DPROF_MODEL_MAX_CPUS];
	u64			spe_aux_off[DPROF_MODEL_MAX_CPUS];
	u64			spe_last_time[DPROF_MODEL_MAX_CPUS];
	u64			*spe_index;	/* file offsets of the AUXTRACE events */
	u32			nr_spe_index;
};

static u64 dcm__rand(struct dcm *d)
{
	d->rnd ^= d->rnd << 13;
	d->rnd ^= d->rnd >> 7;
	d->rnd ^= d->rnd << 17;
	return d->rnd;
}

static u64 dcm__id(enum dcm_evsel ev, u32 cpu)
{
	return (ev + 1) * 1000 + cpu;
}

static u64 dcm__time(u64 t)
{
	return 1000000000ull + t * 20;
}

static int dcm__write(struct dcm *d, const void *buf, size_t len)
{
	if (fwrite(buf, 1, len, d->fp) != len)
		return -errno;
	d->data_size += len;
	return 0;
}

static int dcm__round(struct dcm *d)
{
	struct perf_event_header h = {
		.type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(h),
	};

	if (++d->nr_events % DCM_ROUND)
		return 0;
	return dcm__write(d, &h, sizeof(h));
}

/* An access sample: the fields of DCM_ACCESS_SAMPLE_TYPE in order. */
static int dcm__access(struct dcm *d, enum dcm_evsel ev, u32 cpu, u64 time,
		       u64 ip, u64 addr, u64 weight, u64 data_src)
{
	struct {
		struct perf_event_header h;
		u64 identifier, ip;
		u32 pid, tid;
		u64 time, addr, id;
		u32 cpu, res;
		u64 period, weight, data_src, phys_addr;
	} s = {
		.h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL,
		       .size = sizeof(s) },
		.identifier = dcm__id(ev, cpu), .ip = ip,
		.pid = DCM_PID + cpu, .tid = DCM_PID + cpu,
		.time = dcm__time(time), .addr = addr, .id = dcm__id(ev, cpu),
		.cpu = cpu, .period = d->period, .weight = weight,
		.data_src = data_src,
		.phys_addr = addr ? addr - DCM_PAGE_OFFSET : 0,
	};

	return dcm__write(d, &s, sizeof(s)) ?: dcm__round(d);
}

/* A kmem tracepoint sample; @raw is the trace record, @len its size. */
static int dcm__tp(struct dcm *d, enum dcm_evsel ev, u32 cpu, u64 time,
		   const void *raw, u32 len)
{
	struct {
		struct perf_event_header h;
		u64 identifier, ip;
		u32 pid, tid;
		u64 time, id;
		u32 cpu, res;
		u64 period;
		u32 size;
	} __packed s = {
		.h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL },
		.identifier = dcm__id(ev, cpu), .ip = DCM_TP_IP + ev * 0x40,
		.pid = DCM_PID + cpu, .tid = DCM_PID + cpu,
		.time = dcm__time(time), .id = dcm__id(ev, cpu), .cpu = cpu,
		.period = 1,
	};
	static const u64 zero;
	/* the kernel pads the raw data so that size + 4 is a multiple of 8 */
	u32 size = roundup(len + sizeof(u32), sizeof(u64)) - sizeof(u32);

	s.size = size;
	s.h.size = sizeof(s) + size;
	return dcm__write(d, &s, sizeof(s)) ?: dcm__write(d, raw, len) ?:
	       dcm__write(d, &zero, size - len) ?: dcm__round(d);
}

/* The common fields of a trace record. */
static void dcm__tp_common(u8 *rec, u16 id, u32 cpu)
{
	struct dcm_tp_common common = { .type = id, .pid = DCM_PID + cpu };

	memcpy(rec, &common, sizeof(common));
}

/* A __data_loc string at the end of a record: offset | len << 16. */
static u32 dcm__tp_str(u8 *rec, u32 at, u32 off, const char *str)
{
	u32 len = strlen(str) + 1, loc = off | len << 16;

	memcpy(rec + at, &loc, sizeof(loc));
	memcpy(rec + off, str, len);
	return off + len;
}

static int dcm__alloc(struct dprof_model *m, struct dprof_model_type *t,
		      u64 base, u32 cpu)
{
	struct dcm *d = m->ctx;
	u8 rec[128] = { 0 };
	u64 site = DCM_CALL_SITE + t->idx * DCM_SITE_STRIDE, gfp = DCM_GFP_KERNEL;
	s32 node = 0;
	u32 len;

	dcm__tp_common(rec, DCM_ID_ALLOC, cpu);
	memcpy(rec + offsetof(struct dcm_tp_alloc, call_site), &site, sizeof(site));
	memcpy(rec + offsetof(struct dcm_tp_alloc, ptr), &base, sizeof(base));
	memcpy(rec + offsetof(struct dcm_tp_alloc, bytes_req), &t->size, sizeof(u64));
	memcpy(rec + offsetof(struct dcm_tp_alloc, bytes_alloc), &t->size, sizeof(u64));
	memcpy(rec + offsetof(struct dcm_tp_alloc, gfp_flags), &gfp, sizeof(gfp));
	memcpy(rec + offsetof(struct dcm_tp_alloc, node), &node, sizeof(node));
	rec[offsetof(struct dcm_tp_alloc, accounted)] = 0;
	len = dcm__tp_str(rec, offsetof(struct dcm_tp_alloc, name),
			  DCM_TP_STR_AT(struct dcm_tp_alloc), t->name);
	return dcm__tp(d, DCM_ALLOC, cpu, m->time, rec, len);
}

static int dcm__free(struct dprof_model *m, struct dprof_model_type *t,
		     u64 base, u32 cpu)
{
	struct dcm *d = m->ctx;
	u8 rec[96] = { 0 };
	u64 site = DCM_CALL_SITE + t->idx * DCM_SITE_STRIDE + DCM_FREE_SITE;
	u32 len;

	dcm__tp_common(rec, DCM_ID_FREE, cpu);
	memcpy(rec + offsetof(struct dcm_tp_free, call_site), &site, sizeof(site));
	memcpy(rec + offsetof(struct dcm_tp_free, ptr), &base, sizeof(base));
	len = dcm__tp_str(rec, offsetof(struct dcm_tp_free, name),
			  DCM_TP_STR_AT(struct dcm_tp_free), t->name);
	return dcm__tp(d, DCM_FREE, cpu, m->time, rec, len);
}

#define LVL(x)		(PERF_MEM_S(LVL, x) | PERF_MEM_S(LVL, HIT))
#define LN(x)		PERF_MEM_S(LVLNUM, x)
#define REM		PERF_MEM_S(REMOTE, REMOTE)
#define HOPS(x)		PERF_MEM_S(HOPS, x)
#define OP(x)		PERF_MEM_S(OP, x)
#define SNOOP(x)	PERF_MEM_S(SNOOP, x)
#define SNOOPX(x)	PERF_MEM_S(SNOOPX, x)
#define TLB(x)		PERF_MEM_S(TLB, x)
#define LOCK(x)		PERF_MEM_S(LOCK, x)
#define BLK(x)		PERF_MEM_S(BLK, x)
/* PERF_MEM_NA of include/linux/perf_event.h */
#define DCM_MEM_NA	(OP(NA) | PERF_MEM_S(LVL, NA) | SNOOP(NA) | LOCK(NA) | TLB(NA))

/*
 * AMD IBS op on Zen 4 (IBS_CAPS_ZEN4, cache_hit_st valid): perf_ibs_get_mem_lvl()
 * and friends.  A line in another core's cache comes from "local L3 or
 * other L1/L2 in the CCX" (DataSrc 1) or "another CCX" (DataSrc 2), with
 * cache_hit_st 0 (M state: HITM) when it was modified there.  Only loads
 * have a DataSrc: a store that missed the L2 has no level.  Before Zen 4
 * (g_data_src[]) the local L3 and the CCX's other cores are one DataSrc,
 * another CCX is a "remote cache" one hop away.
 */
static u64 dcm__ibs_data_src(const struct dprof_model_sample *s, bool zen4)
{
	u64 val = (s->write ? OP(STORE) : OP(LOAD)) | TLB(L1) | TLB(HIT) |
		  LOCK(NA) | SNOOP(NA);

	if (s->level == DPROF_MODEL_L1)
		return val | LVL(L1) | LN(L1);
	if (s->level == DPROF_MODEL_L2)
		return val | LVL(L2) | LN(L2);
	if (s->write)
		return val | PERF_MEM_S(LVL, NA) | LN(NA);
	if (s->level == DPROF_MODEL_DRAM)
		return val | LVL(LOC_RAM) | LN(RAM);
	if (!zen4 && s->remote_ccx)	/* g_data_src[IBS_DATA_SRC_REM_CACHE] */
		val |= LVL(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1);
	else if (!zen4)			/* g_data_src[IBS_DATA_SRC_LOC_CACHE] */
		val |= LVL(L3) | LVL(REM_CCE1) | LN(ANY_CACHE) | HOPS(0);
	else if (s->remote_ccx)
		val |= LVL(REM_CCE1) | LN(ANY_CACHE) | REM | HOPS(0);
	else
		val |= LVL(L3) | LN(L3);
	if (s->level == DPROF_MODEL_PEER_HITM)
		val = (val & ~SNOOP(NA)) | SNOOP(HITM);
	return val;
}

/* IBS DcMissLat: loads that missed the L1 only. */
static u64 dcm__ibs_weight(struct dcm *d, const struct dprof_model_sample *s)
{
	static const u32 lat[DPROF_MODEL_LEVEL__MAX] = { 0, 14, 50, 70, 260 };

	if (s->write || s->level == DPROF_MODEL_L1)
		return 0;
	return lat[s->level] + (s->remote_ccx ? 60 : 0) + dcm__rand(d) % 16;
}

#define OP_LH		(OP(LOAD) | PERF_MEM_S(LVL, HIT))

/*
 * Intel Skylake-X PEBS: load_latency_data() with pebs_data_source[] as
 * __intel_pmu_pebs_data_source_skl() leaves it, a peer in the other
 * half of the model standing for the other socket; stores through
 * precise_datala_hsw(), which knows L1 hit or miss and nothing else.
 */
static u64 dcm__pebs_data_src(const struct dprof_model_sample *s)
{
	u64 val;

	if (s->write) {
		val = DCM_MEM_NA & ~(OP(NA) | PERF_MEM_S(LVL, NA));
		val |= OP(STORE) | PERF_MEM_S(LVL, L1);
		return val | (s->hit ? PERF_MEM_S(LVL, HIT) : PERF_MEM_S(LVL, MISS));
	}
	if (s->level == DPROF_MODEL_L1)				/* 0x01 */
		val = OP_LH | PERF_MEM_S(LVL, L1) | LN(L1) | SNOOP(NONE);
	else if (s->level == DPROF_MODEL_L2)			/* 0x03 */
		val = OP_LH | PERF_MEM_S(LVL, L2) | LN(L2) | SNOOP(NONE);
	else if (s->level == DPROF_MODEL_PEER)			/* 0x06, 0x0c */
		val = s->remote_ccx ? OP_LH | LN(ANY_CACHE) | REM | SNOOPX(FWD) :
				      OP_LH | PERF_MEM_S(LVL, L3) | LN(L3) | SNOOP(HIT);
	else if (s->level == DPROF_MODEL_PEER_HITM)		/* 0x07, 0x0d */
		val = s->remote_ccx ? OP_LH | LN(ANY_CACHE) | REM | SNOOP(HITM) :
				      OP_LH | PERF_MEM_S(LVL, L3) | LN(L3) | SNOOP(HITM);
	else							/* 0x0c */
		val = OP_LH | PERF_MEM_S(LVL, LOC_RAM) | LN(RAM) |
		      SNOOP(NONE) | SNOOP(MISS);
	/* pebs_set_tlb_lock(): STLB hit, not locked; no block info before Ice Lake */
	return val | TLB(HIT) | TLB(L1) | TLB(L2) | BLK(NA);
}

/*
 * The data source tables of ds.c as the platform's init leaves them:
 * pebs_data_source[] with __intel_pmu_pebs_data_source_skl() (pmem on
 * Sapphire Rapids; Alder Lake's cpu_core without), and _grt() for
 * Alder Lake's cpu_atom.
 */
static void dcm__pebs_tables(struct dcm *d)
{
	static const u64 base[16] = {
		OP(LOAD) | PERF_MEM_S(LVL, MISS) | LN(L3) | SNOOP(NA),
		OP_LH | PERF_MEM_S(LVL, L1)  | LN(L1) | SNOOP(NONE),
		OP_LH | PERF_MEM_S(LVL, LFB) | LN(LFB) | SNOOP(NONE),
		OP_LH | PERF_MEM_S(LVL, L2)  | LN(L2) | SNOOP(NONE),
		OP_LH | PERF_MEM_S(LVL, L3)  | LN(L3) | SNOOP(NONE),
		OP_LH | PERF_MEM_S(LVL, L3)  | LN(L3) | SNOOP(MISS),
		OP_LH | PERF_MEM_S(LVL, L3)  | LN(L3) | SNOOP(HIT),
		OP_LH | PERF_MEM_S(LVL, L3)  | LN(L3) | SNOOP(HITM),
		OP_LH | PERF_MEM_S(LVL, REM_CCE1) | REM | LN(L3) | SNOOP(HIT),
		OP_LH | PERF_MEM_S(LVL, REM_CCE1) | REM | LN(L3) | SNOOP(HITM),
		OP_LH | PERF_MEM_S(LVL, LOC_RAM)  | LN(RAM) | SNOOP(HIT),
		OP_LH | PERF_MEM_S(LVL, REM_RAM1) | REM | LN(L3) | SNOOP(HIT),
		OP_LH | PERF_MEM_S(LVL, LOC_RAM)  | LN(RAM) | SNOOP(NONE) | SNOOP(MISS),
		OP_LH | PERF_MEM_S(LVL, REM_RAM1) | LN(RAM) | REM | SNOOP(NONE) | SNOOP(MISS),
		OP_LH | PERF_MEM_S(LVL, IO)  | LN(NA) | SNOOP(NONE),
		OP_LH | PERF_MEM_S(LVL, UNC) | LN(NA) | SNOOP(NONE),
	};
	u64 *ds = d->ds_core, pmem_or_l4 = d->plat == DCM_ADL ? LN(L4) : LN(PMEM);

	memcpy(d->ds_core, base, sizeof(base));
	memcpy(d->ds_atom, base, sizeof(base));
	ds[0x08] = OP_LH | pmem_or_l4 | SNOOP(HIT);
	ds[0x09] = OP_LH | pmem_or_l4 | REM | SNOOP(HIT);
	ds[0x0b] = OP_LH | LN(RAM) | REM | SNOOP(NONE);
	ds[0x0c] = OP_LH | LN(ANY_CACHE) | REM | SNOOPX(FWD);
	ds[0x0d] = OP_LH | LN(ANY_CACHE) | REM | SNOOP(HITM);
	ds = d->ds_atom;
	ds[0x05] = OP_LH | PERF_MEM_S(LVL, L3) | LN(L3) | SNOOP(HIT);
	ds[0x06] = OP_LH | PERF_MEM_S(LVL, L3) | LN(L3) | SNOOP(HITM);
	ds[0x08] = OP_LH | PERF_MEM_S(LVL, L3) | LN(L3) | SNOOPX(FWD);
}

/*
 * The data source index of a model access: L1 0x01, L2 0x03, a peer's
 * clean or modified line in this L3 (0x06/0x07; 0x05/0x06 on Gracemont),
 * in the other socket (0x0c/0x0d; Alder Lake has one), local DRAM 0x0a
 * (0x0c is a remote forward once the skl changes are in).
 */
static unsigned int dcm__pebs_dse(const struct dcm *d, const struct dprof_model_sample *s,
				  bool atom)
{
	bool rem = s->remote_ccx && d->plat != DCM_ADL;

	switch (s->level) {
	case DPROF_MODEL_L1:
		return 0x01;
	case DPROF_MODEL_L2:
		return 0x03;
	case DPROF_MODEL_PEER:
		return rem ? 0x0c : atom ? 0x05 : 0x06;
	case DPROF_MODEL_PEER_HITM:
		return rem ? 0x0d : atom ? 0x06 : 0x07;
	case DPROF_MODEL_DRAM:
	case DPROF_MODEL_LEVEL__MAX:
	default:
		return 0x0a;
	}
}

/*
 * load_latency_data() / store_latency_data() / __grt_latency_data(): the
 * table entry, pebs_set_tlb_lock() (STLB hit, not locked), no block info,
 * the op of the event.
 */
static u64 dcm__pebs_lat_data(const struct dcm *d, const struct dprof_model_sample *s,
			      bool atom)
{
	union perf_mem_data_src src;

	src.val = (atom ? d->ds_atom : d->ds_core)[dcm__pebs_dse(d, s, atom)];
	src.val |= TLB(HIT) | TLB(L1) | TLB(L2) | BLK(NA);
	if (s->write)
		src.mem_op = PERF_MEM_OP_STORE;
	return src.val;
}

static u64 dcm__pebs_weight(struct dcm *d, const struct dprof_model_sample *s)
{
	static const u32 lat[DPROF_MODEL_LEVEL__MAX] = { 5, 14, 60, 75, 220 };

	if (s->write)
		return 0;
	return lat[s->level] + (s->remote_ccx ? 100 : 0) + dcm__rand(d) % 8;
}

/* perf time (ns) and the generic timer's count, as TIME_CONV says */
static u64 dcm__spe_ticks(u64 time)
{
	return (dcm__time(time) - DCM_SPE_TIME_ZERO) / DCM_SPE_TICK_NS;
}

/*
 * The AUX data the kernel has for @cpu: PERF_RECORD_AUX (from the
 * kernel, with the SPE event's sample id), then what perf record's
 * __auxtrace_mmap__read() writes: PERF_RECORD_AUXTRACE and the data.
 * The event's file offset goes in the index (HEADER_AUXTRACE).
 */
static int dcm__spe_flush(struct dcm *d, u32 cpu)
{
	struct {
		struct perf_record_aux aux;
		u32 pid, tid;
		u64 time, id;
		u32 cpu, res;
		u64 identifier;
	} a = {
		.aux = { .header = { .type = PERF_RECORD_AUX, .size = sizeof(a) },
			 .aux_offset = d->spe_aux_off[cpu], .aux_size = d->spe_len[cpu] },
		.pid = -1, .tid = -1, .time = dcm__time(d->spe_last_time[cpu]),
		.id = dcm__id(DCM_LOADS, cpu), .cpu = cpu,
		.identifier = dcm__id(DCM_LOADS, cpu),
	};
	struct perf_record_auxtrace ev = {
		.header = { .type = PERF_RECORD_AUXTRACE, .size = sizeof(ev) },
		.size = d->spe_len[cpu], .offset = d->spe_aux_off[cpu],
		.reference = dcm__spe_ticks(d->spe_last_time[cpu]),
		.idx = cpu, .tid = -1, .cpu = cpu,
	};
	u64 *index;
	int err;

	if (!d->spe_len[cpu])
		return 0;
	err = dcm__write(d, &a, sizeof(a));
	if (err)
		return err;
	index = realloc(d->spe_index, (d->nr_spe_index + 1) * sizeof(*index));
	if (!index)
		return -ENOMEM;
	d->spe_index = index;
	index[d->nr_spe_index++] = d->data_offset + d->data_size;
	err = dcm__write(d, &ev, sizeof(ev)) ?:
	      dcm__write(d, d->spe_buf[cpu], d->spe_len[cpu]);
	d->spe_aux_off[cpu] += d->spe_len[cpu];
	d->spe_len[cpu] = 0;
	return err;
}

/* One SPE packet: header byte(s), then a little-endian payload of @len */
static u8 *dcm__spe_pkt(u8 *p, u8 hdr, u64 payload, int len)
{
	int i;

	*p++ = hdr;
	for (i = 0; i < len; i++)
		*p++ = payload >> (8 * i);
	return p;
}

/* The short header's size field: log2 of the payload length, bits 5:4 */
#define DCM_SPE_SZ(len)		(ilog2(len) << 4)

/*
 * The data source a Neoverse N1 writes for a load (the common encoding
 * util/arm-spe.c decodes): L1D, L2, a peer core's L2 (0x9), the local
 * cluster (0xa: the line was modified there), a peer cluster (0xc),
 * another socket (0xd), DRAM.  SPE has no HITM.
 */
static u16 dcm__spe_source(const struct dprof_model_sample *s)
{
	switch (s->level) {
	case DPROF_MODEL_L1:
		return 0x0;
	case DPROF_MODEL_L2:
		return 0x8;
	case DPROF_MODEL_PEER:
		return s->remote_ccx ? 0xc : 0x9;
	case DPROF_MODEL_PEER_HITM:
		return s->remote_ccx ? 0xd : 0xa;
	case DPROF_MODEL_DRAM:
	case DPROF_MODEL_LEVEL__MAX:
	default:
		return 0xe;
	}
}

/*
 * An SPE record as an N1 writes it: PC (EL2, a VHE host), CONTEXTIDR_EL2
 * (the pid), op type (a GP-register load or store), events, issue and
 * total latency, data VA, translation latency, the data source for loads,
 * padding to the record size, and the timestamp that ends the record.
 * min_latency drops records whose total latency is below it.
 */
static int dcm__spe_record(struct dcm *d, const struct dprof_model_sample *s,
			   u64 lat)
{
	u8 *p = d->spe_buf[s->cpu] + d->spe_len[s->cpu], *start = p;
	u64 ev = BIT(EV_RETIRED) | BIT(EV_L1D_ACCESS) | BIT(EV_TLB_ACCESS);

	/*
	 * Past the cluster (a peer cluster, the other socket, DRAM) the
	 * system level cache is accessed; it misses for DRAM and for the
	 * other socket, which is a remote access (data source 0xd).
	 */
	if (s->level != DPROF_MODEL_L1)
		ev |= BIT(EV_L1D_REFILL);
	if (s->level >= DPROF_MODEL_PEER && (s->remote_ccx || s->level == DPROF_MODEL_DRAM))
		ev |= BIT(EV_LLC_ACCESS);
	if (s->level == DPROF_MODEL_DRAM || dcm__spe_source(s) == 0xd)
		ev |= BIT(EV_LLC_MISS);
	if (dcm__spe_source(s) == 0xd)
		ev |= BIT(EV_REMOTE_ACCESS);

	p = dcm__spe_pkt(p, SPE_HEADER0_ADDRESS | SPE_ADDR_PKT_HDR_INDEX_INS,
			 (s->ip & GENMASK_ULL(55, 0)) | BIT_ULL(63) |
			 (u64)SPE_ADDR_PKT_EL2 << 61, 8);
	p = dcm__spe_pkt(p, SPE_HEADER0_CONTEXT | DCM_SPE_SZ(4) | 1,
			 DCM_PID + s->cpu, 4);
	p = dcm__spe_pkt(p, SPE_HEADER0_OP_TYPE | SPE_OP_PKT_HDR_CLASS_LD_ST_ATOMIC,
			 s->write ? SPE_OP_PKT_ST : 0, 1);
	p = dcm__spe_pkt(p, SPE_HEADER0_EVENTS | DCM_SPE_SZ(2), ev, 2);
	p = dcm__spe_pkt(p, SPE_HEADER0_COUNTER | DCM_SPE_SZ(2) |
			 SPE_CNT_PKT_HDR_INDEX_ISSUE_LAT, 1 + s->cpu % 3, 2);
	p = dcm__spe_pkt(p, SPE_HEADER0_COUNTER | DCM_SPE_SZ(2) |
			 SPE_CNT_PKT_HDR_INDEX_TOTAL_LAT, lat, 2);
	p = dcm__spe_pkt(p, SPE_HEADER0_ADDRESS | SPE_ADDR_PKT_HDR_INDEX_DATA_VIRT,
			 s->addr & GENMASK_ULL(55, 0), 8);
	p = dcm__spe_pkt(p, SPE_HEADER0_COUNTER | DCM_SPE_SZ(2) |
			 SPE_CNT_PKT_HDR_INDEX_TRANS_LAT, 1, 2);
	if (!s->write)
		p = dcm__spe_pkt(p, SPE_HEADER0_SOURCE | DCM_SPE_SZ(2),
				 dcm__spe_source(s), 2);
	while (p - start < DCM_SPE_REC - 9)
		*p++ = SPE_HEADER0_PAD;
	p = dcm__spe_pkt(p, SPE_HEADER0_TIMESTAMP, dcm__spe_ticks(s->time), 8);
	d->spe_len[s->cpu] += p - start;
	d->spe_last_time[s->cpu] = s->time;
	if (d->spe_len[s->cpu] + DCM_SPE_REC > DCM_SPE_BUF)
		return dcm__spe_flush(d, s->cpu);
	return 0;
}

/* Total latency in cycles, loads and stores alike (a store until it completes) */
static u64 dcm__spe_latency(struct dcm *d, const struct dprof_model_sample *s)
{
	static const u32 lat[DPROF_MODEL_LEVEL__MAX] = { 4, 13, 56, 70, 210 };

	return lat[s->level] + (s->remote_ccx ? 90 : 0) + dcm__rand(d) % 24;
}

static int dcm__sample(struct dprof_model *m, const struct dprof_model_sample *s)
{
	struct dcm *d = m->ctx;
	struct dcm_type_truth *tr = &d->truth[s->type->idx];
	enum dcm_evsel ev = DCM_LOADS;
	u64 weight, data_src;
	int err;

	if (d->spe) {
		weight = dcm__spe_latency(d, s);
		if (weight < d->spe_minlat) {
			d->nr_below_ldlat++;
			return 0;
		}
		err = dcm__spe_record(d, s, weight);
		goto out;
	} else if (d->ibs) {
		data_src = dcm__ibs_data_src(s, d->plat == DCM_ZEN4);
		weight = dcm__ibs_weight(d, s);
	} else {
		bool atom = d->plat == DCM_ADL && s->cpu >= d->nr_cpus / 2;

		data_src = d->plat == DCM_SKX ? dcm__pebs_data_src(s) :
			   dcm__pebs_lat_data(d, s, atom);
		weight = dcm__pebs_weight(d, s);
		if (s->write) {
			ev = atom ? DCM_ATOM_STORES : DCM_STORES;
		} else if (weight < DCM_LDLAT) {
			/* below the load latency threshold: not sampled */
			d->nr_below_ldlat++;
			return 0;
		} else if (atom) {
			ev = DCM_ATOM_LOADS;
		}
	}
	err = dcm__access(d, ev, s->cpu, s->time, s->ip, s->addr, weight,
			  data_src);
out:
	if (err)
		return err;
	tr->samples++;
	if (!s->hit) {
		tr->misses++;
		tr->by_class[s->truth]++;
		tr->by_level[s->level]++;
	}
	/* most ops IBS tags are not loads or stores */
	if (d->ibs && dcm__rand(d) % 3 == 0) {
		d->nr_non_mem++;
		return dcm__access(d, DCM_LOADS, s->cpu, s->time,
				   DCM_NON_MEM_IP + dcm__rand(d) % 64, 0, 0,
				   DCM_MEM_NA);
	}
	return 0;
}

static const struct dprof_model_ops dcm_ops = {
	.alloc	= dcm__alloc,
	.free	= dcm__free,
	.sample	= dcm__sample,
};

static void dcm__add_evsel(struct dcm *d, enum dcm_evsel ev, u32 type,
			   u64 config, u64 config1, u64 period, u64 sample_type,
			   int precise, const char *name)
{
	struct perf_event_attr *a = &d->attr[ev];

	a->type = type;
	a->size = sizeof(*a);
	a->config = config;
	a->config1 = config1;
	a->sample_period = period;
	a->sample_type = sample_type;
	a->precise_ip = precise;
	a->disabled = 1;
	a->inherit = 1;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	d->name[ev] = name;
	d->nr_evsels = max(d->nr_evsels, (int)ev + 1);
}

static bool dcm__has(const struct dcm *d, int ev)
{
	return d->attr[ev].size != 0;
}

static int dcm__comm(struct dcm *d, u32 cpu)
{
	struct {
		struct perf_event_header h;
		u32 pid, tid;
		char comm[16];
		/* sample_id_all: TID, TIME, ID, CPU, IDENTIFIER */
		u32 spid, stid;
		u64 time, id;
		u32 cpu, res;
		u64 identifier;
	} c = {
		.h = { .type = PERF_RECORD_COMM, .size = sizeof(c) },
		.pid = DCM_PID + cpu, .tid = DCM_PID + cpu,
		.spid = DCM_PID + cpu, .stid = DCM_PID + cpu,
		.time = dcm__time(0), .id = dcm__id(DCM_LOADS, cpu),
		.cpu = cpu, .identifier = dcm__id(DCM_LOADS, cpu),
	};

	snprintf(c.comm, sizeof(c.comm), "dm_worker/%u", cpu % 100);
	return dcm__write(d, &c, sizeof(c));
}

/*
 * What perf record writes first on an SPE machine: PERF_RECORD_TIME_CONV
 * from the event's mmap page (the generic timer), then the AUXTRACE_INFO
 * of arm_spe_info_fill().
 */
static int dcm__spe_info(struct dcm *d)
{
	struct perf_record_time_conv tc = {
		.header = { .type = PERF_RECORD_TIME_CONV, .size = sizeof(tc) },
		.time_shift = DCM_SPE_TIME_SHIFT,
		.time_mult = (u64)DCM_SPE_TICK_NS << DCM_SPE_TIME_SHIFT,
		.time_zero = DCM_SPE_TIME_ZERO,
		.time_mask = GENMASK_ULL(55, 0),
		.cap_user_time_zero = 1, .cap_user_time_short = 1,
	};
	struct {
		struct perf_record_auxtrace_info info;
		u64 priv[ARM_SPE_AUXTRACE_PRIV_MAX];
	} ai = {
		.info = { .header = { .type = PERF_RECORD_AUXTRACE_INFO, .size = sizeof(ai) },
			  .type = PERF_AUXTRACE_ARM_SPE },
		.priv = { [ARM_SPE_PMU_TYPE] = DCM_SPE_TYPE },
	};

	return dcm__write(d, &tc, sizeof(tc)) ?: dcm__write(d, &ai, sizeof(ai));
}

/* do_write_string() of util/header.c */
static int sb_add_string(struct strbuf *sb, const char *str)
{
	u32 len = strlen(str) + 1, olen = roundup(len, DCM_NAME_ALIGN);
	static const char zero[DCM_NAME_ALIGN];

	return strbuf_add(sb, &olen, sizeof(olen)) ?:
	       strbuf_add(sb, str, len) ?: strbuf_add(sb, zero, olen - len);
}

static int sb_add_u32(struct strbuf *sb, u32 v)
{
	return strbuf_add(sb, &v, sizeof(v));
}

static int sb_add_u64(struct strbuf *sb, u64 v)
{
	return strbuf_add(sb, &v, sizeof(v));
}

/* The tracing data section, as util/trace-event-read.c reads it. */
static int dcm__tracing_data(struct dcm *d __maybe_unused, struct strbuf *sb)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	static const char * const fmts[] = { dcm_fmt_alloc, dcm_fmt_free };
	struct strbuf ks = STRBUF_INIT;
	int err, i;

	err = strbuf_add(sb, magic, sizeof(magic)) ?:
	      strbuf_add(sb, "0.6", 4) ?:
	      strbuf_add(sb, "\0\x08", 2) ?:		/* little endian, long size */
	      sb_add_u32(sb, DCM_TRACE_PAGE_SIZE) ?:
	      strbuf_add(sb, "header_page", 12) ?:
	      sb_add_u64(sb, strlen(dcm_header_page)) ?:
	      strbuf_addstr(sb, dcm_header_page) ?:
	      strbuf_add(sb, "header_event", 13) ?:
	      sb_add_u64(sb, strlen(dcm_header_event)) ?:
	      strbuf_addstr(sb, dcm_header_event) ?:
	      sb_add_u32(sb, 0) ?:			/* ftrace formats */
	      sb_add_u32(sb, 1) ?:			/* systems */
	      strbuf_add(sb, "kmem", 5) ?:
	      sb_add_u32(sb, ARRAY_SIZE(fmts));
	for (i = 0; !err && i < (int)ARRAY_SIZE(fmts); i++)
		err = sb_add_u64(sb, strlen(fmts[i])) ?: strbuf_addstr(sb, fmts[i]);
	/* kallsyms: names for the model's code, for %pS in perf script */
	for (i = 0; !err && i < DPROF_MODEL_MAX_TYPES; i++)
		err = strbuf_addf(&ks, "%llx T dm_alloc_%d\n%llx T dm_free_%d\n",
				  DCM_CALL_SITE + i * DCM_SITE_STRIDE, i,
				  DCM_CALL_SITE + i * DCM_SITE_STRIDE + DCM_FREE_SITE, i);
	if (!err)
		err = sb_add_u32(sb, ks.len) ?: strbuf_add(sb, ks.buf, ks.len) ?:
		      sb_add_u32(sb, 0) ?:		/* printk formats */
		      sb_add_u64(sb, 0);		/* saved cmdlines */
	strbuf_release(&ks);
	return err;
}

/* HEADER_CACHE: the model's private L1d and L2 per CPU, an L1i. */
static int dcm__caches(const struct dprof_model *m, u32 nr_cpus,
		       struct strbuf *sb)
{
	const struct dprof_cache_geom *g[] = { &m->geom, NULL, &m->geom_l2 };
	char size[32], map[16];
	u32 cpu, i;
	int err = sb_add_u32(sb, 1) ?: sb_add_u32(sb, 3 * nr_cpus);

	for (cpu = 0; !err && cpu < nr_cpus; cpu++) {
		for (i = 0; !err && i < ARRAY_SIZE(g); i++) {
			u64 bytes = g[i] ? g[i]->size : 32768;
			u32 ways = g[i] ? g[i]->ways : 8;

			snprintf(size, sizeof(size), "%lluK",
				 (unsigned long long)bytes >> 10);
			snprintf(map, sizeof(map), "%u", cpu);
			err = sb_add_u32(sb, i == 2 ? 2 : 1) ?: sb_add_u32(sb, 64) ?:
			      sb_add_u32(sb, bytes / 64 / ways) ?: sb_add_u32(sb, ways) ?:
			      sb_add_string(sb, i == 0 ? "Data" : i == 1 ?
						"Instruction" : "Unified") ?:
			      sb_add_string(sb, size) ?: sb_add_string(sb, map);
		}
	}
	return err;
}

static int dcm__event_desc(struct dcm *d, struct strbuf *sb)
{
	int err = sb_add_u32(sb, 0) ?: sb_add_u32(sb, sizeof(d->attr[0]));
	u32 nr = 0, cpu;
	int ev;

	for (ev = 0; !err && ev < d->nr_evsels; ev++) {
		if (!dcm__has(d, ev))
			continue;
		nr++;
		err = strbuf_add(sb, &d->attr[ev], sizeof(d->attr[ev])) ?:
		      sb_add_u32(sb, d->nr_cpus) ?: sb_add_string(sb, d->name[ev]);
		for (cpu = 0; !err && cpu < d->nr_cpus; cpu++)
			err = sb_add_u64(sb, dcm__id(ev, cpu));
	}
	if (!err)
		memcpy(sb->buf, &nr, sizeof(nr));
	return err;
}

static const char * const dcm_cpudesc[] = {
	[DCM_ZEN2] = "AMD EPYC 7742 64-Core Processor (dprof cache model)",
	[DCM_ZEN4] = "AMD EPYC 9654 96-Core Processor (dprof cache model)",
	[DCM_SKX] = "Intel(R) Xeon(R) Platinum 8173M CPU @ 2.00GHz (dprof cache model)",
	[DCM_SPR] = "Intel(R) Xeon(R) Platinum 8480+ (dprof cache model)",
	[DCM_ADL] = "12th Gen Intel(R) Core(TM) i9-12900K (dprof cache model)",
	[DCM_SPE] = "Neoverse-N1 (dprof cache model)",
	[DCM_SPE_V2] = "Neoverse-V2 (dprof cache model)",
};

/* get_cpuid_str() of arch/x86: vendor,family,model,stepping */
static const char * const dcm_cpuid[] = {
	[DCM_ZEN2] = "AuthenticAMD,23,49,0",
	[DCM_ZEN4] = "AuthenticAMD,25,17,1",
	[DCM_SKX] = "GenuineIntel,6,85,4",
	[DCM_SPR] = "GenuineIntel,6,143,8",
	[DCM_ADL] = "GenuineIntel,6,151,2",
	[DCM_SPE] = "0x00000000410fd0c0",	/* arm64 get_cpuid_str(): MIDR_EL1 */
	[DCM_SPE_V2] = "0x00000000410fd4f0",
};

/* HEADER_PMU_MAPPINGS: the PMUs the events name, and software */
static int dcm__pmu_mappings(const struct dcm *d, struct strbuf *sb)
{
	int err;

	if (d->spe)
		return sb_add_u32(sb, 2) ?: sb_add_u32(sb, DCM_SPE_TYPE) ?:
		       sb_add_string(sb, "arm_spe_0") ?:
		       sb_add_u32(sb, PERF_TYPE_SOFTWARE) ?: sb_add_string(sb, "software");
	if (d->ibs)
		return sb_add_u32(sb, 2) ?: sb_add_u32(sb, DCM_IBS_OP_TYPE) ?:
		       sb_add_string(sb, "ibs_op") ?:
		       sb_add_u32(sb, PERF_TYPE_SOFTWARE) ?: sb_add_string(sb, "software");
	err = sb_add_u32(sb, d->plat == DCM_ADL ? 3 : 2) ?: sb_add_u32(sb, PERF_TYPE_RAW) ?:
	      sb_add_string(sb, d->plat == DCM_ADL ? "cpu_core" : "cpu");
	if (!err && d->plat == DCM_ADL)
		err = sb_add_u32(sb, DCM_TYPE_CPU_ATOM) ?: sb_add_string(sb, "cpu_atom");
	return err ?: sb_add_u32(sb, PERF_TYPE_SOFTWARE) ?: sb_add_string(sb, "software");
}

static int dcm__features(struct dcm *d, const struct dprof_model *m,
			 struct perf_file_header *fh)
{
	struct strbuf sb[HEADER_LAST_FEATURE];
	struct perf_file_section sec[HEADER_LAST_FEATURE];
	char buf[128];
	int feat, nr = 0, err = 0;
	u64 off;

	for (feat = 0; feat < HEADER_LAST_FEATURE; feat++)
		strbuf_init(&sb[feat], 0);
	err = dcm__tracing_data(d, &sb[HEADER_TRACING_DATA]) ?:
	      sb_add_string(&sb[HEADER_HOSTNAME], "dprof-cachemodel") ?:
	      sb_add_string(&sb[HEADER_OSRELEASE], "6.12.0-dprof-model") ?:
	      sb_add_string(&sb[HEADER_VERSION], "6.12") ?:
	      sb_add_string(&sb[HEADER_ARCH], d->spe ? "aarch64" : "x86_64") ?:
	      sb_add_u32(&sb[HEADER_NRCPUS], d->nr_cpus) ?:
	      sb_add_u32(&sb[HEADER_NRCPUS], d->nr_cpus) ?:
	      sb_add_string(&sb[HEADER_CPUDESC], dcm_cpudesc[d->plat]) ?:
	      sb_add_string(&sb[HEADER_CPUID], dcm_cpuid[d->plat]) ?:
	      sb_add_u32(&sb[HEADER_CMDLINE], 1);
	if (!err) {
		snprintf(buf, sizeof(buf), "perf dprof record -a (synthesized: %s)",
			 dcm_platform_name[d->plat]);
		err = sb_add_string(&sb[HEADER_CMDLINE], buf) ?:
		      dcm__event_desc(d, &sb[HEADER_EVENT_DESC]) ?:
		      dcm__caches(m, d->nr_cpus, &sb[HEADER_CACHE]) ?:
		      dcm__pmu_mappings(d, &sb[HEADER_PMU_MAPPINGS]);
	}
	/* the AUXTRACE events' index, as auxtrace_index__write() writes it */
	if (!err && d->nr_spe_index) {
		u32 i;

		err = sb_add_u64(&sb[HEADER_AUXTRACE], d->nr_spe_index);
		for (i = 0; !err && i < d->nr_spe_index; i++)
			err = sb_add_u64(&sb[HEADER_AUXTRACE], d->spe_index[i]) ?:
			      sb_add_u64(&sb[HEADER_AUXTRACE],
					 sizeof(struct perf_record_auxtrace));
	}
	/* the {mem-loads-aux,mem-loads} group: evsels 0 and 1 */
	if (!err && dcm__has(d, DCM_LOADS_AUX))
		err = sb_add_u32(&sb[HEADER_GROUP_DESC], 1) ?:
		      sb_add_string(&sb[HEADER_GROUP_DESC], "{anon_group}") ?:
		      sb_add_u32(&sb[HEADER_GROUP_DESC], 0) ?:
		      sb_add_u32(&sb[HEADER_GROUP_DESC], 2);
	if (err)
		goto out;

	/* the section table after the data, then the sections */
	for (feat = 0; feat < HEADER_LAST_FEATURE; feat++)
		nr += sb[feat].len != 0;
	off = d->data_offset + d->data_size + nr * sizeof(sec[0]);
	nr = 0;
	for (feat = 0; feat < HEADER_LAST_FEATURE; feat++) {
		if (!sb[feat].len)
			continue;
		__set_bit(feat, fh->adds_features);
		sec[nr].offset = off;
		sec[nr].size = sb[feat].len;
		off += sb[feat].len;
		nr++;
	}
	if (fwrite(sec, sizeof(sec[0]), nr, d->fp) != (size_t)nr)
		err = -errno;
	for (feat = 0; !err && feat < HEADER_LAST_FEATURE; feat++) {
		if (sb[feat].len &&
		    fwrite(sb[feat].buf, 1, sb[feat].len, d->fp) != sb[feat].len)
			err = -errno;
	}
out:
	for (feat = 0; feat < HEADER_LAST_FEATURE; feat++)
		strbuf_release(&sb[feat]);
	return err;
}

/* The file header, the ids and the attrs; the data follows. */
static int dcm__header(struct dcm *d, struct perf_file_header *fh)
{
	struct perf_file_attr { struct perf_event_attr attr;
				struct perf_file_section ids; } fa;
	u64 ids_off = sizeof(*fh), attr_off, id;
	u32 nr = 0, cpu;
	int ev;

	for (ev = 0; ev < d->nr_evsels; ev++)
		nr += dcm__has(d, ev);
	attr_off = ids_off + (u64)nr * d->nr_cpus * sizeof(u64);
	fh->magic = DCM_MAGIC;
	fh->size = sizeof(*fh);
	fh->attr_size = sizeof(fa);
	fh->attrs.offset = attr_off;
	fh->attrs.size = nr * sizeof(fa);
	d->data_offset = attr_off + fh->attrs.size;
	fh->data.offset = d->data_offset;

	if (fwrite(fh, sizeof(*fh), 1, d->fp) != 1)
		return -errno;
	for (ev = 0; ev < d->nr_evsels; ev++) {
		for (cpu = 0; dcm__has(d, ev) && cpu < d->nr_cpus; cpu++) {
			id = dcm__id(ev, cpu);
			if (fwrite(&id, sizeof(id), 1, d->fp) != 1)
				return -errno;
		}
	}
	nr = 0;
	for (ev = 0; ev < d->nr_evsels; ev++) {
		if (!dcm__has(d, ev))
			continue;
		fa.attr = d->attr[ev];
		fa.ids.offset = ids_off + (u64)nr++ * d->nr_cpus * sizeof(u64);
		fa.ids.size = d->nr_cpus * sizeof(u64);
		if (fwrite(&fa, sizeof(fa), 1, d->fp) != 1)
			return -errno;
	}
	return 0;
}

/* Miss classes as the truth file names them. */
static const char * const dcm_class_name[DPROF_MISS__MAX] = {
	[DPROF_MISS_TRUE_SHARING]	= "true_sharing",
	[DPROF_MISS_FALSE_SHARING]	= "false_sharing",
	[DPROF_MISS_CONFLICT]		= "conflict",
	[DPROF_MISS_CAPACITY]		= "capacity",
	[DPROF_MISS_UNKNOWN]		= "unknown",
};

static int dcm__truth(struct dcm *d, const struct dprof_model *m,
		      enum dprof_model_scenario sc, const char *path)
{
	char *name;
	FILE *fp;
	int i, k;

	if (asprintf(&name, "%s.truth", path) < 0)
		return -ENOMEM;
	fp = fopen(name, "w");
	free(name);
	if (!fp)
		return -errno;
	fprintf(fp,
		"# dprof cache model: scenario %s seed %u cpus %u l1 %llu 4-way 64B l2 %llu 8-way period %u steps %u %s\n",
		dprof_model_scenario__name(sc), m->p.seed, m->p.nr_cpus,
		(unsigned long long)m->p.cache_size,
		(unsigned long long)m->geom_l2.size, m->p.period, m->p.steps,
		dcm_platform_name[d->plat]);
	fprintf(fp,
		"# model samples %llu; written: ibs non-memory ops %llu, pebs loads/spe ops below ldlat %llu (not written)\n",
		(unsigned long long)m->nr_samples,
		(unsigned long long)d->nr_non_mem,
		(unsigned long long)d->nr_below_ldlat);
	fprintf(fp,
		"# type planted samples misses true_sharing false_sharing conflict capacity cold l2 peer peer_hitm dram\n");
	for (i = 0; i < m->nr_types; i++) {
		const struct dcm_type_truth *tr = &d->truth[i];
		const struct dprof_model_type *t = &m->types[i];

		fprintf(fp, "type %s %s %llu %llu", t->name,
			t->planted >= 0 ? dcm_class_name[t->planted] : "-",
			(unsigned long long)tr->samples,
			(unsigned long long)tr->misses);
		for (k = 0; k <= DPROF_MODEL_COLD; k++) {
			if (k == DPROF_MISS_UNKNOWN)
				continue;
			fprintf(fp, " %llu", (unsigned long long)tr->by_class[k]);
		}
		for (k = DPROF_MODEL_L2; k < DPROF_MODEL_LEVEL__MAX; k++)
			fprintf(fp, " %llu", (unsigned long long)tr->by_level[k]);
		fprintf(fp, "\n");
	}
	return fclose(fp) ? -errno : 0;
}

static int dprof_cachemodel(int argc, const char **argv)
{
	struct dprof_model_params p = { 0 };
	struct perf_file_header fh = { 0 };
	struct dprof_model m = { .priv = NULL };
	struct dcm d = { 0 };
	char names[3][80];
	const char *pmu;
	int sc, err, plat, i;
	u32 cpu;

	if (argc < 7) {
		fprintf(stderr,
			"usage: perf test -w %s SCENARIO SEED NR_CPUS CACHE_SIZE PERIOD PLATFORM OUT [STEPS [MINLAT]]\n"
			"  SCENARIO: true_sharing false_sharing conflict capacity mixed\n"
			"  PLATFORM: zen2, ibs|zen4, pebs|skx, spr, adl, spe, spev2\n",
			__func__);
		return 1;
	}
	sc = dprof_model_scenario__parse(argv[0]);
	p.seed = strtoul(argv[1], NULL, 0);
	p.nr_cpus = strtoul(argv[2], NULL, 0);
	p.cache_size = strtoull(argv[3], NULL, 0);
	p.period = strtoul(argv[4], NULL, 0);
	plat = -1;
	for (i = 0; i < (int)ARRAY_SIZE(dcm_platform_name); i++) {
		if (!strcmp(argv[5], dcm_platform_name[i]))
			plat = i;
	}
	if (!strcmp(argv[5], "zen4"))
		plat = DCM_ZEN4;
	if (!strcmp(argv[5], "skx"))
		plat = DCM_SKX;
	d.plat = plat < 0 ? DCM_ZEN4 : plat;
	d.ibs = plat == DCM_ZEN2 || plat == DCM_ZEN4;
	d.spe = plat == DCM_SPE || plat == DCM_SPE_V2;
	p.steps = argc > 7 ? strtoul(argv[7], NULL, 0) : 60000 + 20000 * p.nr_cpus;
	if (sc < 0 || plat < 0 || !p.nr_cpus || (plat == DCM_ADL && p.nr_cpus < 2) ||
	    p.nr_cpus > DPROF_MODEL_MAX_CPUS || !p.period || !p.steps ||
	    p.cache_size < 4096 || (p.cache_size & (p.cache_size - 1))) {
		fprintf(stderr,
			"%s: bad arguments (1..%d CPUs, 2 for adl, a power-of-two cache of >= 4096 bytes)\n",
			__func__, DPROF_MODEL_MAX_CPUS);
		return 1;
	}
	d.nr_cpus = p.nr_cpus;
	d.period = p.period;
	d.rnd = p.seed * DCM_SEED_MIX + 7;
	dcm__pebs_tables(&d);
	switch (d.plat) {
	case DCM_ZEN2:
	case DCM_ZEN4:
		dcm__add_evsel(&d, DCM_LOADS, DCM_IBS_OP_TYPE, 0, 0, p.period,
			       DCM_ACCESS_SAMPLE_TYPE, 0, "ibs_op//");
		break;
	case DCM_SKX:
		dcm__add_evsel(&d, DCM_LOADS, PERF_TYPE_RAW, DCM_PEBS_LOADS, DCM_LDLAT,
			       p.period, DCM_ACCESS_SAMPLE_TYPE, 3,
			       "cpu/mem-loads,ldlat=" __stringify(DCM_LDLAT) "/P");
		dcm__add_evsel(&d, DCM_STORES, PERF_TYPE_RAW, DCM_PEBS_STORES, 0,
			       p.period, DCM_ACCESS_SAMPLE_TYPE, 3,
			       "cpu/mem-stores/P");
		break;
	case DCM_SPE:
	case DCM_SPE_V2:
		d.spe_minlat = argc > 8 ? strtoul(argv[8], NULL, 0) : DCM_LDLAT;
		snprintf(names[0], sizeof(names[0]),
			 "arm_spe_0/ts_enable=1,load_filter=1,store_filter=1,min_latency=%u/",
			 d.spe_minlat);
		dcm__add_evsel(&d, DCM_LOADS, DCM_SPE_TYPE, DCM_SPE_CONFIG, 0, p.period,
			       DCM_SPE_SAMPLE_TYPE, 0, names[0]);
		d.attr[DCM_LOADS].config2 = d.spe_minlat;
		break;
	case DCM_SPR:
	case DCM_ADL:
		pmu = plat == DCM_ADL ? "cpu_core" : "cpu";
		snprintf(names[0], sizeof(names[0]), "%s/mem-loads-aux/", pmu);
		snprintf(names[1], sizeof(names[1]), "%s/mem-loads,ldlat=%d/", pmu, DCM_LDLAT);
		snprintf(names[2], sizeof(names[2]), "%s/mem-stores/P", pmu);
		/* the leader: perf record's default frequency, never sampled */
		dcm__add_evsel(&d, DCM_LOADS_AUX, PERF_TYPE_RAW, DCM_PEBS_LOADS_AUX, 0,
			       4000, DCM_ACCESS_SAMPLE_TYPE, 3, names[0]);
		d.attr[DCM_LOADS_AUX].freq = 1;
		dcm__add_evsel(&d, DCM_LOADS, PERF_TYPE_RAW, DCM_PEBS_LOADS, DCM_LDLAT,
			       p.period, DCM_ACCESS_SAMPLE_TYPE, 3, names[1]);
		d.attr[DCM_LOADS].disabled = 0;		/* a group member */
		dcm__add_evsel(&d, DCM_STORES, PERF_TYPE_RAW, DCM_PEBS_STLAT, 0,
			       p.period, DCM_ACCESS_SAMPLE_TYPE, 3, names[2]);
		if (plat != DCM_ADL)
			break;
		dcm__add_evsel(&d, DCM_ATOM_LOADS, DCM_TYPE_CPU_ATOM, DCM_PEBS_LOADS,
			       DCM_LDLAT, p.period, DCM_ACCESS_SAMPLE_TYPE, 3,
			       "cpu_atom/mem-loads,ldlat=" __stringify(DCM_LDLAT) "/P");
		dcm__add_evsel(&d, DCM_ATOM_STORES, DCM_TYPE_CPU_ATOM, DCM_GRT_STORES, 0,
			       p.period, DCM_ACCESS_SAMPLE_TYPE, 3, "cpu_atom/mem-stores/P");
		break;
	default:
		return 1;
	}
	dcm__add_evsel(&d, DCM_ALLOC, PERF_TYPE_TRACEPOINT, DCM_ID_ALLOC, 0, 1,
		       DCM_TP_SAMPLE_TYPE, 0, "kmem:kmem_cache_alloc");
	dcm__add_evsel(&d, DCM_FREE, PERF_TYPE_TRACEPOINT, DCM_ID_FREE, 0, 1,
		       DCM_TP_SAMPLE_TYPE, 0, "kmem:kmem_cache_free");
	if (d.spe) {
		struct perf_event_attr *a = &d.attr[DCM_DUMMY];

		dcm__add_evsel(&d, DCM_DUMMY, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,
			       0, 1, DCM_DUMMY_SAMPLE_TYPE, 0, "dummy:u");
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
		a->mmap = 1;
		a->comm = 1;
		a->task = 1;
		a->mmap_data = 1;
		a->context_switch = 1;
	}

	d.fp = fopen(argv[6], "w");
	if (!d.fp) {
		fprintf(stderr, "%s: %s: %s\n", __func__, argv[6], strerror(errno));
		return 1;
	}
	err = dcm__header(&d, &fh);
	if (!err && d.spe)
		err = dcm__spe_info(&d);
	for (cpu = 0; !err && cpu < d.nr_cpus; cpu++)
		err = dcm__comm(&d, cpu);
	if (!err)
		err = dprof_model__run(&m, sc, &p, &dcm_ops, &d);
	/* perf record reads what is left in the AUX areas at the end */
	for (cpu = 0; !err && cpu < d.nr_cpus; cpu++)
		err = dcm__spe_flush(&d, cpu);
	if (!err) {
		fh.data.size = d.data_size;
		err = dcm__features(&d, &m, &fh);
	}
	if (!err && (fseek(d.fp, 0, SEEK_SET) ||
		     fwrite(&fh, sizeof(fh), 1, d.fp) != 1))
		err = -errno;
	if (fclose(d.fp) && !err)
		err = -errno;
	if (!err)
		err = dcm__truth(&d, &m, sc, argv[6]);
	dprof_model__exit(&m);
	free(d.spe_index);
	if (err) {
		fprintf(stderr, "%s: writing %s: %s\n", __func__, argv[6],
			strerror(-err));
		return 1;
	}
	return 0;
}

DEFINE_WORKLOAD(dprof_cachemodel);
