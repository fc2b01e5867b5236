// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: who brings a type's lines into the cache.  Watch hits go
 * to the working-set view's sink hook; the first access to each line of an
 * object after its allocation is counted per class and ip, later ones,
 * and hits on no known object, are not.
 */
#include "debug.h"
#include "tests/tests.h"
#include "util/hashmap.h"
#include "util/dprof/addrset.h"
#include "util/dprof/cachesim.h"
#include "util/dprof/profile.h"
#include "util/dprof/workingset.h"
#include "dprof-tests.h"

#define IP_ALLOC	0xffffffff81000100ULL
#define IP_USE		0xffffffff81000200ULL
#define IP_OTHER	0xffffffff81000300ULL

static u64 ft_count(const struct dprof_ws_class *wc, u64 ip)
{
	long n = 0;

	hashmap__find(wc->first, (long)ip, &n);
	return n;
}

/* A hit of a watch on reads and writes (rw): the access at @ip. */
static int ft_hit(struct dprof_workingset *ws, const struct dprof_obj *obj,
		  u64 addr, u32 len, u64 ip)
{
	struct dprof_hit hit = {
		.obj = obj, .addr = addr, .len = len, .ip = ip + 4,
		.access_ip = ip, .write = 0, .rw = true,
	};

	return ws->sink.hit(&ws->sink, &hit);
}

#define FT_HIT(obj, addr, len, ip)					\
	TEST_ASSERT_VAL("hit", !ft_hit(ws, obj, addr, len, ip))

static int ft_run(struct dprof_workingset *ws, struct dprof_class *a,
		  struct dprof_class *b, struct dprof_class *c)
{
	struct dprof_obj o1 = { .base = 0x10000, .size = 192,
				.alloc_time = 10, .priv = a };
	struct dprof_obj o2 = { .base = 0x10000, .size = 192,
				.alloc_time = 20, .priv = a };
	struct dprof_obj o3 = { .base = 0x20000, .size = 64,
				.alloc_time = 0, .priv = b };
	struct dprof_hit write_only = {
		.obj = &o3, .addr = 0x20020, .len = 4, .ip = IP_USE + 4,
		.access_ip = IP_USE, .write = 1, .rw = false,
	};
	const struct dprof_ws_class *wc;

	/* object 1: each of its three lines counts once */
	FT_HIT(&o1, 0x10000, 8, IP_ALLOC);	/* line 0: first touch */
	FT_HIT(&o1, 0x10008, 8, IP_USE);	/* line 0 again */
	FT_HIT(&o1, 0x10040, 8, IP_USE);	/* line 1: first touch */
	FT_HIT(&o1, 0x1007c, 8, IP_OTHER);	/* lines 1 and 2: 2 is new */
	FT_HIT(&o1, 0x10080, 8, IP_ALLOC);	/* line 2 again */
	/* the same memory, a new object: touched anew */
	FT_HIT(&o2, 0x10000, 8, IP_USE);
	FT_HIT(&o2, 0x10000, 8, IP_ALLOC);
	/* born at time 0 is a birth too */
	FT_HIT(&o3, 0x20010, 4, IP_OTHER);
	FT_HIT(&o3, 0x20018, 4, IP_ALLOC);
	/* a hit outside any known object's lifetime: not counted */
	FT_HIT(NULL, 0x30000, 8, IP_ALLOC);
	/* a watch blind to reads cannot tell the first touch: ignored */
	TEST_ASSERT_VAL("write-only hit",
			!ws->sink.hit(&ws->sink, &write_only));

	TEST_ASSERT_EQUAL("hits", (int)ws->nr_hits, 10);
	wc = dprof_workingset__class(ws, a);
	TEST_ASSERT_VAL("class a", wc);
	TEST_ASSERT_EQUAL("a lines", (int)wc->nr_first, 4);
	TEST_ASSERT_EQUAL("a alloc", (int)ft_count(wc, IP_ALLOC), 1);
	TEST_ASSERT_EQUAL("a use", (int)ft_count(wc, IP_USE), 2);
	TEST_ASSERT_EQUAL("a other", (int)ft_count(wc, IP_OTHER), 1);
	/* hits are no access samples: the cache model saw nothing */
	TEST_ASSERT_VAL("a not in the model", !ws->nr_lines);
	TEST_ASSERT_EQUAL("a not in the model", (int)wc->nr_lines, 0);
	wc = dprof_workingset__class(ws, b);
	TEST_ASSERT_VAL("class b", wc);
	TEST_ASSERT_EQUAL("b lines", (int)wc->nr_first, 1);
	TEST_ASSERT_EQUAL("b other", (int)ft_count(wc, IP_OTHER), 1);
	TEST_ASSERT_EQUAL("b alloc", (int)ft_count(wc, IP_ALLOC), 0);
	TEST_ASSERT_VAL("class c: no histories", !dprof_workingset__class(ws, c));
	return TEST_OK;
}

int test__dprof_firsttouch(struct test_suite *test __maybe_unused,
			   int subtest __maybe_unused)
{
	struct dprof_class cls[3] = { { .kind = DPROF_KIND_SLAB } };
	struct dprof_cache_geom g;
	struct dprof_workingset ws;
	int ret;

	TEST_ASSERT_VAL("geometry", !dprof_cache_geom__parse(&g, "1M:8"));
	TEST_ASSERT_VAL("init", !dprof_workingset__init(&ws, &g));
	ret = ft_run(&ws, &cls[0], &cls[1], &cls[2]);
	dprof_workingset__exit(&ws);
	return ret;
}
