/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_PROFILE_H
#define __PERF_DPROF_PROFILE_H

#include <stdbool.h>
#include <linux/types.h>
#include "datasrc.h"
#include "ea.h"
#include "estimate.h"

struct hashmap;
struct dso;
struct symbol;
struct thread;

/*
 * The data profile aggregates access samples per allocation class as they
 * are replayed (memory use is independent of the number of samples), and
 * merges classes into one row per data type at the end.
 */
enum dprof_kind {
	DPROF_KIND_SLAB,	/* kmem_cache_alloc() object */
	DPROF_KIND_KMALLOC,	/* kmalloc() object: size class + call site */
	DPROF_KIND_STATIC,	/* kernel or user static data symbol */
	DPROF_KIND_PERCPU,	/* kernel per-cpu variable */
	DPROF_KIND_TYPED,	/* DWARF type of the memory operand only */
	DPROF_KIND_STACK,	/* a stack slot DWARF types (a local variable) */
	DPROF_KIND_HEAP,	/* user malloc()/new object: allocation site */
	DPROF_KIND_OPERAND,	/* no access at ip (lea, fused compare): operand type, no address */
	DPROF_KIND__MAX,
};

/* Why an access sample did not get a data type; shown in the header. */
enum dprof_unres {
	DPROF_UNRES_NO_ADDR,		/* memory PMU sample without address */
	DPROF_UNRES_NO_CODE,		/* no code bytes at ip (no vmlinux/ELF) */
	DPROF_UNRES_INSN,		/* decoded, no usable data address */
	DPROF_UNRES_STACK,		/* a stack slot DWARF does not type */
	DPROF_UNRES_NO_OBJECT,		/* kernel address outside live objects */
	DPROF_UNRES_USER_DYNAMIC,	/* user heap/stack/mmap */
	DPROF_UNRES__MAX,
};

/*
 * Why an access sample to a live user heap object is not counted under the
 * type its operand names (the object's site's own row then, untyped).
 */
enum dprof_heap_untyped {
	DPROF_HEAP_NO_TYPE,		/* no operand type at ip (no DWARF, libc) */
	DPROF_HEAP_PAST_END,		/* the type, at the access, leaves the object */
	DPROF_HEAP_UNTYPED__MAX,
};

const char *dprof_heap_untyped__str(enum dprof_heap_untyped why);
const char *dprof_unres__str(enum dprof_unres r);
const char *dprof_kind__str(enum dprof_kind k);

/* What was measured for a set of access samples. */
struct dprof_stats {
	u64	samples;
	u64	writes;
	u64	level_known;	/* samples whose data_src names a level */
	u64	misses;		/* of those, not an L1 hit */
	u64	lat_sum;	/* sum of weights of samples that carry one */
	u64	lat_n;
	u64	hitm;		/* level_known: a snoop hit a modified line */
	u64	remote;		/* level_known: from another node */
	u64	level[DPROF_MEM_LVL__MAX];	/* level_known, by level */
};

void dprof_stats__add(struct dprof_stats *dst, const struct dprof_stats *src);
int dprof_stats__levels_scnprintf(const struct dprof_stats *st, char *buf,
				  size_t sz);
struct dprof_class;
void dprof_class__vote(struct dprof_class *cls, const char *name,
		       struct dso *dso, u64 count);
const struct dprof_vote *dprof_class__best_vote(const struct dprof_class *cls);
/* after dprof_profile__rows(): a heap row's site is past the wrappers */
u64 dprof_class__site_ip(const struct dprof_class *c);
int dprof_class__touch_base(struct dprof_class *cls, u64 base, u64 size,
			    u32 cpu);
/* 1: @cpu was not seen before, 0: it was, or a negative errno. */
int dprof_class__touch_cpu(struct dprof_class *cls, u32 cpu);

/* One access sample, after the data address was found. */
struct dprof_access {
	u64	ip;		/* the access: skid may put it before sample_ip */
	u64	sample_ip;
	u64	addr;
	u64	time;
	u32	cpu;
	u64	weight;		/* latency, 0 when not measured */
	u8	level;		/* enum dprof_mem_level, when level_known */
	bool	is_write;
	bool	level_known;
	bool	miss;
	bool	hitm;		/* snoop hit a modified line elsewhere */
	bool	remote;		/* data from another node */
	bool	still;		/* its task had not run since its previous sample */
	u32	slice;		/* its time slice, at the width of ... */
	u32	slice_gen;	/* ... the recording's then (dprof_profile__count()) */
	struct thread *thread;	/* the sampled thread, while replayed */
};

