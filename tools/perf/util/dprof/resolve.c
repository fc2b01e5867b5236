// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: address resolution that needs no allocator events — code
 * bytes at a sample ip, static data symbols, kernel per-cpu variables.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/zalloc.h>

#include "util/addr_location.h"
#include "util/annotate.h"
#include "util/annotate-data.h"
#include "util/evsel.h"
#include "util/hist.h"
#include "util/sort.h"
#include "util/debug.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/maps.h"
#include "util/sample.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "util/util.h"
#ifdef HAVE_DWARF_SUPPORT
#include <elfutils/libdw.h>
#include "util/debuginfo.h"
#endif
#include "dwtypes.h"
#include "ea.h"
#include "hashfn.h"
#include "resolve.h"
#include "typecache.h"

#define DPROF_CODE_MAX	DPROF_TC_CODE_MAX	/* longest x86 instruction + 1 */
#define DPROF_FUNC_MAX	(256 * 1024)	/* decode no further back than this */

/*
 * Which code an ip is: its DSO and the ip.  Two processes can run
 * different code at one address (programs built without PIE all start at
 * 0x401000): the caches of what the code at an ip is and touches are keyed
 * by both.  (Not by the address in the DSO: perf's operand typing of the
 * same library code can differ from one process to another.)
 */
struct dprof_code_key {
	struct dso	*dso;		/* held; NULL: no map, nothing there */
	u64		ip;
};

static size_t dprof_code_key__hash(long key, void *ctx __maybe_unused)
{
	const struct dprof_code_key *k = (const struct dprof_code_key *)key;

	return hash_64(k->ip, 32) ^ hash_ptr(dprof_dso_id(k->dso), 32);
}

static bool dprof_code_key__equal(long k1, long k2, void *ctx __maybe_unused)
{
	const struct dprof_code_key *a = (const struct dprof_code_key *)k1;
	const struct dprof_code_key *b = (const struct dprof_code_key *)k2;

	return a->ip == b->ip && dprof_dso_id(a->dso) == dprof_dso_id(b->dso);
}

/*
 * @ip of @thread as a cache key (not held: the thread's map holds it), and
 * *@rip when asked: @ip in the dso's own addresses (map__map_ip()).
 */
static void dprof_code_key__init(struct dprof_code_key *k,
				 struct dprof_resolver *r,
				 struct thread *thread, u64 ip, u64 *rip)
{
	u8 cpumode = machine__kernel_ip(r->machine, ip) ?
		     PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	struct addr_location al;

	addr_location__init(&al);
	k->dso = thread__find_map(thread, cpumode, ip, &al) ? map__dso(al.map) : NULL;
	k->ip = ip;
	if (rip)
		*rip = k->dso ? map__map_ip(al.map, ip) : ip;
	addr_location__exit(&al);
}

struct dprof_code {
	struct dprof_code_key key;	/* first: the map's key */
	int	len;		/* -1: not readable */
	int	prev_len;	/* 0: no preceding instruction known */
	u8	bytes[DPROF_CODE_MAX];
	u8	prev[DPROF_CODE_MAX];
};

/* A cached operand type: perf's, for the code at @key. */
struct dprof_typed_entry {
	struct dprof_code_key	key;	/* first: the map's key */
	struct dprof_typed	t;	/* t.type_name NULL: none */
};

/* A type's name in the rows of user code: one for all its typedefs */
struct dprof_type_name {
	char		*name;
	struct dso	*dso;	/* held: its data types are the aliases' keys */
};

static void dprof_code__delete(struct dprof_code *c)
{
	dso__put(c->key.dso);
	free(c);
}

static void dprof_typed_entry__delete(struct dprof_typed_entry *e)
{
	dso__put(e->key.dso);
	dso__put(e->t.dso);
	free(e);
}

static void dprof_disasm_list__exit(struct dprof_disasm_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		dso__put(l->v[i].dso);
	zfree(&l->v);
	l->nr = 0;
	l->alloc = 0;
}

struct dprof_func;
static void dprof_func__delete(struct dprof_func *f);
#ifdef HAVE_DWARF_SUPPORT
static void dprof_typer__delete(struct dprof_typer *ty);
#endif

int dprof_resolver__init(struct dprof_resolver *r, struct machine *machine)
{
	memset(r, 0, sizeof(*r));
	r->machine = machine;
	r->code = hashmap__new(dprof_code_key__hash, dprof_code_key__equal, NULL);
	r->typed = hashmap__new(dprof_code_key__hash, dprof_code_key__equal, NULL);
	r->funcs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(r->code) || IS_ERR(r->typed) || IS_ERR(r->funcs)) {
		if (!IS_ERR(r->code))
			hashmap__free(r->code);
		if (!IS_ERR(r->typed))
			hashmap__free(r->typed);
		if (!IS_ERR(r->funcs))
			hashmap__free(r->funcs);
		memset(r, 0, sizeof(*r));
		return -ENOMEM;
	}
	return 0;
}

void dprof_resolver__exit(struct dprof_resolver *r)
{
	struct hashmap_entry *cur;
	size_t bkt, i;

#ifdef HAVE_DWARF_SUPPORT
	dprof_resolver__stop_typer(r);
	dprof_typer__delete(r->typer);
	r->typer = NULL;
#endif
	if (r->tcache) {
		pr_debug("dprof: %" PRIu64 " typings and %" PRIu64
			 " code reads found made by an earlier report\n",
			 r->nr_typings_kept, r->nr_code_kept);
		pr_debug("dprof: %" PRIu64 " data lookups answered as an earlier report's\n",
			 r->nr_statics_kept);
		dprof_typecache__save(r->tcache);
		dprof_typecache__put(r->tcache);
	}
	pr_debug("dprof: %" PRIu64 " instructions with no memory operand not typed by perf\n",
		 r->nr_untypable);
	pr_debug("dprof: perf disassembled %u functions for the typing, %u of them after their first samples; %u freed\n",
		 r->nr_disassembled, r->nr_disasm_again, r->nr_disasm_freed);
	dprof_disasm_list__exit(&r->disasm);
	dprof_disasm_list__exit(&r->user_disasm);
	dprof_ip_times__exit(&r->sampled);
	if (r->user_sampled) {
		hashmap__for_each_entry(r->user_sampled, cur, bkt) {
			free((char *)cur->pkey);
			dprof_ip_times__exit(cur->pvalue);
			free(cur->pvalue);
		}
		hashmap__free(r->user_sampled);
	}
	if (r->code) {
		hashmap__for_each_entry(r->code, cur, bkt)
			dprof_code__delete(cur->pvalue);
		hashmap__free(r->code);
	}
	if (r->typed) {
		hashmap__for_each_entry(r->typed, cur, bkt)
			dprof_typed_entry__delete(cur->pvalue);
		hashmap__free(r->typed);
	}
	if (r->type_names) {
		hashmap__for_each_entry(r->type_names, cur, bkt) {
			struct dprof_type_name *tn = cur->pvalue;

			free((char *)cur->pkey);
			dso__put(tn->dso);
			free(tn->name);
			free(tn);
		}
		hashmap__free(r->type_names);
		r->type_names = NULL;
	}
	if (r->aliases) {
		hashmap__for_each_entry(r->aliases, cur, bkt)
			free(cur->pvalue);
		hashmap__free(r->aliases);
		r->aliases = NULL;
	}
	dso__put(r->typed_dso);
	r->typed_dso = NULL;
	if (r->funcs) {
		hashmap__for_each_entry(r->funcs, cur, bkt)
			dprof_func__delete(cur->pvalue);
		hashmap__free(r->funcs);
	}
	for (i = 0; i < r->nr_percpu; i++)
		free(r->percpu[i].name);
	free(r->percpu);
	memset(r, 0, sizeof(*r));
}

/**
 * dprof_resolver__trim - free the code read for the access samples
 * @r: the resolver
 *
 * The instruction bytes and the decoded functions serve the replay only;
 * the views that follow it look at types.  Looked up again, they are read
 * again.
 */
