// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the record-end pass, where the access samples fell.
 *
 * A sample resolves to an object only when its data address is inside
 * the object while it lives, so an object no sample's address fell in
 * cannot be in any view but as a count: its events need not be kept.
 * This pass reads the recording once, decodes each access sample's data
 * address the way the replay does (dprof_resolver__sample_ea() for the
 * software sampler, the PMU's address otherwise) and keeps the addresses
 * sorted, for the sources of the address set to ask "did a sample touch
 * this object?".
 *
 * The code bytes the software sampler's decoding needs are read from the
 * binaries, as the report reads them.  A user sample whose code cannot be
 * read may have touched any object alive then: it keeps them all, by
 * time.  A kernel sample whose code cannot be read (no /proc/kcore, no
 * vmlinux) is only counted: the kernel reaches a user object through a
 * uaccess, whose copies (rep movs) no decoding resolves anyway, and a
 * report on the same machine could not decode the rest either.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "util/data.h"
#include "util/debug.h"
#include "util/event.h"
#include "util/evsel.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "util/tool.h"
#include "decoded.h"
#include "ea.h"
#include "keep.h"
#include "resolve.h"
#include "watch.h"
#include "symname.h"

struct dprof_keep_tool {
	struct perf_tool	tool;
	struct dprof_touches	*t;
	struct dprof_resolver	res;
	struct dprof_still	still;
	bool			decoded_file;
};

static int dprof_touches__add(struct dprof_touch **v, size_t *nr, size_t *alloc,
			      u32 pid, u64 addr, u64 time)
{
	if (*nr == *alloc) {
		size_t n = *alloc ? 2 * *alloc : 4096;
		struct dprof_touch *p = realloc(*v, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*alloc = n;
	}
	(*v)[*nr].pid = pid;
	(*v)[*nr].addr = addr;
	(*v)[(*nr)++].time = time;
	return 0;
}

/*
 * A sample's data address: a kernel one is every process's (the kmem
 * pass asks by address alone), a user one its process's.
 */
static int dprof_keep__addr(struct dprof_touches *t, struct machine *machine, u32 pid,
			    u64 addr, u64 time)
{
	if (machine__kernel_ip(machine, addr))
		return dprof_touches__add(&t->kt, &t->nr_kt, &t->alloc_kt, 0, addr, time);
	return dprof_touches__add(&t->t, &t->nr, &t->alloc, pid, addr, time);
}

/* Note how @sample of the sampler was decoded, for the pass to write it so. */
static int dprof_keep__decode(struct dprof_touches *t, const struct perf_sample *sample,
			      u64 addr, u32 word)
{
	struct dprof_decode *e;

	if (t->nr_dec == t->alloc_dec) {
		size_t n = t->alloc_dec ? 2 * t->alloc_dec : 4096;

		e = realloc(t->dec, n * sizeof(*e));
		if (!e)
			return -ENOMEM;
		t->dec = e;
		t->alloc_dec = n;
	}
	e = &t->dec[t->nr_dec++];
	e->time = sample->time;
	e->addr = addr;
	e->tid = sample->tid;
	e->word = word;
	return 0;
}

/*
 * A kernel sample whose code could not be read: the base of its access
 * was one of its registers, so each kernel address they hold is a touch
 * near which a kernel object may be the sample's (dprof_touches__any_kernel()).
 */
static int dprof_keep__kernel_regs(struct dprof_touches *t, struct machine *machine,
				   const struct perf_sample *sample)
{
	const struct regs_dump *r = &sample->intr_regs;
	u64 i, nr = hweight64(r->mask);
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		if (machine__kernel_ip(machine, r->regs[i]))
			err = dprof_touches__add(&t->kregs, &t->nr_kregs, &t->alloc_kregs,
						 0, r->regs[i], sample->time);
	}
	return err;
}

/* The data address of an access sample, as dprof_replay__access() finds it. */
static int dprof_keep__sample(const struct perf_tool *tool, union perf_event *event __maybe_unused,
			      struct perf_sample *sample, struct evsel *evsel,
			      struct machine *machine)
{
	struct dprof_keep_tool *k = container_of(tool, struct dprof_keep_tool, tool);
	struct dprof_touches *t = k->t;
	bool soft = evsel->core.attr.sample_type & PERF_SAMPLE_REGS_INTR;
	bool note = dprof_decoded__can(evsel);
	struct thread *thread;
	struct dprof_decoded d;
	int ret, err = 0;
	bool still;

	if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT || evsel__is_dummy_event(evsel) ||
	    strstarts(evsel__name(evsel), DPROF_WATCH_PMU "/"))
		return 0;
	t->nr_samples++;
	t->nr_perf_kernel += dprof_symname__perf_kernel(machine, sample->ip, false);
	if (k->decoded_file && dprof_decoded__evsel(evsel)) {
		/* written decoded already: the report reads the same */
		ret = dprof_decoded__unpack(evsel, sample, &d);
		if (ret < 0)
			return 0;
		if (ret > 0 && d.why != DPROF_EA_OK)
			return 0;
		if (ret > 0)
			return dprof_keep__addr(t, machine, sample->pid, d.ea.addr, sample->time);
		soft = true;
	}
	if (!soft || !sample->intr_regs.regs) {
		if (soft && note)
			return dprof_keep__decode(t, sample, 0, DPROF_DEC_NO_REGS);
		if (sample->addr && !soft)
			err = dprof_keep__addr(t, machine, sample->pid, sample->addr,
					       sample->time);
		return err;
	}
	still = dprof_still__sample(&k->still, sample);
	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (!thread)
		return -ENOMEM;
	if (dprof_decoded__from_regs(&k->res, thread, sample, &d) < 0) {
		if (machine__kernel_ip(machine, sample->ip)) {
			t->nr_kernel_undecided++;
			err = dprof_keep__kernel_regs(t, machine, sample);
		} else {
			err = dprof_touches__add(&t->undecided, &t->nr_undecided,
						 &t->alloc_undecided, sample->pid, 0, sample->time);
		}
		if (!err && note)
			err = dprof_keep__decode(t, sample, 0, DPROF_DEC_REGS |
						 (still ? DPROF_DEC_STILL : 0));
	} else {
		d.still = still;
		if (d.why == DPROF_EA_OK)
			err = dprof_keep__addr(t, machine, sample->pid, d.ea.addr, sample->time);
		if (!err && note)
			err = dprof_keep__decode(t, sample, d.ea.addr,
						 dprof_decoded__word(&d, sample->ip));
	}
	thread__put(thread);
	return err;
}

