/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: a data type, wherever its layout came from.
 *
 * The report holds a struct dprof_type per row and asks it for its name and
 * for member paths; the type itself is a DWARF DIE (vmlinux, user binaries)
 * or a BTF type id (the running kernel's /sys/kernel/btf/vmlinux).
 */
#ifndef __PERF_DPROF_TYPES_H
#define __PERF_DPROF_TYPES_H

#include <linux/types.h>
#ifdef HAVE_DWARF_SUPPORT
#include <elfutils/libdw.h>
#endif

struct btf;
struct strbuf;
struct dprof_btf;
struct dprof_dwarf;

enum dprof_type_src {
	DPROF_TYPE_NONE,
	DPROF_TYPE_DWARF,
	DPROF_TYPE_BTF,
};

/**
 * struct dprof_type - a type from DWARF or BTF
 * @src: which member of the union is valid
 * @die: the type's DIE (DPROF_TYPE_DWARF), valid while its dprof_dwarf is
 * @btf: the btf object (DPROF_TYPE_BTF), valid while its dprof_btf is
 * @id: the type id in @btf
 */
struct dprof_type {
	enum dprof_type_src		src;
	union {
#ifdef HAVE_DWARF_SUPPORT
		Dwarf_Die		die;
#endif
		struct {
			const struct btf *btf;
			__u32		id;
		};
	};
};

int dprof_types__cache_type(struct dprof_dwarf *dw, struct dprof_btf *db,
			    const char *cache, u64 object_size,
			    struct dprof_type *t);
int dprof_types__find_struct(struct dprof_dwarf *dw, struct dprof_btf *db,
			     const char *name, struct dprof_type *t);

int dprof_type__name_str(const struct dprof_type *t, struct strbuf *sb);
int dprof_type__sizeof(const struct dprof_type *t, u64 *size);
int dprof_type__member(const struct dprof_type *t, u64 off, struct strbuf *sb);
int dprof_type__member_range(const struct dprof_type *t, u64 off,
			     struct strbuf *sb, u64 *moff, u64 *msize);

#endif /* __PERF_DPROF_TYPES_H */
