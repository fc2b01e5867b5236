// SPDX-License-Identifier: GPL-2.0
/*
 * perf test suite for perf dprof: decoders and resolvers that need no
 * special hardware.  Test cases live one concern per file next to this one.
 */
#include <stddef.h>
#include "tests/tests.h"
#include "dprof-tests.h"

static struct test_case tests__dprof[] = {
	TEST_CASE_REASON("dprof: effective address from instruction + registers", dprof_ea,
			 "no decoder for this architecture (x86-64 with CONFIG_AUXTRACE)"),
	TEST_CASE("dprof: live-object address set", dprof_addrset),
	TEST_CASE("dprof: address set against a model, objects moved between sets",
		  dprof_addrset_move),
	TEST_CASE("dprof: static symbol resolution", dprof_static),
	TEST_CASE("dprof: first and last sample time of each kernel ip", dprof_ip_times),
	TEST_CASE("dprof: user files sampled, from mmap, fork and exec records",
		  dprof_userfiles),
	TEST_CASE("dprof: per-class aggregation into rows", dprof_profile),
	TEST_CASE("dprof: objects touched, share intervals, evidence of change", dprof_estimate),
	TEST_CASE("dprof: cache model and geometry", dprof_cachesim),
	TEST_CASE("dprof: miss classes against a cache model with ground truth", dprof_missmodel),
	TEST_CASE("dprof: exact miss classes from object histories", dprof_exact),
	TEST_CASE("dprof: data_src decoding of PEBS, IBS and SPE encodings", dprof_datasrc),
	TEST_CASE("dprof: object histories, path traces and data flow", dprof_flow),
	TEST_CASE("dprof: lines first brought in, from object histories", dprof_firsttouch),
	TEST_CASE("dprof: objects and watch hits at the top of the address space", dprof_bounds),
	TEST_CASE("dprof: BTF types and member lookup", dprof_btf),
	TEST_CASE("dprof: protocol buffers encoder of --pprof", dprof_protobuf),
	TEST_CASE("dprof: type layouts kept between reports", dprof_layouts),
	TEST_CASE("dprof: samples of a task that had not run since its previous one",
		  dprof_still),
	TEST_CASE("dprof: kernel objects kept by samples' addresses and registers", dprof_keep),
#ifdef HAVE_DWARF_SUPPORT
	TEST_CASE("dprof: DWARF types and member lookup", dprof_types),
#else
	TEST_CASE_REASON("dprof: DWARF types and member lookup", dprof_types,
			 "perf built without libdw"),
#endif
	{ .name = NULL, }
};

struct test_suite suite__dprof = {
	.desc = "dprof data profiler",
	.test_cases = tests__dprof,
};
