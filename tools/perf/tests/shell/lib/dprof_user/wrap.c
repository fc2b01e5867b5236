// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: objects of three struct types allocated through
 * wrappers around malloc, as real programs do: apples through a one-level
 * wrapper (my_alloc -> malloc), pears and plums through a two-level one
 * (xmalloc -> my_alloc -> malloc), each type from a function of its own.
 *
 *   wrap N SECS   N objects of each type, touched at random for SECS;
 *                 prints "allocated N" and the three allocating functions
 *   pool N SECS   a pool that mallocs 1 MiB and hands out N 64-byte
 *                 struct cell from it, touched at random for SECS;
 *                 prints "cells N"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct apple {
	long	seeds;
	long	weight;
	char	variety[24];
};

struct pear {
	int	ripe;
	int	pad;
	double	sugar;
	long	bruises;
	char	name[40];
};

struct plum {
	long	stone;
	long	juice;
	long	skin[10];
};

struct cell {
	long	count;
	long	sum;
	struct cell *next;
	char	payload[40];
};

/* the wrappers: every type goes through them */
void *my_alloc(size_t size)
{
	void *p = malloc(size);

	if (!p)
		exit(1);
	memset(p, 0, size);
	return p;
}

void *xmalloc(size_t size)
{
	void *p = my_alloc(size);

	asm volatile("" : : : "memory");	/* not a tail call */
	return p;
}

struct apple *new_apple(void)
{
	return my_alloc(sizeof(struct apple));
}

struct pear *new_pear(void)
{
	return xmalloc(sizeof(struct pear));
}

struct plum *new_plum(void)
{
	return xmalloc(sizeof(struct plum));
}

#define POOL_SIZE	(1024 * 1024)

static char *pool, *pool_next;

void pool_init(void)
{
	pool = malloc(POOL_SIZE);
	if (!pool)
		exit(1);
	pool_next = pool;
}

struct cell *pool_get(void)
{
	struct cell *c = (struct cell *)pool_next;

	pool_next += sizeof(*c);
	memset(c, 0, sizeof(*c));
	return c;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* accesses through a typed parameter: perf's data-type profiling types them */
void eat_apple(struct apple *a, long v)
{
	int i;

	for (i = 0; i < 16; i++) {
		a->seeds += v;
		asm volatile("" : : : "memory");	/* a load and a store each */
	}
}

void eat_pear(struct pear *p, long v)
{
	int i;

	for (i = 0; i < 16; i++) {
		p->bruises += v;
		asm volatile("" : : : "memory");	/* a load and a store each */
	}
}

void eat_plum(struct plum *u, long v)
{
	int i;

	for (i = 0; i < 16; i++) {
		u->juice += v;
		asm volatile("" : : : "memory");	/* a load and a store each */
	}
}

void use_cell(struct cell *c, long v)
{
	int i;

	for (i = 0; i < 8; i++) {
		c->count++;
		c->sum += v;
		asm volatile("" : : : "memory");	/* a load and a store each */
	}
}

void touch_fruit(struct apple **a, struct pear **p, struct plum **u, int nr,
		 double secs)
{
	unsigned long x = 1;
	double end = now() + secs;
	int i;

	do {
		for (i = 0; i < 100000; i++) {
			int k;

			x = x * 6364136223846793005UL + 1442695040888963407UL;
			k = (x >> 33) % nr;
			switch ((x >> 20) % 3) {
			case 0:
				eat_apple(a[k], x & 7);
				break;
			case 1:
				eat_pear(p[k], x & 7);
				break;
			default:
				eat_plum(u[k], x & 7);
				break;
			}
		}
	} while (now() < end);
}

void touch_cells(struct cell **c, int nr, double secs)
{
	unsigned long x = 1;
	double end = now() + secs;
	int i;

	do {
		for (i = 0; i < 100000; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			use_cell(c[(x >> 33) % nr], x & 7);
		}
	} while (now() < end);
}

int main(int argc, char **argv)
{
	int i, nr;

	if (argc < 4)
		return 2;
	nr = atoi(argv[2]);
	if (nr < 1)
		return 2;
	if (!strcmp(argv[1], "wrap")) {
		struct apple **a = calloc(nr, sizeof(*a));
		struct pear **p = calloc(nr, sizeof(*p));
		struct plum **u = calloc(nr, sizeof(*u));

		if (!a || !p || !u)
			return 1;
		for (i = 0; i < nr; i++) {
			a[i] = new_apple();
			p[i] = new_pear();
			u[i] = new_plum();
		}
		touch_fruit(a, p, u, nr, atof(argv[3]));
		printf("allocated %d\n", nr);
		return 0;
	}
	if (!strcmp(argv[1], "pool")) {
		struct cell **c = calloc(nr, sizeof(*c));

		if (!c || nr * sizeof(struct cell) > POOL_SIZE)
			return 1;
		pool_init();
		for (i = 0; i < nr; i++)
			c[i] = pool_get();
		touch_cells(c, nr, atof(argv[3]));
		printf("cells %d\n", nr);
		return 0;
	}
	return 2;
}
