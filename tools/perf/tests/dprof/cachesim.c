// SPDX-License-Identifier: GPL-2.0
/* perf dprof: the set-associative LRU cache model and its geometry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "debug.h"
#include "tests/tests.h"
#include "util/dprof/cachesim.h"
#include "dprof-tests.h"

static int test_parse(void)
{
	struct dprof_cache_geom g;

	TEST_ASSERT_VAL("l3 spec", !dprof_cache_geom__parse(&g, "l3:32M:16:64"));
	TEST_ASSERT_EQUAL("l3 level", (int)g.level, 3);
	TEST_ASSERT_EQUAL("l3 size", (int)g.size, 32 << 20);
	TEST_ASSERT_EQUAL("l3 ways", (int)g.ways, 16);
	TEST_ASSERT_EQUAL("l3 ways", (int)g.line, 64);
	TEST_ASSERT_EQUAL("l3 sets", (int)g.nr_sets, 32768);
	TEST_ASSERT_VAL("defaults", !dprof_cache_geom__parse(&g, "1M"));
	TEST_ASSERT_EQUAL("defaults", (int)g.level, 0);
	TEST_ASSERT_EQUAL("defaults", (int)g.ways, 8);
	TEST_ASSERT_EQUAL("defaults", (int)g.line, 64);
	TEST_ASSERT_VAL("no line", !dprof_cache_geom__parse(&g, "L2:1024K:8"));
	TEST_ASSERT_EQUAL("no line", (int)g.level, 2);
	TEST_ASSERT_EQUAL("no line", (int)g.nr_sets, 2048);
	TEST_ASSERT_VAL("12-way", !dprof_cache_geom__parse(&g, "l3:24M:12:64"));
	TEST_ASSERT_EQUAL("12-way", (int)g.nr_sets, 32768);
	TEST_ASSERT_VAL("bytes", !dprof_cache_geom__parse(&g, "16384:4:64"));
	TEST_ASSERT_EQUAL("bytes", (int)g.nr_sets, 64);
	TEST_ASSERT_VAL("empty", dprof_cache_geom__parse(&g, ""));
	TEST_ASSERT_VAL("junk", dprof_cache_geom__parse(&g, "l3:32Q"));
	TEST_ASSERT_VAL("trailing", dprof_cache_geom__parse(&g, "32M:16:64:1"));
	TEST_ASSERT_VAL("line not 2^n", dprof_cache_geom__parse(&g, "32M:16:48"));
	TEST_ASSERT_VAL("0 ways", dprof_cache_geom__parse(&g, "32M:0"));
	TEST_ASSERT_VAL("not whole sets", dprof_cache_geom__parse(&g, "1000:4:64"));
	TEST_ASSERT_VAL("NULL", dprof_cache_geom__parse(&g, NULL));
	return 0;
}

static int write_attr(const char *dir, const char *name, const char *val)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		return -1;
	fprintf(fp, "%s\n", val);
	fclose(fp);
	return 0;
}

static int make_index(const char *root, int i, const char *level,
		      const char *type, const char *size, const char *ways,
		      const char *shared)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/index%d", root, i);
	if (mkdir(dir, 0700))
		return -1;
	return write_attr(dir, "level", level) ||
	       write_attr(dir, "type", type) ||
	       write_attr(dir, "size", size) ||
	       write_attr(dir, "ways_of_associativity", ways) ||
	       write_attr(dir, "coherency_line_size", "64") ||
	       write_attr(dir, "shared_cpu_list", shared);
}

static void remove_tree(const char *root)
{
	static const char * const names[] = {
		"level", "type", "size", "ways_of_associativity",
		"coherency_line_size", "shared_cpu_list",
	};
	char path[512];
	int i, j;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < 6; j++) {
			snprintf(path, sizeof(path), "%s/index%d/%s", root, i,
				 names[j]);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/index%d", root, i);
		rmdir(path);
	}
	rmdir(root);
}

static int test_sysfs(void)
{
	char root[] = "/tmp/perf-dprof-cache.XXXXXX";
	struct dprof_cache_geom g;
	int ret = TEST_FAIL;

	if (!mkdtemp(root))
		return TEST_FAIL;
	if (make_index(root, 0, "1", "Data", "32K", "8", "0,32") ||
	    make_index(root, 1, "1", "Instruction", "32K", "8", "0,32") ||
	    make_index(root, 2, "2", "Unified", "1024K", "8", "0,32") ||
	    make_index(root, 3, "3", "Unified", "32768K", "16", "0-15,32-47"))
		goto out;
	if (dprof_cache_geom__sysfs(&g, root, 0) || g.level != 3 ||
	    g.size != 32ull << 20 || g.ways != 16 || g.nr_sets != 32768 ||
	    g.nr_shared != 32) {
		pr_debug("sysfs LLC: level %d size %llu ways %u shared %u\n",
			 g.level, (unsigned long long)g.size, g.ways, g.nr_shared);
		goto out;
	}
	if (dprof_cache_geom__sysfs(&g, root, 1) || g.level != 1 ||
	    g.size != 32768 || g.nr_shared != 2)
		goto out;
	if (dprof_cache_geom__sysfs(&g, root, 4) != -ENOENT)
		goto out;
	/* this machine's own description, when it has one, must parse */
	if (!access("/sys/devices/system/cpu/cpu0/cache/index0/level", R_OK) &&
	    dprof_cache_geom__sysfs(&g, NULL, 0))
		goto out;
	ret = 0;
