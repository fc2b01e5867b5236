// SPDX-License-Identifier: GPL-2.0
/*
 * watch-fuzz: attack the slab_watch PMU (kernel-patches/0004) from user
 * space, as perf_fuzzer does perf_event_open(), in the perf dprof guest.
 *
 *   watch-fuzz SECONDS [SEED]   fuzz for SECONDS on every online CPU
 *   watch-fuzz --probe          open one valid watch on CPU 0 and per task;
 *                               print each errno (the unprivileged test)
 *
 * One thread per CPU, twice over, opens slab_watch events with random
 * config (offset, len, rw, sweep, patience and the reserved bits),
 * config1 (known cache ids, unknown and past-the-end ids, random bits),
 * config2, offsets and lengths past the object, random perf_event_attr
 * fields, CPUs and tasks; it keeps up to 16 events open, enables,
 * disables, resets, reads, mmaps their ring buffers and closes them in
 * random order.  Another thread per CPU churns the objects of the
 * watched caches (files, pipes, forks), so that watches arm, fire,
 * retarget and disarm all the time.  With WATCH_FUZZ_9P=TAG, the tag of
 * a virtio-9p channel nobody mounts, one more thread mounts and unmounts
 * it over and over: each mount creates a slab cache (9p-fcall-cache-N,
 * p9_client_create()), reads allocate from it, the unmount destroys it
 * (the guest has no modules to do that); a third of the opens target the
 * newest such cache, before, while and after it is destroyed.  The
 * caller checks the kernel log.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef __u64 u64;

#define MAX_CACHES	512
#define MAX_OPEN	16

struct cache {
	unsigned int id;
	unsigned int size;
};

static struct cache caches[MAX_CACHES];
static int nr_caches;
static unsigned int max_id;
static int pmu_type = -1;
static int nr_cpus;
static time_t deadline;
static atomic_ulong nr_tries, nr_opened, nr_mmaps, nr_errno[160];
/* the cache that the 9p thread creates and destroys */
static atomic_uint hot_id, hot_size;
static atomic_ulong nr_hot_tries, nr_hot_opened, nr_cycles, nr_hot_watched;

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			    int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static int read_uint(const char *path, unsigned int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%u", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static void load(void)
{
	char path[512];
	struct dirent *d;
	unsigned int v;
	DIR *dir;

	if (read_uint("/sys/bus/event_source/devices/slab_watch/type", &v)) {
		fprintf(stderr, "watch-fuzz: no slab_watch PMU\n");
		exit(3);
	}
	pmu_type = v;
	dir = opendir("/sys/kernel/slab");
	while (dir && (d = readdir(dir)) && nr_caches < MAX_CACHES) {
		struct cache *c = &caches[nr_caches];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/watch_id", d->d_name);
		if (read_uint(path, &c->id))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/object_size", d->d_name);
		if (read_uint(path, &c->size))
			continue;
		if (c->id > max_id)
			max_id = c->id;
		nr_caches++;
	}
	if (dir)
		closedir(dir);
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

static u64 rnd64(unsigned int *seed)
{
	return (u64)rand_r(seed) << 33 ^ (u64)rand_r(seed) << 11 ^ rand_r(seed);
}

static unsigned int pick(unsigned int *seed, unsigned int n)
{
	return rand_r(seed) % n;
}

/* Returns whether the event is on the cache the 9p thread churns. */
static int random_attr(struct perf_event_attr *a, unsigned int *seed)
{
	static const unsigned int lens[] = { 1, 2, 4, 8, 0, 3, 16, 255 };
	struct cache *c = &caches[pick(seed, nr_caches)], hot;
	u64 offset, len = lens[pick(seed, 4)], config1;

	hot.id = atomic_load(&hot_id);
	hot.size = atomic_load(&hot_size);
	if (hot.id && !pick(seed, 3))
		c = &hot;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = pmu_type;
	if (!pick(seed, 8))
		len = lens[pick(seed, 8)];
	switch (pick(seed, 6)) {
	case 0:		/* past the object, aligned */
		offset = (c->size + pick(seed, 64)) & ~(len ? len - 1 : 0);
		break;
	case 1:		/* far past it */
		offset = rnd64(seed) & 0xffffffff;
		break;
	case 2:		/* misaligned */
		offset = pick(seed, c->size + 1);
		break;
	default:	/* inside */
		offset = len ? pick(seed, c->size / len + 1) * len : 0;
		break;
	}
	a->config = (offset & 0xffffffff) | (len & 0xff) << 32 |
		    (u64)pick(seed, 2) << 40 | (u64)!pick(seed, 4) << 41 |
		    (u64)pick(seed, 5) << 48;
	if (!pick(seed, 10))	/* reserved bits */
		a->config |= rnd64(seed);
	switch (pick(seed, 8)) {
	case 0:		/* unknown id, past the last one */
		config1 = max_id + 1 + pick(seed, 1000);
		break;
	case 1:
		config1 = rnd64(seed);
		break;
	case 2:
		config1 = 0;
		break;
	default:
		config1 = c->id;
		break;
	}
	a->config1 = config1;
	if (!pick(seed, 20))
		a->config2 = rnd64(seed);
	a->sample_period = pick(seed, 4) ? 1 + pick(seed, 3) : rnd64(seed) >> pick(seed, 64);
	a->freq = !pick(seed, 20);
	a->sample_type = pick(seed, 3) ? PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD :
		rnd64(seed) & ((PERF_SAMPLE_MAX - 1) & ~PERF_SAMPLE_AUX);
	a->read_format = pick(seed, 8) ? 0 : rnd64(seed) & 0x1f;
	a->disabled = pick(seed, 2);
	a->inherit = !pick(seed, 10);
	a->exclude_kernel = !pick(seed, 20);
	a->exclude_user = pick(seed, 2);
	a->exclude_hv = pick(seed, 2);
	a->wakeup_events = pick(seed, 4);
	a->precise_ip = !pick(seed, 20) ? pick(seed, 4) : 0;
	if (!pick(seed, 30))
		a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	return c == &hot && config1 == hot.id;
}

struct ev {
	int fd;
	void *ring;
	size_t ring_len;
};

static void ev_close(struct ev *e)
{
	if (e->ring)
		munmap(e->ring, e->ring_len);
	close(e->fd);
	e->fd = -1;
	e->ring = NULL;
}

static void *fuzzer(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	struct ev evs[MAX_OPEN];
	long page = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < MAX_OPEN; i++)
		evs[i].fd = -1;
	while (time(NULL) < deadline) {
		struct ev *e = &evs[pick(&seed, MAX_OPEN)];
		struct perf_event_attr a;
		int cpu, pid, fd, hot;
		u64 buf[8];

		if (e->fd >= 0) {
			switch (pick(&seed, 8)) {
			case 0:
				ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0);
				break;
			case 1:
				ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
				break;
			case 2:
				ioctl(e->fd, PERF_EVENT_IOC_RESET, 0);
				break;
			case 3: {
				u64 p = rnd64(&seed) >> pick(&seed, 64);

				ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &p);
				break;
			}
			case 4:
				if (read(e->fd, buf, sizeof(buf)) < 0)
					break;
				break;
			case 5:
				if (!e->ring) {
					e->ring_len = page * (1 + (1 << pick(&seed, 4)));
					e->ring = mmap(NULL, e->ring_len, PROT_READ | PROT_WRITE,
						       MAP_SHARED, e->fd, 0);
					if (e->ring == MAP_FAILED)
						e->ring = NULL;
					else
						atomic_fetch_add(&nr_mmaps, 1);
				}
				break;
			default:
				ev_close(e);
				break;
			}
			continue;
		}
		hot = random_attr(&a, &seed);
		cpu = pick(&seed, 10) ? (int)pick(&seed, nr_cpus) :
		      pick(&seed, 2) ? -1 : nr_cpus + (int)pick(&seed, 8);
		pid = pick(&seed, 10) ? -1 : 0;
		atomic_fetch_add(&nr_tries, 1);
		if (hot)
			atomic_fetch_add(&nr_hot_tries, 1);
		fd = perf_event_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			atomic_fetch_add(&nr_errno[errno < 160 ? errno : 0], 1);
			continue;
		}
		atomic_fetch_add(&nr_opened, 1);
		if (hot)
			atomic_fetch_add(&nr_hot_opened, 1);
		e->fd = fd;
	}
	for (i = 0; i < MAX_OPEN; i++)
		if (evs[i].fd >= 0)
			ev_close(&evs[i]);
	return NULL;
}

