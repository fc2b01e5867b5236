// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: data-type knowledge from DWARF.
 *
 * The index is built in one pass over the top-level DIEs of every unit
 * (C has no namespaces, so nothing else declares a global name):
 *
 *  - types: name -> the chain of top-level struct/union/class/typedef DIEs
 *    with that name, in .debug_info order.  Nothing but the name is read
 *    during the pass: a vmlinux has ~450k such DIEs (a header's struct is
 *    defined again in every CU that includes it), and sizing them all cost
 *    more than the rest of a report.  A name is resolved the first time it
 *    is looked up, into a list of (DIE offset, byte size, count), one
 *    element per distinct size: struct/union definitions with
 *    DW_AT_byte_size and typedefs that end in such a definition.  All
 *    copies of a definition share one element, whose DIE is the first copy
 *    and whose count says in how many CUs it was seen.  Different structs
 *    with the same name (the kernel has a few, e.g. "struct ops") get one
 *    element per size; find_struct() picks the most common one (ties: the
 *    larger), cache_type() picks among those that fit.
 *  - vars: name -> first definition of a variable with that name.  Static
 *    variables of the same name in other CUs are not kept: use
 *    dprof_dwarf__var_type_at() with the ELF symbol's address to get the
 *    exact one.  Function-local statics ("foo.0") are not indexed.
 *  - var_addrs: DW_OP_addr address -> variable definition.
 *
 * Keys are the names' own bytes in .debug_str/.debug_info, valid as long as
 * the Dwarf handle is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/debug.h"
#include "util/debuginfo.h"
#include "util/dwarf-aux.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "cachenames.h"
#include "dwtypes.h"

/* one definition (per distinct size) of a type name */
struct dw_type_ent {
	struct dw_type_ent	*next;
	Dwarf_Off		off;	/* first DIE seen with this name and size */
	u64			size;
	u32			count;	/* number of DIEs seen with it */
};

/* a DIE in the chain of its name; next is an index in dprof_dwarf.dies */
struct dw_die_link {
	Dwarf_Off		off;
	u32			next;
};

#define DW_CHAIN_END	((u32)-1)

/* the type DIEs of one name: a chain until looked up, then its definitions */
struct dw_type_name {
	u32			first, last;	/* chain in dprof_dwarf.dies */
	bool			resolved;
	struct dw_type_ent	*ents;		/* once resolved; NULL: none */
};

struct dprof_dwarf {
	struct debuginfo	*dinfo;
	Dwarf			*dbg;
	struct hashmap		*types;		/* name -> struct dw_type_name * */
	struct dw_die_link	*dies;		/* the chains of all type names */
	u32			nr_dies;
	u32			alloc_dies;
	struct hashmap		*vars;		/* name -> Dwarf_Off */
	struct hashmap		*var_addrs;	/* address -> Dwarf_Off */
	unsigned int		nr_types;
	unsigned int		nr_vars;
	int			index_err;	/* 1: not built yet */
	char			*path;
};

/* more nesting than this is a loop in broken DWARF */
#define DW_MAX_DEPTH	64
#define DW_MAX_DIMS	8

static size_t dw_str_hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

static bool dw_str_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return !strcmp((const char *)key1, (const char *)key2);
}

static size_t dw_addr_hash(long key, void *ctx __maybe_unused)
{
	return (size_t)key * 0x9E3779B97F4A7C15ULL >> 16;
}

static bool dw_addr_equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

static bool dw_is_qualifier(int tag)
{
	return tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type ||
	       tag == DW_TAG_shared_type;
}

/*
 * Skip qualifiers (and typedefs when @typedefs) of the type DIE @die itself;
 * dwarf-aux's die_get_real_type() starts from a variable's DW_AT_type
 * instead.  @die and @mem may be the same.
 */
static Dwarf_Die *dw_strip(Dwarf_Die *die, Dwarf_Die *mem, bool typedefs)
{
	int depth = 0;

	if (die != mem)
		*mem = *die;
	while (depth++ < DW_MAX_DEPTH) {
		int tag = dwarf_tag(mem);

		if (!dw_is_qualifier(tag) && !(typedefs && tag == DW_TAG_typedef))
			return mem;
		if (!die_get_type(mem, mem))
			return NULL;	/* const void */
	}
	return NULL;
}

