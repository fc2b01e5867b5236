// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: a data type from DWARF or BTF, the lookups that try DWARF
 * first (it also knows user-space types, static variables and the exact
 * vmlinux of the recording) and fall back to the kernel's BTF, and the walks
 * over a type's layout, written once over the sources' accessors
 * (struct dprof_type_ops).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "util/debug.h"
#include "util/strbuf.h"
#include "btftypes.h"
#include "dwtypes.h"
#include "layouts.h"
#include "types.h"

/* more nesting than this is a loop in broken type information */
#define DPROF_TYPE_MAX_DEPTH	64

static const struct dprof_type_ops *type_ops(const struct dprof_type *t)
{
#ifdef HAVE_DWARF_SUPPORT
	if (t->src == DPROF_TYPE_DWARF)
		return &dprof_dwarf_type_ops;
#endif
#ifdef HAVE_LIBBPF_SUPPORT
	if (t->src == DPROF_TYPE_BTF)
		return &dprof_btf_type_ops;
#endif
	if (t->src == DPROF_TYPE_LAYOUT)
		return &dprof_layout_type_ops;
	return NULL;
}

/* @t->id is a type of @db's: make @t that BTF type */
static int btf_found(struct dprof_btf *db, struct dprof_type *t)
{
	t->btf = dprof_btf__btf(db);
	t->src = DPROF_TYPE_BTF;
	return 0;
}

static int not_found(struct dprof_type *t)
{
	t->src = DPROF_TYPE_NONE;
	return -ENOENT;
}

/**
 * dprof_types__cache_type - the struct a slab cache holds, from DWARF or BTF
 * @dw: the vmlinux DWARF index, or NULL
 * @db: the kernel BTF, or NULL
 * @cache: the slab cache name ("filp")
 * @object_size: the cache's object size, 0 when unknown
 * @t: where to store the type
 *
 * DWARF is tried first, then BTF; both use dprof_cache__candidates() and
 * dprof_cache__size_fits(), so they agree on which struct a cache holds.
 *
 * Return: 0, or -ENOENT (@t->src is then DPROF_TYPE_NONE).
 */
int dprof_types__cache_type(struct dprof_dwarf *dw, struct dprof_btf *db,
			    const char *cache, u64 object_size,
			    struct dprof_type *t)
{
	if (dw && !dprof_dwarf__cache_type(dw, cache, object_size, t))
		return 0;
	if (db && !dprof_btf__cache_type(db, cache, object_size, &t->id))
		return btf_found(db, t);
	return not_found(t);
}

/**
 * dprof_types__find_struct - a struct by name, from DWARF or BTF
 * @dw: a DWARF index, or NULL
 * @db: the kernel BTF, or NULL
 * @name: the struct/union tag or typedef name
 * @t: where to store the type
 *
 * Return: 0, or -ENOENT (@t->src is then DPROF_TYPE_NONE).
 */
int dprof_types__find_struct(struct dprof_dwarf *dw, struct dprof_btf *db,
			     const char *name, struct dprof_type *t)
{
	if (dw && !dprof_dwarf__find_struct(dw, name, t))
		return 0;
	if (db && !dprof_btf__find_struct(db, name, &t->id, NULL))
		return btf_found(db, t);
	return not_found(t);
}

/**
 * dprof_types__var_type - the type of a global, static or per-CPU variable
 * @dw: the DWARF index of the file that defines it, or NULL
 * @db: the kernel BTF, or NULL (it describes per-CPU variables only)
 * @name: the variable's name, as in the ELF symbol table (may be NULL)
 * @addr: its link-time address (the ELF symbol's value; for kernel per-CPU
 *	  variables, the offset in the per-CPU section)
 * @t: where to store its type, as declared
 *
 * See dprof_dwarf__find_var() for the DWARF part: by address first (a
 * static's name can be in many CUs), then by name.  BTF by name last.
 *
 * Return: 0, or -ENOENT (@t->src is then DPROF_TYPE_NONE).
 */
int dprof_types__var_type(struct dprof_dwarf *dw, struct dprof_btf *db,
			  const char *name, u64 addr, struct dprof_type *t)
{
	if (dw && !dprof_dwarf__find_var(dw, name, addr, t))
		return 0;
	if (db && name && !dprof_btf__var_type(db, name, &t->id))
		return btf_found(db, t);
	return not_found(t);
}

/**
 * dprof_type__name_str - C name of a type
 * @t: the type
 * @sb: where to append the name: "struct file", "long int", "spinlock_t",
 *	"struct foo[4]", "char[2][3]", "struct task_struct*"; qualifiers are
 *	dropped, typedef names kept
 *
 * Return: 0, or a negative errno.
 */