void dprof_resolver__trim(struct dprof_resolver *r)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(r->code, cur, bkt)
		dprof_code__delete(cur->pvalue);
	hashmap__clear(r->code);
	hashmap__for_each_entry(r->funcs, cur, bkt)
		dprof_func__delete(cur->pvalue);
	hashmap__clear(r->funcs);
}

/*
 * A sampled function's code, decoded once: where each instruction starts.
 * x86 cannot be decoded backwards, so the instruction before an ip is
 * found by decoding forward from the function start; doing that once per
 * function rather than once per ip keeps the cost linear in code size.
 */
struct dprof_func {
	struct dso *dso;	/* held: it owns the symbol that keys this */
	u64	size;
	u32	nr;		/* instructions; 0 when decoding failed */
	u32	*starts;	/* offsets of instruction starts */
	u8	*code;
};

static struct dprof_func *dprof_func__new(struct machine *machine,
					  struct thread *thread, u64 start,
					  u64 size)
{
	struct dprof_func *f = zalloc(sizeof(*f));
	u32 alloc = 0;
	u64 off = 0;

	if (!f)
		return NULL;
	f->size = size;
	f->code = malloc(size);
	if (!f->code || thread__memcpy(thread, machine, f->code, start, size,
				       NULL) != (int)size)
		goto fail;
	while (off < size) {
		int len = dprof_ea__insn_len(f->code + off, size - off);

		if (len <= 0)
			break;	/* data, padding, a bad guess or no decoder */
		if (f->nr == alloc) {
			u32 *tmp;

			alloc = alloc ? alloc * 2 : 64;
			tmp = realloc(f->starts, alloc * sizeof(*tmp));
			if (!tmp)
				goto fail;
			f->starts = tmp;
		}
		f->starts[f->nr++] = off;
		off += len;
	}
	return f;
fail:
	f->nr = 0;
	return f;
}

static void dprof_func__delete(struct dprof_func *f)
{
	dso__put(f->dso);
	free(f->starts);
	free(f->code);
	free(f);
}

static int u32__cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The decoded function @al is in (from thread__find_symbol()), NULL when it
 * cannot be read or is too large to decode; cached in @funcs.
 */
static struct dprof_func *dprof_funcs__find(struct hashmap *funcs,
					    struct machine *machine,
					    struct thread *thread,
					    struct addr_location *al, u64 ip)
{
	struct dprof_func *f;
	u64 off, size;

	if (al->addr < al->sym->start || al->sym->end <= al->sym->start)
		return NULL;
	off = al->addr - al->sym->start;
	size = al->sym->end - al->sym->start;
	if (size > DPROF_FUNC_MAX)
		return NULL;
	if (hashmap__find(funcs, al->sym, &f))
		return f;
	f = dprof_func__new(machine, thread, ip - off, size);
	if (f)
		f->dso = dso__get(map__dso(al->map));
	if (!f || hashmap__add(funcs, al->sym, f)) {
		if (f)
			dprof_func__delete(f);
		return NULL;
	}
	return f;
}

/* The length of @f's instruction @i */
static u32 dprof_func__len(const struct dprof_func *f, long i)
{
	return ((u32)i + 1 < f->nr ? f->starts[i + 1] : f->size) - f->starts[i];
}

/* Where @al's instruction is in @f: its index, or -1 when not a start. */
static long dprof_func__index(struct dprof_func *f, struct addr_location *al)
{
	u32 off = al->addr - al->sym->start, *pos;

	pos = bsearch(&off, f->starts, f->nr, sizeof(*f->starts), u32__cmp);
	return pos ? pos - f->starts : -1;
}

/* The instruction before @ip, when @ip starts an instruction of its function. */
static void dprof_code__find_prev(struct dprof_resolver *r,
				  struct thread *thread, u64 ip,
				  struct dprof_code *c)
{
	u8 cpumode = machine__kernel_ip(r->machine, ip) ?
		     PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	struct addr_location al;
	struct dprof_func *f;
	long i;

	addr_location__init(&al);
	if (!thread__find_symbol(thread, cpumode, ip, &al) ||
	    al.addr <= al.sym->start)
		goto out;
	f = dprof_funcs__find(r->funcs, r->machine, thread, &al, ip);
	i = f ? dprof_func__index(f, &al) : -1;
	if (i <= 0)
		goto out;
	c->prev_len = f->starts[i] - f->starts[i - 1];
	if (c->prev_len > DPROF_CODE_MAX) {
		c->prev_len = 0;
		goto out;
	}
	memcpy(c->prev, f->code + f->starts[i - 1], c->prev_len);
out:
	addr_location__exit(&al);
}

/**
 * dprof_resolver__code - instruction bytes at a sample ip
 * @r: the resolver
 * @thread: the sampled thread (its maps locate the ELF or vmlinux)
 * @ip: the sample ip
 * @code: set to the bytes at @ip
 * @prev: set to the bytes of the instruction before @ip, if known
 * @prev_len: their length, 0 when not known
 *
 * The bytes come from the DSO file (vmlinux for the kernel, which perf
 * finds by build-id or --vmlinux) and are cached per DSO and ip: code
 * does not change under a profile.  Returns the number of bytes at @ip,
 * or -1.
 */
int dprof_resolver__code(struct dprof_resolver *r, struct thread *thread,
			 u64 ip, const u8 **code, const u8 **prev,
			 int *prev_len)
{
	struct dprof_code_key key;
	struct dprof_code *c;
	u64 rip;

	dprof_code_key__init(&key, r, thread, ip, &rip);
	if (!hashmap__find(r->code, &key, &c)) {
		struct dprof_typecache_dso *cd = dprof_typecache__dso(r->tcache, key.dso);
		int len;

		/* read by an earlier report of the same binary: no copy */
		len = dprof_typecache_dso__code(cd, rip, code, prev, prev_len);
		if (len > 0) {
			r->nr_code_kept++;
			return len;
		}
		c = zalloc(sizeof(*c));
		if (!c)
			return -1;
		c->key.dso = dso__get(key.dso);
		c->key.ip = ip;
		c->len = thread__memcpy(thread, r->machine, c->bytes, ip,
					sizeof(c->bytes), NULL);
		if (c->len <= 0) {
			c->len = -1;
			r->nr_code_misses++;
		} else {
			dprof_code__find_prev(r, thread, ip, c);
			if (cd)
				dprof_typecache_dso__add_code(cd, rip, c->bytes, c->len,
							      c->prev, c->prev_len);
		}
		if (hashmap__add(r->code, &c->key, c)) {
			dprof_code__delete(c);
			return -1;
		}
	}
	*code = c->bytes;
	*prev = c->prev;
	*prev_len = c->prev_len;
	return c->len;
}

int dprof_resolver__sample_ea(struct dprof_resolver *r, struct thread *thread,
			      const struct perf_sample *sample, struct dprof_ea *ea,
			      u64 *ip)
{
	struct dprof_ea pea = { 0 };
	enum dprof_ea_reason why, pwhy;
	const u8 *code, *prev;
	int len, prev_len;

	*ip = sample->ip;
	memset(ea, 0, sizeof(*ea));
	len = dprof_resolver__code(r, thread, sample->ip, &code, &prev, &prev_len);
	if (len <= 0)
		return -1;
	why = dprof_ea__decode(code, len, sample->ip, &sample->intr_regs, ea);
	/*
	 * Skid: a load that stalled has retired, and the interrupt lands on
	 * the next instruction.  When that one touches no memory, the cost
	 * belongs to the access just before it, whose address is exact too
	 * as long as it did not overwrite its own address registers.
	 */
	if (why != DPROF_EA_NO_MEMOP || !prev_len)
		return why;
	pwhy = dprof_ea__decode(prev, prev_len, sample->ip - prev_len,
				&sample->intr_regs, &pea);
	if ((pwhy == DPROF_EA_OK || pwhy == DPROF_EA_SEGMENT || pwhy == DPROF_EA_STACK) &&
	    !dprof_ea__clobbers(prev, prev_len, pea.addr_regs)) {
		*ea = pea;
		*ip = sample->ip - prev_len;
		return pwhy;
	}
	return why;
}