static bool dw_is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

static bool dw_is_decl(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	bool flag;

	return dwarf_attr(die, DW_AT_declaration, &attr) &&
	       !dwarf_formflag(&attr, &flag) && flag;
}

/* byte size of a struct/union definition reached from @die, or 0 */
static u64 dw_aggregate_def_size(Dwarf_Die *die)
{
	Dwarf_Die mem, *type = dw_strip(die, &mem, true);
	Dwarf_Word size;

	if (!type || !dw_is_aggregate(dwarf_tag(type)) || dw_is_decl(type))
		return 0;
	if (dwarf_aggregate_size(type, &size))
		return 0;
	return size;
}

/* add a definition of @size to a resolved name: count it or start a new element */
static int dw_add_type(struct dw_type_name *tn, Dwarf_Off off, u64 size)
{
	struct dw_type_ent *ent;

	for (ent = tn->ents; ent; ent = ent->next) {
		if (ent->size == size) {
			ent->count++;
			return 0;
		}
	}
	ent = zalloc(sizeof(*ent));
	if (!ent)
		return -ENOMEM;
	ent->off = off;
	ent->size = size;
	ent->count = 1;
	if (tn->ents) {
		/* keep the first element first, add behind it */
		ent->next = tn->ents->next;
		tn->ents->next = ent;
	} else {
		tn->ents = ent;
	}
	return 0;
}

/* remember a named top-level type DIE; it is only looked at when its name is */
static int dw_chain_type(struct dprof_dwarf *dw, const char *name, Dwarf_Off off)
{
	struct dw_type_name *tn;
	u32 idx = dw->nr_dies;

	if (dw->nr_dies == dw->alloc_dies) {
		u32 alloc = dw->alloc_dies ? dw->alloc_dies * 2 : 65536;
		struct dw_die_link *dies = realloc(dw->dies, alloc * sizeof(*dies));

		if (!dies)
			return -ENOMEM;
		dw->dies = dies;
		dw->alloc_dies = alloc;
	}
	dw->dies[idx].off = off;
	dw->dies[idx].next = DW_CHAIN_END;
	dw->nr_dies++;

	if (hashmap__find(dw->types, name, &tn)) {
		dw->dies[tn->last].next = idx;
		tn->last = idx;
		return 0;
	}
	tn = zalloc(sizeof(*tn));
	if (!tn)
		return -ENOMEM;
	tn->first = tn->last = idx;
	dw->nr_types++;
	return hashmap__add(dw->types, name, tn);
}

/* size the DIEs of a name's chain, in the order the pass met them */
static void dw_resolve_type(struct dprof_dwarf *dw, struct dw_type_name *tn)
{
	u32 i;

	tn->resolved = true;
	for (i = tn->first; i != DW_CHAIN_END; i = dw->dies[i].next) {
		Dwarf_Die die;
		u64 size;

		if (!dwarf_offdie(dw->dbg, dw->dies[i].off, &die))
			continue;
		size = dw_aggregate_def_size(&die);
		if (size && dw_add_type(tn, dw->dies[i].off, size))
			break;	/* no memory: what was found so far */
	}
}

/* address of a variable whose location is a single DW_OP_addr */
static bool dw_var_addr(Dwarf_Die *var, u64 *addr)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(var, DW_AT_location, &attr) ||
	    dwarf_getlocation(&attr, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_addr)
		return false;
	*addr = ops[0].number;
	return true;
}

static int dw_add_var(struct dprof_dwarf *dw, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;
	Dwarf_Off off = dwarf_dieoffset(die);
	u64 addr;

	/* definitions only; a definition may name its declaration */
	if (dw_is_decl(die) || !dwarf_attr(die, DW_AT_location, &attr))
		return 0;
	if (!dwarf_attr_integrate(die, DW_AT_type, &attr))
		return 0;
	if (!dwarf_attr_integrate(die, DW_AT_name, &attr))
		return 0;
	name = dwarf_formstring(&attr);
	if (!name)
		return 0;

	if (dw_var_addr(die, &addr))
		hashmap__add(dw->var_addrs, (long)addr, (long)off);
	/* -EEXIST: an earlier CU's static of the same name wins */
	if (hashmap__add(dw->vars, name, (long)off) == 0)
		dw->nr_vars++;
	return 0;
}