int dprof_type__name_str(const struct dprof_type *t, struct strbuf *sb)
{
	const struct dprof_type_ops *ops = type_ops(t);

	return ops ? ops->name(t, sb) : -ENOENT;
}

/**
 * dprof_type__sizeof - byte size of a type (typedefs, qualifiers, arrays
 * seen through)
 * @t: the type
 * @size: where to store the size
 *
 * Return: 0, or -ENOENT when the type has no size (void, declarations).
 */
int dprof_type__sizeof(const struct dprof_type *t, u64 *size)
{
	const struct dprof_type_ops *ops = type_ops(t);

	return ops ? ops->size(t, size) : -ENOENT;
}

static int type_resolve(const struct dprof_type *t, struct dprof_type *real)
{
	const struct dprof_type_ops *ops = type_ops(t);

	return ops ? ops->resolve(t, real) : -ENOENT;
}

static int member_last(const struct dprof_member *m, void *arg)
{
	*(struct dprof_member *)arg = *m;
	return 0;
}

/**
 * dprof_type__has_flex_tail - whether the last member of a struct is an
 * array without a bound (obj->tail[]), so objects may be larger than it
 * @t: the type (typedefs and qualifiers are seen through)
 */
bool dprof_type__has_flex_tail(const struct dprof_type *t)
{
	const struct dprof_type_ops *ops = type_ops(t);
	struct dprof_member last = { .name = NULL };
	struct dprof_type real, elem;
	u64 dims[DPROF_TYPE_MAX_DIMS];

	if (!ops || ops->resolve(t, &real) != DPROF_TYPE_KIND_STRUCT)
		return false;
	last.type.src = DPROF_TYPE_NONE;
	ops->members(&real, member_last, &last);
	if (type_resolve(&last.type, &real) != DPROF_TYPE_KIND_ARRAY)
		return false;
	return ops->array(&real, &elem, dims, ARRAY_SIZE(dims)) > 0 && dims[0] == 0;
}

/* the state of one member path search */
struct member_walk {
	const struct dprof_type_ops	*ops;
	struct strbuf			*sb;
	u64				*moff;	/* innermost member found so far */
	u64				*msize;
};

/* "a.b", and "Base::b" after a base class (walk_add_base()) */
static void walk_add_name(struct member_walk *w, const char *name)
{
	size_t len = w->sb->len;

	if (len && !(len >= 2 && !strcmp(w->sb->buf + len - 2, "::")))
		strbuf_addch(w->sb, '.');
	strbuf_addstr(w->sb, name);
}

/*
 * A member of a base class is named as C++ names it where a derived
 * class hides it: "Iterator::refs_", "key_.Base::len", the base's name
 * without its template arguments.  A base is an unnamed member of a named
 * type; an anonymous struct or union (C11, GNU C) has no name either, and
 * adds no component.
 */
static void walk_add_base(struct member_walk *w, const struct dprof_type *base)
{
	struct strbuf name = STRBUF_INIT;
	const char *s;
	size_t len;

	if (w->ops->name(base, &name) < 0 || !name.buf)
		goto out;
	s = name.buf;
	if (!strncmp(s, "struct ", 7))
		s += 7;
	else if (!strncmp(s, "class ", 6))
		s += 6;
	len = strcspn(s, "<");
	if (len && strncmp(s, "union ", 6)) {
		walk_add_name(w, "");
		strbuf_add(w->sb, s, len);
		strbuf_addstr(w->sb, "::");
	}
out:
	strbuf_release(&name);
}

static int walk_type(struct member_walk *w, const struct dprof_type *t,
		     u64 off, u64 base, int depth);

static int walk_array(struct member_walk *w, const struct dprof_type *array,
		      u64 off, u64 base, int depth)
{
	u64 dims[DPROF_TYPE_MAX_DIMS], stride[DPROF_TYPE_MAX_DIMS], esize, idx;
	struct dprof_type elem;
	int i, nr;

	nr = w->ops->array(array, &elem, dims, ARRAY_SIZE(dims));
	if (nr <= 0 || dprof_type__sizeof(&elem, &esize) || !esize)
		return 0;	/* leaf */
	stride[nr - 1] = esize;
	for (i = nr - 2; i >= 0; i--)
		stride[i] = stride[i + 1] * (dims[i + 1] ?: 1);
	for (i = 0; i < nr; i++) {
		idx = off / stride[i];
		strbuf_addf(w->sb, "[%" PRIu64 "]", idx);
		off -= idx * stride[i];
		base += idx * stride[i];
	}
	*w->moff = base;
	*w->msize = esize;
	return walk_type(w, &elem, off, base, depth + 1);
}

