// SPDX-License-Identifier: GPL-2.0
/*
 * Objects of known number touched in a known pattern, for the tests of
 * perf dprof's estimates (dprof_estimate.sh):
 *
 *	touch uniform N MS		N struct item, each equally likely
 *	touch skewed N MS		N/100 hot items take half the touches
 *	touch types N MS FACTOR		struct beta, gamma and delta an
 *					eighth of the touches each, struct
 *					alpha FACTOR eighths (1-5), an
 *					untyped filler the rest
 *
 * for MS milliseconds of its own CPU time (what cpu-clock samples: as many
 * samples on a loaded machine as on an idle one).
 *
 * The objects live in anonymous mappings (no allocator call: nothing
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

/*
 * The same instructions as the others' (see types()), but by the pointer
 * to void alone: perf's data-type profiling finds no type for them, so
 * the filler's samples are in no type's row.
 */
static void touch_filler(void *p)
{
	((long *)p)[0]++;
	((long *)p)[1]++; ((long *)p)[2]++; ((long *)p)[3]++; ((long *)p)[4]++;
	((long *)p)[5]++; ((long *)p)[6]++; ((long *)p)[7]++;
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
 * Each touch is of one of eight slots drawn at random, through one
 * indirect call: what comes before and after a touch (the lines in the
 * caches, the branch, where a sample's skid puts it) is then the same
 * for every type, so a type's share of the samples is its share of the
 * touches, on a loaded machine as on an idle one.  In a fixed order
 * (alpha FACTOR times, then beta, gamma, delta) a type's cost depended
 * on its neighbours: doubling alpha moved gamma's share by z -18.8 and
 * alpha's by +8.8 only.
 *
 * Beta, gamma and delta have a slot each, alpha FACTOR, the untyped
 * filler the rest: a factor moves touches between alpha and the filler
 * only, so no other type's share changes (alpha's doubling took beta,
 * gamma and delta from 1/4 to 1/5 each when they were the rest, real
 * changes that came first once in 20 runs), and the filler's change is
 * in no type's row (a struct filler's 1/2 -> 3/8 came first in 2 of 5).
 * Each slot has N objects of its own: a slot's lines are as hot in the
 * caches whatever the factor, so a touch costs the same in every slot
 * (with one mapping for alpha's slots, twice alpha's touches took 1.4
 * to 1.6 times its samples).
 */
#define TYPES_SLOTS		8
#define TYPES_MAX_FACTOR	5

static void types(unsigned long n, int factor)
{
	struct {
		void	(*touch)(void *p);
		char	*base;
	} kind[TYPES_SLOTS];
	unsigned long x = 88172645463325252UL;
	int i, nr = 0;

	if (factor < 1 || factor > TYPES_MAX_FACTOR)
		exit(2);
	/* every slot's objects are 64 bytes */
	for (i = 0; i < factor; i++)
		kind[nr++] = (typeof(kind[0])){ touch_alpha, map(n, sizeof(struct alpha)) };
	kind[nr++] = (typeof(kind[0])){ touch_beta, map(n, sizeof(struct beta)) };
	kind[nr++] = (typeof(kind[0])){ touch_gamma, map(n, sizeof(struct gamma)) };
	kind[nr++] = (typeof(kind[0])){ touch_delta, map(n, sizeof(struct delta)) };
	while (nr < TYPES_SLOTS)
		kind[nr++] = (typeof(kind[0])){ touch_filler, map(n, sizeof(struct alpha)) };

	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		unsigned long r = rnd(&x), k = (r >> 40) % TYPES_SLOTS;

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
