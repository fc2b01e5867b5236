// SPDX-License-Identifier: GPL-2.0
/*
 * dprof BTF types: struct names and member paths from the running kernel's
 * /sys/kernel/btf/vmlinux.  Only layouts stable across kernel versions are
 * asserted; offsets that vary (struct file's f_path) are taken from BTF
 * itself.  The structs perf shares with the kernel (tools/include's
 * list_head, hlist_node, rb_node, rb_root_cached) must read the same from
 * perf's own DWARF and from the kernel's BTF.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <linux/align.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/string.h>
#include <linux/types.h>
#include "debug.h"
#include "util/strbuf.h"
#include "util/util.h"
#include "util/dprof/btftypes.h"
#include "util/dprof/dwtypes.h"
#include "util/dprof/types.h"
#include "tests/tests.h"
#include "dprof-tests.h"

#ifdef HAVE_LIBBPF_SUPPORT
#include <bpf/btf.h>

/* this file is built with -g: these put the shared structs in perf's DWARF */
static struct list_head dprof_btf_t_list __maybe_unused;
static struct hlist_node dprof_btf_t_hnode __maybe_unused;
static struct rb_root_cached dprof_btf_t_rbc __maybe_unused;

/*
 * Byte offset of member @name of the struct @id, from BTF itself; members
 * of anonymous structs/unions count (6.18 wraps f_path in one).
 */
static s64 btf_member_off_id(const struct btf *btf, __u32 id, const char *name,
			     int depth)
{
	const struct btf_type *bt;
	int rid = btf__resolve_type(btf, id);
	__u32 i;

	if (rid <= 0 || depth > 8)
		return -1;
	bt = btf__type_by_id(btf, rid);
	if (!btf_is_composite(bt))
		return -1;
	for (i = 0; i < btf_vlen(bt); i++) {
		const struct btf_member *m = btf_members(bt) + i;
		const char *n = btf__name_by_offset(btf, m->name_off);
		s64 off;

		if (n && !strcmp(n, name))
			return btf_member_bit_offset(bt, i) / 8;
		if (n && *n)
			continue;
		off = btf_member_off_id(btf, m->type, name, depth + 1);
		if (off >= 0)
			return btf_member_bit_offset(bt, i) / 8 + off;
	}
	return -1;
}

static s64 btf_member_off(const struct dprof_type *t, const char *name)
{
	return btf_member_off_id(t->btf, t->id, name, 0);
}

static int find(struct dprof_btf *db, const char *name, struct dprof_type *t)
{
	return dprof_types__find_struct(NULL, db, name, t);
}

/* the member path at @off of @t must be @path, starting at @moff, @msize long */
static int check_member(const struct dprof_type *t, u64 off, struct strbuf *sb,
			const char *path, u64 moff, u64 msize)
{
	u64 start = ~0ULL, size = ~0ULL;

	DPROF_TEST_STREQ("member path", dprof_test__member(t, off, sb, &start, &size), path);
	DPROF_TEST_EQ_U64(path, start, moff);
	DPROF_TEST_EQ_U64(path, size, msize);
	return TEST_OK;
}

static int test_lists(struct dprof_btf *db, struct strbuf *sb)
{
	struct dprof_type t;

	TEST_ASSERT_EQUAL("find list_head", find(db, "list_head", &t), 0);
	TEST_ASSERT_EQUAL("list_head from BTF", t.src, DPROF_TYPE_BTF);
	DPROF_TEST_STREQ("list_head name", dprof_test__type_name(&t, sb), "struct list_head");
	DPROF_TEST_EQ_U64("list_head size", dprof_test__sizeof(&t), 16);
	if (check_member(&t, 0, sb, "next", 0, 8) ||
	    check_member(&t, 3, sb, "next", 0, 8) ||
	    check_member(&t, 8, sb, "prev", 8, 8))
		return TEST_FAIL;
	strbuf_setlen(sb, 0);
	TEST_ASSERT_EQUAL("list_head +16 out of range", dprof_type__member(&t, 16, sb), -ENOENT);
	TEST_ASSERT_EQUAL("out of range: no label", (int)sb->len, 0);

	TEST_ASSERT_EQUAL("find callback_head", find(db, "callback_head", &t), 0);
	if (check_member(&t, 0, sb, "next", 0, 8) ||
	    check_member(&t, 8, sb, "func", 8, 8))
		return TEST_FAIL;

	TEST_ASSERT_EQUAL("find hlist_node", find(db, "hlist_node", &t), 0);
	if (check_member(&t, 8, sb, "pprev", 8, 8))
		return TEST_FAIL;

	TEST_ASSERT_EQUAL("find rb_root_cached", find(db, "rb_root_cached", &t), 0);
	if (check_member(&t, 0, sb, "rb_root.rb_node", 0, 8) ||
	    check_member(&t, 8, sb, "rb_leftmost", 8, 8))
		return TEST_FAIL;
	return TEST_OK;
}

