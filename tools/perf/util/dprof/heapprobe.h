/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_HEAPPROBE_H
#define __PERF_DPROF_HEAPPROBE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The user-space address set: uprobes on the C library's allocator
 * (malloc, calloc, realloc, aligned_alloc, memalign, valloc, pvalloc,
 * free; posix_memalign with the C library's debug file), on the C++
 * library's operator new, and on jemalloc's and tcmalloc's malloc family
 * and C++ operators when the system has them; each entry with its size
 * and a return probe with the pointer, in a tracefs group of our own
 * (dprof_heap_<pid>) removed when the recording ends.
 */
#define DPROF_HEAP_GROUP	"dprof_heap_"

/* bytes of user stack an allocating call's entry takes (its callchain) */
#define DPROF_HEAP_STACK	512

struct dprof_heap_probes {
	char	group[32];
	char	*events[96];	/* "-e" arguments: group:event */
	char	*filters[96];	/* "--filter" after events[i], or NULL */
	size_t	nr;
	bool	placed;
};

/*
 * Place the probes; events with a size get "--filter size >= @min_size"
 * when @min_size.  Says in one line what cannot be placed, and why.
 */
/*
 * @exe: the workload's executable, or NULL: also its own allocators, a
 * static jemalloc's je_* and --heap-alloc's @allocs ("ALLOC[,FREE[,REALLOC]];...")
 */
int dprof_heap_probes__place(struct dprof_heap_probes *hp, unsigned int min_size,
			     const char *exe, const char *allocs);
void dprof_heap_probes__remove(struct dprof_heap_probes *hp);

#endif /* __PERF_DPROF_HEAPPROBE_H */
