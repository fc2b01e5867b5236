// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: objects and watch hits at the top of the address space
 * (damaged recordings).  Every per-cache-line loop of the views must end:
 * before the fix, each of these cases looped forever.
 */
#include "debug.h"
#include "tests/tests.h"
#include "util/dprof/addrset.h"
#include "util/dprof/cachesim.h"
#include "util/dprof/classify.h"
#include "util/dprof/profile.h"
#include "util/dprof/sink.h"
#include "util/dprof/workingset.h"
#include "dprof-tests.h"

#define TOP_LINE	0xffffffffffffffc0ULL	/* the last 64-byte line */
#define TOP_OBJ		0xffffffffffffff80ULL

/* An object's birth and death, and a watch hit on its last 8 bytes. */
static int bounds__sink(struct dprof_sink *sink, struct dprof_obj *obj)
{
	struct dprof_hit hit = {
		.obj = obj, .addr = TOP_LINE, .len = 8, .ip = 0x1004,
		.access_ip = 0x1000, .write = 1, .rw = true, .time = 2,
	};

	TEST_ASSERT_VAL("alloc", !sink->alloc || !sink->alloc(sink, obj, 1, 0));
	TEST_ASSERT_VAL("hit", !sink->hit(sink, &hit));
	/* a hit whose bytes would run past the top: ignored */
	hit.addr = ~0ULL - 3;
	TEST_ASSERT_VAL("hit past the top", !sink->hit(sink, &hit));
	TEST_ASSERT_VAL("free", !sink->free(sink, obj, 3, 0));
	return TEST_OK;
}

int test__dprof_bounds(struct test_suite *test __maybe_unused,
		       int subtest __maybe_unused)
{
	struct dprof_class cls = { .kind = DPROF_KIND_SLAB, .name = (char *)"t" };
	/* its last byte is the address space's last but one */
	struct dprof_obj obj = { .base = TOP_OBJ, .size = 0x7f, .priv = &cls };
	struct dprof_cache_geom geom;
	struct dprof_classify cl;
	struct dprof_workingset ws;
	u64 first, last;
	int ret;

	TEST_ASSERT_VAL("range", dprof_line_range(TOP_OBJ, 0x80, 64, &first, &last));
	DPROF_TEST_EQ_U64("first line", first, TOP_OBJ / 64);
	DPROF_TEST_EQ_U64("last line", last, ~0ULL / 64);
	TEST_ASSERT_VAL("past the top", !dprof_line_range(TOP_OBJ, 0x81, 64, &first, &last));
	TEST_ASSERT_VAL("empty", !dprof_line_range(TOP_OBJ, 0, 64, &first, &last));

	TEST_ASSERT_VAL("geometry", !dprof_cache_geom__set(&geom, 1, 32 * 1024, 8, 64));
	TEST_ASSERT_VAL("classify", !dprof_classify__init(&cl, &geom));
	ret = bounds__sink(&cl.sink, &obj);
	dprof_classify__exit(&cl);
	if (ret != TEST_OK)
		return ret;

	TEST_ASSERT_VAL("workingset", !dprof_workingset__init(&ws, &geom));
	ret = bounds__sink(&ws.sink, &obj);
	if (ret == TEST_OK)
		dprof_cache__disown(&ws.cache, TOP_OBJ, 0x80);
	dprof_workingset__exit(&ws);
	return ret;
}
