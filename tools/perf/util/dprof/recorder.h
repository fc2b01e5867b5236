/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_RECORDER_H
#define __PERF_DPROF_RECORDER_H

#include <stdbool.h>
#include "heaplog-read.h"

#define DPROF_RECORDER_SO	"libperf-dprof-heap.so"

/**
 * struct dprof_recorder - the allocator recorder for a launched workload
 * @on: preloaded: perf record gets -k monotonic, no allocator uprobes
 * @none: nothing can track the workload's heap (a static program): said
 * @output: the recording the log goes into
 * @log: the log's file while recording
 * @min_size: --heap-min-size: smaller objects are left out of the recording
 */
struct dprof_recorder {
	bool			on;
	bool			none;
	char			*output;
	struct dprof_heaplog_rec log;
	unsigned int		min_size;
	/* private */
	char			*preload;
	char			*old_preload;
};

/*
 * For perf record's arguments @argv: whether the workload is launched and
 * can have the recorder; when so, its log and environment are set up.
 * Says in one line why not, when it matters.  0, or -ENOMEM.
 */
int dprof_recorder__init(struct dprof_recorder *rc, bool system_wide, unsigned int min_size,
			 int argc, const char **argv);
/*
 * --heap-uprobes: whether the only process recorded is a launched workload
 * that is statically linked (the uprobes, on the shared C library, miss its
 * allocator); says so in one line.
 */
bool dprof_recorder__static_workload(bool system_wide, int argc, const char **argv);
/* The file of the workload perf record launches, or NULL (-a, -p...) */
char *dprof_recorder__workload_file(bool system_wide, int argc, const char **argv);
/* perf record's output file in @argv, or NULL when it writes to a pipe */
const char *dprof_record__output(int argc, const char **argv);
/*
 * perf record returned @record_err: the log into the recording (if 0),
 * kept by where the samples fell (@touches: decoded already, or NULL).
 */
int dprof_recorder__done(struct dprof_recorder *rc, int record_err,
			 const struct dprof_touches *touches);
void dprof_recorder__exit(struct dprof_recorder *rc);

#endif /* __PERF_DPROF_RECORDER_H */
