/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_SAMPLES_H
#define __PERF_DPROF_SAMPLES_H

#include <stddef.h>
#include <linux/types.h>
#include "sink.h"

struct dprof_class;
struct dso;
struct symbol;

/**
 * struct dprof_sample_line - one access sample, as the replay resolved it
 * @time: sample time
 * @cpu: sampled CPU
 * @sym: the function at the sampled ip, or NULL
 * @dso: ... held, as it holds @sym
 * @sym_off: the sampled ip's offset in @sym (as perf report's symoff)
 * @ip: the sampled ip
 * @addr: the data address, 0 when none was found
 * @cls: its class (the row's type), NULL when unresolved
 * @offset: of @addr in the object, variable or type
 * @why: enum dprof_unres, when @cls is NULL
 */
struct dprof_sample_line {
	u64			time;
	u32			cpu;
	struct symbol		*sym;
	struct dso		*dso;
	u64			sym_off;
	u64			ip;
	u64			addr;
	struct dprof_class	*cls;
	u64			offset;
	int			why;
};

/*
 * --samples: every access sample with the type it was given, for reading
 * a profile sample by sample against perf script and perf report --sort
 * type,symoff on the same file.
 */
struct dprof_samples {
	struct dprof_sink		sink;
	struct dprof_sample_line	*line;
	size_t				nr;
	size_t				alloc;
};

void dprof_samples__init(struct dprof_samples *s);
void dprof_samples__exit(struct dprof_samples *s);

#endif /* __PERF_DPROF_SAMPLES_H */
