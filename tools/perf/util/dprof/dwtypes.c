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
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "util/annotate-data.h"
#include "util/build-id.h"
#include "util/debug.h"
#include "util/debuginfo.h"
#include "util/dwarf-aux.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/map.h"
#include "util/map_symbol.h"
#include "util/strbuf.h"
#include "util/symbol.h"
#include "cachenames.h"
#include "dwtypes.h"
#include "layouts.h"
#include "hashfn.h"
#include "typecache.h"
#include "types.h"

/* one definition (per distinct size) of a type name */
struct dw_type_ent {
	struct dw_type_ent	*next;
	Dwarf_Off		off;	/* first DIE seen with this name and size */
	u64			size;
	u32			count;	/* number of DIEs seen with it */
};

/*
 * A DIE in the chain of its name; next is an index in dprof_dwarf.dies.
 * A header's struct is defined again in every unit that includes it, one
 * after the other in the walk: a run of DIEs of the same name and size
 * is one link, the first DIE's, counted @count times.
 */
struct dw_die_link {
	Dwarf_Off		off;
	u32			next;
	u32			size;	/* as dw_aggregate_def_size(); DW_SIZE_LATER */
	u32			count;
};

struct dw_memo;

/* a typedef (or a huge struct): sized when its name is looked up */
#define DW_SIZE_LATER	((u32)-1)

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
	struct hashmap		*type_strs;	/* its address -> the same, while indexing */
	struct dw_die_link	*dies;		/* the chains of all type names */
	u32			nr_dies;
	u32			alloc_dies;
	struct hashmap		*vars;		/* name -> Dwarf_Off */
	struct hashmap		*var_addrs;	/* address -> Dwarf_Off */
	unsigned int		nr_types;
	unsigned int		nr_vars;
	int			index_err;	/* 1: not built yet */
	/*
	 * The pages of the file's mapping that can be given back (none
	 * when one was written to: a relocated ET_REL), found when first
	 * asked: reading smaps costs ~1 ms; only the opening relocates.
	 */
	struct dprof_dwarf_pages pages;
	bool			pages_done;
	char			*path;
	/* while indexing: collect perf's global variables with it */
	struct data_loc_info	*vars_dloc;
	/*
	 * An index built ahead (dprof_dwarf__index_start()): the thread
	 * walking, and the variables it collected for perf, a list per CU
	 * in CU order, until a typing of the file hands them over.
	 */
	pthread_t		walker;
	bool			walking;
	bool			keep_vars;
	bool			vars_lost;	/* no memory to keep a CU's */
	int			walk_err;
	struct die_var_type	**unit_vars;
	u32			nr_unit_vars;
	u32			alloc_unit_vars;
	/*
	 * The walker's Dwarf handle, and the one a thread that waits for
	 * the walk helps with (NULL: it cannot); the walker claims each
	 * unit under walk_lock, and stops at walk_end, which the helping
	 * thread lowers to take the units from there (dw_help_walk()).
	 */
	Dwarf			*walk_dbg;
	Dwarf			*help_dbg;
	pthread_mutex_t		walk_lock;
	Dwarf_Off		walk_next;	/* the first unit not claimed */
	Dwarf_Off		walk_end;
	u32			nr_helped;	/* units the helping thread indexed */
	/* the lookups of earlier reports (NULL: none kept), and where */
	struct dw_memo		*memo;
	struct dprof_typecache	*memo_tc;
	bool			units_read;	/* dw_read_units() done */
	/*
	 * The layouts of the types earlier reports handed out (NULL: none
	 * kept), and the DIEs this one handed out (offset -> true for a
	 * variable's), whose layouts are kept at the end.  A handle whose
	 * lookups and layouts were both kept opens its DWARF only when one
	 * is not there: @dinfo is NULL until then, @open_err 1.
	 */
	struct dprof_layouts	*layouts;
	struct hashmap		*handed;
	struct build_id		bid;
	int			open_err;
	bool			layouts_kept;	/* read from an earlier report's file */
	bool			lazy;		/* not opened at its making */
};

/* walk_end of a walk that no thread helps (yet) */
#define DW_WALK_ALL	((Dwarf_Off)-1)

/* more nesting than this is a loop in broken DWARF */
#define DW_MAX_DEPTH	64

/*
 * A type DIE of the alternate file (dwz's common DWARF of several files,
 * a distribution's /usr/lib/debug/.dwz/), by its offset there with this
 * bit set: its partial units hold the types the files share.
 */
#define DW_OFF_ALT	(1ULL << 63)

/* the DIE of an index offset (DW_OFF_ALT: the alternate file's) */
static int dw_open(struct dprof_dwarf *dw);

