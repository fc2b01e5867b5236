// SPDX-License-Identifier: GPL-2.0
/*
 * dprof DWARF types: the test workloads are built with -g -O0, so perf's own
 * DWARF describes their types and static variables:
 *
 *   datasym.c:      typedef struct _buf { char data1; char reserved[55];
 *                   char data2; } buf __aligned(64); static buf buf1;
 *   dprof_struct.c: struct dprof_hot (refcount, pad1[24], hits, pad2[20],
 *                   next, cold[8]), aligned(64); static dprof_hot
 */
#include <errno.h>
#include <link.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include "debug.h"
#include "util/strbuf.h"
#include "util/util.h"
#include "util/dprof/dwtypes.h"
#include "util/dprof/types.h"
#include "tests/tests.h"
#include "dprof-tests.h"

/**
 * dprof_test__member - the member path at @off of @t, or "-ERR"
 * @t: the type
 * @off: byte offset in an object of that type
 * @sb: where the path is built (emptied first)
 * @moff: where to store the member's start
 * @msize: where to store its size
 */
const char *dprof_test__member(const struct dprof_type *t, u64 off,
			       struct strbuf *sb, u64 *moff, u64 *msize)
{
	strbuf_setlen(sb, 0);
	if (dprof_type__member_range(t, off, sb, moff, msize) < 0)
		return "-ERR";
	pr_debug("  +%#" PRIx64 " -> %s (%#" PRIx64 "/%" PRIu64 ")\n",
		 off, sb->buf, *moff, *msize);
	return sb->buf;
}

/* the C name of @t, or "-ERR"; @sb is emptied first */
const char *dprof_test__type_name(const struct dprof_type *t, struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
	if (dprof_type__name_str(t, sb) < 0)
		return "-ERR";
	pr_debug("  type name: %s\n", sb->buf);
	return sb->buf;
}

/* the size of @t, or 0 */
u64 dprof_test__sizeof(const struct dprof_type *t)
{
	u64 size;

	return dprof_type__sizeof(t, &size) ? 0 : size;
}

#ifdef HAVE_DWARF_SUPPORT

/*
 * Layouts the workloads lack.  This file is built with -g (see Build), so
 * they are in perf's DWARF; dprof_t_sink keeps the variable alive.
 */
struct dprof_t_slot {
	int		key;		/* 0 */
	short		val;		/* 4, hole at 6..7 */
};

struct dprof_t_counter {
	long		refs;		/* 0 */
	unsigned int	flag:1;		/* 8 */
	unsigned int	kind:7;		/* 8 */
	unsigned int	prio:12;	/* 9..10 */
};

struct dprof_t_obj {
	char			tag;		/* 0x00, hole at 0x01..0x07 */
	union {					/* 0x08 */
		struct {
			void	*head;		/* 0x08 */
			void	*tail;		/* 0x10 */
		};
		long	words[2];
	};
	const struct dprof_t_counter counter;	/* 0x18 */
	struct dprof_t_slot	slots[4];	/* 0x28 */
	char			grid[2][3];	/* 0x48 */
	char			group[0];	/* 0x50, a marker */
	int			len;		/* 0x50 */
	int			data[];		/* 0x54 */
};

static struct dprof_t_obj dprof_t_var = { .tag = 1 };
static struct dprof_t_slot dprof_t_slots[4] = { { .key = 1 } };
void *dprof_t_sink[] = { &dprof_t_var, dprof_t_slots };

static int main_bias_cb(struct dl_phdr_info *info, size_t size __maybe_unused,
			void *data)
{
	*(u64 *)data = info->dlpi_addr;
	return 1;	/* the first object is the executable */
}

/* link-time address of a variable in perf: what its ELF symbol says */
static u64 link_addr(void *p)
{
	u64 bias = 0;

	dl_iterate_phdr(main_bias_cb, &bias);
	return (u64)(unsigned long)p - bias;
}

/* a variable's type by name only: no variable is at link address 0 */
static int var_type(struct dprof_dwarf *dw, const char *name, struct dprof_type *t)
{
	return dprof_dwarf__find_var(dw, name, 0, t);
}

