// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: heap objects of one type from one call site.
 *
 *   heap count N SECS    N nodes, touched at random for SECS / 2; then one
 *                        is freed and allocated again (at the same address
 *                        with glibc's tcache) and all are touched again;
 *                        prints the number of allocations and whether the
 *                        address was reused
 *   heap shared SECS     two threads on CPUs 0 and 1 touch the same nodes
 *   heap private SECS    ... each its own nodes, allocated on its CPU
 *   heap churn N         N malloc + free pairs (allocation-heavy)
 *   heap subset N K SECS N nodes alive throughout, of which the first K
 *                        are touched at random for SECS
 *   heap work N ITER     N nodes, then ITER random touches (a typical
 *                        program: allocates, then computes)
 *   heap aligned N SECS  N nodes from each of posix_memalign,
 *                        aligned_alloc, memalign and valloc (a function
 *                        each), touched at random for SECS
 *   heap bytes SECS      a 64 KiB buffer of varints read for SECS the way
 *                        SQLite reads them: a byte pointer read at -1
 *                        after its increment
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NR_SHARED	256

struct node {
	long		val;
	long		hits;
	struct node	*next;
	char		pad[40];
};

static struct node *new_node(void)
{
	struct node *n = malloc(sizeof(*n));

	if (!n)
		exit(1);
	memset(n, 0, sizeof(*n));
	return n;
}

static struct node *aligned_posix_memalign(void)
{
	void *p;

	return posix_memalign(&p, 64, sizeof(struct node)) ? NULL : p;
}

static struct node *aligned_aligned_alloc(void)
{
	return aligned_alloc(64, sizeof(struct node));
}

static struct node *aligned_memalign(void)
{
	return memalign(64, sizeof(struct node));
}

static struct node *aligned_valloc(void)
{
	return valloc(sizeof(struct node));
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void touch(struct node **nodes, int nr, double secs)
{
	unsigned long x = (unsigned long)nodes;
	double end = now() + secs;
	int i;

	do {
		for (i = 0; i < 100000; i++) {
			struct node *n;

			x = x * 6364136223846793005UL + 1442695040888963407UL;
			n = nodes[(x >> 33) % nr];
			n->val += x & 7;
			n->hits++;
		}
	} while (now() < end);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

struct worker {
	pthread_t	thread;
	int		cpu;
	struct node	**nodes;	/* NULL: allocate its own */
	double		secs;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct node *own[NR_SHARED];
	int i;

	pin(w->cpu);
	if (!w->nodes) {
		for (i = 0; i < NR_SHARED; i++)
			own[i] = new_node();
		w->nodes = own;
	}
	touch(w->nodes, NR_SHARED, w->secs);
	return NULL;
}

static int threads(double secs, int shared)
{
	struct node *nodes[NR_SHARED];
	struct worker w[2];
	int i;

	pin(0);
	for (i = 0; shared && i < NR_SHARED; i++)
		nodes[i] = new_node();
	for (i = 0; i < 2; i++) {
		w[i].cpu = i;
		w[i].nodes = shared ? nodes : NULL;
		w[i].secs = secs;
		if (pthread_create(&w[i].thread, NULL, work, &w[i]))
			return 1;
	}
	for (i = 0; i < 2; i++)
		pthread_join(w[i].thread, NULL);
	return 0;
}

/* the varints from @p to @end: while (0x80 <= *(p++)) compiles to p[-1] */
static long varints(const unsigned char *p, const unsigned char *end)
{
	long n = 0;

	while (p < end) {
		while (0x80 <= *(p++))
			if (p >= end)
				return n;
		n++;
	}
	return n;
}

static unsigned char *new_bytes(size_t size)
{
	unsigned char *buf = malloc(size);
	size_t i;

	if (!buf)
		exit(1);
	for (i = 0; i < size; i++)
		buf[i] = i % 5 ? 0x81 : 1;
	return buf;
}

static void bytes(double secs)
{
	unsigned char *buf = new_bytes(64 << 10);
	double end = now() + secs;
	long n = 0;

	do
		n += varints(buf, buf + (64 << 10));
	while (now() < end);
	printf("varints %ld\n", n);
}

static void compute(int nr, long iter)
{
	struct node **nodes = calloc(nr, sizeof(*nodes));
	unsigned long x = 1;
	long i;

	if (!nodes)
		exit(1);
	for (i = 0; i < nr; i++)
		nodes[i] = new_node();
	for (i = 0; i < iter; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		nodes[(x >> 33) % nr]->hits++;
	}
}

int main(int argc, char **argv)
{
	struct node **nodes, *old;
	double secs;
	int i, nr;

	if (argc > 2 && !strcmp(argv[1], "churn")) {
		for (i = atoi(argv[2]); i > 0; i--)
			free(new_node());
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "work")) {
		compute(atoi(argv[2]), atol(argv[3]));
		return 0;
	}

	if (argc > 2 && !strcmp(argv[1], "bytes")) {
		bytes(atof(argv[2]));
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "aligned")) {
		struct node *(*fns[])(void) = {
			aligned_posix_memalign, aligned_aligned_alloc,
			aligned_memalign, aligned_valloc,
		};

		nr = atoi(argv[2]);
		nodes = calloc(4 * nr, sizeof(*nodes));
		if (nr < 1 || !nodes)
			return 1;
		for (i = 0; i < 4 * nr; i++) {
			nodes[i] = fns[i % 4]();
			if (!nodes[i])
				return 1;
			memset(nodes[i], 0, sizeof(struct node));
		}
		touch(nodes, 4 * nr, atof(argv[3]));
		printf("allocated %d by each\n", nr);
		return 0;
	}
	/* subset N K SECS: N nodes live throughout, the first K touched */
	if (argc > 4 && !strcmp(argv[1], "subset")) {
		int k = atoi(argv[3]);

		nr = atoi(argv[2]);
		nodes = calloc(nr, sizeof(*nodes));
		if (nr < 1 || k < 1 || k > nr || !nodes)
			return 1;
		for (i = 0; i < nr; i++)
			nodes[i] = new_node();
		touch(nodes, k, atof(argv[4]));
		printf("allocated %d touched %d\n", nr, k);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "shared"))
		return threads(atof(argv[2]), 1);
	if (argc > 2 && !strcmp(argv[1], "private"))
		return threads(atof(argv[2]), 0);
	if (argc < 4 || strcmp(argv[1], "count"))
		return 2;
	nr = atoi(argv[2]);
	secs = atof(argv[3]);
	nodes = calloc(nr, sizeof(*nodes));
	if (nr < 1 || !nodes)
		return 1;
	for (i = 0; i < nr; i++)
		nodes[i] = new_node();
	touch(nodes, nr, secs / 2);
	old = nodes[0];
	free(nodes[0]);
	nodes[0] = new_node();
	touch(nodes, nr, secs / 2);
	printf("allocated %d reused %s\n", nr + 1, nodes[0] == old ? "yes" : "no");
	return 0;
}