static int test_file(struct dprof_btf *db, struct strbuf *sb)
{
	static const struct {
		const char	*cache;
		u64		object_size;
	} no_type[] = {
		{ "kmalloc-64",		64 },
		{ "kmalloc-cg-256",	0 },
		{ "names_cache",	4096 },
	};
	struct dprof_type t, p;
	s64 f_path, comm;
	u64 size;
	size_t i;

	/* struct file's layout changes between versions: ask BTF where f_path is */
	TEST_ASSERT_EQUAL("cache filp", dprof_types__cache_type(NULL, db, "filp", 0, &t), 0);
	TEST_ASSERT_EQUAL("filp from BTF", t.src, DPROF_TYPE_BTF);
	DPROF_TEST_STREQ("filp holds struct file", dprof_test__type_name(&t, sb), "struct file");
	f_path = btf_member_off(&t, "f_path");
	TEST_ASSERT_VAL("struct file has f_path", f_path >= 0);
	TEST_ASSERT_EQUAL("find path", find(db, "path", &p), 0);
	DPROF_TEST_EQ_U64("path.dentry at 8", btf_member_off(&p, "dentry"), 8);
	if (check_member(&t, f_path, sb, "f_path.mnt", f_path, 8) ||
	    check_member(&t, f_path + 8, sb, "f_path.dentry", f_path + 8, 8))
		return TEST_FAIL;

	/* the object size rule: size <= object size <= ALIGN(size, 64) */
	size = dprof_test__sizeof(&t);
	TEST_ASSERT_VAL("struct file size", size);
	TEST_ASSERT_EQUAL("filp exact size",
			  dprof_types__cache_type(NULL, db, "filp", size, &t), 0);
	TEST_ASSERT_EQUAL("filp rounded size",
			  dprof_types__cache_type(NULL, db, "filp", ALIGN(size, 64), &t), 0);
	TEST_ASSERT_EQUAL("filp too small",
			  dprof_types__cache_type(NULL, db, "filp", size - 1, &t), -ENOENT);
	TEST_ASSERT_EQUAL("filp too big",
			  dprof_types__cache_type(NULL, db, "filp", ALIGN(size, 64) + 1, &t),
			  -ENOENT);
	TEST_ASSERT_EQUAL("not found: no type", t.src, DPROF_TYPE_NONE);

	for (i = 0; i < ARRAY_SIZE(no_type); i++) {
		TEST_ASSERT_EQUAL(no_type[i].cache,
				  dprof_types__cache_type(NULL, db, no_type[i].cache,
							  no_type[i].object_size, &t),
				  -ENOENT);
	}
	TEST_ASSERT_EQUAL("cache task_struct",
			  dprof_types__cache_type(NULL, db, "task_struct", 0, &t), 0);
	DPROF_TEST_STREQ("task_struct name", dprof_test__type_name(&t, sb),
			 "struct task_struct");
	comm = btf_member_off(&t, "comm");
	TEST_ASSERT_VAL("task_struct has comm", comm >= 0);
	if (check_member(&t, comm + 3, sb, "comm[3]", comm + 3, 1))
		return TEST_FAIL;
	TEST_ASSERT_EQUAL("suffix stripped: dentry_cache? dentry",
			  dprof_types__cache_type(NULL, db, "dentry", 0, &t), 0);
	DPROF_TEST_STREQ("dentry name", dprof_test__type_name(&t, sb), "struct dentry");

	/* typedef kept by name, anonymous union adds no component */
	TEST_ASSERT_EQUAL("cache page->ptl",
			  dprof_types__cache_type(NULL, db, "page->ptl", 0, &t), 0);
	DPROF_TEST_STREQ("typedef name", dprof_test__type_name(&t, sb), "spinlock_t");
	/* raw_spinlock, or PREEMPT_RT's rt_mutex_base; both nest anonymous unions */
	dprof_test__member(&t, 0, sb, &size, &size);
	TEST_ASSERT_VAL("spinlock_t +0 through the anonymous union",
			strstarts(sb->buf, "rlock.raw_lock.") || strstarts(sb->buf, "lock."));
	TEST_ASSERT_VAL("anonymous members add no component",
			!strstr(sb->buf, "..") && sb->buf[sb->len - 1] != '.');

	/* per-CPU variables are in BTF */
	TEST_ASSERT_EQUAL("runqueues", dprof_types__var_type(NULL, db, "runqueues", 0, &t), 0);
	DPROF_TEST_STREQ("runqueues type", dprof_test__type_name(&t, sb), "struct rq");
	return TEST_OK;
}

