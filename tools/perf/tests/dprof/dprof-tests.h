/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TESTS_DPROF_H
#define __PERF_TESTS_DPROF_H

#include <inttypes.h>
#include <string.h>
#include <linux/types.h>
#include "debug.h"

struct strbuf;
struct test_suite;
struct dprof_type;

int test__dprof_addrset(struct test_suite *test, int subtest);
int test__dprof_addrset_move(struct test_suite *test, int subtest);
int test__dprof_ea(struct test_suite *test, int subtest);
int test__dprof_types(struct test_suite *test, int subtest);
int test__dprof_btf(struct test_suite *test, int subtest);
int test__dprof_static(struct test_suite *test, int subtest);
int test__dprof_profile(struct test_suite *test, int subtest);
int test__dprof_estimate(struct test_suite *test, int subtest);
int test__dprof_cachesim(struct test_suite *test, int subtest);
int test__dprof_missmodel(struct test_suite *test, int subtest);
int test__dprof_exact(struct test_suite *test, int subtest);
int test__dprof_datasrc(struct test_suite *test, int subtest);
int test__dprof_flow(struct test_suite *test, int subtest);
int test__dprof_firsttouch(struct test_suite *test, int subtest);
int test__dprof_bounds(struct test_suite *test, int subtest);
int test__dprof_still(struct test_suite *test, int subtest);
int test__dprof_keep(struct test_suite *test, int subtest);
int test__dprof_ip_times(struct test_suite *test, int subtest);
int test__dprof_userfiles(struct test_suite *test, int subtest);
int test__dprof_protobuf(struct test_suite *test, int subtest);
int test__dprof_layouts(struct test_suite *test, int subtest);

/* types.c, for btf.c too */
const char *dprof_test__member(const struct dprof_type *t, u64 off,
			       struct strbuf *sb, u64 *moff, u64 *msize);
const char *dprof_test__type_name(const struct dprof_type *t, struct strbuf *sb);
u64 dprof_test__sizeof(const struct dprof_type *t);

/* TEST_ASSERT_EQUAL() for u64 and strings: print both values */
static inline bool dprof_test__eq_u64(const char *file, int line, const char *text,
				      u64 val, u64 exp)
{
	if (val != exp)
		pr_debug("FAILED %s:%d %s (%#" PRIx64 " != %#" PRIx64 ")\n",
			 file, line, text, val, exp);
	return val == exp;
}

static inline bool dprof_test__streq(const char *file, int line, const char *text,
				     const char *val, const char *exp)
{
	if (strcmp(val, exp))
		pr_debug("FAILED %s:%d %s (\"%s\" != \"%s\")\n", file, line, text, val, exp);
	return !strcmp(val, exp);
}

#define DPROF_TEST_EQ_U64(text, val, expected)				\
	TEST_ASSERT_VAL(text, dprof_test__eq_u64(__FILE__, __LINE__, text, val, expected))

#define DPROF_TEST_STREQ(text, val, expected)				\
	TEST_ASSERT_VAL(text, dprof_test__streq(__FILE__, __LINE__, text, val, expected))

#endif /* __PERF_TESTS_DPROF_H */
