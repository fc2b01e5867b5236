// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: slab cache name -> struct name.
 *
 * Most kernel slab caches are named after the struct they hold, give or
 * take a suffix ("dentry", "ext4_inode_cache", "kioctx" ...); the others
 * are listed in an alias table.  The candidates are only names: the type
 * source (dwtypes.c, btftypes.c) looks each one up and checks its size
 * with dprof_cache__size_fits().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/align.h>
#include <linux/kernel.h>

#include "cachenames.h"

/* slab caches whose name does not lead to their struct */
static const struct {
	const char	*cache;
	const char	*type;		/* NULL: holds no single type */
	bool		any_size;	/* object size not the struct size */
} cache_alias[] = {
	{ "filp",		  "file", false },
	{ "skbuff_head_cache",	  "sk_buff", false },
	{ "skbuff_fclone_cache",  "sk_buff_fclones", false },
	{ "skbuff_small_head",	  NULL, false },
	{ "skbuff_ext_cache",	  NULL, false },
	{ "names_cache",	  NULL, false },
	{ "thread_stack",	  NULL, false },
	{ "bdev_cache",		  "bdev_inode", false },
	{ "blkdev_ioc",		  "io_context", false },
	{ "sock_inode_cache",	  "socket_alloc", false },
	{ "eventpoll_epi",	  "epitem", false },
	{ "eventpoll_pwq",	  "eppoll_entry", false },
	{ "ep_head",		  "epitems_head", false },
	{ "file_lock_ctx",	  "file_lock_context", false },
	{ "mnt_cache",		  "mount", false },
	{ "net_namespace",	  "net", false },
	{ "numa_policy",	  "mempolicy", false },
	{ "shared_policy_node",	  "sp_node", false },
	{ "posix_timers_cache",	  "k_itimer", false },
	{ "uid_cache",		  "user_struct", false },
	{ "tcp_bind_bucket",	  "inet_bind_bucket", false },
	{ "tcp_bind2_bucket",	  "inet_bind2_bucket", false },
	{ "ip6_dst_cache",	  "rt6_info", false },
	{ "debug_objects_cache",  "debug_obj", false },
	{ "kmalloc_buckets",	  "kmem_buckets", false },
	{ "page->ptl",		  "spinlock_t", false },
	{ "radix_tree_node",	  "xa_node", false },	/* #define radix_tree_node xa_node */
	{ "proc_dir_entry",	  "proc_dir_entry", true },	/* + inline name */
	/* x86: arch_task_struct_size, the FPU state is sized at boot */
	{ "task_struct",	  "task_struct", true },
	/* struct proto slabs: sk_prot->obj_size */
	{ "TCP",		  "tcp_sock", false },
	{ "TCPv6",		  "tcp6_sock", false },
	{ "UDP",		  "udp_sock", false },
	{ "UDPv6",		  "udp6_sock", false },
	{ "UDP-Lite",		  "udp_sock", false },
	{ "UDPLITEv6",		  "udp6_sock", false },
	{ "UNIX",		  "unix_sock", false },
	{ "UNIX-STREAM",	  "unix_sock", false },
	{ "RAW",		  "raw_sock", false },
	{ "RAWv6",		  "raw6_sock", false },
	{ "PING",		  "inet_sock", false },
	{ "PINGv6",		  "raw6_sock", false },
	{ "NETLINK",		  "netlink_sock", false },
	{ "request_sock_TCP",	  "tcp_request_sock", false },
	{ "request_sock_TCPv6",	  "tcp6_request_sock", false },
	{ "tw_sock_TCP",	  "tcp_timewait_sock", false },
	{ "tw_sock_TCPv6",	  "tcp6_timewait_sock", false },
};

/**
 * dprof_cache__is_kmalloc - whether a cache is a kmalloc size class
 * @cache: the slab cache name
 *
 * kmalloc-256, kmalloc-cg-64, kmalloc-rcl-*, dma-kmalloc-*, kmalloc-rnd-*
 * and SLAB's size-* hold objects of any type.
 *
 * Return: true for a kmalloc cache.
 */
