// SPDX-License-Identifier: GPL-2.0
/*
 * dprof software sampler, the arch-neutral part: reason texts and the
 * fallbacks of the arch hooks for architectures without a decoder.  An
 * architecture with one overrides every __weak function here from its
 * arch/<arch>/util/dprof-ea.c.
 */
#include <errno.h>
#include <string.h>
#include <linux/compiler.h>

#include "ea.h"

static const char * const dprof_ea_reasons[DPROF_EA__MAX] = {
	[DPROF_EA_OK]		= "exact address",
	[DPROF_EA_NO_MEMOP]	= "no memory operand",
	[DPROF_EA_STRING]	= "string instruction",
	[DPROF_EA_GATHER]	= "gather/scatter",
	[DPROF_EA_STACK]	= "implicit stack access",
	[DPROF_EA_SEGMENT]	= "segment-relative",
	[DPROF_EA_RIP_REL_CODE]	= "RIP-relative code",
	[DPROF_EA_DECODE_FAIL]	= "undecodable instruction",
	[DPROF_EA_NO_REGS]	= "registers not sampled",
	[DPROF_EA_NO_DECODER]	= "no decoder for this architecture",
};

/**
 * dprof_ea_reason__str - short human readable text for a decode outcome
 * @r: the reason returned by dprof_ea__decode()
 *
 * Return: a static string such as "no memory operand", never NULL.
 */
const char *dprof_ea_reason__str(enum dprof_ea_reason r)
{
	if ((unsigned int)r >= DPROF_EA__MAX)
		return "unknown";
	return dprof_ea_reasons[r];
}

/**
 * dprof_ea__decode - the data address of the instruction at a sampled ip
 * @code: the instruction bytes at @ip
 * @len: number of bytes at @code
 * @ip: address of @code[0]
 * @regs: the sample's intr_regs, the inputs of the instruction at @ip;
 *	may be NULL when only the instruction is of interest
 * @ea: filled in; ->insn_len is set whenever the bytes decode
 *
 * Arch hook.  This fallback decodes nothing.
 *
 * Return: DPROF_EA_OK when ->addr is the exact data address, else why not.
 */
enum dprof_ea_reason __weak dprof_ea__decode(const u8 *code __maybe_unused,
					     size_t len __maybe_unused,
					     u64 ip __maybe_unused,
					     const struct regs_dump *regs __maybe_unused,
					     struct dprof_ea *ea)
{
	memset(ea, 0, sizeof(*ea));
	return DPROF_EA_NO_DECODER;
}

/**
 * dprof_ea__written_regs - the general registers an instruction may write
 * @code: the instruction bytes
 * @len: number of bytes at @code
 *
 * Arch hook.  Conservative: what is not known is written, so this
 * fallback says every register.
 *
 * Return: a register mask (bit n: register id n of the sample).
 */
u64 __weak dprof_ea__written_regs(const u8 *code __maybe_unused,
				  size_t len __maybe_unused)
{
	return ~0ULL;
}

/**
 * dprof_ea__insn_len - the length of the instruction at @code
 * @code: the instruction bytes
 * @len: number of bytes at @code; the instruction must fit in them
 *
 * Arch hook, used to find instruction starts by decoding forward from a
 * function's start (x86 cannot be decoded backwards).
 *
 * Return: the length in bytes, or a negative errno: -EOPNOTSUPP in this
 * fallback.
 */
int __weak dprof_ea__insn_len(const u8 *code __maybe_unused,
			      size_t len __maybe_unused)
{
	return -EOPNOTSUPP;
}

/**
 * dprof_ea__mem_syntax - does an instruction show a memory operand
 * @code: the instruction bytes
 * @len: number of bytes at @code
 *
 * Arch hook.  perf's data-type profiling reads the operands of an
 * instruction in its disassembly; one in memory syntax is what it types.
 * The answer is yes for more than dprof_ea__decode() finds accesses in
 * (an lea names memory without touching it), and yes when unsure: in
 * this fallback, always.
 *
 * Return: false only when no operand of the instruction is in memory syntax.
 */
bool __weak dprof_ea__mem_syntax(const u8 *code __maybe_unused,
				 size_t len __maybe_unused)
{
	return true;
}

/**
 * dprof_ea__may_fuse - may an instruction be taken as fused with the next
 * @code: the instruction bytes
 * @len: number of bytes at @code
 *
 * Arch hook.  perf's data-type profiling types an instruction with no
 * memory operand by the one before it when the CPU fuses the two (by
 * their mnemonics: a compare or an ALU operation and what follows).  When
 * unsure, the answer is yes: in this fallback, always.
 *
 * Return: false only when perf never takes the instruction for the first
 * of a fused pair.
 */
bool __weak dprof_ea__may_fuse(const u8 *code __maybe_unused,
			       size_t len __maybe_unused)
{
	return true;
}

/**
 * dprof_ea__intr_regs - the registers the decoder needs in a sample
 *
 * Arch hook.
 *
 * Return: a 'perf record --intr-regs=' list, or NULL where there is no
 * decoder (then the software sampler gives no data addresses).
 */
const char * __weak dprof_ea__intr_regs(void)
{
	return NULL;
}

/**
 * dprof_ea__stack_pointer - the stack pointer in a sample's registers
 * @regs: the sample's intr_regs
 * @sp: set to the stack pointer
 *
 * Arch hook.
 *
 * Return: 0, or -ENOENT when it is not known (always, in this fallback).
 */
int __weak dprof_ea__stack_pointer(const struct regs_dump *regs __maybe_unused,
				   u64 *sp __maybe_unused)
{
	return -ENOENT;
}

/**
 * dprof_ea__clobbers - may an instruction overwrite one of some registers
 * @code: the instruction bytes
 * @len: number of bytes at @code
 * @reg_mask: a register mask, e.g. dprof_ea::addr_regs
 *
 * For the skid rule: decode the instruction before the sampled one with
 * the sample's registers; its address is exact too when it does not
 * clobber its own ->addr_regs.  When unsure, the answer is yes.
 *
 * Return: true if the instruction may write a register of @reg_mask.
 */
bool dprof_ea__clobbers(const u8 *code, size_t len, u64 reg_mask)
{
	return (dprof_ea__written_regs(code, len) & reg_mask) != 0;
}