/* Objects of many caches allocated on one CPU and freed on another. */
static void *churn(void *arg)
{
	int cpu = (int)(uintptr_t)arg, p[2];
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (time(NULL) < deadline) {
		int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
		char b[256];
		pid_t child;

		if (fd >= 0) {
			if (read(fd, b, sizeof(b)) < 0)
				b[0] = 0;
			close(fd);
		}
		if (pipe(p) == 0) {
			if (write(p[1], "x", 1) < 0 || read(p[0], b, 1) < 0)
				b[0] = 0;
			close(p[0]);
			close(p[1]);
		}
		child = fork();
		if (child == 0)
			_exit(0);
		if (child > 0)
			waitpid(child, NULL, 0);
	}
	return NULL;
}

/* The newest 9p-fcall-cache-N: its sysfs name, id and object size. */
static int newest_9p_cache(char *name, size_t len, unsigned int *id, unsigned int *size)
{
	char path[512];
	struct dirent *d;
	unsigned int v, best = 0;
	DIR *dir = opendir("/sys/kernel/slab");

	while (dir && (d = readdir(dir))) {
		if (strncmp(d->d_name, "9p-fcall-cache-", 15))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/watch_id", d->d_name);
		if (read_uint(path, &v) || v <= best)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/object_size", d->d_name);
		if (read_uint(path, size))
			continue;
		best = v;
		snprintf(name, len, "%s", d->d_name);
	}
	if (dir)
		closedir(dir);
	*id = best;
	return best ? 0 : -1;
}

