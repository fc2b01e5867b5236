// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: built twice without PIE, its struct and
 * function named by SAMECODE_NAME, so that two processes run the same
 * code at the same addresses on heap objects of two different types.
 */
#include <stdlib.h>
#include <time.h>

#ifndef SAMECODE_NAME
#define SAMECODE_NAME	sc_alpha
#endif
#define GLUE(a, b)	a##b
#define NAME(a, b)	GLUE(a, b)
#define TOUCH		NAME(touch_, SAMECODE_NAME)

struct SAMECODE_NAME {
	long	count;
	long	sum;
};

static void TOUCH(struct SAMECODE_NAME *s, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		s->sum += s->count;
		s->count++;
		asm volatile("" : : : "memory");	/* to memory, every time */
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct SAMECODE_NAME *s = calloc(1, sizeof(*s));
	struct timespec t0, now;

	if (!s)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		TOUCH(s, 100000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return s->sum == 42;
}
