// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: replay a recording.
 *
 * The slab allocator's events rebuild the address set in time order; each
 * access sample is resolved against it (a live object), the symbol tables
 * (static and per-cpu variables) or the DWARF type of the instruction's
 * operand, and counted per allocation class and (offset, ip) site; watch
 * hits (object histories) and every event go to the sinks, the views that
 * need the stream.  The address set's sources each have a file:
 * replay-kmem.c (the slab allocator's events and the slab map),
 * replay-heap.c (the user heap) fed by replay-uprobe.c (the allocator's
 * uprobes) and replay-heaplog.c (the preloaded recorder's log).  This file
 * drives them through one table of hooks (struct dprof_replay_source,
 * replay-source.h: open, their tracepoints, the first pass's, their events
 * up to a time, their own samples, a process's exit, an access in their
 * objects, finish, exit), and they call down into replay-obj.c (objects
 * to the sinks, accesses counted), never back into this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <internal/lib.h>

#include "util/addr_location.h"
#include "util/annotate.h"
#include "util/build-id.h"
#include "util/data.h"
#include "util/debug.h"
#include "util/disasm.h"
#include "util/dso.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/header.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/hashmap.h"
#include "util/session.h"
#include "util/srcline.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "util/tool.h"
#include "heaplog.h"
#include "record.h"
#include "replay.h"
#include "replay-obj.h"
#include "replay-source.h"
#include "hashfn.h"
#include "sink.h"
#include "ea.h"
#include "decoded.h"
#include "delivery.h"
#include "watch.h"
#include "symload.h"
#include "symname.h"
#include "userfiles.h"
#include "typecache.h"

/* x86-64 THREAD_SIZE with KASAN off; stack slots are not a data type */

/*
 * The event sources, in the order they are asked: the recorder's log is
 * handed to the heap before anything else of the same time; an access
 * goes to the first source whose objects hold its address (the user heap
 * takes only user addresses, the kernel's address set only the kernel's).
 */
static const struct dprof_replay_source *const dprof_replay_sources[] = {
	&dprof_heaplog_source,
	&dprof_uprobe_source,
	&dprof_heap_source,
	&dprof_kmem_source,
};

/* Every source's events up to @time, before the recording's event at @time. */
static int dprof_replay__until(struct dprof_replay *r, struct machine *machine, u64 time)
{
	const struct dprof_replay_source *src;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
		src = dprof_replay_sources[i];
		if (src->until) {
			err = src->until(r, machine, time);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The source whose tracepoint the first pass reads (the slab snapshot), or NULL. */
static const struct dprof_replay_source *dprof_replay__first_source(void)
{
	const struct dprof_replay_source *src;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
		src = dprof_replay_sources[i];
		if (src->first_tp)
			return src;
	}
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* before the replay: the slab snapshot, kernel code's first samples       */

struct dprof_preload {
	struct perf_tool	tool;
	struct dprof_replay	*r;
};

/* An access sample of kernel code: see dprof_resolver__note_sample(). */
static int dprof_preload__access(struct dprof_replay *r,
				 struct evsel *evsel __maybe_unused,
				 struct perf_sample *sample,
				 struct machine *machine __maybe_unused)
{
	if (sample->cpumode != PERF_RECORD_MISC_KERNEL)
		return 0;
	return dprof_resolver__note_sample(&r->res, sample->ip, sample->time);
}

static int dprof_preload__sample(const struct perf_tool *tool,
				 union perf_event *event __maybe_unused,
				 struct perf_sample *sample,
				 struct evsel *evsel,
				 struct machine *machine)
{
	struct dprof_preload *p = container_of(tool, struct dprof_preload, tool);
	dprof_tp_handler f = evsel->handler;

	return f ? f(p->r, evsel, sample, machine) : 0;
}

/*
 * The events of the pass's own session that it reads: the slab snapshot,
 * and the access samplers, as dprof_replay__sample() tells them (every
 * sampler that is neither a tracepoint nor a watch).
 */
static bool dprof_preload__is_access(struct evsel *evsel)
{
	return evsel->core.attr.type != PERF_TYPE_TRACEPOINT &&
	       !evsel__is_dummy_event(evsel) &&
	       !strstarts(evsel__name(evsel), DPROF_WATCH_PMU "/");
}

static void dprof_preload__scan_evlist(struct evlist *evlist)
{
	const struct dprof_replay_source *first = dprof_replay__first_source();
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT && first &&
		    !strcmp(evsel__name(evsel), first->first_tp))
			evsel->handler = first->first;
		else if (dprof_preload__is_access(evsel))
			evsel->handler = dprof_preload__access;
	}
}

/*
 * The snapshot is the state of the slabs when recording starts, but its
 * events come once perf record has enabled every event, after the first
 * samples.  So it is read first, in a pass over the file that looks at
 * nothing else (no sorting, no symbols), and every sample of the replay
 * sees the objects allocated earlier.  A slab made before the snapshot
 * is in it too; its kmem:slab_new, replayed in time, marks it as made
 * during the recording.
 *
 * The same pass notes when each kernel ip was sampled first and last:
 * perf's disassembly of a kernel function, made to type an operand in
 * it, is freed once the replay is past the samples that need it.
 * Without a snapshot, nothing is noted and it is kept to the end.
 *
 * This is the pass through perf's reader, in a session of its own; see
 * dprof_replay__scan() for the one taken when the file allows.
 */
static int dprof_replay__preload_session(struct dprof_replay *r)
{
	struct dprof_preload p = { .r = r, };
	struct perf_data data = {
		.path	= r->data.path,
		.mode	= PERF_DATA_MODE_READ,
		.force	= r->data.force,
	};
	struct perf_session *session;
	int err;

	perf_tool__init(&p.tool, /*ordered_events=*/false);
	p.tool.sample = dprof_preload__sample;
	session = perf_session__new(&data, &p.tool);
	if (IS_ERR(session))
		return PTR_ERR(session);
	/* the replay reads the file again: keep none of it resident */
	session->drop_read_data = true;
	dprof_preload__scan_evlist(session->evlist);
	err = perf_session__process_events(session);
	perf_session__delete(session);
	return err;
}

/* how far behind the scan the data file's pages are given back */
#define DPROF_SCAN_DROP		(4 * 1024 * 1024UL)

/* what the scan looks for, and what it found */
struct dprof_scan {
	struct dprof_replay	*r;
	struct evsel		*snapshot;
	struct evsel		**access;	/* the access samplers */
	int			nr_access;
	u64			*offs;		/* of the snapshot's records */
	u64			nr_offs;
	u64			alloc_offs;
	/* the files of user code sampled; NULL: not asked for */
	struct dprof_userfiles	*user;
};

/* A record's string field: NULL unless it ends within the record */
static const char *dprof_scan__string(union perf_event *event, const char *str)
{
	const char *end = (const char *)event + event->header.size;

	if (str >= end || !memchr(str, '\0', end - str))
		return NULL;
	return str;
}

/* An executable mapping of a file, from an mmap record of @pid */
static int dprof_scan__user_mmap(struct dprof_scan *sc, union perf_event *event,
				 u32 pid, u64 start, u64 len, u64 pgoff,
				 const char *filename)
{
	const char *name = dprof_scan__string(event, filename);

	if ((event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
	    !name || *name != '/')
		return 0;
	return dprof_userfiles__mmap(sc->user, pid, start, len, pgoff, name);
}

/* The records that tell which file a user ip is in */
static int dprof_scan__user_record(struct dprof_scan *sc, union perf_event *event)
{
	switch (event->header.type) {
	case PERF_RECORD_MMAP2:
		if (event->header.size <= offsetof(struct perf_record_mmap2, filename) ||
		    !(event->mmap2.prot & PROT_EXEC))
			return 0;
		return dprof_scan__user_mmap(sc, event, event->mmap2.pid, event->mmap2.start,
					     event->mmap2.len, event->mmap2.pgoff,
					     event->mmap2.filename);
	case PERF_RECORD_MMAP:
		if (event->header.size <= offsetof(struct perf_record_mmap, filename) ||
		    (event->header.misc & PERF_RECORD_MISC_MMAP_DATA))
			return 0;
		return dprof_scan__user_mmap(sc, event, event->mmap.pid, event->mmap.start,
					     event->mmap.len, event->mmap.pgoff,
					     event->mmap.filename);
	case PERF_RECORD_FORK:
		if (event->header.size < sizeof(event->fork))
			return 0;
		return dprof_userfiles__fork(sc->user, event->fork.pid, event->fork.ppid);
	case PERF_RECORD_COMM:
		/* a comm record has no cpumode, only the exec flag */
		if (event->header.size >= sizeof(event->comm) &&
		    (event->header.misc & PERF_RECORD_MISC_COMM_EXEC))
			dprof_userfiles__exec(sc->user, event->comm.pid);
		return 0;
	default:
		return 0;
	}
}

static int dprof_scan__record(struct dprof_scan *sc, union perf_event *event, u64 off)
{
	struct evsel *evsel = evlist__event2evsel(sc->r->session->evlist, event);
	struct perf_sample sample;
	int i;

	if (evsel && evsel == sc->snapshot) {
		if (sc->nr_offs == sc->alloc_offs) {
			u64 alloc = sc->alloc_offs ? 2 * sc->alloc_offs : 1024;
			u64 *more = realloc(sc->offs, alloc * sizeof(*more));

			if (!more)
				return -ENOMEM;
			sc->offs = more;
			sc->alloc_offs = alloc;
		}
		sc->offs[sc->nr_offs++] = off;
		return 0;
	}
	/* as dprof_preload__access(): kernel code, and which user files */
	switch (event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
		break;
	case PERF_RECORD_MISC_USER:
		if (sc->user)
			break;
		return 0;
	default:
		return 0;
	}
	for (i = 0; i < sc->nr_access; i++) {
		if (evsel != sc->access[i])
			continue;
		memset(&sample, 0, sizeof(sample));
		if (evsel__parse_sample(evsel, event, &sample))
			return -EINVAL;
		if (sample.cpumode == PERF_RECORD_MISC_USER)
			return dprof_userfiles__sample(sc->user, sample.pid, sample.ip,
						       sample.time);
		return dprof_resolver__note_sample(&sc->r->res, sample.ip, sample.time);
	}
	return 0;
}

/*
 * The records of the @size bytes of the data section, mapped @shift bytes
 * into the pages at @map, told apart by the sample id in each: the
 * offsets of the snapshot's, in file order, and the kernel ips of the
 * access samples (the only samples parsed).  Return: 0, or -EINVAL for a
 * record perf's reader would have to judge (damaged, compressed), -ENOMEM.
 */
static int dprof_scan__records(struct dprof_scan *sc, char *map, u64 shift, u64 size)
{
	char *data = map + shift;
	u64 off = 0, dropped = 0;
	int err;

	while (off < size) {
		union perf_event *event = (union perf_event *)(data + off);
		u64 len;

		/* perf writes records of 8-byte multiples, 8-byte aligned */
		if (size - off < sizeof(event->header))
			return -EINVAL;
		len = event->header.size;
		if (len < sizeof(event->header) || len % sizeof(u64) || len > size - off ||
		    event->header.type == PERF_RECORD_COMPRESSED)
			return -EINVAL;
		if (event->header.type == PERF_RECORD_AUXTRACE) {
			if (len < sizeof(event->auxtrace) ||
			    event->auxtrace.size % sizeof(u64) ||
			    event->auxtrace.size > size - off - len)
				return -EINVAL;
			len += event->auxtrace.size;
		} else if (event->header.type == PERF_RECORD_SAMPLE) {
			err = dprof_scan__record(sc, event, off);
			if (err)
				return err;
		} else if (sc->user) {
			err = dprof_scan__user_record(sc, event);
			if (err)
				return err;
		}
		off += len;
		/* the pages read are not needed again: keep few resident */
		if (off - dropped >= 2 * DPROF_SCAN_DROP) {
			dropped = off - DPROF_SCAN_DROP;
			madvise(map, (shift + dropped) & ~((u64)page_size - 1),
				MADV_DONTNEED);
		}
	}
	return 0;
}

/*
 * The first pass, without a session of its own when the file allows: map
 * the data section, tell the records apart by their sample id and parse
 * only the snapshot's and the access samples'.  The pass through perf's
 * reader parses every sample (a tenth of the report on a long recording);
 * it is still taken for what this does not read (a pipe, a directory,
 * another byte order, a data size the header got wrong, compressed
 * records) and for any record this cannot vouch for, so that perf's reader
 * judges a damaged file.  Noting an access sample twice changes nothing.
 *
 * Return: 0 when the pass is done, 1 when the session pass is to do it,
 * or a negative error.
 */
static int dprof_replay__scan(struct dprof_replay *r)
{
	struct perf_session *session = r->session;
	struct perf_header *header = &session->header;
	const struct dprof_replay_source *first = dprof_replay__first_source();
	struct dprof_scan sc = { .r = r, };
	struct perf_sample *samples = NULL;
	u64 start, shift, end, i;
	struct evsel *evsel;
	struct stat st;
	char *map;
	int err = 1;

	if (perf_data__is_pipe(session->data) || perf_data__is_dir(session->data) ||
	    header->needs_swap || header->data_size_cut || !header->data_size ||
	    header->data_offset % sizeof(u64))
		return 1;
	/* touching a page past the end of the file would be SIGBUS */
	if (fstat(perf_data__fd(session->data), &st) ||
	    __builtin_add_overflow(header->data_offset, header->data_size, &end) ||
	    end > (u64)st.st_size)
		return 1;
	sc.snapshot = first ? evlist__find_tracepoint_by_name(session->evlist,
							      first->first_tp) : NULL;
	sc.access = calloc(session->evlist->core.nr_entries, sizeof(*sc.access));
	if (!sc.access)
		return 1;
	evlist__for_each_entry(session->evlist, evsel) {
		if (dprof_preload__is_access(evsel))
			sc.access[sc.nr_access++] = evsel;
	}
	start = header->data_offset & ~((u64)page_size - 1);
	shift = header->data_offset - start;
	map = mmap(NULL, shift + header->data_size, PROT_READ, MAP_SHARED,
		   perf_data__fd(session->data), start);
	if (map == MAP_FAILED) {
		free(sc.access);
		return 1;
	}

	/*
	 * Which files of user code the samples fall in: their symbols can
	 * be loaded and their DWARF opened ahead.
	 */
	sc.user = dprof_userfiles__new();
	if (dprof_scan__records(&sc, map, shift, header->data_size))
		goto out;
	/* parse them all before using any: a bad one goes to perf's reader */
	samples = calloc(sc.nr_offs ?: 1, sizeof(*samples));
	if (!samples)
		goto out;
	for (i = 0; i < sc.nr_offs; i++) {
		if (evsel__parse_sample(sc.snapshot,
					(union perf_event *)(map + shift + sc.offs[i]),
					&samples[i]))
			goto out;
	}
	for (i = 0, err = 0; i < sc.nr_offs && !err; i++)
		err = first->first(r, sc.snapshot, &samples[i], &session->machines.host);
	if (!err && sc.user) {
		const char *const *names;
		size_t nr = dprof_userfiles__sampled(sc.user, &names);

		if (nr && r->res.prefetch)
			r->res.prefetch(r->res.debuginfo_arg, names, nr);
		r->symload = dprof_symload__new(r->res.machine, names, nr);
		/* without them, its disassemblies stay to the end: no error */
		for (i = 0; i < nr; i++)
			dprof_resolver__note_user_file(&r->res, names[i],
						       dprof_userfiles__times(sc.user, i));
	}
out:
	dprof_userfiles__delete(sc.user);
	free(samples);
	free(sc.offs);
	free(sc.access);
	munmap(map, shift + header->data_size);
	return err;
}

/*
 * The pass before the replay (see dprof_replay__preload_session()): the
 * snapshot and the first and last sample of each kernel ip.
 */
static int dprof_replay__preload(struct dprof_replay *r)
{
	int err = dprof_replay__scan(r);

	if (err == 1)
		err = dprof_replay__preload_session(r);
	dprof_resolver__noted(&r->res);
	return err;
}

/*
 * Without a snapshot, the first pass is only worth its cost when it comes
 * cheap: the scan, when the file allows it.  What it notes lets the
 * kernel's typings and the opening of user files' DWARF run in threads
 * of their own (see resolve.c and dprof_typeinfo__prefetch()).
 */
static int dprof_replay__prescan(struct dprof_replay *r)
{
	int err = dprof_replay__scan(r);

	dprof_resolver__noted(&r->res);
	return err == 1 ? 0 : err;
}

/* ---------------------------------------------------------------------- */
/* the processes: their maps and exits                                     */

/* A mapping of a file whose symbols the loader takes, if it wants them */
static void dprof_replay__symload(struct dprof_replay *r, struct machine *machine,
				  u32 pid, u32 tid, u64 start, const char *filename)
{
	struct thread *thread;
	struct map *map;

	if (!dprof_symload__wants(r->symload, filename))
		return;
	thread = machine__find_thread(machine, pid, tid);
	if (!thread)
		return;
	map = maps__find(thread__maps(thread), start);
	dprof_symload__map(r->symload, map, filename);
	map__put(map);
	thread__put(thread);
}

static int dprof_replay__mmap(const struct perf_tool *tool, union perf_event *event,
			      struct perf_sample *sample, struct machine *machine)
{
	struct dprof_replay *r = container_of(tool, struct dprof_replay, tool);
	int err = perf_event__process_mmap(tool, event, sample, machine);

	if (!err)
		dprof_replay__symload(r, machine, event->mmap.pid, event->mmap.tid,
				      event->mmap.start, event->mmap.filename);
	return err;
}

static int dprof_replay__mmap2(const struct perf_tool *tool, union perf_event *event,
			       struct perf_sample *sample, struct machine *machine)
{
	struct dprof_replay *r = container_of(tool, struct dprof_replay, tool);
	int err = perf_event__process_mmap2(tool, event, sample, machine);

	if (!err)
		dprof_replay__symload(r, machine, event->mmap2.pid, event->mmap2.tid,
				      event->mmap2.start, event->mmap2.filename);
	return err;
}

/* A process exits: the objects it left (its heap) end with it. */
static int dprof_replay__exit_event(const struct perf_tool *tool, union perf_event *event,
				    struct perf_sample *sample, struct machine *machine)
{
	struct dprof_replay *r = container_of(tool, struct dprof_replay, tool);
	const struct dprof_replay_source *src;
	int err = dprof_replay__until(r, machine, sample->time);
	size_t i;

	if (err)
		return err;
	if (event->fork.pid == event->fork.tid) {
		for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
			src = dprof_replay_sources[i];
			if (!src->exit_process)
				continue;
			err = src->exit_process(r, event->fork.pid, sample->time, sample->cpu);
			if (err)
				return err;
		}
	}
	return perf_event__process_exit(tool, event, sample, machine);
}

/* ---------------------------------------------------------------------- */
/* access samples                                                          */

/* Return: false when the sample is no memory access (AMD IBS tags any op). */
static bool dprof_replay__decode_data_src(struct dprof_replay *r,
					  struct dprof_access *acc,
					  struct evsel *evsel,
					  const struct perf_sample *sample)
{
	bool ws = evsel->core.attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT;
	struct dprof_mem mem;

	dprof_mem__decode(&mem, sample->data_src, sample->weight, ws);
	dprof_mem_stats__add(&r->rec.mem, &mem);
	acc->is_write = mem.is_write;
	acc->level_known = mem.level_known;
	acc->miss = mem.miss;
	acc->level = mem.level;
	acc->hitm = mem.hitm;
	acc->remote = mem.remote;
	acc->weight = mem.latency;
	return mem.mem_op;
}

static int dprof_replay__unresolved(struct dprof_replay *r,
				    const struct dprof_access *acc,
				    enum dprof_unres why)
{
	struct dprof_sink *sink;
	int err;

	r->prof.unres[why]++;
	list_for_each_entry(sink, &r->sinks, node) {
		if (sink->unresolved) {
			err = sink->unresolved(sink, acc, why);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The class of @kind for a type perf's data-type profiling gave (@typed). */
static struct dprof_class *dprof_replay__typed_class(struct dprof_replay *r,
						     enum dprof_kind kind,
						     const struct dprof_typed *typed)
{
	struct dprof_class *cls;

	cls = dprof_profile__findnew_class(&r->prof, kind, typed->key, typed->dso);
	if (cls && !cls->name) {
		cls->name = strdup(typed->type_name);
		cls->obj_size = typed->type_size;
	}
	/* named as perf names most of its accesses' type (typedefs: one class) */
	if (cls)
		dprof_class__vote(cls, typed->alias ?: typed->type_name, typed->dso, 1);
	return cls;
}

/*
 * Neither the sampled instruction nor the one before touches memory: an
 * lea (an address computed, not accessed) or a compare fused with its
 * jump.  perf's data-type profiling still gives such an ip the type of
 * its operand (or of the fused instruction's): count the sample under that
 * type, with no address and so no object, as perf report --sort type does.
 */
static int dprof_replay__typed_noaddr(struct dprof_replay *r, struct thread *thread,
				      struct evsel *evsel, struct dprof_access *acc)
{
	struct dprof_typed typed;
	struct dprof_class *cls;

	if (dprof_resolver__typed(&r->res, thread, evsel, acc->ip, &typed)) {
		r->prof.ea_reasons[DPROF_EA_NO_MEMOP]++;
		return dprof_replay__unresolved(r, acc, DPROF_UNRES_INSN);
	}
	cls = dprof_replay__typed_class(r, DPROF_KIND_OPERAND, &typed);
	if (!cls)
		return -ENOMEM;
	r->prof.nr_typed_noaddr++;
	return dprof_replay__count_access(r, cls, thread, typed.offset, acc);
}

/*
 * Skid gave the sample to the access before it (acc->ip), and that access
 * has nothing better than the DWARF type of its operand (@typed), or not
 * even that (@typed NULL).  perf's data-type profiling types the sample by
 * the instruction at the sampled ip: where that one has an operand type of
 * its own (an lea, a compare fused with its jump) and it is another type,
 * the access before is not more precise, only different, so the sample is
 * given back to the sampled ip and counted as perf counts it, with no
 * address.  (libc's sysmalloc: "mov %rax,0x8(%rsi)", typed struct
 * malloc_state, then "lea 0x10(%rcx),%rax", struct malloc_chunk.)
 *
 * Return: true when the sample was given back to the sampled ip.
 */
static bool dprof_replay__unskid(struct dprof_replay *r, struct thread *thread,
				 struct evsel *evsel, struct dprof_access *acc,
				 const struct dprof_typed *typed)
{
	struct dprof_typed here;

	if (acc->ip == acc->sample_ip)
		return false;
	if (dprof_resolver__typed(&r->res, thread, evsel, acc->sample_ip, &here))
		return false;
	if (typed && here.key == typed->key &&
	    dprof_dso_id(here.dso) == dprof_dso_id(typed->dso))
		return false;
	acc->ip = acc->sample_ip;
	acc->addr = 0;
	acc->is_write = false;
	r->prof.nr_decoded--;
	r->prof.nr_skid--;
	return true;
}

static int dprof_replay__resolve_addr(struct dprof_replay *r, struct thread *thread,
				      struct evsel *evsel, struct dprof_access *acc)
{
	const struct dprof_replay_source *src;
	struct dprof_typed typed;
	struct dprof_static st;
	struct dprof_class *cls;
	size_t i;
	int ret;

	/* an object of a source's address set: a live one, or what it was */
	for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
		src = dprof_replay_sources[i];
		if (!src->access)
			continue;
		ret = src->access(r, thread, evsel, acc);
		if (ret)
			return ret < 0 ? ret : 0;
	}

	if (!dprof_resolver__static(&r->res, thread, acc->addr, &st)) {
		cls = dprof_profile__findnew_class(&r->prof, DPROF_KIND_STATIC,
						   st.start, st.dso);
		if (!cls)
			return -ENOMEM;
		if (!cls->name) {
			cls->name = strdup(dprof_symname(st.dso, st.name));
			cls->obj_size = st.end - st.start;
			cls->cpu = acc->cpu;
			cls->nr_objects = 1;
			cls->ws_bytes = cls->obj_size;
		} else if (cls->cpu != acc->cpu && !cls->nr_bounced && !acc->still) {
			cls->nr_bounced = 1;
		}
		return dprof_replay__count_access(r, cls, thread, st.offset, acc);
	}

	if (!dprof_resolver__typed(&r->res, thread, evsel, acc->ip, &typed)) {
		if (dprof_replay__unskid(r, thread, evsel, acc, &typed))
			return dprof_replay__typed_noaddr(r, thread, evsel, acc);
		cls = dprof_replay__typed_class(r, DPROF_KIND_TYPED, &typed);
		if (!cls)
			return -ENOMEM;
		/* a slab object all the same: the snapshot was not used */
		if (dprof_addrset__find(&r->slabs, acc->addr))
			r->prof.typed_in_slab++;
		if (!acc->still && dprof_class__touch_base(cls, acc->addr - typed.offset,
							   typed.type_size, acc->cpu))
			return -ENOMEM;
		return dprof_replay__count_access(r, cls, thread, typed.offset, acc);
	}

	if (dprof_replay__unskid(r, thread, evsel, acc, NULL))
		return dprof_replay__typed_noaddr(r, thread, evsel, acc);
	if (machine__kernel_ip(r->res.machine, acc->addr))
		return dprof_replay__unresolved(r, acc, DPROF_UNRES_NO_OBJECT);
	return dprof_replay__unresolved(r, acc, DPROF_UNRES_USER_DYNAMIC);
}

/*
 * A stack slot: a local variable when the DWARF of the function locates
 * one there (perf's data-type profiling types stack operands by the frame
 * base), counted as its type under the stack kind; else a spill or a
 * frame's bookkeeping, no data type.
 */
static int dprof_replay__resolve_stack(struct dprof_replay *r, struct thread *thread,
				       struct evsel *evsel, struct dprof_access *acc)
{
	struct dprof_typed typed;
	struct dprof_class *cls;

	if (dprof_resolver__typed(&r->res, thread, evsel, acc->ip, &typed)) {
		if (dprof_replay__unskid(r, thread, evsel, acc, NULL))
			return dprof_replay__typed_noaddr(r, thread, evsel, acc);
		return dprof_replay__unresolved(r, acc, DPROF_UNRES_STACK);
	}
	if (dprof_replay__unskid(r, thread, evsel, acc, &typed))
		return dprof_replay__typed_noaddr(r, thread, evsel, acc);
	cls = dprof_replay__typed_class(r, DPROF_KIND_STACK, &typed);
	if (!cls)
		return -ENOMEM;
	if (!acc->still && dprof_class__touch_base(cls, acc->addr - typed.offset,
						   typed.type_size, acc->cpu))
		return -ENOMEM;
	return dprof_replay__count_access(r, cls, thread, typed.offset, acc);
}

static int dprof_replay__resolve_percpu(struct dprof_replay *r, struct thread *thread,
					struct dprof_access *acc, u64 off)
{
	const struct dprof_percpu_sym *sym;
	struct dprof_class *cls;
	u64 offset;
	int err;

	sym = dprof_resolver__percpu(&r->res, off, &offset);
	if (!sym)
		return dprof_replay__unresolved(r, acc, DPROF_UNRES_NO_OBJECT);
	cls = dprof_profile__findnew_class(&r->prof, DPROF_KIND_PERCPU,
					   sym->start, NULL);
	if (!cls)
		return -ENOMEM;
	if (!cls->name) {
		cls->name = strdup(sym->name);
		cls->obj_size = sym->size;
		cls->ws_bytes = sym->size;
	}
	/* one copy per CPU: count the copies seen */
	err = dprof_class__touch_cpu(cls, acc->cpu);
	if (err < 0)
		return err;
	cls->nr_objects += err;
	return dprof_replay__count_access(r, cls, thread, offset, acc);
}

/*
 * Software sampler: the timer interrupt stopped before the instruction at
 * ip, so the interrupt registers are that instruction's inputs and its
 * effective address is exact.
 */
static int dprof_replay__soft_access(struct dprof_replay *r, struct thread *thread,
				     struct evsel *evsel, struct perf_sample *sample,
				     struct dprof_access *acc, const struct dprof_decoded *dec)
{
	struct dprof_decoded own;
	struct dprof_ea ea;
	int why;
	bool skid;

	if (!dec) {
		if (dprof_decoded__from_regs(&r->res, thread, sample, &own) < 0)
			return dprof_replay__unresolved(r, acc, DPROF_UNRES_NO_CODE);
		dec = &own;
	}
	why = dec->why;
	ea = dec->ea;
	acc->ip = dec->ip;
	skid = acc->ip != sample->ip;
	if (why == DPROF_EA_OK || why == DPROF_EA_SEGMENT) {
		r->prof.nr_decoded++;
		r->prof.nr_skid += skid;
	}
	acc->is_write = ea.is_write;
	if (why == DPROF_EA_SEGMENT) {
		if (ea.seg == 'g' && machine__kernel_ip(r->res.machine, sample->ip)) {
			acc->addr = ea.addr;
			return dprof_replay__resolve_percpu(r, thread, acc, ea.addr);
		}
		/* %fs in user space: thread-local storage */
		return dprof_replay__unresolved(r, acc, DPROF_UNRES_USER_DYNAMIC);
	}
	/*
	 * push, pop, call, ret: no variable is accessed.  When that was the
	 * instruction before one without an access (an lea after a call),
	 * the sampled one's operand type is worth more, as perf reports it.
	 */
	if (why == DPROF_EA_STACK && skid) {
		struct dprof_typed typed;

		if (!dprof_resolver__typed(&r->res, thread, evsel, sample->ip, &typed)) {
			acc->ip = sample->ip;
			return dprof_replay__typed_noaddr(r, thread, evsel, acc);
		}
	}
	if (why == DPROF_EA_STACK)
		return dprof_replay__unresolved(r, acc, DPROF_UNRES_STACK);
	if (why == DPROF_EA_NO_MEMOP)
		return dprof_replay__typed_noaddr(r, thread, evsel, acc);
	if (why != DPROF_EA_OK) {
		if ((size_t)why < ARRAY_SIZE(r->prof.ea_reasons))
			r->prof.ea_reasons[why]++;
		return dprof_replay__unresolved(r, acc, DPROF_UNRES_INSN);
	}

	acc->addr = ea.addr;
	if (dec->near_sp)
		return dprof_replay__resolve_stack(r, thread, evsel, acc);
	return dprof_replay__resolve_addr(r, thread, evsel, acc);
}

static int dprof_replay__access(struct dprof_replay *r, struct evsel *evsel,
				struct perf_sample *sample, struct machine *machine,
				bool still)
{
	struct dprof_access acc = {
		.ip	= sample->ip,
		.sample_ip = sample->ip,
		.time	= sample->time,
		.cpu	= sample->cpu,
	};
	struct dprof_decoded dec;
	struct thread *thread;
	int ret, decoded = -1;

	/*
	 * perf record -d samples data_src for every event, so cpu-clock's
	 * says PERF_MEM_NA: only a memory sampler's data_src is decoded.
	 */
	if ((evsel->core.attr.sample_type & PERF_SAMPLE_DATA_SRC) &&
	    !(evsel->core.attr.sample_type & PERF_SAMPLE_REGS_INTR) &&
	    evsel->core.attr.type != PERF_TYPE_SOFTWARE &&
	    !dprof_replay__decode_data_src(r, &acc, evsel, sample))
		return 0;	/* counted in r->rec.mem.no_memop */
	/* written decoded (decoded.h): a damaged word is a damaged record */
	if (r->decoded && dprof_decoded__evsel(evsel)) {
		decoded = dprof_decoded__unpack(evsel, sample, &dec);
		if (decoded < 0) {
			r->nr_bad_decoded++;
			return 0;
		}
	}
	dprof_profile__count(&r->prof, &acc);

	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (!thread)
		return -ENOMEM;
	acc.thread = thread;

	/* a task that had not run since its previous sample: no new draw */
	acc.still = decoded >= 0 ? dec.still : still;
	if (decoded > 0) {
		ret = dprof_replay__soft_access(r, thread, evsel, sample, &acc, &dec);
	} else if (!decoded) {
		/* it kept its registers, or had none */
		ret = sample->intr_regs.regs ?
		      dprof_replay__soft_access(r, thread, evsel, sample, &acc, NULL) :
		      dprof_replay__unresolved(r, &acc, DPROF_UNRES_NO_ADDR);
	} else if (evsel->core.attr.sample_type & PERF_SAMPLE_REGS_INTR &&
	    sample->intr_regs.regs) {
		ret = dprof_replay__soft_access(r, thread, evsel, sample, &acc, NULL);
	} else if (sample->addr) {
		acc.addr = sample->addr;
		ret = dprof_replay__resolve_addr(r, thread, evsel, &acc);
	} else {
		ret = dprof_replay__unresolved(r, &acc, DPROF_UNRES_NO_ADDR);
	}
	thread__put(thread);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* object histories: slab_watch hits (kernel-patches/)                     */

/*
 * A watch hit is a debug trap: the sampled ip follows the access.  Decode
 * the instruction before it for the access's ip and direction, and, with
 * the registers at the trap, for its data address: they are the
 * instruction's inputs unless it wrote its own base or index register.
 *
 * Return: true when the access certainly misses the watched bytes
 * [@hit->addr, + @hit->len): a false hit.  Debug registers never report
 * one, but QEMU's TCG before 8.1 traps a misaligned store anywhere between
 * the start of the watched page and the watched bytes.
 */
static bool dprof_replay__hit_access(struct dprof_replay *r,
				     struct perf_sample *sample,
				     struct machine *machine,
				     struct dprof_hit *hit)
{
	const u8 *code, *prev;
	struct dprof_ea ea;
	struct thread *thread;
	enum dprof_ea_reason why;
	int len, prev_len = 0;
	u64 ip;

	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (!thread)
		return false;
	len = dprof_resolver__code(&r->res, thread, sample->ip, &code,
				   &prev, &prev_len);
	thread__put(thread);
	if (len <= 0 || !prev_len)
		return false;
	ip = sample->ip - prev_len;
	/* no registers (an old recording): the operand still tells the direction */
	why = dprof_ea__decode(prev, prev_len, ip, &sample->intr_regs, &ea);
	if (why != DPROF_EA_OK && why != DPROF_EA_NO_REGS &&
	    why != DPROF_EA_SEGMENT)
		return false;
	hit->access_ip = ip;
	/* reads trap too: every access to the bytes, its direction matters */
	if (hit->rw)
		hit->write = ea.is_write;
	if (why != DPROF_EA_OK || !ea.size ||
	    dprof_ea__clobbers(prev, prev_len, ea.addr_regs))
		return false;
	return ea.addr + ea.size <= hit->addr ||
	       ea.addr >= hit->addr + (hit->len ?: 1);
}

static int dprof_replay__watch_hit(struct dprof_replay *r, struct evsel *evsel,
				   struct perf_sample *sample,
				   struct machine *machine)
{
	struct dprof_watch *w = evsel->priv;
	struct dprof_hit hit = {
		.addr	= sample->addr,
		.ip	= sample->ip,
		.access_ip = sample->ip,
		.write	= -1,
		.cpu	= sample->cpu,
		.time	= sample->time,
	};
	struct dprof_sink *sink;
	u64 base, born = 0;
	struct dprof_obj *obj;
	int err;

	if (!w)		/* out of memory when the recording was opened */
		return 0;
	if (dprof_range__implausible(sample->addr, w->len ?: 1)) {
		r->rec.nr_implausible++;
		return 0;
	}
	/* without an alloc event, a sweeping watch's object is unknown */
	base = w->sweep ? sample->addr : sample->addr - w->offset;
	obj = dprof_addrset__find(&r->as, sample->addr);
	if (obj) {
		base = obj->base;
		born = obj->alloc_time;
		if (!w->cls)
			w->cls = obj->priv;
	}
	hit.len = w->len;
	hit.rw = w->rw;
	if (dprof_replay__hit_access(r, sample, machine, &hit)) {
		r->rec.nr_off_target_hits++;
		return 0;
	}
	dprof_watch__hit(w, base, born);

	hit.obj = obj;
	hit.site = dprof_obj__site(obj);
	list_for_each_entry(sink, &r->sinks, node) {
		if (sink->hit) {
			err = sink->hit(sink, &hit);
			if (err)
				return err;
		}
	}
	return 0;
}

static void dprof_replay__watch_add(struct dprof_replay *r, struct evsel *evsel)
{
	struct dprof_watch *w = dprof_watch__new(evsel->core.attr.config);

	evsel->handler = dprof_replay__watch_hit;
	if (!w)
		return;
	w->next = r->rec.watches;
	r->rec.watches = w;
	evsel->priv = w;
}

/* ---------------------------------------------------------------------- */
/*
 * The load latency threshold the access samples were taken with: the
 * ldlat term of Intel's load event (config1), SPE's min_latency (config2
 * bits 0-11) and AMD IBS's ldlat filter (config1 bits 0-11, Zen 5 on),
 * as perf's format files place them.  IBS without it samples every op.
 */
static void dprof_replay__ldlat(struct dprof_replay *r, struct evsel *evsel)
{
	const char *name = evsel__name(evsel);
	const struct perf_event_attr *attr = &evsel->core.attr;

	if (strstr(name, "mem-loads") && !strstr(name, "mem-loads-aux")) {
		r->rec.ldlat_pmu = "pebs";
		r->rec.ldlat = attr->config1 & 0xffff;
	} else if (strstarts(name, "arm_spe")) {
		r->rec.ldlat_pmu = "spe";
		r->rec.ldlat = attr->config2 & 0xfff;
	} else if (strstarts(name, "ibs_op")) {
		r->rec.ldlat_pmu = "ibs";
		r->rec.ldlat = strstr(name, "ldlat=") ? attr->config1 & 0xfff : 0;
	}
}

/* the session                                                             */

static int dprof_replay__sample(const struct perf_tool *tool,
				union perf_event *event __maybe_unused,
				struct perf_sample *sample,
				struct evsel *evsel, struct machine *machine)
{
	struct dprof_replay *r = container_of(tool, struct dprof_replay, tool);
	const struct dprof_replay_source *src;
	int err = dprof_replay__until(r, machine, sample->time);
	bool still = false;
	size_t i;

	if (err)
		return err;
	if (evsel->handler) {
		dprof_tp_handler f = evsel->handler;

		return f(r, evsel, sample, machine);
	}
	if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT)
		return 0;
	if (!r->access_evsel)
		r->access_evsel = evsel;
	/*
	 * Whether the task ran since its previous sample: every sample
	 * moves its registers on, a source's own too, as in the record-end
	 * pass that writes the answer into a decoded file (keep.c).
	 */
	if (evsel->core.attr.sample_type & PERF_SAMPLE_REGS_INTR)
		still = dprof_still__sample(&r->still, sample);
	/* a source's own cost (its recorder's code, its probes' traps) */
	for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
		src = dprof_replay_sources[i];
		if (src->own_sample && src->own_sample(r, machine, sample))
			return 0;
	}
	dprof_resolver__advance(&r->res, sample->time);
	return dprof_replay__access(r, evsel, sample, machine, still);
}

static void dprof_replay__scan_evlist(struct dprof_replay *r, struct evlist *evlist)
{
	const struct dprof_replay_source *src;
	struct evsel *evsel;
	size_t i;

	evlist__for_each_entry(evlist, evsel) {
		u64 type = evsel->core.attr.sample_type;
		const char *name = evsel__name(evsel);

		if (evsel->core.attr.type == PERF_TYPE_TRACEPOINT) {
			for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
				src = dprof_replay_sources[i];
				if (src->tracepoint)
					src->tracepoint(r, evsel, name);
			}
			continue;
		}
		if (evsel__is_dummy_event(evsel))
			continue;
		/* hits of a watched object, not access samples */
		if (strstarts(name, DPROF_WATCH_PMU "/")) {
			dprof_replay__watch_add(r, evsel);
			continue;
		}
		if ((type & PERF_SAMPLE_REGS_INTR) ||
		    (r->decoded && dprof_decoded__evsel(evsel)))
			r->rec.has_soft = true;
		else if (type & PERF_SAMPLE_ADDR)
			r->rec.has_mem_pmu = true;
		dprof_replay__ldlat(r, evsel);
		if (!(type & PERF_SAMPLE_REGS_INTR) && (type & PERF_SAMPLE_DATA_SRC))
			r->rec.has_data_src = true;
	}
}

/*
 * perf's reader trusts the header's offsets and sizes: a file cut short
 * (recording interrupted, disk full) or damaged there makes it read past
 * the end of its mapping (SIGBUS) or loop on a size of 2^64 - 1.  Check
 * them against the file before, and say what is wrong.
 *
 * Return: 0 when the header is consistent (or not ours to judge: a pipe,
 * another format), -EINVAL when it was said to the user.
 */
static int dprof_replay__check_file(const char *path)
{
	struct perf_file_section sec;
	struct perf_file_header h;
	struct stat st;
	int fd = open(path, O_RDONLY), i, nr;
	u64 end, size, off;
	bool cut = false;

	if (fd < 0)
		return 0;	/* perf_session__new() says why */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    memcmp(&h.magic, "PERFILE2", 8) || h.size != sizeof(h)) {
		close(fd);
		return 0;
	}
	size = st.st_size;
	if (!h.data.size) {
		pr_err("dprof: %s holds no data: perf record did not finish; re-record it\n", path);
		goto out_err;
	}
	/*
	 * Cut in the data section: perf reads the records there are (the
	 * report says where they end), the feature sections are lost.
	 */
	/* records are u64 aligned: reading them elsewhere is undefined */
	if (h.data.offset % sizeof(u64)) {
		pr_err("dprof: %s is damaged: its data section starts at byte %" PRIu64
		       ", not on an 8-byte boundary; re-record it\n", path, (u64)h.data.offset);
		goto out_err;
	}
	if (__builtin_add_overflow(h.data.offset, h.data.size, &end)) {
		pr_err("dprof: %s is damaged: its data section (%" PRIu64 " bytes at byte %" PRIu64
		       ") is past the end of any file; re-record it\n",
		       path, (u64)h.data.size, (u64)h.data.offset);
		goto out_err;
	}
	if (end > size) {
		if (h.data.offset >= size || h.data.offset < h.size) {
			pr_err("dprof: %s is truncated or damaged: its data section (%" PRIu64
			       " bytes at byte %" PRIu64 ") starts past the end of the file (%"
			       PRIu64
			       " bytes; recording interrupted or disk full?); re-record it\n",
			       path, (u64)h.data.size, (u64)h.data.offset, size);
			goto out_err;
		}
		cut = true;
	}
	if (h.attrs.offset > size || h.attrs.size > size - h.attrs.offset) {
		pr_err("dprof: %s is damaged: its event attributes lie past the end of the file\n",
		       path);
		goto out_err;
	}
	/* each attribute ends with its ids' section: perf allocates by its size */
	if (h.attr_size <= sizeof(sec)) {
		pr_err("dprof: %s is damaged: its event attributes have a size of %" PRIu64 "\n",
		       path, (u64)h.attr_size);
		goto out_err;
	}
	for (off = h.attrs.offset; off + h.attr_size <= h.attrs.offset + h.attrs.size;
	     off += h.attr_size) {
		if (pread(fd, &sec, sizeof(sec), off + h.attr_size - sizeof(sec)) !=
		    (ssize_t)sizeof(sec) || sec.offset > size || sec.size > size - sec.offset) {
			pr_err("dprof: %s is damaged: the ids of its event attribute at byte %"
			       PRIu64 " lie past the end of the file\n", path, off);
			goto out_err;
		}
	}
	/* the features' sections: a table right after the data */
	nr = cut ? 0 : bitmap_weight(h.adds_features, HEADER_FEAT_BITS);
	/* the allocator recorder's log, the last: heaplog.c judges it */
	if (nr && test_bit(DPROF_HEAPLOG_FEAT, h.adds_features))
		nr--;
	for (i = 0; i < nr; i++) {
		if (pread(fd, &sec, sizeof(sec), end + i * sizeof(sec)) != (ssize_t)sizeof(sec) ||
		    sec.offset > size || sec.size > size - sec.offset) {
			pr_err("dprof: %s is truncated or damaged: its header's feature %d of %d lies past the end of the file; re-record it\n",
			       path, i + 1, nr);
			goto out_err;
		}
	}
	close(fd);
	return 0;

out_err:
	close(fd);
	return -EINVAL;
}

/*
 * perf's disassembler, and the operand typing built on it, needs an arch
 * it knows.  A damaged header names none: say so once, here, rather than
 * once per function from evsel__get_arch(), and type no operand.
 */
static void dprof_replay__check_arch(struct dprof_replay *r)
{
	const char *name = perf_env__arch(&r->session->header.env);
	char *p = r->rec.bad_arch;
	size_t left = sizeof(r->rec.bad_arch);

	if (name && arch__find(name))
		return;
	if (!name)
		name = "(none)";
	for (; *name && left > 5; name++) {
		unsigned char c = *name;
		int n;

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			n = scnprintf(p, left, "%c", c);
		else
			n = scnprintf(p, left, "\\x%02x", c);
		p += n;
		left -= n;
	}
	if (*name)
		scnprintf(p, left, "...");
	r->res.typed_off = true;
	pr_warning("dprof: the recording's arch \"%s\" is not one perf knows (damaged header?): operand typing (perf's disassembly) is off\n",
		   r->rec.bad_arch);
}

/**
 * dprof_replay__keep_typings - typings kept between reports
 * @r: an open replay
 * @dir: the directory of the files, NULL: .dprof in perf's build-id cache
 *
 * perf's operand typings of a binary are read from and written to a file
 * named by its build id (see typecache.c): a report of a kernel or a
 * program typed before skips perf's disassembly and DWARF walks for the
 * instructions typed then.
 */
void dprof_replay__keep_typings(struct dprof_replay *r, const char *dir)
{
	char path[PATH_MAX];

	if (!r->ready || r->res.typed_off)
		return;
	if (!dir) {
		/* not a directory relative to wherever perf runs (no $HOME) */
		if (buildid_dir[0] != '/' ||
		    snprintf(path, sizeof(path), "%s/.dprof", buildid_dir) >= (int)sizeof(path))
			return;
		dir = path;
	}
	r->res.tcache = dprof_typecache__new(dir);
}

int dprof_replay__open(struct dprof_replay *r, const char *path, bool force)
{
	const struct dprof_replay_source *src;
	size_t i;
	int err;

	memset(r, 0, sizeof(*r));
	r->data.path = path;
	r->data.mode = PERF_DATA_MODE_READ;
	r->data.force = force;
	INIT_LIST_HEAD(&r->sinks);
	perf_tool__init(&r->tool, /*ordered_events=*/true);
	r->tool.sample		= dprof_replay__sample;
	r->tool.mmap		= dprof_replay__mmap;
	r->tool.mmap2		= dprof_replay__mmap2;
	r->tool.comm		= perf_event__process_comm;
	r->tool.exit		= dprof_replay__exit_event;
	r->tool.fork		= perf_event__process_fork;
	r->tool.namespaces	= perf_event__process_namespaces;
	r->tool.ordering_requires_timestamps = true;
	/*
	 * Arm SPE writes its samples to the AUX area: perf's decoder turns
	 * them into "memory" samples (addr, data_src, weight) on an event
	 * it adds, as for perf mem report and perf c2c report.
	 */
	r->tool.attr		= perf_event__process_attr;
	r->tool.auxtrace_info	= perf_event__process_auxtrace_info;
	r->tool.auxtrace	= perf_event__process_auxtrace;
	r->tool.auxtrace_error	= perf_event__process_auxtrace_error;
	r->itrace.set = true;
	r->itrace.mem = true;
	r->itrace.default_no_sample = true;

	err = dprof_replay__check_file(path);
	if (err)
		return err;
	r->session = perf_session__new(&r->data, &r->tool);
	if (IS_ERR(r->session)) {
		err = PTR_ERR(r->session);
		r->session = NULL;
		return err;
	}
	r->session->itrace_synth_opts = &r->itrace;
	/* nothing keeps pointers into the events: the pages read can go */
	r->session->drop_read_data = true;
	for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
		src = dprof_replay_sources[i];
		err = src->open ? src->open(r) : 0;
		if (err)
			goto out_delete;
	}
	r->decoded = dprof_decoded__file(r->session);
	dprof_still__init(&r->still);
	dprof_replay__scan_evlist(r, r->session->evlist);

	symbol_conf.try_vmlinux_path = true;
	/* data-type profiling of operands, for addresses nothing else covers */
	annotation_options__init();
	/* nothing shows the disassembly: no source lines (LLVM reads DWARF for them) */
	annotate_opts.annotate_src = false;
	err = symbol__annotation_init();
	if (err)
		goto out_annotate;
	err = symbol__init(&r->session->header.env);
	if (err < 0)
		goto out_annotate;

	dprof_addrset__init(&r->as, NULL);
	dprof_addrset__init(&r->dead, NULL);
	dprof_addrset__set_pool(&r->as, &r->pool);
	dprof_addrset__set_pool(&r->dead, &r->pool);
	err = dprof_profile__init(&r->prof);
	if (err)
		goto out_annotate;
	err = dprof_resolver__init(&r->res, &r->session->machines.host);
	if (err)
		goto out_profile;
	dprof_replay__check_arch(r);
	r->ready = true;
	return 0;

out_profile:
	dprof_profile__exit(&r->prof);
out_annotate:
	annotation_options__exit();
out_delete:
	dprof_replay__close(r);
	return err;
}