/*
 * Mount the spare 9p channel, read through it, unmount it: one cache
 * created and destroyed.  With the smallest msize, 4k, the buffers of
 * most requests (p9_msg_buf_size(): 4k) come from the client's cache.
 */
static void *cache_churn(void *arg)
{
	const char *tag = arg, *dir = "/tmp/watch-fuzz-9p";
	char name[256], path[512], b[512];
	unsigned int id = 0, size, watched;

	mkdir(dir, 0700);
	while (time(NULL) < deadline) {
		int i, fd, err;

		if (mount(tag, dir, "9p", MS_RDONLY,
			  "trans=virtio,version=9p2000.L,msize=4096,cache=none")) {
			fprintf(stderr, "watch-fuzz: mount -t 9p %s: %s\n", tag, strerror(errno));
			exit(4);
		}
		if (newest_9p_cache(name, sizeof(name), &id, &size) == 0) {
			atomic_store(&hot_size, size);
			atomic_store(&hot_id, id);
		}
		for (i = 0; i < 8; i++) {
			snprintf(path, sizeof(path), "%s/.cmd", dir);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				break;
			while (read(fd, b, sizeof(b)) > 0)
				;
			close(fd);
		}
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/watch_objects", name);
		if (id && read_uint(path, &watched) == 0)
			atomic_fetch_add(&nr_hot_watched, watched);
		/*
		 * The id stays the hot one: opens while and after it goes.
		 * A child that another thread forked may hold a file of the
		 * mount for a moment (EBUSY).
		 */
		for (i = 0; (err = umount2(dir, 0) ? errno : 0) == EBUSY && i < 5000; i++)
			usleep(1000);
		if (err) {
			fprintf(stderr, "watch-fuzz: umount %s: %s\n", dir, strerror(err));
			exit(4);
		}
		atomic_fetch_add(&nr_cycles, 1);
	}
	return NULL;
}

static int probe(void)
{
	struct perf_event_attr a;
	int i, fd;

	for (i = 0; i < nr_caches; i++)
		if (caches[i].size >= 8)
			break;
	if (i == nr_caches)
		return 1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = pmu_type;
	a.config = 8ULL << 32;		/* offset 0, len 8 */
	a.config1 = caches[i].id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	fd = perf_event_open(&a, -1, 0, -1, 0);
	printf("cpu-wide: %s\n", fd < 0 ? strerrorname_np(errno) : "opened");
	if (fd >= 0)
		close(fd);
	fd = perf_event_open(&a, 0, -1, -1, 0);
	printf("per-task: %s\n", fd < 0 ? strerrorname_np(errno) : "opened");
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int nr = 0, i, e;
	unsigned int seed;

	load();
	if (argc > 1 && !strcmp(argv[1], "--probe"))
		return probe();
	if (argc < 2) {
		fprintf(stderr, "usage: watch-fuzz SECONDS [SEED] | --probe\n");
		return 2;
	}
	seed = argc > 2 ? strtoul(argv[2], NULL, 0) : (unsigned int)time(NULL);
	deadline = time(NULL) + atoi(argv[1]);
	printf("watch-fuzz: %d caches (ids up to %u), %d CPUs, seed %u\n",
	       nr_caches, max_id, nr_cpus, seed);
	fflush(stdout);
	if (getenv("WATCH_FUZZ_9P"))
		pthread_create(&th[nr++], NULL, cache_churn, getenv("WATCH_FUZZ_9P"));
	for (i = 0; i < nr_cpus && nr < 60; i++) {
		pthread_create(&th[nr++], NULL, fuzzer, (void *)(uintptr_t)(seed + 2 * i));
		pthread_create(&th[nr++], NULL, fuzzer, (void *)(uintptr_t)(seed + 2 * i + 1));
		pthread_create(&th[nr++], NULL, churn, (void *)(uintptr_t)i);
	}
	for (i = 0; i < nr; i++)
		pthread_join(th[i], NULL);
	printf("watch-fuzz: %lu opens tried, %lu opened, %lu ring buffers mapped; errors:",
	       nr_tries, nr_opened, nr_mmaps);
	for (e = 0; e < 160; e++)
		if (nr_errno[e])
			printf(" %s %lu", strerrorname_np(e) ?: "?", nr_errno[e]);
	printf("\n");
	if (getenv("WATCH_FUZZ_9P")) {
		printf("watch-fuzz: %lu caches created and destroyed; ", nr_cycles);
		printf("on them %lu opens tried, %lu opened, %lu objects watched\n",
		       nr_hot_tries, nr_hot_opened, nr_hot_watched);
	}
	return 0;
}
