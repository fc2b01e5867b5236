/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_RESOLVE_H
#define __PERF_DPROF_RESOLVE_H

#include <linux/types.h>

struct debuginfo;
struct dprof_ea;
struct dso;
struct evsel;
struct hashmap;
struct machine;
struct map;
struct perf_sample;
struct symbol;
struct thread;
struct dprof_typer;
struct dprof_typecache;

/*
 * Data addresses that no allocator event covers: static data of the kernel
 * or of a user ELF (symbol table), and kernel per-cpu variables (their
 * symbols live in vmlinux's .data..percpu section, at offsets from the
 * per-cpu base that %gs holds).
 */
struct dprof_percpu_sym {
	u64	start;
	u64	size;
	char	*name;
};

/*
 * When each sampled kernel ip was sampled first and last, noted in a first
 * pass over the recording: an entry per ip, sorted by ip for the lookups
 * once dprof_ip_times__done() is called.
 */
struct dprof_ip_time {
	u64	ip;
	u64	first;
	u64	last;
};

struct dprof_ip_times {
	struct hashmap		*index;		/* while noting: ip -> entry */
	struct dprof_ip_time	*v;
	size_t			nr;
	size_t			alloc;
	bool			sorted;
};

int dprof_ip_times__add(struct dprof_ip_times *it, u64 ip, u64 time);
void dprof_ip_times__done(struct dprof_ip_times *it);
bool dprof_ip_times__find(const struct dprof_ip_times *it, u64 start,
			  u64 end, u64 *first, u64 *last);
void dprof_ip_times__exit(struct dprof_ip_times *it);

/* A function perf disassembled for the typing, until the replay is past @time. */
struct dprof_disasm {
	u64		time;
	struct symbol	*sym;
	struct dso	*dso;		/* held: it owns @sym */
};

/* Functions perf disassembled for the typing, latest first */
struct dprof_disasm_list {
	struct dprof_disasm	*v;
	size_t			nr;
	size_t			alloc;
};

struct dprof_resolver {
	struct machine		*machine;
	/* keyed by (dso, ip), not by ip alone: see resolve.c */
	struct hashmap		*code;		/* -> struct dprof_code * */
	struct hashmap		*typed;		/* -> struct dprof_typed_entry * */
	struct hashmap		*funcs;		/* symbol -> struct dprof_func * */
	struct dprof_percpu_sym	*percpu;
	size_t			nr_percpu;
	bool			percpu_loaded;
	bool			typed_checked;
	bool			typed_ok;	/* kernel code has DWARF (vmlinux) */
	bool			typed_off;	/* no operand typing at all */
	u64			nr_code_misses;
	u64			nr_untypable;	/* ips perf was not asked to type */
	/*
	 * The debuginfo of @map's dso, opened by the caller, for the operand
	 * typing to use instead of its own (NULL: it opens its own); asked
	 * before the typing of a sample of @thread in @cpumode there starts.
	 */
	struct debuginfo	*(*debuginfo)(void *arg, struct map *map,
					      struct thread *thread, u8 cpumode);
	void			*debuginfo_arg;
	/*
	 * The files of user code a first pass found samples in, by their
	 * first samples (NULL: not asked): their debuginfo can be opened
	 * before the typing asks for it.  @names is the caller's.
	 */
	void			(*prefetch)(void *arg, const char *const *names,
					    size_t nr);
	/*
	 * Give back the pages of the lent debuginfo read so far (NULL:
	 * nothing to do), called every DPROF_TYPED_TRIM typings: the units
	 * each function's typing reads are seldom read again.
	 */
	void			(*trim_debuginfo)(void *arg);
	u32			nr_typings;
	/*
	 * The type names of user code's rows: one per type, whatever typedef
	 * named it (see dprof_resolver__type_name()).  @type_names: the
	 * names, "DSO SIZE NAME" -> struct dprof_type_name *; @aliases:
	 * perf's data type -> "PERF'S NAME<US>TYPE'S NAME" (char *).
	 */
	struct hashmap		*type_names;
	struct hashmap		*aliases;
	struct dso		*typed_dso;	/* whose debuginfo was lent last */
	struct debuginfo	*typed_dbg;	/* ... that one, NULL: no DWARF */
	/*
	 * perf keeps the disassembly of every function it typed an operand
	 * of: they go once the replay is past the samples that need them,
	 * when a first pass noted them: those of kernel code in @sampled
	 * (by ip), those of user code in @user_sampled (by file offset).
	 * @disasm: the kernel's, @user_disasm: the others.  @now: the
	 * replay's sample time.
	 */
	struct dprof_ip_times	sampled;
	struct hashmap		*user_sampled;	/* file -> struct dprof_ip_times * */
	struct dprof_disasm_list disasm;
	struct dprof_disasm_list user_disasm;
	u64			now;
	u32			nr_disassembled;	/* by perf, for the typing */
	/* the kernel's typings in a thread, after the first (see resolve.c) */
	struct dprof_typer	*typer;
	bool			typer_tried;
	bool			typer_running;
	u32			nr_disasm_again;	/* after their first samples */
	u32			nr_disasm_freed;
	/* typings of earlier reports (NULL: none kept) and how many were used */
	struct dprof_typecache	*tcache;
	u64			nr_typings_kept;
	u64			nr_code_kept;
	u64			nr_statics_kept;
};