static Dwarf_Die *dw_offdie(struct dprof_dwarf *dw, Dwarf_Off off, Dwarf_Die *die)
{
	Dwarf *dbg;

	if (dw_open(dw))
		return NULL;
	dbg = dw->dbg;

	if (off & DW_OFF_ALT) {
		dbg = dwarf_getalt(dw->dbg);
		off &= ~DW_OFF_ALT;
	}
	return dbg ? dwarf_offdie(dbg, off, die) : NULL;
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

/* add @count definitions of @size to a resolved name: count them or start a new element */
static int dw_add_type(struct dw_type_name *tn, Dwarf_Off off, u64 size, u32 count)
{
	struct dw_type_ent *ent;

	for (ent = tn->ents; ent; ent = ent->next) {
		if (ent->size == size) {
			ent->count += count;
			return 0;
		}
	}
	ent = zalloc(sizeof(*ent));
	if (!ent)
		return -ENOMEM;
	ent->off = off;
	ent->size = size;
	ent->count = count;
	if (tn->ents) {
		/* keep the first element first, add behind it */
		ent->next = tn->ents->next;
		tn->ents->next = ent;
	} else {
		tn->ents = ent;
	}
	return 0;
}

/*
 * Remember a named top-level type DIE; it is only looked at when its name
 * is.  @strs: the string's address names it too (see dw_chain_type_die()).
 */
static int dw_chain_type(struct dprof_dwarf *dw, const char *name, Dwarf_Off off,
			 u32 size, bool strs)
{
	struct dw_type_name *tn = NULL;
	bool by_str = false;
	u32 idx;

	if (strs && hashmap__find(dw->type_strs, name, &tn))
		by_str = true;
	else if (!hashmap__find(dw->types, name, &tn))
		tn = NULL;

	if (tn && size != DW_SIZE_LATER && dw->dies[tn->last].size == size) {
		/* the same as the DIE of this name before: one more of its run */
		dw->dies[tn->last].count++;
		goto out;
	}

	if (dw->nr_dies == dw->alloc_dies) {
		u32 alloc = dw->alloc_dies ? dw->alloc_dies * 2 : 1024;
		struct dw_die_link *dies = realloc(dw->dies, alloc * sizeof(*dies));

		if (!dies)
			return -ENOMEM;
		dw->dies = dies;
		dw->alloc_dies = alloc;
	}
	idx = dw->nr_dies++;
	dw->dies[idx].off = off;
	dw->dies[idx].next = DW_CHAIN_END;
	dw->dies[idx].size = size;
	dw->dies[idx].count = 1;

	if (tn) {
		dw->dies[tn->last].next = idx;
		tn->last = idx;
	} else {
		tn = zalloc(sizeof(*tn));
		if (!tn)
			return -ENOMEM;
		tn->first = idx;
		tn->last = idx;
		dw->nr_types++;
		if (hashmap__add(dw->types, name, tn)) {
			free(tn);
			return -ENOMEM;
		}
	}
out:
	/* the first DIE with a name at this address: later ones find it so */
	return strs && !by_str ? hashmap__add(dw->type_strs, name, tn) : 0;
}

/*
 * A type DIE's name is usually a reference into a string section, which
 * the linker merged: every DIE of that name in every CU points at the
 * same bytes.  Look such a name up by its address first, which saves
 * hashing and comparing the string ~450k times on a vmlinux; a name held
 * in the DIE itself (DW_FORM_string) is unique to it and goes by its
 * string only.
 */
static int dw_chain_type_die(struct dprof_dwarf *dw, Dwarf_Die *die, u32 size,
			     Dwarf_Off alt)
{
	Dwarf_Off off = dwarf_dieoffset(die) | alt;
	Dwarf_Attribute attr;
	const char *name;

	if (dwarf_attr(die, DW_AT_name, &attr) && attr.form != DW_FORM_string) {
		name = dwarf_formstring(&attr);
		return name ? dw_chain_type(dw, name, off, size, true) : 0;
	}
	name = dwarf_diename(die);
	return name ? dw_chain_type(dw, name, off, size, false) : 0;
}

/*
 * dw_aggregate_def_size() of a struct/union DIE, read while the walk is
 * on its page: sizing the copies of a name later would touch a page of
 * .debug_info per CU that defines it, most of the section for a few
 * hundred kernel structs.
 */
static u32 dw_walk_size(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word size;

	if (dw_is_decl(die) ||
	    !dwarf_attr_integrate(die, DW_AT_byte_size, &attr) ||
	    dwarf_formudata(&attr, &size))
		return 0;
	return size < DW_SIZE_LATER ? size : DW_SIZE_LATER;
}

/*
 * The same for a typedef: where its chain ends is in the same unit, most
 * often on a page the walk has just read ("typedef struct { } atomic_t"
 * is defined again in every unit that includes it).
 */
static u32 dw_walk_typedef_size(Dwarf_Die *die)
{
	u64 size = dw_aggregate_def_size(die);

	return size < DW_SIZE_LATER ? size : DW_SIZE_LATER;
}

/* size the DIEs of a name's chain, in the order the pass met them */
static void dw_resolve_type(struct dprof_dwarf *dw, struct dw_type_name *tn)
{
	u32 i;

	tn->resolved = true;
	for (i = tn->first; i != DW_CHAIN_END; i = dw->dies[i].next) {
		u64 size = dw->dies[i].size;
		Dwarf_Die die;

		if (size == DW_SIZE_LATER) {
			if (!dw_offdie(dw, dw->dies[i].off, &die))
				continue;
			size = dw_aggregate_def_size(&die);
		}
		if (size && dw_add_type(tn, dw->dies[i].off, size, dw->dies[i].count))
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

static void dw_free_vars(struct die_var_type *vars)
{
	struct die_var_type *next;

	for (; vars; vars = next) {
		next = vars->next;
		free(vars);
	}
}

/* Keep a CU's variables for perf (see dprof_dwarf__index_start()). */
static void dw_keep_unit_vars(struct dprof_dwarf *dw, struct die_var_type *vars)
{
	if (!vars)
		return;
	if (dw->nr_unit_vars == dw->alloc_unit_vars) {
		u32 alloc = dw->alloc_unit_vars ? 2 * dw->alloc_unit_vars : 256;
		struct die_var_type **units;

		units = realloc(dw->unit_vars, alloc * sizeof(*units));
		if (!units) {
			dw_free_vars(vars);
			dw->vars_lost = true;
			return;
		}
		dw->unit_vars = units;
		dw->alloc_unit_vars = alloc;
	}
	dw->unit_vars[dw->nr_unit_vars++] = vars;
}

/*
 * Hand the variables kept to perf, a CU at a time in CU order, as its own
 * walk would find them; when some could not be kept, hand none: perf then
 * walks for them itself.  Returns whether they were handed.
 */
static bool dw_hand_vars(struct dprof_dwarf *dw, struct data_loc_info *dloc)
{
	bool handed = dloc && !dw->vars_lost;
	u32 i;

	for (i = 0; i < dw->nr_unit_vars; i++) {
		if (handed)
			global_var_type__add_vars(dloc, dw->unit_vars[i]);
		else
			dw_free_vars(dw->unit_vars[i]);
	}
	zfree(&dw->unit_vars);
	dw->nr_unit_vars = 0;
	dw->alloc_unit_vars = 0;
	dw->keep_vars = false;
	return handed;
}

/*
 * Every CU's variables were handed to perf: what its first lookup would
 * have collected.  Say so, as that lookup does, or perf walks the CUs
 * again whenever none of them was kept (a shared library's variables are
 * at link-time addresses that no map of the process covers).
 */
static void dw_vars_handed(struct data_loc_info *dloc)
{
	dso__set_global_vars_collected(map__dso(dloc->ms->map));
}

/*
 * C has one scope for type names: its units' types are all top-level
 * DIEs.  Other languages nest them: C++ in namespaces and in classes
 * (leveldb::Block::Iter), Rust in modules.
 */
static bool dw_unit_nests_types(Dwarf_Die *unit)
{
	switch (dwarf_srclang(unit)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
		return false;
	default:
		return true;
	}
}

/* the types and variables of one unit, and where to put perf's variables */
struct dw_unit_walk {
	struct dprof_dwarf	*dw;
	Dwarf			*dbg;
	struct die_var_type	*vars;
	bool			vars_err;
	bool			nested;		/* dw_unit_nests_types() */
	Dwarf_Off		alt;		/* DW_OFF_ALT: the alternate file's */
};

/*
 * The children of @scope: a unit's, a namespace's, or (in a unit whose
 * language nests them) a struct's or class's, whose nested types are
 * named by their own name, as perf's typing names them ("Iter").  A
 * class defined outside its enclosing class or namespace is a DIE there
 * whose DW_AT_specification gives its name (dw_chain_type_die()).
 */
static int dw_index_scope(struct dw_unit_walk *w, Dwarf_Die *scope, int depth)
{
	struct dprof_dwarf *dw = w->dw;
	Dwarf_Die die;
	int tag, ret = 0;

	if (depth > DW_MAX_DEPTH || dwarf_child(scope, &die))
		return 0;
	do {
		switch ((tag = dwarf_tag(&die))) {
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_class_type:
			ret = dw_chain_type_die(dw, &die, dw_walk_size(&die), w->alt);
			if (!ret && w->nested && tag != DW_TAG_union_type)
				ret = dw_index_scope(w, &die, depth + 1);
			break;
		case DW_TAG_namespace:
			ret = dw_index_scope(w, &die, depth + 1);
			break;
		case DW_TAG_typedef:
			ret = dw_chain_type_die(dw, &die, dw_walk_typedef_size(&die),
						w->alt);
			break;
		case DW_TAG_variable:
			/* the variables are the files' own */
			if (w->alt)
				break;
			/* perf's walk stops collecting a CU when out of memory */
			if ((dw->vars_dloc || dw->keep_vars) && !w->vars_err && !depth) {
				struct die_var_type *head = w->vars;

				w->vars_err = die_collect_global_var(&die, &w->vars) != 0;
				/* not on the thread that hands them over */
				if (w->vars != head)
					die_var_type__size(w->dbg, w->vars);
			}
			ret = dw_add_var(dw, &die);
			break;
		default:
			break;
		}
	} while (ret == 0 && dwarf_siblingof(&die, &die) == 0);
	return ret;
}

/*
 * The types of the alternate file's partial units, which the files'
 * units import (DW_TAG_imported_unit): a class defined in a header that
 * several files of a package include is there, not in theirs.
 */
static int dw_index_alt(struct dprof_dwarf *dw)
{
	Dwarf *alt = dwarf_getalt(dw->dbg);
	struct dw_unit_walk w = { .dw = dw, .dbg = alt, .alt = DW_OFF_ALT };
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die unit;
	u32 nr = 0;
	int ret = 0;

	if (!alt)
		return 0;
	while (!ret && dwarf_nextcu(alt, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(alt, off + hsize, &unit)) {
			w.nested = dw_unit_nests_types(&unit);
			ret = dw_index_scope(&w, &unit, 0);
			nr++;
		}
		off = next;
	}
	pr_debug("dprof: %s: %u units of its alternate file indexed\n", dw->path, nr);
	return ret;
}

/* @unit of @dbg: the walk's handle, with which the variables are sized */
static int dw_index_unit(struct dprof_dwarf *dw, Dwarf *dbg, Dwarf_Die *unit)
{
	struct dw_unit_walk w = {
		.dw	= dw,
		.dbg	= dbg,
		.nested	= dw_unit_nests_types(unit),
	};
	int ret = dw_index_scope(&w, unit, 0);

	if (dw->vars_dloc)
		global_var_type__add_vars(dw->vars_dloc, w.vars);
	else if (dw->keep_vars)
		dw_keep_unit_vars(dw, w.vars);
	return ret;
}

static bool dw_has_altlink(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return true;	/* cannot tell */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, ".gnu_debugaltlink"))
			return true;
	}
	return false;
}

/*
 * libdw keeps the state of every unit a handle reads (the unit, its
 * abbreviations) until the handle ends: after the walk, 17 MB for a
 * vmlinux, when the lookups that follow read a few hundred of its units.
 * The index keeps DIE offsets only: walk with a handle of its own over
 * the same ELF file (its sections are read once), ended after the walk.
 * The handle's own, when the file refers to an alternate file (dwz) that
 * the handle did not open.
 */
static Dwarf *dw_walk_begin(struct dprof_dwarf *dw)
{
	Elf *elf = dwarf_getelf(dw->dbg);
	Dwarf *walk, *alt;

	if (!elf)
		return dw->dbg;
	alt = dwarf_getalt(dw->dbg);
	if (!alt && dw_has_altlink(elf))
		return dw->dbg;
	walk = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!walk)
		return dw->dbg;
	if (alt)
		dwarf_setalt(walk, alt);
	return walk;
}

/*
 * The walker claims each unit before it indexes it: a thread that waits
 * for the walk may have taken the units from walk_end on.
 */
static bool dw_claim_unit(struct dprof_dwarf *dw, Dwarf_Off off, Dwarf_Off next)
{
	bool claimed;

	pthread_mutex_lock(&dw->walk_lock);
	claimed = off < dw->walk_end;
	if (claimed)
		dw->walk_next = next;
	pthread_mutex_unlock(&dw->walk_lock);
	return claimed;
}

static void dw_drop_walked_pages(struct dprof_dwarf *dw);

/*
 * The walk ahead gives back the pages it read every so many bytes of
 * units: nothing may ask for the index before the walk ends (the report
 * may not until its views), and what it read would stay resident until
 * then, ~70 MB of a vmlinux.
 */
#define DW_WALK_DROP_BYTES	(16UL << 20)

/*
 * Index the units of @dbg in [@off, @end) into @ix's tables, in their
 * order, counting them in @nr; @claim: the walk ahead, whose units are
 * claimed one by one.
 */
static int dw_index_units(struct dprof_dwarf *ix, Dwarf *dbg, Dwarf_Off off,
			  Dwarf_Off end, struct dprof_dwarf *claim, u32 *nr)
{
	Dwarf_Off next, dropped = off;
	size_t hsize;
	Dwarf_Die unit;
	int ret = 0;

	while (off < end &&
	       dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (claim && !dw_claim_unit(claim, off, next))
			break;
		if (dwarf_offdie(dbg, off + hsize, &unit)) {
			ret = dw_index_unit(ix, dbg, &unit);
			if (ret)
				break;
		}
		(*nr)++;
		off = next;
		if (claim && off - dropped >= DW_WALK_DROP_BYTES) {
			dw_drop_walked_pages(claim);
			dropped = off;
		}
	}
	return ret;
}

