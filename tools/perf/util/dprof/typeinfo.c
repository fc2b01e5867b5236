// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the type of each row of the data profile, and its members.
 *
 * A slab row's type is the struct its cache holds (DWARF by cache name,
 * checked against the object size), a variable's is its DWARF type, a
 * kmalloc row's is the type most of its accesses' operands agree on.
 * BTF stands in for a missing vmlinux when the recording was made on the
 * running kernel.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "util/debug.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/symbol_conf.h"
#include "util/thread.h"
#include "btftypes.h"
#include "dwtypes.h"
#include "profile.h"
#include "resolve.h"
#include "typecache.h"
#include "hashfn.h"
#include "typeinfo.h"

/*
 * The DWARF of the user files a first pass found samples in, opened in a
 * thread while the replay goes on (see dprof_typeinfo__prefetch()).
 */
struct dprof_prefetch {
	pthread_t		tid;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	char			**names;	/* by their first samples */
	struct dprof_dwarf	**dws;		/* NULL: no DWARF, or taken */
	size_t			nr;
	/* where earlier reports kept their lookups (a reference) */
	struct dprof_typecache	*tcache;
	/* under @lock */
	size_t			nr_done;
	bool			finished;
	bool			stop;
};

/* how much lower the prefetch's priority is than the replay's */
#define DPROF_PREFETCH_NICE	10

struct dprof_typeinfo {
	struct dprof_resolver	*res;
	struct dprof_prefetch	*prefetch;
	struct evsel		*evsel;		/* for the operand typing */
	struct hashmap		*dwarf;		/* file name -> struct dprof_dwarf * */
	struct dprof_btf	*btf;		/* this kernel's, when recorded here */
	bool			btf_tried;
	const char		*os_release;	/* of the recording */
	unsigned int		nr_row_reads;	/* see dprof_typeinfo__row_read() */
};

struct dprof_typeinfo *dprof_typeinfo__new(struct dprof_resolver *res,
					   const char *os_release)
{
	struct dprof_typeinfo *ti = zalloc(sizeof(*ti));

	if (!ti)
		return NULL;
	ti->dwarf = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	if (IS_ERR(ti->dwarf)) {
		free(ti);
		return NULL;
	}
	ti->res = res;
	ti->os_release = os_release;
	return ti;
}

static void *dprof_prefetch__run(void *arg)
{
	struct dprof_prefetch *pf = arg;
	size_t i;

	/*
	 * Yield to the replay and to the kernel's walk, which the replay
	 * waits for sooner; the walks this starts inherit it.
	 */
	if (setpriority(PRIO_PROCESS, gettid(), DPROF_PREFETCH_NICE))
		pr_debug("dprof: prefetch at the replay's priority: %m\n");
	for (i = 0; i < pf->nr; i++) {
		struct dprof_dwarf *dw;
		bool stop;

		pthread_mutex_lock(&pf->lock);
		stop = pf->stop;
		pthread_mutex_unlock(&pf->lock);
		if (stop)
			break;
		dw = dprof_dwarf__new_kept(pf->names[i], pf->tcache);
		/*
		 * Indexed as ahead of a typing: perf's global variables are
		 * kept for the first one.  Joined here, which gives back what
		 * the walk read before the file is handed over.  Not when an
		 * earlier report's lookups were kept.
		 */
		if (dw && !dprof_dwarf__kept(dw) && !dprof_dwarf__index_start(dw))
			dprof_dwarf__index(dw);
		pthread_mutex_lock(&pf->lock);
		pf->dws[i] = dw;
		pf->nr_done = i + 1;
		pthread_cond_broadcast(&pf->cond);
		pthread_mutex_unlock(&pf->lock);
	}
	pthread_mutex_lock(&pf->lock);
	pf->finished = true;
	pthread_cond_broadcast(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

static void dprof_prefetch__delete(struct dprof_prefetch *pf)
{
	size_t i;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->tid, NULL);
	dprof_typecache__put(pf->tcache);
	for (i = 0; i < pf->nr; i++) {
		dprof_dwarf__delete(pf->dws[i]);
		free(pf->names[i]);
	}
	free(pf->dws);
	free(pf->names);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->cond);
	free(pf);
}

