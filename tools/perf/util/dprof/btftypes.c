// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: data-type knowledge from BTF.
 *
 * BTF is deduplicated: every distinct struct is one type id, so unlike
 * DWARF there are no per-CU copies to fold.  Names may still repeat
 * (different structs that share a tag, a typedef named like a struct), so
 * the index maps a name to all the struct/union definitions and typedefs
 * to them that carry it.  Keys are the names' bytes in the BTF string
 * section, valid as long as the btf object is.
 *
 * Member paths are named by the walk in types.c over the accessors at the
 * end of this file, the same walk as for DWARF.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/btf.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/debug.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "btftypes.h"
#include "cachenames.h"
#include "hashfn.h"
#include "types.h"

struct dprof_btf {
	struct btf	*btf;
	struct hashmap	*types;		/* name -> type id, several per name */
	unsigned int	nr_types;
};

/* more nesting than this is a loop in broken BTF */
#define BT_MAX_DEPTH	64

/* a struct/union definition, or a typedef that ends in one */
static bool bt_is_struct_def(const struct btf *btf, const struct btf_type *t)
{
	int id;

	if (btf_is_composite(t))
		return true;
	if (!btf_is_typedef(t))
		return false;
	id = btf__resolve_type(btf, t->type);
	return id > 0 && btf_is_composite(btf__type_by_id(btf, id));
}

static int bt_build_index(struct dprof_btf *db)
{
	__u32 id, nr = btf__type_cnt(db->btf);
	int ret;

	for (id = 1; id < nr; id++) {
		const struct btf_type *t = btf__type_by_id(db->btf, id);
		const char *name;

		if (!bt_is_struct_def(db->btf, t))
			continue;
		name = btf__name_by_offset(db->btf, t->name_off);
		if (!name || !*name)
			continue;
		ret = hashmap__append(db->types, name, (long)id);
		if (ret)
			return ret;
		db->nr_types++;
	}
	return 0;
}

/**
 * dprof_btf__new - open a BTF file and index its struct names
 * @path: a raw BTF file or an ELF with a .BTF section; NULL for the
 *	  running kernel's DPROF_BTF_VMLINUX
 *
 * Return: the handle, or NULL (with a pr_debug() saying why) when @path
 * cannot be read as BTF or memory ran out.
 */
struct dprof_btf *dprof_btf__new(const char *path)
{
	struct dprof_btf *db = zalloc(sizeof(*db));

	if (!path)
		path = DPROF_BTF_VMLINUX;
	if (!db)
		return NULL;

	db->btf = btf__parse(path, NULL);
	if (IS_ERR_OR_NULL(db->btf)) {
		pr_debug("dprof: no BTF in %s\n", path);
		db->btf = NULL;
		goto out_delete;
	}
	db->types = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	if (IS_ERR(db->types)) {
		db->types = NULL;
		pr_debug("dprof: no memory for the BTF index of %s\n", path);
		goto out_delete;
	}
	if (bt_build_index(db)) {
		pr_debug("dprof: failed to index the BTF of %s\n", path);
		goto out_delete;
	}
	pr_debug("dprof: %s: indexed %u BTF struct names\n", path, db->nr_types);
	return db;

out_delete:
	dprof_btf__delete(db);
	return NULL;
}

/**
 * dprof_btf__delete - free a handle made by dprof_btf__new()
 * @db: the handle, may be NULL
 *
 * The btf object and type ids handed out by it become invalid.
 */
void dprof_btf__delete(struct dprof_btf *db)
{
	if (!db)
		return;
	hashmap__free(db->types);
	btf__free(db->btf);
	free(db);
}

/**
 * dprof_btf__btf - the libbpf btf object of a handle
 * @db: the handle
 *
 * Return: the btf object, for struct dprof_type.
 */
const struct btf *dprof_btf__btf(const struct dprof_btf *db)
{
	return db ? db->btf : NULL;
}

/* the BTF type @id of @btf as a struct dprof_type */
static void bt_type(const struct btf *btf, __u32 id, struct dprof_type *t)
{
	t->src = DPROF_TYPE_BTF;
	t->btf = btf;
	t->id = id;
}

static bool bt_has_flex_tail(const struct btf *btf, __u32 id)
{
	struct dprof_type t;

	bt_type(btf, id, &t);
	return dprof_type__has_flex_tail(&t);
}

/*
 * The definition of @name to use: the largest one that fits @object_size
 * (all of them fit when @any_size), the first one seen among equals.
 */