/* Per (offset, ip) counts inside one class: member and code drill-down. */
struct dprof_site {
	u64			ip;
	u64			offset;
	struct dprof_stats	stats;
	struct symbol		*sym;		/* function at ip, if known */
	struct dso		*sym_dso;	/* ... held: the dso holds @sym */
	u64			sym_off;
	bool			sym_resolved;
};

/* A DWARF type seen at offset 0-aligned accesses of a class's objects. */
#define DPROF_MAX_VOTES	4

struct dprof_vote {
	const char	*name;		/* owned by perf's data-type cache */
	struct dso	*dso;
	u64		count;
};

/* A frame of a user heap allocation's callchain. */
struct dprof_heap_frame {
	u64		ip;		/* a return address */
	u64		func;		/* its function's identity, 0: unknown */
	u64		call;		/* the call's, whatever the load address */
	struct dso	*dso;		/* ... held: the identity is its address */
	const char	*func_name;	/* "my_alloc", NULL: unknown */
	const char	*name;		/* "my_alloc (wrap.c:49)" */
	bool		runtime;	/* in the C or C++ runtime (strdup) */
};

/*
 * The callchain of user heap allocations, innermost first (f[0] called the
 * allocator), and the frame their rows name: the first past the
 * allocator's wrappers (see dprof_profile__heap_sites()).
 */
struct dprof_heap_chain {
	u32			nr;
	u32			site;
	struct dprof_heap_frame	f[];
};

/*
 * A slab cache's objects under the slab map (--kmem-events=map): slots,
 * each one object for all the lifetimes it holds, and the allocations the
 * kernel chose at random (kernel-patches/ 0012), objects with lives of
 * their own.  In a row, the chosen objects' counts are its chosen
 * classes'.  See dprof_estimate__chosen().
 */
struct dprof_map_objs {
	u32			interval;	/* one allocation in this many chosen */
	bool			slots;		/* some of the objects are slots */
	struct dprof_freq	chosen;		/* the chosen objects sampled */
	u64			chosen_freed;	/* ... freed while recording */
	struct dprof_freq	old;		/* slots of slabs older than the recording */
	u64			old_slots;	/* ... in all */
	u64			slot_bounced;	/* slots touched by more than one CPU */
	u64			allocs;		/* its caches' allocations, ... */
	bool			counted;	/* ... as the kernel counted them */
};

void dprof_map_objs__add(struct dprof_map_objs *dst, const struct dprof_map_objs *src);

struct dprof_class {
	enum dprof_kind		kind;
	u64			key;		/* call site, or symbol start */
	struct dso		*dso;		/* static: the symbol's DSO */
	char			*name;		/* cache, size class or symbol */
	char			*site_name;	/* kmalloc: allocating function */
	u64			obj_size;	/* requested bytes, symbol size */
	u64			alloc_size;	/* bytes handed out */
	struct dprof_stats	stats;
	struct dprof_slices	slices;		/* ... by time slice */
	u64			nr_objects;	/* distinct objects sampled */
	struct dprof_freq	freq;		/* ... by how often: the estimate */
	/* objects the address set knew of: allocated, or in the snapshot's slabs */
	u64			nr_known;
	bool			no_bound;	/* row: a class of it has none */
	u64			nr_bounced;	/* ... touched by more than one CPU */
	u64			ws_bytes;	/* bytes of those objects */
	u64			nr_allocs;
	u64			life_sum;	/* alloc -> free time of objects */
	u64			life_n;		/* ... freed inside the recording */
	struct dprof_map_objs	map;		/* the slab map's: slots, chosen objects */
	u32			cpu;		/* static: first CPU seen */
	unsigned long		*cpus;		/* percpu: copies seen, a bitmap */
	u32			nr_cpu_bits;	/* ... of that many bits */
	struct hashmap		*objs;		/* typed: base -> first cpu | bounced */
	struct hashmap		*sites;		/* struct dprof_site * */
	struct dprof_vote	votes[DPROF_MAX_VOTES];
	struct dprof_class	*row;		/* merged row, at the end */
	/*
	 * A user heap site's objects by the type their accesses' operands
	 * name (@name), inside the site's objects: the type's identity (0:
	 * the site's own row, its untyped accesses), the DSO whose DWARF has
	 * it (held), and whether an object was one instance of it (else it
	 * only lives inside bigger blocks: a pool's, an arena's).
	 */
	u64			type_key;
	struct dso		*type_dso;
	bool			inst_whole;
	/*
	 * ... and their lowest offset inside the objects: a type at the
	 * start of the objects (a header before it at most) is what the
	 * site allocates; one deeper inside is part of it.
	 */
	u64			inst_min;
	/* the allocations' callchain (not held: the replay's), its identity */
	struct dprof_heap_chain	*chain;
	u64			chain_key;
	/*
	 * A user heap class whose type is a header of another's type at the
	 * same objects (its first member, or the same first members): its
	 * accesses count in the row of that class (@head_of), which lists
	 * its headers (@heads, not held: the profile's classes).  A row lists
	 * the headers counted in it.  See dprof_profile__heap_headers().
	 */
	struct dprof_class	*head_of;
	struct dprof_class	**heads;
	u32			nr_heads;
};