/**
 * dprof_typeinfo__prefetch - open the DWARF of user files ahead
 * @arg: the type information (struct dprof_typeinfo)
 * @names: the files, in the order the typing is expected to need them
 * @nr: how many
 *
 * The operand typing of user code opens and indexes the DWARF of each
 * file at its first typing there: ~0.2 s of the main thread on the demo
 * recording (a C library's compressed debuginfo, a Python runtime's).
 * A thread opens and indexes them one after the other from now on, at a
 * lower priority; the first typing of a file waits for what is left of
 * its opening.
 */
void dprof_typeinfo__prefetch(void *arg, const char *const *names, size_t nr)
{
	struct dprof_typeinfo *ti = arg;
	struct dprof_prefetch *pf;
	size_t i;

	if (ti->prefetch || !nr || ti->res->typed_off)
		return;
	pf = zalloc(sizeof(*pf));
	if (!pf)
		return;
	pf->names = calloc(nr, sizeof(*pf->names));
	pf->dws = calloc(nr, sizeof(*pf->dws));
	if (!pf->names || !pf->dws)
		goto fail;
	for (pf->nr = 0; pf->nr < nr; pf->nr++) {
		pf->names[pf->nr] = strdup(names[pf->nr]);
		if (!pf->names[pf->nr])
			goto fail;
	}
	pf->tcache = dprof_typecache__get(ti->res->tcache);
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	if (pthread_create(&pf->tid, NULL, dprof_prefetch__run, pf)) {
		pthread_mutex_destroy(&pf->lock);
		pthread_cond_destroy(&pf->cond);
		dprof_typecache__put(pf->tcache);
		goto fail;
	}
	ti->prefetch = pf;
	return;
fail:
	for (i = 0; pf->names && i < pf->nr; i++)
		free(pf->names[i]);
	free(pf->names);
	free(pf->dws);
	free(pf);
}

/*
 * The handle the prefetch opened for @path, waiting for it: false when
 * @path is not one of its files, or it stopped before.
 */
static bool dprof_prefetch__take(struct dprof_prefetch *pf, const char *path,
				 struct dprof_dwarf **dw)
{
	bool taken = false;
	size_t i;

	if (!pf)
		return false;
	for (i = 0; i < pf->nr; i++) {
		if (!strcmp(pf->names[i], path))
			break;
	}
	if (i == pf->nr)
		return false;
	pthread_mutex_lock(&pf->lock);
	while (pf->nr_done <= i && !pf->finished)
		pthread_cond_wait(&pf->cond, &pf->lock);
	if (i < pf->nr_done) {
		*dw = pf->dws[i];
		pf->dws[i] = NULL;
		taken = true;
	}
	pthread_mutex_unlock(&pf->lock);
	return taken;
}

void dprof_typeinfo__delete(struct dprof_typeinfo *ti)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!ti)
		return;
	dprof_prefetch__delete(ti->prefetch);
	hashmap__for_each_entry(ti->dwarf, cur, bkt) {
		dprof_dwarf__delete(cur->pvalue);
		free((char *)cur->pkey);
	}
	hashmap__free(ti->dwarf);
	dprof_btf__delete(ti->btf);
	free(ti);
}

void dprof_typeinfo__set_evsel(struct dprof_typeinfo *ti, struct evsel *evsel)
{
	ti->evsel = evsel;
}

/* Give back the DWARF pages read so far (see dprof_dwarf__trim()). */
void dprof_typeinfo__trim(void *arg)
{
	struct dprof_typeinfo *ti = arg;
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(ti->dwarf, cur, bkt)
		dprof_dwarf__trim(cur->pvalue);
}

/*
 * One handle per file, not per dso: a recording can have several dsos for
 * the same vmlinux (the kernel map and those the samples' maps were made
 * from), and opening and indexing a vmlinux's DWARF costs ~0.1 s each time.
 */
static struct dprof_dwarf *dprof_typeinfo__dwarf_path(struct dprof_typeinfo *ti,
						      const char *path)
{
	struct dprof_dwarf *dw = NULL;
	char *key;

	if (hashmap__find(ti->dwarf, path, &dw))
		return dw;
	key = strdup(path);
	if (!key)
		return NULL;
	/* dprof_dwarf__new_kept() says why when there is none */
	if (!dprof_prefetch__take(ti->prefetch, path, &dw))
		dw = dprof_dwarf__new_kept(path, ti->res->tcache);
	if (hashmap__add(ti->dwarf, key, dw)) {
		dprof_dwarf__delete(dw);
		free(key);
		return NULL;
	}
	return dw;
}