static int dw_build_index(struct dprof_dwarf *dw)
{
	Dwarf *dbg = dw_walk_begin(dw);
	struct debuginfo *dinfo = NULL, walk_dinfo;
	u32 nr = 0;
	int ret;

	/* perf reads its global variables' types by offset, in this handle */
	if (dw->vars_dloc && dbg != dw->dbg) {
		dinfo = dw->vars_dloc->di;
		walk_dinfo = *dinfo;
		walk_dinfo.dbg = dbg;
		dw->vars_dloc->di = &walk_dinfo;
	}
	ret = dw_index_units(dw, dbg, 0, DW_WALK_ALL, NULL, &nr);
	if (dinfo)
		dw->vars_dloc->di = dinfo;
	if (dbg != dw->dbg)
		dwarf_end(dbg);
	return ret;
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
/* a handle of @path, its DWARF not opened yet */
static struct dprof_dwarf *dw_new(const char *path)
{
	struct dprof_dwarf *dw = zalloc(sizeof(*dw));

	if (!dw)
		return NULL;
	dw->index_err = 1;
	dw->open_err = 1;
	dw->path = strdup(path);
	if (!dw->path) {
		free(dw);
		return NULL;
	}
	return dw;
}

/* Open the handle's DWARF, once: 0, or -ENOENT when it has none. */
static int dw_open(struct dprof_dwarf *dw)
{
	if (dw->open_err <= 0)
		return dw->open_err;
	dw->open_err = -ENOENT;
	dw->dinfo = debuginfo__new(dw->path);
	if (!dw->dinfo)
		return -ENOENT;
	dw->dbg = dw->dinfo->dbg;
	dw->open_err = 0;
	if (dw->lazy)
		pr_debug("dprof: %s: DWARF opened (a type not among the kept layouts)\n",
			 dw->path);
	return 0;
}

struct dprof_dwarf *dprof_dwarf__new(const char *path)
{
	struct dprof_dwarf *dw = dw_new(path);

	if (!dw)
		return NULL;
	if (dw_open(dw)) {
		pr_debug("dprof: no DWARF in %s\n", path);
		dprof_dwarf__delete(dw);
		return NULL;
	}
	return dw;
}

/*
 * Is [@start, @end) inside a mapping of a file none of whose pages was
 * written (libelf maps a file private and writable, and would only write
 * to it to convert or relocate a section in place)?  Then giving its pages
 * back loses nothing: they are read from the file again when touched.
 */
static bool dw_file_mapped_clean(unsigned long start, unsigned long end)
{
	unsigned long lo, hi, inode, kb;
	char line[512];
	bool in = false, ret = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*4s %*x %*x:%*x %lu", &lo, &hi, &inode) == 3) {
			if (in)
				break;	/* no Anonymous: line */
			in = lo <= start && end <= hi && inode;
		} else if (in && sscanf(line, "Anonymous: %lu kB", &kb) == 1) {
			ret = kb == 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * The walk read all of .debug_info (64 MB for a vmlinux) and the variables'
 * locations; later lookups touch a few units.  libelf maps the file: give
 * the pages walked back rather than keep them resident to the end.
 */
#define DW_DROP_MIN	(1024 * 1024UL)

/**
 * dprof_dwarf_pages__init - the pages of an ELF's DWARF that can be given back
 * @p: filled in; none when giving them back would lose data
 * @elf: the file, mapped by libelf
 *
 * Its units and locations (.debug_info, .debug_loclists, .debug_loc): what
 * a walk or a typing reads all over.  Call it before threads read @elf:
 * libelf loads the section headers it reads.
 */
void dprof_dwarf_pages__init(struct dprof_dwarf_pages *p, struct Elf *elf)
{
	unsigned long page = sysconf(_SC_PAGESIZE);
	Elf_Scn *scn = NULL;
	size_t shstrndx, raw_size;
	GElf_Ehdr ehdr;
	int clean = -1;
	char *raw;

	p->nr = 0;
	raw = elf ? elf_rawfile(elf, &raw_size) : NULL;
	if (!raw || !gelf_getehdr(elf, &ehdr) || ehdr.e_type == ET_REL ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL && p->nr < DPROF_DWARF_PAGES_MAX) {
		unsigned long start, end;
		const char *name;
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    (shdr.sh_flags & SHF_COMPRESSED) ||
		    shdr.sh_offset > raw_size || shdr.sh_size > raw_size - shdr.sh_offset)
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || (strcmp(name, ".debug_info") &&
			      strcmp(name, ".debug_loclists") && strcmp(name, ".debug_loc")))
			continue;
		start = ((unsigned long)raw + shdr.sh_offset + page - 1) & ~(page - 1);
		end = ((unsigned long)raw + shdr.sh_offset + shdr.sh_size) & ~(page - 1);
		if (end < start + DW_DROP_MIN)
			continue;	/* a small library's: not worth it */
		if (clean < 0)
			clean = dw_file_mapped_clean((unsigned long)raw,
						     (unsigned long)raw + raw_size);
		if (!clean)
			return;
		p->start[p->nr] = start;
		p->len[p->nr++] = end - start;
	}
}

/* Give them back: touched again, they are read from the file.  Any thread. */
void dprof_dwarf_pages__drop(const struct dprof_dwarf_pages *p)
{
	int i;

	for (i = 0; i < p->nr; i++)
		madvise((void *)p->start[i], p->len[i], MADV_DONTNEED);
}

static void dw_drop_walked_pages(struct dprof_dwarf *dw)
{
	if (!dw->pages_done) {
		dprof_dwarf_pages__init(&dw->pages, dwarf_getelf(dw->dbg));
		dw->pages_done = true;
	}
	dprof_dwarf_pages__drop(&dw->pages);
}

/**
 * dprof_dwarf__trim - give back the pages of DWARF read so far
 * @dw: the handle, may be NULL
 *
 * The units one phase of a report reads (the operand typing's) are not
 * those the next reads (the rows' types): what was read comes back from
 * the file when touched again.
 */
void dprof_dwarf__trim(struct dprof_dwarf *dw)
{
	if (dw && !dw->index_err && !dw->open_err)
		dw_drop_walked_pages(dw);
}

/* the index's tables, empty; on failure, lookups find nothing */
static int dw_index_begin(struct dprof_dwarf *dw)
{
	if (!dw->types)
		dw->types = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	if (!dw->type_strs)
		dw->type_strs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (!dw->vars)
		dw->vars = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	if (!dw->var_addrs)
		dw->var_addrs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(dw->types) || IS_ERR(dw->type_strs) || IS_ERR(dw->vars) ||
	    IS_ERR(dw->var_addrs)) {
		pr_debug("dprof: no memory for the DWARF index of %s\n", dw->path);
		return -ENOMEM;
	}
	return 0;
}

/* after the walk (@err its result): what lookups go by from now on */
static int dw_index_end(struct dprof_dwarf *dw, int err)
{
	const char *path = dw->path;

	/* by the names' addresses too: before type_strs goes */
	if (!err)
		err = dw_index_alt(dw);
	if (!IS_ERR_OR_NULL(dw->type_strs))
		hashmap__free(dw->type_strs);
	dw->type_strs = NULL;
	dw_drop_walked_pages(dw);
	if (err) {
		pr_debug("dprof: failed to index the DWARF of %s\n", path);
		return -ENOENT;
	}
	if (!dw->nr_types && !dw->nr_vars) {
		pr_debug("dprof: no types or variables in the DWARF of %s\n", path);
		return -ENOENT;
	}
	pr_debug("dprof: %s: indexed %u type names (%u runs of definitions), %u variables\n",
		 path, dw->nr_types, dw->nr_dies, dw->nr_vars);
	dw->index_err = 0;
	return 0;
}

/* the tables of an index: dprof_dwarf__delete()'s, and a helping thread's */
static void dw_free_index(struct dprof_dwarf *dw)
{
	struct hashmap_entry *cur;
	size_t bkt;

	dw_hand_vars(dw, NULL);
	if (!IS_ERR_OR_NULL(dw->types)) {
		hashmap__for_each_entry(dw->types, cur, bkt) {
			struct dw_type_name *tn = cur->pvalue;
			struct dw_type_ent *ent, *next;

			if (!tn)
				continue;	/* merged: dw_merge_index() */
			for (ent = tn->ents; ent; ent = next) {
				next = ent->next;
				free(ent);
			}
			free(tn);
		}
		hashmap__free(dw->types);
	}
	free(dw->dies);
	if (!IS_ERR_OR_NULL(dw->type_strs))
		hashmap__free(dw->type_strs);
	if (!IS_ERR_OR_NULL(dw->vars))
		hashmap__free(dw->vars);
	if (!IS_ERR_OR_NULL(dw->var_addrs))
		hashmap__free(dw->var_addrs);
}

/* a helping thread's index: a struct dprof_dwarf with only the tables */
static void dw_free_part(struct dprof_dwarf *part)
{
	dw_free_index(part);
	free(part);
}

/*
 * Append @part, the index of the units that follow @dw's, to @dw: the
 * index one walk over both makes.  A name's chain in @part goes on from
 * its chain in @dw, and its first run continues the last run in @dw when
 * their sizes match, as it would have across the boundary; the other
 * links keep their order behind @dw's, so that the links are those of
 * one walk, in the same places.  The variables of @dw's units, earlier,
 * win.  @part keeps what is not moved, for dw_free_part().
 */
static int dw_merge_index(struct dprof_dwarf *dw, struct dprof_dwarf *part)
{
	size_t i, bkt, nr_names = hashmap__size(part->types);
	struct dw_type_name **found = calloc(nr_names ?: 1, sizeof(*found));
	u32 *to = malloc((part->nr_dies ?: 1) * sizeof(*to));
	u32 j, base = dw->nr_dies, nr = base, alloc;
	struct hashmap_entry *cur;
	int err = -ENOMEM;

	if (!found || !to)
		goto out;
	/* the first runs that go on: counted in @dw's last, not copied */
	for (j = 0; j < part->nr_dies; j++)
		to[j] = DW_CHAIN_END;
	i = 0;
	hashmap__for_each_entry(part->types, cur, bkt) {
		struct dw_type_name *ptn = cur->pvalue, *tn;
		struct dw_die_link *first = &part->dies[ptn->first];

		if (hashmap__find(dw->types, cur->pkey, &tn)) {
			found[i] = tn;
			if (first->size != DW_SIZE_LATER &&
			    dw->dies[tn->last].size == first->size) {
				dw->dies[tn->last].count += first->count;
				to[ptn->first] = tn->last;
			}
		}
		i++;
	}
	for (j = 0; j < part->nr_dies; j++) {
		if (to[j] == DW_CHAIN_END)
			to[j] = nr++;
	}
	if (nr > dw->alloc_dies) {
		struct dw_die_link *dies;

		for (alloc = dw->alloc_dies ?: 1024; alloc < nr; alloc *= 2)
			;
		dies = realloc(dw->dies, alloc * sizeof(*dies));
		if (!dies)
			goto out;
		dw->dies = dies;
		dw->alloc_dies = alloc;
	}
	for (j = 0; j < part->nr_dies; j++) {
		struct dw_die_link *link = &part->dies[j];

		if (to[j] < base)
			continue;
		dw->dies[to[j]] = *link;
		if (link->next != DW_CHAIN_END)
			dw->dies[to[j]].next = to[link->next];
	}
	dw->nr_dies = nr;

	i = 0;
	hashmap__for_each_entry(part->types, cur, bkt) {
		struct dw_type_name *ptn = cur->pvalue, *tn = found[i++];
		u32 first = to[ptn->first], next;

		if (!tn) {
			/* a name new in @part's units: its chain moves */
			ptn->first = first;
			ptn->last = to[ptn->last];
			if (hashmap__add(dw->types, cur->pkey, ptn))
				goto out;
			cur->pvalue = NULL;
			dw->nr_types++;
			continue;
		}
		if (first == tn->last) {
			/* its first run went on: the rest follows */
			next = part->dies[ptn->first].next;
			dw->dies[tn->last].next = next == DW_CHAIN_END ? next : to[next];
		} else {
			dw->dies[tn->last].next = first;
		}
		tn->last = to[ptn->last];
	}

	hashmap__for_each_entry(part->vars, cur, bkt) {
		/* -EEXIST: an earlier CU's static of the same name wins */
		if (hashmap__add(dw->vars, cur->pkey, cur->value) == 0)
			dw->nr_vars++;
	}
	hashmap__for_each_entry(part->var_addrs, cur, bkt)
		hashmap__add(dw->var_addrs, cur->key, cur->value);

	/* perf's variables of @part's units, behind those of @dw's */
	dw->vars_lost |= part->vars_lost;
	if (part->nr_unit_vars) {
		u32 alloc_units = dw->nr_unit_vars + part->nr_unit_vars;
		struct die_var_type **units;

		units = realloc(dw->unit_vars, alloc_units * sizeof(*units));
		if (units) {
			memcpy(units + dw->nr_unit_vars, part->unit_vars,
			       part->nr_unit_vars * sizeof(*units));
			dw->unit_vars = units;
			dw->nr_unit_vars = alloc_units;
			dw->alloc_unit_vars = alloc_units;
			part->nr_unit_vars = 0;
		} else {
			dw->vars_lost = true;	/* dw_free_part() frees them */
		}
	}
	err = 0;
out:
	free(found);
	free(to);
	return err;
}

