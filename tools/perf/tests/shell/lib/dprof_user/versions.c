// SPDX-License-Identifier: GPL-2.0
/*
 * Heap objects of three types, each allocated at a site of its own, for
 * perf dprof diff across two builds of a program (dprof_diff_versions.sh):
 *
 *	versions N MS FACTOR	N objects of each type, in a block of their
 *				own; each step touches one object of a type
 *				drawn at random: alpha FACTOR steps in 16
 *				(1 to 4), beta and gamma 6 in 16 each
 *
 * for MS milliseconds of its own CPU time.  The steps alpha does not take
 * do about as much arithmetic on registers alone (no row of a profile).
 * The test builds the same source twice, the second time with its lines
 * moved down, as an edit would, and runs it with FACTOR 1 and 4.  A
 * touch of the same type costs up to twice as much in one run as in the
 * next on the machines the tests run on (where its pages fall), so the
 * change planted is four times, not two.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

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

static sig_atomic_t done;

static void stop(int sig)
{
	(void)sig;
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
}

static unsigned long next(unsigned long x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static struct alpha *new_alpha(unsigned long n)
{
	return calloc(n, sizeof(struct alpha));
}

static struct beta *new_beta(unsigned long n)
{
	return calloc(n, sizeof(struct beta));
}

static struct gamma *new_gamma(unsigned long n)
{
	return calloc(n, sizeof(struct gamma));
}

#define TOUCH(p)	do {						\
	typeof(p) __p = (p);						\
									\
	__p->count++;							\
	__p->pad[0]++; __p->pad[1]++; __p->pad[2]++; __p->pad[3]++;	\
} while (0)

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

/* about as long as a touch, on registers only */
static unsigned long spin(unsigned long x)
{
	int i;

	for (i = 0; i < 5; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	unsigned long x = 88172645463325252UL, sink = 0, n;
	struct alpha *a;
	struct beta *b;
	struct gamma *g;
	int factor, i;
	long ms;

	if (argc < 4)
		return 2;
	n = strtoul(argv[1], NULL, 0);
	ms = atol(argv[2]);
	factor = atoi(argv[3]);
	if (!n || factor < 1 || factor > 4)
		return 2;
	a = new_alpha(n);
	b = new_beta(n);
	g = new_gamma(n);
	if (!a || !b || !g)
		return 1;
	signal(SIGVTALRM, stop);
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = ms % 1000 * 1000;
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		for (i = 0; i < 256; i++) {
			unsigned long r = x = next(x);
			int step = r & 15;

			if (step < factor)
				touch_alpha(&a[(r >> 4) % n]);
			else if (step < 4)
				sink += spin(r);
			else if (step < 10)
				touch_beta(&b[(r >> 4) % n]);
			else
				touch_gamma(&g[(r >> 4) % n]);
		}
	}
	return sink == 42;
}