static struct dprof_dwarf *dprof_typeinfo__dwarf_open(struct dprof_typeinfo *ti,
						      struct dso *dso)
{
	return dso ? dprof_typeinfo__dwarf_path(ti, dso__long_name(dso)) : NULL;
}

/**
 * dprof_typeinfo__prepare - start indexing the kernel's DWARF, early
 * @ti: the type information of a report about to replay its recording
 *
 * Return: true when the kernel's DWARF lookups were kept by an earlier
 * report (dprof_dwarf__new_kept()): there is no walk to start.
 *
 * With a vmlinux given (-k), perf loads the kernel's symbols from that
 * file and nothing else, and names the kernel's dso by it: the file the
 * operand typing and the rows will need is known before the replay.  Its
 * DWARF is opened now and indexed in another thread while the replay
 * reads the snapshot and the symbol tables (dprof_dwarf__index_start());
 * the first typing waits for what is left of the walk.
 */
bool dprof_typeinfo__prepare(struct dprof_typeinfo *ti)
{
	struct dprof_dwarf *dw;

	if (ti->res->typed_off || symbol_conf.ignore_vmlinux ||
	    !symbol_conf.vmlinux_name)
		return false;
	dw = dprof_typeinfo__dwarf_path(ti, symbol_conf.vmlinux_name);
	/* the lookups of an earlier report: no walk, unless one is not there */
	if (dprof_dwarf__kept(dw))
		return true;
	if (dw && dprof_dwarf__index_start(dw))
		pr_debug("dprof: indexing %s at its first use\n", symbol_conf.vmlinux_name);
	return false;
}

/* The DWARF index of @dso's file; NULL when it has none. */
static struct dprof_dwarf *dprof_typeinfo__dwarf(struct dprof_typeinfo *ti,
						 struct dso *dso)
{
	struct dprof_dwarf *dw = dprof_typeinfo__dwarf_open(ti, dso);

	return dw && !dprof_dwarf__ready(dw) ? dw : NULL;
}

/*
 * The operand typing reads the same files: lend it the open debuginfo
 * rather than have it open a vmlinux's DWARF (~0.06 s, ~230 MB) again.
 * Its first global variable lookup walks every CU for the variables, as
 * the index does: build the index now and collect them in the same walk.
 */
struct debuginfo *dprof_typeinfo__debuginfo(void *arg, struct map *map,
					    struct thread *thread, u8 cpumode)
{
	struct dprof_dwarf *dw = dprof_typeinfo__dwarf_open(arg, map__dso(map));

	if (dw)
		dprof_dwarf__index_vars(dw, map, thread, cpumode);
	return dprof_dwarf__debuginfo(dw);
}

/*
 * BTF describes the running kernel only: use it for a recording of this
 * very kernel, never to put another kernel's layout on the samples.
 */
static struct dprof_btf *dprof_typeinfo__btf(struct dprof_typeinfo *ti)
{
	struct utsname uts;

	if (ti->btf_tried)
		return ti->btf;
	ti->btf_tried = true;
	if (!ti->os_release || uname(&uts) || strcmp(uts.release, ti->os_release)) {
		pr_debug("dprof: recorded on kernel %s, not this one: no BTF\n",
			 ti->os_release ?: "?");
		return NULL;
	}
	ti->btf = dprof_btf__new(NULL);
	return ti->btf;
}

static struct dso *dprof_typeinfo__kernel_dso(struct dprof_typeinfo *ti)
{
	struct map *kmap = machine__kernel_map(ti->res->machine);

	return kmap ? map__dso(kmap) : NULL;
}

/*
 * The type @name in @dso; of @size (0: any) where a user file's DWARF has
 * several types of that name (C++ names them by their scope, the typing
 * by their own name: Table::Rep and TableBuilder::Rep are both "Rep").
 */
static bool dprof_typeinfo__struct_sized(struct dprof_typeinfo *ti, struct dso *dso,
					 const char *name, u64 size,
					 struct dprof_type *t)
{
	bool kernel = !dso || dso__kernel(dso) != DSO_SPACE__USER;

