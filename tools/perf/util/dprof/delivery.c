// SPDX-License-Identifier: GPL-2.0
/*
 * A session's events, delivered while perf's reader, in a thread of its
 * own, reads the next ones.
 *
 * perf's reader reads the data file, parses each record's timestamp and
 * sorts each round before it delivers the events; the replay then handles
 * each one (the address set, the resolution of a sample).  On a long
 * recording the two halves cost about the same, one after the other on
 * one thread.  Here the reader runs in a thread of its own and hands each
 * event it would deliver to a ring instead (perf_session::take_event), a
 * copy of it, and goes on reading; the calling thread takes them from the
 * ring, in the same order, and delivers them as the reader would have
 * (perf_session__deliver_taken()).  Only that thread runs the tool's
 * callbacks for them: the replay sees the events it saw before, in the
 * same order, on the thread it ran on before.
 *
 * The ring has one writer and one reader, which see each other's position
 * every eighth of the ring, at the end of a round, and when they
 * run out of events or of room; then each spins a little and sleeps until
 * the other moves.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "util/data.h"
#include "util/event.h"
#include "util/header.h"
#include "util/session.h"
#include "delivery.h"

/*
 * Bytes of events in flight.  The reader flushes a round at once (a few MB,
 * up to 30 on a 857 MB recording) and then reads the next one: the ring
 * holds what it flushed while the delivery catches up, so that neither side
 * waits for the other at every round.  On that recording: 2 MB, 3.3-4.5 s;
 * 8 MB, 3.3-3.4 s; 16 MB, 2.9-3.5 s; 32 MB no faster.  On the make run
 * demo's (95 MB), 4 MB is as fast as 16 MB and 12 MB less at the peak; 2 MB
 * is slower.  A thirty-second of the data, a power of 2 between the two;
 * below 64 MB less: on a 6.3 MB recording a 1 MB ring is as fast as 4 MB,
 * and 3 MB less at the peak of a report whose other parts take ~95 MB.
 */
#define DPROF_DELIVERY_RING_MIN	(1UL << 20)
#define DPROF_DELIVERY_RING_MAX	(16UL << 20)
#define DPROF_DELIVERY_RING_DIV	32
/* a side tells the other how far it got every 1/8 of the ring */
#define DPROF_DELIVERY_BATCH(d)	((d)->ring_size / 8)
/*
 * The data size from which the delivery has a thread of its own when not
 * asked.  The thread pays once the replay runs long after the threads that
 * open and index the DWARF and type the kernel's code are done: on a 2-CPU
 * machine, a 857 MB recording's report took 25% less time with it, a 274 MB
 * one's and the make run demo's (95 MB) no less, and the ring's memory
 * only added to their peak.
 */
#define DPROF_DELIVERY_AUTO_MIN	(512UL << 20)
/*
 * When no other thread runs beside the replay (the report's caller says
 * so): the reader's thread gets the idle CPU from a smaller size.  On the
 * make run demo's 6.3 MB it saved no time and the ring added 1.1 MB to the
 * peak; on an 86 MB guest recording it was 5% faster.
 */
#define DPROF_DELIVERY_SPARE_MIN	(32UL << 20)
/* how many times a side looks again before it sleeps */
#define DPROF_DELIVERY_SPIN	256

/* an event in the ring, 8-byte aligned; size 0: go on at the ring's start */
struct dprof_delivery_ent {
	u64		file_offset;
	const char	*file_path;
	u64		size;		/* of the entry, the event's copy included */
};

#define DPROF_CACHELINE		64

/* the reader's side, in a cache line of its own */
struct dprof_delivery_reader {
	u64		head;		/* bytes put in */
	u64		head_shown;	/* ... of which the deliverer knows */
	u64		tail_seen;	/* what the reader saw of the tail */
};

/* the delivering side's */
struct dprof_delivery_deliverer {
	u64		tail;		/* bytes taken out */
	u64		tail_shown;	/* ... of which the reader knows */
	u64		head_seen;	/* what it saw of the head */
};