/* the end of the last unit, from the unit at @off */
static Dwarf_Off dw_units_end(Dwarf *dbg, Dwarf_Off off)
{
	Dwarf_Off next;
	size_t hsize;

	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0)
		off = next;
	return off;
}

/* the first unit after the one at @start that starts at @from or later, before @end; 0: none */
static Dwarf_Off dw_units_from(Dwarf *dbg, Dwarf_Off start, Dwarf_Off end,
			       Dwarf_Off from)
{
	Dwarf_Off off, next;
	size_t hsize;

	for (off = start; off < end; off = next) {
		if (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) ||
		    next >= end)
			break;
		if (next >= from)
			return next;
	}
	return 0;
}

/*
 * The helping thread takes parts of at most this share of all the units'
 * bytes, and at most half of what the walker has left, until the walker
 * has less than this share left (merging a part costs too), and at most
 * this many.
 */
#define DW_HELP_PART_SHARE	8
#define DW_HELP_MIN_SHARE	64
#define DW_HELP_MAX_PARTS	16

/*
 * The thread that waits for the walk ahead takes the last units the
 * walker has left, and indexes them into an index of its own (libdw is
 * not thread-safe per handle: with a Dwarf handle of its own); then the
 * last ones of what is left, and so on until the walker and it meet.  The
 * parts are small enough for both to end at about the same time, and
 * large enough for their merge to cost little.  @parts: the indexes made,
 * each of the units before the previous one's.
 */
static int dw_help_walk(struct dprof_dwarf *dw, struct dprof_dwarf **parts,
			int *nr_parts)
{
	struct dprof_dwarf *part = NULL;
	Dwarf_Off start, end, mid, size, all = 0;
	bool taken;
	int err = 0;

	*nr_parts = 0;
	while (*nr_parts < DW_HELP_MAX_PARTS) {
		pthread_mutex_lock(&dw->walk_lock);
		start = dw->walk_next;
		end = dw->walk_end;
		pthread_mutex_unlock(&dw->walk_lock);
		if (end == DW_WALK_ALL) {
			all = dw_units_end(dw->help_dbg, start);
			end = all;
		}
		if (start >= end || (end - start) * DW_HELP_MIN_SHARE < all)
			break;
		size = min((end - start) / 2, all / DW_HELP_PART_SHARE);
		mid = dw_units_from(dw->help_dbg, start, end, end - size);
		if (!mid)
			break;
		if (!part) {
			part = zalloc(sizeof(*part));
			if (!part)
				break;	/* the walker does it all */
			part->path = dw->path;
			part->keep_vars = dw->keep_vars;
			if (dw_index_begin(part)) {
				dw_free_part(part);
				part = NULL;
				break;
			}
		}
		pthread_mutex_lock(&dw->walk_lock);
		taken = dw->walk_next <= mid;
		if (taken)
			dw->walk_end = mid;
		pthread_mutex_unlock(&dw->walk_lock);
		if (!taken)
			continue;	/* the walker went past it meanwhile */
		parts[(*nr_parts)++] = part;
		err = dw_index_units(part, dw->help_dbg, mid, end, NULL,
				     &dw->nr_helped);
		part = NULL;
		if (err)
			break;
	}
	if (part)
		dw_free_part(part);
	return err;
}

/*
 * Wait for the walk dprof_dwarf__index_start() started, helping it, and
 * finish it.
 */
static int dw_index_join(struct dprof_dwarf *dw)
{
	struct dprof_dwarf *parts[DW_HELP_MAX_PARTS];
	int nr_parts = 0, err = 0;

	if (dw->help_dbg) {
		err = dw_help_walk(dw, parts, &nr_parts);
		dwarf_end(dw->help_dbg);
		dw->help_dbg = NULL;
	}
	pthread_join(dw->walker, NULL);
	pthread_mutex_destroy(&dw->walk_lock);
	dw->walking = false;
	dw->index_err = -ENOENT;
	err = dw->walk_err ?: err;
	/* the parts' units follow the walker's, the last part's first */
	while (nr_parts--) {
		if (!err)
			err = dw_merge_index(dw, parts[nr_parts]);
		dw_free_part(parts[nr_parts]);
	}
	if (dw->nr_helped)
		pr_debug("dprof: %s: %u units indexed by the thread that waited for the walk\n",
			 dw->path, dw->nr_helped);
	/*
	 * The walk's own handle and scratch tables were freed in the malloc
	 * arena of the thread, which keeps free memory resident: give it back
	 * (~5 MB for a vmlinux), and the helping thread's.
	 */
	malloc_trim(0);
	return dw_index_end(dw, err);
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
	int err;

	if (dw->walking)
		return dw_index_join(dw);
	if (dw->index_err <= 0)
		return dw->index_err;
	dw->index_err = -ENOENT;
	if (dw_open(dw))
		return dw->index_err;

	err = dw_index_begin(dw);
	if (!err)
		err = dw_build_index(dw);
	return dw_index_end(dw, err);
}

static void *dw_index_walker(void *arg)
{
	struct dprof_dwarf *dw = arg;
	u32 nr = 0;

	dw->walk_err = dw_index_units(dw, dw->walk_dbg, 0, DW_WALK_ALL, dw, &nr);
	if (dw->walk_dbg != dw->dbg)
		dwarf_end(dw->walk_dbg);
	dw->walk_dbg = NULL;
	return NULL;
}

/* the walk's Dwarf handles, made before its threads run */
static void dw_walk_handles(struct dprof_dwarf *dw)
{
	dw->walk_dbg = dw_walk_begin(dw);
	dw->help_dbg = NULL;
	/* an alternate file's handle would be shared by both */
	if (dw->walk_dbg == dw->dbg || dwarf_getalt(dw->dbg))
		return;
	dw->help_dbg = dw_walk_begin(dw);
	if (dw->help_dbg == dw->dbg)
		dw->help_dbg = NULL;
}

/**
 * dprof_dwarf__index_start - build a handle's index in another thread
 * @dw: the handle, just opened
 *
 * Walking a vmlinux's DWARF takes ~0.3 s; when the file is known before
 * the replay starts (perf report -k), the walk can run while the replay
 * prepares (the snapshot pass, the symbol tables).  Nothing may use @dw
 * until dprof_dwarf__index() or dprof_dwarf__index_vars() waits for the
 * walk: every other function of this file that reads the DWARF goes
 * through one of them.  The thread that waits indexes the units the walk
 * has not reached yet, from the end, until the two meet.  perf's global
 * variables are kept per CU until dprof_dwarf__index_vars() hands them
 * over, with the map, thread and cpumode of the first typing; the index
 * is the one dprof_dwarf__index() builds.
 *
 * Return: 0, or a negative error when no thread could be started (the
 * index is then built at the first lookup, as without this call).
 */
int dprof_dwarf__index_start(struct dprof_dwarf *dw)
{
	int err;

	if (dw->index_err != 1 || dw->walking)
		return 0;
	if (dw_open(dw))
		return -ENOENT;
	if (dw_index_begin(dw))
		return -ENOMEM;
	/*
	 * libelf is not thread-safe: the handles load the ELF sections they
	 * read here, on the calling thread, before the threads race.
	 */
	dw_walk_handles(dw);
	dw->walk_next = 0;
	dw->walk_end = DW_WALK_ALL;
	pthread_mutex_init(&dw->walk_lock, NULL);
	dw->keep_vars = true;
	err = pthread_create(&dw->walker, NULL, dw_index_walker, dw);
	if (err) {
		dw->keep_vars = false;
		if (dw->walk_dbg != dw->dbg)
			dwarf_end(dw->walk_dbg);
		if (dw->help_dbg)
			dwarf_end(dw->help_dbg);
		dw->walk_dbg = NULL;
		dw->help_dbg = NULL;
		pthread_mutex_destroy(&dw->walk_lock);
		return -err;
	}
	dw->walking = true;
	return 0;
}

