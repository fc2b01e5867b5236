// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof record --watch: progress and --watch-histories.
 *
 * Recording begins when perf record enters its event loop: the watches
 * exist from the moment the events are created, but take objects whose
 * hits are dropped until the events are enabled, and perf record itself
 * opens a file for every process it synthesizes.  So the monitor sends a
 * "ping" on the control fifo and reads the counts when perf record
 * answers it on the ack fifo, which it does from its event loop, after
 * enabling the events.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include <api/fs/fs.h>
#include "util/debug.h"
#include "util/evlist.h"
#include "util/strbuf.h"
#include "watch-monitor.h"

#define DPROF_MONITOR_TICK_MS	250
#define DPROF_MONITOR_PRINT	4	/* ticks between progress lines */

struct dprof_monitor_cache {
	char		*name;
	u64		base;		/* watch_objects when recording began */
	u64		now;
	u64		target;		/* 0: none */
};

static int dprof_monitor__read(const char *cache, u64 *val)
{
	char path[PATH_MAX];
	unsigned long long v;

	snprintf(path, sizeof(path), "kernel/slab/%s/watch_objects", cache);
	if (sysfs__read_ull(path, &v))
		return -1;
	*val = v;
	return 0;
}

/* Every cache of --watch once, with the target of all its items. */
static int dprof_monitor__add_caches(struct dprof_monitor *m, const char *watch,
				     unsigned int target)
{
	const char *item = watch, *comma;
	int i;

	while (*item) {
		size_t n;
		char *name;

		comma = strchrnul(item, ',');
		n = strcspn(item, ",:");
		name = strndup(item, n);
		if (!name)
			return -ENOMEM;
		for (i = 0; i < m->nr_caches; i++) {
			if (!strcmp(m->caches[i].name, name))
				break;
		}
		if (i < m->nr_caches) {
			free(name);
		} else {
			struct dprof_monitor_cache *c;

			c = realloc(m->caches, (m->nr_caches + 1) * sizeof(*c));
			if (!c) {
				free(name);
				return -ENOMEM;
			}
			m->caches = c;
			c = &m->caches[m->nr_caches++];
			memset(c, 0, sizeof(*c));
			c->name = name;
		}
		m->caches[i].target += target;
		item = *comma ? comma + 1 : comma;
	}
	return 0;
}

/* "dprof: watch filp: 12/200, dentry: 3/200 histories" */
static void dprof_monitor__print(struct dprof_monitor *m, const char *end)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	strbuf_addstr(&sb, "dprof: watch ");
	for (i = 0; i < m->nr_caches; i++) {
		struct dprof_monitor_cache *c = &m->caches[i];

		strbuf_addf(&sb, "%s%s: %" PRIu64, i ? ", " : "", c->name,
			    c->now - c->base);
		if (c->target)
			strbuf_addf(&sb, "/%" PRIu64, c->target);
	}
	strbuf_addstr(&sb, " histories");
	fprintf(stderr, "%s%s", sb.buf, end ?: "\n");
	fflush(stderr);
	strbuf_release(&sb);
}

/*
 * The kernel describes every slab in kmem:slab_snapshot events, which the
 * recording holds from now on: the objects allocated before it resolve.
 */