/* written by one side now and then, read by the other (atomic) */
struct dprof_delivery_state {
	bool		reader_sleeps;
	bool		deliverer_sleeps;
	bool		done;		/* no more events */
	int		err;		/* the first delivery error */
};

/*
 * What one side writes often is in a cache line of its own: the other
 * side reads it only when it runs out of events or of room.
 */
struct dprof_delivery {
	struct dprof_delivery_reader	rd __aligned(DPROF_CACHELINE);
	struct dprof_delivery_deliverer	dl __aligned(DPROF_CACHELINE);
	/* what each side shows the other of its position (atomic) */
	u64				head __aligned(DPROF_CACHELINE);
	u64				tail __aligned(DPROF_CACHELINE);
	struct dprof_delivery_state	st __aligned(DPROF_CACHELINE);
	struct perf_session		*session;
	char				*ring;
	u64				ring_size;	/* a power of 2 */
	int				read_err;	/* perf_session__process_events()'s */
	pthread_mutex_t			lock;
	pthread_cond_t			cond;
};

/* A spinning side lets the other one have the core's pipeline */
static void dprof_delivery__relax(void)
{
#ifdef __x86_64__
	__builtin_ia32_pause();
#else
	barrier();
#endif
}

/* Wake the side that sleeps, if one does */
static void dprof_delivery__wake(struct dprof_delivery *d)
{
	pthread_mutex_lock(&d->lock);
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

/* Show the other side how far this one got, waking it if it sleeps. */
static void dprof_delivery__publish(struct dprof_delivery *d, u64 *shared, u64 val,
				    bool *sleeps)
{
	__atomic_store_n(shared, val, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(sleeps, __ATOMIC_SEQ_CST))
		dprof_delivery__wake(d);
}

/* The reader: the deliverer sees every event put in so far. */
static void dprof_delivery__show_head(struct dprof_delivery *d)
{
	if (d->rd.head_shown == d->rd.head)
		return;
	d->rd.head_shown = d->rd.head;
	dprof_delivery__publish(d, &d->head, d->rd.head, &d->st.deliverer_sleeps);
}

/* The deliverer: the reader sees every byte taken out so far. */
static void dprof_delivery__show_tail(struct dprof_delivery *d)
{
	if (d->dl.tail_shown == d->dl.tail)
		return;
	d->dl.tail_shown = d->dl.tail;
	dprof_delivery__publish(d, &d->tail, d->dl.tail, &d->st.reader_sleeps);
}

static u64 dprof_delivery__room(struct dprof_delivery *d, u64 tail)
{
	return d->ring_size - (d->rd.head - tail);
}

/* The reader: wait until @need bytes are free, or a delivery failed. */
static int dprof_delivery__wait_room(struct dprof_delivery *d, u64 need)
{
	unsigned int spin = 0;
	int err;

	if (dprof_delivery__room(d, d->rd.tail_seen) >= need)
		return 0;
	/* the deliverer may be waiting for these */
	dprof_delivery__show_head(d);
	for (;;) {
		d->rd.tail_seen = __atomic_load_n(&d->tail, __ATOMIC_ACQUIRE);
		if (dprof_delivery__room(d, d->rd.tail_seen) >= need)
			break;
		err = __atomic_load_n(&d->st.err, __ATOMIC_ACQUIRE);
		if (err)
			return err;
		if (++spin < DPROF_DELIVERY_SPIN) {
			dprof_delivery__relax();
			continue;
		}
		pthread_mutex_lock(&d->lock);
		__atomic_store_n(&d->st.reader_sleeps, true, __ATOMIC_SEQ_CST);
		while (!__atomic_load_n(&d->st.err, __ATOMIC_SEQ_CST) &&
		       dprof_delivery__room(d, __atomic_load_n(&d->tail,
							       __ATOMIC_SEQ_CST)) < need)
			pthread_cond_wait(&d->cond, &d->lock);
		__atomic_store_n(&d->st.reader_sleeps, false, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&d->lock);
		spin = 0;
	}
	return __atomic_load_n(&d->st.err, __ATOMIC_ACQUIRE);
}

/* The deliverer: wait for an event after its tail; false when none is to come. */
static bool dprof_delivery__wait_event(struct dprof_delivery *d)
{
	u64 tail = d->dl.tail;
	unsigned int spin = 0;

	/* the reader may be waiting for room, or for the end */
	dprof_delivery__show_tail(d);
	for (;;) {
		d->dl.head_seen = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);
		if (d->dl.head_seen != tail)
			return true;
		if (__atomic_load_n(&d->st.done, __ATOMIC_ACQUIRE)) {
			d->dl.head_seen = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);
			return d->dl.head_seen != tail;
		}
		if (++spin < DPROF_DELIVERY_SPIN) {
			dprof_delivery__relax();
			continue;
		}
		pthread_mutex_lock(&d->lock);
		__atomic_store_n(&d->st.deliverer_sleeps, true, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&d->head, __ATOMIC_SEQ_CST) == tail &&
		       !__atomic_load_n(&d->st.done, __ATOMIC_SEQ_CST))
			pthread_cond_wait(&d->cond, &d->lock);
		__atomic_store_n(&d->st.deliverer_sleeps, false, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&d->lock);
		spin = 0;
	}
}

