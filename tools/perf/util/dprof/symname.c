// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the names of perf's symbols as the report shows them.
 *
 * perf demangles every name of a symbol table as it loads it: a large C++
 * library (libLLVM) costs ~50 ms of the demangler, on the replay's critical
 * path (symload.c), for the few names a report ever shows.  The replay
 * turns that off (dprof_symname__setup()) and demangles what it keeps or
 * prints here, with the loading's own demangler (symbol__demangle_name(),
 * perf patch 0061).  Each name is demangled once:
 * the results are kept by name, not by symbol, as the same name stays
 * the same whichever symbol (inlined copy, other process) has it and
 * whatever perf has freed since.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/string.h>

#include "util/debug.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/symbol.h"
#include "util/symbol_conf.h"
#include "hashfn.h"
#include "symname.h"

static struct {
	pthread_mutex_t	lock;
	struct hashmap	*names;		/* name -> demangled, NULL: unchanged */
	bool		setup;
	bool		demangle;	/* the user's symbol_conf.demangle */
	bool		demangle_kernel;
} dprof_symnames = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/**
 * dprof_symname__setup - load symbol tables as their files name them
 *
 * Keeps the user's demangling settings for dprof_symname() and turns
 * perf's off: before the replay loads a table, and before a thread can.
 * Again (diff's second recording): nothing more.
 */
void dprof_symname__setup(void)
{
	if (dprof_symnames.setup)
		return;
	dprof_symnames.demangle = symbol_conf.demangle;
	dprof_symnames.demangle_kernel = symbol_conf.demangle_kernel;
	symbol_conf.demangle = false;
	symbol_conf.demangle_kernel = false;
	dprof_symnames.setup = true;
}

void dprof_symname__exit(void)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!dprof_symnames.setup)
		return;
	if (dprof_symnames.names) {
		hashmap__for_each_entry(dprof_symnames.names, cur, bkt) {
			free((char *)cur->pkey);
			free(cur->pvalue);
		}
		hashmap__free(dprof_symnames.names);
		dprof_symnames.names = NULL;
	}
	symbol_conf.demangle = dprof_symnames.demangle;
	symbol_conf.demangle_kernel = dprof_symnames.demangle_kernel;
	dprof_symnames.setup = false;
}

/* @name demangled, or NULL: not a mangled name perf knows */
static char *dprof_symname__demangle(const char *name)
{
	size_t len = strlen(name);
	char *s;

	/* perf names a PLT entry by its target's name and "@plt" */
	if (len > 4 && !strcmp(name + len - 4, "@plt")) {
		char *target = strndup(name, len - 4), *ret = NULL;

		s = target ? dprof_symname__demangle(target) : NULL;
		if (s && asprintf(&ret, "%s@plt", s) < 0)
			ret = NULL;
		free(target);
		free(s);
		return ret;
	}
	return symbol__demangle_name(name);
}

/**
 * dprof_symname - the name to show of a symbol
 * @dso: the symbol's dso; NULL: a user one
 * @name: the symbol's name in its table
 *
 * Return: @name demangled, kept until dprof_symname__exit(); or @name
 * itself: not mangled, not to be demangled (perf report's --no-demangle,
 * a kernel symbol without --demangle-kernel), or out of memory.
 */
const char *dprof_symname(const struct dso *dso, const char *name)
{
	char *key, *demangled = NULL;
	const char *ret = name;
	bool want;

	if (!name || !dprof_symnames.setup)
		return name;
	want = dso && dso__kernel(dso) ? dprof_symnames.demangle_kernel :
					 dprof_symnames.demangle;
	if (!want)
		return name;

	pthread_mutex_lock(&dprof_symnames.lock);
	if (!dprof_symnames.names) {
		dprof_symnames.names = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
		if (IS_ERR(dprof_symnames.names)) {
			dprof_symnames.names = NULL;
			goto out;
		}
	}
	if (hashmap__find(dprof_symnames.names, name, &demangled)) {
		ret = demangled ?: name;
		goto out;
	}
	key = strdup(name);
	demangled = dprof_symname__demangle(name);
	if (!key || hashmap__add(dprof_symnames.names, key, demangled)) {
		/* shown as the table has it: not worth failing the report */
		free(key);
		free(demangled);
		goto out;
	}
	ret = demangled ?: name;
out:
	pthread_mutex_unlock(&dprof_symnames.lock);
	return ret;
}

bool dprof_symname__perf_kernel(struct machine *machine, u64 ip, bool filters)
{
	struct map *map = NULL;
	struct symbol *sym;
	bool ret;

	if (!machine__kernel_ip(machine, ip))
		return false;
	sym = machine__find_kernel_symbol(machine, ip, &map);
	ret = sym && (strstarts(sym->name, "perf_") || strstarts(sym->name, "__perf_") ||
		      (filters && (!strcmp(sym->name, "filter_match_preds") ||
				   strstarts(sym->name, "filter_pred_"))));
	map__put(map);
	return ret;
}