/**
 * dprof_dwarf__index_vars - index, and collect perf's global variables
 * @dw: the handle
 * @map: a map of the dso whose code perf's data-type profiling types
 * @thread: the thread it types a sample of
 * @cpumode: that sample's
 *
 * perf's data-type profiling collects the global variables of a dso's
 * DWARF at its first variable lookup, in a walk over the top-level DIEs
 * of every CU: the walk the index makes.  When the index is not built
 * yet, build it now and hand each CU's variables to perf
 * (global_var_type__add_vars()) as it goes, in CU order, with the map,
 * thread and cpumode perf's first lookup would use: perf then finds them
 * without a walk of its own.  Call it before perf types any code of the
 * dso, with @dw's debuginfo lent to it (debuginfo_cache__use()).
 *
 * An index built ahead (dprof_dwarf__index_start()) kept the variables:
 * they are handed over now, CU by CU in the same order.
 *
 * Return: as dprof_dwarf__index(); when the index was built before, and
 * not ahead, perf collects on its own.
 */
int dprof_dwarf__index_vars(struct dprof_dwarf *dw, struct map *map,
			    struct thread *thread, u8 cpumode)
{
	struct map_symbol ms = { .map = map };
	struct data_loc_info dloc = {
		.thread		= thread,
		.ms		= &ms,
		.cpumode	= cpumode,
	};
	int err;

	if (dw_open(dw))
		return -ENOENT;
	dloc.di = dw->dinfo;

	if (dw->keep_vars) {
		err = dprof_dwarf__index(dw);
		if (dw_hand_vars(dw, &dloc) && !err)
			dw_vars_handed(&dloc);
		return err;
	}
	if (dw->index_err <= 0)
		return dw->index_err;
	dw->vars_dloc = &dloc;
	err = dprof_dwarf__index(dw);
	dw->vars_dloc = NULL;
	if (!err)
		dw_vars_handed(&dloc);
	return err;
}

static u64 dw_mix(u64 h, u64 v)
{
	return (h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2))) * 0x100000001b3ULL;
}

/* the variables die_collect_global_var() gives, a CU's after another's */
static u64 dw_digest_unit_vars(u64 h, struct die_var_type *vars)
{
	for (; vars; vars = vars->next)
		h = dw_mix(dw_mix(h, vars->die_off), vars->addr);
	return dw_mix(h, 0);	/* the CU ends */
}

/* dw_digest_unit_vars() of every CU by a walk through @dbg */
static u64 dw_digest_walk_vars(Dwarf *dbg)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die unit, die;
	size_t hsize;
	u64 h = 0;

	for (; dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next) {
		struct die_var_type *vars = NULL;

		if (!dwarf_offdie(dbg, off + hsize, &unit) || dwarf_child(&unit, &die))
			continue;
		do {
			if (dwarf_tag(&die) == DW_TAG_variable &&
			    die_collect_global_var(&die, &vars))
				break;
		} while (dwarf_siblingof(&die, &die) == 0);
		if (vars)
			h = dw_digest_unit_vars(h, vars);
		dw_free_vars(vars);
	}
	return h;
}

/**
 * dprof_dwarf__index_digest - what a handle's index holds, for its test
 * @dw: the handle; its index is built (or the walk ahead waited for)
 * @d: where to store it
 *
 * An index built with the help of the thread that waits for the walk
 * ahead must be the one a single walk builds: the same counts, the same
 * chains of type DIEs (in the same places), the same variables by name
 * and by address, and the variables kept for perf those a walk of its
 * own collects, in CU order.  The hashes of the chains and of the
 * variables do not depend on the order of the hash tables.
 *
 * Return: as dprof_dwarf__index().
 */
int dprof_dwarf__index_digest(struct dprof_dwarf *dw,
			      struct dprof_dwarf_digest *d)
{
	struct hashmap_entry *cur;
	size_t bkt;
	int err;
	u32 i;

	memset(d, 0, sizeof(*d));
	err = dprof_dwarf__index(dw);
	if (err)
		return err;
	d->nr_types = dw->nr_types;
	d->nr_dies = dw->nr_dies;
	d->nr_vars = dw->nr_vars;
	d->nr_var_addrs = hashmap__size(dw->var_addrs);
	d->nr_unit_vars = dw->nr_unit_vars;
	d->nr_helped = dw->nr_helped;

	for (i = 0; i < dw->nr_dies; i++) {
		struct dw_die_link *link = &dw->dies[i];

		d->types = dw_mix(dw_mix(dw_mix(dw_mix(d->types, link->off),
						link->next), link->size),
				  link->count);
	}
	hashmap__for_each_entry(dw->types, cur, bkt) {
		struct dw_type_name *tn = cur->pvalue;

		d->types += dw_mix(dw_mix(str_hash(cur->pkey), tn->first), tn->last);
	}
	hashmap__for_each_entry(dw->vars, cur, bkt)
		d->vars += dw_mix(str_hash(cur->pkey), cur->value);
	hashmap__for_each_entry(dw->var_addrs, cur, bkt)
		d->vars += dw_mix(dw_mix(cur->key, cur->value), 1);

	for (i = 0; i < dw->nr_unit_vars; i++)
		d->unit_vars = dw_digest_unit_vars(d->unit_vars, dw->unit_vars[i]);
	d->walk_vars = dw_digest_walk_vars(dw->dbg);
	return 0;
}

/*
 * The index's answers, kept between reports.  Walking a vmlinux's DWARF
 * for the index costs ~0.25 s of CPU time, for the few hundred names a
 * report looks up: the lookups and what they found are kept in a file
 * named by the DWARF file's build id (typecache.c), and a report whose
 * lookups are all there builds no index.  The first lookup that is not
 * there builds it, as without the file; what it finds is kept too.
 *
 *	s <name>			a type name looked up, then its
 *	e <DIE offset> <size> <count>	definitions (as dw_type_ent), if any
 *	v <DIE offset> <name>		a variable by name (offset 0: none)
 *	a <address> <DIE offset>	a variable by address (offset 0: none)
 *
 * Offsets and addresses in hex.  A name is the rest of its line ("long
 * unsigned int"): it is kept when it is printable and neither starts nor
 * ends with a blank (a slab cache's name in a damaged recording is looked
 * up, and not kept).
 */
struct dw_memo {
	char			path[PATH_MAX];
	struct hashmap		*types;		/* name -> struct dw_type_ent *, NULL: none */
	struct hashmap		*vars;		/* name -> DIE offset, 0: none */
	struct hashmap		*addrs;		/* address -> DIE offset, 0: none */
	/* reading: the name of the last "s" line, and its last definition */
	const char		*cur_name;
	struct dw_type_ent	*cur_ent;
	bool			read;		/* from a file of an earlier report */
	bool			learned;	/* not in the file yet */
};

#define DW_MEMO_NAME_MAX	256

static bool dw_memo_name_ok(const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++) {
		if (!isprint((unsigned char)name[i]) || i == DW_MEMO_NAME_MAX)
			return false;
	}
	/* the rest of its line: no blank to lose at either end */
	return i > 0 && name[0] != ' ' && name[i - 1] != ' ';
}

static void dw_free_ents(struct dw_type_ent *ent)
{
	struct dw_type_ent *next;

	for (; ent; ent = next) {
		next = ent->next;
		free(ent);
	}
}

static void dw_memo__delete(struct dw_memo *m)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!m)
		return;
	if (!IS_ERR_OR_NULL(m->types)) {
		hashmap__for_each_entry(m->types, cur, bkt) {
			dw_free_ents(cur->pvalue);
			free((char *)cur->pkey);
		}
		hashmap__free(m->types);
	}
	if (!IS_ERR_OR_NULL(m->vars)) {
		hashmap__for_each_entry(m->vars, cur, bkt)
			free((char *)cur->pkey);
		hashmap__free(m->vars);
	}
	if (!IS_ERR_OR_NULL(m->addrs))
		hashmap__free(m->addrs);
	free(m);
}

/* Keep @name's definitions @ents (a copy; NULL: none). */
static int dw_memo__add_type(struct dw_memo *m, const char *name,
			     const struct dw_type_ent *ents, const char **key_kept)
{
	struct dw_type_ent *copy = NULL, **tail = &copy;
	char *key = strdup(name);

	for (; key && ents; ents = ents->next) {
		*tail = malloc(sizeof(**tail));
		if (!*tail)
			break;
		**tail = *ents;
		(*tail)->next = NULL;
		tail = &(*tail)->next;
	}
	if (!key || ents || hashmap__add(m->types, key, copy)) {
		dw_free_ents(copy);
		free(key);
		return -ENOMEM;
	}
	if (key_kept)
		*key_kept = key;
	return 0;
}

static int dw_memo__add_var(struct dw_memo *m, const char *name, Dwarf_Off off)
{
	char *key = strdup(name);

	if (!key || hashmap__add(m->vars, key, off)) {
		free(key);
		return -ENOMEM;
	}
	return 0;
}

static bool dw_memo__parse(void *arg, char *line)
{
	struct dw_memo *m = arg;
	u64 a, b, c;
	int n = 0;

	if (line[0] == 'e' && m->cur_name &&
	    sscanf(line, "e %" SCNx64 " %" SCNu64 " %" SCNu64 "%n", &a, &b, &c, &n) == 3 &&
	    !line[n] && a && c && c <= UINT32_MAX) {
		struct dw_type_ent *ent = zalloc(sizeof(*ent));

		if (!ent)
			return false;
		ent->off = a;
		ent->size = b;
		ent->count = c;
		/* in the file's order: dw_best() and dw_fit() take the first of a tie */
		if (m->cur_ent)
			m->cur_ent->next = ent;
		else
			hashmap__set(m->types, m->cur_name, ent, NULL, NULL);
		m->cur_ent = ent;
		return true;
	}
	m->cur_name = NULL;
	m->cur_ent = NULL;
	if (line[0] == 's' && line[1] == ' ' && dw_memo_name_ok(line + 2))
		return !dw_memo__add_type(m, line + 2, NULL, &m->cur_name);
	if (line[0] == 'v' && sscanf(line, "v %" SCNx64 " %n", &a, &n) == 1 && n &&
	    dw_memo_name_ok(line + n))
		return !dw_memo__add_var(m, line + n, a);
	if (line[0] == 'a' && sscanf(line, "a %" SCNx64 " %" SCNx64 "%n", &a, &b, &n) == 2 &&
	    !line[n])
		return !hashmap__add(m->addrs, a, b);
	return false;
}

static struct dw_memo *dw_memo__new(const struct dprof_typecache *tc,
				    const struct build_id *bid)
{
	struct dw_memo *m = zalloc(sizeof(*m));

	if (!m)
		return NULL;
	m->types = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	m->vars = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	m->addrs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(m->types) || IS_ERR(m->vars) || IS_ERR(m->addrs) ||
	    dprof_typecache__path(tc, bid, "index", m->path, sizeof(m->path))) {
		dw_memo__delete(m);
		return NULL;
	}
	return m;
}

