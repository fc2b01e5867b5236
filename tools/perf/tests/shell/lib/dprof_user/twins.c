// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: types whose rows tie or share a name.  The
 * program and its library (twins-lib.c) each have a "struct worker" of
 * a different layout; struct tw1..tw4 take about the same share of the
 * samples, and struct pair is both on the heap and on the stack.  One
 * more heap object's struct has no name at all.
 */
#include <stdlib.h>
#include <time.h>
#include "twins.h"

struct worker {
	int		loops;
	int		busy;
};

#define TWIN(n) struct tw##n { long pad; long hits; }; \
static void tw##n##_touch(struct tw##n *t, long k) \
{ long i; for (i = 0; i < k; i++) { t->hits += i; asm volatile("" : : : "memory"); } }
TWIN(1)
TWIN(2)
TWIN(3)
TWIN(4)

struct pair {
	long		a;
	long		b;
};

/* no name: its row has none to look its type up by */
static struct {
	long		pad;
	long		hits;
} *anon;

static void anon_touch(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		anon->hits += i;
		asm volatile("" : : : "memory");	/* to memory, every time */
	}
}

static void work(struct worker *w, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		w->loops++;
		w->busy ^= (int)i;
		asm volatile("" : : : "memory");	/* to memory, every time */
	}
}

static void pair_add(struct pair *p, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		p->b += p->a;
		asm volatile("" : : : "memory");	/* to memory, every time */
	}
}

static void pair_local(long n)
{
	struct pair p = { 1, 0 };

	pair_add(&p, n);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct worker *w = calloc(1, sizeof(*w));
	void *lw = calloc(1, 64);
	struct tw1 *t1 = calloc(1, sizeof(*t1));
	struct tw2 *t2 = calloc(1, sizeof(*t2));
	struct tw3 *t3 = calloc(1, sizeof(*t3));
	struct tw4 *t4 = calloc(1, sizeof(*t4));
	struct pair *p = calloc(1, sizeof(*p));
	struct timespec t0, now;

	anon = calloc(1, sizeof(*anon));
	if (!w || !lw || !t1 || !t2 || !t3 || !t4 || !p || !anon)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		work(w, 100000);
		lib_work(lw, 100000);
		tw1_touch(t1, 20000);
		tw2_touch(t2, 20000);
		tw3_touch(t3, 20000);
		tw4_touch(t4, 20000);
		pair_add(p, 50000);
		pair_local(50000);
		anon_touch(20000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