/* The caller's thread: deliver every event taken, in order; 0 or the first error */
static int dprof_delivery__deliver(struct dprof_delivery *d)
{
	while (d->dl.tail != d->dl.head_seen || dprof_delivery__wait_event(d)) {
		u64 pos = d->dl.tail & (d->ring_size - 1);
		struct dprof_delivery_ent *ent = (void *)(d->ring + pos);
		int err;

		if (d->ring_size - pos < sizeof(*ent) || !ent->size) {
			d->dl.tail += d->ring_size - pos;
			continue;
		}
		err = perf_session__deliver_taken(d->session, (union perf_event *)(ent + 1),
						  ent->file_offset, ent->file_path);
		d->dl.tail += ent->size;
		if (err) {
			/* the reader stops at its next event */
			__atomic_store_n(&d->st.err, err, __ATOMIC_SEQ_CST);
			dprof_delivery__wake(d);
			return err;
		}
		if (d->dl.tail - d->dl.tail_shown >= DPROF_DELIVERY_BATCH(d))
			dprof_delivery__show_tail(d);
	}
	return 0;
}

/* The reader's thread: perf's pass over the file, which takes the events */
static void *dprof_delivery__read(void *arg)
{
	struct dprof_delivery *d = arg;

	d->read_err = perf_session__process_events(d->session);
	dprof_delivery__show_head(d);
	__atomic_store_n(&d->st.done, true, __ATOMIC_SEQ_CST);
	dprof_delivery__wake(d);
	return NULL;
}

/**
 * dprof_delivery__take - put a copy of an event in the ring
 * @d: the delivery
 * @event: what the reader would deliver now
 * @file_offset: its offset in the data file
 * @file_path: the data file's path
 *
 * The deliverer sees it after a batch of them, or after
 * dprof_delivery__show().
 *
 * Return: 0, or the error of a delivery before (the reader then stops).
 */
int dprof_delivery__take(struct dprof_delivery *d, union perf_event *event,
			 u64 file_offset, const char *file_path)
{
	u64 pos = d->rd.head & (d->ring_size - 1);
	u64 size = sizeof(struct dprof_delivery_ent) + round_up(event->header.size, sizeof(u64));
	u64 need = size;
	struct dprof_delivery_ent *ent;
	int err;

	/* an entry never wraps: the rest of the ring is skipped */
	if (d->ring_size - pos < size)
		need += d->ring_size - pos;
	err = dprof_delivery__wait_room(d, need);
	if (err)
		return err;
	if (need != size) {
		if (d->ring_size - pos >= sizeof(*ent))
			((struct dprof_delivery_ent *)(d->ring + pos))->size = 0;
		pos = 0;
	}
	ent = (void *)(d->ring + pos);
	ent->file_offset = file_offset;
	ent->file_path = file_path;
	ent->size = size;
	memcpy(ent + 1, event, event->header.size);
	d->rd.head += need;
	if (d->rd.head - d->rd.head_shown >= DPROF_DELIVERY_BATCH(d))
		dprof_delivery__show_head(d);
	return 0;
}