/* the offset, path and extent of one member */
struct member_case {
	u64		off;
	const char	*path;
	u64		moff, msize;
};

static int check_members(const struct dprof_type *t, const struct member_case *cases,
			 size_t nr, struct strbuf *sb)
{
	u64 moff, msize;
	size_t i;

	for (i = 0; i < nr; i++) {
		moff = ~0ULL;
		msize = ~0ULL;
		DPROF_TEST_STREQ("member path",
				 dprof_test__member(t, cases[i].off, sb, &moff, &msize),
				 cases[i].path);
		DPROF_TEST_EQ_U64(cases[i].path, moff, cases[i].moff);
		DPROF_TEST_EQ_U64(cases[i].path, msize, cases[i].msize);
	}
	return TEST_OK;
}

static int test_datasym(struct dprof_dwarf *dw, struct strbuf *sb)
{
	static const struct member_case cases[] = {
		{ 0,    "data1",	0,    1 },
		{ 0x38, "data2",	0x38, 1 },
		{ 10,   "reserved[9]",	10,   1 },
	};
	struct dprof_type t, vt;
	const char *name;

	TEST_ASSERT_EQUAL("find_struct _buf", dprof_dwarf__find_struct(dw, "_buf", &t), 0);
	TEST_ASSERT_EQUAL("_buf from DWARF", t.src, DPROF_TYPE_DWARF);
	/*
	 * The aligned(64) attribute is on the typedef, not on the struct:
	 * struct _buf is 57 bytes; DWARF does not record the typedef's
	 * alignment padding.
	 */
	DPROF_TEST_EQ_U64("size of _buf", dprof_test__sizeof(&t), 57);
	DPROF_TEST_STREQ("name of _buf", dprof_test__type_name(&t, sb), "struct _buf");
	TEST_ASSERT_EQUAL("find_struct buf (typedef)",
			  dprof_dwarf__find_struct(dw, "buf", &t), 0);
	DPROF_TEST_EQ_U64("size of buf", dprof_test__sizeof(&t), 57);
	TEST_ASSERT_EQUAL("no declaration-only match",
			  dprof_dwarf__find_struct(dw, "no_such_struct_xyz", &t), -ENOENT);

	TEST_ASSERT_EQUAL("var_type buf1", var_type(dw, "buf1", &vt), 0);
	name = dprof_test__type_name(&vt, sb);
	TEST_ASSERT_VAL("type name of buf1",
			!strcmp(name, "buf") || !strcmp(name, "struct _buf"));
	if (check_members(&vt, cases, ARRAY_SIZE(cases), sb))
		return TEST_FAIL;
	strbuf_setlen(sb, 0);
	TEST_ASSERT_EQUAL("+64 out of range", dprof_type__member(&vt, 64, sb), -ENOENT);
	TEST_ASSERT_EQUAL("+64 leaves the label to the caller", (int)sb->len, 0);
	TEST_ASSERT_EQUAL("+57 out of range", dprof_type__member(&vt, 57, sb), -ENOENT);
	return TEST_OK;
}

static int test_dprof_hot(struct dprof_dwarf *dw, struct strbuf *sb)
{
	static const struct member_case cases[] = {
		{ 0,    "refcount",	0,    8 },
		{ 3,    "refcount",	0,    8 },	/* inside a scalar */
		{ 0x20, "hits",		0x20, 4 },
		{ 0x1f, "pad1[23]",	0x1f, 1 },
		{ 0x38, "next",		0x38, 8 },
		{ 0x48, "cold[1]",	0x48, 8 },
		{ 0x7f, "cold[7]",	0x78, 8 },
	};
	struct dprof_type t, vt;
	u64 moff = 0, msize = 0;

	if (dprof_dwarf__find_struct(dw, "dprof_hot", &t)) {
		pr_debug("dprof_struct workload not built in, skipping its checks\n");
		return TEST_OK;
	}
	DPROF_TEST_EQ_U64("size of dprof_hot", dprof_test__sizeof(&t), 128);
	TEST_ASSERT_EQUAL("var_type dprof_hot", var_type(dw, "dprof_hot", &vt), 0);
	DPROF_TEST_STREQ("type name of dprof_hot", dprof_test__type_name(&vt, sb),
			 "struct dprof_hot");
	if (check_members(&t, cases, ARRAY_SIZE(cases), sb))
		return TEST_FAIL;
	DPROF_TEST_STREQ("+0x80 out of range",
			 dprof_test__member(&t, 0x80, sb, &moff, &msize), "-ERR");
	/* by address: the ELF symbol's value is the DW_OP_addr */
	TEST_ASSERT_EQUAL("no variable at 0", dprof_dwarf__find_var(dw, NULL, 0, &vt),
			  -ENOENT);
	return TEST_OK;
}