bool dprof_cache__is_kmalloc(const char *cache)
{
	return !strncmp(cache, "kmalloc", 7) || strstr(cache, "-kmalloc-") ||
	       !strncmp(cache, "dma-kmalloc", 11) || !strncmp(cache, "size-", 5);
}

static bool strip_suffix(char *name, const char *suffix)
{
	size_t len = strlen(name), slen = strlen(suffix);

	if (len <= slen || strcmp(name + len - slen, suffix))
		return false;
	name[len - slen] = '\0';
	return true;
}

static bool ends_with(const char *name, const char *suffix)
{
	size_t len = strlen(name), slen = strlen(suffix);

	return len > slen && !strcmp(name + len - slen, suffix);
}

/**
 * dprof_cache__candidates - the struct names a slab cache may hold
 * @cache: the slab cache name ("filp", "task_struct", "ext4_inode_cache")
 * @cb: called with each candidate, best first, until it returns non-zero
 * @arg: passed to @cb
 *
 * A cache in the alias table gets its alias only (none at all when the
 * table says it holds no single type, as names_cache).  Other caches get,
 * in order: the cache name, "<base>_info" when <base> ends in "_inode"
 * (ext4_inode_cache holds ext4_inode_info), the name without a
 * _cache/_cachep/_slab/_jar suffix ("<base>"), "<base>_struct",
 * "<base>_info", "<name>_struct".  A name is passed once.  kmalloc-*
 * caches hold no single type and get no candidate.
 *
 * Return: the first non-zero value @cb returned, or -ENOENT when it
 * accepted no candidate.
 */
int dprof_cache__candidates(const char *cache, dprof_cache_cand_cb cb, void *arg)
{
	static const char * const suffixes[] = { "_cachep", "_cache", "_slab", "_jar" };
	char base[128], cand[4][160];
	size_t i, j, n = 0;
	int ret;

	if (!cache || dprof_cache__is_kmalloc(cache))
		return -ENOENT;

	for (i = 0; i < ARRAY_SIZE(cache_alias); i++) {
		if (strcmp(cache, cache_alias[i].cache))
			continue;
		if (!cache_alias[i].type)
			return -ENOENT;
		return cb(cache_alias[i].type, cache_alias[i].any_size, arg) ?: -ENOENT;
	}

	ret = cb(cache, false, arg);
	if (ret)
		return ret;

	if (snprintf(base, sizeof(base), "%s", cache) >= (int)sizeof(base))
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++) {
		if (strip_suffix(base, suffixes[i]))
			break;
	}
	if (ends_with(base, "_inode"))
		snprintf(cand[n++], sizeof(cand[0]), "%s_info", base);
	snprintf(cand[n++], sizeof(cand[0]), "%s", base);
	snprintf(cand[n++], sizeof(cand[0]), "%s_struct", base);
	snprintf(cand[n++], sizeof(cand[0]), "%s_info", base);
	/* "<name>_struct" is "<base>_struct" when nothing was stripped */

	for (i = 0; i < n; i++) {
		if (!strcmp(cand[i], cache))
			continue;
		for (j = 0; j < i && strcmp(cand[i], cand[j]); j++)
			;
		if (j < i)
			continue;
		ret = cb(cand[i], false, arg);
		if (ret)
			return ret;
	}
	if (strcmp(base, cache)) {
		snprintf(cand[0], sizeof(cand[0]), "%s_struct", cache);
		ret = cb(cand[0], false, arg);
		if (ret)
			return ret;
	}
	return -ENOENT;
}

/**
 * dprof_cache__size_fits - whether a struct fits a cache's object size
 * @size: the struct's byte size
 * @object_size: the cache's object size, 0 when unknown
 * @flex_tail: the struct's last member is a flexible array
 *
 * A slab object is the struct rounded up to at most a cache line:
 * size <= @object_size <= ALIGN(size, 64).  A struct with a flexible array
 * tail fits any larger object.
 *
 * Return: true when it fits (always when @object_size is 0).
 */
bool dprof_cache__size_fits(u64 size, u64 object_size, bool flex_tail)
{
	if (!object_size)
		return true;
	if (size <= object_size && object_size <= ALIGN(size, 64))
		return true;
	return flex_tail && size <= object_size;
}
