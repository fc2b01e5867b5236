/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TESTS_DPROF_H
#define __PERF_TESTS_DPROF_H

struct test_suite;

int test__dprof_addrset(struct test_suite *test, int subtest);
int test__dprof_ea(struct test_suite *test, int subtest);
int test__dprof_types(struct test_suite *test, int subtest);
int test__dprof_btf(struct test_suite *test, int subtest);
int test__dprof_static(struct test_suite *test, int subtest);
int test__dprof_profile(struct test_suite *test, int subtest);
int test__dprof_cachesim(struct test_suite *test, int subtest);
int test__dprof_missmodel(struct test_suite *test, int subtest);
int test__dprof_exact(struct test_suite *test, int subtest);
int test__dprof_datasrc(struct test_suite *test, int subtest);
int test__dprof_flow(struct test_suite *test, int subtest);
int test__dprof_firsttouch(struct test_suite *test, int subtest);

#endif /* __PERF_TESTS_DPROF_H */
