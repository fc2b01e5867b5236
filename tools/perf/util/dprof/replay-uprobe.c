// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the user-space allocator's uprobes (heapprobe.c) in a replay.
 *
 * An allocator call is an entry event (its size) and a return event (its
 * pointer and the caller's return address), per thread, nested when
 * operator new calls malloc; free is one event.  They become the heap's
 * allocations and frees (replay-heap.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "util/addr_location.h"
#include "util/callchain.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/dso.h"
#include "util/env.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/perf_regs.h"
#include "util/sample.h"
#include "util/thread.h"
#include "util/unwind.h"
#include "hashfn.h"
#include "heapprobe.h"
#include "replay-heap.h"
#include "replay-obj.h"
#include "replay-source.h"

/* operator new calls malloc: nested calls to follow per thread */
#define DPROF_HEAP_DEPTH	4

/*
 * A thread's allocator calls whose entry was seen, not yet their return;
 * the outer call's user callchain, when its entry took the stack.
 */
struct dprof_heap_call {
	int	depth;
	u64	size[DPROF_HEAP_DEPTH];
	u64	old[DPROF_HEAP_DEPTH];	/* realloc: the object it moves */
	u64	inner[DPROF_HEAP_DEPTH]; /* what the call it made returned */
	u32	nr_ips;
	u64	ips[DPROF_HEAP_FRAMES];
};

struct dprof_uprobe_unwind {
	struct dprof_heap_call	*c;
	u64			probe_ip;
	bool			past;	/* the allocator's own frames are behind */
};

static int dprof_uprobe__frame(struct unwind_entry *entry, void *arg)
{
	struct dprof_uprobe_unwind *u = arg;

	/* the first frame is the probed function itself */
	if (!u->past) {
		u->past = true;
		if (entry->ip == u->probe_ip)
			return 0;
	}
	if (u->c->nr_ips < DPROF_HEAP_FRAMES)
		u->c->ips[u->c->nr_ips++] = entry->ip;
	return 0;
}

/* The user callchain of an outer allocator call (DWARF unwinding). */
static void dprof_uprobe__chain(struct dprof_heap_call *c, struct perf_sample *sample,
				struct machine *machine)
{
	struct dprof_uprobe_unwind u = { .c = c, .probe_ip = sample->ip };
	struct thread *thread;

	c->nr_ips = 0;
	if (!sample->user_stack.size)
		return;
	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (!thread)
		return;
	/* one more: the probed function's own */
	if (unwind__get_entries(dprof_uprobe__frame, &u, thread, sample,
				DPROF_HEAP_FRAMES + 1, /*best_effort=*/false))
		c->nr_ips = 0;
	thread__put(thread);
}

enum { DPROF_UPROBE_ENTRY = 1, DPROF_UPROBE_RETURN };

/*
 * Where a probe hit, for dprof_replay__in_uprobe_trap(): a function's
 * entry, whose first instruction the kernel steps out of line, or the
 * call site a return probe goes back to.  One set of user addresses per
 * process: processes of one non-PIE program share their call sites.
 */
static void dprof_uprobe__hit(struct dprof_replay *r, struct perf_sample *sample, long how)
{
	struct hashmap *ips;

	if (!r->uprobe_ips) {
		r->uprobe_ips = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(r->uprobe_ips)) {
			r->uprobe_ips = NULL;
			return;
		}
	}
	if (!hashmap__find(r->uprobe_ips, sample->pid, &ips)) {
		ips = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(ips))
			return;
		if (hashmap__add(r->uprobe_ips, sample->pid, ips)) {
			hashmap__free(ips);
			return;
		}
	}
	/* no memory: the samples of its traps stay the program's */
	hashmap__add(ips, sample->ip, how);
}

static int dprof_uprobe__entry(struct dprof_replay *r, struct evsel *evsel,
			       struct perf_sample *sample, struct machine *machine)
{
	u64 size = evsel__intval(evsel, sample, "size");
	struct dprof_heap_call *c;

	dprof_uprobe__hit(r, sample, DPROF_UPROBE_ENTRY);

	if (!r->heap_calls) {
		r->heap_calls = hashmap__new(dprof_long_hash, dprof_long_equal, NULL);
		if (IS_ERR(r->heap_calls)) {
			r->heap_calls = NULL;
			return -ENOMEM;
		}
	}
	if (!hashmap__find(r->heap_calls, sample->tid, &c)) {
		c = zalloc(sizeof(*c));
		if (!c)
			return -ENOMEM;
		if (hashmap__add(r->heap_calls, sample->tid, c)) {
			free(c);
			return -ENOMEM;
		}
	}
	if (evsel__field(evsel, "nmemb"))
		size *= evsel__intval(evsel, sample, "nmemb");
	if (!c->depth)
		dprof_uprobe__chain(c, sample, machine);
	if (c->depth < DPROF_HEAP_DEPTH) {
		c->size[c->depth] = size;
		c->old[c->depth] = evsel__field(evsel, "old") ?
				   evsel__intval(evsel, sample, "old") : 0;
		c->inner[c->depth] = 0;
	}
	c->depth++;
	return 0;
}

static int dprof_uprobe__free(struct dprof_replay *r, struct evsel *evsel,
			      struct perf_sample *sample,
			      struct machine *machine __maybe_unused)
{
	dprof_uprobe__hit(r, sample, DPROF_UPROBE_ENTRY);
	return dprof_replay__heap_free(r, sample->pid, sample->cpu, sample->time,
				       evsel__intval(evsel, sample, "ptr"));
}

