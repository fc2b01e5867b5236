/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: a data type, wherever its layout came from.
 *
 * The report holds a struct dprof_type per row and asks it for its name and
 * for member paths; the type itself is a DWARF DIE (vmlinux, user binaries),
 * a BTF type id (the running kernel's /sys/kernel/btf/vmlinux), or the layout
 * of a DWARF type an earlier report kept.
 */
#ifndef __PERF_DPROF_TYPES_H
#define __PERF_DPROF_TYPES_H

#include <stdbool.h>
#include <linux/types.h>
#ifdef HAVE_DWARF_SUPPORT
#include <elfutils/libdw.h>
#endif

struct btf;
struct strbuf;
struct dprof_btf;
struct dprof_dwarf;
struct dprof_layout;

enum dprof_type_src {
	DPROF_TYPE_NONE,
	DPROF_TYPE_DWARF,
	DPROF_TYPE_BTF,
	DPROF_TYPE_LAYOUT,
};

/**
 * struct dprof_type - a type from DWARF or BTF
 * @src: which member of the union is valid
 * @die: the type's DIE (DPROF_TYPE_DWARF), valid while its dprof_dwarf is
 * @btf: the btf object (DPROF_TYPE_BTF), valid while its dprof_btf is
 * @id: the type id in @btf
 * @layout: a DWARF type's layout an earlier report kept (DPROF_TYPE_LAYOUT,
 *	    layouts.h), valid while the dprof_dwarf that read it is
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
		const struct dprof_layout	*layout;
	};
};

/*
 * What a type source (dwtypes.c, btftypes.c) provides: accessors only.  The
 * walks on top of them (member paths, flexible array tails) are written
 * once, in types.c, so DWARF and BTF name the same offset the same way.
 */
enum dprof_type_kind {
	DPROF_TYPE_KIND_OTHER,		/* scalar, pointer, enum: a leaf */
	DPROF_TYPE_KIND_STRUCT,		/* struct, class */
	DPROF_TYPE_KIND_UNION,
	DPROF_TYPE_KIND_ARRAY,
};

/**
 * struct dprof_member - a member of a struct or union, as a source sees it
 * @name: the member's name; NULL or "" for an anonymous struct/union
 * @start: first byte
 * @end: one past the last byte; bitfields cover the bytes they touch,
 *	 flexible arrays and empty structs have @end == @start
 * @bitfield: a bitfield (the path ends at it)
 * @type: its type, as declared
 */
struct dprof_member {
	const char		*name;
	u64			start;
	u64			end;
	bool			bitfield;
	struct dprof_type	type;
};

typedef int (*dprof_member_cb)(const struct dprof_member *m, void *arg);

/**
 * struct dprof_type_ops - the accessors of one type source
 * @resolve: store @t with typedefs and qualifiers stripped in @real;
 *	     return its enum dprof_type_kind, or -ENOENT for void
 * @size: byte size of any type (typedefs, qualifiers, arrays seen through)
 * @name: append the C name ("struct file", "char[2][3]") to @sb
 * @members: call @cb for each member of a resolved struct/union, in
 *	     declaration order, until it returns non-zero (which is returned)
 * @array: of a resolved array: store the element type in @elem and the
 *	   bounds, outermost first, in @dims (0: no bound); nested arrays
 *	   count as more dimensions; return the number of dimensions
 */
struct dprof_type_ops {
	int (*resolve)(const struct dprof_type *t, struct dprof_type *real);
	int (*size)(const struct dprof_type *t, u64 *size);
	int (*name)(const struct dprof_type *t, struct strbuf *sb);
	int (*members)(const struct dprof_type *t, dprof_member_cb cb, void *arg);
	int (*array)(const struct dprof_type *t, struct dprof_type *elem,
		     u64 *dims, int max_dims);
};

/* more dimensions than this are not named */
#define DPROF_TYPE_MAX_DIMS	8

int dprof_types__cache_type(struct dprof_dwarf *dw, struct dprof_btf *db,
			    const char *cache, u64 object_size,
			    struct dprof_type *t);
int dprof_types__find_struct(struct dprof_dwarf *dw, struct dprof_btf *db,
			     const char *name, struct dprof_type *t);
int dprof_types__var_type(struct dprof_dwarf *dw, struct dprof_btf *db,
			  const char *name, u64 addr, struct dprof_type *t);

int dprof_type__name_str(const struct dprof_type *t, struct strbuf *sb);
int dprof_type__sizeof(const struct dprof_type *t, u64 *size);
bool dprof_type__has_flex_tail(const struct dprof_type *t);
int dprof_type__member(const struct dprof_type *t, u64 off, struct strbuf *sb);
bool dprof_type__is_prefix(const struct dprof_type *head, const struct dprof_type *obj);
int dprof_type__member_range(const struct dprof_type *t, u64 off,
			     struct strbuf *sb, u64 *moff, u64 *msize);

#endif /* __PERF_DPROF_TYPES_H */
