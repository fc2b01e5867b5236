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
#include "tests/tests.h"
#include "dprof-tests.h"

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

typedef const struct dprof_t_counter dprof_t_counter_t;

struct dprof_t_obj {
	char			tag;		/* 0x00, hole at 0x01..0x07 */
	union {					/* 0x08 */
		struct {
			void	*head;		/* 0x08 */
			void	*tail;		/* 0x10 */
		};
		long	words[2];
	};
	dprof_t_counter_t	counter;	/* 0x18 */
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

/* the member path at @off, or "-ERR" */
static const char *member_at(Dwarf_Die *type, u64 off, struct strbuf *sb,
			     u64 *moff, u64 *msize)
{
	strbuf_setlen(sb, 0);
	if (dprof_type__member_at(type, off, sb, moff, msize) < 0)
		return "-ERR";
	pr_debug("  +%#" PRIx64 " -> %s (%#" PRIx64 "/%" PRIu64 ")\n",
		 off, sb->buf, *moff, *msize);
	return sb->buf;
}

static const char *type_name(Dwarf_Die *type, struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
	if (dprof_type__name(type, sb) < 0)
		return "-ERR";
	pr_debug("  type name: %s\n", sb->buf);
	return sb->buf;
}

static int test_datasym(struct dprof_dwarf *dw, struct strbuf *sb)
{
	Dwarf_Die die, vtype;
	u64 size = 0, moff = 0, msize = 0;
	const char *name;

	TEST_ASSERT_VAL("find_struct _buf",
			dprof_dwarf__find_struct(dw, "_buf", &die, &size) == 0);
	/*
	 * The aligned(64) attribute is on the typedef, not on the struct:
	 * struct _buf is 57 bytes; DWARF does not record the typedef's
	 * alignment padding.
	 */
	TEST_ASSERT_VAL("size of _buf", size == 57);
	TEST_ASSERT_VAL("name of _buf", !strcmp(type_name(&die, sb), "struct _buf"));
	TEST_ASSERT_VAL("find_struct buf (typedef)",
			dprof_dwarf__find_struct(dw, "buf", &die, &size) == 0 &&
			size == 57);
	TEST_ASSERT_VAL("no declaration-only match",
			dprof_dwarf__find_struct(dw, "no_such_struct_xyz", &die,
						 NULL) == -ENOENT);

	TEST_ASSERT_VAL("var_type buf1", dprof_dwarf__var_type(dw, "buf1", &vtype) == 0);
	name = type_name(&vtype, sb);
	TEST_ASSERT_VAL("type name of buf1",
			!strcmp(name, "buf") || !strcmp(name, "struct _buf"));
	TEST_ASSERT_VAL("same type id via var and name",
			dprof_dwarf__type_id(dw, &vtype) != 0);

	TEST_ASSERT_VAL("+0 data1", !strcmp(member_at(&vtype, 0, sb, &moff, &msize), "data1"));
	TEST_ASSERT_VAL("data1 range", moff == 0 && msize == 1);
	TEST_ASSERT_VAL("+0x38 data2",
			!strcmp(member_at(&vtype, 0x38, sb, &moff, &msize), "data2"));
	TEST_ASSERT_VAL("data2 range", moff == 0x38 && msize == 1);
	TEST_ASSERT_VAL("+10 reserved[9]",
			!strcmp(member_at(&vtype, 10, sb, &moff, &msize), "reserved[9]"));
	TEST_ASSERT_VAL("reserved[9] range", moff == 10 && msize == 1);
	strbuf_setlen(sb, 0);
	TEST_ASSERT_VAL("+64 out of range",
			dprof_type__member_at(&vtype, 64, sb, NULL, NULL) == -ENOENT);
	TEST_ASSERT_VAL("+64 leaves the label to the caller", sb->len == 0);
	strbuf_setlen(sb, 0);
	TEST_ASSERT_VAL("+57 out of range",
			dprof_type__member_at(&vtype, 57, sb, NULL, NULL) == -ENOENT);
	return TEST_OK;
}

static int test_dprof_hot(struct dprof_dwarf *dw, struct strbuf *sb)
{
	Dwarf_Die die, vtype, vtype2;
	u64 size = 0, moff = 0, msize = 0;

	if (dprof_dwarf__find_struct(dw, "dprof_hot", &die, &size)) {
		pr_debug("dprof_struct workload not built in, skipping its checks\n");
		return TEST_OK;
	}
	TEST_ASSERT_VAL("size of dprof_hot", size == 128);
	TEST_ASSERT_VAL("var_type dprof_hot",
			dprof_dwarf__var_type(dw, "dprof_hot", &vtype) == 0);
	TEST_ASSERT_VAL("type name of dprof_hot",
			!strcmp(type_name(&vtype, sb), "struct dprof_hot"));
	TEST_ASSERT_VAL("one id per type",
			dprof_dwarf__type_id(dw, &vtype) == dprof_dwarf__type_id(dw, &die));

	TEST_ASSERT_VAL("+0 refcount", !strcmp(member_at(&die, 0, sb, &moff, &msize), "refcount"));
	TEST_ASSERT_VAL("refcount range", moff == 0 && msize == 8);
	/* inside a scalar: the scalar, and where it starts */
	TEST_ASSERT_VAL("+3 refcount", !strcmp(member_at(&die, 3, sb, &moff, &msize), "refcount"));
	TEST_ASSERT_VAL("+3 range", moff == 0 && msize == 8);
	TEST_ASSERT_VAL("+0x20 hits", !strcmp(member_at(&die, 0x20, sb, &moff, &msize), "hits"));
	TEST_ASSERT_VAL("hits range", moff == 0x20 && msize == 4);
	TEST_ASSERT_VAL("+0x1f pad1[23]",
			!strcmp(member_at(&die, 0x1f, sb, &moff, &msize), "pad1[23]"));
	TEST_ASSERT_VAL("+0x38 next", !strcmp(member_at(&die, 0x38, sb, &moff, &msize), "next"));
	TEST_ASSERT_VAL("+0x48 cold[1]",
			!strcmp(member_at(&die, 0x48, sb, &moff, &msize), "cold[1]"));
	TEST_ASSERT_VAL("cold[1] range", moff == 0x48 && msize == 8);
	TEST_ASSERT_VAL("+0x7f cold[7]",
			!strcmp(member_at(&die, 0x7f, sb, &moff, &msize), "cold[7]"));
	TEST_ASSERT_VAL("+0x80 out of range",
			strcmp(member_at(&die, 0x80, sb, &moff, &msize), "-ERR") == 0);

	/* by address: the ELF symbol's value is the DW_OP_addr */
	TEST_ASSERT_VAL("no variable at 0",
			dprof_dwarf__var_type_at(dw, 0, &vtype2) == -ENOENT);
	return TEST_OK;
}

static int test_layouts(struct dprof_dwarf *dw, struct strbuf *sb)
{
	static const struct {
		u64		off;
		const char	*path;
		u64		moff, msize;
	} cases[] = {
		{ 0x00, "tag",			0x00, 1 },
		{ 0x03, "<hole>",		0x01, 7 },
		{ 0x08, "head",			0x08, 8 },	/* anonymous union+struct */
		{ 0x17, "tail",			0x10, 8 },
		{ 0x18, "counter.refs",		0x18, 8 },	/* const typedef */
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
	Dwarf_Die die, vtype;
	u64 size = 0, moff, msize;
	size_t i;

	TEST_ASSERT_VAL("find_struct dprof_t_obj",
			dprof_dwarf__find_struct(dw, "dprof_t_obj", &die, &size) == 0);
	TEST_ASSERT_VAL("size of dprof_t_obj", size == 0x58);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		moff = ~0ULL;
		msize = ~0ULL;
		TEST_ASSERT_VAL(cases[i].path,
				!strcmp(member_at(&die, cases[i].off, sb, &moff, &msize),
					cases[i].path));
		TEST_ASSERT_VAL("member start", moff == cases[i].moff);
		TEST_ASSERT_VAL("member size", msize == cases[i].msize);
	}

	TEST_ASSERT_VAL("typedef to const struct",
			dprof_dwarf__find_struct(dw, "dprof_t_counter_t", &die, &size) == 0 &&
			size == 16);
	TEST_ASSERT_VAL("typedef name", !strcmp(type_name(&die, sb), "dprof_t_counter_t"));
	TEST_ASSERT_VAL("typedef and struct share an id",
			dprof_dwarf__find_struct(dw, "dprof_t_counter", &vtype, NULL) == 0 &&
			dprof_dwarf__type_id(dw, &die) == dprof_dwarf__type_id(dw, &vtype));
	TEST_ASSERT_VAL("member of typedef", !strcmp(member_at(&die, 8, sb, &moff, &msize),
						     "flag"));

	/* a flexible array tail lets a larger slab object match */
	TEST_ASSERT_VAL("flex tail cache",
			dprof_dwarf__cache_type(dw, "dprof_t_obj_cache", 0x200, &die) == 0);
	TEST_ASSERT_VAL("no flex tail, too large",
			dprof_dwarf__cache_type(dw, "dprof_t_slot", 0x200, &die) == -ENOENT);
	TEST_ASSERT_VAL("+_struct never invents",
			dprof_dwarf__cache_type(dw, "dprof_t", 0, &die) == -ENOENT);

	TEST_ASSERT_VAL("var_type dprof_t_var",
			dprof_dwarf__var_type(dw, "dprof_t_var", &vtype) == 0);
	TEST_ASSERT_VAL("var type name", !strcmp(type_name(&vtype, sb), "struct dprof_t_obj"));
	TEST_ASSERT_VAL("var and struct share an id",
			dprof_dwarf__find_struct(dw, "dprof_t_obj", &die, NULL) == 0 &&
			dprof_dwarf__type_id(dw, &die) == dprof_dwarf__type_id(dw, &vtype));

	TEST_ASSERT_VAL("var_type_at dprof_t_var",
			dprof_dwarf__var_type_at(dw, link_addr(&dprof_t_var), &die) == 0 &&
			dprof_dwarf__type_id(dw, &die) == dprof_dwarf__type_id(dw, &vtype));

	/* array types: name with bounds, path starts at the index */
	TEST_ASSERT_VAL("var_type dprof_t_slots",
			dprof_dwarf__var_type(dw, "dprof_t_slots", &vtype) == 0);
	TEST_ASSERT_VAL("array type name",
			!strcmp(type_name(&vtype, sb), "struct dprof_t_slot[4]"));
	TEST_ASSERT_VAL("array size", dprof_type__size(&vtype, &size) == 0 && size == 32);
	TEST_ASSERT_VAL("array member",
			!strcmp(member_at(&vtype, 0x14, sb, &moff, &msize), "[2].val"));
	TEST_ASSERT_VAL("array member range", moff == 0x14 && msize == 2);
	TEST_ASSERT_VAL("array end",
			!strcmp(member_at(&vtype, 0x20, sb, &moff, &msize), "-ERR"));
	TEST_ASSERT_VAL("var_type_at dprof_t_slots",
			dprof_dwarf__var_type_at(dw, link_addr(dprof_t_slots), &die) == 0 &&
			!strcmp(type_name(&die, sb), "struct dprof_t_slot[4]"));
	return TEST_OK;
}

/* struct knowledge from a libc/perf struct that every build has */
static int test_cache_type(struct dprof_dwarf *dw)
{
	Dwarf_Die die;

	TEST_ASSERT_VAL("kmalloc has no type",
			dprof_dwarf__cache_type(dw, "kmalloc-256", 256, &die) == -ENOENT);
	TEST_ASSERT_VAL("kmalloc-cg has no type",
			dprof_dwarf__cache_type(dw, "kmalloc-cg-64", 64, &die) == -ENOENT);
	TEST_ASSERT_VAL("names_cache has no type",
			dprof_dwarf__cache_type(dw, "names_cache", 4096, &die) == -ENOENT);
	/* "_buf" by name: size 57 fits 57..64 and not 56 or 65 */
	TEST_ASSERT_VAL("cache _buf size 57",
			dprof_dwarf__cache_type(dw, "_buf", 57, &die) == 0);
	TEST_ASSERT_VAL("cache _buf size 64",
			dprof_dwarf__cache_type(dw, "_buf", 64, &die) == 0);
	TEST_ASSERT_VAL("cache _buf unknown size",
			dprof_dwarf__cache_type(dw, "_buf", 0, &die) == 0);
	TEST_ASSERT_VAL("cache _buf too small",
			dprof_dwarf__cache_type(dw, "_buf", 56, &die) == -ENOENT);
	TEST_ASSERT_VAL("cache _buf too big",
			dprof_dwarf__cache_type(dw, "_buf", 65, &die) == -ENOENT);
	/* suffix stripping: "_buf_cache" -> "_buf" */
	TEST_ASSERT_VAL("cache _buf_cache",
			dprof_dwarf__cache_type(dw, "_buf_cache", 64, &die) == 0);
	TEST_ASSERT_VAL("cache dprof_hot_cachep",
			dprof_dwarf__find_struct(dw, "dprof_hot", &die, NULL) ||
			dprof_dwarf__cache_type(dw, "dprof_hot_cachep", 128, &die) == 0);
	return TEST_OK;
}

int test__dprof_types(struct test_suite *test __maybe_unused,
		      int subtest __maybe_unused)
{
	char path[PATH_MAX];
	struct dprof_dwarf *dw;
	struct strbuf sb;
	int ret;

	/* no DWARF: NULL, not a crash */
	TEST_ASSERT_VAL("no DWARF in /dev/null", !dprof_dwarf__new("/dev/null"));
	TEST_ASSERT_VAL("no such file",
			!dprof_dwarf__new("/nonexistent/dprof/vmlinux"));

	perf_exe(path, sizeof(path));
	dw = dprof_dwarf__new(path);
	if (!dw) {
		pr_debug("no DWARF in %s\n", path);
		return TEST_FAIL;
	}
	strbuf_init(&sb, 64);

	ret = test_datasym(dw, &sb);
	if (ret == TEST_OK)
		ret = test_dprof_hot(dw, &sb);
	if (ret == TEST_OK)
		ret = test_cache_type(dw);
	if (ret == TEST_OK)
		ret = test_layouts(dw, &sb);

	strbuf_release(&sb);
	dprof_dwarf__delete(dw);
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
