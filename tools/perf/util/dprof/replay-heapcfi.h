/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf dprof: where a frame of an allocation's callchain keeps its return
 * address, from the call frame information (.eh_frame, .debug_frame) of
 * the binary its code is in.
 *
 * The allocator recorder logs the stack words above the allocator's caller
 * that fall in code, with where each was read; the frame of a return
 * address @ip has its canonical frame address (CFA) a number of bytes
 * above the stack pointer at @ip, and its caller's return address is the
 * word right below the CFA (x86_64).  Frames whose CFA is not the stack
 * pointer's plus a constant (a frame pointer's, an expression) are not
 * unwound: the caller falls back on what the code before each candidate
 * says.  Without DWARF support nothing is unwound.
 */
#ifndef __PERF_DPROF_REPLAY_HEAPCFI_H
#define __PERF_DPROF_REPLAY_HEAPCFI_H

#include <linux/types.h>

struct thread;

#ifdef HAVE_DWARF_SUPPORT
bool dprof_heapcfi__cfa(struct thread *thread, u64 ip, u64 *cfa);
void dprof_heapcfi__exit(void);
#else
static inline bool dprof_heapcfi__cfa(struct thread *thread __maybe_unused,
				      u64 ip __maybe_unused, u64 *cfa __maybe_unused)
{
	return false;
}

static inline void dprof_heapcfi__exit(void)
{
}
#endif

#endif /* __PERF_DPROF_REPLAY_HEAPCFI_H */