/* the members of a struct/union around one offset */
struct member_scan {
	u64			off;
	u64			hole_start, hole_end;	/* padding around @off */
	bool			have, have_flex;
	struct dprof_member	found;	/* the first member covering @off */
	struct dprof_member	flex;	/* the last zero-size member */
};

static int member_scan(const struct dprof_member *m, void *arg)
{
	struct member_scan *s = arg;
	struct dprof_type real;

	if (m->end == m->start) {
		/*
		 * Zero-size: a flexible array if it is the last member,
		 * else a marker (the kernel's __cacheline_group_begin)
		 */
		s->have_flex = type_resolve(&m->type, &real) == DPROF_TYPE_KIND_ARRAY;
		s->flex = *m;
		return 0;
	}
	s->have_flex = false;
	if (m->start <= s->off && s->off < m->end) {
		/* unions: the first member covering @off wins */
		if (!s->have) {
			s->found = *m;
			s->have = true;
		}
	} else if (m->end <= s->off) {
		s->hole_start = max(s->hole_start, m->end);
	} else if (m->start > s->off) {
		s->hole_end = min(s->hole_end, m->start);
	}
	return 0;
}

static int walk_struct(struct member_walk *w, const struct dprof_type *type,
		       u64 type_size, u64 off, u64 base, int depth)
{
	struct member_scan s = { .off = off, .hole_end = type_size };

	w->ops->members(type, member_scan, &s);
	if (!s.have && s.have_flex && off >= s.flex.start) {
		/* objects larger than the type: obj->tail[i] */
		s.found = s.flex;
		s.have = true;
	}
	if (!s.have) {
		/* padding: the hole itself is the member */
		walk_add_name(w, "<hole>");
		*w->moff = base + s.hole_start;
		*w->msize = s.hole_end > s.hole_start ? s.hole_end - s.hole_start : 0;
		return 0;
	}
	if (s.found.name && *s.found.name)
		walk_add_name(w, s.found.name);
	else
		walk_add_base(w, &s.found.type);
	*w->moff = base + s.found.start;
	*w->msize = s.found.end - s.found.start;
	if (s.found.bitfield)
		return 0;
	return walk_type(w, &s.found.type, off - s.found.start,
			 base + s.found.start, depth + 1);
}

static int walk_type(struct member_walk *w, const struct dprof_type *t,
		     u64 off, u64 base, int depth)
{
	struct dprof_type real;
	u64 size;

	if (depth > DPROF_TYPE_MAX_DEPTH)
		return 0;
	switch (w->ops->resolve(t, &real)) {
	case DPROF_TYPE_KIND_STRUCT:
	case DPROF_TYPE_KIND_UNION:
		if (w->ops->size(&real, &size))
			return 0;
		return walk_struct(w, &real, size, off, base, depth);
	case DPROF_TYPE_KIND_ARRAY:
		return walk_array(w, &real, off, base, depth);
	default:
		/* scalar, pointer, enum: the leaf */
		return 0;
	}
}

/**
 * dprof_type__member_range - member path at a byte offset, and its extent
 * @t: the type (typedefs and qualifiers are seen through)
 * @off: byte offset from the start of an object of that type
 * @sb: where to append the path
 * @moff: where to store the start of the innermost member found (may be NULL)
 * @msize: where to store its size (may be NULL)
 *
 * The path is C-like: "f_path.dentry", "counter.refs", "reserved[9]",
 * "slots[2].key", and "[3].x" when @t is itself an array.  Members of
 * anonymous structs/unions add no component.  In a union the first member
 * covering @off is taken.  A bitfield's path ends at the bitfield and
 * covers the bytes it touches.  Scalars and pointers are leaves: @off may
 * point inside one (byte 3 of a long: @moff says where it starts).
 *
 * Padding is reported as a member of its own: "<hole>" (or "a.<hole>"
 * inside member a), with @moff/@msize describing the whole gap, so accesses
 * to padding show up rather than being blamed on a neighbour.
 *
 * A flexible array at the end of a struct takes any offset past the struct
 * ("data[12]").  Otherwise an offset at or beyond the type's size gives
 * -ENOENT and leaves @sb alone: the caller labels it ("+0x40").
 *
 * DWARF and BTF types go through the same walk, so a report reads the same
 * whichever source named the members.
 *
 * Return: 0, or -ENOENT when @off is out of range or the type has no size.
 */
int dprof_type__member_range(const struct dprof_type *t, u64 off,
			     struct strbuf *sb, u64 *moff, u64 *msize)
{
	u64 size, dummy_off, dummy_size;
	struct member_walk w = {
		.ops	= type_ops(t),
		.sb	= sb,
		.moff	= moff ?: &dummy_off,
		.msize	= msize ?: &dummy_size,
	};
	struct dprof_type real;