/* By tid, time: the order the pass that writes them looks them up in */
static int dprof_decode__cmp(const void *a, const void *b)
{
	const struct dprof_decode *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * Sort the decodings for their lookup.  Two samples of one key (a task
 * is sampled once at a time, but each CPU's idle task is tid 0) keep
 * their registers both.
 */
static void dprof_touches__sort_dec(struct dprof_touches *t)
{
	size_t i;

	qsort(t->dec, t->nr_dec, sizeof(*t->dec), dprof_decode__cmp);
	for (i = 1; i < t->nr_dec; i++) {
		if (dprof_decode__cmp(&t->dec[i - 1], &t->dec[i]))
			continue;
		t->dec[i - 1].word = DPROF_DEC_REGS;
		t->dec[i].word = DPROF_DEC_REGS;
	}
	for (i = 0; i < t->nr_dec; i++)
		t->nr_dec_regs += !!(t->dec[i].word & DPROF_DEC_REGS);
}

const struct dprof_decode *dprof_touches__decode(const struct dprof_touches *t, u32 tid,
						 u64 time)
{
	const struct dprof_decode key = { .tid = tid, .time = time };

	return bsearch(&key, t->dec, t->nr_dec, sizeof(key), dprof_decode__cmp);
}

static int dprof_touch__cmp(const void *a, const void *b)
{
	const struct dprof_touch *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

int dprof_touches__read(struct dprof_touches *t, const char *output)
{
	struct perf_data data = {
		.path = output,
		.mode = PERF_DATA_MODE_READ,
	};
	struct dprof_keep_tool k = { .t = t };
	struct perf_session *session;
	int err;

	memset(t, 0, sizeof(*t));
	perf_tool__init(&k.tool, /*ordered_events=*/true);
	k.tool.sample = dprof_keep__sample;
	k.tool.mmap = perf_event__process_mmap;
	k.tool.mmap2 = perf_event__process_mmap2;
	k.tool.comm = perf_event__process_comm;
	k.tool.fork = perf_event__process_fork;
	k.tool.exit = perf_event__process_exit;
	k.tool.namespaces = perf_event__process_namespaces;
	k.tool.ordering_requires_timestamps = true;
	session = perf_session__new(&data, &k.tool);
	if (IS_ERR(session))
		return PTR_ERR(session);
	/* a recording's pages go back once read: the pass after this maps it too */
	session->drop_read_data = true;
	k.decoded_file = dprof_decoded__file(session);
	err = dprof_resolver__init(&k.res, &session->machines.host);
	if (!err) {
		dprof_still__init(&k.still);
		err = perf_session__process_events(session);
		dprof_still__exit(&k.still);
		dprof_resolver__exit(&k.res);
	}
	perf_session__delete(session);
	if (err)
		return err;
	qsort(t->t, t->nr, sizeof(*t->t), dprof_touch__cmp);
	qsort(t->undecided, t->nr_undecided, sizeof(*t->undecided), dprof_touch__cmp);
	qsort(t->kt, t->nr_kt, sizeof(*t->kt), dprof_touch__cmp);
	qsort(t->kregs, t->nr_kregs, sizeof(*t->kregs), dprof_touch__cmp);
	dprof_touches__sort_dec(t);
	if (t->nr_kernel_undecided)
		pr_debug("dprof: %" PRIu64
			 " kernel samples not decoded at record time (no kernel code bytes)\n",
			 t->nr_kernel_undecided);
	return 0;
}

void dprof_touches__exit(struct dprof_touches *t)
{
	free(t->t);
	free(t->undecided);
	free(t->kt);
	free(t->kregs);
	free(t->dec);
	memset(t, 0, sizeof(*t));
}

/* The first of @v[0..@nr) not before (@pid, @addr, @time). */
static size_t dprof_touches__lower(const struct dprof_touch *v, size_t nr, u32 pid,
				   u64 addr, u64 time)
{
	const struct dprof_touch key = { .pid = pid, .addr = addr, .time = time };
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dprof_touch__cmp(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A touch of @v (sorted by pid, address, time) of process @pid in [@addr,
 * @addr + @size) between @from and @to, or one of @undecided (sorted by
 * pid, time) of @pid in that time.
 */
static bool dprof_touches__in(const struct dprof_touch *v, size_t nr,
			      const struct dprof_touch *undecided, size_t nr_undecided,
			      u32 pid, u64 addr, u64 size, u64 from, u64 to)
{
	u64 end = addr + (size ?: 1);
	size_t i;

	/* a sample whose address is unknown: any object alive then */
	if (nr_undecided) {
		i = dprof_touches__lower(undecided, nr_undecided, pid, 0, from);
		if (i < nr_undecided && undecided[i].pid == pid && undecided[i].time <= to)
			return true;
	}
	/*
	 * Each address sampled in the object, its samples in time order:
	 * the first not before @from says, then on to the next address.
	 */
	i = dprof_touches__lower(v, nr, pid, addr, from);
	while (i < nr && v[i].pid == pid && v[i].addr < end) {
		if (v[i].time < from) {
			i = dprof_touches__lower(v, nr, pid, v[i].addr, from);
			continue;
		}
		if (v[i].time <= to)
			return true;
		i = dprof_touches__lower(v, nr, pid, v[i].addr + 1, 0);
	}
	return false;
}

bool dprof_touches__any(const struct dprof_touches *t, u32 pid, u64 addr, u64 size,
			u64 from, u64 to)
{
	return dprof_touches__in(t->t, t->nr, t->undecided, t->nr_undecided, pid, addr, size,
				 from, to);
}

bool dprof_touches__any_kernel(const struct dprof_touches *t, u64 addr, u64 size,
			       u64 from, u64 to)
{
	u64 lo = addr > DPROF_KEEP_REG_SLACK ? addr - DPROF_KEEP_REG_SLACK : 0;

	if (dprof_touches__in(t->kt, t->nr_kt, NULL, 0, 0, addr, size, from, to))
		return true;
	/* a register of an undecided sample pointed into it (or its slack) */
	return t->nr_kregs &&
	       dprof_touches__in(t->kregs, t->nr_kregs, NULL, 0, 0, lo,
				 addr - lo + (size ?: 1) + DPROF_KEEP_REG_SLACK, from, to);
}