static int test_layouts(struct dprof_dwarf *dw, struct strbuf *sb)
{
	static const struct member_case cases[] = {
		{ 0x00, "tag",			0x00, 1 },
		{ 0x03, "<hole>",		0x01, 7 },
		{ 0x08, "head",			0x08, 8 },	/* anonymous union+struct */
		{ 0x17, "tail",			0x10, 8 },
		{ 0x18, "counter.refs",		0x18, 8 },	/* const struct */
		{ 0x20, "counter.flag",		0x20, 1 },	/* bitfields */
		{ 0x21, "counter.prio",		0x21, 2 },
		{ 0x24, "counter.<hole>",	0x23, 5 },
		{ 0x28, "slots[0].key",		0x28, 4 },
		{ 0x3c, "slots[2].val",		0x3c, 2 },
		{ 0x3e, "slots[2].<hole>",	0x3e, 2 },
		{ 0x47, "slots[3].<hole>",	0x46, 2 },
		{ 0x48, "grid[0][0]",		0x48, 1 },
		{ 0x4c, "grid[1][1]",		0x4c, 1 },
		{ 0x4e, "<hole>",		0x4e, 2 },
		{ 0x50, "len",			0x50, 4 },
		{ 0x54, "data[0]",		0x54, 4 },	/* flexible array */
		{ 0x6b, "data[5]",		0x68, 4 },
	};
	static const struct member_case array_cases[] = {
		{ 0x14, "[2].val",		0x14, 2 },
	};
	struct dprof_type t, vt, at;
	u64 moff, msize;

	TEST_ASSERT_EQUAL("find_struct dprof_t_obj",
			  dprof_dwarf__find_struct(dw, "dprof_t_obj", &t), 0);
	DPROF_TEST_EQ_U64("size of dprof_t_obj", dprof_test__sizeof(&t), 0x58);
	TEST_ASSERT_VAL("flexible array tail", dprof_type__has_flex_tail(&t));
	if (check_members(&t, cases, ARRAY_SIZE(cases), sb))
		return TEST_FAIL;

	TEST_ASSERT_EQUAL("find_struct dprof_t_counter",
			  dprof_dwarf__find_struct(dw, "dprof_t_counter", &t), 0);
	DPROF_TEST_EQ_U64("size of dprof_t_counter", dprof_test__sizeof(&t), 16);
	TEST_ASSERT_VAL("no flexible array tail", !dprof_type__has_flex_tail(&t));
	DPROF_TEST_STREQ("bitfield member", dprof_test__member(&t, 8, sb, &moff, &msize),
			 "flag");

	/* a flexible array tail lets a larger slab object match */
	TEST_ASSERT_EQUAL("flex tail cache",
			  dprof_dwarf__cache_type(dw, "dprof_t_obj_cache", 0x200, &t), 0);
	DPROF_TEST_STREQ("flex tail cache type", dprof_test__type_name(&t, sb),
			 "struct dprof_t_obj");
	TEST_ASSERT_EQUAL("no flex tail, too large",
			  dprof_dwarf__cache_type(dw, "dprof_t_slot", 0x200, &t), -ENOENT);
	TEST_ASSERT_EQUAL("+_struct never invents",
			  dprof_dwarf__cache_type(dw, "dprof_t", 0, &t), -ENOENT);

	/* by name, by address, and both: the address wins */
	TEST_ASSERT_EQUAL("var_type dprof_t_var", var_type(dw, "dprof_t_var", &vt), 0);
	DPROF_TEST_STREQ("var type name", dprof_test__type_name(&vt, sb), "struct dprof_t_obj");
	if (check_members(&vt, cases, ARRAY_SIZE(cases), sb))
		return TEST_FAIL;
	TEST_ASSERT_EQUAL("var at dprof_t_var",
			  dprof_dwarf__find_var(dw, NULL, link_addr(&dprof_t_var), &vt), 0);
	DPROF_TEST_STREQ("var at type name", dprof_test__type_name(&vt, sb),
			 "struct dprof_t_obj");
	TEST_ASSERT_EQUAL("address before name",
			  dprof_dwarf__find_var(dw, "dprof_t_slots",
						link_addr(&dprof_t_var), &vt), 0);
	DPROF_TEST_STREQ("the address's type", dprof_test__type_name(&vt, sb),
			 "struct dprof_t_obj");
	TEST_ASSERT_EQUAL("nothing at 0, no name",
			  dprof_dwarf__find_var(dw, NULL, 0, &vt), -ENOENT);

	/* array types: name with bounds, path starts at the index */
	TEST_ASSERT_EQUAL("var_type dprof_t_slots", var_type(dw, "dprof_t_slots", &at), 0);
	DPROF_TEST_STREQ("array type name", dprof_test__type_name(&at, sb),
			 "struct dprof_t_slot[4]");
	DPROF_TEST_EQ_U64("array size", dprof_test__sizeof(&at), 32);
	if (check_members(&at, array_cases, ARRAY_SIZE(array_cases), sb))
		return TEST_FAIL;
	DPROF_TEST_STREQ("array end", dprof_test__member(&at, 0x20, sb, &moff, &msize), "-ERR");
	TEST_ASSERT_EQUAL("var at dprof_t_slots",
			  dprof_dwarf__find_var(dw, NULL, link_addr(dprof_t_slots), &at), 0);
	DPROF_TEST_STREQ("var at array type name", dprof_test__type_name(&at, sb),
			 "struct dprof_t_slot[4]");
	return TEST_OK;
}

