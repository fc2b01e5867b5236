/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_HEAPLOG_READ_H
#define __PERF_DPROF_HEAPLOG_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct perf_session;
struct dprof_touches;

/*
 * The bytes of our header feature section @feat (DPROF_HEAPLOG_FEAT,
 * DPROF_KMEM_FEAT), whose bit the caller found set: 0, with them in *@bufp
 * (malloc'd; *@sizep, at least @min_size); -EINVAL when the file's section
 * table or the section is damaged (or a pipe), or -ENOMEM.
 */
int dprof_feat__read(struct perf_session *session, int feat, u64 min_size,
		     void **bufp, u64 *sizep);
/*
 * Add the feature section @bit of @len bytes at @blob to the recording
 * open in @fd; 0, -EEXIST when it has one, or another negative errno.
 */
int dprof_feat__append(int fd, int bit, const void *blob, size_t len);

/* The recorder's file while perf record runs (heaplog.c). */
struct dprof_heaplog_rec {
	char	*path;
	int	fd;
	bool	in_memory;	/* a memfd, @path its /proc name */
};

/* Make the log file next to @output; 0, or a negative errno (said). */
int dprof_heaplog_rec__create(struct dprof_heaplog_rec *h, const char *output);
/*
 * Append the log to the recording @output, but allocations of less than
 * @min_size bytes; @touches: its samples decoded, or NULL to decode them
 * here.  0, or a negative errno (said).
 */
int dprof_heaplog_rec__store(struct dprof_heaplog_rec *h, const char *output,
			     unsigned int min_size, const struct dprof_touches *touches);
void dprof_heaplog_rec__remove(struct dprof_heaplog_rec *h);

/**
 * struct dprof_heaplog_event - an allocator call the recorder logged
 * @time: on the recording's clock (perf record -k monotonic); a free the
 *	recorder did not time: its thread's next timed event's
 * @lo: a free the recorder did not time: its thread's previous timed
 *	event's time, which it came after; else @time
 * @ptr: what the allocator returned, or what free() took
 * @old: realloc: the object it moved (0: none)
 * @size: bytes asked for
 * @kind: DPROF_HEAPLOG_FREE, _ALLOC or _REALLOC (heaplog.h), or
 *	DPROF_HEAPLOG_LEFT_OUT: objects no sample touched, counted: @ptr
 *	of them allocated through the call chain @ips, the first at @time,
 *	@old of them freed, the largest of @size bytes
 * @nr_ips: return addresses at dprof_heaplog::ips[@ips], innermost first
 * @chain: at record time, an id of its chain that events with the same
 *	one share (0: none)
 */
#define DPROF_HEAPLOG_LEFT_OUT	4	/* in a replay only */

struct dprof_heaplog_event {
	u64	time;
	u64	lo;
	u64	ptr;
	u64	old;
	u64	size;
	u32	pid, tid, cpu;
	u32	seg;		/* the segment it was decoded from */
	u32	n;		/* its place in the decoding: ties in time */
	u32	ips;
	u32	chain;
	u8	kind;
	u8	nr_ips;
};

/**
 * struct dprof_heaplog - the recording's heap log, sorted by time
 * @present: the recording has one (the recorder was preloaded)
 * @damaged: its section is damaged: the events before the damage are here
 * @next: the first event not replayed yet
 * @procs: processes with events in the log
 * @lost: events the recorder had no room for
 * @dropped: objects left out at record time: no sample fell in them
 * @samples: access samples the record-end pass decoded (0: an older log,
 *	kept by the samples' times only)
 * @kernel_undecided: of them, kernel samples whose code it could not read
 * @left_out_frees: frees of objects left out (or never seen) counted apart
 *	from the summaries
 */
struct dprof_heaplog {
	struct dprof_heaplog_event	*ev;
	size_t				nr, alloc, next;
	u64				*ips;
	size_t				nr_ips, alloc_ips;
	bool				present;
	bool				damaged;
	u64				procs;
	u64				lost;
	u64				dropped;
	u64				samples;
	u64				kernel_undecided;
	u64				left_out_frees;
	u64				nr_allocs;
	u64				nr_frees;
	struct hashmap			*allocator_ips;	/* replay-heaplog.c's */
	char				*notes;		/* the recorders' lines, or NULL */
};

/* Read @session's heap log, if any: 0 (see @log->present), -ENOMEM. */
int dprof_heaplog__read(struct dprof_heaplog *log, struct perf_session *session);
void dprof_heaplog__exit(struct dprof_heaplog *log);

#endif /* __PERF_DPROF_HEAPLOG_READ_H */
