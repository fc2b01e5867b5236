/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_TYPECACHE_H
#define __PERF_DPROF_TYPECACHE_H

#include <stdbool.h>
#include <linux/types.h>

struct dso;
struct dprof_typed;
struct dprof_typecache;
struct dprof_typecache_dso;

struct dprof_typecache *dprof_typecache__new(const char *dir);
void dprof_typecache__delete(struct dprof_typecache *tc);
int dprof_typecache__save(struct dprof_typecache *tc);

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

#endif /* __PERF_DPROF_TYPECACHE_H */
