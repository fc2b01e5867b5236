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

static const char *member(const struct dprof_type *t, u64 off, struct strbuf *sb,
			  u64 *moff, u64 *msize)
{
	strbuf_setlen(sb, 0);
	if (dprof_type__member_range(t, off, sb, moff, msize) < 0)
		return "-ERR";
	pr_debug("  +%#" PRIx64 " -> %s (%#" PRIx64 "/%" PRIu64 ")\n",
		 off, sb->buf, *moff, *msize);
	return sb->buf;
}

static const char *type_name(const struct dprof_type *t, struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
	if (dprof_type__name_str(t, sb) < 0)
		return "-ERR";
	pr_debug("  type name: %s\n", sb->buf);
	return sb->buf;
}

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

static int test_lists(struct dprof_btf *db, struct strbuf *sb)
{
	struct dprof_type t;
	u64 moff, msize, size;

	TEST_ASSERT_VAL("find list_head", find(db, "list_head", &t) == 0);
	TEST_ASSERT_VAL("list_head from BTF", t.src == DPROF_TYPE_BTF);
	TEST_ASSERT_VAL("list_head name", !strcmp(type_name(&t, sb), "struct list_head"));
	TEST_ASSERT_VAL("list_head size", dprof_type__sizeof(&t, &size) == 0 && size == 16);
	TEST_ASSERT_VAL("list_head +0 next",
			!strcmp(member(&t, 0, sb, &moff, &msize), "next"));
	TEST_ASSERT_VAL("next range", moff == 0 && msize == 8);
	TEST_ASSERT_VAL("list_head +3 next",
			!strcmp(member(&t, 3, sb, &moff, &msize), "next"));
	TEST_ASSERT_VAL("list_head +8 prev",
			!strcmp(member(&t, 8, sb, &moff, &msize), "prev"));
	TEST_ASSERT_VAL("prev range", moff == 8 && msize == 8);
	strbuf_setlen(sb, 0);
	TEST_ASSERT_VAL("list_head +16 out of range",
			dprof_type__member(&t, 16, sb) == -ENOENT && sb->len == 0);

	TEST_ASSERT_VAL("find callback_head", find(db, "callback_head", &t) == 0);
	TEST_ASSERT_VAL("callback_head +0 next", !strcmp(member(&t, 0, sb, &moff, &msize), "next"));
	TEST_ASSERT_VAL("callback_head +8 func", !strcmp(member(&t, 8, sb, &moff, &msize), "func"));

	TEST_ASSERT_VAL("find hlist_node", find(db, "hlist_node", &t) == 0);
	TEST_ASSERT_VAL("hlist_node +8 pprev", !strcmp(member(&t, 8, sb, &moff, &msize), "pprev"));

	TEST_ASSERT_VAL("find rb_root_cached", find(db, "rb_root_cached", &t) == 0);
	TEST_ASSERT_VAL("rb_root_cached +0 nested",
			!strcmp(member(&t, 0, sb, &moff, &msize), "rb_root.rb_node"));
	TEST_ASSERT_VAL("rb_root_cached +8 rb_leftmost",
			!strcmp(member(&t, 8, sb, &moff, &msize), "rb_leftmost"));
	return TEST_OK;
}