/* struct knowledge from a libc/perf struct that every build has */
static int test_cache_type(struct dprof_dwarf *dw)
{
	static const struct {
		const char	*cache;
		u64		object_size;
		int		ret;
	} cases[] = {
		{ "kmalloc-256",	256,	-ENOENT },	/* no single type */
		{ "kmalloc-cg-64",	64,	-ENOENT },
		{ "names_cache",	4096,	-ENOENT },
		/* "_buf" by name: size 57 fits 57..64 and not 56 or 65 */
		{ "_buf",		57,	0 },
		{ "_buf",		64,	0 },
		{ "_buf",		0,	0 },
		{ "_buf",		56,	-ENOENT },
		{ "_buf",		65,	-ENOENT },
		/* suffix stripping: "_buf_cache" -> "_buf" */
		{ "_buf_cache",		64,	0 },
	};
	struct dprof_type t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pr_debug("  cache %s, object size %" PRIu64 "\n",
			 cases[i].cache, cases[i].object_size);
		TEST_ASSERT_EQUAL(cases[i].cache,
				  dprof_dwarf__cache_type(dw, cases[i].cache,
							  cases[i].object_size, &t),
				  cases[i].ret);
	}
	TEST_ASSERT_VAL("cache dprof_hot_cachep",
			dprof_dwarf__find_struct(dw, "dprof_hot", &t) ||
			dprof_dwarf__cache_type(dw, "dprof_hot_cachep", 128, &t) == 0);
	return TEST_OK;
}

/*
 * The thread that waits for the walk ahead indexes part of the units: the
 * index is the one a single walk builds, and the variables kept for perf
 * are a walk's, in CU order.
 */