/*
 * .bss past the last file page of an ELF is an anonymous mapping of its
 * own: look the address up in the file mapping right below it, whose
 * address translation extends linearly over it.
 */
static struct symbol *dprof_resolver__bss(struct thread *thread, u64 addr,
					  struct addr_location *al)
{
	struct dso *dso = map__dso(al->map);
	struct symbol *sym = NULL;
	struct map *prev;

	if (dso && !is_anon_memory(dso__long_name(dso)))
		return NULL;
	prev = maps__find(thread__maps(thread), map__start(al->map) - 1);
	if (!prev)
		return NULL;
	dso = map__dso(prev);
	if (dso && !is_anon_memory(dso__long_name(dso)) &&
	    map__end(prev) == map__start(al->map)) {
		sym = map__find_symbol(prev, map__map_ip(prev, addr));
		if (sym) {
			map__put(al->map);
			al->map = map__get(prev);
			al->addr = map__map_ip(prev, addr);
		}
	}
	map__put(prev);
	return sym;
}

/*
 * The file a user data address is in and the address in the file's own
 * terms: its mapping's, or for .bss past its last page the file mapping's
 * right below (see dprof_resolver__bss()).  The dso is the thread's maps'.
 */
static struct dso *dprof_resolver__data_file(struct thread *thread, u64 addr, u64 *rip)
{
	struct addr_location al;
	struct dso *dso = NULL;
	struct map *prev;

	addr_location__init(&al);
	if (!thread__find_map_fb(thread, PERF_RECORD_MISC_USER, addr, &al))
		goto out;
	dso = map__dso(al.map);
	if (dso && !is_anon_memory(dso__long_name(dso))) {
		*rip = al.addr;
		goto out;
	}
	dso = NULL;
	prev = maps__find(thread__maps(thread), map__start(al.map) - 1);
	if (prev && map__end(prev) == map__start(al.map) && map__dso(prev) &&
	    !is_anon_memory(dso__long_name(map__dso(prev)))) {
		dso = map__dso(prev);
		*rip = map__map_ip(prev, addr);
	}
	map__put(prev);
out:
	addr_location__exit(&al);
	return dso;
}

/**
 * dprof_resolver__static - the static data symbol that holds @addr
 * @r: the resolver
 * @thread: thread whose maps to search (the kernel maps are shared)
 * @addr: data address
 * @st: symbol, its DSO and the offset of @addr in it
 *
 * A user address an earlier report looked up in the same binary is
 * answered as it was (see dprof_typecache_dso__static()): a library whose
 * code no sample hit, only its data (relocations, a lookup table), has
 * its symbol table left unloaded.
 */
int dprof_resolver__static(struct dprof_resolver *r, struct thread *thread,
			   u64 addr, struct dprof_static *st)
{
	u8 cpumode = machine__kernel_ip(r->machine, addr) ?
		     PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	struct dprof_typecache_dso *cd = NULL;
	struct addr_location al;
	struct symbol *sym;
	int ret = -ENOENT;
	struct dso *file = NULL;
	u64 rip = 0;

	if (cpumode == PERF_RECORD_MISC_USER && r->tcache) {
		file = dprof_resolver__data_file(thread, addr, &rip);
		cd = file ? dprof_typecache__dso(r->tcache, file) : NULL;
		if (cd && !dprof_typecache_dso__static(cd, rip, &st->start,
						       &st->end, &st->name)) {
			r->nr_statics_kept++;
			if (!st->name)
				return -ENOENT;
			st->dso = file;
			st->offset = rip - st->start;
			return 0;
		}
	}

	addr_location__init(&al);
	sym = thread__find_symbol_fb(thread, cpumode, addr, &al);
	if (!sym && al.map && cpumode == PERF_RECORD_MISC_USER)
		sym = dprof_resolver__bss(thread, addr, &al);
	if (sym && sym->type == STT_OBJECT && al.addr >= sym->start &&
	    (al.addr < sym->end || sym->end == sym->start)) {
		st->name = sym->name;
		st->start = sym->start;
		st->end = sym->end;
		st->dso = map__dso(al.map);
		st->offset = al.addr - sym->start;
		ret = 0;
	}
	if (cd && (ret || st->dso == file) &&
	    dprof_typecache_dso__add_static(cd, rip, ret ? 0 : st->start,
					    ret ? 0 : st->end, ret ? NULL : st->name))
		ret = -ENOMEM;
	addr_location__exit(&al);
	return ret;
}

static int dprof_ip_time__cmp(const void *a, const void *b)
{
	const struct dprof_ip_time *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return 0;
}

/**
 * dprof_ip_times__add - note a sample of @ip at @time
 * @it: the sample times
 * @ip: the sample ip
 * @time: the sample time
 *
 * The samples come in the order of the file, not in time order.
 */
int dprof_ip_times__add(struct dprof_ip_times *it, u64 ip, u64 time)
{
	struct dprof_ip_time *e;
	long idx;

	if (!it->index) {
		it->index = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(it->index)) {
			it->index = NULL;
			return -ENOMEM;
		}
	}
	if (hashmap__find(it->index, ip, &idx)) {
		e = &it->v[idx];
		if (e->first > time)
			e->first = time;
		if (e->last < time)
			e->last = time;
		return 0;
	}
	if (it->nr == it->alloc) {
		size_t alloc = it->alloc ? it->alloc * 2 : 1024;

		e = realloc(it->v, alloc * sizeof(*e));
		if (!e)
			return -ENOMEM;
		it->v = e;
		it->alloc = alloc;
	}
	if (hashmap__add(it->index, ip, it->nr))
		return -ENOMEM;
	e = &it->v[it->nr++];
	e->ip = ip;
	e->first = time;
	e->last = time;
	return 0;
}

/* After the last dprof_ip_times__add(): ready for the lookups. */
void dprof_ip_times__done(struct dprof_ip_times *it)
{
	struct dprof_ip_time *v;

	hashmap__free(it->index);
	it->index = NULL;
	if (it->nr)
		qsort(it->v, it->nr, sizeof(*it->v), dprof_ip_time__cmp);
	it->sorted = true;
	if (it->nr && it->nr < it->alloc) {
		v = realloc(it->v, it->nr * sizeof(*v));
		if (v) {
			it->v = v;
			it->alloc = it->nr;
		}
	}
}

/**
 * dprof_ip_times__find - when the code in [@start, @end) was sampled
 * @it: the sample times, after dprof_ip_times__done()
 * @start: first ip of the range
 * @end: the ip past it
 * @first: set to the latest of the first samples of its ips: from then
 *         on every ip sampled in the range was sampled before
 * @last: set to the time of its last sample
 *
 * Return: false when no sample was noted in the range.
 */
bool dprof_ip_times__find(const struct dprof_ip_times *it, u64 start,
			  u64 end, u64 *first, u64 *last)
{
	size_t nr = it->sorted ? it->nr : 0, lo = 0, hi = nr;
	bool found = false;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (it->v[mid].ip < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nr && it->v[lo].ip < end; lo++) {
		const struct dprof_ip_time *e = &it->v[lo];

		if (!found || *first < e->first)
			*first = e->first;
		if (!found || *last < e->last)
			*last = e->last;
		found = true;
	}
	return found;
}

void dprof_ip_times__exit(struct dprof_ip_times *it)
{
	hashmap__free(it->index);
	free(it->v);
	memset(it, 0, sizeof(*it));
}

/**
 * dprof_resolver__note_sample - a sample of kernel code, seen by a first pass
 * @r: the resolver
 * @ip: the sample ip
 * @time: the sample time
 *
 * Every typing of an operand during the replay is of an instruction in
 * the function of a sample's ip (the sampled one, or the one before it),
 * and is cached per ip: see dprof_resolver__disassembled() for when
 * perf's disassembly of a function is not needed any more.  Only kernel
 * code is noted: a user ip says nothing without the maps of its process.
 */
int dprof_resolver__note_sample(struct dprof_resolver *r, u64 ip, u64 time)
{
	return dprof_ip_times__add(&r->sampled, ip, time);
}

