/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: data-type knowledge from DWARF.
 *
 * One ELF's DWARF (vmlinux or a user binary) with a name index over the
 * top-level DIEs of every CU: struct/union definitions (and typedefs to
 * them) by name, global/static variables by name and by address.  On top
 * of it: slab cache name -> struct, variable -> type, and byte offset ->
 * member path ("f_path.dentry", "slots[2].key").
 */
#ifndef __PERF_DPROF_DWTYPES_H
#define __PERF_DPROF_DWTYPES_H

#include <errno.h>
#include <linux/compiler.h>
#include <linux/types.h>

struct strbuf;
struct debuginfo;
struct dprof_dwarf;

#ifdef HAVE_DWARF_SUPPORT
#include <elfutils/libdw.h>

struct dprof_dwarf *dprof_dwarf__new(const char *path);
void dprof_dwarf__delete(struct dprof_dwarf *dw);
int dprof_dwarf__index(struct dprof_dwarf *dw);
struct debuginfo *dprof_dwarf__debuginfo(struct dprof_dwarf *dw);

int dprof_dwarf__find_struct(struct dprof_dwarf *dw, const char *name,
			     Dwarf_Die *die, u64 *size);
int dprof_dwarf__var_type(struct dprof_dwarf *dw, const char *var,
			  Dwarf_Die *type_die);
int dprof_dwarf__var_type_at(struct dprof_dwarf *dw, u64 addr,
			     Dwarf_Die *type_die);
int dprof_dwarf__cache_type(struct dprof_dwarf *dw, const char *cache,
			    u64 object_size, Dwarf_Die *die);
u64 dprof_dwarf__type_id(struct dprof_dwarf *dw, Dwarf_Die *type_die);

int dprof_type__name(Dwarf_Die *type_die, struct strbuf *sb);
int dprof_type__size(Dwarf_Die *type_die, u64 *size);
int dprof_type__member_at(Dwarf_Die *type_die, u64 offset, struct strbuf *sb,
			  u64 *moff, u64 *msize);

#else /* !HAVE_DWARF_SUPPORT */

static inline struct dprof_dwarf *dprof_dwarf__new(const char *path __maybe_unused)
{
	return NULL;
}

static inline void dprof_dwarf__delete(struct dprof_dwarf *dw __maybe_unused)
{
}

#endif /* HAVE_DWARF_SUPPORT */

#endif /* __PERF_DPROF_DWTYPES_H */
