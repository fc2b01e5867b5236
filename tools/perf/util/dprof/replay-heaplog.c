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
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
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
#include "replay-heap.h"
#include "replay-heapcfi.h"
#include "recorder.h"
#include "replay-source.h"

static int dprof_replay__heaplog_open(struct dprof_replay *r)
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
	if (log->notes)
		snprintf(r->rec.heap_notes, sizeof(r->rec.heap_notes), "%s", log->notes);
	r->rec.heap_lost = log->lost;
	r->rec.heap_dropped = log->dropped;
	r->rec.heap_kept_by = log->samples;
	r->rec.heap_kernel_undecided = log->kernel_undecided;
	r->rec.nr_heap_frees += log->left_out_frees;
	return 0;
}

static void dprof_replay__heaplog_close(struct dprof_replay *r)
{
	if (r->heaplog) {
		dprof_heaplog__exit(r->heaplog);
		zfree(&r->heaplog);
	}
	dprof_heapcfi__exit();
}

/* x86: an indirect call (FF /2, with a REX prefix or not) ends at @end */
static bool dprof_heaplog__indirect_call(const u8 *end)
{
	int len;

	for (len = 2; len <= 8; len++) {
		const u8 *p = end - len;
		u8 modrm, mod, rm;
		int n = 2;

		if (*p >= 0x40 && *p <= 0x4f)
			p++;
		if (p >= end - 1 || p[0] != 0xff)
			continue;
		modrm = p[1];
		mod = modrm >> 6;
		rm = modrm & 7;
		if (((modrm >> 3) & 7) != 2)
			continue;
		if (mod != 3 && rm == 4)
			n++;			/* SIB */
		if (mod == 1)
			n += 1;
		else if (mod == 2 || (mod == 0 && rm == 5))
			n += 4;
		else if (mod == 0 && rm == 4 && p + 2 < end && (p[2] & 7) == 5)
			n += 4;
		if (p + n == end)
			return true;
	}
	return false;
}

/*
 * The function a return address @ip is in, and whether a call ends at
 * @ip: its target when direct (0 when indirect).
 */
static bool dprof_heaplog__call_before(struct thread *thread, u64 ip, u64 *fn, u64 *target)
{
	struct machine *machine = maps__machine(thread__maps(thread));
	struct addr_location al;
	bool call = false;
	u8 code[8];

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
	if (code[3] == 0xe8) {			/* call rel32 */
		s32 rel;

		memcpy(&rel, code + 4, sizeof(rel));
		*target = ip + rel;
		call = true;
	} else {
		call = dprof_heaplog__indirect_call(code + sizeof(code));
	}
out:
	addr_location__exit(&al);
	return call;
}

/*
 * Unwind the candidates @ips (@nr, the caller's first) by their binaries'
 * CFI: a frame's caller's return address is the word below its CFA, and
 * the candidates below it are stale.  The frames found go to @out
 * (@out[0]: the caller's); returns how many.  @next: the first candidate
 * not looked at, where a frame's CFI did not say (the code before the
 * candidates tells from there), or @nr when the chain ended: at the first
 * return address the recorder did not log (above its scan, or not code:
 * the outermost frame).
 */
static u32 dprof_heaplog__unwind(struct dprof_replay *r, struct thread *thread,
				 const u64 *ips, u32 nr, u64 *out, u32 *next)
{
	u64 ip = out[0], sp = 0, cfa;
	u32 n = 1, i = 1;
	int word;

	/* an older recorder's: where the words were read is not known */
	if (dprof_heaplog__ip_word(ips[0]) != DPROF_HEAPLOG_AT_CALLER) {
		*next = 1;
		return n;
	}
	while (dprof_heapcfi__cfa(thread, ip, &cfa)) {
		/* the word below the CFA, counted from the caller's stack pointer */
		word = (sp + cfa) / sizeof(u64) - 1;
		while (i < nr && dprof_heaplog__ip_word(ips[i]) < word) {
			r->rec.heap_stale_ips++;
			i++;
		}
		if (i == nr || dprof_heaplog__ip_word(ips[i]) != word) {
			r->rec.heap_stale_ips += nr - i;
			i = nr;
			break;
		}
		ip = dprof_heaplog__ip(ips[i++]);
		out[n++] = ip;
		r->rec.heap_frames++;
		r->rec.heap_cfi_frames++;
		sp = (word + 1) * sizeof(u64);
	}
	*next = i;
	return n;
}