/* After the first pass: dprof_resolver__advance() frees from now on. */
void dprof_resolver__noted(struct dprof_resolver *r)
{
	dprof_ip_times__done(&r->sampled);
}

/**
 * dprof_resolver__note_user_file - the samples of a file of user code
 * @r: the resolver
 * @name: the file, as its mmap records name it
 * @times: its ips' sample times, by file offset (the offsets in it that
 *	   perf's symbols of the file have), after dprof_ip_times__done():
 *	   @r takes them over, and @times is left empty
 *
 * With these a user function's disassembly can go as a kernel one's does
 * (see dprof_resolver__disassembled()).
 */
int dprof_resolver__note_user_file(struct dprof_resolver *r, const char *name,
				   struct dprof_ip_times *times)
{
	struct dprof_ip_times *it;
	char *key;

	if (!times)
		return -EINVAL;
	if (!r->user_sampled) {
		r->user_sampled = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
		if (IS_ERR(r->user_sampled)) {
			r->user_sampled = NULL;
			return -ENOMEM;
		}
	}
	it = malloc(sizeof(*it));
	key = strdup(name);
	if (!it || !key || hashmap__add(r->user_sampled, key, it)) {
		free(it);
		free(key);
		return -ENOMEM;
	}
	*it = *times;
	memset(times, 0, sizeof(*times));
	return 0;
}

static void dprof_disasm_list__advance(struct dprof_disasm_list *l, u64 time,
				       u32 *nr_freed)
{
	while (l->nr && l->v[l->nr - 1].time < time) {
		struct dprof_disasm *d = &l->v[--l->nr];
		struct annotation *notes = symbol__annotation(d->sym);

		if (notes->src)
			annotated_source__purge(notes->src);
		dso__put(d->dso);
		(*nr_freed)++;
	}
}

/**
 * dprof_resolver__advance - the replay is at @time
 * @r: the resolver
 * @time: the time of the sample the replay is at
 *
 * Free perf's disassembly of the functions that no typing at
 * @time or later is expected to need.  One that does need it (an
 * instruction not typed before) disassembles the function again.
 */
void dprof_resolver__advance(struct dprof_resolver *r, u64 time)
{
	r->now = time;
	dprof_disasm_list__advance(&r->user_disasm, time, &r->nr_disasm_freed);
	/* the kernel's disassemblies are the typer's while it runs */
	if (!r->typer_running)
		dprof_disasm_list__advance(&r->disasm, time, &r->nr_disasm_freed);
}

#ifdef HAVE_DWARF_SUPPORT
/* typings between two resolver::trim_debuginfo() calls */
#define DPROF_TYPED_TRIM	32

/*
 * perf has just disassembled the function @al is in, for a typing at the
 * replay's time.  perf keeps a function's disassembly to the end, and
 * the disassembled lines are the largest part of the report's heap at
 * its peak: note until when it is needed.  The typings are cached per
 * ip, so that is until the latest of the first samples of the function's
 * ips, with one exception: an ip whose earlier samples needed no typing
 * (their address was in a known object) and a later one does.  Then the
 * function is disassembled again, and kept until its last sample: no
 * typing of the replay can come after it.  Kept to the end: no first
 * pass, or a typing after the last sample (the type votes).  A user
 * function's samples are those the first pass noted at its offsets in
 * its file, in every process that ran it; its typings are cached per
 * process ip, so a process that runs it after those first samples
 * disassembles it again (and keeps it until the last one).
 */
static void dprof_resolver__disassembled(struct dprof_resolver *r,
					 struct addr_location *al)
{
	struct dprof_disasm_list *l = &r->disasm;
	const struct dprof_ip_times *it = &r->sampled;
	u64 start, end, first, last, time;
	struct dprof_disasm *d;
	size_t i;

	r->nr_disassembled++;
	start = map__unmap_ip(al->map, al->sym->start);
	end = map__unmap_ip(al->map, al->sym->end);
	if (!machine__kernel_ip(r->machine, start)) {
		const char *name = dso__long_name(map__dso(al->map));

		/* its symbols' addresses are the file offsets the scan saw */
		l = &r->user_disasm;
		it = NULL;
		if (r->user_sampled)
			hashmap__find(r->user_sampled, name, &it);
		start = al->sym->start;
		end = al->sym->end;
	}
	if (!it || !dprof_ip_times__find(it, start, end, &first, &last))
		return;
	time = first;
	if (time < r->now) {
		r->nr_disasm_again++;
		time = last;
	}
	if (time < r->now)
		return;
	if (l->nr == l->alloc) {
		size_t alloc = l->alloc ? l->alloc * 2 : 64;

		d = realloc(l->v, alloc * sizeof(*d));
		if (!d)
			return;
		l->v = d;
		l->alloc = alloc;
	}
	/* latest first: the next to go is at the end */
	for (i = l->nr; i && l->v[i - 1].time < time; i--)
		;
	memmove(&l->v[i + 1], &l->v[i], (l->nr - i) * sizeof(*l->v));
	d = &l->v[i];
	d->time = time;
	d->sym = al->sym;
	d->dso = dso__get(map__dso(al->map));
	l->nr++;
}

/*
 * Would perf's data-type profiling find nothing to type at @al?  It reads
 * the operands of the function's disassembly: an instruction none of
 * whose operands is in memory syntax gets no type, unless perf takes it
 * for the second of a fused pair (a compare or an ALU operation and what
 * follows, by their mnemonics) and types the one before it in its stead,
 * and so on back.  Telling it here spares perf a disassembly of the whole
 * function: most sampled instructions with no memory operand are found
 * out without one.  False when unsure (the function does not decode).
 */
static bool dprof_funcs__untypable(struct hashmap *funcs, struct machine *machine,
				   struct thread *thread,
				   struct addr_location *al, u64 ip)
{
	struct dprof_func *f = dprof_funcs__find(funcs, machine, thread, al, ip);
	long i = f ? dprof_func__index(f, al) : -1;

	for (; i >= 0; i--) {
		u32 start = f->starts[i];

		if (dprof_ea__mem_syntax(f->code + start, dprof_func__len(f, i)))
			return false;
		if (!i)
			return true;	/* perf's first line has no line before it */
		if (!dprof_ea__may_fuse(f->code + f->starts[i - 1],
					start - f->starts[i - 1]))
			return true;
	}
	return false;
}

/*
 * The name of the type behind the typedef @name visible in the code at
 * @pc of the DWARF @dw: "struct TAG" or "union TAG" for a named struct or
 * union, the name of a base type or "enum TAG"; NULL when @name is not a
 * typedef at the top level of the code's unit or names a type with no
 * name (an anonymous struct, a pointer).  Returns a new string.
 */
static char *dprof_typedef__real_name(Dwarf *dw, u64 pc, const char *name)
{
	Dwarf_Die cu, die, real;
	const char *tag, *real_name;
	char *res = NULL;

	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6) ||
	    !strncmp(name, "enum ", 5) || !dwarf_addrdie(dw, pc, &cu) ||
	    dwarf_child(&cu, &die))
		return NULL;
	do {
		const char *n;

		if (dwarf_tag(&die) != DW_TAG_typedef)
			continue;
		n = dwarf_diename(&die);
		if (!n || strcmp(n, name))
			continue;
		if (!die_get_real_type(&die, &real))
			return NULL;
		real_name = dwarf_diename(&real);
		switch (dwarf_tag(&real)) {
		case DW_TAG_structure_type:
			tag = "struct ";
			break;
		case DW_TAG_union_type:
			tag = "union ";
			break;
		case DW_TAG_enumeration_type:
			tag = "enum ";
			break;
		case DW_TAG_base_type:
			tag = "";
			break;
		default:
			return NULL;
		}
		if (real_name && asprintf(&res, "%s%s", tag, real_name) < 0)
			res = NULL;
		return res;
	} while (dwarf_siblingof(&die, &die) == 0);
	return NULL;
}

/* between perf's name and the type's behind its typedefs, in the typecache */
#define DPROF_ALIAS_SEP	0x1f	/* ASCII unit separator */