static int dw_index_unit(struct dprof_dwarf *dw, Dwarf_Die *unit)
{
	Dwarf_Die die;
	const char *name;
	int ret = 0;

	if (dwarf_child(unit, &die))
		return 0;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_class_type:
		case DW_TAG_typedef:
			name = dwarf_diename(&die);
			if (name)
				ret = dw_chain_type(dw, name, dwarf_dieoffset(&die));
			break;
		case DW_TAG_variable:
			ret = dw_add_var(dw, &die);
			break;
		default:
			break;
		}
	} while (ret == 0 && dwarf_siblingof(&die, &die) == 0);

	return ret;
}

static int dw_build_index(struct dprof_dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die unit;
	int ret;

	while (dwarf_nextcu(dw->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw->dbg, off + hsize, &unit)) {
			ret = dw_index_unit(dw, &unit);
			if (ret)
				return ret;
		}
		off = next;
	}
	return 0;
}

/**
 * dprof_dwarf__new - open the DWARF of an ELF file
 * @path: vmlinux, a user binary or a separate debuginfo file; distro
 *	  debuginfo for @path is tried first (see debuginfo__new())
 *
 * The name index is built by dprof_dwarf__index(), or by the first lookup:
 * a handle opened only to lend its debuginfo (dprof_dwarf__debuginfo())
 * does not pay for it.
 *
 * Return: the handle, or NULL (with a pr_debug() saying why) when @path has
 * no DWARF or memory ran out.
 */
struct dprof_dwarf *dprof_dwarf__new(const char *path)
{
	struct dprof_dwarf *dw = zalloc(sizeof(*dw));

	if (!dw)
		return NULL;

	dw->index_err = 1;
	dw->path = strdup(path);
	dw->dinfo = debuginfo__new(path);
	if (!dw->path || !dw->dinfo) {
		pr_debug("dprof: no DWARF in %s\n", path);
		dprof_dwarf__delete(dw);
		return NULL;
	}
	dw->dbg = dw->dinfo->dbg;
	return dw;
}

/**
 * dprof_dwarf__index - index the names of a handle's DWARF, once
 * @dw: the handle
 *
 * Return: 0, or -ENOENT (with a pr_debug() saying why) when the DWARF has
 * no types or variables or memory ran out; lookups then find nothing.
 */
int dprof_dwarf__index(struct dprof_dwarf *dw)
{
	const char *path = dw->path;

	if (dw->index_err <= 0)
		return dw->index_err;
	dw->index_err = -ENOENT;

	dw->types = hashmap__new(dw_str_hash, dw_str_equal, NULL);
	dw->vars = hashmap__new(dw_str_hash, dw_str_equal, NULL);
	dw->var_addrs = hashmap__new(dw_addr_hash, dw_addr_equal, NULL);
	if (IS_ERR(dw->types) || IS_ERR(dw->vars) || IS_ERR(dw->var_addrs)) {
		pr_debug("dprof: no memory for the DWARF index of %s\n", path);
		return -ENOENT;
	}

	if (dw_build_index(dw)) {
		pr_debug("dprof: failed to index the DWARF of %s\n", path);
		return -ENOENT;
	}
	if (!dw->nr_types && !dw->nr_vars) {
		pr_debug("dprof: no types or variables in the DWARF of %s\n", path);
		return -ENOENT;
	}
	pr_debug("dprof: %s: indexed %u type names, %u variables\n",
		 path, dw->nr_types, dw->nr_vars);
	dw->index_err = 0;
	return 0;
}

/**
 * dprof_dwarf__debuginfo - the open debuginfo behind a handle
 * @dw: the handle, may be NULL
 *
 * For perf code that wants the same file's DWARF (debuginfo_cache__use()):
 * valid until dprof_dwarf__delete().
 */
struct debuginfo *dprof_dwarf__debuginfo(struct dprof_dwarf *dw)
{
	return dw ? dw->dinfo : NULL;
}

/**
 * dprof_dwarf__delete - free a handle made by dprof_dwarf__new()
 * @dw: the handle, may be NULL
 *
 * DIEs handed out by it become invalid.
 */