void dprof_replay__add_sink(struct dprof_replay *r, struct dprof_sink *sink)
{
	list_add_tail(&sink->node, &r->sinks);
	if (sink->sampled_hit)
		r->sampled_hit_sinks = true;
}

static int dprof_replay__take_event(struct perf_session *session, union perf_event *event,
				    u64 file_offset, const char *file_path)
{
	struct dprof_replay *r = container_of(session->tool, struct dprof_replay, tool);

	return dprof_delivery__take(r->delivery, event, file_offset, file_path);
}

/* A round's events are all taken: the delivery goes on while the reader reads */
static int dprof_replay__finished_round(const struct perf_tool *tool, union perf_event *event,
					struct ordered_events *oe)
{
	struct dprof_replay *r = container_of(tool, struct dprof_replay, tool);
	int err = perf_event__process_finished_round(tool, event, oe);

	dprof_delivery__show(r->delivery);
	return err;
}

static int dprof_replay__wait_taken(struct perf_session *session)
{
	struct dprof_replay *r = container_of(session->tool, struct dprof_replay, tool);

	return dprof_delivery__wait(r->delivery);
}

/*
 * The replay: perf's reader reads and sorts the events while a thread of
 * the replay's delivers them (see delivery.c), when it can.
 */
static int dprof_replay__process_events(struct dprof_replay *r)
{
	struct perf_session *session = r->session;
	event_oe finished_round = r->tool.finished_round;
	int err = 1;

	r->delivery = dprof_delivery__new(session, r->delivery_mode);
	if (r->delivery) {
		session->take_event = dprof_replay__take_event;
		session->wait_taken = dprof_replay__wait_taken;
		r->tool.finished_round = dprof_replay__finished_round;
		err = dprof_delivery__process_events(r->delivery);
		session->take_event = NULL;
		session->wait_taken = NULL;
		r->tool.finished_round = finished_round;
		dprof_delivery__delete(r->delivery);
		r->delivery = NULL;
	}
	/* no delivery, or no thread for it */
	if (err == 1)
		err = perf_session__process_events(session);
	return err;
}

