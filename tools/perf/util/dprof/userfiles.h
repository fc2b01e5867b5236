/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_USERFILES_H
#define __PERF_DPROF_USERFILES_H

#include <linux/types.h>

/*
 * The files of user code that access samples fall in, told from the mmap,
 * fork and sample records of a first pass over a recording, without
 * perf's machine: which DWARF the operand typing will need, in the order
 * it will need it, and when it samples each offset in them (until when
 * perf's disassembly of a function there is needed).
 */
struct dprof_userfiles;
struct dprof_ip_times;

struct dprof_userfiles *dprof_userfiles__new(void);
void dprof_userfiles__delete(struct dprof_userfiles *uf);
/* An executable mapping of @filename from offset @pgoff in process @pid. */
int dprof_userfiles__mmap(struct dprof_userfiles *uf, u32 pid, u64 start,
			  u64 len, u64 pgoff, const char *filename);
/* Process @pid was forked from @ppid: it has its mappings until it maps its own. */
int dprof_userfiles__fork(struct dprof_userfiles *uf, u32 pid, u32 ppid);
/* Process @pid execs: its mappings are gone. */
void dprof_userfiles__exec(struct dprof_userfiles *uf, u32 pid);
/* A sample of user code at @ip in @pid at @time. */
int dprof_userfiles__sample(struct dprof_userfiles *uf, u32 pid, u64 ip,
			    u64 time);
/*
 * The files sampled, by the time of their first samples; valid until
 * the next call or dprof_userfiles__delete().
 */
size_t dprof_userfiles__sampled(struct dprof_userfiles *uf,
				const char *const **names);
/*
 * After the last sample: when the file named @i-th by the last
 * dprof_userfiles__sampled() was sampled, by file offset; NULL when @i is
 * out of range.  Its contents can be taken over.
 */
struct dprof_ip_times *dprof_userfiles__times(struct dprof_userfiles *uf, size_t i);

#endif /* __PERF_DPROF_USERFILES_H */
