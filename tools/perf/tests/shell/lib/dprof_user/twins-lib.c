// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test library: a "struct worker" of its own layout, not the
 * program's (see twins.c).
 */
#include "twins.h"

struct worker {
	long		id;
	long		pad[4];
	long		current_work;
	long		sleeping;
};

void lib_work(struct worker *w, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		w->current_work += i;
		w->sleeping ^= i;
		asm volatile("" : : : "memory");	/* to memory, every time */
	}
}
