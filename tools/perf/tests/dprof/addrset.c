// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include "debug.h"
#include "tests/tests.h"
#include "util/dprof/addrset.h"
#include "dprof-tests.h"

struct addrset_test {
	struct dprof_addrset	as;
	int			released_freed;
	int			released_other;
};

static void addrset_test__release(struct dprof_addrset *as,
				  struct dprof_obj *obj __maybe_unused,
				  bool freed)
{
	struct addrset_test *t = container_of(as, struct addrset_test, as);

	if (freed)
		t->released_freed++;
	else
		t->released_other++;
}

int test__dprof_addrset(struct test_suite *test __maybe_unused,
			int subtest __maybe_unused)
{
	struct addrset_test t = { };
	struct dprof_addrset *as = &t.as;
	struct dprof_obj *a, *b;
	int err;

	dprof_addrset__init(as, addrset_test__release);

	a = dprof_addrset__alloc(as, 0x1000, 0x100, 10);
	b = dprof_addrset__alloc(as, 0x1100, 0x40, 11);
	TEST_ASSERT_VAL("alloc", a && b);
	TEST_ASSERT_EQUAL("alloc", (int)as->nr_live, 2);

	/* interior, first and last byte, one past the end, before */
	TEST_ASSERT_VAL("base", dprof_addrset__find(as, 0x1000) == a);
	TEST_ASSERT_VAL("inside", dprof_addrset__find(as, 0x10ff) == a);
	TEST_ASSERT_VAL("adjacent", dprof_addrset__find(as, 0x1100) == b);
	TEST_ASSERT_VAL("last", dprof_addrset__find(as, 0x113f) == b);
	TEST_ASSERT_VAL("past end", !dprof_addrset__find(as, 0x1140));
	TEST_ASSERT_VAL("before", !dprof_addrset__find(as, 0xfff));

	/* free, then the same address allocated again (slab reuse) */
	err = dprof_addrset__free(as, 0x1000);
	TEST_ASSERT_EQUAL("free", err, 0);
	TEST_ASSERT_VAL("freed gone", !dprof_addrset__find(as, 0x1010));
	TEST_ASSERT_EQUAL("release on free", (int)t.released_freed, 1);
	a = dprof_addrset__alloc(as, 0x1000, 0x80, 20);
	TEST_ASSERT_VAL("realloc", a);
	TEST_ASSERT_EQUAL("realloc", (int)a->alloc_time, 20);
	TEST_ASSERT_VAL("realloc size", !dprof_addrset__find(as, 0x1090));

	/* objects alive before the window: their free is unknown */
	err = dprof_addrset__free(as, 0x5000);
	TEST_ASSERT_EQUAL("unknown free", err, -ENOENT);
	TEST_ASSERT_EQUAL("unknown free counted", (int)as->nr_unknown_free, 1);
	/* free of an interior pointer is not a free of the object */
	err = dprof_addrset__free(as, 0x1008);
	TEST_ASSERT_EQUAL("interior free", err, -ENOENT);
	TEST_ASSERT_VAL("interior kept", dprof_addrset__find(as, 0x1008) == a);

	/* a lost free: an allocation overlapping two live objects evicts both */
	a = dprof_addrset__alloc(as, 0x1040, 0x100, 30);
	TEST_ASSERT_EQUAL("evicted", (int)as->nr_evicted, 2);
	TEST_ASSERT_EQUAL("evicted", (int)t.released_other, 2);
	TEST_ASSERT_VAL("new covers", dprof_addrset__find(as, 0x1120) == a);
	TEST_ASSERT_VAL("old gone", !dprof_addrset__find(as, 0x1000));
	TEST_ASSERT_EQUAL("live", (int)as->nr_live, 1);

	dprof_addrset__exit(as);
	TEST_ASSERT_EQUAL("teardown", (int)as->nr_live, 0);
	TEST_ASSERT_EQUAL("teardown", (int)t.released_other, 3);
	return TEST_OK;
}