void dprof_dwarf__delete(struct dprof_dwarf *dw)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!dw)
		return;
	if (!IS_ERR_OR_NULL(dw->types)) {
		hashmap__for_each_entry(dw->types, cur, bkt) {
			struct dw_type_name *tn = cur->pvalue;
			struct dw_type_ent *ent, *next;

			for (ent = tn->ents; ent; ent = next) {
				next = ent->next;
				free(ent);
			}
			free(tn);
		}
		hashmap__free(dw->types);
	}
	free(dw->dies);
	if (!IS_ERR_OR_NULL(dw->vars))
		hashmap__free(dw->vars);
	if (!IS_ERR_OR_NULL(dw->var_addrs))
		hashmap__free(dw->var_addrs);
	debuginfo__delete(dw->dinfo);
	free(dw->path);
	free(dw);
}

static struct dw_type_ent *dw_lookup(struct dprof_dwarf *dw, const char *name)
{
	struct dw_type_name *tn;

	if (!dw || !name || dprof_dwarf__index(dw) ||
	    !hashmap__find(dw->types, name, &tn))
		return NULL;
	if (!tn->resolved)
		dw_resolve_type(dw, tn);
	return tn->ents;
}

/* the most common definition; ties go to the larger */
static struct dw_type_ent *dw_best(struct dw_type_ent *ent)
{
	struct dw_type_ent *best = ent;

	for (; ent; ent = ent->next) {
		if (ent->count > best->count ||
		    (ent->count == best->count && ent->size > best->size))
			best = ent;
	}
	return best;
}

/**
 * dprof_dwarf__find_struct - find a struct/union definition by name
 * @dw: the DWARF index
 * @name: the struct or union tag ("file"), or a typedef name ("spinlock_t")
 * @die: where to store the DIE found: the struct/union, or the typedef when
 *	 found by a typedef name (dprof_type__*() see through typedefs)
 * @size: where to store its byte size (may be NULL)
 *
 * Declarations are not indexed.  When definitions of different sizes share
 * the name, the one defined in most CUs is chosen (ties: the larger).
 *
 * Return: 0, or -ENOENT.
 */
int dprof_dwarf__find_struct(struct dprof_dwarf *dw, const char *name,
			     Dwarf_Die *die, u64 *size)
{
	struct dw_type_ent *ent = dw_best(dw_lookup(dw, name));

	if (!ent || !dwarf_offdie(dw->dbg, ent->off, die)) {
		pr_debug2("dprof: no struct %s in DWARF\n", name);
		return -ENOENT;
	}
	if (size)
		*size = ent->size;
	return 0;
}

static int dw_var_die_type(struct dprof_dwarf *dw, Dwarf_Off off,
			   Dwarf_Die *type_die)
{
	Dwarf_Attribute attr;
	Dwarf_Die var;

	if (!dwarf_offdie(dw->dbg, off, &var) ||
	    !dwarf_attr_integrate(&var, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, type_die))
		return -ENOENT;
	return 0;
}

/**
 * dprof_dwarf__var_type - type of a global or static variable
 * @dw: the DWARF index
 * @var: the variable's name, as in the ELF symbol table
 * @type_die: where to store its type, as declared (typedefs and qualifiers
 *	      kept: "buf", "const struct foo", "struct foo[4]")
 *
 * Static variables of the same name in several CUs: the first CU's wins;
 * use dprof_dwarf__var_type_at() when the address is known.
 *
 * Return: 0, or -ENOENT.
 */
int dprof_dwarf__var_type(struct dprof_dwarf *dw, const char *var,
			  Dwarf_Die *type_die)
{
	long off;

	if (!dw || !var || dprof_dwarf__index(dw) ||
	    !hashmap__find(dw->vars, var, &off) ||
	    dw_var_die_type(dw, off, type_die)) {
		pr_debug2("dprof: no variable %s in DWARF\n", var ?: "(null)");
		return -ENOENT;
	}
	return 0;
}

/**
 * dprof_dwarf__var_type_at - type of the variable that starts at an address
 * @dw: the DWARF index
 * @addr: the variable's link-time address (its ELF symbol's st_value; for
 *	  kernel per-CPU variables, the offset in the per-CPU section)
 * @type_die: where to store its type, as declared
 *
 * Only variables whose location is a single DW_OP_addr are indexed.
 *
 * Return: 0, or -ENOENT.
 */