	if (!w.ops)
		return -ENOENT;
	if (w.ops->resolve(t, &real) < 0 || w.ops->size(&real, &size)) {
		pr_debug("dprof: type without a size\n");
		return -ENOENT;
	}
	if (off >= size && !dprof_type__has_flex_tail(&real))
		return -ENOENT;
	*w.moff = 0;
	*w.msize = size;
	return walk_type(&w, &real, off, 0, 0);
}

/**
 * dprof_type__member - member path at a byte offset
 * @t: the type
 * @off: byte offset from the start of an object of that type
 * @sb: where to append the path
 *
 * Return: 0, or -ENOENT when @off is past the end (@sb is left alone).
 */
int dprof_type__member(const struct dprof_type *t, u64 off, struct strbuf *sb)
{
	return dprof_type__member_range(t, off, sb, NULL, NULL);
}

/* a struct's first members, as dprof_type__is_prefix() compares them */
#define DPROF_PREFIX_MEMBERS	16

struct prefix_members {
	struct dprof_member	m[DPROF_PREFIX_MEMBERS];
	int			nr;
	bool			more;
};

static int prefix_member(const struct dprof_member *m, void *arg)
{
	struct prefix_members *pm = arg;

	if (pm->nr == DPROF_PREFIX_MEMBERS) {
		pm->more = true;
		return 1;
	}
	pm->m[pm->nr++] = *m;
	return 0;
}

/* the struct @t is (typedefs, qualifiers seen through) and its first members */
static bool prefix_struct(const struct dprof_type *t, struct dprof_type *real,
			  struct prefix_members *pm)
{
	const struct dprof_type_ops *ops = type_ops(t);

	if (!ops || ops->resolve(t, real) != DPROF_TYPE_KIND_STRUCT)
		return false;
	pm->nr = 0;
	pm->more = false;
	ops->members(real, prefix_member, pm);
	return pm->nr > 0;
}

static bool same_type_name(const struct dprof_type *a, const struct dprof_type *b)
{
	struct strbuf na = STRBUF_INIT, nb = STRBUF_INIT;
	bool same = !dprof_type__name_str(a, &na) && !dprof_type__name_str(b, &nb) &&
		    na.buf && nb.buf && !strcmp(na.buf, nb.buf);

	strbuf_release(&na);
	strbuf_release(&nb);
	return same;
}

static bool type_is_prefix(const struct dprof_type *head, const struct dprof_type *obj,
			   int depth)
{
	struct prefix_members hm, om;
	struct dprof_type h, o;
	u64 hsize, osize;
	int i;

	if (depth > DPROF_TYPE_MAX_DEPTH || !prefix_struct(head, &h, &hm) ||
	    !prefix_struct(obj, &o, &om) || dprof_type__sizeof(&h, &hsize) ||
	    dprof_type__sizeof(&o, &osize) || hsize > osize)
		return false;
	/* embedded first: the object's first member is the header, or begins with it */
	if (om.m[0].start == 0 && !om.m[0].bitfield) {
		struct dprof_type first;
		u64 fsize;

		if (type_resolve(&om.m[0].type, &first) == DPROF_TYPE_KIND_STRUCT &&
		    !dprof_type__sizeof(&first, &fsize) &&
		    ((fsize == hsize && same_type_name(&first, &h)) ||
		     type_is_prefix(&h, &first, depth + 1)))
			return true;
	}
	/* a common initial sequence: the header's members, each the same */
	if (hm.more || om.nr < hm.nr || hsize == osize)
		return false;
	for (i = 0; i < hm.nr; i++) {
		const struct dprof_member *a = &hm.m[i], *b = &om.m[i];

		if (!a->name || !b->name || strcmp(a->name, b->name) ||
		    a->start != b->start || a->end != b->end || a->bitfield != b->bitfield ||
		    !same_type_name(&a->type, &b->type))
			return false;
	}
	return true;
}

/**
 * dprof_type__is_prefix - whether objects of @obj begin with a @head
 * @head: a struct, the header
 * @obj: a bigger struct
 *
 * True when @obj's first member is a @head (or begins with one: nested
 * embedding), or when @obj's first members are @head's, one for one, with
 * the same names, places and types (a header a macro gives each object
 * type, a common initial sequence).  Accesses through @head then are
 * accesses to @obj's first members, at the same offsets.
 */
bool dprof_type__is_prefix(const struct dprof_type *head, const struct dprof_type *obj)
{
	return type_is_prefix(head, obj, 0);
}