struct dprof_static {
	const char	*name;		/* until the dso's symbols or the cache go */
	u64		start;		/* the symbol's bounds in the dso */
	u64		end;
	struct dso	*dso;
	u64		offset;		/* from the symbol start */
};

int dprof_resolver__init(struct dprof_resolver *r, struct machine *machine);
void dprof_resolver__exit(struct dprof_resolver *r);
void dprof_resolver__trim(struct dprof_resolver *r);
/* A sample of kernel code at @ip at @time, seen by a first pass. */
int dprof_resolver__note_sample(struct dprof_resolver *r, u64 ip, u64 time);
void dprof_resolver__noted(struct dprof_resolver *r);
/* The samples a first pass saw in a file of user code, by file offset. */
int dprof_resolver__note_user_file(struct dprof_resolver *r, const char *name,
				   struct dprof_ip_times *times);
/* The replay is at @time: what no later sample needs can go. */
void dprof_resolver__advance(struct dprof_resolver *r, u64 time);
/* After the replay: no more typing of kernel code in a thread. */
void dprof_resolver__stop_typer(struct dprof_resolver *r);
/* A thread of ours runs next to the main one, or no longer: perf's locks */
void dprof_threads__get(void);
void dprof_threads__put(void);

/* Code at @ip and the instruction before it; returns bytes at @ip or -1. */
int dprof_resolver__code(struct dprof_resolver *r, struct thread *thread,
			 u64 ip, const u8 **code, const u8 **prev,
			 int *prev_len);

/*
 * The access of a software-sampler sample (cpu-clock with the interrupt
 * registers): the instruction at its ip, or, when that one touches no
 * memory, the one before it (skid) if it did not overwrite its own
 * address registers.  @ip is set to the access's instruction.  Returns
 * the decoder's enum dprof_ea_reason, or -1 when the code is unreadable.
 */
int dprof_resolver__sample_ea(struct dprof_resolver *r, struct thread *thread,
			      const struct perf_sample *sample, struct dprof_ea *ea,
			      u64 *ip);

/* Static data symbol covering @addr; 0 on success, -ENOENT otherwise. */
int dprof_resolver__static(struct dprof_resolver *r, struct thread *thread,
			   u64 addr, struct dprof_static *st);

/*
 * Last resort for addresses no allocator event and no symbol covers (e.g.
 * objects allocated before recording began): the static type of the
 * instruction's memory operand, from DWARF (perf's data-type profiling).
 */
struct dprof_typed {
	const char	*type_name;	/* "struct file" */
	/* user code: perf's name when a typedef of @type_name (NULL: none) */
	const char	*alias;
	u64		type_size;
	u64		offset;		/* of the access in the type */
	u64		key;		/* stable identity of the type */
	struct dso	*dso;		/* whose DWARF has the type */
	bool		known;		/* perf's answer with the DWARF: keep it */
};

int dprof_resolver__typed(struct dprof_resolver *r, struct thread *thread,
			  struct evsel *evsel, u64 ip, struct dprof_typed *t);
/* What dprof_resolver__typed() found for the code of @dso at @ip. */
int dprof_resolver__typed_at(struct dprof_resolver *r, struct dso *dso,
			     u64 ip, struct dprof_typed *t);

/* Kernel per-cpu variable at offset @off from the per-cpu base. */
const struct dprof_percpu_sym *
dprof_resolver__percpu(struct dprof_resolver *r, u64 off, u64 *offset);

/* Percpu symbols from an ELF file's .data..percpu section (for tests too). */
int dprof_percpu__load(const char *path, struct dprof_percpu_sym **syms,
		       size_t *nr);
const struct dprof_percpu_sym *
dprof_percpu__find(const struct dprof_percpu_sym *syms, size_t nr, u64 off);

#endif /* __PERF_DPROF_RESOLVE_H */
