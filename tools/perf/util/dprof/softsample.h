/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_SOFTSAMPLE_H
#define __PERF_DPROF_SOFTSAMPLE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The software sampler: a cpu-clock sample with --intr-regs lands on an
 * instruction boundary, so the instruction at the sampled ip has not run
 * yet and the sampled registers are its inputs.  Decoding it gives the
 * exact data address it is about to access (x86-64 only).
 */

struct regs_dump;

enum dprof_ea_reason {
	DPROF_EA_OK,			/* ->addr is the exact data address */
	DPROF_EA_NO_MEMOP,		/* no memory operand (incl. LEA, NOP) */
	DPROF_EA_STRING,		/* movs/stos/cmps/scas/lods/ins/outs/xlat: not guessed */
	DPROF_EA_GATHER,		/* VSIB gather/scatter */
	DPROF_EA_STACK,			/* push/pop/call/ret/enter/leave implicit stack access */
	DPROF_EA_SEGMENT,		/* %fs/%gs-relative: ->addr is the offset, ->seg is set */
	DPROF_EA_RIP_REL_CODE,		/* not returned: RIP-relative data is DPROF_EA_OK */
	DPROF_EA_DECODE_FAIL,		/* bytes do not decode, or a form we do not handle */
	DPROF_EA_NO_REGS,		/* a needed register is missing from the sample */
	DPROF_EA__MAX,
};

/*
 * 1 << PERF_REG_X86_* for the 16 general purpose registers: ax..sp are
 * ids 0-7, r8..r15 are ids 16-23.
 */
#define DPROF_EA_GPRS_MASK	(0xffULL | (0xffULL << 16))

struct dprof_ea {
	u64	addr;		/* effective address (offset part when seg != 0) */
	u8	seg;		/* 0, or 'f'/'g' for a %fs/%gs override */
	u8	size;		/* operand size in bytes when known, else 0 */
	bool	is_write;	/* best effort: the memory operand is written */
	u8	insn_len;	/* set whenever the bytes decode */
	bool	stack;		/* also pushes/pops: call *m, push m, pop m */
	u64	addr_regs;	/* 1 << PERF_REG_X86_* of the base and index registers */
};

const char *dprof_ea_reason__str(enum dprof_ea_reason r);

enum dprof_ea_reason dprof_ea__decode(const u8 *code, size_t len, u64 ip,
				      const struct regs_dump *regs,
				      struct dprof_ea *ea);

u64 dprof_ea__written_regs(const u8 *code, size_t len);
bool dprof_ea__clobbers(const u8 *code, size_t len, u64 reg_mask);

#endif /* __PERF_DPROF_SOFTSAMPLE_H */
