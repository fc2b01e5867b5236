// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: a heap array of structs, updated in a loop,
 * and a struct on the stack that a callee sums into through a pointer.
 */
#include <stdlib.h>
#include <time.h>

#define NR_PARTICLES	(256 * 1024)

struct particle {
	double	pos[3];
	double	vel[3];
	int	alive;
	int	id;
};

struct totals {
	double	pos;
	double	vel;
	long	n;
};

/* t may alias p's doubles: every sum is stored, to the caller's stack */
static void sum(const struct particle *p, int n, struct totals *t)
{
	int i;

	for (i = 0; i < n; i += 4) {
		t->pos += p[i].pos[0];
		t->vel += p[i].vel[0];
		t->n++;
	}
}

static void step(struct particle *p, int n, double dt)
{
	int i, k;

	for (i = 0; i < n; i++) {
		if (!p[i].alive)
			continue;
		for (k = 0; k < 3; k++)
			p[i].pos[k] += p[i].vel[k] * dt;
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct particle *p = calloc(NR_PARTICLES, sizeof(*p));
	struct timespec t0, t;
	int i;

	if (!p)
		return 1;
	for (i = 0; i < NR_PARTICLES; i++) {
		p[i].alive = i % 5 != 0;
		p[i].id = i;
		p[i].vel[0] = i / 1e6;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct totals tot = { 0 };

		step(p, NR_PARTICLES, 0.01);
		sum(p, NR_PARTICLES, &tot);
		if (tot.n < 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	free(p);
	return 0;
}