/*
 * One row per type in user code, whatever typedef named it: perf names a
 * data type as the operand's DWARF does, so one struct reached through two
 * typedefs or its tag (SQLite's DbPage and PgHdr, both struct PgHdr) is as
 * many data types to it, and u8 is not unsigned char.  Names @t (perf's
 * typing of the code at @al as @adt) "PERF'S NAME<US>TYPE'S NAME" when a
 * typedef hides the type, found in the DWARF once per perf data type: the
 * typecache keeps both.  dprof_resolver__canon() splits them.  The
 * kernel's rows keep perf's names: its typings are made in a thread of
 * their own, with perf's.
 */
static int dprof_resolver__type_name(struct dprof_resolver *r,
				     struct annotated_data_type *adt,
				     struct addr_location *al,
				     struct dprof_typed *t)
{
	char *real, *full = NULL;

	if (dso__kernel(t->dso) || !r->typed_dbg)
		return 0;
	if (!r->aliases) {
		r->aliases = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(r->aliases)) {
			r->aliases = NULL;
			return -ENOMEM;
		}
	}
	if (!hashmap__find(r->aliases, adt, &full)) {
		real = dprof_typedef__real_name(r->typed_dbg->dbg,
						map__rip_2objdump(al->map, al->addr),
						t->type_name);
		if (real && strcmp(real, t->type_name) &&
		    asprintf(&full, "%s%c%s", t->type_name, DPROF_ALIAS_SEP, real) < 0) {
			free(real);
			return -ENOMEM;
		}
		free(real);
		if (hashmap__add(r->aliases, adt, full)) {
			free(full);
			return -ENOMEM;
		}
	}
	if (full)
		t->type_name = full;
	return 0;
}

/* The name @name of @t's dso and size, kept once */
static struct dprof_type_name *dprof_resolver__intern(struct dprof_resolver *r,
						      const struct dprof_typed *t,
						      const char *name, int len)
{
	struct dprof_type_name *tn;
	char *key;

	if (!r->type_names) {
		r->type_names = hashmap__new(dprof_str_hash, dprof_str_equal, NULL);
		if (IS_ERR(r->type_names)) {
			r->type_names = NULL;
			return NULL;
		}
	}
	if (asprintf(&key, "%p %" PRIu64 " %.*s", t->dso, t->type_size, len, name) < 0)
		return NULL;
	if (hashmap__find(r->type_names, key, &tn)) {
		free(key);
		return tn;
	}
	tn = zalloc(sizeof(*tn));
	if (tn)
		tn->name = strndup(name, len);
	if (!tn || !tn->name || hashmap__add(r->type_names, key, tn)) {
		if (tn)
			free(tn->name);
		free(tn);
		free(key);
		return NULL;
	}
	tn->dso = dso__get(t->dso);
	return tn;
}

/*
 * A typing of user code named by dprof_resolver__type_name(), from perf or
 * from the typecache: the type's name behind the typedefs, perf's as its
 * alias, and a key of the type's name (of @t->dso and @t->type_size), the
 * same for all its typedefs.  Returns 0 or -ENOMEM.
 */
static int dprof_resolver__canon(struct dprof_resolver *r, struct dprof_typed *t)
{
	const char *sep = strchr(t->type_name, DPROF_ALIAS_SEP);
	struct dprof_type_name *tn, *alias = NULL;

	if (dso__kernel(t->dso))
		return 0;
	if (sep) {
		alias = dprof_resolver__intern(r, t, t->type_name, sep - t->type_name);
		tn = dprof_resolver__intern(r, t, sep + 1, strlen(sep + 1));
	} else {
		tn = dprof_resolver__intern(r, t, t->type_name, strlen(t->type_name));
	}
	if (!tn || (sep && !alias))
		return -ENOMEM;
	t->type_name = tn->name;
	t->alias = alias ? alias->name : NULL;
	t->key = (unsigned long)tn;
	return 0;
}

/*
 * perf's data type of the memory operand at @al (a sample of @thread in
 * @cpumode by @evsel), with the debuginfo of its dso lent already.
 * Returns the type or NULL; sets *@disasm when perf disassembled the
 * function for it.
 */
static struct annotated_data_type *dprof_perf_type(struct thread *thread,
						   struct evsel *evsel, u8 cpumode,
						   struct addr_location *al,
						   struct dprof_typed *t,
						   bool *disasm)
{
	struct annotated_data_type *adt;
	struct annotation *notes;
	struct hist_entry he;
	bool disassembled;

	/* just what hist_entry__get_data_type() looks at */
	memset(&he, 0, sizeof(he));
	he.ms.maps = al->maps;
	he.ms.map = al->map;
	he.ms.sym = al->sym;
	he.thread = thread;
	he.cpumode = cpumode;
	he.ip = al->addr;
	he.hists = evsel__hists(evsel);

	notes = symbol__annotation(al->sym);
	disassembled = notes->src && !list_empty(&notes->src->source);
	adt = hist_entry__get_data_type(&he);
	*disasm = !disassembled && notes->src && !list_empty(&notes->src->source);
	if (adt && adt != &stackop_type && adt != &canary_type &&
	    adt->self.type_name && he.mem_type_off >= 0) {
		t->type_name = adt->self.type_name;
		t->type_size = adt->self.size;
		t->offset = he.mem_type_off;
		t->key = (unsigned long)adt;
		/*
		 * The cache outlives the thread (EXIT drops its maps and their
		 * DSOs) and the type name lives in the DSO's data types: hold it.
		 */
		t->dso = dso__get(map__dso(al->map));
		t->known = true;
		return adt;
	}
	t->known = true;
	return NULL;
}

static int dprof_resolver__find_type(struct dprof_resolver *r,
				     struct thread *thread, struct evsel *evsel,
				     u64 ip, struct dprof_typed *t)
{
	u8 cpumode = machine__kernel_ip(r->machine, ip) ?
		     PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	struct annotated_data_type *adt = NULL;
	struct addr_location al;
	bool disasm;

	addr_location__init(&al);
	if (!thread__find_symbol(thread, cpumode, ip, &al))
		goto out;

	if (r->debuginfo && map__dso(al.map) != r->typed_dso) {
		/* held: a freed DSO's address can come back as another one */
		dso__put(r->typed_dso);
		r->typed_dso = dso__get(map__dso(al.map));
		r->typed_dbg = r->debuginfo(r->debuginfo_arg, al.map, thread, cpumode);
		if (r->typed_dbg)
			debuginfo_cache__use(r->typed_dso, r->typed_dbg);
	}
	/*
	 * No DWARF in the file (a C library without its debug package):
	 * nothing to type, and perf would reopen it at every DSO switch.
	 */
	if (r->debuginfo && !r->typed_dbg)
		goto out;
	/* after the lending above: it is what starts perf's variable walk */
	if (dprof_funcs__untypable(r->funcs, r->machine, thread, &al, ip)) {
		r->nr_untypable++;
		t->known = true;
		goto out;
	}

	adt = dprof_perf_type(thread, evsel, cpumode, &al, t, &disasm);
	if (disasm)
		dprof_resolver__disassembled(r, &al);
	if (adt && dprof_resolver__type_name(r, adt, &al, t))
		adt = NULL;
	if (r->trim_debuginfo && !(++r->nr_typings % DPROF_TYPED_TRIM))
		r->trim_debuginfo(r->debuginfo_arg);
out:
	addr_location__exit(&al);
	return adt ? 0 : -ENOENT;
}

/*
 * The typer: perf's typing of kernel code in a thread of its own.
 *
 * The first pass noted every sampled kernel ip (@sampled); the replay asks
 * for their operand types in time order, from the main thread, and waits
 * for each.  Most of the kernel's typings can be made ahead instead, while
 * the main thread goes on with the replay and types user code: the typer
 * types the noted ips a function at a time, the functions in the order of
 * their first samples, and serves the ips the replay asks for (and it has
 * not typed yet) first.  A function's disassembly goes when its ips are
 * typed.
 *
 * What the two threads share of perf: the kernel's maps and symbols (read;
 * perf locks the maps and leaves its last-found symbol cache alone once it
 * is multithreaded), the kernel's dso (its symbols' annotations, data
 * types and global variables are the typer's only: the main thread asks
 * the typer for every typing of the dso while it runs) and the file of its
 * debuginfo, which the typer reads with a libdw handle of its own.  perf's
 * debuginfo cache is per thread.  User code and kernel modules are typed
 * by the main thread.
 */