int dprof_dwarf__var_type_at(struct dprof_dwarf *dw, u64 addr,
			     Dwarf_Die *type_die)
{
	long off;

	if (!dw || dprof_dwarf__index(dw) ||
	    !hashmap__find(dw->var_addrs, (long)addr, &off) ||
	    dw_var_die_type(dw, off, type_die)) {
		pr_debug2("dprof: no variable at %#" PRIx64 " in DWARF\n", addr);
		return -ENOENT;
	}
	return 0;
}

/* the last member of a struct is an array without a bound: obj->tail[] */
static bool dw_has_flex_tail(Dwarf_Die *type)
{
	Dwarf_Die child, last = {}, mem, *mtype;
	Dwarf_Attribute attr;
	bool found = false;

	if (dwarf_tag(type) != DW_TAG_structure_type || dwarf_child(type, &child))
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_member) {
			last = child;
			found = true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	if (!found || !die_get_type(&last, &mem))
		return false;
	mtype = dw_strip(&mem, &mem, true);
	if (!mtype || dwarf_tag(mtype) != DW_TAG_array_type ||
	    dwarf_child(mtype, &child))
		return false;
	/* first dimension without a count (or with count 0) */
	if (dwarf_attr(&child, DW_AT_count, &attr)) {
		Dwarf_Word n;

		return !dwarf_formudata(&attr, &n) && n == 0;
	}
	return !dwarf_attr(&child, DW_AT_upper_bound, &attr);
}

static bool dw_size_fits(struct dprof_dwarf *dw, struct dw_type_ent *ent,
			 u64 object_size)
{
	Dwarf_Die die, mem, *type;

	if (dprof_cache__size_fits(ent->size, object_size, false))
		return true;
	/* struct with a trailing flexible array: larger objects */
	if (ent->size > object_size || !dwarf_offdie(dw->dbg, ent->off, &die))
		return false;
	type = dw_strip(&die, &mem, true);
	return type && dw_has_flex_tail(type);
}

/* the most common definition of @name that fits @object_size */
static struct dw_type_ent *dw_fit(struct dprof_dwarf *dw, const char *name,
				  u64 object_size, bool any_size)
{
	struct dw_type_ent *ent, *best = NULL;

	for (ent = dw_lookup(dw, name); ent; ent = ent->next) {
		if (!any_size && !dw_size_fits(dw, ent, object_size))
			continue;
		if (!best || ent->count > best->count ||
		    (ent->count == best->count && ent->size > best->size))
			best = ent;
	}
	return best;
}

struct dw_cache_arg {
	struct dprof_dwarf	*dw;
	u64			object_size;
	struct dw_type_ent	*ent;
};

static int dw_cache_cand(const char *name, bool any_size, void *arg)
{
	struct dw_cache_arg *ca = arg;

	ca->ent = dw_fit(ca->dw, name, ca->object_size, any_size);
	return !!ca->ent;
}

/**
 * dprof_dwarf__cache_type - the struct a slab cache holds
 * @dw: the DWARF index (of vmlinux or a module)
 * @cache: the slab cache name ("filp", "task_struct", "ext4_inode_cache")
 * @object_size: the cache's object size, 0 when unknown
 * @die: where to store the struct's DIE (or its typedef's)
 *
 * Tries the struct names dprof_cache__candidates() gives, in its order:
 * an alias table for caches named unlike their struct, the cache name,
 * "<base>_info" for "<fs>_inode_cache", the name without a
 * _cache/_cachep/_slab/_jar suffix ("<base>"), "<base>_struct",
 * "<base>_info", "<name>_struct".  A candidate is accepted when
 * dprof_cache__size_fits(): size <= @object_size <= ALIGN(size, 64), or
 * its last member is a flexible array and size <= @object_size, or
 * @object_size is 0.  kmalloc-* caches hold no single type.
 *
 * Return: 0, or -ENOENT.
 */
int dprof_dwarf__cache_type(struct dprof_dwarf *dw, const char *cache,
			    u64 object_size, Dwarf_Die *die)
{
	struct dw_cache_arg ca = { .dw = dw, .object_size = object_size };

	if (!dw || !cache)
		return -ENOENT;
	dprof_cache__candidates(cache, dw_cache_cand, &ca);
	if (!ca.ent || !dwarf_offdie(dw->dbg, ca.ent->off, die)) {
		pr_debug("dprof: no struct for slab cache %s (object size %" PRIu64 ")\n",
			 cache, object_size);
		return -ENOENT;
	}
	return 0;
}