/* @shared, an index built ahead, is @one, built by one walk */
static int test_same_index(struct dprof_dwarf_digest *shared,
			   struct dprof_dwarf_digest *one)
{
	pr_debug("%u type names, %u runs, %u variables, %u by address, %u CUs of perf's; %u units by the waiting thread\n",
		 one->nr_types, one->nr_dies, one->nr_vars, one->nr_var_addrs,
		 shared->nr_unit_vars, shared->nr_helped);
	TEST_ASSERT_EQUAL("type names", shared->nr_types, one->nr_types);
	TEST_ASSERT_EQUAL("runs of type DIEs", shared->nr_dies, one->nr_dies);
	TEST_ASSERT_EQUAL("variables", shared->nr_vars, one->nr_vars);
	TEST_ASSERT_EQUAL("variables by address", shared->nr_var_addrs,
			  one->nr_var_addrs);
	TEST_ASSERT_VAL("the chains of type DIEs", shared->types == one->types);
	TEST_ASSERT_VAL("the variables", shared->vars == one->vars);
	TEST_ASSERT_VAL("perf's variables kept", shared->nr_unit_vars);
	TEST_ASSERT_VAL("perf's variables, in CU order",
			shared->unit_vars == shared->walk_vars);
	return TEST_OK;
}

static int test_shared_walk(const char *path)
{
	struct dprof_dwarf_digest one, shared;
	struct dprof_dwarf *dw;
	int try, ret;

	dw = dprof_dwarf__new(path);
	TEST_ASSERT_VAL("open for one walk", dw);
	TEST_ASSERT_EQUAL("one walk", dprof_dwarf__index_digest(dw, &one), 0);
	dprof_dwarf__delete(dw);

	/* the walker may be done before this thread waits: again */
	for (try = 0; try < 10; try++) {
		dw = dprof_dwarf__new(path);
		TEST_ASSERT_VAL("open for a shared walk", dw);
		TEST_ASSERT_EQUAL("shared walk started", dprof_dwarf__index_start(dw), 0);
		TEST_ASSERT_EQUAL("shared walk",
				  dprof_dwarf__index_digest(dw, &shared), 0);
		dprof_dwarf__delete(dw);
		ret = test_same_index(&shared, &one);
		if (ret != TEST_OK || shared.nr_helped)
			return ret;
	}
	/* valgrind runs a new thread to its end first */
	pr_debug("the walker was done each time before this thread waited\n");
	return TEST_OK;
}

int test__dprof_types(struct test_suite *test __maybe_unused,
		      int subtest __maybe_unused)
{
	char path[PATH_MAX];
	struct dprof_dwarf *dw;
	struct strbuf sb;
	int ret, ahead;

	/* no DWARF: NULL, not a crash */
	TEST_ASSERT_VAL("no DWARF in /dev/null", !dprof_dwarf__new("/dev/null"));
	TEST_ASSERT_VAL("no such file",
			!dprof_dwarf__new("/nonexistent/dprof/vmlinux"));

	perf_exe(path, sizeof(path));
	/* a walk started in another thread, the handle freed before it ends */
	dw = dprof_dwarf__new(path);
	TEST_ASSERT_VAL("open for a walk ahead", dw);
	TEST_ASSERT_EQUAL("walk ahead started", dprof_dwarf__index_start(dw), 0);
	dprof_dwarf__delete(dw);

	ret = test_shared_walk(path);
	if (ret != TEST_OK)
		return ret;

	strbuf_init(&sb, 64);
	/* the index built at the first lookup, then built ahead: the same */
	for (ahead = 0, ret = TEST_OK; ahead < 2 && ret == TEST_OK; ahead++) {
		dw = dprof_dwarf__new(path);
		if (!dw) {
			pr_debug("no DWARF in %s\n", path);
			ret = TEST_FAIL;
			break;
		}
		if (ahead && dprof_dwarf__index_start(dw)) {
			pr_debug("no thread for the walk ahead\n");
			ret = TEST_FAIL;
		}
		if (ret == TEST_OK)
			ret = test_datasym(dw, &sb);
		if (ret == TEST_OK)
			ret = test_dprof_hot(dw, &sb);
		if (ret == TEST_OK)
			ret = test_cache_type(dw);
		if (ret == TEST_OK)
			ret = test_layouts(dw, &sb);
		dprof_dwarf__delete(dw);
	}
	strbuf_release(&sb);
	return ret;
}

#else /* !HAVE_DWARF_SUPPORT */

int test__dprof_types(struct test_suite *test __maybe_unused,
		      int subtest __maybe_unused)
{
	pr_debug("perf built without DWARF support\n");
	return TEST_SKIP;
}

#endif /* HAVE_DWARF_SUPPORT */