out:
	remove_tree(root);
	return ret;
}

static int test_lru(void)
{
	struct dprof_cache_geom g;
	struct dprof_cache_line victim;
	struct dprof_cache c;
	int owner_a, owner_b;
	u64 stride;
	int i;

	/* 4 sets of 2 ways, 64-byte lines: addresses 256 bytes apart collide */
	TEST_ASSERT_VAL("geom", !dprof_cache_geom__set(&g, 1, 512, 2, 64));
	TEST_ASSERT_EQUAL("sets", (int)g.nr_sets, 4);
	TEST_ASSERT_VAL("init", !dprof_cache__init(&c, &g));
	stride = 256;
	TEST_ASSERT_EQUAL("set of 0", (int)dprof_cache__set(&c, 0), 0);
	TEST_ASSERT_EQUAL("set of 64", (int)dprof_cache__set(&c, 64), 1);
	TEST_ASSERT_EQUAL("set of 0x1c0", (int)dprof_cache__set(&c, 0x1c0), 3);
	TEST_ASSERT_EQUAL("wrap", (int)dprof_cache__set(&c, stride + 70), 1);

	TEST_ASSERT_VAL("cold a", !dprof_cache__access(&c, 0, &owner_a, 1, &victim));
	TEST_ASSERT_EQUAL("empty way", (int)victim.stamp, 0);
	TEST_ASSERT_VAL("cold b", !dprof_cache__access(&c, stride, &owner_b, 2, NULL));
	TEST_ASSERT_VAL("same line", dprof_cache__access(&c, 63, NULL, 0, NULL));
	/* a was used last: the third line evicts b */
	TEST_ASSERT_VAL("evict", !dprof_cache__access(&c, 2 * stride, NULL, 3, &victim));
	TEST_ASSERT_VAL("victim b", victim.owner == &owner_b);
	TEST_ASSERT_EQUAL("victim b", (int)victim.obj, 2);
	TEST_ASSERT_VAL("a stays", dprof_cache__lookup(&c, 0));
	TEST_ASSERT_VAL("b gone", !dprof_cache__lookup(&c, stride));
	TEST_ASSERT_VAL("other set untouched", !dprof_cache__lookup(&c, 64));
	TEST_ASSERT_EQUAL("counts", (int)c.nr_access, 4);
	TEST_ASSERT_EQUAL("counts", (int)c.nr_miss, 3);
	TEST_ASSERT_EQUAL("counts", (int)c.nr_evict, 1);

	TEST_ASSERT_VAL("invalidate", dprof_cache__invalidate(&c, 10));
	TEST_ASSERT_VAL("invalidated", !dprof_cache__lookup(&c, 0));
	TEST_ASSERT_VAL("invalidate twice", !dprof_cache__invalidate(&c, 10));

	/* disown keeps the lines but forgets the object */
	dprof_cache__disown(&c, 2 * stride, 64);
	TEST_ASSERT_VAL("kept", dprof_cache__lookup(&c, 2 * stride));
	for (i = 0; i < 8; i++)
		TEST_ASSERT_VAL("no owner", c.lines[i].owner != &owner_b);
	dprof_cache__exit(&c);
	return 0;
}

int test__dprof_cachesim(struct test_suite *test __maybe_unused,
			 int subtest __maybe_unused)
{
	if (test_parse() || test_lru() || test_sysfs())
		return TEST_FAIL;
	return TEST_OK;
}