/**
 * dprof_dwarf__type_id - a stable identity for a type, to key aggregates
 * @dw: the DWARF index the DIE came from (may be NULL: DIE offset only)
 * @type_die: a type DIE from any CU
 *
 * Named structs/unions are defined again in every CU that uses them; all
 * copies with the same name and size get the offset of the one the index
 * keeps, so the same type found through a variable in one CU and through a
 * cache name in another has one id.  Typedefs and qualifiers are seen
 * through ("dprof_t_counter_t" and "struct dprof_t_counter" share an id);
 * an anonymous struct is named by its outermost typedef.  Other types get
 * the offset of their DIE with typedefs and qualifiers stripped.
 *
 * Return: the id (a .debug_info offset), or 0 for no type.
 */
u64 dprof_dwarf__type_id(struct dprof_dwarf *dw, Dwarf_Die *type_die)
{
	const char *tdname = NULL, *name;
	Dwarf_Die mem, *die = &mem;
	struct dw_type_ent *ent;
	int depth = 0;
	u64 size;

	*die = *type_die;
	while (depth++ < DW_MAX_DEPTH && dw_strip(die, die, false) &&
	       dwarf_tag(die) == DW_TAG_typedef) {
		if (!tdname)
			tdname = dwarf_diename(die);
		if (!die_get_type(die, die))
			return 0;
	}
	if (!dw_strip(die, die, false))
		return 0;
	if (dw && dw_is_aggregate(dwarf_tag(die))) {
		name = dwarf_diename(die) ?: tdname;
		size = dw_aggregate_def_size(die);
		for (ent = dw_lookup(dw, name); ent && size; ent = ent->next) {
			if (ent->size == size)
				return ent->off;
		}
	}
	return dwarf_dieoffset(die);
}

/* dimensions of an array type; 0 = no bound given */
static int dw_array_dims(Dwarf_Die *array, u64 *dims)
{
	Dwarf_Die child;
	Dwarf_Attribute attr;
	Dwarf_Word n;
	Dwarf_Sword lo, hi;
	int nr = 0;

	if (dwarf_child(array, &child))
		return 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_subrange_type)
			continue;
		if (nr == DW_MAX_DIMS)
			break;
		dims[nr] = 0;
		if (dwarf_attr(&child, DW_AT_count, &attr)) {
			if (!dwarf_formudata(&attr, &n))
				dims[nr] = n;
		} else if (dwarf_attr(&child, DW_AT_upper_bound, &attr) &&
			   !dwarf_formsdata(&attr, &hi)) {
			lo = 0;
			if (dwarf_attr(&child, DW_AT_lower_bound, &attr))
				dwarf_formsdata(&attr, &lo);
			if (hi >= lo)
				dims[nr] = hi - lo + 1;
		}
		nr++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return nr;
}

/**
 * dprof_type__name - C name of a type
 * @type_die: a type DIE
 * @sb: where to append the name: "struct file", "long int", "buf",
 *	"struct foo[4]", "char[2][3]", "struct task_struct*"; qualifiers are
 *	dropped, typedef names kept
 *
 * Return: 0, or a negative errno.
 */
int dprof_type__name(Dwarf_Die *type_die, struct strbuf *sb)
{
	Dwarf_Die mem, elem, *die = dw_strip(type_die, &mem, false);
	u64 dims[DW_MAX_DIMS];
	int i, nr, ret;

	if (!die)
		return strbuf_addstr(sb, "void");
	if (dwarf_tag(die) != DW_TAG_array_type) {
		ret = die_get_typename_from_type(die, sb);
		if (ret == -ENOENT && dw_is_aggregate(dwarf_tag(die)))
			ret = 0;	/* anonymous: "struct " */
		return ret;
	}
	if (!die_get_type(die, &elem))
		return -ENOENT;
	ret = dprof_type__name(&elem, sb);
	nr = dw_array_dims(die, dims);
	for (i = 0; ret >= 0 && i < nr; i++) {
		if (dims[i])
			ret = strbuf_addf(sb, "[%" PRIu64 "]", dims[i]);
		else
			ret = strbuf_addstr(sb, "[]");
	}
	return ret < 0 ? ret : 0;
}

