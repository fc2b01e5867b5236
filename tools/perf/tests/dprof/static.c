// SPDX-License-Identifier: GPL-2.0
/*
 * Static data and code bytes resolved the way perf dprof report does it,
 * on this very process: its own maps, synthesized as a recording would.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>

#include "debug.h"
#include "env.h"
#include "event.h"
#include "machine.h"
#include "symbol.h"
#include "thread.h"
#include "thread_map.h"
#include "util/synthetic-events.h"
#include "tests/tests.h"
#include "util/dprof/resolve.h"
#include "dprof-tests.h"

struct dprof_test_static {
	long	head;
	char	pad[48];
	int	tail;
};

/* one in .data, one in .bss (an anonymous mapping past the file's end) */
struct dprof_test_static dprof_test_data_var __aligned(64) = { .head = 1 };
struct dprof_test_static dprof_test_bss_var __aligned(64);

static int test_percpu_find(void)
{
	struct dprof_percpu_sym syms[] = {
		{ .start = 0x0,    .size = 0x8,   .name = (char *)"fixed_percpu_data" },
		{ .start = 0x1000, .size = 0x40,  .name = (char *)"pcpu_hot" },
		{ .start = 0x2000, .size = 0x100, .name = (char *)"runqueues" },
	};

	TEST_ASSERT_VAL("first", dprof_percpu__find(syms, 3, 0x4) == &syms[0]);
	TEST_ASSERT_VAL("hole", !dprof_percpu__find(syms, 3, 0x8));
	TEST_ASSERT_VAL("inside", dprof_percpu__find(syms, 3, 0x1020) == &syms[1]);
	TEST_ASSERT_VAL("end", !dprof_percpu__find(syms, 3, 0x1040));
	TEST_ASSERT_VAL("last", dprof_percpu__find(syms, 3, 0x20ff) == &syms[2]);
	TEST_ASSERT_VAL("past", !dprof_percpu__find(syms, 3, 0x2100));
	TEST_ASSERT_VAL("empty", !dprof_percpu__find(syms, 0, 0x0));
	return TEST_OK;
}

int test__dprof_static(struct test_suite *test __maybe_unused,
		       int subtest __maybe_unused)
{
	struct perf_thread_map *threads = NULL;
	struct dprof_resolver res = { };
	struct machine *machine;
	struct thread *thread = NULL;
	struct dprof_static st;
	const u8 *code, *prev;
	pid_t pid = getpid();
	int err = TEST_FAIL, len, prev_len;
	u64 addr;

	if (test_percpu_find() != TEST_OK)
		return TEST_FAIL;

	machine = machine__new_host();
	if (!machine)
		return TEST_FAIL;
	machine->env = &perf_env;
	threads = thread_map__new_by_tid(pid);
	if (!threads)
		goto out;
	if (perf_event__synthesize_thread_map(NULL, threads, perf_event__process,
					      machine, true, /*mmap_data=*/true) < 0)
		goto out;
	thread = machine__findnew_thread(machine, pid, pid);
	if (!thread || dprof_resolver__init(&res, machine))
		goto out;

	addr = (u64)(unsigned long)&dprof_test_data_var.tail;
	if (dprof_resolver__static(&res, thread, addr, &st)) {
		pr_debug("no symbol for %#" PRIx64 " (stripped perf binary?)\n", addr);
		err = TEST_SKIP;
		goto out;
	}
	pr_debug("resolved to %s+%#" PRIx64 "\n", st.name, st.offset);
	DPROF_TEST_STREQ("data symbol", st.name, "dprof_test_data_var");
	DPROF_TEST_EQ_U64("data offset", st.offset, offsetof(struct dprof_test_static, tail));

	addr = (u64)(unsigned long)&dprof_test_bss_var.pad[3];
	TEST_ASSERT_VAL("bss resolved", !dprof_resolver__static(&res, thread, addr, &st));
	pr_debug("resolved to %s+%#" PRIx64 "\n", st.name, st.offset);
	DPROF_TEST_STREQ("bss symbol", st.name, "dprof_test_bss_var");
	DPROF_TEST_EQ_U64("bss offset", st.offset, offsetof(struct dprof_test_static, pad[3]));

	/* a function is not static data */
	addr = (u64)(unsigned long)test__dprof_static;
	TEST_ASSERT_VAL("function", dprof_resolver__static(&res, thread, addr, &st));

	/* code bytes come from the file, and match what is mapped */
	len = dprof_resolver__code(&res, thread, addr, &code, &prev, &prev_len);
	TEST_ASSERT_VAL("code read", len >= 8);
	TEST_ASSERT_VAL("code bytes", !memcmp(code, (void *)(unsigned long)addr, len));
	TEST_ASSERT_EQUAL("no insn before the function start", prev_len, 0);
	err = TEST_OK;
out:
	dprof_resolver__exit(&res);
	thread__put(thread);
	perf_thread_map__put(threads);
	machine__delete(machine);
	return err;
}
