// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: exact miss classification from object histories.  Watch
 * hits (rw=1: every read and write of the watched bytes) and access
 * samples go to the classifier in a known order; a miss on the watched
 * bytes is an invalidation exactly when another CPU wrote them since
 * this CPU's last access before the miss.
 */
#include <string.h>
#include "debug.h"
#include "tests/tests.h"
#include "util/dprof/addrset.h"
#include "util/dprof/cachesim.h"
#include "util/dprof/classify.h"
#include "util/dprof/profile.h"
#include "dprof-tests.h"
#include "model.h"

#define LINE	64ULL
#define IP_MISS	0xffffffff81000100ULL
#define IP_HIT	0xffffffff81000200ULL

/*
 * A sampled access with its level measured, a miss or a write hit, on
 * @addr (each case on a line of its own set): what the classifier said.
 */
static int ex_access(struct dprof_classify *cl, struct dprof_class *cls,
		     u64 addr, u32 cpu, u64 time, bool write, bool miss,
		     struct dprof_test_verdict *v)
{
	struct dprof_access acc = {
		.ip = IP_MISS, .addr = addr, .time = time, .cpu = cpu,
		.is_write = write, .level_known = true, .miss = miss,
	};
	int err = dprof_test__classify(cl, cls, &acc, addr % LINE, v);

	pr_debug("dprof exact: %#llx cpu %u t %llu: %s%s\n",
		 (unsigned long long)addr, cpu, (unsigned long long)time,
		 v->miss ? dprof_miss_class__str(v->mc) : "hit",
		 v->miss && v->exact ? " (exact)" : "");
	return err;
}

/* A watch hit (rw) on the 8 bytes at @addr, by the instruction at @ip. */
static int ex_hit(struct dprof_classify *cl, u64 addr, u32 cpu, u64 time,
		  int write, u64 ip)
{
	struct dprof_hit hit = {
		.addr = addr, .len = 8, .ip = ip + 4, .access_ip = ip,
		.write = write, .rw = true, .cpu = cpu, .time = time,
	};

	return cl->sink.hit(&cl->sink, &hit);
}

