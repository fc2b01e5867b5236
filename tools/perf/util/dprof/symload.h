/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_SYMLOAD_H
#define __PERF_DPROF_SYMLOAD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The symbol tables of the user files a first pass found samples in,
 * loaded in a thread as their mappings appear during the replay, before
 * the replay looks a symbol up in them.
 */
struct dprof_symload;
struct machine;
struct map;

struct dprof_symload *dprof_symload__new(struct machine *machine,
					 const char *const *names, size_t nr);
void dprof_symload__delete(struct dprof_symload *sl);
/* Whether the file @name is one to load and not taken yet. */
bool dprof_symload__wants(struct dprof_symload *sl, const char *name);
/* Load @map's dso, when @filename (its mmap record's) is one to load: once. */
void dprof_symload__map(struct dprof_symload *sl, struct map *map,
			const char *filename);

#endif /* __PERF_DPROF_SYMLOAD_H */