static int bt_fit(struct dprof_btf *db, const char *name, u64 object_size,
		  bool any_size, __u32 *id, u64 *size)
{
	struct hashmap_entry *cur;
	__s64 best_size = -1;

	if (!db || !name)
		return -ENOENT;
	hashmap__for_each_key_entry(db->types, cur, (long)name) {
		__s64 sz = btf__resolve_size(db->btf, cur->value);

		if (sz < 0 || sz <= best_size)
			continue;
		if (!any_size &&
		    !dprof_cache__size_fits(sz, object_size,
					    bt_has_flex_tail(db->btf, cur->value)))
			continue;
		best_size = sz;
		*id = cur->value;
	}
	if (best_size < 0)
		return -ENOENT;
	if (size)
		*size = best_size;
	return 0;
}

/**
 * dprof_btf__find_struct - find a struct/union definition by name
 * @db: the BTF index
 * @name: the struct or union tag ("file"), or a typedef name ("spinlock_t")
 * @id: where to store its type id: the struct/union, or the typedef when
 *	found by a typedef name (dprof_type__*() see through typedefs)
 * @size: where to store its byte size (may be NULL)
 *
 * When definitions of different sizes share the name, the largest wins.
 *
 * Return: 0, or -ENOENT.
 */
int dprof_btf__find_struct(struct dprof_btf *db, const char *name,
			   __u32 *id, u64 *size)
{
	if (bt_fit(db, name, 0, true, id, size)) {
		pr_debug2("dprof: no struct %s in BTF\n", name ?: "(null)");
		return -ENOENT;
	}
	return 0;
}

struct bt_cache_arg {
	struct dprof_btf	*db;
	u64			object_size;
	__u32			id;
};

static int bt_cache_cand(const char *name, bool any_size, void *arg)
{
	struct bt_cache_arg *ca = arg;

	return !bt_fit(ca->db, name, ca->object_size, any_size, &ca->id, NULL);
}

/**
 * dprof_btf__cache_type - the struct a slab cache holds
 * @db: the BTF index (of vmlinux)
 * @cache: the slab cache name ("filp", "task_struct", "ext4_inode_cache")
 * @object_size: the cache's object size, 0 when unknown
 * @id: where to store the struct's type id (or its typedef's)
 *
 * Tries the names dprof_cache__candidates() gives, as
 * dprof_dwarf__cache_type() does, and accepts the first that
 * dprof_cache__size_fits() @object_size.  kmalloc-* caches hold no single
 * type.
 *
 * Return: 0, or -ENOENT.
 */
int dprof_btf__cache_type(struct dprof_btf *db, const char *cache,
			  u64 object_size, __u32 *id)
{
	struct bt_cache_arg ca = { .db = db, .object_size = object_size };

	if (!db || !cache || dprof_cache__candidates(cache, bt_cache_cand, &ca) <= 0) {
		pr_debug("dprof: no BTF struct for slab cache %s (object size %" PRIu64 ")\n",
			 cache ?: "(null)", object_size);
		return -ENOENT;
	}
	*id = ca.id;
	return 0;
}

/**
 * dprof_btf__var_type - type of a kernel variable
 * @db: the BTF index
 * @var: the variable's name
 * @id: where to store its type id, as declared
 *
 * vmlinux BTF describes per-CPU variables only (runqueues, ...).  The
 * lookup is a linear scan: cache the result.
 *
 * Return: 0, or -ENOENT.
 */
int dprof_btf__var_type(struct dprof_btf *db, const char *var, __u32 *id)
{
	__s32 vid;

	if (!db || !var)
		return -ENOENT;
	vid = btf__find_by_name_kind(db->btf, var, BTF_KIND_VAR);
	if (vid <= 0) {
		pr_debug2("dprof: no variable %s in BTF\n", var);
		return -ENOENT;
	}
	*id = btf__type_by_id(db->btf, vid)->type;
	return 0;
}

/* @id with const/volatile/restrict/type tags stripped */
static __u32 bt_strip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth = 0;

	while (t && id && btf_is_mod(t) && depth++ < BT_MAX_DEPTH) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return t ? id : 0;
}

