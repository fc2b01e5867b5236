/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_TYPEINFO_H
#define __PERF_DPROF_TYPEINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "util/strbuf.h"
#include "types.h"

struct debuginfo;
struct dprof_class;
struct dprof_resolver;
struct dso;
struct evsel;
struct map;
struct thread;

/*
 * What a row of the data profile is: its type (DWARF of the files the
 * samples came from, or the running kernel's BTF), a description of where
 * its objects come from, and the names of its members by offset.
 *
 * A dprof_typeinfo holds the debug information the rows need, opened once
 * per file; the operand typing of the resolver borrows it.
 */
struct dprof_typeinfo;

struct dprof_typeinfo *dprof_typeinfo__new(struct dprof_resolver *res,
					   const char *os_release);
void dprof_typeinfo__delete(struct dprof_typeinfo *ti);
/* The event whose samples the operand typing decodes (votes for kmalloc). */
void dprof_typeinfo__set_evsel(struct dprof_typeinfo *ti, struct evsel *evsel);
/* Index the DWARF of the vmlinux given, in another thread. */
bool dprof_typeinfo__prepare(struct dprof_typeinfo *ti);
/* A resolver::prefetch(): open the DWARF of these user files ahead. */
void dprof_typeinfo__prefetch(void *arg, const char *const *names, size_t nr);
/* Give back the DWARF pages read so far (see dprof_dwarf__trim()). */
void dprof_typeinfo__trim(void *ti);
/* For dprof_resolver: the debuginfo of @dso's file, opened by @arg. */
struct debuginfo *dprof_typeinfo__debuginfo(void *arg, struct map *map,
					    struct thread *thread, u8 cpumode);

/**
 * struct dprof_row_info - what a row shows
 * @row: the row (merged classes) it describes
 * @type: "struct file", or empty when no debug information has it
 * @desc: where its objects come from: cache, size class, variable
 * @t: the type, when @has_type
 * @has_type: @t and @type are valid
 */
struct dprof_row_info {
	struct dprof_class	*row;
	struct dprof_typeinfo	*ti;		/* the row's type's */
	struct strbuf		type;
	struct strbuf		desc;
	struct dprof_type	t;
	bool			has_type;
};

bool dprof_typeinfo__is_header(void *ti, const struct dprof_class *h,
			       const struct dprof_class *o);

int dprof_row_info__init(struct dprof_row_info *ri, struct dprof_typeinfo *ti,
			 struct dprof_class *row);
void dprof_row_info__exit(struct dprof_row_info *ri);
/* The type name, else the cache or symbol name, else "?". */
const char *dprof_row_info__name(const struct dprof_row_info *ri);
/*
 * --type=NAME: the type with or without "struct ", or the cache/symbol; a
 * row with neither by its description.
 */
bool dprof_row_info__matches(const struct dprof_row_info *ri, const char *name);
/* Member path at @offset ("f_path.dentry"), or "+0x18" without a type. */
void dprof_row_info__member(const struct dprof_row_info *ri, u64 offset,
			    struct strbuf *sb);

/* A member, as the views fold offsets into it. */
struct dprof_member_fold {
	const char	*name;		/* dprof_row_info__member(); dprof_members' */
	u64		offset;		/* the lowest offset folded into it */
};

/**
 * struct dprof_members - offsets folded by the member they fall in
 * @name: per member, its name, owned
 * @nr: members
 * @of: per offset given to dprof_members__fold(), its member
 *
 * One folding for every view: each sums its own statistics by @of.
 */
struct dprof_members {
	char		**name;
	size_t		nr;
	size_t		*of;
};

/*
 * Fold @offsets by member: returns an array of m->nr zeroed elements of
 * @size bytes, each starting with its struct dprof_member_fold, for the caller's
 * statistics; NULL on errors.  free() it, then dprof_members__exit(@m).
 */
void *dprof_members__fold(struct dprof_members *m, const struct dprof_row_info *ri,
			  const u64 *offsets, size_t nr, size_t size);
void dprof_members__exit(struct dprof_members *m);

#endif /* __PERF_DPROF_TYPEINFO_H */
