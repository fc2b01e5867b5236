/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: the layouts of the types a report showed, kept between
 * reports so that the next one names their members without opening the
 * DWARF they came from.
 *
 * A layout is what struct dprof_type_ops answers of one type DIE: its C
 * name, size, the type it resolves to, its members and array bounds, each
 * type named by its DIE's offset (the key of dwtypes.c's lookups), and the
 * DIE's own tag and name, which the kept lookups are checked against.
 */
#ifndef __PERF_DPROF_LAYOUTS_H
#define __PERF_DPROF_LAYOUTS_H

#include <stdbool.h>
#include <linux/types.h>

#include "types.h"

struct build_id;
struct dprof_typecache;
struct dprof_layouts;

/**
 * struct dprof_layout_member - a member, as dprof_type_ops.members gives it
 * @name: its name; NULL when the DIE has none
 * @start: first byte
 * @end: one past the last
 * @bitfield: a bitfield
 * @type_key: its type's key
 * @type: that layout, once linked
 */
struct dprof_layout_member {
	char			*name;
	u64			start;
	u64			end;
	bool			bitfield;
	u64			type_key;
	struct dprof_layout	*type;
};

/**
 * struct dprof_layout - one type DIE (or a variable's DIE: its type)
 * @key: the DIE's offset, as dwtypes.c names it
 * @tag: the DIE's tag
 * @die_name: the DIE's name; NULL: none
 * @name: the C name dprof_type_ops.name gives; NULL: it failed
 * @size: its size, if @has_size
 * @has_size: dprof_type_ops.size succeeded
 * @kind: what dprof_type_ops.resolve returned (-ENOENT: void); for a
 *	  variable, 0
 * @real_key: the type it resolves to (a variable's: its type); 0: none
 * @real: that layout, once linked
 * @members: a struct's or union's members, when it is its own @real
 * @nr_members: how many
 * @elem_key: an array's element type (0: none), when it is its own @real
 * @elem: that layout, once linked
 * @dims: an array's bounds, outermost first (0: none given)
 * @nr_dims: how many
 * @unwritten: left out of the file (dprof_layouts__save())
 */
struct dprof_layout {
	u64				key;
	char				*die_name;
	char				*name;		/* may be @die_name */
	u64				size;
	u64				real_key;
	struct dprof_layout		*real;
	struct dprof_layout_member	*members;
	u64				elem_key;
	struct dprof_layout		*elem;
	u64				*dims;
	int				tag;
	int				kind;
	u32				nr_members;
	int				nr_dims;
	bool				has_size;
	bool				unwritten;
};

struct dprof_layouts *dprof_layouts__new(void);
void dprof_layouts__delete(struct dprof_layouts *l);
int dprof_layouts__read(struct dprof_layouts *l, const struct dprof_typecache *tc,
			const struct build_id *bid);
int dprof_layouts__save(struct dprof_layouts *l, const struct dprof_typecache *tc,
			const struct build_id *bid);
size_t dprof_layouts__nr(const struct dprof_layouts *l);

struct dprof_layout *dprof_layouts__find(const struct dprof_layouts *l, u64 key);
struct dprof_layout *dprof_layouts__add(struct dprof_layouts *l, u64 key);
int dprof_layout__set_dims(struct dprof_layout *n, const u64 *dims, int nr);
int dprof_layout__set_names(struct dprof_layout *n, const char *die_name,
			    const char *name);
int dprof_layout__add_member(struct dprof_layout *n, const char *name, u64 start,
			     u64 end, bool bitfield, u64 type_key);

/* @t as the type @n describes (valid while its layouts are) */
void dprof_layout__type(const struct dprof_layout *n, struct dprof_type *t);

/* for types.c: the accessors behind DPROF_TYPE_LAYOUT */
extern const struct dprof_type_ops dprof_layout_type_ops;

#endif /* __PERF_DPROF_LAYOUTS_H */
