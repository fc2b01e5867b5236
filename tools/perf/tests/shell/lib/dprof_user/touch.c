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

/* by a pointer of no type: one indirect call picks any type's (see types()) */
static void touch_alpha(void *p)
{
	struct alpha *a = p;

	TOUCH(a);
}

static void touch_beta(void *p)
{
	struct beta *b = p;

	TOUCH(b);
}

static void touch_gamma(void *p)
{
	struct gamma *g = p;

	TOUCH(g);
}

static void touch_delta(void *p)
{
	struct delta *d = p;

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

/*
 * Each touch is of a type drawn at random, alpha FACTOR times as likely
 * as each of the others, through one indirect call: what comes before
 * and after a touch (the lines in the caches, the branch, where a
 * sample's skid puts it) is then the same for every type, so a type's
 * share of the samples is its share of the touches, on a loaded machine
 * as on an idle one.  In a fixed order (alpha FACTOR times, then beta,
 * gamma, delta) a type's cost depended on its neighbours: doubling
 * alpha moved gamma's share by z -18.8 and alpha's by +8.8 only.
 */
#define TYPES_MAX_FACTOR	8

static void types(unsigned long n, int factor)
{
	struct {
		void	(*touch)(void *p);
		char	*base;
	} kind[TYPES_MAX_FACTOR + 3];
	unsigned long x = 88172645463325252UL, nr = 0;
	char *alpha;
	int i;

	if (factor < 1 || factor > TYPES_MAX_FACTOR)
		exit(2);
	alpha = map(n, sizeof(struct alpha));
	for (i = 0; i < factor; i++)
		kind[nr++] = (typeof(kind[0])){ touch_alpha, alpha };
	kind[nr++] = (typeof(kind[0])){ touch_beta, map(n, sizeof(struct beta)) };
	kind[nr++] = (typeof(kind[0])){ touch_gamma, map(n, sizeof(struct gamma)) };
	kind[nr++] = (typeof(kind[0])){ touch_delta, map(n, sizeof(struct delta)) };

	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		unsigned long r = rnd(&x), k = (r >> 40) % nr;

		/* all four types are 64 bytes */
		kind[k].touch(kind[k].base + (r % n) * sizeof(struct alpha));
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