#define EX_MISS(addr, cpu, time, want, want_exact)			\
	do {								\
		TEST_ASSERT_VAL("miss", !ex_access(cl, cls, addr, cpu, time, \
						   false, true, &v));	\
		TEST_ASSERT_VAL("a miss", v.miss);			\
		TEST_ASSERT_EQUAL("class " #want, (int)v.mc, (int)(want)); \
		TEST_ASSERT_EQUAL("exact " #want_exact, v.exact,	\
				  (bool)(want_exact));			\
	} while (0)

#define EX_HIT(addr, cpu, time, write)					\
	TEST_ASSERT_VAL("hit", !ex_hit(cl, addr, cpu, time, write, IP_HIT))

static int ex_run(struct dprof_classify *cl, struct dprof_class *cls)
{
	struct dprof_obj obj = { .base = 0x10040, .size = LINE, .priv = cls };
	const struct dprof_classify_stats *st;
	struct dprof_test_verdict v;

	/* a write by CPU 1, then CPU 0 misses on the same bytes */
	EX_HIT(0x10040, 1, 100, 1);
	EX_MISS(0x10040, 0, 200, DPROF_MISS_TRUE_SHARING, true);

	/* CPU 0 itself wrote them last: no invalidation */
	EX_HIT(0x20080, 0, 50, 0);
	EX_HIT(0x20080, 0, 100, 1);
	EX_MISS(0x20080, 0, 200, DPROF_MISS_UNKNOWN, true);

	/* CPU 1's write comes after the sample's time: it does not count */
	EX_HIT(0x300c0, 0, 50, 0);
	EX_HIT(0x300c0, 1, 300, 1);
	EX_MISS(0x300c0, 0, 200, DPROF_MISS_UNKNOWN, true);
	/* ... nor does one at the very same time */
	EX_HIT(0x38100, 1, 200, 1);
	EX_MISS(0x38100, 0, 200, DPROF_MISS_UNKNOWN, true);

	/* CPU 0 read the bytes after CPU 1 wrote them: not this miss's cause */
	EX_HIT(0x40140, 1, 100, 1);
	EX_HIT(0x40140, 0, 150, 0);
	EX_MISS(0x40140, 0, 400, DPROF_MISS_UNKNOWN, true);

	/*
	 * The miss's own access is a hit just before its sample: CPU 1's
	 * write before it is still the cause.
	 */
	EX_HIT(0x50180, 0, 50, 0);
	EX_HIT(0x50180, 1, 100, 1);
	TEST_ASSERT_VAL("own hit", !ex_hit(cl, 0x50180, 0, 195, 0, IP_MISS));
	EX_MISS(0x50180, 0, 200, DPROF_MISS_TRUE_SHARING, true);

	/* other bytes of a watched line: access samples decide */
	EX_HIT(0x601c0, 1, 100, 1);
	EX_MISS(0x601c0 + 32, 0, 200, DPROF_MISS_UNKNOWN, false);

	/* a hit neither read nor write: the line stays statistical */
	EX_HIT(0x70200, 1, 100, -1);
	EX_MISS(0x70200, 0, 200, DPROF_MISS_UNKNOWN, false);

	/* no histories: a sampled write by CPU 1 (statistical) */
	TEST_ASSERT_VAL("write",
			!ex_access(cl, cls, 0x80240, 1, 100, true, false, &v));
	EX_MISS(0x80240, 0, 200, DPROF_MISS_TRUE_SHARING, false);
	/* ... on watched bytes the histories overrule it */
	EX_HIT(0x90280, 0, 50, 0);
	EX_HIT(0x90280, 1, 100, 1);
	TEST_ASSERT_VAL("write",
			!ex_access(cl, cls, 0x90280, 1, 100, true, false, &v));
	EX_HIT(0x90280, 0, 150, 0);
	EX_MISS(0x90280, 0, 200, DPROF_MISS_UNKNOWN, true);

	/* the watch ends with its object */
	TEST_ASSERT_VAL("free", !cl->sink.free(&cl->sink, &obj, 500, 0));
	EX_MISS(0x10040, 0, 600, DPROF_MISS_UNKNOWN, false);

	st = dprof_classify__class(cl, cls);
	TEST_ASSERT_VAL("class stats", st);
	pr_debug("dprof exact: %llu misses, %llu exact, %llu statistical\n",
		 (unsigned long long)st->misses, (unsigned long long)st->exact,
		 (unsigned long long)cl->nr_stat);
	TEST_ASSERT_EQUAL("misses", (int)st->misses, 11);
	TEST_ASSERT_EQUAL("exact", (int)st->exact, 7);
	TEST_ASSERT_EQUAL("exact in all", (int)cl->nr_exact, 7);
	TEST_ASSERT_EQUAL("statistical", (int)cl->nr_stat, 4);
	TEST_ASSERT_EQUAL("hits", (int)cl->nr_hits, 16);
	TEST_ASSERT_EQUAL("hits, direction unknown", (int)cl->nr_hits_undecoded, 1);
	return TEST_OK;
}

int test__dprof_exact(struct test_suite *test __maybe_unused,
		      int subtest __maybe_unused)
{
	struct dprof_class cls = { .kind = DPROF_KIND_SLAB, .name = (char *)"t" };
	struct dprof_cache_geom geom;
	struct dprof_classify cl;
	int ret;

	if (dprof_cache_geom__set(&geom, 1, 32 * 1024, 8, LINE) ||
	    dprof_classify__init(&cl, &geom))
		return TEST_FAIL;
	ret = ex_run(&cl, &cls);
	dprof_classify__exit(&cl);
	return ret;
}
