// SPDX-License-Identifier: GPL-2.0
/*
 * latefree SECS: thread a frees a big block and calls the allocator again
 * only after thread b has been given the same address (munmap, then
 * mmap); b then works on its block for SECS seconds.  The allocator
 * recorder dates a free by its thread's next timed event, later than b's
 * allocation: that free must not end b's object.  Prints whether b's block
 * took a's address ("reused"), which the test needs.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BIG	(4 << 20)

struct cell {
	long	hits;
	long	pad[7];
};

static pthread_barrier_t bar;
static void *freed;
static double secs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *a_alloc(size_t size)
{
	return malloc(size);
}

static struct cell *b_alloc(void)
{
	return malloc(BIG);
}

static void *b_main(void *arg)
{
	size_t i, n = BIG / sizeof(struct cell);
	unsigned int seed = 1;
	struct cell *c;
	double end;

	(void)arg;
	pthread_barrier_wait(&bar);	/* a freed its block */
	c = b_alloc();
	if (!c)
		exit(1);
	printf("latefree: %s\n", (void *)c == freed ? "reused" : "not reused");
	fflush(stdout);
	pthread_barrier_wait(&bar);	/* b has its block */
	pthread_barrier_wait(&bar);	/* a called the allocator again */
	end = now() + secs;
	while (now() < end) {
		for (i = 0; i < 4096; i++)
			c[rand_r(&seed) % n].hits++;
	}
	free(c);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t b;
	char *p;
	void *q;

	secs = argc > 1 ? atof(argv[1]) : 1;
	/* a fixed threshold: a freed mmap chunk must not raise it */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	pthread_barrier_init(&bar, NULL, 2);
	if (pthread_create(&b, NULL, b_main, NULL))
		return 1;
	p = a_alloc(BIG);
	if (!p)
		return 1;
	p[0] = 1;
	freed = p;
	free(p);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	q = a_alloc(32);
	pthread_barrier_wait(&bar);
	pthread_join(b, NULL);
	free(q);
	return 0;
}