struct dprof_typer_group {
	u64		time;		/* the first sample of any of its ips */
	size_t		start;		/* its ips in sampled.v */
	size_t		end;
	struct symbol	*sym;		/* their function */
	bool		done;
};

struct dprof_typer {
	struct dprof_resolver	*r;
	pthread_t		tid;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	/* under @lock */
	struct hashmap		*done;		/* ip -> struct dprof_typed * */
	u64			*wanted;	/* ips the replay waits for */
	size_t			nr_wanted;
	size_t			alloc_wanted;
	bool			stop;
	/* the thread's */
	struct thread		*thread;
	struct evsel		*evsel;
	struct dso		*dso;		/* the kernel's */
	struct debuginfo	*dinfo;		/* the lent one, with @dbg */
	Dwarf			*dbg;
	/* given back every DPROF_TYPED_TRIM typings, as the main thread's */
	struct dprof_dwarf_pages pages;
	struct hashmap		*funcs;
	struct dprof_typer_group *groups;
	size_t			nr_groups;
	size_t			next_group;
	struct hashmap		*group_of;	/* symbol -> its group */
	/* the kernel's typings of earlier reports (read only: any thread) */
	const struct dprof_typecache_dso *cached;
	u64			nr_untypable;
	u32			nr_kept;
	u32			nr_disassembled;
	u32			nr_typed;
};

/* Publish the typing of @ip (@t: NULL when out of memory, a failed one). */
static void dprof_typer__publish(struct dprof_typer *ty, u64 ip,
				 struct dprof_typed *t)
{
	pthread_mutex_lock(&ty->lock);
	if (hashmap__add(ty->done, ip, t)) {
		if (t)
			dso__put(t->dso);
		free(t);
	}
	pthread_cond_broadcast(&ty->cond);
	pthread_mutex_unlock(&ty->lock);
}

/*
 * Type the kernel's instruction at @ip unless done, @al its symbol (NULL:
 * none, nothing to type); *@disassembled is set to its function when perf
 * disassembled it.
 */
static void dprof_typer__type_at(struct dprof_typer *ty, struct addr_location *al,
				 u64 ip, struct symbol **disassembled)
{
	struct dprof_typed *t;
	bool disasm = false;

	/* only this thread adds: no lock to look */
	if (hashmap__find(ty->done, ip, NULL))
		return;
	t = zalloc(sizeof(*t));
	if (t && al && !dprof_typecache_dso__find(ty->cached, map__map_ip(al->map, ip), t)) {
		ty->nr_kept++;
	} else if (t && al) {
		if (dprof_funcs__untypable(ty->funcs, ty->r->machine, ty->thread, al, ip)) {
			ty->nr_untypable++;
			t->known = true;
		} else {
			dprof_perf_type(ty->thread, ty->evsel, PERF_RECORD_MISC_KERNEL,
					al, t, &disasm);
		}
		if (!(++ty->nr_typed % DPROF_TYPED_TRIM))
			dprof_dwarf_pages__drop(&ty->pages);
		if (disasm) {
			ty->nr_disassembled++;
			*disassembled = al->sym;
		}
	}
	dprof_typer__publish(ty, ip, t);
}

/* Resolve @ip in the kernel's dso; false when it is not there. */
static bool dprof_typer__resolve(struct dprof_typer *ty, u64 ip,
				 struct addr_location *al)
{
	return thread__find_symbol(ty->thread, PERF_RECORD_MISC_KERNEL, ip, al) &&
	       map__dso(al->map) == ty->dso;
}

/* An ip the replay waits for */
static void dprof_typer__type(struct dprof_typer *ty, u64 ip,
			      struct symbol **disassembled)
{
	struct addr_location al;

	addr_location__init(&al);
	dprof_typer__type_at(ty, dprof_typer__resolve(ty, ip, &al) ? &al : NULL, ip,
			     disassembled);
	addr_location__exit(&al);
}

static void dprof_typer__purge(struct symbol *sym)
{
	struct annotation *notes = sym ? symbol__annotation(sym) : NULL;

	if (notes && notes->src)
		annotated_source__purge(notes->src);
}

/*
 * The sampled instruction at @al has no memory operand: the access can be
 * the one before it (skid, see dprof_replay__soft_access()): type that too.
 */
static void dprof_typer__type_prev(struct dprof_typer *ty, struct addr_location *al,
				   u64 ip, struct symbol **disassembled)
{
	struct dprof_func *f = dprof_funcs__find(ty->funcs, ty->r->machine,
						 ty->thread, al, ip);
	long i = f ? dprof_func__index(f, al) : -1;
	u32 back;

	if (i <= 0 || dprof_ea__mem_syntax(f->code + f->starts[i], dprof_func__len(f, i)))
		return;
	back = f->starts[i] - f->starts[i - 1];
	al->addr -= back;
	dprof_typer__type_at(ty, al, ip - back, disassembled);
}

/* The next function's ips, in the order of their first samples */
static void dprof_typer__type_group(struct dprof_typer *ty,
				    struct dprof_typer_group *g)
{
	const struct dprof_ip_time *v = ty->r->sampled.v;
	struct symbol *disassembled = NULL;
	struct addr_location al;
	size_t i;

	for (i = g->start; i < g->end; i++) {
		addr_location__init(&al);
		/* the plan resolved them all */
		if (dprof_typer__resolve(ty, v[i].ip, &al)) {
			dprof_typer__type_at(ty, &al, v[i].ip, &disassembled);
			dprof_typer__type_prev(ty, &al, v[i].ip, &disassembled);
		}
		addr_location__exit(&al);
	}
	/* disassembled here or for an ip the replay wanted before */
	dprof_typer__purge(g->sym);
	g->done = true;
}

