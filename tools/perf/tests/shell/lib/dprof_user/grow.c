// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: the C library's allocator at work.  Blocks of
 * growing sizes are allocated, touched and freed, and the heap is trimmed
 * each round, so malloc keeps carving chunks from the top of the heap and
 * growing it (sysmalloc): the samples that matter are in libc.
 */
#include <malloc.h>
#include <stdlib.h>
#include <time.h>

#define NR_BLOCKS	512

static char *block[NR_BLOCKS];

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec t0, t;
	unsigned long sum = 0;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < NR_BLOCKS; i++) {
			block[i] = malloc(200 + 8 * i);
			if (!block[i])
				return 1;
			block[i][0] = i;
		}
		for (i = 0; i < NR_BLOCKS; i++) {
			sum += block[i][0];
			free(block[i]);
		}
		malloc_trim(0);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return sum == 1;
}
