/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: data-type knowledge from BTF.
 *
 * The kernel's own type information (/sys/kernel/btf/vmlinux), present on
 * nearly every kernel that has no vmlinux with DWARF around: struct by
 * name, slab cache name -> struct, per-CPU variable -> type; types.h names
 * the types and member paths, the same way as for DWARF.
 */
#ifndef __PERF_DPROF_BTFTYPES_H
#define __PERF_DPROF_BTFTYPES_H

#include <errno.h>
#include <linux/compiler.h>
#include <linux/types.h>

struct btf;
struct dprof_btf;
struct dprof_type_ops;

#define DPROF_BTF_VMLINUX	"/sys/kernel/btf/vmlinux"

#ifdef HAVE_LIBBPF_SUPPORT

struct dprof_btf *dprof_btf__new(const char *path);
void dprof_btf__delete(struct dprof_btf *db);
const struct btf *dprof_btf__btf(const struct dprof_btf *db);

int dprof_btf__find_struct(struct dprof_btf *db, const char *name,
			   __u32 *id, u64 *size);
int dprof_btf__cache_type(struct dprof_btf *db, const char *cache,
			  u64 object_size, __u32 *id);
int dprof_btf__var_type(struct dprof_btf *db, const char *var, __u32 *id);

/* for types.c: the accessors behind DPROF_TYPE_BTF */
extern const struct dprof_type_ops dprof_btf_type_ops;

#else /* !HAVE_LIBBPF_SUPPORT */

static inline struct dprof_btf *dprof_btf__new(const char *path __maybe_unused)
{
	return NULL;
}

static inline void dprof_btf__delete(struct dprof_btf *db __maybe_unused)
{
}

static inline const struct btf *dprof_btf__btf(const struct dprof_btf *db __maybe_unused)
{
	return NULL;
}

static inline int dprof_btf__find_struct(struct dprof_btf *db __maybe_unused,
					 const char *name __maybe_unused,
					 __u32 *id __maybe_unused,
					 u64 *size __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_btf__cache_type(struct dprof_btf *db __maybe_unused,
					const char *cache __maybe_unused,
					u64 object_size __maybe_unused,
					__u32 *id __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_btf__var_type(struct dprof_btf *db __maybe_unused,
				      const char *var __maybe_unused,
				      __u32 *id __maybe_unused)
{
	return -ENOENT;
}

#endif /* HAVE_LIBBPF_SUPPORT */

#endif /* __PERF_DPROF_BTFTYPES_H */