/* The candidates of @ev that are frames, @ips[0] (exact) first. */
static u32 dprof_heaplog__frames(struct dprof_replay *r, struct machine *machine,
				 const struct dprof_heaplog_event *ev, const u64 *ips, u64 *out)
{
	struct thread *thread;
	u64 fn, target, prev_fn;
	u32 i, n;

	out[0] = dprof_heaplog__ip(ips[0]);
	if (ev->nr_ips < 2)
		return ev->nr_ips;
	/* the check decodes x86 calls: elsewhere the candidates stay */
	if (!machine__is(machine, "x86_64")) {
		for (i = 0; i < ev->nr_ips; i++)
			out[i] = dprof_heaplog__ip(ips[i]);
		return ev->nr_ips;
	}
	thread = machine__findnew_thread(machine, ev->pid, ev->tid);
	if (!thread)
		return 1;
	n = dprof_heaplog__unwind(r, thread, ips, ev->nr_ips, out, &i);
	/*
	 * The rest by the code before them: a direct call above names the
	 * function of the last frame.
	 */
	if (i < ev->nr_ips)
		dprof_heaplog__call_before(thread, out[n - 1], &prev_fn, &target);
	for (; i < ev->nr_ips; i++) {
		u64 ip = dprof_heaplog__ip(ips[i]);

		if (!dprof_heaplog__call_before(thread, ip, &fn, &target)) {
			r->rec.heap_stale_ips++;
			continue;	/* a stale word: the next may be the frame */
		}
		if (target && prev_fn && target != prev_fn) {
			r->rec.heap_stale_ips++;
			continue;
		}
		out[n++] = ip;
		r->rec.heap_frames++;
		prev_fn = fn;
	}
	if (verbose > 1) {
		pr_debug2("dprof: heap log: allocation of %" PRIu64 " bytes, frames:", ev->size);
		for (i = 0; i < n; i++) {
			struct addr_location al;

			addr_location__init(&al);
			thread__find_symbol(thread, PERF_RECORD_MISC_USER, out[i] - 1, &al);
			pr_debug2(" %s", al.sym ? al.sym->name : "?");
			addr_location__exit(&al);
		}
		pr_debug2("\n");
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
	if (ev->kind == DPROF_HEAPLOG_LEFT_OUT) {
		a.ptr = 0;
		a.old = 0;
		a.left_out = ev->ptr;
		a.left_out_freed = ev->old;
	}
	a.nr_ips = dprof_heaplog__frames(r, machine, ev, ips, frames);
	return dprof_replay__heap_alloc(r, &a, machine);
}

static int dprof_replay__heaplog_until(struct dprof_replay *r, struct machine *machine,
				       u64 time)
{
	struct dprof_heaplog *log = r->heaplog;
	int err = 0;

	while (!err && log && log->next < log->nr && log->ev[log->next].time <= time)
		err = dprof_replay__heaplog_event(r, machine, &log->ev[log->next++]);
	return err;
}

/* A user sample in the recorder's code: the tracking's cost, not the program's. */
static bool dprof_replay__in_recorder(struct dprof_replay *r, struct machine *machine,
				      struct perf_sample *sample)
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

static bool dprof_heaplog__own_sample(struct dprof_replay *r, struct machine *machine,
				      struct perf_sample *sample)
{
	if (!dprof_replay__in_recorder(r, machine, sample))
		return false;
	r->rec.nr_recorder_samples++;
	return true;
}

/* the log's last objects: no sample after them, but they count */
static int dprof_heaplog__finish(struct dprof_replay *r)
{
	return dprof_replay__heaplog_until(r, &r->session->machines.host, ~0ULL);
}

const struct dprof_replay_source dprof_heaplog_source = {
	.name		= "heap log",
	.open		= dprof_replay__heaplog_open,
	.until		= dprof_replay__heaplog_until,
	.own_sample	= dprof_heaplog__own_sample,
	.finish		= dprof_heaplog__finish,
	.exit		= dprof_replay__heaplog_close,
};