	if (!strncmp(name, "struct ", 7))
		name += 7;
	else if (!strncmp(name, "union ", 6))
		name += 6;
	if (!kernel)
		return !dprof_dwarf__find_struct_sized(dprof_typeinfo__dwarf(ti, dso),
						       name, size, t);
	/* BTF only knows kernel types */
	return !dprof_types__find_struct(dprof_typeinfo__dwarf(ti, dso),
					 dprof_typeinfo__btf(ti), name, t);
}

static bool dprof_typeinfo__struct(struct dprof_typeinfo *ti, struct dso *dso,
				   const char *name, struct dprof_type *t)
{
	return dprof_typeinfo__struct_sized(ti, dso, name, 0, t);
}

/*
 * What the code thinks it touches: when an operand's type starts at the
 * object's base, it is a candidate for the object's type (kmalloc objects
 * have no other).  Done per (ip, offset) site of a row about to be shown,
 * weighted by samples: typing an operand costs a disassembly and a DWARF
 * scope walk, too much to do for every sampled ip during the replay.
 */
static void dprof_typeinfo__vote(struct dprof_typeinfo *ti,
				 struct dprof_class *row)
{
	struct thread *thread = machine__idle_thread(ti->res->machine);
	struct hashmap_entry *cur;
	struct dprof_typed typed;
	size_t bkt;

	if (!thread || !ti->evsel)
		return;
	hashmap__for_each_entry(row->sites, cur, bkt) {
		struct dprof_site *site = cur->pvalue;
		int err;

		/*
		 * User code: its process may be gone, and another can have
		 * other code at the same ip; ask for it by its DSO, as the
		 * replay typed it.  Kernel code: any thread's kernel maps.
		 */
		if (!machine__kernel_ip(ti->res->machine, site->ip))
			err = dprof_resolver__typed_at(ti->res, site->sym_dso,
						       site->ip, &typed);
		else
			err = dprof_resolver__typed(ti->res, thread, ti->evsel,
						    site->ip, &typed);
		if (!err && typed.offset == site->offset && typed.type_size > 1 &&
		    typed.type_size <= row->alloc_size)
			dprof_class__vote(row, typed.type_name, typed.dso,
					  site->stats.samples);
	}
	thread__put(thread);
}

/* The type most accesses at offset-aligned operands agree on. */
static bool dprof_typeinfo__voted(struct dprof_typeinfo *ti,
				  struct dprof_class *row, struct dprof_type *t)
{
	const struct dprof_vote *v;

	dprof_typeinfo__vote(ti, row);
	v = dprof_class__best_vote(row);
	return v && dprof_typeinfo__struct(ti, v->dso, v->name, t);
}

/*
 * A variable's type: DWARF by address (a static name can be in many CUs),
 * by name; else BTF, which has per-cpu variables only.
 */
static bool dprof_typeinfo__var(struct dprof_typeinfo *ti, struct dso *dso,
				struct dprof_class *row, struct dprof_type *t)
{
	struct dprof_dwarf *dw = dprof_typeinfo__dwarf(ti, dso);
	struct dprof_btf *db = NULL;

	if (!dw && row->kind == DPROF_KIND_PERCPU)
		db = dprof_typeinfo__btf(ti);
	return !dprof_types__var_type(dw, db, row->name, row->key, t);
}

/* The type a row holds, from DWARF or BTF; false when nothing tells. */
static bool dprof_typeinfo__row_type(struct dprof_typeinfo *ti,
				     struct dprof_class *row,
				     struct dprof_type *t)
{
	struct dso *kdso = dprof_typeinfo__kernel_dso(ti);

