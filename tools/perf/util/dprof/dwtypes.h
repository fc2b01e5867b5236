/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: data-type knowledge from DWARF.
 *
 * One ELF's DWARF (vmlinux or a user binary) with a name index over the
 * top-level DIEs of every CU: struct/union definitions (and typedefs to
 * them) by name, global/static variables by name and by address.  On top
 * of it: slab cache name -> struct, variable -> type, each as a struct
 * dprof_type (types.h), which names types and member paths.
 *
 * Every function a caller needs has a stub without DWARF support (they find
 * nothing), so callers need no #ifdef HAVE_DWARF_SUPPORT.
 */
#ifndef __PERF_DPROF_DWTYPES_H
#define __PERF_DPROF_DWTYPES_H

#include <errno.h>
#include <linux/compiler.h>
#include <linux/types.h>

#include "types.h"

struct debuginfo;
struct dprof_dwarf;
struct dprof_typecache;

/* see dprof_dwarf_pages__init() */
#define DPROF_DWARF_PAGES_MAX	3

struct dprof_dwarf_pages {
	unsigned long	start[DPROF_DWARF_PAGES_MAX];
	unsigned long	len[DPROF_DWARF_PAGES_MAX];
	int		nr;
};

struct map;
struct thread;

/**
 * struct dprof_dwarf_digest - what a handle's index holds, for its test
 * @nr_types: type names
 * @nr_dies: runs of type DIEs in their chains
 * @nr_vars: variables by name
 * @nr_var_addrs: variables by address
 * @nr_unit_vars: CUs whose variables are kept for perf
 * @nr_helped: units indexed by the thread that waited for the walk ahead
 * @types: a hash of the chains of the type names
 * @vars: a hash of the variables by name and by address
 * @unit_vars: a hash of the variables kept for perf, in CU order
 * @walk_vars: the same hash of those a walk of perf's would collect
 */
struct dprof_dwarf_digest {
	u32	nr_types;
	u32	nr_dies;
	u32	nr_vars;
	u32	nr_var_addrs;
	u32	nr_unit_vars;
	u32	nr_helped;
	u64	types;
	u64	vars;
	u64	unit_vars;
	u64	walk_vars;
};

#ifdef HAVE_DWARF_SUPPORT
#include <elfutils/libdw.h>

struct dprof_dwarf *dprof_dwarf__new(const char *path);
struct dprof_dwarf *dprof_dwarf__new_kept(const char *path, struct dprof_typecache *tc);
int dprof_dwarf__ready(struct dprof_dwarf *dw);
bool dprof_dwarf__kept(const struct dprof_dwarf *dw);
void dprof_dwarf__delete(struct dprof_dwarf *dw);
int dprof_dwarf__index(struct dprof_dwarf *dw);
int dprof_dwarf__index_start(struct dprof_dwarf *dw);
int dprof_dwarf__index_vars(struct dprof_dwarf *dw, struct map *map,
			    struct thread *thread, u8 cpumode);
struct debuginfo *dprof_dwarf__debuginfo(struct dprof_dwarf *dw);
void dprof_dwarf__trim(struct dprof_dwarf *dw);
void dprof_dwarf_pages__init(struct dprof_dwarf_pages *p, struct Elf *elf);
void dprof_dwarf_pages__drop(const struct dprof_dwarf_pages *p);
int dprof_dwarf__index_digest(struct dprof_dwarf *dw,
			      struct dprof_dwarf_digest *d);

int dprof_dwarf__find_struct(struct dprof_dwarf *dw, const char *name,
			     struct dprof_type *t);
int dprof_dwarf__find_struct_sized(struct dprof_dwarf *dw, const char *name,
				   u64 size, struct dprof_type *t);
int dprof_dwarf__find_var(struct dprof_dwarf *dw, const char *name, u64 addr,
			  struct dprof_type *t);
int dprof_dwarf__cache_type(struct dprof_dwarf *dw, const char *cache,
			    u64 object_size, struct dprof_type *t);

/* for types.c: the accessors behind DPROF_TYPE_DWARF */
extern const struct dprof_type_ops dprof_dwarf_type_ops;

#else /* !HAVE_DWARF_SUPPORT */

static inline struct dprof_dwarf *dprof_dwarf__new(const char *path __maybe_unused)
{
	return NULL;
}

static inline struct dprof_dwarf *
dprof_dwarf__new_kept(const char *path __maybe_unused,
		      struct dprof_typecache *tc __maybe_unused)
{
	return NULL;
}

static inline void dprof_dwarf__delete(struct dprof_dwarf *dw __maybe_unused)
{
}

static inline int dprof_dwarf__index(struct dprof_dwarf *dw __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_dwarf__ready(struct dprof_dwarf *dw __maybe_unused)
{
	return -ENOENT;
}

static inline bool dprof_dwarf__kept(const struct dprof_dwarf *dw __maybe_unused)
{
	return false;
}

static inline int dprof_dwarf__index_start(struct dprof_dwarf *dw __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_dwarf__index_vars(struct dprof_dwarf *dw __maybe_unused,
					  struct map *map __maybe_unused,
					  struct thread *thread __maybe_unused,
					  u8 cpumode __maybe_unused)
{
	return -ENOENT;
}

static inline void dprof_dwarf__trim(struct dprof_dwarf *dw __maybe_unused)
{
}

static inline void dprof_dwarf_pages__init(struct dprof_dwarf_pages *p,
					   struct Elf *elf __maybe_unused)
{
	p->nr = 0;
}

static inline void dprof_dwarf_pages__drop(const struct dprof_dwarf_pages *p __maybe_unused)
{
}

static inline int
dprof_dwarf__index_digest(struct dprof_dwarf *dw __maybe_unused,
			  struct dprof_dwarf_digest *d __maybe_unused)
{
	return -ENOENT;
}

static inline struct debuginfo *
dprof_dwarf__debuginfo(struct dprof_dwarf *dw __maybe_unused)
{
	return NULL;
}

static inline int dprof_dwarf__find_struct(struct dprof_dwarf *dw __maybe_unused,
					   const char *name __maybe_unused,
					   struct dprof_type *t __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_dwarf__find_struct_sized(struct dprof_dwarf *dw __maybe_unused,
						 const char *name __maybe_unused,
						 u64 size __maybe_unused,
						 struct dprof_type *t __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_dwarf__find_var(struct dprof_dwarf *dw __maybe_unused,
					const char *name __maybe_unused,
					u64 addr __maybe_unused,
					struct dprof_type *t __maybe_unused)
{
	return -ENOENT;
}

static inline int dprof_dwarf__cache_type(struct dprof_dwarf *dw __maybe_unused,
					  const char *cache __maybe_unused,
					  u64 object_size __maybe_unused,
					  struct dprof_type *t __maybe_unused)
{
	return -ENOENT;
}

#endif /* HAVE_DWARF_SUPPORT */

#endif /* __PERF_DPROF_DWTYPES_H */