static void dprof_monitor__snapshot(struct dprof_monitor *m)
{
	struct timespec t0, t1;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = open(m->snapshot, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1\n", 2) != 2)
		pr_warning("dprof: cannot write %s (%m): objects allocated before recording stay typed by DWARF only\n",
			   m->snapshot);
	if (fd >= 0)
		close(fd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pr_debug("dprof: slab snapshot took %.3f ms\n",
		 (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
}

/* The counts when perf record answers the ping; false: it ended first. */
static bool dprof_monitor__begin(struct dprof_monitor *m)
{
	struct pollfd pfd[2] = {
		{ .fd = m->wake[0], .events = POLLIN, },
		{ .fd = m->ack_fd, .events = POLLIN, },
	};
	char buf[64];
	int i;

	if (m->ctl_fd >= 0) {
		if (write(m->ctl_fd, EVLIST_CTL_CMD_PING_TAG "\n",
			  sizeof(EVLIST_CTL_CMD_PING_TAG)) < 0)
			return true;
		do {
			if (poll(pfd, 2, -1) < 0 && errno != EINTR)
				return false;
			if (pfd[0].revents)
				return false;
		} while (!pfd[1].revents);
		/* "ack\n"; the pipe holds nothing else */
		if (read(m->ack_fd, buf, sizeof(buf)) < 0)
			return true;
		if (m->snapshot)
			dprof_monitor__snapshot(m);
		if (m->begin)
			m->begin(m->begin_arg);
	}
	for (i = 0; i < m->nr_caches; i++) {
		struct dprof_monitor_cache *c = &m->caches[i];

		if (!dprof_monitor__read(c->name, &c->base))
			c->now = c->base;
	}
	return true;
}

static void *dprof_monitor__thread(void *arg)
{
	struct dprof_monitor *m = arg;
	struct pollfd pfd = { .fd = m->wake[0], .events = POLLIN, };
	unsigned int tick = 0;

	if (!dprof_monitor__begin(m) || !m->nr_caches)
		return NULL;
	while (poll(&pfd, 1, DPROF_MONITOR_TICK_MS) == 0 ||
	       (pfd.revents == 0 && errno == EINTR)) {
		bool met = true, changed = false;
		int i;

		for (i = 0; i < m->nr_caches; i++) {
			struct dprof_monitor_cache *c = &m->caches[i];
			u64 v;

			if (dprof_monitor__read(c->name, &v) || v < c->base)
				continue;
			changed |= v != c->now;
			c->now = v;
			if (c->now - c->base < c->target)
				met = false;
		}
		if (m->ctl_fd >= 0 && m->stop && met && !m->stopped) {
			if (m->print)
				dprof_monitor__print(m, ": target met, stopping\n");
			/* perf record reads it in its event loop, then ends */
			if (write(m->ctl_fd, EVLIST_CTL_CMD_STOP_TAG "\n",
				  sizeof(EVLIST_CTL_CMD_STOP_TAG)) < 0)
				pr_warning("dprof: cannot stop perf record: %m\n");
			m->stopped = true;
			continue;
		}
		if (m->print && !m->stopped && ++tick % DPROF_MONITOR_PRINT == 0 &&
		    changed)
			dprof_monitor__print(m, NULL);
	}
	return NULL;
}

void dprof_monitor__join(struct dprof_monitor *m)
{
	if (m->started) {
		if (write(m->wake[1], "", 1) < 0)
			pthread_cancel(m->thread);
		pthread_join(m->thread, NULL);
		m->started = false;
	}
}

void dprof_monitor__exit(struct dprof_monitor *m)
{
	int i;

	dprof_monitor__join(m);
	if (m->wake[0] >= 0) {
		close(m->wake[0]);
		close(m->wake[1]);
	}
	if (m->ctl_fd >= 0)
		close(m->ctl_fd);
	if (m->ack_fd >= 0)
		close(m->ack_fd);
	if (m->ctl[0])
		unlink(m->ctl);
	if (m->ack[0])
		unlink(m->ack);
	if (m->dir[0])
		rmdir(m->dir);
	for (i = 0; i < m->nr_caches; i++)
		free(m->caches[i].name);
	free(m->caches);
	zfree(&m->snapshot);
}

/* A fifo, open read-write: opening does not wait for perf record's end. */
static int dprof_monitor__fifo(char *path)
{
	int fd;

	if (mkfifo(path, 0600)) {
		pr_err("dprof: cannot create the fifo %s: %m\n", path);
		path[0] = '\0';
		return -errno;
	}
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		pr_err("dprof: cannot open the fifo %s: %m\n", path);
		return -errno;
	}
	return fd;
}

/*
 * Set the monitor up before perf record creates the watch events: the
 * counts (read again when perf record answers the ping), and the control
 * and ack fifos, whose "--control=fifo:..." is returned in m->arg (empty:
 * none, the user gave --control).  Returns whether the monitor is
 * needed: < 0 on errors, 0 when it is not.
 */
int dprof_monitor__init(struct dprof_monitor *m, const char *watch,
			unsigned int target, const char *snapshot,
			int argc, const char **argv)
{
	int i, err;

	memset(m, 0, sizeof(*m));
	m->ctl_fd = -1;
	m->ack_fd = -1;
	m->wake[0] = -1;
	m->wake[1] = -1;
	m->print = isatty(STDERR_FILENO) || verbose > 0;
	/* perf record's -q: no progress either (parsed later, by cmd_record) */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			m->print = false;
	}
	if (watch && (m->print || target)) {
		err = dprof_monitor__add_caches(m, watch, target);
		if (err)
			return err;
	}
	for (i = 0; i < m->nr_caches; i++) {
		struct dprof_monitor_cache *c = &m->caches[i];

		if (dprof_monitor__read(c->name, &c->base)) {
			pr_warning("dprof: %s/kernel/slab/%s/watch_objects missing (kernel-patches/ older than this perf): no progress%s\n",
				   sysfs__mountpoint(), c->name,
				   target ? ", recording until the end" : "");
			target = 0;
			while (m->nr_caches)
				free(m->caches[--m->nr_caches].name);
			break;
		}
		c->now = c->base;
	}
	m->stop = target > 0;

	for (i = 0; i < argc; i++) {
		if (strstarts(argv[i], "--control")) {
			if (m->stop)
				pr_warning("dprof: --watch-histories: --control given, so dprof does not stop the recording\n");
			if (snapshot)
				pr_warning("dprof: --control given: no slab snapshot, objects allocated before recording stay typed by DWARF only\n");
			m->stop = false;
			return m->nr_caches > 0;
		}
	}
	if (!m->nr_caches && !snapshot)
		return 0;
	if (snapshot) {
		m->snapshot = strdup(snapshot);
		if (!m->snapshot)
			return -ENOMEM;
	}
	snprintf(m->dir, sizeof(m->dir), "%s/perf-dprof-XXXXXX",
		 getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(m->dir)) {
		pr_err("dprof: cannot create %s: %m\n", m->dir);
		m->dir[0] = '\0';
		return -errno;
	}
	snprintf(m->ctl, sizeof(m->ctl), "%s/ctl", m->dir);
	m->ctl_fd = dprof_monitor__fifo(m->ctl);
	if (m->ctl_fd < 0)
		return m->ctl_fd;
	snprintf(m->ack, sizeof(m->ack), "%s/ack", m->dir);
	m->ack_fd = dprof_monitor__fifo(m->ack);
	if (m->ack_fd < 0)
		return m->ack_fd;
	snprintf(m->arg, sizeof(m->arg), "--control=fifo:%s,%s", m->ctl, m->ack);
	return 1;
}

/* With every signal blocked: they are perf record's to take. */
int dprof_monitor__start(struct dprof_monitor *m)
{
	sigset_t all, old;
	int err;

	if (pipe2(m->wake, O_CLOEXEC))
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&m->thread, NULL, dprof_monitor__thread, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	m->started = true;
	return 0;
}