int dprof_replay__run(struct dprof_replay *r, const char *path)
{
	const struct dprof_replay_source *src;
	size_t i;
	int err = 0;

	/*
	 * With --no-snapshot too: the header counts what it would resolve.
	 * Without one, perf's reader does not parse every record once more
	 * (6% more instructions on a demo recording of 332k records) for
	 * the rest of the pass.
	 */
	if (r->rec.has_snapshot)
		err = dprof_replay__preload(r);
	else
		err = dprof_replay__prescan(r);
	if (!err)
		err = dprof_replay__process_events(r);
	/* the sources' last events, the objects left out when recorded */
	for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
		src = dprof_replay_sources[i];
		if (!err && src->finish)
			err = src->finish(r);
	}
	dprof_symload__delete(r->symload);
	r->symload = NULL;
	dprof_resolver__stop_typer(&r->res);

	if (err) {
		pr_err("dprof: failed to process %s (%d): the file is damaged\n", path, err);
		dprof_typecache__forget(r->res.tcache);
		return err;
	}
	r->rec.nr_lost = r->session->evlist->stats.total_lost +
			 r->session->evlist->stats.total_lost_samples;
	/* perf's reader skipped these, or stopped there: the report says so */
	r->rec.nr_damaged = r->session->evlist->stats.nr_damaged + r->nr_bad_decoded +
			    r->session->evlist->stats.nr_unknown_events +
			    r->session->evlist->stats.nr_unknown_id;
	r->rec.unreadable_offset = r->session->evlist->stats.unreadable_offset;
	r->rec.data_size_cut = r->session->header.data_size_cut;
	if (r->rec.nr_damaged || r->rec.unreadable_offset || r->rec.data_size_cut) {
		pr_debug("dprof: a damaged recording: no typings kept\n");
		dprof_typecache__forget(r->res.tcache);
	}
	if (r->rec.data_size_cut) {
		r->rec.data_offset = r->session->header.data_offset;
		r->rec.data_size = r->session->header.data_size;
		r->rec.nr_no_format = r->session->evlist->stats.nr_no_format;
	}
	return 0;
}

/* After dprof_replay__open() failed, only the session is left. */
void dprof_replay__close(struct dprof_replay *r)
{
	const struct dprof_replay_source *src;
	struct dprof_sink *sink, *tmp;
	size_t i;

	list_for_each_entry_safe(sink, tmp, &r->sinks, node)
		list_del_init(&sink->node);
	if (r->ready) {
		dprof_resolver__exit(&r->res);
		dprof_addrset__exit(&r->as);
		dprof_addrset__exit(&r->dead);
		dprof_obj_pool__exit(&r->pool);
		dprof_profile__exit(&r->prof);
		annotation_options__exit();
		r->ready = false;
	}
	while (r->rec.watches) {
		struct dprof_watch *w = r->rec.watches;

		r->rec.watches = w->next;
		free(w);
	}
	if (r->session)
		perf_session__delete(r->session);
	r->session = NULL;
	dprof_still__exit(&r->still);
	for (i = 0; i < ARRAY_SIZE(dprof_replay_sources); i++) {
		src = dprof_replay_sources[i];
		if (src->exit)
			src->exit(r);
	}
}
