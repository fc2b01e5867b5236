/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_DPROF_EA_H
#define __PERF_DPROF_EA_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The software sampler: a cpu-clock sample with --intr-regs lands on an
 * instruction boundary, so the instruction at the sampled ip has not run
 * yet and the sampled registers are its inputs.  Decoding it gives the
 * exact data address it is about to access.
 *
 * Decoding is architecture specific: the functions below marked as arch
 * hooks have __weak fallbacks in util/dprof/ea.c that decode nothing, and
 * an architecture with a decoder overrides them all from its
 * arch/<arch>/util/dprof-ea.c (x86-64 today).  Register masks are in the
 * sample's terms: bit n is the register of id n of the arch's
 * PERF_REG_<ARCH>_* enum, as in perf_event_attr::sample_regs_intr.
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
	DPROF_EA_NO_DECODER,		/* perf has no decoder for this architecture */
	DPROF_EA__MAX,
};

struct dprof_ea {
	u64	addr;		/* effective address (offset part when seg != 0) */
	u8	seg;		/* 0, or 'f'/'g' for a %fs/%gs override */
	u8	size;		/* operand size in bytes when known, else 0 */
	bool	is_write;	/* best effort: the memory operand is written */
	u8	insn_len;	/* set whenever the bytes decode */
	bool	stack;		/* also pushes/pops: call *m, push m, pop m */
	u64	addr_regs;	/* register mask of the base and index registers */
};

const char *dprof_ea_reason__str(enum dprof_ea_reason r);

/* Arch hooks: the fallbacks say "no decoder" (see util/dprof/ea.c). */
enum dprof_ea_reason dprof_ea__decode(const u8 *code, size_t len, u64 ip,
				      const struct regs_dump *regs,
				      struct dprof_ea *ea);
u64 dprof_ea__written_regs(const u8 *code, size_t len);
int dprof_ea__insn_len(const u8 *code, size_t len);
const char *dprof_ea__intr_regs(void);
int dprof_ea__stack_pointer(const struct regs_dump *regs, u64 *sp);

bool dprof_ea__clobbers(const u8 *code, size_t len, u64 reg_mask);

/* for perf's operand typing: see util/dprof/ea.c */
bool dprof_ea__mem_syntax(const u8 *code, size_t len);
bool dprof_ea__may_fuse(const u8 *code, size_t len);

#endif /* __PERF_DPROF_EA_H */