#ifdef HAVE_DWARF_SUPPORT
/* the member paths at every offset of @dt (DWARF) and @bt (BTF) agree */
static int compare_members(const struct dprof_type *dt, const struct dprof_type *bt,
			   struct strbuf *sb)
{
	char dname[64], dpath[64];
	u64 size, off, dmoff, dmsize, bmoff, bmsize;

	snprintf(dname, sizeof(dname), "%s", dprof_test__type_name(dt, sb));
	DPROF_TEST_STREQ("name: DWARF vs BTF", dprof_test__type_name(bt, sb), dname);
	size = dprof_test__sizeof(dt);
	DPROF_TEST_EQ_U64(dname, dprof_test__sizeof(bt), size);
	for (off = 0; off <= size; off++) {
		snprintf(dpath, sizeof(dpath), "%s",
			 dprof_test__member(dt, off, sb, &dmoff, &dmsize));
		DPROF_TEST_STREQ(dname, dprof_test__member(bt, off, sb, &bmoff, &bmsize),
				 dpath);
		if (strcmp(dpath, "-ERR")) {
			DPROF_TEST_EQ_U64(dpath, bmoff, dmoff);
			DPROF_TEST_EQ_U64(dpath, bmsize, dmsize);
		}
	}
	return TEST_OK;
}

/* perf's tools/include copies of kernel structs: DWARF and BTF agree */
static int test_vs_dwarf(struct dprof_btf *db, struct strbuf *sb)
{
	static const char * const names[] = {
		"list_head", "hlist_node", "rb_node", "rb_root_cached",
	};
	char path[PATH_MAX];
	struct dprof_dwarf *dw;
	struct dprof_type dt, bt;
	size_t i;
	int ret = TEST_OK;

	perf_exe(path, sizeof(path));
	dw = dprof_dwarf__new(path);
	if (!dw) {
		pr_debug("no DWARF in %s, not comparing with it\n", path);
		return TEST_OK;
	}
	for (i = 0; i < ARRAY_SIZE(names) && ret == TEST_OK; i++) {
		if (dprof_types__find_struct(dw, NULL, names[i], &dt) ||
		    dprof_types__find_struct(NULL, db, names[i], &bt) ||
		    dt.src != DPROF_TYPE_DWARF || bt.src != DPROF_TYPE_BTF) {
			pr_debug("struct %s: missing from DWARF or BTF\n", names[i]);
			ret = TEST_FAIL;
			break;
		}
		ret = compare_members(&dt, &bt, sb);
	}
	dprof_dwarf__delete(dw);
	return ret;
}
#else
static int test_vs_dwarf(struct dprof_btf *db __maybe_unused,
			 struct strbuf *sb __maybe_unused)
{
	return TEST_OK;
}
#endif /* HAVE_DWARF_SUPPORT */

int test__dprof_btf(struct test_suite *test __maybe_unused,
		    int subtest __maybe_unused)
{
	struct dprof_btf *db;
	struct strbuf sb;
	int ret;

	TEST_ASSERT_VAL("no BTF in /dev/null", !dprof_btf__new("/dev/null"));
	TEST_ASSERT_VAL("no such file", !dprof_btf__new("/nonexistent/dprof/btf"));

	if (access(DPROF_BTF_VMLINUX, R_OK)) {
		pr_debug("no readable %s: kernel without CONFIG_DEBUG_INFO_BTF\n",
			 DPROF_BTF_VMLINUX);
		return TEST_SKIP;
	}
	db = dprof_btf__new(NULL);
	if (!db) {
		pr_debug("cannot parse %s\n", DPROF_BTF_VMLINUX);
		return TEST_FAIL;
	}
	strbuf_init(&sb, 64);

	ret = test_lists(db, &sb);
	if (ret == TEST_OK)
		ret = test_file(db, &sb);
	if (ret == TEST_OK)
		ret = test_vs_dwarf(db, &sb);

	strbuf_release(&sb);
	dprof_btf__delete(db);
	return ret;
}

#else /* !HAVE_LIBBPF_SUPPORT */

int test__dprof_btf(struct test_suite *test __maybe_unused,
		    int subtest __maybe_unused)
{
	pr_debug("perf built without libbpf\n");
	return TEST_SKIP;
}

#endif /* HAVE_LIBBPF_SUPPORT */