/* The layouts earlier reports kept for the handle's file; none: learn them. */
static void dw_layouts_read(struct dprof_dwarf *dw)
{
	dw->layouts = dprof_layouts__new();
	dw->handed = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (!dw->layouts || IS_ERR(dw->handed)) {
		dprof_layouts__delete(dw->layouts);
		if (!IS_ERR(dw->handed))
			hashmap__free(dw->handed);
		dw->layouts = NULL;
		dw->handed = NULL;
		return;
	}
	dw->layouts_kept = !dprof_layouts__read(dw->layouts, dw->memo_tc, &dw->bid);
}

/* A DIE handed out, its layout to keep at the end (@var: a variable's). */
static void dw_handed(struct dprof_dwarf *dw, Dwarf_Off off, bool var)
{
	if (dw->handed)
		hashmap__set(dw->handed, (long)off, (long)var, NULL, NULL);
}

static void dw_learn_handed(struct dprof_dwarf *dw);

static void dw_layouts_save(struct dprof_dwarf *dw)
{
	if (!dw->layouts)
		return;
	if (!dw->open_err)
		dw_learn_handed(dw);
	if (dprof_layouts__save(dw->layouts, dw->memo_tc, &dw->bid))
		pr_debug("dprof: %s: type layouts not kept\n", dw->path);
}

/**
 * dprof_dwarf__keep - answer the lookups from what earlier reports found
 * @dw: a handle, not indexed (its DWARF opened or not)
 * @tc: where reports keep it (NULL: nowhere)
 *
 * Return: true when lookups were kept for @dw's file: its index is built
 * only when a lookup is not among them, and is not worth building ahead.
 */
static bool dprof_dwarf__keep(struct dprof_dwarf *dw, struct dprof_typecache *tc)
{
	struct build_id bid;
	struct dw_memo *m;
	size_t nr;
	int err;

	if (!dw || !tc || dw->memo || dw->index_err != 1 || dw->walking ||
	    filename__read_build_id(dw->path, &bid) <= 0)
		return false;
	dw->bid = bid;
	m = dw_memo__new(tc, &bid);
	if (!m)
		return false;
	err = dprof_typecache__read(tc, m->path, "index", dw_memo__parse, m);
	if (err && err != -ENOENT) {
		/* what parsed is not trusted either */
		dw_memo__delete(m);
		m = dw_memo__new(tc, &bid);
		if (!m)
			return false;
	}
	/*
	 * A file with no lookups says a report needed none: written even
	 * so, the next report does not walk for nothing.
	 */
	m->read = !err;
	m->learned = !!err;
	dw->memo = m;
	dw->memo_tc = dprof_typecache__get(tc);
	dw_layouts_read(dw);
	nr = hashmap__size(m->types) + hashmap__size(m->vars) + hashmap__size(m->addrs);
	if (!err)
		pr_debug("dprof: %s: %zu lookups from %s\n", dw->path, nr, m->path);
	return dprof_dwarf__kept(dw);
}

static bool dw_nodwarf_parse(void *arg __maybe_unused, char *line __maybe_unused)
{
	return false;
}

/*
 * An earlier report searched @path for DWARF and found none, and no
 * debuginfo file has appeared since where perf looks for it (a -dbgsym
 * package installed), nor may debuginfod be asked.  libdwfl's search opens
 * the binary and looks in each of those places: a report of a program
 * linked with 20 libraries without debuginfo (a C++ runtime, libLLVM)
 * spent ~15 ms and ~6 MB of its peak on it, every time.
 */
static bool dw_nodwarf_kept(const struct dprof_typecache *tc, const char *path,
			    struct build_id *bid)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char buf[PATH_MAX];

	if ((urls && *urls) ||
	    dprof_typecache__path(tc, bid, "nodwarf", buf, sizeof(buf)) ||
	    dprof_typecache__read(tc, buf, "nodwarf", dw_nodwarf_parse, NULL))
		return false;
	return !dprof_typecache__has_debuginfo(path, bid);
}

/* Say so to the next report: @bid's binary has no DWARF. */
static void dw_nodwarf_keep(const struct dprof_typecache *tc, const struct build_id *bid)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	if (dprof_typecache__path(tc, bid, "nodwarf", path, sizeof(path)))
		return;
	f = dprof_typecache__create(tc, path, "nodwarf", tmp, sizeof(tmp));
	if (f)
		dprof_typecache__commit(f, tmp, path);
}

/**
 * dprof_dwarf__new_kept - a handle that reads its DWARF only at need
 * @path: the file, as dprof_dwarf__new()'s
 * @tc: where reports keep their lookups and type layouts (NULL: nowhere)
 *
 * When an earlier report kept both the lookups of @path's DWARF and the
 * layouts of the types they found (layouts.c), the handle answers from
 * them, and opens the DWARF only for a lookup or a type that is not
 * there: a report of the binaries reported before reads no DWARF, and a
 * distribution's compressed debuginfo is not inflated.  Otherwise as
 * dprof_dwarf__new() then dprof_dwarf__keep().
 *
 * Return: the handle, or NULL when @path has no DWARF.
 */
struct dprof_dwarf *dprof_dwarf__new_kept(const char *path, struct dprof_typecache *tc)
{
	struct dprof_dwarf *dw;
	struct build_id bid;
	bool have_bid = tc && filename__read_build_id(path, &bid) > 0;

	if (have_bid && dw_nodwarf_kept(tc, path, &bid)) {
		pr_debug("dprof: no DWARF in %s, as an earlier report found\n", path);
		return NULL;
	}
	dw = dw_new(path);
	if (!dw)
		return NULL;
	if (dprof_dwarf__keep(dw, tc) && dw->layouts_kept) {
		dw->lazy = true;
		return dw;
	}
	if (dw_open(dw)) {
		pr_debug("dprof: no DWARF in %s\n", path);
		if (have_bid)
			dw_nodwarf_keep(tc, &bid);
		/* nothing learned of a file without DWARF */
		dw_memo__delete(dw->memo);
		dw->memo = NULL;
		dprof_layouts__delete(dw->layouts);
		dw->layouts = NULL;
		dprof_dwarf__delete(dw);
		return NULL;
	}
	return dw;
}

/**
 * dprof_dwarf__ready - can the handle's lookups be asked?
 * @dw: the handle
 *
 * Return: 0 when lookups were kept for its file (dprof_dwarf__keep()), or
 * as dprof_dwarf__index(), which builds the index.
 */
int dprof_dwarf__ready(struct dprof_dwarf *dw)
{
	return dprof_dwarf__kept(dw) ? 0 : dprof_dwarf__index(dw);
}

/* Were lookups kept for the handle's file, and is there no index yet? */
bool dprof_dwarf__kept(const struct dprof_dwarf *dw)
{
	return dw && dw->memo && dw->memo->read && dw->index_err == 1 && !dw->walking;
}

static void dw_memo__save(struct dprof_dwarf *dw)
{
	struct dw_memo *m = dw->memo;
	struct hashmap_entry *cur;
	char tmp[PATH_MAX + 8];
	size_t bkt;
	FILE *f;

	if (!m || !m->learned)
		return;
	f = dprof_typecache__create(dw->memo_tc, m->path, "index", tmp, sizeof(tmp));
	if (!f)
		return;
	hashmap__for_each_entry(m->types, cur, bkt) {
		const struct dw_type_ent *ent;

		fprintf(f, "s %s\n", (const char *)cur->pkey);
		for (ent = cur->pvalue; ent; ent = ent->next)
			fprintf(f, "e %" PRIx64 " %" PRIu64 " %u\n", (u64)ent->off,
				ent->size, ent->count);
	}
	hashmap__for_each_entry(m->vars, cur, bkt)
		fprintf(f, "v %lx %s\n", cur->value, (const char *)cur->pkey);
	hashmap__for_each_entry(m->addrs, cur, bkt)
		fprintf(f, "a %lx %lx\n", cur->key, cur->value);
	if (!dprof_typecache__commit(f, tmp, m->path))
		pr_debug("dprof: %s: lookups kept in %s\n", dw->path, m->path);
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
	if (dw && dw->walking)
		dprof_dwarf__index(dw);
	return dw && !dw_open(dw) ? dw->dinfo : NULL;
}

/**
 * dprof_dwarf__delete - free a handle made by dprof_dwarf__new()
 * @dw: the handle, may be NULL
 *
 * DIEs handed out by it become invalid.
 */
void dprof_dwarf__delete(struct dprof_dwarf *dw)
{
	if (!dw)
		return;
	if (dw->walking)
		dprof_dwarf__index(dw);
	dw_layouts_save(dw);
	dprof_layouts__delete(dw->layouts);
	if (!IS_ERR_OR_NULL(dw->handed))
		hashmap__free(dw->handed);
	dw_memo__save(dw);
	dw_memo__delete(dw->memo);
	dprof_typecache__put(dw->memo_tc);
	dw_free_index(dw);
	debuginfo__delete(dw->dinfo);
	free(dw->path);
	free(dw);
}

/*
 * libdw finds the unit of a DIE by reading the header of every unit
 * before it, the first time it is asked: for a kept DIE late in a
 * vmlinux, that maps most of .debug_info (57 MB, the largest part of a
 * report's peak once its lookups are kept).  Read them all first, as
 * the walk does, giving the pages back as it goes and at the end.
 */