	switch (row->kind) {
	case DPROF_KIND_SLAB:
		if (row->name &&
		    !dprof_types__cache_type(dprof_typeinfo__dwarf(ti, kdso),
					     dprof_typeinfo__btf(ti),
					     row->name, row->obj_size, t))
			return true;
		return dprof_typeinfo__voted(ti, row, t);
	case DPROF_KIND_PERCPU:
		return dprof_typeinfo__var(ti, kdso, row, t);
	case DPROF_KIND_STATIC:
		return dprof_typeinfo__var(ti, row->dso, row, t);
	/* obj_size: the size of the type the operand typing found */
	case DPROF_KIND_TYPED:
	case DPROF_KIND_STACK:
	case DPROF_KIND_OPERAND:
		return dprof_typeinfo__struct_sized(ti, row->dso, row->name,
						    row->obj_size, t);
	case DPROF_KIND_KMALLOC:
		return dprof_typeinfo__voted(ti, row, t);
	case DPROF_KIND_HEAP:
		/* by its accesses' operand type; a site's own row has none */
		return row->type_key &&
		       dprof_typeinfo__struct_sized(ti, row->type_dso, row->name,
						    row->obj_size, t);
	case DPROF_KIND__MAX:
	default:
		return false;
	}
}

/* " in a 64 KiB block": the heap block a type lives in */
static void dprof_row_info__block(u64 size, struct strbuf *sb)
{
	if (size >= 1024 * 1024 && !(size % (1024 * 1024)))
		strbuf_addf(sb, " in a %" PRIu64 " MiB block", size / (1024 * 1024));
	else if (size >= 1024 && !(size % 1024))
		strbuf_addf(sb, " in a %" PRIu64 " KiB block", size / 1024);
	else
		strbuf_addf(sb, " in a %" PRIu64 " B block", size);
}

/* Where a row's objects come from: cache, size class and site, variable. */
static void dprof_row_info__describe(const struct dprof_class *row,
				     struct strbuf *sb)
{
	switch (row->kind) {
	case DPROF_KIND_SLAB:
		if (row->name)
			strbuf_addstr(sb, row->name);
		else
			strbuf_addf(sb, "slab? %" PRIu64 "B @%s", row->alloc_size,
				    row->site_name ?: "?");
		return;
	case DPROF_KIND_KMALLOC:
		strbuf_addf(sb, "%s @%s", row->name ?: "kmalloc",
			    row->site_name ?: "?");
		return;
	case DPROF_KIND_PERCPU:
		strbuf_addf(sb, "percpu %s", row->name);
		return;
	case DPROF_KIND_TYPED:
		strbuf_addstr(sb, "(no alloc event: DWARF)");
		break;
	case DPROF_KIND_STACK:
		strbuf_addstr(sb, "stack (DWARF local)");
		break;
	case DPROF_KIND_OPERAND:
		strbuf_addstr(sb, "(operand only)");
		break;
	case DPROF_KIND_HEAP:
		strbuf_addf(sb, "heap %s", row->site_name ?: "?");
		/* a type only ever seen inside bigger blocks */
		if (row->type_key && !row->inst_whole)
			dprof_row_info__block(row->alloc_size, sb);
		return;
	case DPROF_KIND_STATIC:
	case DPROF_KIND__MAX:
	default:
		strbuf_addf(sb, "static %s", row->name);
		break;
	}
	/* a row typed in a user DSO says which one */
	if (row->dso && dso__kernel(row->dso) == DSO_SPACE__USER)
		strbuf_addf(sb, " (%s)", dso__short_name(row->dso));
}

/* rows whose DWARF is read between two dprof_typeinfo__trim() */
#define DPROF_ROW_TRIM	4

/*
 * The views read the DWARF of a row's type (its name, then its members'),
 * a few places of the file per row, and the file's pages stay mapped:
 * give them back every few rows, as the replay does every few typings.
 */
static void dprof_typeinfo__row_read(struct dprof_typeinfo *ti)
{
	if (ti && !(++ti->nr_row_reads % DPROF_ROW_TRIM))
		dprof_typeinfo__trim(ti);
}

/*
 * For dprof_profile__heap_headers(): the type of user heap class @h is a
 * header of @o's (both by their accesses' operand types).
 */
bool dprof_typeinfo__is_header(void *arg, const struct dprof_class *h,
			       const struct dprof_class *o)
{
	struct dprof_typeinfo *ti = arg;
	struct dprof_type th, to;

	/* by size too: C++'s Table::Rep and Builder::Rep are two types */
	return h->name && o->name &&
	       dprof_typeinfo__struct_sized(ti, h->type_dso, h->name, h->obj_size, &th) &&
	       dprof_typeinfo__struct_sized(ti, o->type_dso, o->name, o->obj_size, &to) &&
	       dprof_type__is_prefix(&th, &to);
}

