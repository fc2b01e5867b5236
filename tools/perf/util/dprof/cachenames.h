/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: slab cache name -> struct name, independent of where the
 * struct's layout comes from (DWARF, BTF).
 */
#ifndef __PERF_DPROF_CACHENAMES_H
#define __PERF_DPROF_CACHENAMES_H

#include <stdbool.h>
#include <linux/types.h>

/**
 * typedef dprof_cache_cand_cb - called for each struct name a cache may hold
 * @name: struct, union or typedef name to look up ("file", "ext4_inode_info")
 * @any_size: true when the object size says nothing about the struct size
 *	      (task_struct: the FPU state is sized at boot), so the caller
 *	      must not apply dprof_cache__size_fits()
 * @arg: the caller's cookie
 *
 * Return: 0 to try the next candidate, anything else to stop.
 */
typedef int (*dprof_cache_cand_cb)(const char *name, bool any_size, void *arg);

bool dprof_cache__is_kmalloc(const char *cache);
int dprof_cache__candidates(const char *cache, dprof_cache_cand_cb cb, void *arg);
bool dprof_cache__size_fits(u64 size, u64 object_size, bool flex_tail);

#endif /* __PERF_DPROF_CACHENAMES_H */
