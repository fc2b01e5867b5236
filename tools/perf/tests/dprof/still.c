// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: samples of a task that had not run since its previous one
 * (decoded.h): the same ip and registers are the previous sample again,
 * by task (the idle tasks by CPU); and the word written at record end
 * carries it, and takes it back.
 */
#include <string.h>
#include "tests/tests.h"
#include "util/dprof/decoded.h"
#include "util/evsel.h"
#include "util/sample.h"
#include "dprof-tests.h"

#define STILL_MASK	0x7ULL	/* three registers */

static void still__sample(struct perf_sample *s, u32 tid, u32 cpu, u64 ip, u64 *regs)
{
	memset(s, 0, sizeof(*s));
	s->pid = tid;
	s->tid = tid;
	s->cpu = cpu;
	s->ip = ip;
	s->intr_regs.abi = 2;	/* PERF_SAMPLE_REGS_ABI_64 */
	s->intr_regs.mask = STILL_MASK;
	s->intr_regs.regs = regs;
}

static int still__detect(void)
{
	u64 a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 4 };
	struct dprof_still st;
	struct perf_sample s;

	dprof_still__init(&st);
	still__sample(&s, 100, 0, 0x1000, a);
	TEST_ASSERT_VAL("a task's first sample", !dprof_still__sample(&st, &s));
	TEST_ASSERT_VAL("the same ip and registers", dprof_still__sample(&st, &s));
	/* on another CPU: migrated, not run */
	s.cpu = 1;
	TEST_ASSERT_VAL("the same, on another CPU", dprof_still__sample(&st, &s));
	still__sample(&s, 100, 0, 0x1004, a);
	TEST_ASSERT_VAL("another ip", !dprof_still__sample(&st, &s));
	still__sample(&s, 100, 0, 0x1004, b);
	TEST_ASSERT_VAL("another register", !dprof_still__sample(&st, &s));
	/* another task in between: each task its own */
	still__sample(&s, 200, 0, 0x1004, b);
	TEST_ASSERT_VAL("another task's first", !dprof_still__sample(&st, &s));
	still__sample(&s, 100, 0, 0x1004, b);
	TEST_ASSERT_VAL("the task's own previous", dprof_still__sample(&st, &s));
	/* the idle tasks: tid 0 on each CPU, one per CPU */
	still__sample(&s, 0, 0, 0x2000, a);
	TEST_ASSERT_VAL("idle on CPU 0", !dprof_still__sample(&st, &s));
	still__sample(&s, 0, 1, 0x2000, b);
	TEST_ASSERT_VAL("idle on CPU 1", !dprof_still__sample(&st, &s));
	still__sample(&s, 0, 0, 0x2000, a);
	TEST_ASSERT_VAL("idle on CPU 0 again", dprof_still__sample(&st, &s));
	/* no registers: never still */
	s.intr_regs.regs = NULL;
	TEST_ASSERT_VAL("no registers", !dprof_still__sample(&st, &s));
	dprof_still__exit(&st);
	return TEST_OK;
}

/* The record-end word: STILL goes there and back, and never without registers. */
static int still__word(void)
{
	struct dprof_decoded d = { .why = DPROF_EA_OK, .ip = 0x1000, .still = true, }, back;
	struct evsel evsel;
	struct perf_sample s;
	u32 word = dprof_decoded__word(&d, 0x1000);

	TEST_ASSERT_VAL("the word has STILL", word & DPROF_DEC_STILL);
	dprof_decoded__from_word(&back, word, 0x5000, 0x1000);
	TEST_ASSERT_VAL("and gives it back", back.still);
	d.still = false;
	dprof_decoded__from_word(&back, dprof_decoded__word(&d, 0x1000), 0x5000, 0x1000);
	TEST_ASSERT_VAL("not still", !back.still);

	memset(&evsel, 0, sizeof(evsel));
	evsel.core.attr.sample_regs_intr = STILL_MASK;
	memset(&s, 0, sizeof(s));
	word = DPROF_DEC_NO_REGS | DPROF_DEC_STILL;
	s.raw_data = &word;
	s.raw_size = sizeof(word);
	TEST_ASSERT_VAL("still with no registers: damaged",
			dprof_decoded__unpack(&evsel, &s, &back) < 0);
	word = DPROF_DEC_NO_REGS;
	TEST_ASSERT_VAL("no registers", !dprof_decoded__unpack(&evsel, &s, &back) &&
			!back.still);
	word = DPROF_EA_OK | DPROF_DEC_STILL;
	s.addr = 0x5000;
	s.ip = 0x1000;
	TEST_ASSERT_VAL("decoded and still", dprof_decoded__unpack(&evsel, &s, &back) == 1 &&
			back.still && back.ea.addr == 0x5000);
	return TEST_OK;
}

int test__dprof_still(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	int ret = still__detect();

	return ret == TEST_OK ? still__word() : ret;
}