static int dprof_uprobe__return(struct dprof_replay *r, struct evsel *evsel,
				struct perf_sample *sample, struct machine *machine)
{
	u64 ptr = evsel__intval(evsel, sample, "ptr"), site;
	struct dprof_heap_alloc a = {
		.pid	= sample->pid,
		.tid	= sample->tid,
		.cpu	= sample->cpu,
		.time	= sample->time,
		.nr_ips	= 1,
		.ips	= &site,
	};
	struct dprof_heap_call *c;

	dprof_uprobe__hit(r, sample, DPROF_UPROBE_RETURN);
	/* no entry: filtered by --heap-min-size, or called before recording */
	if (!r->heap_calls || !hashmap__find(r->heap_calls, sample->tid, &c) ||
	    !c->depth)
		return 0;
	/* malloc inside operator new, realloc: the outer call makes the object */
	if (--c->depth) {
		if (c->depth <= DPROF_HEAP_DEPTH)
			c->inner[c->depth - 1] = ptr;
		return 0;
	}
	/*
	 * posix_memalign returns an error code and gives the pointer through
	 * an argument: it is what its _mid_memalign call returned.
	 */
	if (evsel__field(evsel, "rc"))
		ptr = evsel__intval(evsel, sample, "rc") ? 0 : c->inner[0];
	a.ptr = ptr;
	a.size = c->size[0];
	a.old = c->old[0];
	if (c->nr_ips) {
		a.nr_ips = c->nr_ips;
		a.ips = c->ips;
		return dprof_replay__heap_alloc(r, &a, machine);
	}
	site = evsel__field(evsel, "__probe_ret_ip") ?
	       evsel__intval(evsel, sample, "__probe_ret_ip") : sample->ip;
	return dprof_replay__heap_alloc(r, &a, machine);
}

static void dprof_replay__uprobe_add(struct dprof_replay *r, struct evsel *evsel,
				     const char *name)
{
	const char *event = strchr(name, ':');
	size_t len;

	if (!strstarts(name, DPROF_HEAP_GROUP) || !event)
		return;
	event++;
	len = strlen(event);
	r->rec.has_heap = true;
	/* free, operator delete: a pointer and no size (heapprobe.c) */
	if (len > 4 && !strcmp(event + len - 4, "_ret"))
		evsel->handler = dprof_uprobe__return;
	else if (evsel__field(evsel, "size"))
		evsel->handler = dprof_uprobe__entry;
	else if (evsel__field(evsel, "ptr"))
		evsel->handler = dprof_uprobe__free;
	/*
	 * The entries took the user stack: perf's unwinder readies each map
	 * for it as it is inserted, from the first mmap event on.
	 */
	if (evsel->core.attr.sample_type & PERF_SAMPLE_STACK_USER)
		dwarf_callchain_users = true;
}

/*
 * A kernel sample of a thread trapped by one of the allocator's uprobes:
 * its user registers (perf dprof record adds --user-regs=ip with them)
 * hold where it entered the kernel: in the kernel's [uprobes] page (the
 * instruction stepped out of line, the return probe's trampoline), on a
 * probed function's first instruction or just past it (stepped), or at
 * the call site a return probe went back to.  The tracking's cost, not
 * the program's.  An x86 instruction is 15 bytes at most.
 */
static bool dprof_replay__in_uprobe_trap(struct dprof_replay *r, struct machine *machine,
					 struct perf_sample *sample)
{
	struct addr_location al;
	struct thread *thread;
	struct hashmap *ips;
	bool trap = false;
	long how;
	u64 ip, i;

	if (!r->uprobe_ips || sample->cpumode != PERF_RECORD_MISC_KERNEL ||
	    !sample->user_regs.regs ||
	    !hashmap__find(r->uprobe_ips, sample->pid, &ips) ||
	    perf_reg_value(&ip, &sample->user_regs,
			   perf_arch_reg_ip(perf_env__arch(machine->env))))
		return false;
	for (i = 0; i < 16 && i <= ip; i++) {
		if (hashmap__find(ips, ip - i, &how) &&
		    (how == DPROF_UPROBE_ENTRY || !i))
			return true;
	}
	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (!thread)
		return false;
	addr_location__init(&al);
	if (thread__find_map(thread, PERF_RECORD_MISC_USER, ip, &al)) {
		const char *name = dso__short_name(map__dso(al.map));

		trap = name && !strcmp(name, "[uprobes]");
	}
	addr_location__exit(&al);
	thread__put(thread);
	return trap;
}

static void dprof_replay__uprobes_exit(struct dprof_replay *r)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (r->uprobe_ips) {
		hashmap__for_each_entry(r->uprobe_ips, cur, bkt)
			hashmap__free(cur->pvalue);
		hashmap__free(r->uprobe_ips);
		r->uprobe_ips = NULL;
	}
	if (!r->heap_calls)
		return;
	hashmap__for_each_entry(r->heap_calls, cur, bkt)
		free(cur->pvalue);
	hashmap__free(r->heap_calls);
	r->heap_calls = NULL;
}

static bool dprof_uprobe__own_sample(struct dprof_replay *r, struct machine *machine,
				     struct perf_sample *sample)
{
	if (!dprof_replay__in_uprobe_trap(r, machine, sample))
		return false;
	r->rec.nr_trap_samples++;
	return true;
}

const struct dprof_replay_source dprof_uprobe_source = {
	.name		= "allocator uprobes",
	.tracepoint	= dprof_replay__uprobe_add,
	.own_sample	= dprof_uprobe__own_sample,
	.exit		= dprof_replay__uprobes_exit,
};
