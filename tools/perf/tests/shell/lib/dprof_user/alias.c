// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: one struct reached through two typedefs.
 *
 *   alias N SECS   N points from one site, read for SECS through a
 *                  point_t * (x) and a vec_t * (y), both typedefs of
 *                  struct point: one type, one row
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct point {
	long	x;
	long	y;
	long	z;
	long	w;
};

typedef struct point point_t;
typedef struct point vec_t;

static struct point *new_point(long i)
{
	struct point *p = malloc(sizeof(*p));

	if (!p)
		exit(1);
	p->x = i;
	p->y = 2 * i;
	p->z = 0;
	p->w = 0;
	return p;
}

static long sum_x(point_t **pts, int nr)
{
	long sum = 0;
	int i;

	for (i = 0; i < nr; i++)
		sum += pts[i]->x;
	return sum;
}

static long sum_y(vec_t **vecs, int nr)
{
	long sum = 0;
	int i;

	for (i = 0; i < nr; i++)
		sum += vecs[i]->y;
	return sum;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct point **pts;
	double end;
	long sum = 0;
	int nr, i;

	if (argc < 3)
		return 2;
	nr = atoi(argv[1]);
	pts = calloc(nr, sizeof(*pts));
	if (nr < 1 || !pts)
		return 1;
	for (i = 0; i < nr; i++)
		pts[i] = new_point(i);
	end = now() + atof(argv[2]);
	do {
		sum += sum_x(pts, nr);
		sum += sum_y(pts, nr);
	} while (now() < end);
	printf("allocated %d sum %ld\n", nr, sum);
	return 0;
}
