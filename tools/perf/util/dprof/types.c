// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: a data type from DWARF or BTF, and the lookups that try
 * DWARF first (it also knows user-space types, static variables and the
 * exact vmlinux of the recording) and fall back to the kernel's BTF.
 */
#include <errno.h>
#include <linux/compiler.h>

#include "btftypes.h"
#include "dwtypes.h"
#include "types.h"

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
int dprof_types__cache_type(struct dprof_dwarf *dw __maybe_unused,
			    struct dprof_btf *db, const char *cache,
			    u64 object_size, struct dprof_type *t)
{
	t->src = DPROF_TYPE_NONE;
#ifdef HAVE_DWARF_SUPPORT
	if (dw && !dprof_dwarf__cache_type(dw, cache, object_size, &t->die)) {
		t->src = DPROF_TYPE_DWARF;
		return 0;
	}
#endif
	if (db && !dprof_btf__cache_type(db, cache, object_size, &t->id)) {
		t->btf = dprof_btf__btf(db);
		t->src = DPROF_TYPE_BTF;
		return 0;
	}
	return -ENOENT;
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
int dprof_types__find_struct(struct dprof_dwarf *dw __maybe_unused,
			     struct dprof_btf *db, const char *name,
			     struct dprof_type *t)
{
	t->src = DPROF_TYPE_NONE;
#ifdef HAVE_DWARF_SUPPORT
	if (dw && !dprof_dwarf__find_struct(dw, name, &t->die, NULL)) {
		t->src = DPROF_TYPE_DWARF;
		return 0;
	}
#endif
	if (db && !dprof_btf__find_struct(db, name, &t->id, NULL)) {
		t->btf = dprof_btf__btf(db);
		t->src = DPROF_TYPE_BTF;
		return 0;
	}
	return -ENOENT;
}

/**
 * dprof_type__name_str - C name of a type ("struct file")
 * @t: the type
 * @sb: where to append the name; see dprof_type__name()
 *
 * Return: 0, or a negative errno.
 */
int dprof_type__name_str(const struct dprof_type *t, struct strbuf *sb)
{
#ifdef HAVE_DWARF_SUPPORT
	if (t->src == DPROF_TYPE_DWARF) {
		Dwarf_Die die = t->die;

		return dprof_type__name(&die, sb);
	}
#endif
	if (t->src == DPROF_TYPE_BTF)
		return dprof_btf_type__name(t->btf, t->id, sb);
	return -ENOENT;
}

/**
 * dprof_type__sizeof - byte size of a type
 * @t: the type
 * @size: where to store the size
 *
 * Return: 0, or -ENOENT.
 */
int dprof_type__sizeof(const struct dprof_type *t, u64 *size)
{
#ifdef HAVE_DWARF_SUPPORT
	if (t->src == DPROF_TYPE_DWARF) {
		Dwarf_Die die = t->die;

		return dprof_type__size(&die, size);
	}
#endif
	if (t->src == DPROF_TYPE_BTF)
		return dprof_btf_type__size(t->btf, t->id, size);
	return -ENOENT;
}

/**
 * dprof_type__member_range - member path at a byte offset, and its extent
 * @t: the type
 * @off: byte offset from the start of an object of that type
 * @sb: where to append the path ("f_path.dentry", "slots[2].key", "<hole>")
 * @moff: where to store the start of the innermost member (may be NULL)
 * @msize: where to store its size (may be NULL)
 *
 * The same conventions whether @t came from DWARF or BTF; see
 * dprof_type__member_at().
 *
 * Return: 0, or -ENOENT when @off is past the end (@sb is left alone).
 */
int dprof_type__member_range(const struct dprof_type *t, u64 off,
			     struct strbuf *sb, u64 *moff, u64 *msize)
{
#ifdef HAVE_DWARF_SUPPORT
	if (t->src == DPROF_TYPE_DWARF) {
		Dwarf_Die die = t->die;

		return dprof_type__member_at(&die, off, sb, moff, msize);
	}
#endif
	if (t->src == DPROF_TYPE_BTF)
		return dprof_btf_type__member_at(t->btf, t->id, off, sb, moff, msize);
	return -ENOENT;
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