int dprof_row_info__init(struct dprof_row_info *ri, struct dprof_typeinfo *ti,
			 struct dprof_class *row)
{
	memset(ri, 0, sizeof(*ri));
	ri->row = row;
	ri->ti = ti;
	dprof_typeinfo__row_read(ti);
	if (strbuf_init(&ri->type, 32) || strbuf_init(&ri->desc, 32)) {
		dprof_row_info__exit(ri);
		return -ENOMEM;
	}
	dprof_row_info__describe(row, &ri->desc);
	ri->has_type = ti && dprof_typeinfo__row_type(ti, row, &ri->t) &&
		       !dprof_type__name_str(&ri->t, &ri->type);
	return 0;
}

void dprof_row_info__exit(struct dprof_row_info *ri)
{
	strbuf_release(&ri->type);
	strbuf_release(&ri->desc);
}

const char *dprof_row_info__name(const struct dprof_row_info *ri)
{
	return ri->has_type ? ri->type.buf : (ri->row->name ?: "?");
}

static bool dprof_type_name__is(const char *type, const char *name)
{
	return type && (!strcmp(type, name) ||
			(!strncmp(type, "struct ", 7) && !strcmp(type + 7, name)));
}

bool dprof_row_info__matches(const struct dprof_row_info *ri, const char *name)
{
	u32 i;

	if (dprof_type_name__is(ri->type.buf, name))
		return true;
	if (ri->row->name && !strcmp(ri->row->name, name))
		return true;
	/* the operand type of accesses counted for the row's: its header */
	for (i = 0; i < ri->row->nr_heads; i++) {
		if (dprof_type_name__is(ri->row->heads[i]->name, name))
			return true;
	}
	/* a row with no type, by what it prints: "heap xmalloc (x.c:12)" */
	return !ri->has_type && !ri->row->name && ri->desc.buf &&
	       !strcmp(ri->desc.buf, name);
}

void dprof_row_info__member(const struct dprof_row_info *ri, u64 offset,
			    struct strbuf *sb)
{
	size_t len = sb->len;

	if (ri->has_type && !dprof_type__member(&ri->t, offset, sb)) {
		/* a scalar or an array element has no member name */
		if (sb->len == len)
			strbuf_addf(sb, "+%#" PRIx64, offset);
		return;
	}
	strbuf_addf(sb, "+%#" PRIx64, offset);
}

void dprof_members__exit(struct dprof_members *m)
{
	size_t i;

	for (i = 0; m->name && i < m->nr; i++)
		free(m->name[i]);
	zfree(&m->name);
	zfree(&m->of);
	m->nr = 0;
}

void *dprof_members__fold(struct dprof_members *m, const struct dprof_row_info *ri,
			  const u64 *offsets, size_t nr, size_t size)
{
	struct hashmap *names;
	struct dprof_member_fold *mb;
	char *array;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (ri->has_type)
		dprof_typeinfo__row_read(ri->ti);
	array = calloc(nr + 1, size);
	m->name = calloc(nr + 1, sizeof(*m->name));
	m->of = calloc(nr + 1, sizeof(*m->of));
	names = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
	if (!array || !m->name || !m->of || IS_ERR(names))
		goto out_err;
	for (i = 0; i < nr; i++) {
		struct strbuf sb = STRBUF_INIT;
		size_t k;

		dprof_row_info__member(ri, offsets[i], &sb);
		if (!sb.buf)
			goto out_err;
		if (hashmap__find(names, sb.buf, &k)) {
			strbuf_release(&sb);
			mb = (struct dprof_member_fold *)(array + k * size);
			if (offsets[i] < mb->offset)
				mb->offset = offsets[i];
		} else {
			k = m->nr++;
			m->name[k] = strbuf_detach(&sb, NULL);
			mb = (struct dprof_member_fold *)(array + k * size);
			mb->name = m->name[k];
			mb->offset = offsets[i];
			if (hashmap__add(names, m->name[k], k))
				goto out_err;
		}
		m->of[i] = k;
	}
	hashmap__free(names);
	return array;

out_err:
	if (!IS_ERR(names))
		hashmap__free(names);
	dprof_members__exit(m);
	free(array);
	return NULL;
}