static int dprof_typer_group__cmp(const void *a, const void *b)
{
	const struct dprof_typer_group *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The noted ips of the kernel's dso by function, in first-sample order. */
static int dprof_typer__plan(struct dprof_typer *ty)
{
	const struct dprof_ip_times *it = &ty->r->sampled;
	struct symbol *prev_sym = NULL;
	size_t i, alloc = 0;

	for (i = 0; i < it->nr; i++) {
		struct dprof_typer_group *g;
		struct addr_location al;
		struct symbol *sym = NULL;

		addr_location__init(&al);
		if (dprof_typer__resolve(ty, it->v[i].ip, &al))
			sym = al.sym;
		addr_location__exit(&al);
		if (!sym)
			continue;
		if (sym == prev_sym && ty->groups[ty->nr_groups - 1].end == i) {
			g = &ty->groups[ty->nr_groups - 1];
			g->end = i + 1;
			if (g->time > it->v[i].first)
				g->time = it->v[i].first;
			continue;
		}
		if (ty->nr_groups == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			g = realloc(ty->groups, alloc * sizeof(*g));
			if (!g)
				return -ENOMEM;
			ty->groups = g;
		}
		g = &ty->groups[ty->nr_groups++];
		g->time = it->v[i].first;
		g->start = i;
		g->end = i + 1;
		g->sym = sym;
		g->done = false;
		prev_sym = sym;
	}
	qsort(ty->groups, ty->nr_groups, sizeof(*ty->groups), dprof_typer_group__cmp);
	for (i = 0; i < ty->nr_groups; i++) {
		/* a function's ips are one run in ip order: one group each */
		if (hashmap__add(ty->group_of, ty->groups[i].sym, i))
			return -ENOMEM;
	}
	return 0;
}

static void *dprof_typer__run(void *arg)
{
	struct dprof_typer *ty = arg;
	bool plan_ok;

	debuginfo_cache__use(ty->dso, ty->dinfo);
	plan_ok = !dprof_typer__plan(ty);
	for (;;) {
		struct dprof_typer_group *g = NULL;
		struct symbol *disassembled = NULL;
		bool wanted = false;
		u64 ip = 0;

		pthread_mutex_lock(&ty->lock);
		while (!ty->stop && !ty->nr_wanted &&
		       (!plan_ok || ty->next_group == ty->nr_groups))
			pthread_cond_wait(&ty->cond, &ty->lock);
		if (ty->stop) {
			pthread_mutex_unlock(&ty->lock);
			break;
		}
		if (ty->nr_wanted) {
			ip = ty->wanted[--ty->nr_wanted];
			wanted = true;
		} else {
			g = &ty->groups[ty->next_group++];
		}
		pthread_mutex_unlock(&ty->lock);

		if (wanted) {
			size_t idx;

			dprof_typer__type(ty, ip, &disassembled);
			/* a group still to come purges it when done with it */
			if (disassembled && (!hashmap__find(ty->group_of, disassembled, &idx) ||
					     ty->groups[idx].done))
				dprof_typer__purge(disassembled);
		} else {
			dprof_typer__type_group(ty, g);
		}
	}
	debuginfo_cache__delete();
	return NULL;
}

static void dprof_typer__delete(struct dprof_typer *ty)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!ty)
		return;
	if (!IS_ERR_OR_NULL(ty->done)) {
		hashmap__for_each_entry(ty->done, cur, bkt) {
			struct dprof_typed *t = cur->pvalue;

			if (t)
				dso__put(t->dso);
			free(t);
		}
		hashmap__free(ty->done);
	}
	if (!IS_ERR_OR_NULL(ty->funcs)) {
		hashmap__for_each_entry(ty->funcs, cur, bkt)
			dprof_func__delete(cur->pvalue);
		hashmap__free(ty->funcs);
	}
	if (!IS_ERR_OR_NULL(ty->group_of))
		hashmap__free(ty->group_of);
	if (ty->dinfo) {
		/* the lent debuginfo's Dwfl is not this copy's to end */
		ty->dinfo->dwfl = NULL;
		debuginfo__delete(ty->dinfo);
	}
	if (ty->dbg)
		dwarf_end(ty->dbg);
	free(ty->groups);
	free(ty->wanted);
	thread__put(ty->thread);
	dso__put(ty->dso);
	pthread_mutex_destroy(&ty->lock);
	pthread_cond_destroy(&ty->cond);
	free(ty);
}

/*
 * Start the typer, after the replay's first typing of the kernel's code
 * (@dso, whose debuginfo @dbg the main thread has lent to perf): perf has
 * set up its disassembler and architecture, and has the kernel's global
 * variables.  Nothing happens when there was no first pass, or the
 * debuginfo's file needs another (a dwz alternate file) or cannot be
 * opened again.
 */
static void dprof_resolver__start_typer(struct dprof_resolver *r,
					struct thread *thread,
					struct evsel *evsel, struct dso *dso,
					struct debuginfo *dbg)
{
	struct dprof_typer *ty;
	Elf *elf;

	r->typer_tried = true;
	if (!r->sampled.sorted || !r->sampled.nr || !dso || !dso__kernel(dso) ||
	    !dbg || !dbg->dbg || dwarf_getalt(dbg->dbg))
		return;
	elf = dwarf_getelf(dbg->dbg);
	ty = zalloc(sizeof(*ty));
	if (!elf || !ty)
		goto fail;
	pthread_mutex_init(&ty->lock, NULL);
	pthread_cond_init(&ty->cond, NULL);
	ty->r = r;
	ty->thread = thread__get(thread);
	ty->evsel = evsel;
	ty->dso = dso__get(dso);
	ty->cached = dprof_typecache__dso(r->tcache, dso);
	ty->done = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	ty->funcs = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	ty->group_of = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
	if (IS_ERR(ty->done) || IS_ERR(ty->funcs) || IS_ERR(ty->group_of))
		goto fail;
	/* libdw keeps per-handle state without locks: a handle of its own */
	ty->dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	ty->dinfo = malloc(sizeof(*ty->dinfo));
	if (!ty->dbg || !ty->dinfo)
		goto fail;
	*ty->dinfo = *dbg;
	ty->dinfo->dbg = ty->dbg;
	ty->dinfo->cu_tops = NULL;
	dprof_dwarf_pages__init(&ty->pages, elf);

	dprof_threads__get();
	if (pthread_create(&ty->tid, NULL, dprof_typer__run, ty)) {
		dprof_threads__put();
		goto fail;
	}
	r->typer = ty;
	r->typer_running = true;
	return;
fail:
	pr_debug("dprof: typing the kernel's code in the main thread\n");
	dprof_typer__delete(ty);
}

/* the threads of ours that run next to the main one */
static unsigned int dprof_nr_threads;

/**
 * dprof_threads__get - a thread of ours is about to run perf's code
 *
 * perf's locks (struct rw_semaphore, the dsos' and the maps') are real
 * only while perf_singlethreaded is false.  Called by the main thread
 * before it starts a thread, with no such lock held; dprof_threads__put()
 * after it joined it.
 */
void dprof_threads__get(void)
{
	if (!dprof_nr_threads++)
		perf_set_multithreaded();
}

void dprof_threads__put(void)
{
	if (!--dprof_nr_threads)
		perf_set_singlethreaded();
}

/**
 * dprof_resolver__stop_typer - stop typing kernel code in a thread
 * @r: the resolver
 *
 * After the replay: the typings made so far stay for the main thread to
 * find.
 */
void dprof_resolver__stop_typer(struct dprof_resolver *r)
{
	struct dprof_typer *ty = r->typer;

	if (!ty || !r->typer_running)
		return;
	pthread_mutex_lock(&ty->lock);
	ty->stop = true;
	pthread_cond_broadcast(&ty->cond);
	pthread_mutex_unlock(&ty->lock);
	pthread_join(ty->tid, NULL);
	r->typer_running = false;
	dprof_threads__put();
	r->nr_untypable += ty->nr_untypable;
	r->nr_disassembled += ty->nr_disassembled;
	pr_debug("dprof: the kernel's typer typed %u ips, found %u typed by an earlier report (%zu functions planned, %zu done)\n",
		 ty->nr_typed, ty->nr_kept, ty->nr_groups, ty->next_group);
}

/*
 * The typing of the kernel's code at @ip, by the typer: wait for it while
 * the typer runs.  Returns 0 with @t set (t->type_name NULL: no type),
 * -EAGAIN when the typing failed (no memory), or -ENOENT when the typer
 * has not typed @ip and is not running: the caller types it.
 */
static int dprof_typer__get(struct dprof_typer *ty, u64 ip, struct dprof_typed *t)
{
	struct dprof_typed *res = NULL;
	bool found;

	pthread_mutex_lock(&ty->lock);
	found = hashmap__find(ty->done, ip, &res);
	/* only the main thread stops the typer: it runs while this waits */
	if (!found && ty->r->typer_running) {
		if (ty->nr_wanted == ty->alloc_wanted) {
			size_t alloc = ty->alloc_wanted ? ty->alloc_wanted * 2 : 16;
			u64 *w = realloc(ty->wanted, alloc * sizeof(*w));

			if (!w)
				goto out;
			ty->wanted = w;
			ty->alloc_wanted = alloc;
		}
		ty->wanted[ty->nr_wanted++] = ip;
		pthread_cond_broadcast(&ty->cond);
		while (!(found = hashmap__find(ty->done, ip, &res)))
			pthread_cond_wait(&ty->cond, &ty->lock);
	}
out:
	pthread_mutex_unlock(&ty->lock);
	if (!found)
		return ty->r->typer_running ? -EAGAIN : -ENOENT;
	if (!res)
		return -EAGAIN;
	*t = *res;
	t->dso = dso__get(res->dso);
	return 0;
}
#else
void dprof_resolver__stop_typer(struct dprof_resolver *r __maybe_unused)
{
}
#endif