/**
 * dprof_delivery__show - let the deliverer see every event taken so far
 * @d: the delivery, or NULL
 *
 * For when the reader goes on reading, e.g. at the end of a round.
 */
void dprof_delivery__show(struct dprof_delivery *d)
{
	if (d)
		dprof_delivery__show_head(d);
}

/**
 * dprof_delivery__wait - wait until every event taken is delivered
 * @d: the delivery
 *
 * Return: 0, or the first error a delivery had.
 */
int dprof_delivery__wait(struct dprof_delivery *d)
{
	/* the whole ring free: every event taken is delivered */
	return dprof_delivery__wait_room(d, d->ring_size);
}

int dprof_delivery_mode__parse(const char *str, enum dprof_delivery_mode *mode)
{
	if (!str || !strcmp(str, "auto"))
		*mode = DPROF_DELIVERY_AUTO;
	else if (!strcmp(str, "on"))
		*mode = DPROF_DELIVERY_ON;
	else if (!strcmp(str, "off"))
		*mode = DPROF_DELIVERY_OFF;
	else
		return -EINVAL;
	return 0;
}

/**
 * dprof_delivery__new - a delivery for a session's events, when it helps
 * @session: a session about to process its events, whose tool delivers
 *	     them in callbacks that only one thread runs; with the delivery,
 *	     session->take_event and ->wait_taken are set to functions that
 *	     call dprof_delivery__take() and dprof_delivery__wait()
 * @mode: on, off, or auto: for a data section of DPROF_DELIVERY_AUTO_MIN
 *	  bytes or more (DPROF_DELIVERY_SPARE_MIN with a spare CPU)
 *
 * Never for a pipe (its user events come with the others), a directory of
 * files or an AUX area recording (perf's decoders deliver what they
 * decode from the reader's thread), nor on a single CPU.
 *
 * Return: the delivery, or NULL when the events are to be delivered as
 * perf's reader does (perf_session__process_events()).
 */
struct dprof_delivery *dprof_delivery__new(struct perf_session *session,
					   enum dprof_delivery_mode mode)
{
	struct dprof_delivery *d;

	if (mode == DPROF_DELIVERY_OFF ||
	    (mode == DPROF_DELIVERY_AUTO &&
	     session->header.data_size < DPROF_DELIVERY_AUTO_MIN) ||
	    (mode == DPROF_DELIVERY_SPARE &&
	     session->header.data_size < DPROF_DELIVERY_SPARE_MIN) ||
	    perf_data__is_pipe(session->data) || perf_data__is_dir(session->data) ||
	    perf_header__has_feat(&session->header, HEADER_AUXTRACE) ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return NULL;
	if (posix_memalign((void **)&d, DPROF_CACHELINE, sizeof(*d)))
		return NULL;
	memset(d, 0, sizeof(*d));
	d->session = session;
	d->ring_size = DPROF_DELIVERY_RING_MIN;
	while (d->ring_size < DPROF_DELIVERY_RING_MAX &&
	       d->ring_size * DPROF_DELIVERY_RING_DIV < session->header.data_size)
		d->ring_size *= 2;
	d->ring = malloc(d->ring_size);
	if (!d->ring) {
		free(d);
		return NULL;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	return d;
}

/**
 * dprof_delivery__process_events - perf_session__process_events(), in two
 * @d: the delivery
 *
 * perf's reader runs in a thread of its own and takes the events; the
 * calling thread delivers them, as perf_session__process_events() would
 * have on it.
 *
 * Return: what perf_session__process_events() returns, or the first error
 * of a delivery; 1 when no thread could be started (nothing was read).
 */
int dprof_delivery__process_events(struct dprof_delivery *d)
{
	pthread_t reader;
	int err;

	if (pthread_create(&reader, NULL, dprof_delivery__read, d))
		return 1;
	err = dprof_delivery__deliver(d);
	pthread_join(reader, NULL);
	return err ?: d->read_err;
}

void dprof_delivery__delete(struct dprof_delivery *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	free(d->ring);
	free(d);
}