/* the classes found last, by their key's hash (see dprof_profile__findnew_class()) */
#define DPROF_RECENT_CLASSES	64

struct dprof_profile {
	struct hashmap	*classes;	/* class key -> struct dprof_class * */
	struct dprof_class *recent[DPROF_RECENT_CLASSES];
	struct dprof_stats total;
	u64		nr_samples;	/* every access sample, resolved or not */
	/* every access sample by time slice, from the first one's time on */
	struct dprof_slices slices;
	u64		slice_t0;
	bool		slice_started;
	u64		unres[DPROF_UNRES__MAX];
	u64		resolved[DPROF_KIND__MAX];
	/* slab and kmalloc: objects allocated before recording (snapshot) */
	u64		resolved_earlier;
	/* typed: the address was in a slab of the snapshot all the same */
	u64		typed_in_slab;
	/* slab and kmalloc: free memory of a cache (slab map, freed objects) */
	u64		resolved_free;
	/* DPROF_UNRES_INSN split by decoder reason */
	u64		ea_reasons[DPROF_EA__MAX];
	u64		nr_decoded;	/* software sampler: address decoded */
	u64		nr_skid;	/* ... from the instruction before ip */
	u64		nr_typed_noaddr; /* no memory access at ip: operand type only */
	/* samples in live user heap objects: typed by operand, or why not */
	u64		heap_typed;
	u64		heap_untyped[DPROF_HEAP_UNTYPED__MAX];
	/* --heap-wrapper: functions that are allocator wrappers, "a,b" */
	const char	*heap_wrappers;
	u64		nr_heap_wrappers;	/* found by dprof_profile__rows() */
	/* ... sites whose chain ended at a wrapper, and their classes' samples */
	u64		heap_stopped_sites;
	u64		heap_stopped_samples;
	/* untyped heap samples counted for their site's one type */
	u64		heap_untyped_sited;
	bool		has_levels;	/* some sample carried a cache level */
	bool		has_latency;
};

int dprof_profile__init(struct dprof_profile *prof);
void dprof_profile__exit(struct dprof_profile *prof);
struct dprof_class *dprof_profile__findnew_class(struct dprof_profile *prof,
						 enum dprof_kind kind, u64 key,
						 struct dso *dso);
struct dprof_class *dprof_profile__findnew_heap_class(struct dprof_profile *prof,
						      u64 key, struct dso *dso,
						      u64 type_key, u64 chain_key);
struct dprof_site *dprof_class__add(struct dprof_class *cls, u64 offset,
				    const struct dprof_access *acc);
void dprof_profile__count(struct dprof_profile *prof, struct dprof_access *acc);

/*
 * Find the user heap classes whose type is a header of another class's
 * type, at the same objects: @is_prefix(@arg, h, o) tells whether the type
 * of h is a prefix of the type of o.  Before dprof_profile__rows().
 */
int dprof_profile__heap_headers(struct dprof_profile *prof,
				bool (*is_prefix)(void *arg, const struct dprof_class *h,
						  const struct dprof_class *o),
				void *arg);

/* Rows: classes merged by type.  @rows is an array of @nr pointers. */
struct dprof_class **dprof_profile__rows(struct dprof_profile *prof,
					 size_t *nr);
void dprof_rows__free(struct dprof_class **rows, size_t nr);
void dprof_row__free(struct dprof_class *row);
void dprof_row__estimate(const struct dprof_class *row, struct dprof_estimate *e);
double dprof_row__ws_bytes(const struct dprof_class *row, double objects);

enum dprof_sort {
	DPROF_SORT_SAMPLES,
	DPROF_SORT_MISSES,
	DPROF_SORT_LATENCY,
	DPROF_SORT_OBJECTS,
};

int dprof_sort__parse(const char *str, enum dprof_sort *sort, bool *by_site);
void dprof_rows__sort(struct dprof_class **rows, size_t nr,
		      enum dprof_sort sort);
/* <0, 0, >0: @a before, as, after @b in @sort's order */
int dprof_row__sort_cmp(const struct dprof_class *a, const struct dprof_class *b,
			enum dprof_sort sort);
struct dprof_class *dprof_rows__group(struct dprof_class * const *rows, size_t nr);

#endif /* __PERF_DPROF_PROFILE_H */