static void dw_read_units(struct dprof_dwarf *dw)
{
	Dwarf_Off off = 0, next, dropped = 0;
	size_t hsize;
	Dwarf_Die unit;

	if (dw->units_read || dw_open(dw))
		return;
	dw->units_read = true;
	while (dwarf_nextcu(dw->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		/* finding its DIE is what adds the unit to libdw's */
		dwarf_offdie(dw->dbg, off + hsize, &unit);
		off = next;
		if (off - dropped >= DW_WALK_DROP_BYTES) {
			dw_drop_walked_pages(dw);
			dropped = off;
		}
	}
	dw_drop_walked_pages(dw);
}

/* Is the DIE at @off a definition of @name with one of @tags (0-ended)? */
static bool dw_die_is(struct dprof_dwarf *dw, Dwarf_Off off, const char *name,
		      const int *tags)
{
	const struct dprof_layout *n = dprof_layouts__find(dw->layouts, off);
	const char *die_name;
	Dwarf_Die die;
	int tag;

	/* a kept layout names its DIE's tag and name */
	if (n) {
		for (; *tags && *tags != n->tag; tags++)
			;
		return *tags && (!name || (n->die_name && !strcmp(n->die_name, name)));
	}
	dw_read_units(dw);
	if (!dw_offdie(dw, off, &die))
		return false;
	tag = dwarf_tag(&die);
	for (; *tags && *tags != tag; tags++)
		;
	die_name = dwarf_diename(&die);
	return *tags && (!name || (die_name && !strcmp(die_name, name)));
}

static const int dw_type_tags[] = {
	DW_TAG_structure_type, DW_TAG_union_type, DW_TAG_class_type,
	DW_TAG_typedef, 0
};

static const int dw_var_tags[] = { DW_TAG_variable, 0 };

/*
 * The kept answers are checked as they are used, against the DWARF they
 * name: a file that does not match (damaged, or written for another file
 * of the same build id) is dropped, and the index answers from then on.
 */
static void dw_memo__mismatch(struct dprof_dwarf *dw)
{
	struct build_id bid;

	pr_debug("dprof: %s: kept lookups in %s do not match its DWARF, not used\n",
		 dw->path, dw->memo->path);
	dw_memo__delete(dw->memo);
	dw->memo = NULL;
	if (filename__read_build_id(dw->path, &bid) > 0) {
		dw->memo = dw_memo__new(dw->memo_tc, &bid);
		/* what the index answers replaces the file */
		if (dw->memo)
			dw->memo->learned = true;
	}
}

/*
 * Nothing is indexed without a name, and an empty name has no line in
 * the lookups kept between reports: looking it up would build the index,
 * in every report, to find nothing (an anonymous struct is "struct " in
 * perf's typings).
 */
static bool dw_name_findable(const char *name)
{
	return name && *name;
}

static struct dw_type_ent *dw_lookup(struct dprof_dwarf *dw, const char *name)
{
	struct dw_type_ent *ents = NULL;
	struct dw_type_name *tn;

	if (!dw || !dw_name_findable(name))
		return NULL;
	if (dw->memo && hashmap__find(dw->memo->types, name, &ents)) {
		struct dw_type_ent *ent;

		for (ent = ents; ent; ent = ent->next) {
			if (!dw_die_is(dw, ent->off, name, dw_type_tags))
				break;
		}
		if (!ent)
			return ents;
		dw_memo__mismatch(dw);
		ents = NULL;
	}
	if (dprof_dwarf__index(dw))
		return NULL;
	if (hashmap__find(dw->types, name, &tn)) {
		if (!tn->resolved)
			dw_resolve_type(dw, tn);
		ents = tn->ents;
	}
	if (dw->memo && dw_memo_name_ok(name) && !dw_memo__add_type(dw->memo, name, ents, NULL))
		dw->memo->learned = true;
	return ents;
}

/* The DIE of the variable @name (0: none), by the index or as kept. */
static Dwarf_Off dw_lookup_var(struct dprof_dwarf *dw, const char *name)
{
	long off = 0;

	if (!dw_name_findable(name))
		return 0;
	if (dw->memo && hashmap__find(dw->memo->vars, name, &off)) {
		if (!off || dw_die_is(dw, off, name, dw_var_tags))
			return off;
		dw_memo__mismatch(dw);
		off = 0;
	}
	if (dprof_dwarf__index(dw))
		return 0;
	if (!hashmap__find(dw->vars, name, &off))
		off = 0;
	if (dw->memo && dw_memo_name_ok(name) && !dw_memo__add_var(dw->memo, name, off))
		dw->memo->learned = true;
	return off;
}

/* The DIE of the variable at @addr (0: none), by the index or as kept. */
static Dwarf_Off dw_lookup_var_at(struct dprof_dwarf *dw, u64 addr)
{
	long off = 0;

	if (dw->memo && hashmap__find(dw->memo->addrs, (long)addr, &off)) {
		if (!off || dw_die_is(dw, off, NULL, dw_var_tags))
			return off;
		dw_memo__mismatch(dw);
		off = 0;
	}
	if (dprof_dwarf__index(dw))
		return 0;
	if (!hashmap__find(dw->var_addrs, (long)addr, &off))
		off = 0;
	if (dw->memo && !hashmap__add(dw->memo->addrs, (long)addr, off))
		dw->memo->learned = true;
	return off;
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

/* @t as the DWARF type @die */
static int dw_type(Dwarf_Die *die, struct dprof_type *t)
{
	t->die = *die;
	t->src = DPROF_TYPE_DWARF;
	return 0;
}

/* @t as the type DIE at @off: its kept layout, or the DIE (kept at the end) */
static int dw_found(struct dprof_dwarf *dw, Dwarf_Off off, struct dprof_type *t)
{
	const struct dprof_layout *n = dprof_layouts__find(dw->layouts, off);
	Dwarf_Die die;

	if (n && n->tag != DW_TAG_variable) {
		dprof_layout__type(n, t);
		return 0;
	}
	if (!dw_offdie(dw, off, &die))
		return -ENOENT;
	dw_handed(dw, off, false);
	return dw_type(&die, t);
}

/**
 * dprof_dwarf__find_struct - find a struct/union definition by name
 * @dw: the DWARF index
 * @name: the struct or union tag ("file"), or a typedef name ("spinlock_t")
 * @t: where to store the type found: the struct/union, or the typedef when
 *     found by a typedef name (dprof_type__*() see through typedefs)
 *
 * Declarations are not indexed.  When definitions of different sizes share
 * the name, the one defined in most CUs is chosen (ties: the larger).
 *
 * Return: 0, or -ENOENT.
 */
int dprof_dwarf__find_struct(struct dprof_dwarf *dw, const char *name,
			     struct dprof_type *t)
{
	return dprof_dwarf__find_struct_sized(dw, name, 0, t);
}

/**
 * dprof_dwarf__find_struct_sized - find a definition by name and size
 * @dw: the DWARF index
 * @name: as dprof_dwarf__find_struct()'s
 * @size: the type's byte size, as the operand typing found it (0: unknown)
 * @t: where to store the type found
 *
 * C++ names types by their scope: leveldb has a Table::Rep and a
 * TableBuilder::Rep, a log::Writer and a DBImpl::Writer, which the index
 * (and perf's typing) knows as "Rep" and "Writer".  The definition of
 * @size is taken where one has it, else as dprof_dwarf__find_struct().
 *
 * Return: 0, or -ENOENT.
 */
int dprof_dwarf__find_struct_sized(struct dprof_dwarf *dw, const char *name,
				   u64 size, struct dprof_type *t)
{
	struct dw_type_ent *ents = dw_lookup(dw, name), *ent = NULL;

	if (size) {
		for (ent = ents; ent && ent->size != size; ent = ent->next)
			;
	}
	if (!ent)
		ent = dw_best(ents);

	if (!ent || dw_found(dw, ent->off, t)) {
		pr_debug2("dprof: no struct %s in DWARF\n", name ?: "(null)");
		return -ENOENT;
	}
	return 0;
}

static int dw_var_die_type(struct dprof_dwarf *dw, Dwarf_Off off,
			   Dwarf_Die *type_die)
{
	Dwarf_Attribute attr;
	Dwarf_Die var;

	if (dw_open(dw) || !dwarf_offdie(dw->dbg, off, &var) ||
	    !dwarf_attr_integrate(&var, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, type_die))
		return -ENOENT;
	return 0;
}

/*
 * @t as the type of the variable DIE at @off (0: none): its kept layout's,
 * or the type DIE's (the variable's layout is kept at the end).
 */
static int dw_var_found(struct dprof_dwarf *dw, Dwarf_Off off, struct dprof_type *t)
{
	const struct dprof_layout *n;
	Dwarf_Die die;

	if (!off)
		return -ENOENT;
	n = dprof_layouts__find(dw->layouts, off);
	if (n && n->tag == DW_TAG_variable) {
		dprof_layout__type(n->real, t);
		return 0;
	}
	if (dw_var_die_type(dw, off, &die))
		return -ENOENT;
	dw_handed(dw, off, true);
	return dw_type(&die, t);
}

/**
 * dprof_dwarf__find_var - type of a global, static or per-CPU variable
 * @dw: the DWARF index
 * @name: the variable's name, as in the ELF symbol table (may be NULL)
 * @addr: its link-time address (its ELF symbol's st_value; for kernel
 *	  per-CPU variables, the offset in the per-CPU section)
 * @t: where to store its type, as declared (typedefs and qualifiers kept:
 *     "buf", "const struct foo", "struct foo[4]")
 *
 * By address first: static variables of the same name can be defined in
 * several CUs, and only variables whose location is a single DW_OP_addr
 * are indexed by address.  Then by name, where the first CU's wins.
 * Function-local statics ("foo.0") are not indexed.
 *
 * Return: 0, or -ENOENT.
 */
int dprof_dwarf__find_var(struct dprof_dwarf *dw, const char *name, u64 addr,
			  struct dprof_type *t)
{
	if (!dw)
		return -ENOENT;
	if (!dw_var_found(dw, dw_lookup_var_at(dw, addr), t))
		return 0;
	if (name && !dw_var_found(dw, dw_lookup_var(dw, name), t))
		return 0;
	pr_debug2("dprof: no variable %s at %#" PRIx64 " in DWARF\n", name ?: "(null)", addr);
	return -ENOENT;
}

static bool dw_size_fits(struct dprof_dwarf *dw, struct dw_type_ent *ent,
			 u64 object_size)
{
	struct dprof_type t;

	if (dprof_cache__size_fits(ent->size, object_size, false))
		return true;
	/* struct with a trailing flexible array: larger objects */
	if (ent->size > object_size || dw_found(dw, ent->off, &t))
		return false;
	return dprof_type__has_flex_tail(&t);
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
 * @t: where to store the struct's type (or its typedef's)
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
			    u64 object_size, struct dprof_type *t)
{
	struct dw_cache_arg ca = { .dw = dw, .object_size = object_size };

	if (!dw || !cache)
		return -ENOENT;
	dprof_cache__candidates(cache, dw_cache_cand, &ca);
	if (!ca.ent || dw_found(dw, ca.ent->off, t)) {
		pr_debug("dprof: no struct for slab cache %s (object size %" PRIu64 ")\n",
			 cache, object_size);
		return -ENOENT;
	}
	return 0;
}

/*
 * The accessors of struct dprof_type_ops over DWARF DIEs; the walks on top
 * of them are in types.c.
 */

/* dimensions of an array type; 0 = no bound given */
static int dw_array_dims(Dwarf_Die *array, u64 *dims, int max_dims)
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
		if (nr == max_dims)
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

static int dw_name(Dwarf_Die *type_die, struct strbuf *sb)
{
	Dwarf_Die mem, elem, *die = dw_strip(type_die, &mem, false);
	u64 dims[DPROF_TYPE_MAX_DIMS];
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
	ret = dw_name(&elem, sb);
	nr = dw_array_dims(die, dims, ARRAY_SIZE(dims));
	for (i = 0; ret >= 0 && i < nr; i++) {
		if (dims[i])
			ret = strbuf_addf(sb, "[%" PRIu64 "]", dims[i]);
		else
			ret = strbuf_addstr(sb, "[]");
	}
	return ret < 0 ? ret : 0;
}

static int dw_type_name(const struct dprof_type *t, struct strbuf *sb)
{
	Dwarf_Die die = t->die;

	return dw_name(&die, sb);
}

static int dw_size(Dwarf_Die *type_die, u64 *size)
{
	Dwarf_Word sz;

	if (dwarf_aggregate_size(type_die, &sz))
		return -ENOENT;
	*size = sz;
	return 0;
}

static int dw_type_size(const struct dprof_type *t, u64 *size)
{
	Dwarf_Die die = t->die;

	return dw_size(&die, size);
}

static int dw_type_resolve(const struct dprof_type *t, struct dprof_type *real)
{
	Dwarf_Die die = t->die, *type = dw_strip(&die, &die, true);

	if (!type)
		return -ENOENT;	/* void */
	dw_type(type, real);
	switch (dwarf_tag(type)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		return DPROF_TYPE_KIND_STRUCT;
	case DW_TAG_union_type:
		return DPROF_TYPE_KIND_UNION;
	case DW_TAG_array_type:
		return DPROF_TYPE_KIND_ARRAY;
	default:
		return DPROF_TYPE_KIND_OTHER;
	}
}

/*
 * Does a class (or struct) hold data: a data member, or a base that
 * does?  Static data members are DW_TAG_variable (DWARF 5) or declared
 * DW_TAG_member (DWARF 4).
 */
static bool dw_has_data(Dwarf_Die *type_die, int depth)
{
	Dwarf_Die mem, child, base, *die = dw_strip(type_die, &mem, true);

	if (!die || depth > DW_MAX_DEPTH || !dw_is_aggregate(dwarf_tag(die)) ||
	    dwarf_child(die, &child))
		return false;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_member:
			if (!dw_is_decl(&child))
				return true;
			break;
		case DW_TAG_inheritance:
			if (die_get_type(&child, &base) && dw_has_data(&base, depth + 1))
				return true;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* a member's bytes [start, end); bitfields cover the bytes they touch */
static int dw_member(Dwarf_Die *member, struct dprof_member *m)
{
	Dwarf_Attribute attr;
	Dwarf_Word loc = 0, bits, bitoff;
	u64 size;

	m->bitfield = false;
	m->name = dwarf_diename(member);
	if (!die_get_type(member, &m->type.die))
		return -ENOENT;
	m->type.src = DPROF_TYPE_DWARF;
	if (dwarf_attr(member, DW_AT_bit_size, &attr) &&
	    !dwarf_formudata(&attr, &bits)) {
		m->bitfield = true;
		if (dwarf_attr(member, DW_AT_data_bit_offset, &attr) &&
		    !dwarf_formudata(&attr, &bitoff)) {
			m->start = bitoff / 8;
			m->end = (bitoff + bits + 7) / 8;
			return 0;
		}
		/* DWARF2 style DW_AT_bit_offset: use the storage unit */
		m->bitfield = false;
	}
	/* union members have no location */
	if (die_get_data_member_location(member, &loc) == -ENOTSUP)
		return -ENOTSUP;
	if (dw_size(&m->type.die, &size))
		size = 0;	/* flexible array, empty struct */
	/*
	 * A base class without data takes no room in the derived one (the
	 * empty base optimization): its 1 byte is the next member's, as
	 * std::string's allocator is its pointer's.
	 */
	if (dwarf_tag(member) == DW_TAG_inheritance &&
	    !dw_has_data(&m->type.die, 0))
		size = 0;
	m->start = loc;
	m->end = loc + size;
	return 0;
}

static int dw_type_members(const struct dprof_type *t, dprof_member_cb cb,
			   void *arg)
{
	Dwarf_Die die = t->die, child;
	struct dprof_member m;
	int tag, ret;

	if (dwarf_child(&die, &child))
		return 0;
	do {
		tag = dwarf_tag(&child);
		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		/* a static data member (DWARF 4) is not in the object */
		if (dw_is_decl(&child))
			continue;
		if (dw_member(&child, &m))
			continue;
		ret = cb(&m, arg);
		if (ret)
			return ret;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int dw_type_array(const struct dprof_type *t, struct dprof_type *elem,
			 u64 *dims, int max_dims)
{
	Dwarf_Die die = t->die;

	if (!die_get_type(&die, &elem->die))
		return 0;
	elem->src = DPROF_TYPE_DWARF;
	return dw_array_dims(&die, dims, max_dims);
}

const struct dprof_type_ops dprof_dwarf_type_ops = {
	.resolve	= dw_type_resolve,
	.size		= dw_type_size,
	.name		= dw_type_name,
	.members	= dw_type_members,
	.array		= dw_type_array,
};

/*
 * The layouts of the types a report handed out, kept for the next one
 * (layouts.c): what the accessors above answer of each DIE, and of each
 * DIE those name, read while the DWARF is still open.
 */

/* a type DIE's key: its offset, with DW_OFF_ALT in the alternate file */
static u64 dw_die_key(struct dprof_dwarf *dw, Dwarf_Die *die)
{
	u64 off = dwarf_dieoffset(die);

	return dwarf_cu_getdwarf(die->cu) == dw->dbg ? off : off | DW_OFF_ALT;
}

static struct dprof_layout *dw_learn(struct dprof_dwarf *dw, Dwarf_Die *die, int depth);

struct dw_learn_arg {
	struct dprof_dwarf	*dw;
	struct dprof_layout	*n;
	int			depth;
};

static int dw_learn_member(const struct dprof_member *m, void *arg)
{
	struct dw_learn_arg *la = arg;
	Dwarf_Die die = m->type.die;

	if (!dw_learn(la->dw, &die, la->depth + 1))
		return -ENOMEM;
	return dprof_layout__add_member(la->n, m->name, m->start, m->end, m->bitfield,
					dw_die_key(la->dw, &die));
}

/* The layout of the type DIE @die, and of those it names; NULL: failed. */
static struct dprof_layout *dw_learn(struct dprof_dwarf *dw, Dwarf_Die *die, int depth)
{
	struct dw_learn_arg la = { .dw = dw, .depth = depth };
	u64 key = dw_die_key(dw, die), dims[DPROF_TYPE_MAX_DIMS];
	struct dprof_type t, real, elem = { .src = DPROF_TYPE_NONE };
	struct strbuf sb = STRBUF_INIT;
	struct dprof_layout *n = dprof_layouts__find(dw->layouts, key);
	int err, nr;

	if (n)
		return n;
	if (depth > DW_MAX_DEPTH)
		return NULL;
	n = dprof_layouts__add(dw->layouts, key);
	if (!n)
		return NULL;
	dw_type(die, &t);
	n->tag = dwarf_tag(die);
	err = dw_type_name(&t, &sb);
	err = dprof_layout__set_names(n, dwarf_diename(die), err ? NULL : (sb.buf ?: ""));
	strbuf_release(&sb);
	if (err)
		return NULL;
	n->has_size = !dw_type_size(&t, &n->size);
	n->kind = dw_type_resolve(&t, &real);
	if (n->kind < 0)
		return n;
	n->real_key = dw_die_key(dw, &real.die);
	if (n->real_key != key)
		return dw_learn(dw, &real.die, depth + 1) ? n : NULL;
	la.n = n;
	switch (n->kind) {
	case DPROF_TYPE_KIND_STRUCT:
	case DPROF_TYPE_KIND_UNION:
		return dw_type_members(&t, dw_learn_member, &la) ? NULL : n;
	case DPROF_TYPE_KIND_ARRAY:
		nr = dw_type_array(&t, &elem, dims, ARRAY_SIZE(dims));
		if (elem.src != DPROF_TYPE_DWARF)
			return n;
		if (!dw_learn(dw, &elem.die, depth + 1))
			return NULL;
		n->elem_key = dw_die_key(dw, &elem.die);
		return dprof_layout__set_dims(n, dims, nr) ? NULL : n;
	default:
		return n;
	}
}

/* A variable's layout: its DIE's tag and name, and its type */
static void dw_learn_var(struct dprof_dwarf *dw, Dwarf_Off off)
{
	struct dprof_layout *n;
	Dwarf_Die var, type;

	if (dprof_layouts__find(dw->layouts, off) || !dwarf_offdie(dw->dbg, off, &var) ||
	    dw_var_die_type(dw, off, &type) || !dw_learn(dw, &type, 0))
		return;
	n = dprof_layouts__add(dw->layouts, off);
	if (!n)
		return;
	n->tag = DW_TAG_variable;
	n->kind = 0;
	n->real_key = dw_die_key(dw, &type);
	dprof_layout__set_names(n, dwarf_diename(&var), NULL);
}

static void dw_learn_handed(struct dprof_dwarf *dw)
{
	struct hashmap_entry *cur;
	Dwarf_Die die;
	size_t bkt;

	hashmap__for_each_entry(dw->handed, cur, bkt) {
		if (cur->value)
			dw_learn_var(dw, cur->key);
		else if (dw_offdie(dw, cur->key, &die))
			dw_learn(dw, &die, 0);
	}
}