/**
 * dprof_type__size - byte size of a type (typedefs, qualifiers, arrays seen
 * through)
 * @type_die: a type DIE
 * @size: where to store the size
 *
 * Return: 0, or -ENOENT when the type has no size (void, declarations).
 */
int dprof_type__size(Dwarf_Die *type_die, u64 *size)
{
	Dwarf_Word sz;

	if (dwarf_aggregate_size(type_die, &sz))
		return -ENOENT;
	*size = sz;
	return 0;
}

static void dw_add_name(struct strbuf *sb, const char *name)
{
	if (sb->len)
		strbuf_addch(sb, '.');
	strbuf_addstr(sb, name);
}

/* byte range [*start, *end) of a member; bitfields cover the bytes they touch */
static int dw_member_range(Dwarf_Die *member, u64 *start, u64 *end, bool *bitfield)
{
	Dwarf_Attribute attr;
	Dwarf_Word loc = 0, bits, bitoff;
	Dwarf_Die mem;
	u64 size;

	*bitfield = false;
	if (dwarf_attr(member, DW_AT_bit_size, &attr) &&
	    !dwarf_formudata(&attr, &bits)) {
		*bitfield = true;
		if (dwarf_attr(member, DW_AT_data_bit_offset, &attr) &&
		    !dwarf_formudata(&attr, &bitoff)) {
			*start = bitoff / 8;
			*end = (bitoff + bits + 7) / 8;
			return 0;
		}
		/* DWARF2 style DW_AT_bit_offset: use the storage unit */
		*bitfield = false;
	}
	/* union members have no location */
	if (die_get_data_member_location(member, &loc) == -ENOTSUP)
		return -ENOTSUP;
	if (!die_get_type(member, &mem))
		return -ENOENT;
	if (dprof_type__size(&mem, &size))
		size = 0;	/* flexible array, empty struct */
	*start = loc;
	*end = loc + size;
	return 0;
}

static int dw_member_at(Dwarf_Die *type_die, u64 off, u64 base,
			struct strbuf *sb, u64 *moff, u64 *msize, int depth);

static int dw_array_at(Dwarf_Die *array, u64 off, u64 base,
		       struct strbuf *sb, u64 *moff, u64 *msize, int depth)
{
	u64 dims[DW_MAX_DIMS], stride[DW_MAX_DIMS], esize, idx;
	Dwarf_Die elem;
	int i, nr;

	if (!die_get_type(array, &elem) || dprof_type__size(&elem, &esize) || !esize)
		return 0;	/* leaf */
	nr = dw_array_dims(array, dims);
	if (!nr)
		return 0;
	stride[nr - 1] = esize;
	for (i = nr - 2; i >= 0; i--)
		stride[i] = stride[i + 1] * (dims[i + 1] ?: 1);
	for (i = 0; i < nr; i++) {
		idx = off / stride[i];
		strbuf_addf(sb, "[%" PRIu64 "]", idx);
		off -= idx * stride[i];
		base += idx * stride[i];
	}
	*moff = base;
	*msize = esize;
	return dw_member_at(&elem, off, base, sb, moff, msize, depth + 1);
}

static bool dw_is_array_member(Dwarf_Die *member)
{
	Dwarf_Die mem;

	return die_get_type(member, &mem) && dw_strip(&mem, &mem, true) &&
	       dwarf_tag(&mem) == DW_TAG_array_type;
}

static int dw_struct_at(Dwarf_Die *type, u64 off, u64 base, u64 type_size,
			struct strbuf *sb, u64 *moff, u64 *msize, int depth)
{
	Dwarf_Die child, found = {}, flex = {}, mtype;
	u64 start, end, fstart = 0, fend = 0, flex_start = 0;
	u64 hole_start = 0, hole_end = type_size;
	bool bitfield, fbitfield = false, have = false, have_flex = false;
	const char *name;

