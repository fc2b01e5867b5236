// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof: the allocator recorder's log (heaplog.c) in a replay.
 *
 * The log is in a header feature section, read whole when the session
 * opens and sorted by time; the replay hands its events to the heap
 * (replay-heap.h) before each event of the recording whose time is
 * later, so that an object starts before the samples that touch it.
 *
 * The return addresses above the allocator's caller are stack words the
 * recorder found in executable code: some are stale.  A candidate is
 * kept when the instruction before it is a call, and, for a direct call,
 * when the call's target is the function of the frame below it (the
 * innermost first); the others are dropped, and counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/zalloc.h>

#include "util/debug.h"
#include "util/dso.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/sample.h"
#include "util/map.h"
#include "util/session.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "hashfn.h"
#include "heaplog.h"
#include "heaplog-read.h"
#include "replay.h"
#include "replay-heap.h"
#include "recorder.h"
#include "replay-heaplog.h"

int dprof_replay__heaplog_open(struct dprof_replay *r)
{
	struct dprof_heaplog *log = zalloc(sizeof(*log));
	int err;

	if (!log)
		return -ENOMEM;
	err = dprof_heaplog__read(log, r->session);
	if (err || !log->present) {
		dprof_heaplog__exit(log);
		free(log);
		return err;
	}
	r->heaplog = log;
	r->rec.has_heap = true;
	r->rec.heap_recorder = true;
	r->rec.heap_log_damaged = log->damaged;
	r->rec.heap_procs = log->procs;
	r->rec.heap_lost = log->lost;
	r->rec.heap_dropped = log->dropped;
	return 0;
}

void dprof_replay__heaplog_close(struct dprof_replay *r)
{
	if (r->heaplog) {
		dprof_heaplog__exit(r->heaplog);
		zfree(&r->heaplog);
	}
}

/*
 * The function a return address @ip is in, and the call before @ip: its
 * target when direct (0 when indirect).  False when no call ends at @ip.
 */
static bool dprof_heaplog__call_before(struct thread *thread, u64 ip, u64 *fn, u64 *target)
{
	struct addr_location al;
	struct machine *machine = maps__machine(thread__maps(thread));
	u8 code[7];
	bool call = false;

	addr_location__init(&al);
	*fn = 0;
	*target = 0;
	if (!thread__find_symbol(thread, PERF_RECORD_MISC_USER, ip - 1, &al) || !al.map ||
	    ip - sizeof(code) < map__start(al.map))
		goto out;
	*fn = map__unmap_ip(al.map, al.sym->start);
	if (dso__data_read_addr(map__dso(al.map), al.map, machine, ip - sizeof(code), code,
				sizeof(code)) != sizeof(code))
		goto out;
	if (code[2] == 0xe8) {			/* call rel32 */
		s32 rel;

		memcpy(&rel, code + 3, sizeof(rel));
		*target = ip + rel;
		call = true;
	} else if ((code[5] == 0xff && (code[6] & 0x38) == 0x10 && code[6] >= 0xd0) ||	/* call *%reg */
		   (code[4] == 0xff && (code[5] & 0xf8) == 0x50) ||			/* call *d8(%reg) */
		   (code[1] == 0xff && ((code[2] & 0xf8) == 0x90 || code[2] == 0x15)) ||	/* d32, rip */
		   (code[3] == 0xff && code[4] == 0x54) ||				/* d8(sib) */
		   (code[4] == 0x41 && code[5] == 0xff) ||				/* call *%r8-15 */
		   (code[0] == 0xff && code[1] == 0x94)) {				/* d32(sib) */
		call = true;
	}
out:
	addr_location__exit(&al);
	return call;
}

/* The candidates of @ev that are frames, @ips[0] (exact) first. */
static u32 dprof_heaplog__frames(struct dprof_replay *r, struct machine *machine,
				 const struct dprof_heaplog_event *ev, const u64 *ips, u64 *out)
{
	struct thread *thread;
	u64 fn, target, prev_fn;
	u32 i, n = 1;

	out[0] = ips[0];
	if (ev->nr_ips < 2)
		return ev->nr_ips;
	thread = machine__findnew_thread(machine, ev->pid, ev->tid);
	if (!thread)
		return 1;
	/* the function the allocator's caller is in: a direct call above names it */
	dprof_heaplog__call_before(thread, ips[0], &prev_fn, &target);
	for (i = 1; i < ev->nr_ips; i++) {
		if (!dprof_heaplog__call_before(thread, ips[i], &fn, &target)) {
			r->rec.heap_stale_ips++;
			continue;	/* a stale word: the next may be the frame */
		}
		if (target && prev_fn && target != prev_fn) {
			r->rec.heap_stale_ips++;
			continue;
		}
		out[n++] = ips[i];
		prev_fn = fn;
	}
	thread__put(thread);
	return n;
}

static int dprof_replay__heaplog_event(struct dprof_replay *r, struct machine *machine,
				       const struct dprof_heaplog_event *ev)
{
	const u64 *ips = r->heaplog->ips + ev->ips;
	u64 frames[DPROF_HEAPLOG_MAX_IPS];
	struct dprof_heap_alloc a = {
		.pid = ev->pid, .tid = ev->tid, .cpu = ev->cpu, .time = ev->time,
		.ptr = ev->ptr, .size = ev->size, .old = ev->old, .ips = frames,
	};

	if (ev->kind == DPROF_HEAPLOG_FREE)
		return dprof_replay__heap_free(r, ev->pid, ev->cpu, ev->time, ev->ptr);
	a.nr_ips = dprof_heaplog__frames(r, machine, ev, ips, frames);
	return dprof_replay__heap_alloc(r, &a, machine);
}

int dprof_replay__heaplog_until(struct dprof_replay *r, struct machine *machine, u64 time)
{
	struct dprof_heaplog *log = r->heaplog;
	int err = 0;

	while (!err && log && log->next < log->nr && log->ev[log->next].time <= time)
		err = dprof_replay__heaplog_event(r, machine, &log->ev[log->next++]);
	return err;
}

/* A user sample in the recorder's code: the tracking's cost, not the program's. */
bool dprof_replay__in_recorder(struct dprof_replay *r, struct machine *machine,
			       const struct perf_sample *sample)
{
	struct thread *thread;
	struct map *map;
	bool in = false;

	if (!r->heaplog || sample->cpumode != PERF_RECORD_MISC_USER)
		return false;
	thread = machine__findnew_thread(machine, sample->pid, sample->tid);
	if (!thread)
		return false;
	map = maps__find(thread__maps(thread), sample->ip);
	if (map) {
		const char *name = dso__short_name(map__dso(map));

		in = name && !strcmp(name, DPROF_RECORDER_SO);
		map__put(map);
	}
	thread__put(thread);
	return in;
}
