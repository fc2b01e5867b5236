// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: load the symbol tables of sampled user files in a thread.
 *
 * The replay looks up a symbol in a file the first time a sample's code
 * or data falls in it, and perf then loads the file's whole symbol table
 * on the main thread: tens of thousands of symbols for a large C++
 * library (libLLVM: 45,000), their names left mangled (symname.c
 * demangles those shown).  The first pass knows which files the samples
 * fall in; the replay hands their dsos over as it creates them, at their
 * mmap records, and this thread loads them (perf's dso__load() under the
 * dso's lock) while the replay goes on: when it needs one, it finds the
 * table loaded or waits for what is left on that lock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "util/debug.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/map.h"
#include "util/symbol.h"
#include "hashfn.h"
#include "resolve.h"
#include "symload.h"

struct dprof_symload {
	pthread_t		tid;
	struct machine		*machine;
	struct hashmap		*names;		/* the files not handed over yet */
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	/* under @lock */
	struct dso		**queue;
	size_t			head;
	size_t			nr;
	size_t			alloc;
	bool			stop;
};

static void *dprof_symload__run(void *arg)
{
	struct dprof_symload *sl = arg;

	pthread_mutex_lock(&sl->lock);
	while (!sl->stop) {
		struct dso *dso;

		if (sl->head == sl->nr) {
			pthread_cond_wait(&sl->cond, &sl->lock);
			continue;
		}
		dso = sl->queue[sl->head];
		sl->queue[sl->head++] = NULL;
		pthread_mutex_unlock(&sl->lock);
		/*
		 * The first opening of the dso's data finds its file and
		 * writes binary_type (under dso__data_open_lock: a field of
		 * its own, perf patch 0048), done here before the loading
		 * that reads it.
		 */
		if (dso__data_get_fd(dso, sl->machine) >= 0)
			dso__data_put_fd(dso);
		/* as map__load(): a user dso's loading needs no map */
		if (!dso__loaded(dso) && dso__load(dso, NULL) < 0)
			pr_debug("dprof: no symbols in %s\n", dso__long_name(dso));
		dso__put(dso);
		pthread_mutex_lock(&sl->lock);
	}
	pthread_mutex_unlock(&sl->lock);
	return NULL;
}

static void dprof_symload__free(struct dprof_symload *sl)
{
	struct hashmap_entry *cur;
	size_t bkt, i;

	for (i = sl->head; i < sl->nr; i++)
		dso__put(sl->queue[i]);
	free(sl->queue);
	if (!IS_ERR_OR_NULL(sl->names)) {
		hashmap__for_each_entry(sl->names, cur, bkt)
			free((char *)cur->pkey);
		hashmap__free(sl->names);
	}
	free(sl);
}

/**
 * dprof_symload__new - start loading the symbols of user files in a thread
 * @machine: the machine whose dsos they are
 * @names: the files, as their mmap records name them
 * @nr: how many
 *
 * perf's locks are real from now on (dprof_threads__get()), until
 * dprof_symload__delete().
 *
 * Return: the loader, or NULL (the replay loads every table itself).
 */
struct dprof_symload *dprof_symload__new(struct machine *machine,
					 const char *const *names, size_t nr)
{
	struct dprof_symload *sl;
	size_t i;

	if (!nr)
		return NULL;
	sl = zalloc(sizeof(*sl));
	if (!sl)
		return NULL;
	sl->machine = machine;
	sl->names = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	if (IS_ERR(sl->names))
		goto fail;
	for (i = 0; i < nr; i++) {
		char *name = strdup(names[i]);

		if (!name || hashmap__add(sl->names, name, 0)) {
			free(name);
			goto fail;
		}
	}
	pthread_mutex_init(&sl->lock, NULL);
	pthread_cond_init(&sl->cond, NULL);
	dprof_threads__get();
	if (pthread_create(&sl->tid, NULL, dprof_symload__run, sl)) {
		dprof_threads__put();
		pthread_mutex_destroy(&sl->lock);
		pthread_cond_destroy(&sl->cond);
		goto fail;
	}
	return sl;
fail:
	dprof_symload__free(sl);
	return NULL;
}

/**
 * dprof_symload__delete - stop the loader
 * @sl: the loader, or NULL
 *
 * A table it is loading is finished; those queued behind it are left to
 * the first lookup.
 */
void dprof_symload__delete(struct dprof_symload *sl)
{
	if (!sl)
		return;
	pthread_mutex_lock(&sl->lock);
	sl->stop = true;
	pthread_cond_signal(&sl->cond);
	pthread_mutex_unlock(&sl->lock);
	pthread_join(sl->tid, NULL);
	dprof_threads__put();
	pthread_mutex_destroy(&sl->lock);
	pthread_cond_destroy(&sl->cond);
	dprof_symload__free(sl);
}

bool dprof_symload__wants(struct dprof_symload *sl, const char *name)
{
	return sl && hashmap__find(sl->names, name, NULL);
}

void dprof_symload__map(struct dprof_symload *sl, struct map *map,
			const char *filename)
{
	struct dso *dso = map ? map__dso(map) : NULL;
	char *name = NULL;

	if (!dso || !sl || dso__kernel(dso) != DSO_SPACE__USER || dso__loaded(dso) ||
	    !hashmap__delete(sl->names, filename, &name, NULL))
		return;
	free(name);
	pthread_mutex_lock(&sl->lock);
	if (sl->nr == sl->alloc) {
		size_t alloc = sl->alloc ? 2 * sl->alloc : 16;
		struct dso **queue = realloc(sl->queue, alloc * sizeof(*queue));

		if (!queue) {
			pthread_mutex_unlock(&sl->lock);
			return;
		}
		sl->queue = queue;
		sl->alloc = alloc;
	}
	sl->queue[sl->nr++] = dso__get(dso);
	pthread_cond_signal(&sl->cond);
	pthread_mutex_unlock(&sl->lock);
}
