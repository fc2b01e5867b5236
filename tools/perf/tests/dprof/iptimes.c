// SPDX-License-Identifier: GPL-2.0
/*
 * The first and last sample time of each kernel ip, as the report's first
 * pass notes them: against a model that keeps every sample.
 */
#include <stdlib.h>
#include <linux/kernel.h>

#include "tests/tests.h"
#include "util/dprof/resolve.h"
#include "dprof-tests.h"

#define DPROF_TEST_TEXT	0xffffffff81000000ULL
#define NR_IPS		3000	/* more than the first allocation */
#define NR_SAMPLES	20000

struct dprof_test_sample {
	u64	ip;
	u64	time;
};

/* What dprof_ip_times__find() should say of [@start, @end). */
static bool model_find(const struct dprof_test_sample *s, size_t nr,
		       u64 start, u64 end, u64 *first, u64 *last)
{
	u64 firsts[NR_IPS] = { 0 };
	bool seen[NR_IPS] = { false };
	bool found = false;
	size_t i;

	*first = *last = 0;
	for (i = 0; i < nr; i++) {
		size_t k = (s[i].ip - DPROF_TEST_TEXT) / 4;

		if (s[i].ip < start || s[i].ip >= end)
			continue;
		if (!seen[k] || firsts[k] > s[i].time)
			firsts[k] = s[i].time;
		seen[k] = true;
		if (*last < s[i].time)
			*last = s[i].time;
		found = true;
	}
	for (i = 0; i < NR_IPS; i++) {
		if (seen[i] && *first < firsts[i])
			*first = firsts[i];
	}
	return found;
}

int test__dprof_ip_times(struct test_suite *test __maybe_unused,
			 int subtest __maybe_unused)
{
	struct dprof_ip_times it = { };
	struct dprof_test_sample *s;
	u64 first, last, mfirst, mlast;
	int err = TEST_FAIL;
	unsigned int seed = 1;
	size_t i;

	s = calloc(NR_SAMPLES, sizeof(*s));
	if (!s)
		return TEST_FAIL;
	/* not in time order: a file's per-CPU buffers interleave */
	for (i = 0; i < NR_SAMPLES; i++) {
		s[i].ip = DPROF_TEST_TEXT + 4 * (rand_r(&seed) % NR_IPS);
		s[i].time = 1000 + rand_r(&seed) % 1000000;
		if (dprof_ip_times__add(&it, s[i].ip, s[i].time))
			goto out;
	}
	/* before done(): nothing to look up yet */
	TEST_ASSERT_VAL("not sorted yet",
			!dprof_ip_times__find(&it, 0, ~0ULL, &first, &last));
	dprof_ip_times__done(&it);

	for (i = 0; i < 200; i++) {
		u64 start = DPROF_TEST_TEXT + rand_r(&seed) % (4 * NR_IPS);
		u64 end = start + rand_r(&seed) % 512;
		bool found = dprof_ip_times__find(&it, start, end, &first, &last);

		if (found != model_find(s, NR_SAMPLES, start, end, &mfirst, &mlast)) {
			pr_debug("[%#" PRIx64 ", %#" PRIx64 "): found %d\n", start, end, found);
			goto out;
		}
		if (!found)
			continue;
		DPROF_TEST_EQ_U64("latest first sample", first, mfirst);
		DPROF_TEST_EQ_U64("last sample", last, mlast);
		TEST_ASSERT_VAL("first <= last", first <= last);
	}
	/* the whole range, an empty one, and one below every ip */
	TEST_ASSERT_VAL("all", dprof_ip_times__find(&it, 0, ~0ULL, &first, &last));
	model_find(s, NR_SAMPLES, 0, ~0ULL, &mfirst, &mlast);
	DPROF_TEST_EQ_U64("all: first", first, mfirst);
	DPROF_TEST_EQ_U64("all: last", last, mlast);
	TEST_ASSERT_VAL("empty range", !dprof_ip_times__find(&it, s[0].ip, s[0].ip, &first, &last));
	TEST_ASSERT_VAL("below", !dprof_ip_times__find(&it, 0, DPROF_TEST_TEXT,
						       &first, &last));
	TEST_ASSERT_VAL("one entry per ip", it.nr <= NR_IPS);
	err = TEST_OK;
out:
	dprof_ip_times__exit(&it);
	free(s);
	return err;
}
