/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_TYPECACHE_H
#define __PERF_DPROF_TYPECACHE_H

#include <stdbool.h>
#include <linux/types.h>

#include <stdio.h>

struct build_id;
struct dso;
struct dprof_typed;
struct dprof_typecache;
struct dprof_typecache_dso;

struct dprof_typecache *dprof_typecache__new(const char *dir);
struct dprof_typecache *dprof_typecache__get(struct dprof_typecache *tc);
void dprof_typecache__put(struct dprof_typecache *tc);
int dprof_typecache__save(struct dprof_typecache *tc);
void dprof_typecache__forget(struct dprof_typecache *tc);

/* The files of what reports learned of a binary, under the cache's directory */
int dprof_typecache__path(const struct dprof_typecache *tc, const struct build_id *bid,
			  const char *kind, char *path, size_t size);
int dprof_typecache__read(const struct dprof_typecache *tc, const char *path,
			  const char *kind, bool (*parse)(void *arg, char *line),
			  void *arg);
FILE *dprof_typecache__create(const struct dprof_typecache *tc, const char *path,
			      const char *kind, char *tmp, size_t size);
int dprof_typecache__commit(FILE *f, const char *tmp, const char *path);
bool dprof_typecache__has_debuginfo(const char *path, struct build_id *bid);

/* @dso's cache, loaded at the first call; NULL: @dso cannot be cached. */
struct dprof_typecache_dso *dprof_typecache__dso(struct dprof_typecache *tc,
						 struct dso *dso);
/*
 * The typing of the code at @rip (an address in @cd's dso) a report made
 * before, with this perf: 0 and @t set (t->type_name NULL: no type), or
 * -ENOENT.  Only what the file had: any thread may ask.
 */
int dprof_typecache_dso__find(const struct dprof_typecache_dso *cd, u64 rip,
			      struct dprof_typed *t);
/*
 * Learn perf's typing @t at @rip (t->type_name NULL: none).  t->type_name
 * and t->key become the cache's: the same type (name and size, perf's
 * identity of a dso's data types) has one name and key, found or made.
 * Returns -ENOMEM when it could not (@t is left alone).
 */
int dprof_typecache_dso__add(struct dprof_typecache_dso *cd, u64 rip,
			     struct dprof_typed *t);

/* the code at an address, and the instruction before it */
#define DPROF_TC_CODE_MAX	16

/*
 * The bytes at @rip a report read before (*@bytes) and those of the
 * instruction before (*@prev, *@prev_len of them; 0: not known), both in
 * the cache until it is put: returns how many bytes at @rip, or -ENOENT.
 */
int dprof_typecache_dso__code(const struct dprof_typecache_dso *cd, u64 rip,
			      const u8 **bytes, const u8 **prev, int *prev_len);
int dprof_typecache_dso__add_code(struct dprof_typecache_dso *cd, u64 rip,
				  const u8 *bytes, int len, const u8 *prev, int prev_len);

/* Strings kept for an address of a binary: made from its DWARF lines */
enum dprof_tc_strs {
	DPROF_TC_SRCLINE,	/* get_srcline()'s */
	DPROF_TC_INLINES,	/* the inlined functions' names and lines, in pairs */
	DPROF_TC_STRS__NR,
};

/*
 * What a report kept of @kind for @rip: 0 with *@nr strings at *@v (each
 * may be NULL; in the cache until it is put), or -ENOENT.
 */
int dprof_typecache_dso__strs(const struct dprof_typecache_dso *cd,
			      enum dprof_tc_strs kind, u64 rip, u32 *nr,
			      const char *const **v);
/* Learn @nr strings at @v for @rip: 0, or -ENOMEM. */
int dprof_typecache_dso__add_strs(struct dprof_typecache_dso *cd,
				  enum dprof_tc_strs kind, u64 rip, u32 nr,
				  const char *const *v);

/*
 * The data symbol that held @rip (an address in @cd's dso) when a report
 * looked before: 0 with its bounds and *@name (NULL: no data symbol
 * there; in the cache until it is put), or -ENOENT.
 */
int dprof_typecache_dso__static(const struct dprof_typecache_dso *cd, u64 rip,
				u64 *start, u64 *end, const char **name);
/* Learn what perf's symbol table answered for @rip (@name NULL: none). */
int dprof_typecache_dso__add_static(struct dprof_typecache_dso *cd, u64 rip,
				    u64 start, u64 end, const char *name);

#endif /* __PERF_DPROF_TYPECACHE_H */
