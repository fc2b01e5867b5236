/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_KEEP_H
#define __PERF_DPROF_KEEP_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The record-end pass: where the recording's access samples fell, decoded
 * as the report decodes them (the PMU's data address, or the instruction
 * at the sampled ip and its registers for the software sampler), so that
 * what records the address set keeps an object only when a sample's
 * address fell inside it during its life: the recording then grows with
 * its samples, not with the program's allocations.
 */

/*
 * The decoding of one software-sampler sample (see decoded.h), found by
 * the sample's @tid and @time (24 bytes a sample: two samples of one key,
 * idle tasks on two CPUs at the same nanosecond, keep their registers):
 * the record-end pass writes @word and @addr in place of its registers.
 */
struct dprof_decode {
	u64	time;
	u64	addr;
	u32	tid;
	u32	word;
};

/* A sample's data address in process @pid at @time. */
struct dprof_touch {
	u64	addr;
	u64	time;
	u32	pid;
};

/**
 * struct dprof_touches - the data addresses of a recording's access samples
 * @t: decoded samples, sorted by pid, address, time
 * @undecided: samples of user code whose bytes could not be read at record
 *	time (an object alive then may be theirs), sorted by pid, time
 * @nr_samples: access samples seen
 * @nr_kernel_undecided: kernel samples whose code could not be read (no
 *	/proc/kcore, no vmlinux): the report on this machine cannot decode
 *	them either
 * @kt: decoded samples whose address is the kernel's, sorted by address,
 *	time (pid 0: a kernel object is every process's)
 * @kregs: the kernel addresses in the registers of the kernel samples
 *	whose code could not be read, at their times (pid 0), sorted by
 *	address, time: the access's base was one of them, so a kernel object
 *	alive then may be theirs if one points into it (DPROF_KEEP_REG_SLACK)
 * @dec: the software sampler's samples decoded, sorted by tid, time
 * @nr_dec_regs: ... of them, those that keep their registers (undecided,
 *	or two samples of one key)
 * @nr_perf_kernel: access samples whose ip is in perf's own kernel code
 *	(perf_*, __perf_*: writing events, switching them with tasks): what
 *	recording cost the kernel
 */
struct dprof_touches {
	struct dprof_touch	*t;
	size_t			nr, alloc;
	struct dprof_touch	*undecided;
	size_t			nr_undecided, alloc_undecided;
	u64			nr_samples;
	u64			nr_kernel_undecided;
	struct dprof_touch	*kt;
	size_t			nr_kt, alloc_kt;
	struct dprof_touch	*kregs;
	size_t			nr_kregs, alloc_kregs;
	struct dprof_decode	*dec;
	size_t			nr_dec, alloc_dec;
	u64			nr_dec_regs;
	u64			nr_perf_kernel;
};

/*
 * How far outside an object a register of an undecided kernel sample may
 * point and still be the base of an access inside it.  A kernel object's
 * access goes through a pointer into it (its start, or a member's address
 * with a negative displacement from a later member, container_of()), not
 * past it: none.  On the guest's recordings pruned without the kernel's
 * code, no slack kept every object the decoded samples' addresses were in
 * (dprof_guest_kmem_prune.sh), as a cache line's did; on the host's redis
 * bench a cache line's kept a third more objects (7.8k for 5.7k).
 */
#define DPROF_KEEP_REG_SLACK	0

/* Decode the access samples of the recording @output: 0, or a negative errno. */
int dprof_touches__read(struct dprof_touches *t, const char *output);
void dprof_touches__exit(struct dprof_touches *t);

/* The decoding of the sample of @tid at @time, or NULL */
const struct dprof_decode *dprof_touches__decode(const struct dprof_touches *t, u32 tid,
						 u64 time);

/*
 * A sample of process @pid fell in [@addr, @addr + @size) between @from
 * and @to, or one whose address is unknown fell in that time.
 */
bool dprof_touches__any(const struct dprof_touches *t, u32 pid, u64 addr, u64 size,
			u64 from, u64 to);

/*
 * A sample's address fell in the kernel's [@addr, @addr + @size) between
 * @from and @to, or a kernel sample whose code could not be read fell in
 * that time.
 */
bool dprof_touches__any_kernel(const struct dprof_touches *t, u64 addr, u64 size,
			       u64 from, u64 to);

#endif /* __PERF_DPROF_KEEP_H */