/**
 * dprof_resolver__typed - data type of the memory operand at @ip
 * @r: the resolver
 * @thread: the sampled thread
 * @evsel: the sampling event (perf's annotation keeps state per event)
 * @ip: the instruction that made the access
 * @t: type name, size, offset of the access in the type
 *
 * Needs DWARF for the code at @ip and annotation set up (see
 * symbol__annotation_init()).  Cached per DSO and ip.  Returns 0 or
 * -ENOENT.
 */
int dprof_resolver__typed(struct dprof_resolver *r __maybe_unused,
			  struct thread *thread __maybe_unused,
			  struct evsel *evsel __maybe_unused,
			  u64 ip __maybe_unused,
			  struct dprof_typed *t __maybe_unused)
{
#ifdef HAVE_DWARF_SUPPORT
	struct dprof_typed_entry *e;
	struct dprof_code_key key;
	u64 rip;

	if (r->typed_off)
		return -ENOENT;
	/*
	 * Kernel code: only with a vmlinux (kallsyms has no DWARF to find).
	 * User code: any DSO, whose DWARF the lender below opens once per
	 * file; a DSO without DWARF is found out once per ip.
	 */
	if (machine__kernel_ip(r->machine, ip)) {
		if (!r->typed_checked) {
			struct map *kmap = machine__kernel_map(r->machine);

			r->typed_checked = true;
			r->typed_ok = kmap && !map__load(kmap) &&
				      dso__is_vmlinux(map__dso(kmap));
		}
		if (!r->typed_ok)
			return -ENOENT;
	}

	dprof_code_key__init(&key, r, thread, ip, &rip);
	if (!hashmap__find(r->typed, &key, &e)) {
		struct dprof_typecache_dso *cd = dprof_typecache__dso(r->tcache, key.dso);
		int err = -ENOENT;

		/*
		 * Kernel code an earlier report typed: answered from the cache
		 * each time, without an entry of its own (kernel names need no
		 * canonical copy, and the cache holds the dso).
		 */
		if (key.dso && dso__kernel(key.dso) != DSO_SPACE__USER &&
		    !dprof_typecache_dso__find(cd, rip, t)) {
			r->nr_typings_kept++;
			dso__put(t->dso);
			return t->type_name ? 0 : -ENOENT;
		}
		e = zalloc(sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->key.dso = dso__get(key.dso);
		e->key.ip = ip;
		if (!dprof_typecache_dso__find(cd, rip, &e->t)) {
			r->nr_typings_kept++;
			err = 0;
		} else if (r->typer && key.dso == r->typer->dso) {
			err = dprof_typer__get(r->typer, ip, &e->t);
		}
		if (err == -ENOENT) {
			if (dprof_resolver__find_type(r, thread, evsel, ip, &e->t))
				e->t.type_name = NULL;
			/* perf is set up for the kernel's typings: hand them over */
			if (!r->typer_tried && r->nr_disassembled && key.dso &&
			    key.dso == r->typed_dso && dso__kernel(key.dso))
				dprof_resolver__start_typer(r, thread, evsel,
							    r->typed_dso, r->typed_dbg);
		} else if (err) {
			e->t.type_name = NULL;
		}
		/* the cache names the type for all its typings: one key */
		if (cd && e->t.known && dprof_typecache_dso__add(cd, rip, &e->t))
			e->t.type_name = NULL;
		if (e->t.type_name && e->t.dso && dprof_resolver__canon(r, &e->t))
			e->t.type_name = NULL;
		if (hashmap__add(r->typed, &e->key, e)) {
			dprof_typed_entry__delete(e);
			return -ENOMEM;
		}
	}
	if (!e->t.type_name)
		return -ENOENT;
	*t = e->t;
	return 0;
#else
	return -ENOENT;
#endif
}

/**
 * dprof_resolver__typed_at - the cached operand type of the code at @ip
 * @r: the resolver
 * @dso: the DSO of the code at @ip
 * @ip: the instruction that made the access
 * @t: type name, size, offset of the access in the type
 *
 * For an ip whose thread is gone: what dprof_resolver__typed() found for
 * it during the replay.  Returns 0, or -ENOENT when it found nothing or
 * was never asked.
 */
int dprof_resolver__typed_at(struct dprof_resolver *r, struct dso *dso,
			     u64 ip, struct dprof_typed *t)
{
	struct dprof_code_key key = { .dso = dso, .ip = ip };
	struct dprof_typed_entry *e;

	if (!hashmap__find(r->typed, &key, &e) || !e->t.type_name)
		return -ENOENT;
	*t = e->t;
	return 0;
}

static int percpu_sym__cmp(const void *a, const void *b)
{
	const struct dprof_percpu_sym *sa = a, *sb = b;

	if (sa->start != sb->start)
		return sa->start < sb->start ? -1 : 1;
	return 0;
}

/**
 * dprof_percpu__load - per-cpu variables of a kernel image
 * @path: vmlinux
 * @syms: array of symbols sorted by offset (caller frees names and array)
 * @nr: number of symbols
 *
 * x86-64 links per-cpu variables at offsets from 0 in .data..percpu;
 * "%gs:off" addresses them on the current CPU.
 */
int dprof_percpu__load(const char *path, struct dprof_percpu_sym **syms,
		       size_t *nr)
{
	struct dprof_percpu_sym *arr = NULL;
	size_t n = 0, alloc = 0, percpu_ndx = 0, i;
	Elf_Scn *scn = NULL, *symtab = NULL;
	int fd, err = -ENOENT;
	GElf_Shdr shdr;
	size_t shstrndx;
	Elf *elf;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out_close;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, ".data..percpu"))
			percpu_ndx = elf_ndxscn(scn);
		else if (shdr.sh_type == SHT_SYMTAB)
			symtab = scn;
	}
	if (!percpu_ndx || !symtab)
		goto out_end;

	{
		Elf_Data *data = elf_getdata(symtab, NULL);
		size_t count;
		GElf_Sym sym;

		gelf_getshdr(symtab, &shdr);
		count = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
		for (i = 0; data && i < count; i++) {
			const char *name;

			if (!gelf_getsym(data, i, &sym) ||
			    sym.st_shndx != percpu_ndx ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (n == alloc) {
				struct dprof_percpu_sym *tmp;

				alloc = alloc ? alloc * 2 : 256;
				tmp = realloc(arr, alloc * sizeof(*arr));
				if (!tmp) {
					err = -ENOMEM;
					goto out_free;
				}
				arr = tmp;
			}
			arr[n].start = sym.st_value;
			arr[n].size = sym.st_size;
			arr[n].name = strdup(name);
			if (!arr[n].name) {
				err = -ENOMEM;
				goto out_free;
			}
			n++;
		}
	}
	qsort(arr, n, sizeof(*arr), percpu_sym__cmp);
	*syms = arr;
	*nr = n;
	err = 0;
	goto out_end;

out_free:
	for (i = 0; i < n; i++)
		free(arr[i].name);
	free(arr);
out_end:
	elf_end(elf);
out_close:
	close(fd);
	return err;
}

/* The per-cpu variable covering offset @off, or NULL. */
const struct dprof_percpu_sym *
dprof_percpu__find(const struct dprof_percpu_sym *syms, size_t nr, u64 off)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && off - syms[lo - 1].start < syms[lo - 1].size)
		return &syms[lo - 1];
	return NULL;
}

static void dprof_resolver__load_percpu(struct dprof_resolver *r)
{
	struct map *kmap = machine__kernel_map(r->machine);
	struct dso *dso;

	r->percpu_loaded = true;
	if (!kmap || map__load(kmap) < 0)
		return;
	dso = map__dso(kmap);
	if (dprof_percpu__load(dso__long_name(dso), &r->percpu, &r->nr_percpu))
		pr_debug("dprof: no per-cpu symbols in %s\n", dso__long_name(dso));
}

const struct dprof_percpu_sym *
dprof_resolver__percpu(struct dprof_resolver *r, u64 off, u64 *offset)
{
	const struct dprof_percpu_sym *sym;

	if (!r->percpu_loaded)
		dprof_resolver__load_percpu(r);
	sym = dprof_percpu__find(r->percpu, r->nr_percpu, off);
	if (sym)
		*offset = off - sym->start;
	return sym;
}