	if (dwarf_child(type, &child))
		goto hole;
	do {
		int tag = dwarf_tag(&child);

		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		if (dw_member_range(&child, &start, &end, &bitfield))
			continue;
		if (end == start) {
			/*
			 * Zero-size: a flexible array if it is the last member,
			 * else a marker (the kernel's __cacheline_group_begin)
			 */
			have_flex = dw_is_array_member(&child);
			flex = child;
			flex_start = start;
			continue;
		}
		have_flex = false;
		if (start <= off && off < end) {
			/* unions: the first member covering @off wins */
			if (!have) {
				found = child;
				fstart = start;
				fend = end;
				fbitfield = bitfield;
				have = true;
			}
		} else if (end <= off) {
			hole_start = max(hole_start, end);
		} else if (start > off) {
			hole_end = min(hole_end, start);
		}
	} while (dwarf_siblingof(&child, &child) == 0);

	if (!have && have_flex && off >= flex_start) {
		/* objects larger than the type: obj->tail[i] */
		found = flex;
		fstart = flex_start;
		fend = flex_start;
		have = true;
	}
	if (!have)
		goto hole;

	name = dwarf_diename(&found);
	if (name)
		dw_add_name(sb, name);
	*moff = base + fstart;
	*msize = fend - fstart;
	if (fbitfield || !die_get_type(&found, &mtype))
		return 0;
	return dw_member_at(&mtype, off - fstart, base + fstart, sb, moff, msize,
			    depth + 1);
hole:
	/* padding: the hole itself is the member */
	dw_add_name(sb, "<hole>");
	*moff = base + hole_start;
	*msize = hole_end > hole_start ? hole_end - hole_start : 0;
	return 0;
}

static int dw_member_at(Dwarf_Die *type_die, u64 off, u64 base,
			struct strbuf *sb, u64 *moff, u64 *msize, int depth)
{
	Dwarf_Die mem, *type;
	u64 size = 0;

	if (depth > DW_MAX_DEPTH)
		return 0;
	type = dw_strip(type_die, &mem, true);
	if (!type)
		return 0;

	switch (dwarf_tag(type)) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		if (dprof_type__size(type, &size))
			return 0;
		return dw_struct_at(type, off, base, size, sb, moff, msize, depth);
	case DW_TAG_array_type:
		return dw_array_at(type, off, base, sb, moff, msize, depth);
	default:
		/* scalar, pointer, enum: the leaf */
		return 0;
	}
}

/**
 * dprof_type__member_at - member path at a byte offset in a type
 * @type_die: a type DIE (typedefs and qualifiers are seen through)
 * @offset: byte offset from the start of an object of that type
 * @sb: where to append the path
 * @moff: where to store the start of the innermost member found (may be NULL)
 * @msize: where to store its size (may be NULL)
 *
 * The path is C-like: "f_path.dentry", "counter.refs", "reserved[9]",
 * "slots[2].key", and "[3].x" when @type_die is itself an array.  Members
 * of anonymous structs/unions add no component.  In a union the first
 * member covering @offset is taken.  A bitfield's path ends at the bitfield
 * and covers the bytes it touches.  Scalars and pointers are leaves: @offset
 * may point inside one (byte 3 of a long: @moff says where it starts).
 *
 * Padding is reported as a member of its own: "<hole>" (or "a.<hole>"
 * inside member a), with @moff/@msize describing the whole gap, so accesses
 * to padding show up rather than being blamed on a neighbour.
 *
 * A flexible array at the end of a struct takes any offset past the struct
 * ("data[12]").  Otherwise an offset at or beyond the type's size gives
 * -ENOENT and leaves @sb alone: the caller labels it ("+0x40").
 *
 * Return: 0, or -ENOENT when @offset is out of range or the type has no
 * size.
 */
int dprof_type__member_at(Dwarf_Die *type_die, u64 offset, struct strbuf *sb,
			  u64 *moff, u64 *msize)
{
	Dwarf_Die mem, *type = dw_strip(type_die, &mem, true);
	u64 size, dummy_off, dummy_size;

	if (!moff)
		moff = &dummy_off;
	if (!msize)
		msize = &dummy_size;

	if (!type || dprof_type__size(type, &size)) {
		pr_debug("dprof: type without a size\n");
		return -ENOENT;
	}
	if (offset >= size && !dw_has_flex_tail(type))
		return -ENOENT;
	*moff = 0;
	*msize = size;
	return dw_member_at(type, offset, 0, sb, moff, msize, 0);
}
