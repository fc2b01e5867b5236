/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_WATCH_MONITOR_H
#define __PERF_DPROF_WATCH_MONITOR_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>

/*
 * What runs beside perf record once it has enabled its events: the slab
 * snapshot is asked for (kernel-patches/), and the progress of the watches: a thread polls
 * /sys/kernel/slab/<cache>/watch_objects, the objects the cache's watches
 * have taken since boot (kernel-patches/), prints how many histories were
 * collected since recording began, and with a target stops perf record
 * through its control fifo once every cache has its share.  The count is
 * the cache's: other watches of the same cache add to it.
 */
struct dprof_monitor_cache;

struct dprof_monitor {
	struct dprof_monitor_cache *caches;
	int		nr_caches;
	bool		print;		/* stderr is a terminal, or -v */
	bool		stop;		/* at the target */
	bool		stopped;	/* "stop" was sent */
	int		wake[2];	/* pipe: the main thread ends the monitor */
	int		ctl_fd;		/* perf record's control fifo, or -1 */
	int		ack_fd;		/* and its ack fifo */
	char		dir[PATH_MAX];	/* private directory of the fifos */
	char		ctl[PATH_MAX + 8];
	char		ack[PATH_MAX + 8];
	char		arg[2 * PATH_MAX + 32];	/* --control=fifo:... */
	char		*snapshot;	/* write here once recording, or NULL */
	/* ... then call this in the monitor's thread, if set */
	void		(*begin)(void *arg);
	void		*begin_arg;
	pthread_t	thread;
	bool		started;
};

/*
 * Before perf record creates the watch events: the caches of @watch
 * ("cache[:offset[/len]],...", or NULL), @target histories per item (0:
 * none), the file to write once the events are enabled (@snapshot, the
 * kernel's slab snapshot, or NULL), and perf record's own @argc/@argv (-q,
 * --control).  The "--control=fifo:..." to add to perf record's arguments
 * is left in m->arg (empty: none).
 * Returns 1 when the monitor is to run, 0 when not, or a negative errno.
 */
int dprof_monitor__init(struct dprof_monitor *m, const char *watch,
			unsigned int target, const char *snapshot,
			int argc, const char **argv);
/* Start the thread, right before perf record runs. */
int dprof_monitor__start(struct dprof_monitor *m);
/* Wait for the monitor's thread to end (perf record ended). */
void dprof_monitor__join(struct dprof_monitor *m);
void dprof_monitor__exit(struct dprof_monitor *m);

#endif /* __PERF_DPROF_WATCH_MONITOR_H */
