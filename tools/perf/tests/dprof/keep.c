// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the kmem objects the record-end pass keeps for the kernel's
 * samples (keep.h): a decoded sample's address keeps the object it is in,
 * while that object lives; a sample whose code could not be read keeps
 * those a kernel address in its registers points into, give or take
 * DPROF_KEEP_REG_SLACK ([start - slack, end + slack)), and no other.
 */
#include <string.h>
#include <linux/kernel.h>
#include "tests/tests.h"
#include "util/dprof/keep.h"
#include "dprof-tests.h"

#define KEEP_OBJ	0xffff888100001000ULL	/* a slab object's start */
#define KEEP_SIZE	256ULL

static int keep__decoded(void)
{
	/* sorted by pid (0: the kernel's), address, time */
	struct dprof_touch kt[] = {
		{ .addr = KEEP_OBJ + 8,		.time = 100, },
		{ .addr = KEEP_OBJ + 8,		.time = 500, },
		{ .addr = KEEP_OBJ + KEEP_SIZE,	.time = 200, },
	};
	struct dprof_touches t;

	memset(&t, 0, sizeof(t));
	t.kt = kt;
	t.nr_kt = ARRAY_SIZE(kt);
	TEST_ASSERT_VAL("a sample in it while it lived",
			dprof_touches__any_kernel(&t, KEEP_OBJ, KEEP_SIZE, 50, 150));
	TEST_ASSERT_VAL("the second sample in its life",
			dprof_touches__any_kernel(&t, KEEP_OBJ, KEEP_SIZE, 400, 600));
	TEST_ASSERT_VAL("samples before and after its life only",
			!dprof_touches__any_kernel(&t, KEEP_OBJ, KEEP_SIZE, 150, 450));
	TEST_ASSERT_VAL("a sample in the next object only",
			!dprof_touches__any_kernel(&t, KEEP_OBJ, KEEP_SIZE, 150, 250));
	TEST_ASSERT_VAL("the next object's",
			dprof_touches__any_kernel(&t, KEEP_OBJ + KEEP_SIZE, KEEP_SIZE, 150, 250));
	return TEST_OK;
}

static int keep__regs(void)
{
	u64 slack = DPROF_KEEP_REG_SLACK;
	/* the kernel addresses of undecided samples' registers, sorted */
	struct dprof_touch kregs[] = {
		{ .addr = KEEP_OBJ + KEEP_SIZE / 2,		.time = 100, },
		{ .addr = KEEP_OBJ + 3 * KEEP_SIZE - slack,	.time = 300, },
		{ .addr = KEEP_OBJ + 6 * KEEP_SIZE + slack - 1,	.time = 600, },
	};
	struct dprof_touches t;

	memset(&t, 0, sizeof(t));
	t.kregs = kregs;
	t.nr_kregs = ARRAY_SIZE(kregs);
	TEST_ASSERT_VAL("a register into it while it lived",
			dprof_touches__any_kernel(&t, KEEP_OBJ, KEEP_SIZE, 50, 150));
	TEST_ASSERT_VAL("... not after its life",
			!dprof_touches__any_kernel(&t, KEEP_OBJ, KEEP_SIZE, 101, 250));
	TEST_ASSERT_VAL("a register the slack below it",
			dprof_touches__any_kernel(&t, KEEP_OBJ + 3 * KEEP_SIZE, KEEP_SIZE,
						  0, 1000));
	TEST_ASSERT_VAL("... and a byte more below",
			!dprof_touches__any_kernel(&t, KEEP_OBJ + 3 * KEEP_SIZE + 1, KEEP_SIZE,
						   0, 1000));
	TEST_ASSERT_VAL("a register the slack past its end",
			dprof_touches__any_kernel(&t, KEEP_OBJ + 5 * KEEP_SIZE, KEEP_SIZE,
						  0, 1000));
	TEST_ASSERT_VAL("... and a byte more past",
			!dprof_touches__any_kernel(&t, KEEP_OBJ + 5 * KEEP_SIZE - 1, KEEP_SIZE,
						   0, 1000));
	TEST_ASSERT_VAL("an object no register points near",
			!dprof_touches__any_kernel(&t, KEEP_OBJ + 10 * KEEP_SIZE, KEEP_SIZE,
						   0, 1000));
	return TEST_OK;
}

int test__dprof_keep(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	int ret = keep__decoded();

	return ret == TEST_OK ? keep__regs() : ret;
}