static int bt_name(const struct btf *btf, __u32 id, struct strbuf *sb, int depth)
{
	const struct btf_type *t;
	const char *name;
	int ret;

	id = bt_strip_mods(btf, id);
	if (!id)
		return strbuf_addstr(sb, "void");
	if (depth > BT_MAX_DEPTH)
		return -ELOOP;
	t = btf__type_by_id(btf, id);
	name = btf__name_by_offset(btf, t->name_off) ?: "";

	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
		return strbuf_addf(sb, "struct %s", name);
	case BTF_KIND_UNION:
		return strbuf_addf(sb, "union %s", name);
	case BTF_KIND_FWD:
		return strbuf_addf(sb, "%s %s", btf_kflag(t) ? "union" : "struct", name);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return strbuf_addf(sb, "enum %s", name);
	case BTF_KIND_FUNC_PROTO:
		return strbuf_addstr(sb, "(function_type)");
	case BTF_KIND_PTR:
		ret = bt_name(btf, t->type, sb, depth + 1);
		return ret < 0 ? ret : strbuf_addch(sb, '*');
	case BTF_KIND_ARRAY: {
		/* C order: the element's name, then the outermost bound */
		const struct btf_type *a = t;
		__u32 elem = id;

		while (btf_is_array(a) && depth++ < BT_MAX_DEPTH) {
			elem = bt_strip_mods(btf, btf_array(a)->type);
			a = btf__type_by_id(btf, elem);
			if (!a)
				return -ENOENT;
		}
		ret = bt_name(btf, elem, sb, depth + 1);
		for (a = t; ret >= 0 && btf_is_array(a);
		     a = btf__type_by_id(btf, bt_strip_mods(btf, btf_array(a)->type))) {
			if (btf_array(a)->nelems)
				ret = strbuf_addf(sb, "[%u]", btf_array(a)->nelems);
			else
				ret = strbuf_addstr(sb, "[]");
		}
		return ret;
	}
	default:
		/* int, float, typedef */
		if (!*name)
			return -ENOENT;
		return strbuf_addstr(sb, name);
	}
}

/*
 * The accessors of struct dprof_type_ops over BTF type ids; the walks on top
 * of them are in types.c.
 */
static int bt_type_name(const struct dprof_type *t, struct strbuf *sb)
{
	int ret;

	if (!t->btf || !btf__type_by_id(t->btf, t->id))
		return -ENOENT;
	ret = bt_name(t->btf, t->id, sb, 0);
	return ret < 0 ? ret : 0;
}

static int bt_type_size(const struct dprof_type *t, u64 *size)
{
	__s64 sz;

	if (!t->btf || !t->id)
		return -ENOENT;
	sz = btf__resolve_size(t->btf, t->id);
	if (sz < 0)
		return -ENOENT;
	*size = sz;
	return 0;
}

static int bt_type_resolve(const struct dprof_type *t, struct dprof_type *real)
{
	const struct btf_type *bt;
	int rid = btf__resolve_type(t->btf, t->id);

	if (rid <= 0)
		return -ENOENT;	/* void, or broken */
	bt_type(t->btf, rid, real);
	bt = btf__type_by_id(t->btf, rid);
	if (btf_is_struct(bt))
		return DPROF_TYPE_KIND_STRUCT;
	if (btf_is_union(bt))
		return DPROF_TYPE_KIND_UNION;
	if (btf_is_array(bt))
		return DPROF_TYPE_KIND_ARRAY;
	return DPROF_TYPE_KIND_OTHER;
}

static int bt_type_members(const struct dprof_type *t, dprof_member_cb cb,
			   void *arg)
{
	const struct btf_type *bt = btf__type_by_id(t->btf, t->id);
	const struct btf_member *bm = btf_members(bt);
	struct dprof_member m;
	__u32 i, bitoff, bits;
	__s64 sz;
	int ret;

	for (i = 0; i < btf_vlen(bt); i++, bm++) {
		bitoff = btf_member_bit_offset(bt, i);
		bits = btf_member_bitfield_size(bt, i);
		m.name = btf__name_by_offset(t->btf, bm->name_off);
		m.bitfield = bits != 0;
		m.start = bitoff / 8;
		if (m.bitfield) {
			m.end = (bitoff + bits + 7) / 8;
		} else {
			sz = btf__resolve_size(t->btf, bm->type);
			/* flexible array, empty struct */
			m.end = m.start + (sz > 0 ? sz : 0);
		}
		bt_type(t->btf, bm->type, &m.type);
		ret = cb(&m, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* multidimensional arrays are arrays of arrays: one dimension per level */
static int bt_type_array(const struct dprof_type *t, struct dprof_type *elem,
			 u64 *dims, int max_dims)
{
	const struct btf_type *bt = btf__type_by_id(t->btf, t->id);
	int nr = 0, rid;

	while (nr < max_dims) {
		dims[nr++] = btf_array(bt)->nelems;
		bt_type(t->btf, btf_array(bt)->type, elem);
		rid = btf__resolve_type(t->btf, elem->id);
		if (rid <= 0 || !btf_is_array(btf__type_by_id(t->btf, rid)))
			break;
		bt = btf__type_by_id(t->btf, rid);
	}
	return nr;
}

const struct dprof_type_ops dprof_btf_type_ops = {
	.resolve	= bt_type_resolve,
	.size		= bt_type_size,
	.name		= bt_type_name,
	.members	= bt_type_members,
	.array		= bt_type_array,
};