static int test_file(struct dprof_btf *db, struct strbuf *sb)
{
	struct dprof_type t, p;
	u64 moff, msize, size;
	s64 f_path, comm;

	/* struct file's layout changes between versions: ask BTF where f_path is */
	TEST_ASSERT_VAL("cache filp", dprof_types__cache_type(NULL, db, "filp", 0, &t) == 0);
	TEST_ASSERT_VAL("filp from BTF", t.src == DPROF_TYPE_BTF);
	TEST_ASSERT_VAL("filp holds struct file", !strcmp(type_name(&t, sb), "struct file"));
	f_path = btf_member_off(&t, "f_path");
	TEST_ASSERT_VAL("struct file has f_path", f_path >= 0);
	TEST_ASSERT_VAL("find path", find(db, "path", &p) == 0);
	TEST_ASSERT_VAL("path.dentry at 8", btf_member_off(&p, "dentry") == 8);
	TEST_ASSERT_VAL("f_path.mnt",
			!strcmp(member(&t, f_path, sb, &moff, &msize), "f_path.mnt"));
	TEST_ASSERT_VAL("f_path.dentry",
			!strcmp(member(&t, f_path + 8, sb, &moff, &msize), "f_path.dentry"));
	TEST_ASSERT_VAL("f_path.dentry range", moff == (u64)f_path + 8 && msize == 8);

	/* the object size rule: size <= object size <= ALIGN(size, 64) */
	TEST_ASSERT_VAL("struct file size", dprof_type__sizeof(&t, &size) == 0 && size);
	TEST_ASSERT_VAL("filp exact size",
			dprof_types__cache_type(NULL, db, "filp", size, &t) == 0);
	TEST_ASSERT_VAL("filp rounded size",
			dprof_types__cache_type(NULL, db, "filp", ALIGN(size, 64), &t) == 0);
	TEST_ASSERT_VAL("filp too small",
			dprof_types__cache_type(NULL, db, "filp", size - 1, &t) == -ENOENT);
	TEST_ASSERT_VAL("filp too big",
			dprof_types__cache_type(NULL, db, "filp", ALIGN(size, 64) + 1, &t) ==
			-ENOENT && t.src == DPROF_TYPE_NONE);

	TEST_ASSERT_VAL("kmalloc-64 has no type",
			dprof_types__cache_type(NULL, db, "kmalloc-64", 64, &t) == -ENOENT);
	TEST_ASSERT_VAL("kmalloc-cg-256 has no type",
			dprof_types__cache_type(NULL, db, "kmalloc-cg-256", 0, &t) == -ENOENT);
	TEST_ASSERT_VAL("names_cache has no type",
			dprof_types__cache_type(NULL, db, "names_cache", 4096, &t) == -ENOENT);
	TEST_ASSERT_VAL("cache task_struct",
			dprof_types__cache_type(NULL, db, "task_struct", 0, &t) == 0 &&
			!strcmp(type_name(&t, sb), "struct task_struct"));
	comm = btf_member_off(&t, "comm");
	TEST_ASSERT_VAL("task_struct has comm", comm >= 0);
	TEST_ASSERT_VAL("array index", !strcmp(member(&t, comm + 3, sb, &moff, &msize), "comm[3]"));
	TEST_ASSERT_VAL("comm[3] range", moff == (u64)comm + 3 && msize == 1);
	TEST_ASSERT_VAL("suffix stripped: dentry_cache? dentry",
			dprof_types__cache_type(NULL, db, "dentry", 0, &t) == 0 &&
			!strcmp(type_name(&t, sb), "struct dentry"));

	/* typedef kept by name, anonymous union adds no component */
	TEST_ASSERT_VAL("cache page->ptl",
			dprof_types__cache_type(NULL, db, "page->ptl", 0, &t) == 0);
	TEST_ASSERT_VAL("typedef name", !strcmp(type_name(&t, sb), "spinlock_t"));
	/* raw_spinlock, or PREEMPT_RT's rt_mutex_base; both nest anonymous unions */
	member(&t, 0, sb, &moff, &msize);
	TEST_ASSERT_VAL("spinlock_t +0 through the anonymous union",
			strstarts(sb->buf, "rlock.raw_lock.") || strstarts(sb->buf, "lock."));
	TEST_ASSERT_VAL("anonymous members add no component",
			!strstr(sb->buf, "..") && sb->buf[sb->len - 1] != '.');
	return TEST_OK;
}

#ifdef HAVE_DWARF_SUPPORT
/* perf's tools/include copies of kernel structs: DWARF and BTF agree */
static int test_vs_dwarf(struct dprof_btf *db, struct strbuf *sb)
{
	static const char * const names[] = {
		"list_head", "hlist_node", "rb_node", "rb_root_cached",
	};
	char path[PATH_MAX], dname[64], bname[64], dpath[64], bpath[64];
	struct dprof_dwarf *dw;
	struct dprof_type dt, bt;
	u64 size, off, dmoff, dmsize, bmoff, bmsize;
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
		    dprof_types__find_struct(NULL, db, names[i], &bt)) {
			pr_debug("struct %s: missing from DWARF or BTF\n", names[i]);
			ret = TEST_FAIL;
			break;
		}
		if (dt.src != DPROF_TYPE_DWARF || bt.src != DPROF_TYPE_BTF) {
			ret = TEST_FAIL;
			break;
		}
		snprintf(dname, sizeof(dname), "%s", type_name(&dt, sb));
		snprintf(bname, sizeof(bname), "%s", type_name(&bt, sb));
		if (strcmp(dname, bname) || dprof_type__sizeof(&dt, &size)) {
			pr_debug("name: DWARF %s, BTF %s\n", dname, bname);
			ret = TEST_FAIL;
			break;
		}
		for (off = 0; off <= size && ret == TEST_OK; off++) {
			snprintf(dpath, sizeof(dpath), "%s", member(&dt, off, sb, &dmoff, &dmsize));
			snprintf(bpath, sizeof(bpath), "%s", member(&bt, off, sb, &bmoff, &bmsize));
			if (strcmp(dpath, bpath) ||
			    (strcmp(dpath, "-ERR") && (dmoff != bmoff || dmsize != bmsize))) {
				pr_debug("%s +%" PRIu64 ": DWARF %s, BTF %s\n",
					 dname, off, dpath, bpath);
				ret = TEST_FAIL;
			}
		}
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
