// SPDX-License-Identifier: GPL-2.0
/*
 * Objects of known number touched in a known pattern, for the tests of
 * perf dprof's estimates (dprof_estimate.sh):
 *
 *	touch uniform N MS		N struct item, each equally likely
 *	touch skewed N MS		N/100 hot items take half the touches
 *	touch types N MS FACTOR		struct alpha touched FACTOR times as
 *					often as beta, gamma and delta
 *
 * for MS milliseconds of its own CPU time (what cpu-clock samples: as many
 * samples on a loaded machine as on an idle one).
 *
 * The objects live in one anonymous mapping (no allocator call: nothing
 * for a heap probe to see), so perf dprof types them by the DWARF type of
 * the operand and counts them by their address.
 */
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/time.h>

struct item {
	long	count;
	long	pad[7];
};

struct alpha {
	long	count;
	long	pad[7];
};

struct beta {
	long	count;
	long	pad[7];
};

struct gamma {
	long	count;
	long	pad[7];
};

struct delta {
	long	count;
	long	pad[7];
};

static sig_atomic_t done;	/* set by a signal: read and written atomically */

static void stop(int sig)
{
	(void)sig;
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
}

static unsigned long rnd(unsigned long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *map(size_t n, size_t size)
{
	void *p = mmap(NULL, n * size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	memset(p, 0, n * size);	/* fault it in before the clock runs */
	return p;
}

/* every word of the object: most samples are then on the object */
#define TOUCH(p)	do {						\
	typeof(p) __p = (p);						\
									\
	__p->count++;							\
	__p->pad[0]++; __p->pad[1]++; __p->pad[2]++; __p->pad[3]++;	\
	__p->pad[4]++; __p->pad[5]++; __p->pad[6]++;			\
} while (0)

static void touch_item(struct item *it)
{
	TOUCH(it);
}

static void touch_alpha(struct alpha *a)
{
	TOUCH(a);
}

static void touch_beta(struct beta *b)
{
	TOUCH(b);
}

static void touch_gamma(struct gamma *g)
{
	TOUCH(g);
}

static void touch_delta(struct delta *d)
{
	TOUCH(d);
}

static void items(unsigned long n, int skewed)
{
	struct item *v = map(n, sizeof(*v));
	unsigned long x = 88172645463325252UL, hot = n / 100 ?: 1;

	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		unsigned long r = rnd(&x);

		if (skewed && (r & 1))
			touch_item(&v[(r >> 1) % hot]);
		else if (skewed)
			touch_item(&v[hot + (r >> 1) % (n - hot)]);
		else
			touch_item(&v[r % n]);
	}
}

static void types(unsigned long n, int factor)
{
	struct alpha *a = map(n, sizeof(*a));
	struct beta *b = map(n, sizeof(*b));
	struct gamma *g = map(n, sizeof(*g));
	struct delta *d = map(n, sizeof(*d));
	unsigned long x = 88172645463325252UL;
	int i;

	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		for (i = 0; i < factor; i++)
			touch_alpha(&a[rnd(&x) % n]);
		touch_beta(&b[rnd(&x) % n]);
		touch_gamma(&g[rnd(&x) % n]);
		touch_delta(&d[rnd(&x) % n]);
	}
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	unsigned long n, ms;

	if (argc < 4)
		return 2;
	n = strtoul(argv[2], NULL, 0);
	if (!n)
		return 2;
	ms = strtoul(argv[3], NULL, 0);
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = ms % 1000 * 1000;
	signal(SIGVTALRM, stop);
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	if (!strcmp(argv[1], "uniform") || !strcmp(argv[1], "skewed"))
		items(n, argv[1][0] == 's');
	else if (!strcmp(argv[1], "types") && argc > 4)
		types(n, atoi(argv[4]));
	else
		return 2;
	return 0;
}
