/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: data-type knowledge from BTF.
 *
 * The kernel's own type information (/sys/kernel/btf/vmlinux), present on
 * nearly every kernel that has no vmlinux with DWARF around: struct by
 * name, slab cache name -> struct, type name and byte offset -> member
 * path, with the same conventions as dwtypes.h.
 */
#ifndef __PERF_DPROF_BTFTYPES_H
#define __PERF_DPROF_BTFTYPES_H

#include <errno.h>
#include <linux/compiler.h>
#include <linux/types.h>

struct btf;
struct strbuf;
struct dprof_btf;

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

int dprof_btf_type__name(const struct btf *btf, __u32 id, struct strbuf *sb);
int dprof_btf_type__size(const struct btf *btf, __u32 id, u64 *size);
int dprof_btf_type__member_at(const struct btf *btf, __u32 id, u64 offset,
			      struct strbuf *sb, u64 *moff, u64 *msize);

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

static inline int dprof_btf_type__name(const struct btf *btf __maybe_unused,
				       __u32 id __maybe_unused,
				       struct strbuf *sb __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_btf_type__size(const struct btf *btf __maybe_unused,
				       __u32 id __maybe_unused,
				       u64 *size __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_btf_type__member_at(const struct btf *btf __maybe_unused,
					    __u32 id __maybe_unused,
					    u64 offset __maybe_unused,
					    struct strbuf *sb __maybe_unused,
					    u64 *moff __maybe_unused,
					    u64 *msize __maybe_unused)
{
	return -ENOENT;
}

#endif /* HAVE_LIBBPF_SUPPORT */

#endif /* __PERF_DPROF_BTFTYPES_H */
