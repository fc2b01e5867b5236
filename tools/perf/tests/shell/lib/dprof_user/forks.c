// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: a process and the child it forks, each with
 * heap objects of a struct of its own, touched for a while.
 *
 *   forks N SECS    the parent allocates N struct parent_node (in
 *                   parent_alloc), forks; the child allocates N struct
 *                   child_node (in child_alloc); both touch theirs for SECS
 *                   and print "allocated N"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct parent_node {
	long	count;
	long	pad[7];
};

struct child_node {
	long	pad[3];
	long	count;
	long	more[4];
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static struct parent_node *parent_alloc(void)
{
	return calloc(1, sizeof(struct parent_node));
}

static struct child_node *child_alloc(void)
{
	return calloc(1, sizeof(struct child_node));
}

static void parent_touch(struct parent_node **n, int nr, double secs)
{
	double end = now() + secs;
	unsigned long x = 1;

	while (now() < end) {
		for (int i = 0; i < 1000; i++) {
			x = x * 6364136223846793005UL + 1;
			n[(x >> 33) % nr]->count++;
		}
	}
}

static void child_touch(struct child_node **n, int nr, double secs)
{
	double end = now() + secs;
	unsigned long x = 1;

	while (now() < end) {
		for (int i = 0; i < 1000; i++) {
			x = x * 6364136223846793005UL + 1;
			n[(x >> 33) % nr]->count++;
		}
	}
}

int main(int argc, char **argv)
{
	int nr = argc > 2 ? atoi(argv[1]) : 0, i;
	double secs = argc > 2 ? atof(argv[2]) : 0;
	pid_t pid;

	if (nr < 1)
		return 1;
	struct parent_node **p = calloc(nr, sizeof(*p));

	for (i = 0; i < nr; i++)
		p[i] = parent_alloc();
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		struct child_node **c = calloc(nr, sizeof(*c));

		for (i = 0; i < nr; i++)
			c[i] = child_alloc();
		child_touch(c, nr, secs);
		printf("child allocated %d\n", nr);
		return 0;
	}
	parent_touch(p, nr, secs);
	waitpid(pid, NULL, 0);
	printf("parent allocated %d\n", nr);
	return 0;
}
